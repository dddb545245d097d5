/* api_drift.c — GET /api/tasks/{id}/drift (api_drift.h): the two replays from the store
 * (kn_store_drift_pair_json), their traces from the traces folder, the difference computed by
 * kn_trace_drift (services/trace/trace_drift.c), then the links a page needs: each side's trace
 * page and the screenshot of the step (GET /api/runs/{run}/trace-shot?step=N, or for the failing
 * step without a trace shot the failure's own PNG, GET /api/replays/{id}/screenshot). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "api_drift.h"
#include "api_fail.h"
#include "trace.h"

/* "/api/runs/<run>/…" with run percent-encoded (a run id is a file name, but say so safely). */
static json_t *run_link(const char *run, const char *tail)
{
	char buf[700];
	size_t n = (size_t)snprintf(buf, sizeof buf, "/api/runs/");
	for (const unsigned char *p = (const unsigned char *)run; *p && n + 4 < sizeof buf; p++)
		n += (size_t)((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		                      *p == '-' || *p == '_' || *p == '.'
		                  ? snprintf(buf + n, sizeof buf - n, "%c", *p)
		                  : snprintf(buf + n, sizeof buf - n, "%%%02X", *p));
	snprintf(buf + n, sizeof buf - n, "%s", tail);
	return json_string(buf);
}

/* One replay of the pair without its report, plus its trace (loaded into *trace, or NULL). */
static json_t *replay_summary(json_t *r, const char *root, json_t **trace)
{
	const char *run = json_string_value(json_object_get(r, "run"));
	kn_err err = {0};
	*trace = NULL;
	if (run)
		kn_trace_load_run(trace, root, run, &err);
	json_t *o = json_deep_copy(r);
	json_object_del(o, "report");
	json_t *rep = json_object_get(r, "report");
	json_object_set(o, "reason", json_object_get(json_object_get(rep, "broken"), "reason")
	                                 ? json_object_get(json_object_get(rep, "broken"), "reason") : json_null());
	json_object_set_new(o, "trace", json_boolean(*trace != NULL));
	json_object_set_new(o, "trace_page", *trace && run ? json_string("") : json_null());
	if (*trace && run) {
		char page[700];
		json_t *l = run_link(run, "/trace"); /* the dashboard route uses the same encoding */
		snprintf(page, sizeof page, "#/runs/%s", json_string_value(l) + strlen("/api/runs/"));
		json_object_set_new(o, "trace_page", json_string(page));
		json_object_set_new(o, "trace_url", l);
	}
	return o;
}

/* The screenshot link of one side at the differing step. */
static void shot_link(json_t *sd, json_t *summary, int failing, json_int_t broken_step, json_int_t step)
{
	if (!json_is_object(sd))
		return;
	const char *run = json_string_value(json_object_get(summary, "run"));
	json_int_t ts = json_integer_value(json_object_get(sd, "trace_step"));
	char tail[64];
	if (run && ts > 0 && json_is_true(json_object_get(sd, "screenshot")) && json_is_true(json_object_get(summary, "trace"))) {
		snprintf(tail, sizeof tail, "/trace-shot?step=%lld", (long long)ts);
		json_object_set_new(sd, "screenshot_url", run_link(run, tail));
		json_object_set_new(sd, "screenshot_type", json_string("image/jpeg"));
	} else if (failing && broken_step == step && json_is_true(json_object_get(summary, "screenshot"))) {
		char url[96];
		snprintf(url, sizeof url, "/api/replays/%lld/screenshot",
		         (long long)json_integer_value(json_object_get(summary, "id")));
		json_object_set_new(sd, "screenshot_url", json_string(url));
		json_object_set_new(sd, "screenshot_type", json_string("image/png"));
	} else {
		json_object_set_new(sd, "screenshot_url", json_null());
	}
}

void kn_api_drift_get(kn_store *st, const char *trace_root, const kn_http_req *req, kn_http_resp *resp)
{
	kn_err err = {0};
	int replay = 0;
	if (kn_http_query_int(&replay, req->query, "replay", 0, 1, 2000000000, &err) != 0) {
		kn_http_resp_error(resp, 400, "bad replay", "replay=ID must be a replay id (a positive integer)");
		return;
	}
	char *text = NULL;
	int rc = kn_store_drift_pair_json(st, req->id, replay, &text, &err);
	if (rc) {
		kn_api_store_failed(resp, rc, &err, err.msg[0] ? NULL : "no such task");
		return;
	}
	json_t *pair = json_loads(text, 0, NULL);
	free(text);
	json_t *f = json_object_get(pair, "failing"), *p = json_object_get(pair, "passing");
	if (!json_is_object(f) || !json_is_object(p)) {
		const char *why = !json_is_object(f) ? (replay ? "no such replay of this task" : "this task has no broken replay")
		                                     : "no replay of this task passed before the failing one";
		json_decref(pair); /* f and p are its members: decided above */
		kn_http_resp_error(resp, 404, "no drift", why);
		return;
	}
	json_t *pt = NULL, *ft = NULL, *diff = NULL;
	json_t *ps = replay_summary(p, trace_root, &pt), *fs = replay_summary(f, trace_root, &ft);
	rc = kn_trace_drift(&diff, json_object_get(p, "report"), pt, json_object_get(f, "report"), ft, &err);
	json_decref(pt);
	json_decref(ft);
	if (rc || !ps || !fs) {
		json_decref(pair), json_decref(ps), json_decref(fs);
		/* a stored report that is not an object: the store's data, not the request, is wrong */
		kn_http_resp_error(resp, 500, "cannot compare the replays", err.msg);
		return;
	}
	json_int_t step = json_integer_value(json_object_get(diff, "step"));
	json_int_t bstep = json_integer_value(json_object_get(json_object_get(diff, "broken"), "step"));
	shot_link(json_object_get(diff, "passing"), ps, 0, bstep, step);
	shot_link(json_object_get(diff, "failing"), fs, 1, bstep, step);
	json_object_set_new(diff, "task", json_string(req->id));
	json_object_set(diff, "health", json_object_get(pair, "health"));
	json_object_set_new(diff, "passing_replay", ps);
	json_object_set_new(diff, "failing_replay", fs);
	json_decref(pair);
	char *out = json_dumps(diff, JSON_COMPACT);
	json_decref(diff);
	if (!out)
		kn_http_resp_error(resp, 500, "out of memory", NULL);
	else
		kn_http_resp_json(resp, 200, out);
}
