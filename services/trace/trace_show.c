/* trace_show.c — a trace in words (trace.h): one paragraph per key node saying why it was or was
 * not reached, built from the evidence the index holds, and the terminal view of `keynode trace
 * show`. The same paragraphs go into index.json, so the dashboard shows exactly these words.
 * Works on an index checked by kn_trace_parse (types known), but still reads defensively. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "trace_internal.h"

#define KN_TRACE_SUMMARY_MAX 8 /* facts per node paragraph (the latest ones) */

static const char *str(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : "";
}

/* Append printf output to *buf (growing); errors leave it as it was. */
static void cat(char **buf, size_t *len, const char *fmt, ...) KN_PRINTF(3, 4);
static void cat(char **buf, size_t *len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	char *nb = realloc(*buf, *len + (size_t)n + 1);
	if (!nb)
		return;
	va_start(ap, fmt);
	vsnprintf(nb + *len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	*buf = nb;
	*len += (size_t)n;
}

/* Add one fact about a node at step: facts is [[text, [steps…]]…] in order of first appearance. */
static void fact(json_t *facts, const char *text, long long step)
{
	size_t i;
	json_t *f;
	json_array_foreach(facts, i, f) {
		if (strcmp(json_string_value(json_array_get(f, 0)), text) == 0) {
			json_t *st = json_array_get(f, 1);
			if (json_integer_value(json_array_get(st, json_array_size(st) - 1)) != step)
				json_array_append_new(st, json_integer(step));
			return;
		}
	}
	json_array_append_new(facts, json_pack("[s, [I]]", text, (json_int_t)step));
}

/* What step s says about node id, as facts. */
static void step_facts(json_t *facts, json_t *s, const char *id)
{
	long long step = json_integer_value(json_object_get(s, "step"));
	size_t i;
	json_t *x;
	char *b = NULL;
	size_t n = 0;
	json_array_foreach(json_object_get(s, "selectors"), i, x) {
		if (strcmp(str(x, "node"), id) != 0)
			continue;
		long long c = json_integer_value(json_object_get(x, "count"));
		n = 0;
		if (c == 0)
			cat(&b, &n, "the selector `%s` resolved to nothing", str(x, "selector"));
		else if (c < 0)
			cat(&b, &n, "the selector `%s` is not valid CSS", str(x, "selector"));
		if (n)
			fact(facts, b, step);
	}
	json_array_foreach(json_object_get(s, "evidence"), i, x) {
		if (strcmp(str(x, "node"), id) != 0)
			continue;
		const char *in = json_string_value(json_object_get(x, "input"));
		const char *ev = str(x, "event");
		n = 0;
		if (*ev && strcmp(ev, str(s, "type")) != 0)
			cat(&b, &n, "(after a %s) ", ev);
		cat(&b, &n, "%s", str(x, "why"));
		if (in)
			cat(&b, &n, ": %s saw `%.160s`%s", str(x, "matcher"), in, strlen(in) > 160 ? "…" : "");
		if (json_is_true(json_object_get(x, "checked")))
			cat(&b, &n, " (score %g)", json_number_value(json_object_get(x, "score")));
		if (n)
			fact(facts, b, step);
	}
	free(b);
}

/* "at step 4", "at steps 1, 2 and 5", "at 9 steps from 1 to 40". */
static void steps_words(char **b, size_t *n, json_t *st)
{
	size_t k = json_array_size(st);
	if (k == 1) {
		cat(b, n, "at step %lld", (long long)json_integer_value(json_array_get(st, 0)));
		return;
	}
	if (k > 6) {
		cat(b, n, "at %zu steps from %lld to %lld", k, (long long)json_integer_value(json_array_get(st, 0)),
		    (long long)json_integer_value(json_array_get(st, k - 1)));
		return;
	}
	cat(b, n, "at steps");
	for (size_t i = 0; i < k; i++)
		cat(b, n, "%s %lld", i == 0 ? "" : i + 1 == k ? " and" : ",",
		    (long long)json_integer_value(json_array_get(st, i)));
}

/* The paragraph of key node kn over the steps: each fact once, with the steps it held at. */
static char *node_summary(json_t *kn, json_t *steps)
{
	const char *id = str(kn, "id");
	json_t *at = json_object_get(kn, "reached_at_step");
	char *b = NULL;
	size_t n = 0;
	if (json_is_integer(at))
		cat(&b, &n, "%s reached at step %lld", id, (long long)json_integer_value(at));
	else
		cat(&b, &n, "%s not reached", id);
	const char *sel = json_string_value(json_object_get(kn, "selector"));
	json_t *facts = json_array();
	size_t i;
	json_t *s;
	json_array_foreach(steps, i, s) {
		/* a reached node: the step that reached it is the evidence */
		if (!json_is_integer(at) || json_integer_value(json_object_get(s, "step")) == json_integer_value(at))
			step_facts(facts, s, id);
	}
	size_t nf = json_array_size(facts);
	size_t from = nf > KN_TRACE_SUMMARY_MAX ? nf - KN_TRACE_SUMMARY_MAX : 0;
	if (!nf && !json_is_integer(at))
		cat(&b, &n, ": no step gave it anything to check%s%s%s", sel ? " (its selector `" : "",
		    sel ? sel : "", sel ? "`)" : "");
	for (size_t k = from; k < nf; k++) {
		json_t *f = json_array_get(facts, k);
		cat(&b, &n, "%s%s", k > from ? "; " : ": ", k == from && from ? "… " : "");
		steps_words(&b, &n, json_array_get(f, 1));
		cat(&b, &n, " %s", json_string_value(json_array_get(f, 0)));
	}
	json_decref(facts);
	return b;
}

int kn_trace_summarise(json_t *idx)
{
	json_t *steps = json_object_get(idx, "steps"), *kn;
	size_t i;
	json_array_foreach(json_object_get(idx, "key_nodes"), i, kn) {
		char *s = node_summary(kn, steps);
		json_object_set_new(kn, "summary", s ? kn_trace_text(s, 8000) : json_string(""));
		free(s);
	}
	return 0;
}

int kn_trace_print(FILE *f, json_t *idx)
{
	fprintf(f, "%s %s of task %s: %s (score %g)", str(idx, "kind"), str(idx, "run"), str(idx, "task"),
	        str(idx, "status"), json_number_value(json_object_get(idx, "score")));
	const char *why = str(idx, "end_reason");
	fprintf(f, "%s%s%s\n", *why ? ", ended: " : "", why, "");
	if (*str(idx, "intent"))
		fprintf(f, "intent: %s\n", str(idx, "intent"));
	const char *ans = json_string_value(json_object_get(idx, "answer"));
	fprintf(f, "answer: %s\n\n", ans ? ans : "(none)");
	size_t i, k;
	json_t *s, *x;
	json_array_foreach(json_object_get(idx, "steps"), i, s) {
		fprintf(f, "step %lld  %s", (long long)json_integer_value(json_object_get(s, "step")),
		        str(s, "type"));
		if (*str(s, "selector"))
			fprintf(f, " %s", str(s, "selector"));
		if (*str(s, "value"))
			fprintf(f, " = \"%s\"", str(s, "value"));
		fputc('\n', f);
		const char *url = *str(s, "page_url") ? str(s, "page_url") : str(s, "url");
		if (*url)
			fprintf(f, "  page: %s", url);
		if (json_is_integer(json_object_get(s, "status")))
			fprintf(f, " [HTTP %lld]", (long long)json_integer_value(json_object_get(s, "status")));
		if (*str(s, "title"))
			fprintf(f, " \"%s\"", str(s, "title"));
		if (*url)
			fputc('\n', f);
		const char *shot = json_string_value(json_object_get(s, "screenshot"));
		if (shot)
			fprintf(f, "  screenshot: %s%s%s\n", shot, *str(s, "screenshot_when") ? ", taken " : "",
			        str(s, "screenshot_when"));
		else if (*str(s, "screenshot_skipped") || *str(s, "screenshot_error"))
			fprintf(f, "  no screenshot: %s\n",
			        *str(s, "screenshot_skipped") ? str(s, "screenshot_skipped") : str(s, "screenshot_error"));
		json_t *el = json_object_get(s, "element");
		if (json_is_object(el))
			fprintf(f, "  element: %s\n", json_is_true(json_object_get(el, "found"))
			                                  ? "found" : "not found in the page after the action");
		json_array_foreach(json_object_get(s, "console"), k, x)
			fprintf(f, "  console %s: %s\n", str(x, "source"), str(x, "text"));
		json_array_foreach(json_object_get(s, "network"), k, x) {
			json_t *st = json_object_get(x, "status");
			if (json_is_integer(st))
				fprintf(f, "  network: HTTP %lld %s\n", (long long)json_integer_value(st), str(x, "url"));
			else
				fprintf(f, "  network: %s %s\n", str(x, "error"), str(x, "url"));
		}
		json_array_foreach(json_object_get(s, "events"), k, x) {
			json_t *q = json_object_get(x, "request");
			if (json_is_object(q)) /* a request: what was sent (or held), not the page it came from */
				fprintf(f, "  then request %s %s%s\n", str(q, "method"), str(q, "url"),
				        json_is_true(json_object_get(q, "held")) ? " (held by keynode)" : "");
			else
				fprintf(f, "  then %s%s%s %s\n", str(x, "type"), *str(x, "how") ? " by " : "",
				        str(x, "how"), str(x, "url"));
		}
		json_array_foreach(json_object_get(s, "evidence"), k, x) {
			const char *in = json_string_value(json_object_get(x, "input"));
			fprintf(f, "  %s %s: %s", str(x, "node"), str(x, "matcher"), str(x, "why"));
			if (in)
				fprintf(f, " — saw \"%.200s\"", in);
			fprintf(f, " (score %g)\n", json_number_value(json_object_get(x, "score")));
		}
	}
	json_t *requests = kn_trace_requests(idx);
	kn_trace_print_requests(f, requests);
	json_decref(requests);
	fprintf(f, "\nkey nodes:\n");
	json_array_foreach(json_object_get(idx, "key_nodes"), i, x) {
		const char *sum = str(x, "summary");
		char *own = NULL;
		if (!*sum)
			sum = own = node_summary(x, json_object_get(idx, "steps"));
		fprintf(f, "  %s\n", sum ? sum : str(x, "id"));
		free(own);
	}
	return ferror(f) ? KN_EIO : 0;
}
