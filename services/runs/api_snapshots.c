/* api_snapshots.c — GET /api/tasksets/{name}/snapshots and POST /api/rescore (services/http/API.md
 * "Snapshots and rescoring"). A rescore takes the stored runs of a task set
 * that ran against the task versions of snapshot `from`, reads their stored events back and scores
 * them against the versions of `from` and of `to` with kn_eval_run — `keynode score`'s own scoring,
 * with its default options (default mode, the offline semantic judge, the upstream step budget) —
 * and stores each result as a rescore beside the run (store_snapshots.h); the run's own result is
 * never touched. A body that is not what it should be is a 400, never a crash. */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "api.h"
#include "api_fail.h"
#include "keynode/eval.h"
#include "request.h"
#include "store_snapshots.h"

#define KN_RESCORE_LIMIT_MAX 10000
#define KN_RESCORE_SET_MAX 128

static void get_snapshots(kn_store *st, const kn_http_req *req, kn_http_resp *resp)
{
	kn_err err = {0};
	char *out = NULL;
	int rc = kn_store_snapshots_json(st, req->id, &out, &err);
	if (rc)
		kn_api_store_failed(resp, rc, &err, NULL);
	else
		kn_http_resp_json(resp, 200, out);
}

/* "from" / "to" of the body: a snapshot version (a JSON integer, or its digits as a string) or a
 * snapshot hash (a string). *ref points into buf or the body. */
static int snapshot_ref(const char **ref, char buf[24], json_t *body, const char *key, kn_err *err)
{
	json_t *v = json_object_get(body, key);
	if (json_is_integer(v) && json_integer_value(v) > 0 && json_integer_value(v) < 1000000000) {
		snprintf(buf, 24, "%lld", (long long)json_integer_value(v));
		*ref = buf;
		return 0;
	}
	const char *s = json_string_value(v);
	if (s && *s && strlen(s) <= 64) {
		*ref = s;
		return 0;
	}
	return kn_err_set(err, KN_EINVAL, "\"%s\": a snapshot of the task set, its version (a positive "
	                  "integer) or its hash (a string of 8 to 64 hex digits)", key);
}

/* The task versions loaded so far (a rescore loads each once). */
typedef struct loaded {
	int64_t version;
	kn_taskset *set;
} loaded;

static int task_of(kn_store *st, loaded *cache, size_t *n, size_t cap, int64_t version, const kn_task **out,
                   kn_err *err)
{
	for (size_t i = 0; i < *n; i++)
		if (cache[i].version == version) {
			*out = &cache[i].set->tasks[0];
			return 0;
		}
	if (*n == cap) { /* full: the oldest goes (plans are sorted by start, not by task) */
		kn_taskset_free(cache[0].set);
		memmove(cache, cache + 1, (cap - 1) * sizeof *cache);
		(*n)--;
	}
	kn_taskset *set = NULL;
	int rc = kn_store_task_load(st, version, &set, err);
	if (rc)
		return rc;
	cache[*n].version = version;
	cache[(*n)++].set = set;
	*out = &set->tasks[0];
	return 0;
}

/* Score events against task version v, store the rescore, and say what it gave. NULL on failure
 * (err says why). */
static json_t *rescore_one(kn_store *st, const kn_eval_opts *judge, loaded *cache, size_t *nc, size_t cap,
                           const char *run, int64_t v, int v_no, const kn_event *events, size_t n,
                           kn_err *err)
{
	const kn_task *task;
	if (task_of(st, cache, nc, cap, v, &task, err))
		return NULL;
	kn_eval_opts eo = {0}; /* keynode score's defaults, with serve's judge (a run unjudged when it ran
	                        * gets its verdict once the judge answers) */
	if (judge) {
		eo.semantic = judge->semantic;
		eo.threshold = judge->threshold;
	}
	kn_eval *ev = NULL;
	size_t failures = 0;
	if (kn_eval_run(&ev, task, &eo, events, n, &failures, err))
		return NULL;
	json_t *res = kn_eval_result_json(ev, run);
	char *text = res ? json_dumps(res, KN_RESULT_JSON_FLAGS) : NULL;
	json_t *out = NULL;
	if (!text)
		kn_err_set(err, KN_ENOMEM, "out of memory");
	else if (kn_store_rescore_put(st, run, v, text, err) == 0)
		out = json_pack("{s:I, s:i, s:s, s:i, s:f, s:I, s:f, s:b, s:f, s:s?, s:O?, s:O?, s:O?}", "task_version",
		                (json_int_t)v, "version", v_no, "status", kn_status_name(kn_eval_status(ev)),
		                "steps", kn_eval_steps(ev), "reached", kn_eval_reached(ev), "total",
		                (json_int_t)kn_eval_total(ev), "score", kn_eval_score(ev), "completion",
		                kn_eval_completed(ev), "efficiency", kn_eval_efficiency(ev), "fault",
		                kn_eval_fault(ev), "unjudged", json_object_get(res, "unjudged"), "judge",
		                json_object_get(res, "judge"), "judged", json_object_get(res, "judged"));
	free(text);
	json_decref(res);
	kn_eval_free(ev);
	return out;
}

static void post_rescore(kn_store *st, const kn_eval_opts *judge, const kn_http_req *req, kn_http_resp *resp)
{
	json_t *body = NULL, *plan = NULL, *runs = NULL, *skipped = NULL;
	kn_err err = {0};
	const char *set = NULL, *from_ref = NULL, *to_ref = NULL;
	char fb[24], tb[24];
	if (kn_http_json_object(&body, req->body, req->body_len, &err) != 0) {
		kn_http_resp_error(resp, 400, "malformed JSON", err.msg);
		return;
	}
	json_t *lim = json_object_get(body, "limit");
	if (kn_http_json_string(&set, body, "taskset", 1, KN_RESCORE_SET_MAX, &err) ||
	    snapshot_ref(&from_ref, fb, body, "from", &err) || snapshot_ref(&to_ref, tb, body, "to", &err)) {
		kn_http_resp_error(resp, 400, "bad request", err.msg);
		goto done;
	}
	if (lim && (!json_is_integer(lim) || json_integer_value(lim) < 1 ||
	            json_integer_value(lim) > KN_RESCORE_LIMIT_MAX)) {
		kn_http_resp_error(resp, 400, "bad request", "limit: an integer from 1 to 10000 (runs per call)");
		goto done;
	}
	kn_store_snapshot from, to;
	int rc = kn_store_snapshot_find(st, set, from_ref, &from, &err);
	if (!rc)
		rc = kn_store_snapshot_find(st, set, to_ref, &to, &err);
	char *text = NULL;
	if (!rc)
		rc = kn_store_rescore_plan_json(st, from.id, to.id, lim ? (int)json_integer_value(lim) : 1000, &text,
		                                &err);
	if (rc) {
		kn_api_store_failed(resp, rc, &err, NULL);
		goto done;
	}
	plan = json_loads(text, 0, NULL);
	free(text);
	runs = json_array();
	skipped = json_array();
	if (!plan || !runs || !skipped) {
		kn_http_resp_error(resp, 500, "out of memory", NULL);
		goto done;
	}
	loaded cache[16];
	size_t nc = 0, i;
	json_t *p;
	json_array_foreach(json_object_get(plan, "runs"), i, p) {
		const char *run = json_string_value(json_object_get(p, "run"));
		int64_t fv = json_integer_value(json_object_get(p, "from_version")),
		        tv = json_integer_value(json_object_get(p, "to_version"));
		kn_event *events = NULL;
		size_t n = 0;
		kn_err e = {0};
		if (!run || kn_store_run_events(st, run, &events, &n, &e) != 0) {
			if (e.code == KN_EIO) { /* the database went away: no use going on */
				kn_api_store_failed(resp, KN_EIO, &e, NULL);
				kn_traj_events_free(events, n);
				goto free_cache;
			}
			json_array_append_new(skipped, json_pack("{s:s?, s:s}", "run", run, "why", e.msg));
			continue;
		}
		json_t *a = rescore_one(st, judge, cache, &nc, 16, run, fv,
		                        (int)json_integer_value(json_object_get(p, "from_v")), events, n, &e);
		json_t *b = a && tv != fv ? rescore_one(st, judge, cache, &nc, 16, run, tv,
		                                        (int)json_integer_value(json_object_get(p, "to_v")), events, n, &e)
		                          : json_incref(a);
		kn_traj_events_free(events, n);
		if (!a || !b) {
			json_decref(a);
			json_decref(b);
			if (e.code == KN_EIO || e.code == KN_ENOMEM) {
				kn_api_store_failed(resp, e.code, &e, NULL);
				goto free_cache;
			}
			json_array_append_new(skipped, json_pack("{s:s, s:s}", "run", run, "why", e.msg));
			continue;
		}
		json_array_append_new(runs, json_pack("{s:s, s:O, s:O, s:{s:O, s:O}, s:O, s:o, s:o}", "run", run,
		                                      "task", json_object_get(p, "task"), "kind", json_object_get(p, "kind"),
		                                      "original", "score", json_object_get(p, "score"), "completion",
		                                      json_object_get(p, "completion"), "key_nodes_same",
		                                      json_object_get(p, "key_nodes_same"), "from", a, "to", b));
	}
	json_t *pruned = json_object_get(plan, "pruned");
	json_array_foreach(pruned, i, p)
		json_array_append_new(skipped, json_pack("{s:O, s:s}", "run", p, "why", "its events were pruned "
		                                         "(retention): nothing to score"));
	json_t *j = json_pack("{s:s, s:o?, s:o?, s:I, s:O, s:O, s:O, s:O}", "taskset", set, "from",
	                      kn_store_snapshot_ref(&from), "to", kn_store_snapshot_ref(&to),
	                      "rescored", (json_int_t)json_array_size(runs), "runs", runs, "skipped", skipped,
	                      "remaining", json_object_get(plan, "remaining"), "done_before",
	                      json_object_get(plan, "done_before"));
	kn_http_resp_json_value(resp, 200, j);
free_cache:
	for (size_t k = 0; k < nc; k++)
		kn_taskset_free(cache[k].set);
done:
	json_decref(runs);
	json_decref(skipped);
	json_decref(plan);
	json_decref(body);
}

void kn_api_snapshots(kn_store *st, const kn_eval_opts *judge, const kn_http_req *req, kn_http_resp *resp)
{
	if (req->route == KN_ROUTE_RESCORE)
		post_rescore(st, judge, req, resp);
	else
		get_snapshots(st, req, resp);
}
