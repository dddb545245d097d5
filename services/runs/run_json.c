/* run_json.c — the JSON texts a run produces (runs_internal.h): one trajectory line per event,
 * the run result (§3) and the LLM judge's usage merged into it. Written once here, for runs.c
 * (live runs) and recover.c (runs ended after a crash), and the timestamps they carry. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "runs.h"
#include "runs_internal.h"

struct what {
	const kn_event *ev;
	const kn_eval *eval;
	const char *id;
};

static int write_what(FILE *f, const struct what *w)
{
	return w->ev ? kn_traj_write_event(f, w->ev) : kn_eval_write_result(w->eval, w->id, f);
}

/* What write_what writes, as one malloc'd line without its trailing newlines. */
static char *one_line(const struct what *w)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	int rc = write_what(f, w);
	fclose(f);
	if (rc) {
		free(buf);
		return NULL;
	}
	while (len && (buf[len - 1] == '\n'))
		buf[--len] = '\0';
	return buf;
}

char *kn_runs_event_line(const kn_event *ev)
{
	struct what w = {ev, NULL, NULL};
	return one_line(&w);
}

char *kn_runs_result_json(const kn_eval *ev, const char *id)
{
	struct what w = {NULL, ev, id};
	return one_line(&w);
}

/* Add {"llm": {...}} to a result: the judge's usage during the run (counters since it started;
 * shared by concurrent runs, so with several runs at once it is an upper bound). */
void kn_runs_add_llm_usage(char **result, kn_llm *llm, const kn_llm_stats *s0)
{
	kn_llm_stats s1;
	kn_llm_stats_get(llm, &s1);
	json_t *j = json_loads(*result, JSON_PRESERVE_ORDER, NULL);
	json_t *u = json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:f}", "backend", "llm",
	                      "judgements", (json_int_t)(s1.judgements - s0->judgements),
	                      "cache_hits", (json_int_t)(s1.cache_hits - s0->cache_hits),
	                      "requests", (json_int_t)(s1.requests - s0->requests),
	                      "failures", (json_int_t)(s1.failures - s0->failures),
	                      "prompt_tokens", (json_int_t)(s1.prompt_tokens - s0->prompt_tokens),
	                      "completion_tokens",
	                      (json_int_t)(s1.completion_tokens - s0->completion_tokens), "usd",
	                      s1.usd - s0->usd);
	if (j && u && json_object_set_new(j, "llm", u) == 0) {
		char *t = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
		if (t) {
			free(*result);
			*result = t;
		}
	} else {
		json_decref(u);
	}
	json_decref(j);
}


void kn_runs_now(char *buf, size_t cap)
{
	struct timespec ts;
	struct tm tm;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	char base[24];
	strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, cap, "%s.%03ldZ", base, ts.tv_nsec / 1000000);
}
