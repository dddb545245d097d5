/* api.c — the data routes of services/http/API.md on top of the store and the runs registry.
 *
 * kn_api_handle is called on the server thread with a routed, size-checked request
 * (services/http/request.h did the parsing of the path and query). It answers there only what
 * needs no waiting — /healthz from the change listener's view of the database, cached listings
 * (api_cache.c), POST …/events of a live run (its answer is held until durable) — and defers
 * everything else to a worker lane of the server (services/http/async.c): reads to the read lane,
 * writes, uploads and run starts (browser discovery, waiting for the monitor) to the slow lane,
 * where kn_api_handle_worker answers with the worker thread's own store connection. Each route
 * function takes the store of the thread it runs on. A run's events, answer or stop for a run that
 * is not live here are forwarded to the serve that runs it (run_elsewhere, forward.c). This file
 * checks the JSON bodies and parameters of each route, maps store/registry codes to HTTP statuses
 * (KN_ENOTFOUND 404, KN_EINVAL 400, KN_EIO 503 when the store could not reconnect, KN_EDB 500) and
 * never passes a raw database message to a client
 * without the "database error" primary message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "api.h"
#include "api_cache.h"
#include "api_fail.h"
#include "api_workflows.h"
#include "api_drift.h"
#include "api_maint.h"
#include "api_recordings.h"
#include "keynode/workflow.h"
#include "cdp.h"
#include "forward.h"
#include "log.h"
#include "store_serve.h"
#include "store_snapshots.h"

#define MAX_REF 256
/* Answer with an error and leave the route function. */
#define FAIL(...)                                                                                 \
	do {                                                                                          \
		kn_http_resp_error(__VA_ARGS__);                                                          \
		return;                                                                                   \
	} while (0)
#define DO_RETURN(call)                                                                           \
	do {                                                                                          \
		call;                                                                                     \
		return;                                                                                   \
	} while (0)
#define MAX_URL 2048

struct kn_api {
	kn_api_opts o;
	kn_api_cache *cache;
};

/* A worker thread's own state: its store connection, opened at its first request, and its
 * connections to other serves (forward.h). */
struct worker {
	kn_store *st;
	void *fwd;
};

int kn_api_new(kn_api **out, const kn_api_opts *opts, kn_err *err)
{
	kn_api *a = calloc(1, sizeof *a);
	if (!a)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	a->o = *opts;
	int rc = kn_api_cache_new(&a->cache, opts->conninfo, err);
	if (rc) {
		free(a);
		return rc;
	}
	*out = a;
	return 0;
}

void kn_api_free(kn_api *a)
{
	if (!a)
		return;
	kn_api_cache_free(a->cache);
	free(a);
}

/* --- helpers ------------------------------------------------------------------------------- */


static void answer_text(kn_http_resp *resp, int status, char *json)
{
	if (!json)
		kn_http_resp_error(resp, 500, "out of memory", NULL);
	else
		kn_http_resp_json(resp, status, json);
}

static int body_object(json_t **out, const kn_http_req *req, kn_http_resp *resp)
{
	kn_err err = {0};
	if (kn_http_json_object(out, req->body, req->body_len, &err) != 0) {
		kn_http_resp_error(resp, 400, "malformed JSON", err.msg);
		return -1;
	}
	return 0;
}

/* The task id part of a reference ("SET:ID" → "ID"). */
static const char *ref_task_id(const char *ref)
{
	const char *c = strrchr(ref, ':');
	return c ? c + 1 : ref;
}

static int parse_i64(int64_t *out, const char *s)
{
	char *end;
	if (!*s || *s < '0' || *s > '9')
		return -1;
	long long v = strtoll(s, &end, 10);
	if (*end || v < 0)
		return -1;
	*out = v;
	return 0;
}

/* --- routes ---------------------------------------------------------------------------------- */

static void post_taskset(kn_api *a, kn_store *st, const kn_http_req *req, kn_http_resp *resp)
{
	const char *name = kn_http_query_get(req->query, "name");
	if (!name || !*name)
		name = "default";
	if (strlen(name) > 128)
		FAIL(resp, 400, "bad name", "name is longer than 128 bytes");
	kn_err err = {0};
	kn_taskset *set = NULL;
	if (req->body_len == 0)
		FAIL(resp, 400, "empty body", "send a task file");
	int rc = kn_taskset_load_buffer(&set, req->body, req->body_len, name, NULL, &err);
	if (rc)
		FAIL(resp, rc == KN_ENOMEM ? 500 : 422,
		                                "task file does not load", err.msg);
	for (size_t i = 0; a->o.workflows_dir && i < set->n_tasks; i++) { /* serve --workflows */
		int attached = 0;
		if ((rc = kn_workflow_attach_task(&set->tasks[i], a->o.workflows_dir, &attached, &err)) != 0) {
			kn_taskset_free(set);
			FAIL(resp, rc == KN_ENOMEM ? 500 : 422, "workflow does not load", err.msg);
		}
	}
	int64_t id = 0;
	size_t newv = 0;
	rc = kn_store_taskset_put_by(st, name, name, req->author, set, &id, &newv, &err);
	size_t n = set->n_tasks;
	kn_taskset_free(set);
	kn_api_cache_bump(a->cache); /* even on failure: part of it may have been stored */
	if (rc)
		DO_RETURN(kn_api_store_failed(resp, rc, &err, NULL));
	json_t *j = json_pack("{s:I, s:s, s:I, s:I}", "taskset", (json_int_t)id, "name", name, "tasks",
	                      (json_int_t)n, "new_versions", (json_int_t)newv);
	kn_store_snapshot snap; /* the set's snapshot now (taken at the commit: store_snapshots.h) */
	json_t *sj = kn_store_snapshot_find(st, name, NULL, &snap, &err) == 0 ? kn_store_snapshot_ref(&snap) : NULL;
	if (j)
		json_object_set_new(j, "snapshot", sj ? sj : json_null());
	else
		json_decref(sj);
	kn_http_resp_json_value(resp, 201, j);
}

static void get_tasks(kn_api *a, kn_store *st, const kn_http_req *req, kn_http_resp *resp)
{
	static const char *const states[] = {"healthy", "flaky", "broken", "recovered", "error",
	                                     "unknown", "blocked"};
	const char *site = kn_http_query_get(req->query, "site");
	const char *status = kn_http_query_get(req->query, "status");
	if (status) {
		size_t i;
		for (i = 0; i < sizeof states / sizeof states[0] && strcmp(status, states[i]); i++)
			;
		if (i == sizeof states / sizeof states[0])
			FAIL(resp, 400, "bad status",
			                                "status must be healthy, flaky, broken, recovered, "
			                                "error, blocked or unknown");
	}
	kn_err err = {0};
	char *out = NULL;
	int rc;
	site = site && *site ? site : NULL;
	uint64_t gen = kn_api_cache_gen(a->cache); /* before the query: see api_cache.c */
	rc = kn_store_tasks_json(st, site, status, &out, &err);
	if (rc)
		DO_RETURN(kn_api_store_failed(resp, rc, &err, NULL));
	kn_api_cache_tasks_put(a->cache, site, status, out, gen);
	answer_text(resp, 200, out);
}

static void get_task(kn_store *st, const kn_http_req *req, kn_http_resp *resp, int health)
{
	kn_err err = {0};
	char *out = NULL;
	int rc;
	if (health)
		rc = kn_store_health_json(st, req->id, &out, &err);
	else
		rc = kn_store_task_get_json(st, req->id, &out, &err);
	if (rc)
		DO_RETURN(kn_api_store_failed(resp, rc, &err, "no such task"));
	answer_text(resp, 200, out);
}

static void post_run(kn_api *a, kn_store *st, const kn_http_req *req, kn_http_resp *resp)
{
	json_t *body;
	if (body_object(&body, req, resp))
		return;
	kn_err err = {0};
	const char *task, *browser, *until;
	if (kn_http_json_string(&task, body, "task", 1, MAX_REF, &err) ||
	    kn_http_json_string(&browser, body, "browser", 0, MAX_URL, &err) ||
	    kn_http_json_string(&until, body, "until", 0, 64, &err)) {
		kn_http_resp_error(resp, 400, "bad request", err.msg);
		goto done;
	}
	/* the step budget: absent → 0 (upstream max(10, 1.5 x reference) capped at 25), -1 none */
	json_t *sl = json_object_get(body, "step_limit");
	if (sl && (!json_is_integer(sl) || json_integer_value(sl) < -1 ||
	           json_integer_value(sl) > 100000)) {
		kn_http_resp_error(resp, 400, "bad request", "\"step_limit\" must be an integer from -1 "
		                   "(none) to 100000, 0 for the upstream budget");
		goto done;
	}
	int step_limit = sl ? (int)json_integer_value(sl) : 0;
	int64_t version = 0;
	int rc;
	/* "snapshot" pins the run to the task's version in that snapshot of its set */
	json_t *sn = json_object_get(body, "snapshot");
	kn_store_snapshot snap = {0};
	if (sn && (!json_is_integer(sn) || json_integer_value(sn) < 1 || json_integer_value(sn) > 999999999 ||
	           !strchr(task, ':'))) {
		kn_http_resp_error(resp, 400, "bad request", "\"snapshot\": a snapshot version (a positive "
		                   "integer) of the set a TASKSET:TASK reference names");
		goto done;
	}
	if (sn) {
		char set_name[MAX_REF + 1], vb[24];
		snprintf(set_name, sizeof set_name, "%.*s", (int)(strchr(task, ':') - task), task);
		snprintf(vb, sizeof vb, "%lld", (long long)json_integer_value(sn));
		rc = kn_store_snapshot_find(st, set_name, vb, &snap, &err);
		if (!rc)
			rc = kn_store_snapshot_task_version(st, snap.id, task, &version, &err);
	} else
		rc = kn_store_task_resolve(st, task, &version, &err);
	if (rc) {
		kn_api_store_failed(resp, rc, &err, sn ? NULL : "no such task");
		goto done;
	}
	kn_taskset *set = NULL;
	rc = kn_store_task_load(st, version, &set, &err);
	if (rc) {
		kn_api_store_failed(resp, rc, &err, "no such task");
		goto done;
	}
	char *ws = NULL;
	if (browser && kn_cdp_discover(&ws, browser, a->o.browser_timeout_ms ? a->o.browser_timeout_ms
	                                                                     : 5000, &err) != 0) {
		kn_taskset_free(set);
		kn_http_resp_error(resp, 502, "browser unreachable", err.msg);
		goto done;
	}
	char id[KN_RUN_ID_MAX];
	int attached = 0;
	rc = kn_runs_start(a->o.runs, task, ref_task_id(task), version, set, ws, until, step_limit, id,
	                   &attached, &err);
	free(ws);
	kn_api_cache_bump(a->cache); /* the task's last_run (the start is durable by now) */
	if (rc) {
		kn_http_resp_error(resp, rc == KN_EINVAL ? 400 : rc == KN_ELIMIT ? 429 : 500,
		                   rc == KN_ELIMIT ? "too many runs" : "cannot start the run", err.msg);
		goto done;
	}
	char stream[KN_RUN_ID_MAX + 32];
	snprintf(stream, sizeof stream, "/api/stream?run=%s", id);
	json_t *ans = json_pack("{s:s, s:s, s:s, s:b, s:b, s:s, s:I}", "id", id, "task", task, "status",
	                        "running", "watched", browser != NULL, "attached", browser != NULL && attached,
	                        "stream", stream, "task_version", (json_int_t)version);
	if (ans && snap.id)
		json_object_set_new(ans, "snapshot", kn_store_snapshot_ref(&snap));
	kn_http_resp_json_value(resp, 201, ans);
done:
	json_decref(body);
}

static void get_runs(kn_store *st, const kn_http_req *req, kn_http_resp *resp)
{
	kn_err err = {0};
	int limit;
	if (kn_http_query_int(&limit, req->query, "limit", 50, 1, 1000, &err))
		FAIL(resp, 400, "bad limit", err.msg);
	const char *task = kn_http_query_get(req->query, "task");
	const char *before = kn_http_query_get(req->query, "before");
	char *out = NULL;
	int rc;
	rc = kn_store_runs_json(st, task && *task ? task : NULL, before, limit, &out, &err);
	if (rc)
		DO_RETURN(kn_api_store_failed(resp, rc, &err, "no such task"));
	answer_text(resp, 200, out);
}

/* 1 when the run JSON says the run ended (then it never changes and may be cached). */
static int run_ended(const char *json)
{
	json_t *j = json_loads(json, 0, NULL);
	json_t *e = j ? json_object_get(j, "ended") : NULL;
	int ended = e && json_is_string(e);
	json_decref(j);
	return ended;
}

static void get_run(kn_api *a, kn_store *st, const kn_http_req *req, kn_http_resp *resp)
{
	kn_err err = {0};
	char *out = NULL;
	int rc;
	rc = kn_store_run_get_json(st, req->id, &out, &err);
	if (rc)
		DO_RETURN(kn_api_store_failed(resp, rc, &err, "no such run"));
	if (run_ended(out))
		kn_api_cache_run_put(a->cache, req->id, out);
	answer_text(resp, 200, out);
}

/* GET /api/runs/{id}/events?after=SEQ&limit=N: one page, by the primary key. */
static void get_events(kn_store *st, const kn_http_req *req, kn_http_resp *resp)
{
	kn_err err = {0};
	int limit;
	const char *after_s = kn_http_query_get(req->query, "after");
	int64_t after = 0;
	if (after_s && parse_i64(&after, after_s))
		FAIL(resp, 400, "bad after", "after must be a non-negative integer (a seq)");
	if (kn_http_query_int(&limit, req->query, "limit", 1000, 1, KN_STORE_EVENTS_PAGE_MAX, &err))
		FAIL(resp, 400, "bad limit", err.msg);
	char *out = NULL;
	int rc;
	rc = kn_store_events_json(st, req->id, after, limit, &out, &err);
	if (rc)
		DO_RETURN(kn_api_store_failed(resp, rc, &err, "no such run"));
	answer_text(resp, 200, out);
}

/* A call for a run that is not live here (README "Several serves"): forwarded to
 * the serve that runs it and its answer relayed; else 409 when the run ended or no live serve runs
 * it, 404 when there is no such run. Worker lane only (a query, maybe a forward). */
static void run_elsewhere(kn_api *a, struct worker *w, const kn_http_req *req, kn_http_resp *resp)
{
	kn_store *st = w->st;
	kn_err err = {0};
	kn_store_run_home home;
	char q[512];
	int rc = kn_store_run_home_get(st, req->id, &home, &err);
	if (rc == KN_ENOTFOUND)
		FAIL(resp, 404, "not found", "no such run");
	if (rc)
		DO_RETURN(kn_api_store_failed(resp, rc, &err, "no such run"));
	if (home.ended || (a->o.owner && strcmp(home.owner, a->o.owner) == 0))
		FAIL(resp, 409, "the run already ended", NULL); /* here: its end is being written */
	if (req->hop || !home.address[0]) {
		if (snprintf(q, sizeof q, "run by %s, which takes no calls (a worker, or a serve that is "
		             "gone: its runs are ended by the orphan sweep)%s",
		             home.owner[0] ? home.owner : "no serve",
		             req->hop ? "; forwarded here by another serve" : "") < 0)
			q[0] = '\0';
		FAIL(resp, 409, "the run is not live here", q);
	}
	rc = kn_runs_forward(&w->fwd, home.address, a->o.owner, a->o.token, req, resp, &err);
	kn_api_cache_bump(a->cache); /* the owner wrote before it answered */
	if (rc) {
		kn_log_msg("warn", "api", "cannot forward a run's call to its serve",
		           "run=%s owner=%s detail=\"%s\"", req->id, home.owner, kn_log_quote(q, sizeof q, err.msg));
		char d[sizeof err.msg + KN_STORE_OWNER_MAX + 96];
		if (snprintf(d, sizeof d, "%s (run by %s; a serve that is gone has its runs ended by the "
		             "orphan sweep)", err.msg, home.owner) < 0)
			d[0] = '\0';
		FAIL(resp, 503, "the run's serve is unreachable", d);
	}
}

/* Server thread: a live run's events; a run not live here goes to the slow lane (run_elsewhere). */
static void post_events(kn_api *a, const kn_http_req *req, kn_http_resp *resp)
{
	kn_err err = {0};
	char *out = NULL;
	int queued = 0;
	if (memchr(req->body, '\0', req->body_len))
		FAIL(resp, 400, "malformed events", "NUL byte in the body");
	uint64_t hold[2];
	int rc = kn_runs_events(a->o.runs, req->id, req->body, req->body_len, &out, &queued, hold,
	                        &err);
	if (rc == KN_ENOTFOUND) {
		resp->defer = KN_HTTP_LANE_SLOW;
		return;
	}
	if (rc == KN_EUNSUPPORTED)
		FAIL(resp, 409, "watched run", err.msg);
	if (rc == KN_ELIMIT)
		FAIL(resp, 413, "too many events", err.msg);
	if (rc == KN_ETIMEOUT || rc == KN_EIO)
		FAIL(resp, 503, "events not durable", err.msg);
	if (rc)
		FAIL(resp, 400, "malformed events", err.msg);
	answer_text(resp, queued ? 202 : 200, out);
	resp->hold_from = hold[0];
	resp->hold_upto = hold[1];
}

static void post_answer(kn_api *a, struct worker *w, const kn_http_req *req, kn_http_resp *resp)
{
	json_t *body;
	if (body_object(&body, req, resp))
		return;
	kn_err err = {0};
	const char *text;
	if (kn_http_json_string(&text, body, "text", 1, 16384, &err)) {
		kn_http_resp_error(resp, 400, "bad request", err.msg);
	} else {
		int rc = kn_runs_answer(a->o.runs, req->id, text, &err);
		kn_api_cache_bump(a->cache); /* "until": "finished" may have ended the run */
		if (rc == KN_ENOTFOUND)
			run_elsewhere(a, w, req, resp);
		else if (rc)
			kn_http_resp_error(resp, 500, "cannot answer", err.msg);
		else
			kn_http_resp_json_value(resp, 200, json_pack("{s:s, s:s}", "id", req->id, "status", "running"));
	}
	json_decref(body);
}

static void post_stop(kn_api *a, struct worker *w, const kn_http_req *req, kn_http_resp *resp)
{
	kn_err err = {0};
	char *result = NULL;
	int rc = kn_runs_stop(a->o.runs, req->id, &result, &err);
	kn_api_cache_bump(a->cache); /* the run's end is durable by now */
	if (rc == KN_ENOTFOUND)
		DO_RETURN(run_elsewhere(a, w, req, resp));
	if (rc)
		FAIL(resp, 500, "cannot stop the run", err.msg);
	answer_text(resp, 200, result);
}

static void post_replay(kn_api *a, kn_store *st, const kn_http_req *req, kn_http_resp *resp)
{
	json_t *body;
	if (body_object(&body, req, resp))
		return;
	kn_err err = {0};
	const char *task;
	int64_t version = 0, job = 0;
	int rc;
	if (kn_http_json_string(&task, body, "task", 1, MAX_REF, &err)) {
		kn_http_resp_error(resp, 400, "bad request", err.msg);
		goto done;
	}
	rc = kn_store_task_resolve(st, task, &version, &err);
	if (!rc)
		rc = kn_store_job_enqueue(st, version, "", &job, &err);
	kn_api_cache_bump(a->cache);
	if (rc) {
		kn_api_store_failed(resp, rc, &err, "no such task");
		goto done;
	}
	kn_http_resp_json_value(resp, 202, json_pack("{s:I, s:s, s:s}", "job", (json_int_t)job, "task", task,
	                                 "status", "queued"));
done:
	json_decref(body);
}

/* The replay results of one task: the "replays" of its JSON (the store keeps the recent ones). */
static void get_replays(kn_store *st, const kn_http_req *req, kn_http_resp *resp)
{
	const char *task = kn_http_query_get(req->query, "task");
	if (!task || !*task)
		FAIL(resp, 400, "task required", "give ?task=REF");
	kn_err err = {0};
	int limit;
	if (kn_http_query_int(&limit, req->query, "limit", 50, 1, 1000, &err))
		FAIL(resp, 400, "bad limit", err.msg);
	char *out = NULL;
	int rc;
	rc = kn_store_replays_json(st, task, kn_http_query_get(req->query, "before"), limit, &out, &err);
	if (rc)
		DO_RETURN(kn_api_store_failed(resp, rc, &err, "no such task"));
	answer_text(resp, 200, out);
}

static void get_screenshot(kn_store *st, const kn_http_req *req, kn_http_resp *resp)
{
	int64_t id;
	if (parse_i64(&id, req->id))
		FAIL(resp, 404, "not found", "no such replay");
	kn_err err = {0};
	unsigned char *png = NULL;
	size_t len = 0;
	int rc;
	rc = kn_store_replay_screenshot(st, id, &png, &len, &err);
	if (rc)
		DO_RETURN(kn_api_store_failed(resp, rc, &err, "no screenshot for this replay"));
	resp->status = 200;
	resp->content_type = "image/png";
	resp->body = (char *)png;
	resp->len = len;
}

static void get_alerts(kn_store *st, const kn_http_req *req, kn_http_resp *resp)
{
	kn_err err = {0};
	int all;
	if (kn_http_query_int(&all, req->query, "all", 0, 0, 1, &err))
		FAIL(resp, 400, "bad all", err.msg);
	int limit;
	if (kn_http_query_int(&limit, req->query, "limit", 200, 1, 1000, &err))
		FAIL(resp, 400, "bad limit", err.msg);
	char *out = NULL;
	int rc;
	rc = kn_store_alerts_json(st, all, kn_http_query_get(req->query, "before"), limit, &out, &err);
	if (rc)
		DO_RETURN(kn_api_store_failed(resp, rc, &err, NULL));
	answer_text(resp, 200, out);
}

static void post_ack(kn_store *st, const kn_http_req *req, kn_http_resp *resp)
{
	int64_t id;
	if (parse_i64(&id, req->id))
		FAIL(resp, 404, "not found", "no such alert");
	kn_err err = {0};
	int rc;
	rc = kn_store_alert_ack(st, id, &err);
	if (rc)
		DO_RETURN(kn_api_store_failed(resp, rc, &err, "no such alert"));
	kn_http_resp_json_value(resp, 200, json_pack("{s:I, s:b}", "id", (json_int_t)id, "acked", 1));
}

static void get_healthz(kn_store *st, kn_http_resp *resp)
{
	kn_err err = {0};
	int v = 0, rc;
	rc = kn_store_schema_version(st, &v, &err);
	int up = rc == 0;
	kn_http_resp_json_value(resp, up ? 200 : 503, json_pack("{s:b, s:b}", "ok", up, "database", up));
}

/* Every route, on the worker thread w (its store connection). */
static void route(kn_api *a, struct worker *w, const kn_http_req *req, kn_http_resp *resp)
{
	kn_store *st = w->st;
	switch (req->route) {
	case KN_ROUTE_TASKSETS_POST: post_taskset(a, st, req, resp); break;
	case KN_ROUTE_TASKS: get_tasks(a, st, req, resp); break;
	case KN_ROUTE_TASK: get_task(st, req, resp, 0); break;
	case KN_ROUTE_TASK_HEALTH: get_task(st, req, resp, 1); break;
	case KN_ROUTE_RUNS_POST: post_run(a, st, req, resp); break;
	case KN_ROUTE_RUNS: get_runs(st, req, resp); break;
	case KN_ROUTE_RUN: get_run(a, st, req, resp); break;
	case KN_ROUTE_RUN_EVENTS: run_elsewhere(a, w, req, resp); break; /* not live here */
	case KN_ROUTE_RUN_EVENTS_GET: get_events(st, req, resp); break;
	case KN_ROUTE_RUN_ANSWER: post_answer(a, w, req, resp); break;
	case KN_ROUTE_RUN_STOP: post_stop(a, w, req, resp); break;
	case KN_ROUTE_REPLAYS_POST: post_replay(a, st, req, resp); break;
	case KN_ROUTE_REPLAYS: get_replays(st, req, resp); break;
	case KN_ROUTE_REPLAY_SHOT: get_screenshot(st, req, resp); break;
	case KN_ROUTE_ALERTS: get_alerts(st, req, resp); break;
	case KN_ROUTE_ALERT_ACK: post_ack(st, req, resp); break;
	case KN_ROUTE_HEALTHZ: get_healthz(st, resp); break;
	case KN_ROUTE_METRICS: kn_api_gauges_refresh(a->cache, st, a->o.metrics); break;
	case KN_ROUTE_WORKFLOWS_POST: kn_api_workflow_post(st, req, resp); break;
	case KN_ROUTE_TASK_WORKFLOW: kn_api_workflow_get(st, req, resp); break;
	case KN_ROUTE_TASK_DRIFT: kn_api_drift_get(st, a->o.trace_root, req, resp); break;
	case KN_ROUTE_TASK_REPAIRS: kn_api_repair_post(st, req, resp); break;
	case KN_ROUTE_TASK_EDITS: kn_api_edit_post(st, req, resp); break;
	case KN_ROUTE_TASK_VERSIONS: kn_api_versions_get(st, req, resp); break;
	case KN_ROUTE_TASKSET_CHANGELOG: kn_api_changelog_get(st, req, resp); break;
	case KN_ROUTE_TASKSET_HEALTH: kn_api_taskset_health(st, req, resp); break;
	case KN_ROUTE_AGENT_RUNS_POST: case KN_ROUTE_AGENT_RUN: case KN_ROUTE_AGENT_RUNS:
	case KN_ROUTE_AGENT_RUNS_COMPARE:
		kn_api_agent_runs(st, req, resp);
		break;
	case KN_ROUTE_TASKSET_SNAPSHOTS: case KN_ROUTE_RESCORE: kn_api_snapshots(st, a->o.runs ? kn_runs_eval(a->o.runs) : NULL, req, resp);
		break;
	case KN_ROUTE_TASK_RECORDINGS_POST: kn_api_recording_post(st, req, resp); break;
	case KN_ROUTE_TASK_RECORDINGS: kn_api_recordings_get(st, req, resp); break;
	case KN_ROUTE_RECORDING: kn_api_recording_get(st, req, resp); break;
	case KN_ROUTE_RECORDING_FINISH: kn_api_recording_want(st, req, resp, "finish"); break;
	case KN_ROUTE_RECORDING_CANCEL: kn_api_recording_want(st, req, resp, "cancel"); break;
	default: kn_http_resp_error(resp, 404, "not found", "no such route"); break;
	}
}

void kn_api_handle(void *ud, const kn_http_req *req, kn_http_resp *resp)
{
	kn_api *a = ud;
	char *out = NULL;
	switch (req->route) {
	case KN_ROUTE_RUN_EVENTS: /* its answer is held by the server until durable */
		DO_RETURN(post_events(a, req, resp));
	case KN_ROUTE_HEALTHZ: {
		int db = kn_api_cache_db(a->cache);
		if (db >= 0)
			DO_RETURN(kn_http_resp_json_value(resp, db ? 200 : 503,
			                      json_pack("{s:b, s:b}", "ok", db, "database", db)));
		break; /* not known yet: ask the database */
	}
	case KN_ROUTE_TASKS: {
		const char *site = kn_http_query_get(req->query, "site");
		if (kn_api_cache_tasks_get(a->cache, site && *site ? site : NULL,
		                           kn_http_query_get(req->query, "status"), &out))
			DO_RETURN(answer_text(resp, 200, out));
		break;
	}
	case KN_ROUTE_RUN:
		if (kn_api_cache_run_get(a->cache, req->id, &out))
			DO_RETURN(answer_text(resp, 200, out));
		break;
	case KN_ROUTE_METRICS:
		if (kn_api_gauges_apply(a->cache, a->o.metrics) == 0)
			return; /* an empty answer: the server renders the metrics */
		break;
	case KN_ROUTE_TASKSETS_POST:
	case KN_ROUTE_RUNS_POST:
	case KN_ROUTE_RUN_ANSWER:
	case KN_ROUTE_RUN_STOP:
	case KN_ROUTE_REPLAYS_POST:
	case KN_ROUTE_ALERT_ACK:
	case KN_ROUTE_WORKFLOWS_POST:
	case KN_ROUTE_AGENT_RUNS_POST:
	case KN_ROUTE_TASK_REPAIRS:
	case KN_ROUTE_TASK_EDITS:
	case KN_ROUTE_RESCORE:
	case KN_ROUTE_TASK_RECORDINGS_POST: case KN_ROUTE_RECORDING_FINISH: case KN_ROUTE_RECORDING_CANCEL:
		resp->defer = KN_HTTP_LANE_SLOW;
		return;
	default:
		break;
	}
	resp->defer = KN_HTTP_LANE_READ;
}

void kn_api_handle_worker(void *ud, void **wctx, const kn_http_req *req, kn_http_resp *resp)
{
	kn_api *a = ud;
	struct worker *w = *wctx;
	kn_err err = {0};
	if (!w && (w = calloc(1, sizeof *w)) == NULL)
		DO_RETURN(kn_http_resp_error(resp, 500, "out of memory", NULL));
	*wctx = w;
	if (!w->st && kn_store_open(&w->st, a->o.conninfo, &err) != 0) {
		if (req->route == KN_ROUTE_METRICS)
			return; /* the gauges stay as they were */
		if (req->route == KN_ROUTE_HEALTHZ)
			DO_RETURN(kn_http_resp_json_value(resp, 503, json_pack("{s:b, s:b}", "ok", 0, "database", 0)));
		DO_RETURN(kn_http_resp_error(resp, 503, "database unreachable", err.msg));
	}
	route(a, w, req, resp);
}

void kn_api_worker_exit(void *ud, void *wctx)
{
	(void)ud;
	struct worker *w = wctx;
	if (w) {
		kn_store_free(w->st);
		kn_runs_forward_free(w->fwd);
	}
	free(w);
}

/* The gauges that need no query: live runs and the ingest (the database ones: kn_api_handle). */
void kn_api_before_metrics(void *ud)
{
	kn_api *a = ud;
	kn_metrics_set_runs_active(a->o.metrics, kn_runs_active(a->o.runs));
	kn_ingest_stats st = {0};
	if (a->o.ingest)
		kn_ingest_get_stats(a->o.ingest, &st);
	kn_metrics_set_ingest(a->o.metrics, (long)st.spooled, st.db_up);
}

int kn_api_durable(void *ud, uint64_t from, uint64_t upto, kn_err *err)
{
	kn_api *a = ud;
	return kn_ingest_poll(a->o.ingest, from, upto, err);
}

void kn_api_tick(void *ud)
{
	kn_api *a = ud;
	kn_runs_tick(a->o.runs);
}
