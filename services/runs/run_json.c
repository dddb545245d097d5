/* run_json.c — the JSON texts a run produces (runs_internal.h): one trajectory line per event,
 * the run result (§3) with the LLM judge's usage added to its tree and written once, for runs.c
 * (live runs) and recover.c (runs ended after a crash), and the timestamps they carry. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "keynode/clock.h"
#include "runs.h"
#include "runs_internal.h"

char *kn_runs_event_line(const kn_event *ev)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	int rc = kn_traj_write_event(f, ev);
	fclose(f);
	if (rc) {
		free(buf);
		return NULL;
	}
	while (len && (buf[len - 1] == '\n'))
		buf[--len] = '\0';
	return buf;
}

/* Add {"llm": {...}} to a result: the judge's usage during the run (counters since it started;
 * shared by concurrent runs, so with several runs at once it is an upper bound). */
int kn_runs_add_llm_usage(json_t *result, kn_llm *llm, const kn_llm_stats *s0)
{
	kn_llm_stats s1;
	kn_llm_stats_get(llm, &s1);
	json_t *u = json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:f}", "backend", "llm",
	                      "judgements", (json_int_t)(s1.judgements - s0->judgements),
	                      "cache_hits", (json_int_t)(s1.cache_hits - s0->cache_hits),
	                      "requests", (json_int_t)(s1.requests - s0->requests),
	                      "failures", (json_int_t)(s1.failures - s0->failures),
	                      "prompt_tokens", (json_int_t)(s1.prompt_tokens - s0->prompt_tokens),
	                      "completion_tokens",
	                      (json_int_t)(s1.completion_tokens - s0->completion_tokens), "usd",
	                      s1.usd - s0->usd);
	return u ? json_object_set_new(result, "llm", u) : -1;
}

char *kn_runs_result_text(const json_t *result, int extended)
{
	/* a result with members added after the evaluator's (llm, reason) was written at jansson's
	 * default precision when runs passed it around as text: kept, so stored results read the same */
	return json_dumps(result, extended ? JSON_COMPACT | JSON_PRESERVE_ORDER : KN_RESULT_JSON_FLAGS);
}

void kn_runs_now(char *buf, size_t cap)
{
	struct timespec ts = kn_time_wall();
	struct tm tm;
	gmtime_r(&ts.tv_sec, &tm);
	char base[24];
	strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, cap, "%s.%03ldZ", base, ts.tv_nsec / 1000000);
}
