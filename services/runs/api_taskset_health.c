/* api_taskset_health.c — GET /api/tasksets/{name}/health (services/http/API.md "Task-set health"):
 * the set's replay history from the store (store_health.h), summarised by the pure computation of
 * services/scheduler/taskset_health.h as of the database's clock: the share of tasks validated
 * within ?days=N (default 7), the breaks with their detection times and per month, and the
 * survival curve of the tasks' validity. Durations are in seconds, timestamps RFC 3339 UTC. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "api.h"
#include "api_fail.h"
#include "keynode/clock.h"
#include "request.h"
#include "store_health.h"
#include "taskset_health.h"

#define KN_API_HEALTH_BREAKS_MAX 500 /* the newest breaks listed; all are counted */

/* ms since the epoch as "2026-01-01T00:00:00.000Z" (the API's timestamp form). */
static json_t *ts_json(int64_t ms)
{
	char t[KN_TIME_MAX], out[KN_TIME_MAX + 8];
	int64_t s = ms >= 0 ? ms / 1000 : (ms - 999) / 1000;
	kn_time_rfc3339(t, (time_t)s);
	size_t n = strlen(t);
	if (n && t[n - 1] == 'Z')
		t[n - 1] = '\0';
	snprintf(out, sizeof out, "%s.%03dZ", t, (int)(ms - s * 1000));
	return json_string(out);
}

static json_t *secs(int64_t ms)
{
	return ms < 0 ? json_null() : json_real((double)ms / 1000.0);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/* {"count", "median_s", "mean_s", "max_s"} over the breaks that have a detection time; the median
 * of an even count is the mean of the middle two. */
static json_t *detection_json(const kn_th_summary *s)
{
	int64_t *d = malloc((s->nbreaks ? s->nbreaks : 1) * sizeof *d);
	if (!d)
		return NULL;
	size_t n = 0;
	double sum = 0;
	for (size_t i = 0; i < s->nbreaks; i++)
		if (s->breaks[i].detection_ms >= 0) {
			d[n++] = s->breaks[i].detection_ms;
			sum += (double)s->breaks[i].detection_ms;
		}
	qsort(d, n, sizeof *d, cmp_i64);
	json_t *o = json_pack("{s:I}", "count", (json_int_t)n);
	if (n) {
		double med = n % 2 ? (double)d[n / 2] : ((double)d[n / 2 - 1] + (double)d[n / 2]) / 2.0;
		json_object_set_new(o, "median_s", json_real(med / 1000.0));
		json_object_set_new(o, "mean_s", json_real(sum / (double)n / 1000.0));
		json_object_set_new(o, "max_s", secs(d[n - 1]));
	} else {
		json_object_set_new(o, "median_s", json_null());
		json_object_set_new(o, "mean_s", json_null());
		json_object_set_new(o, "max_s", json_null());
	}
	free(d);
	return o;
}

static json_t *summary_json(const char *name, const kn_store_history *h, const kn_th_summary *s)
{
	char statement[128];
	snprintf(statement, sizeof statement, "validated within %d day%s: %zu of %zu tasks", s->days,
	         s->days == 1 ? "" : "s", s->validated, s->tasks);
	json_t *o = json_pack("{s:s, s:o, s:i, s:I, s:I, s:o, s:s, s:I}", "taskset", name, "now",
	                      ts_json(h->now_ms), "days", s->days, "tasks", (json_int_t)s->tasks, "validated",
	                      (json_int_t)s->validated, "validated_share",
	                      s->tasks ? json_real((double)s->validated / (double)s->tasks) : json_null(),
	                      "statement", statement, "breaks_total", (json_int_t)s->nbreaks);
	json_t *breaks = json_array(), *months = json_array(), *curve = json_array();
	size_t from = s->nbreaks > KN_API_HEALTH_BREAKS_MAX ? s->nbreaks - KN_API_HEALTH_BREAKS_MAX : 0;
	for (size_t i = from; i < s->nbreaks; i++) {
		const kn_th_break *b = &s->breaks[i];
		json_array_append_new(breaks, json_pack("{s:s, s:o, s:o, s:o}", "task", h->tasks[b->task], "at",
		                                        ts_json(b->at), "last_pass",
		                                        b->last_pass < 0 ? json_null() : ts_json(b->last_pass),
		                                        "detection_s", secs(b->detection_ms)));
	}
	for (size_t i = 0; i < s->nmonths; i++) {
		char m[16];
		snprintf(m, sizeof m, "%04d-%02d", s->months[i].year, s->months[i].month);
		json_array_append_new(months, json_pack("{s:s, s:I}", "month", m, "breaks",
		                                        (json_int_t)s->months[i].breaks));
	}
	for (size_t i = 0; i < s->ncurve; i++) {
		const kn_th_step *c = &s->curve[i];
		json_array_append_new(curve, json_pack("{s:o, s:I, s:I, s:I, s:f}", "t_s", secs(c->t_ms), "at_risk",
		                                       (json_int_t)c->at_risk, "ended", (json_int_t)c->ended,
		                                       "censored", (json_int_t)c->censored, "survival", c->survival));
	}
	json_object_set_new(o, "breaks", breaks);
	json_object_set_new(o, "breaks_per_month", months);
	json_object_set_new(o, "detection", detection_json(s));
	json_object_set_new(o, "survival", json_pack("{s:I, s:I, s:o, s:o}", "intervals", (json_int_t)s->intervals,
	                                             "ended", (json_int_t)s->ended, "median_s",
	                                             secs(s->median_ms), "curve", curve));
	return o;
}

void kn_api_taskset_health(kn_store *st, const kn_http_req *req, kn_http_resp *resp)
{
	kn_err err = {0};
	int days = 7;
	if (kn_http_query_int(&days, req->query, "days", 7, 1, KN_TH_MAX_DAYS, &err)) {
		kn_http_resp_error(resp, 400, "bad days", err.msg);
		return;
	}
	kn_store_history h;
	int rc = kn_store_taskset_history(st, req->id, &h, &err);
	if (rc) {
		kn_api_store_failed(resp, rc, &err, NULL);
		return;
	}
	kn_th_event *ev = malloc((h.nevents ? h.nevents : 1) * sizeof *ev);
	kn_th_summary *s = NULL;
	if (!ev)
		rc = kn_err_set(&err, KN_ENOMEM, "out of memory");
	for (size_t i = 0; ev && i < h.nevents; i++) {
		ev[i].task = h.events[i].task;
		ev[i].at = h.events[i].at_ms;
		ev[i].kind = h.events[i].broke ? KN_TH_BREAK : KN_TH_PASS;
	}
	if (!rc)
		rc = kn_th_compute(&s, h.ntasks, ev, h.nevents, h.now_ms, days, &err);
	if (rc)
		kn_api_store_failed(resp, rc, &err, NULL);
	else
		kn_http_resp_json_value(resp, 200, summary_json(req->id, &h, s));
	kn_th_summary_free(s);
	free(ev);
	kn_store_history_clear(&h);
}
