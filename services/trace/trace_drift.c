/* trace_drift.c — the drift diff of a task that turned flaky or broken: its last
 * passing replay beside the failing one at the first step that differs (trace.h kn_trace_drift;
 * the definition is in services/trace/README.md, "Drift diff").
 *
 * Inputs are two replay reports (docs/formats.md §3, "Replay validation report") and, when kept,
 * their trace indexes (schemas/trace.schema.json). Everything is read defensively: a member of the
 * wrong type counts as missing, so any JSON gives an answer, never a crash (fuzz_trace_drift).
 *
 * Replay steps are the workflow's steps; trace steps are the monitor's (a `type … enter` step is a
 * "type" and a "press", a `wait` is none). align() pairs them in order by kind. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

#define MAX_STEPS 2000

static const char *str(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

/* The steps array of a report ("replay": {"steps": [...]}) or NULL. */
static json_t *report_steps(const json_t *rep)
{
	json_t *s = json_object_get(json_object_get(rep, "replay"), "steps");
	return json_is_array(s) ? s : NULL;
}

/* The report step numbered n (its "step" member, else its position), or NULL. */
static json_t *report_step(const json_t *rep, size_t n)
{
	json_t *steps = report_steps(rep), *s;
	size_t i;
	json_array_foreach(steps, i, s) {
		json_int_t k = json_integer_value(json_object_get(s, "step"));
		if (json_is_object(s) && (k ? (size_t)k == n : i + 1 == n))
			return s;
	}
	return NULL;
}

/* url's form for comparing where steps ended: the path, the query's parameter names sorted and
 * the fragment; scheme, host, port and parameter values left out (a site served elsewhere, a new
 * order number each time), as a recorded postcondition is compared. */
static void url_form(char *out, size_t cap, const char *url)
{
	char buf[2048], *names[64];
	const char *p = url ? strstr(url, "://") : NULL;
	p = p ? strchr(p + 3, '/') : url;
	snprintf(buf, sizeof buf, "%s", p ? p : "");
	char *frag = strchr(buf, '#');
	if (frag)
		*frag++ = '\0';
	char *q = strchr(buf, '?');
	if (q)
		*q++ = '\0';
	size_t n = 0, w;
	while (q && *q && n < 64) {
		char *amp = strchr(q, '&'), *eq;
		if (amp)
			*amp = '\0';
		if ((eq = strchr(q, '=')) != NULL)
			*eq = '\0';
		if (*q)
			names[n++] = q;
		q = amp ? amp + 1 : NULL;
	}
	for (size_t i = 1; i < n; i++) /* insertion sort: at most 64 names */
		for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			char *t = names[j];
			names[j] = names[j - 1], names[j - 1] = t;
		}
	w = (size_t)snprintf(out, cap, "%s", buf);
	for (size_t i = 0; i < n && w < cap; i++)
		w += (size_t)snprintf(out + w, cap - w, "%c%s", i ? '&' : '?', names[i]);
	if (frag && w < cap)
		snprintf(out + w, cap - w, "#%s", frag);
}

static int same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* How the element was found: the locator, and for a fallback the selector that finds it now. */
static void resolved(char *out, size_t cap, const json_t *s)
{
	const char *loc = str(s, "locator"), *prop = str(s, "proposed_selector");
	if (!s)
		snprintf(out, cap, "not run");
	else if (!loc)
		snprintf(out, cap, "%s", str(s, "selector") ? "nothing" : "");
	else
		snprintf(out, cap, "%s%s%s", loc, prop ? " " : "", prop ? prop : "");
}

static int drifted(const json_t *s)
{
	return s && same_str(str(s, "outcome"), "ok-by-fallback");
}

/* The trace kinds a workflow verb shows as in the monitor's steps ("" none). */
static const char *trace_kind(const char *verb)
{
	static const char *const map[][2] = {{"goto", "navigate"}, {"click", "click"}, {"type", "type"},
	                                     {"select", "select"},  {"press", "press"}, {"scroll", "scroll"},
	                                     {"back", "navigate"},  {"forward", "navigate"},
	                                     {"answer", "answer"}};
	for (size_t i = 0; verb && i < sizeof map / sizeof *map; i++)
		if (strcmp(verb, map[i][0]) == 0)
			return map[i][1];
	return "";
}

/* Pair report steps with trace steps: at[n] is the trace step number of report step n (0 none).
 * Each report step takes the next trace step of its kind within 3 (skipping stray ones); a
 * `type` takes a following "press" on the same element too (`enter: true`). */
static void align(int *at, size_t n_at, const json_t *rep, const json_t *trace)
{
	json_t *ts = json_object_get(trace, "steps");
	size_t nt = json_array_size(ts), cur = 0;
	for (size_t i = 0; i < n_at; i++)
		at[i] = 0;
	while (cur < nt && json_integer_value(json_object_get(json_array_get(ts, cur), "step")) == 0)
		cur++; /* step 0: what came before the first step */
	for (size_t n = 1; n < n_at; n++) {
		json_t *s = report_step(rep, n);
		const char *kind = trace_kind(str(s, "verb"));
		if (!s || !*kind)
			continue;
		for (size_t k = cur; k < nt && k < cur + 3; k++) {
			json_t *t = json_array_get(ts, k);
			if (!same_str(str(t, "type"), kind))
				continue;
			at[n] = (int)json_integer_value(json_object_get(t, "step"));
			cur = k + 1;
			json_t *next = json_array_get(ts, cur);
			if (strcmp(kind, "type") == 0 && same_str(str(next, "type"), "press") &&
			    same_str(str(next, "selector"), str(t, "selector")))
				cur++;
			break;
		}
	}
}

static json_t *trace_step(const json_t *trace, int n)
{
	json_t *ts = json_object_get(trace, "steps"), *t;
	size_t i;
	json_array_foreach(ts, i, t)
		if (n > 0 && json_integer_value(json_object_get(t, "step")) == n)
			return t;
	return NULL;
}

/* One side of the difference: what the report and the trace say about report step n. */
static json_t *side(const json_t *rep, const json_t *trace, size_t n, int tstep)
{
	json_t *s = report_step(rep, n), *t = trace_step(trace, tstep);
	char how[600];
	resolved(how, sizeof how, s);
	json_t *o = json_pack("{s:s?, s:s?, s:s, s:b}", "outcome", s ? str(s, "outcome") : "not run",
	                      "url", str(s, "url") ? str(s, "url") : str(t, "page_url"), "resolved", how,
	                      "drift", drifted(s));
	if (!o)
		return NULL;
	const char *keys[] = {"selector", "locator", "proposed_selector", "detail"};
	for (size_t i = 0; s && i < sizeof keys / sizeof *keys; i++)
		if (str(s, keys[i]))
			json_object_set_new(o, keys[i], json_string(str(s, keys[i])));
	if (json_is_number(json_object_get(s, "locator_score")))
		json_object_set(o, "locator_score", json_object_get(s, "locator_score"));
	json_object_set_new(o, "trace_step", tstep > 0 ? json_integer(tstep) : json_null());
	json_object_set_new(o, "screenshot", json_boolean(t && str(t, "screenshot")));
	if (t && str(t, "title"))
		json_object_set_new(o, "title", json_string(str(t, "title")));
	json_t *el = json_object_get(t, "element");
	if (json_is_object(el)) /* the element the page has there now: found, box and HTML */
		json_object_set(o, "element", el);
	return o;
}

/* Which of the four criteria differ at step n (empty array: none). */
static json_t *differences(const json_t *pass, const json_t *fail, size_t n)
{
	json_t *a = report_step(pass, n), *b = report_step(fail, n), *d = json_array();
	char ua[2100], ub[2100], ra[600], rb[600];
	if (!d)
		return NULL;
	if (!same_str(a ? str(a, "outcome") : "not run", b ? str(b, "outcome") : "not run"))
		json_array_append_new(d, json_string("status"));
	url_form(ua, sizeof ua, str(a, "url"));
	url_form(ub, sizeof ub, str(b, "url"));
	if (a && b && str(a, "url") && str(b, "url") && strcmp(ua, ub) != 0)
		json_array_append_new(d, json_string("url"));
	resolved(ra, sizeof ra, a);
	resolved(rb, sizeof rb, b);
	if (a && b && strcmp(ra, rb) != 0)
		json_array_append_new(d, json_string("selector"));
	if (drifted(a) != drifted(b))
		json_array_append_new(d, json_string("drift"));
	return d;
}

/* Key nodes: both replays' reached / reached_at_step, and whether that changed. */
static json_t *key_nodes(const json_t *pass, const json_t *fail, json_t *changed)
{
	json_t *out = json_array(), *kf, *kp;
	json_t *lp = json_object_get(json_object_get(pass, "replay"), "key_nodes");
	json_t *lf = json_object_get(json_object_get(fail, "replay"), "key_nodes");
	size_t i, j;
	json_array_foreach(lf, i, kf) {
		const char *id = str(kf, "id");
		json_t *match = NULL;
		json_array_foreach(lp, j, kp)
			if (id && same_str(str(kp, "id"), id))
				match = kp;
		if (!id)
			continue;
		int rp = json_is_true(json_object_get(match, "reached")), rf = json_is_true(json_object_get(kf, "reached"));
		json_t *sp = json_object_get(match, "reached_at_step"), *sf = json_object_get(kf, "reached_at_step");
		int ch = rp != rf || json_integer_value(sp) != json_integer_value(sf);
		json_array_append_new(out, json_pack("{s:s, s:{s:b, s:O?}, s:{s:b, s:O?}, s:b}", "id", id, "passing",
		                                     "reached", rp, "reached_at_step", json_is_integer(sp) ? sp : NULL,
		                                     "failing", "reached", rf, "reached_at_step",
		                                     json_is_integer(sf) ? sf : NULL, "changed", ch));
		if (ch)
			json_array_append_new(changed, json_string(id));
	}
	return out;
}

#define MAX_REQUESTS 500 /* requests paired per side */

/* Is the [name, value] pair p among fields? */
static int has_field(const json_t *fields, const json_t *p)
{
	size_t i;
	json_t *x;
	json_array_foreach(fields, i, x)
		if (json_equal(x, p))
			return 1;
	return 0;
}

/* The names of the fields whose values differ between a and b (in one and not the other), once each. */
static json_t *fields_changed(const json_t *a, const json_t *b)
{
	json_t *names = json_array(), *x;
	const json_t *sides[2][2] = {{a, b}, {b, a}};
	size_t i;
	for (size_t k = 0; names && k < 2; k++)
		json_array_foreach(sides[k][0], i, x) {
			json_t *n = json_array_get(x, 0);
			size_t j;
			json_t *y;
			int seen = 0;
			json_array_foreach(names, j, y)
				seen |= json_equal(y, n);
			if (json_is_string(n) && !seen && !has_field(sides[k][1], x))
				json_array_append(names, n);
		}
	return names;
}

/* The two replays' requests, paired: each passing request with the first failing one not
 * yet taken of the same method and URL form; the failing replay's others follow as "new". Each pair
 * says its change — same, changed (held, matched key nodes or fields differ: differs names them,
 * fields_changed the fields), missing (the failing replay did not send it) or new — and
 * *n_changed counts those that are not the same. */
static json_t *requests_pair(const json_t *pass_trace, const json_t *fail_trace, int *n_changed)
{
	json_t *rp = kn_trace_requests(pass_trace), *rf = kn_trace_requests(fail_trace), *out = json_array();
	size_t np = json_array_size(rp), nf = json_array_size(rf);
	np = np > MAX_REQUESTS ? MAX_REQUESTS : np;
	nf = nf > MAX_REQUESTS ? MAX_REQUESTS : nf;
	char taken[MAX_REQUESTS] = {0}, ua[2100], ub[2100];
	*n_changed = 0;
	for (size_t i = 0; out && rp && rf && i < np + nf; i++) {
		json_t *a = i < np ? json_array_get(rp, i) : NULL, *b = NULL;
		if (a) {
			url_form(ua, sizeof ua, str(a, "url"));
			for (size_t j = 0; j < nf && !b; j++) {
				json_t *c = json_array_get(rf, j);
				url_form(ub, sizeof ub, str(c, "url"));
				if (!taken[j] && same_str(str(a, "method"), str(c, "method")) && strcmp(ua, ub) == 0)
					b = c, taken[j] = 1;
			}
		} else if (!taken[i - np]) {
			b = json_array_get(rf, i - np);
			url_form(ua, sizeof ua, str(b, "url"));
		} else {
			continue;
		}
		json_t *d = json_array(), *fc = NULL;
		const char *change = !b ? "missing" : !a ? "new" : "same";
		if (a && b) {
			if (json_is_true(json_object_get(a, "held")) != json_is_true(json_object_get(b, "held")))
				json_array_append_new(d, json_string("held"));
			if (!json_equal(json_object_get(a, "matched"), json_object_get(b, "matched")))
				json_array_append_new(d, json_string("matched"));
			fc = fields_changed(json_object_get(a, "fields"), json_object_get(b, "fields"));
			if (json_array_size(fc))
				json_array_append_new(d, json_string("fields"));
			if (json_array_size(d))
				change = "changed";
		}
		*n_changed += strcmp(change, "same") != 0;
		json_array_append_new(out, json_pack("{s:s, s:s, s:s, s:O?, s:O?, s:o, s:o}", "method",
		                                     str(a ? a : b, "method"), "url_form", ua, "change", change,
		                                     "passing", a, "failing", b, "differs", d ? d : json_array(),
		                                     "fields_changed", fc ? fc : json_array()));
	}
	json_decref(rp);
	json_decref(rf);
	return out ? out : json_array();
}

int kn_trace_drift(json_t **out, const json_t *pass, const json_t *pass_trace, const json_t *fail,
                   const json_t *fail_trace, kn_err *err)
{
	*out = NULL;
	if (!json_is_object(pass) || !json_is_object(fail))
		return kn_err_set(err, KN_EINVAL, "drift: both replay reports must be JSON objects");
	size_t np = json_array_size(report_steps(pass)), nf = json_array_size(report_steps(fail));
	size_t n = (np > nf ? np : nf);
	if (n > MAX_STEPS)
		n = MAX_STEPS;
	int *ap = calloc(n + 1, sizeof *ap), *af = calloc(n + 1, sizeof *af);
	json_t *o = json_object(), *changed = json_array(), *d = NULL;
	if (!ap || !af || !o || !changed) {
		free(ap), free(af), json_decref(o), json_decref(changed);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	align(ap, n + 1, pass, pass_trace);
	align(af, n + 1, fail, fail_trace);
	size_t first = 0;
	for (size_t k = 1; k <= n && !first; k++) {
		json_decref(d);
		d = differences(pass, fail, k);
		if (json_array_size(d))
			first = k;
	}
	if (first) {
		json_t *rs = report_step(fail, first), *rec = json_object_get(rs, "recorded");
		if (!json_is_object(rec))
			rec = json_object_get(report_step(pass, first), "recorded");
		json_object_set_new(o, "step", json_integer((json_int_t)first));
		json_object_set_new(o, "verb", json_string(str(rs, "verb") ? str(rs, "verb")
		                                           : str(report_step(pass, first), "verb") ? str(report_step(pass, first), "verb") : "?"));
		json_object_set_new(o, "differs", d);
		json_object_set_new(o, "recorded", json_is_object(rec) ? json_deep_copy(rec) : json_null());
		json_object_set_new(o, "passing", side(pass, pass_trace, first, ap[first]));
		json_object_set_new(o, "failing", side(fail, fail_trace, first, af[first]));
	} else {
		json_decref(d);
		json_object_set_new(o, "step", json_null());
	}
	json_object_set_new(o, "key_nodes", key_nodes(pass, fail, changed));
	int n_req = 0;
	json_object_set_new(o, "requests", requests_pair(pass_trace, fail_trace, &n_req));
	json_object_set_new(o, "changed_requests", json_integer(n_req));
	json_object_set_new(o, "changed_key_nodes", changed);
	json_t *rep = json_object_get(fail, "repairs");
	json_object_set_new(o, "repairs", json_is_array(rep) ? json_deep_copy(rep) : json_array());
	json_t *b = json_object_get(fail, "broken");
	if (json_is_object(b))
		json_object_set(o, "broken", b);
	free(ap);
	free(af);
	*out = o;
	return 0;
}
