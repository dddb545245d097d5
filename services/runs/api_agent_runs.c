/* api_agent_runs.c — POST /api/agent-runs, GET /api/agent-runs (a page of batches),
 * GET /api/agent-runs/{id} and GET /api/agent-runs/compare?a=ID&b=ID (services/http/API.md):
 * a batch of agent attempts as jobs of the worker queue (services/store/store_agent_jobs.c), its
 * progress, metrics, per-task results and uncertainty, and the paired comparison of two batches.
 * The uncertainty and the comparison are `keynode run`'s and `keynode compare`'s own code
 * (services/runner: the batch read as a run folder, kn_rundir_from_batch; kn_run_summary_stats;
 * kn_run_compare), never a second implementation. The body names an agent by the name workers know it
 * under (their keynode.yaml `agents:`), never a command line: nothing a client sends is ever
 * executed as given. a batch records its snapshot, `?version=V` shows it on another one (its
 * attempts' rescores), and the comparison pairs the tasks whose key nodes are the same and lists the
 * others in "left_out" with the reason. a finished batch's page and the results its
 * statistics and comparisons read are computed once and kept (kn_batch_page,
 * services/store/store_batch_stats.c). */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "api.h"
#include "api_fail.h"
#include "compare.h"
#include "request.h"
#include "rundir.h"
#include "store_snapshots.h"
#include "summary.h"

#define KN_AGENT_RUN_MAX_TASKS 1000
#define KN_AGENT_RUN_MAX_REF 512

static void post_batch(kn_store *st, const kn_http_req *req, kn_http_resp *resp)
{
	json_t *body = NULL;
	kn_err err = {0};
	const char *agent = NULL, *taskset = NULL, **refs = NULL;
	size_t n_refs = 0;
	if (kn_http_json_object(&body, req->body, req->body_len, &err) != 0) {
		kn_http_resp_error(resp, 400, "malformed JSON", err.msg);
		return;
	}
	json_t *tasks = json_object_get(body, "tasks"), *rep = json_object_get(body, "repeat");
	json_t *ret = json_object_get(body, "retries"), *snap = json_object_get(body, "snapshot");
	if (kn_http_json_string(&agent, body, "agent", 1, KN_STORE_AGENT_NAME_MAX, &err) ||
	    kn_http_json_string(&taskset, body, "taskset", 0, KN_AGENT_RUN_MAX_REF, &err)) {
		kn_http_resp_error(resp, 400, "bad request", err.msg);
		goto done;
	}
	if (!kn_store_agent_name_ok(agent)) {
		kn_http_resp_error(resp, 400, "bad request", "agent: a name of 1 to 64 letters, digits, '-', "
		                   "'_' or '.' (an agent of the workers' keynode.yaml, never a command)");
		goto done;
	}
	if (!tasks == !taskset) {
		kn_http_resp_error(resp, 400, "bad request", "give either \"tasks\" (a list of task "
		                   "references) or \"taskset\" (a task set name)");
		goto done;
	}
	if (rep && (!json_is_integer(rep) || json_integer_value(rep) < 1 || json_integer_value(rep) > 1000)) {
		kn_http_resp_error(resp, 400, "bad request", "repeat: an integer from 1 to 1000");
		goto done;
	}
	if (ret && (!json_is_integer(ret) || json_integer_value(ret) < 0 || json_integer_value(ret) > 10)) {
		kn_http_resp_error(resp, 400, "bad request", "retries: an integer from 0 to 10");
		goto done;
	}
	if (snap && (!taskset || !json_is_integer(snap) || json_integer_value(snap) < 1 ||
	             json_integer_value(snap) > 999999999)) {
		kn_http_resp_error(resp, 400, "bad request", "snapshot: a snapshot version (a positive integer) "
		                   "of the task set named by \"taskset\"");
		goto done;
	}
	if (tasks) {
		size_t n = json_is_array(tasks) ? json_array_size(tasks) : 0;
		if (n == 0 || n > KN_AGENT_RUN_MAX_TASKS || !(refs = calloc(n, sizeof *refs))) {
			kn_http_resp_error(resp, 400, "bad request", "tasks: a list of 1 to 1000 task references");
			goto done;
		}
		for (size_t i = 0; i < n; i++) {
			const char *s = json_string_value(json_array_get(tasks, i));
			size_t len = s ? strlen(s) : 0;
			if (!s || len == 0 || len > KN_AGENT_RUN_MAX_REF || !kn_http_text_ok(s, len)) {
				kn_http_resp_error(resp, 400, "bad request", "tasks: every item a task reference "
				                   "(TASK or TASKSET:TASK, 1 to 512 bytes of text)");
				goto done;
			}
			refs[n_refs++] = s;
		}
	}
	int repeat = rep ? (int)json_integer_value(rep) : 1;
	int64_t batch = 0, snap_id = 0;
	size_t n_jobs = 0;
	int retries = ret ? (int)json_integer_value(ret) : 1;
	char sv[24];
	snprintf(sv, sizeof sv, "%lld", (long long)json_integer_value(snap));
	int rc = kn_store_agent_batch_new(st, agent, refs, n_refs, taskset, snap ? sv : NULL, repeat, retries,
	                                  &batch, &snap_id, &n_jobs, &err);
	if (rc) {
		kn_api_store_failed(resp, rc, &err, NULL);
		goto done;
	}
	char loc[64];
	snprintf(loc, sizeof loc, "/api/agent-runs/%lld", (long long)batch);
	json_t *j = json_pack("{s:I, s:s, s:i, s:i, s:I, s:s, s:s}", "id", (json_int_t)batch, "agent", agent,
	                      "repeat", repeat, "retries", retries, "jobs", (json_int_t)n_jobs, "status", "queued",
	                      "url", loc);
	kn_store_snapshot s; /* the batch's pin */
	json_t *sj = snap_id && kn_store_snapshot_get(st, snap_id, &s, &err) == 0 ? kn_store_snapshot_ref(&s) : NULL;
	if (j)
		json_object_set_new(j, "snapshot", sj ? sj : json_null());
	else
		json_decref(sj);
	kn_http_resp_json_value(resp, 201, j);
done:
	free(refs);
	json_decref(body);
}

/* A batch id: a positive integer, else 0. */
static long long batch_id(const char *s)
{
	char *end = NULL;
	long long id = s && *s ? strtoll(s, &end, 10) : 0;
	return id > 0 && !*end ? id : 0;
}

/* ?snapshot=REF or ?version=REF (the same: a snapshot of the batch's task set, by version or hash,
 * store_snapshots.h): *out its id, 0 when neither is given. KN_EINVAL for a batch without a
 * snapshot or a malformed REF, KN_ENOTFOUND for no such batch or snapshot. */
static int view_snapshot(kn_store *st, long long id, const kn_http_req *req, int64_t *out, kn_err *err)
{
	*out = 0;
	const char *ref = kn_http_query_get(req->query, "snapshot");
	if (!ref)
		ref = kn_http_query_get(req->query, "version");
	if (!ref)
		return 0;
	kn_rundir *d = NULL;
	int rc = kn_rundir_from_batch(&d, st, id, 0, err);
	const char *set = rc ? NULL : json_string_value(json_object_get(json_object_get(d->summary, "snapshot"), "taskset"));
	kn_store_snapshot s;
	if (!rc && !set)
		rc = kn_err_set(err, KN_EINVAL, "batch %lld has no snapshot (its tasks are in more than one "
		                "task set, or it was made before snapshots): it cannot be shown on another", id);
	if (!rc && (rc = kn_store_snapshot_find(st, set, ref, &s, err)) == 0)
		*out = s.id;
	kn_rundir_free(d);
	return rc;
}

static void get_batch(kn_store *st, const kn_http_req *req, kn_http_resp *resp)
{
	long long id = batch_id(req->id);
	if (!id) {
		kn_http_resp_error(resp, 404, "not found", "no such agent batch");
		return;
	}
	kn_err err = {0};
	char *out = NULL;
	int64_t view = 0;
	int rc = view_snapshot(st, id, req, &view, &err);
	if (rc == KN_EINVAL) {
		kn_http_resp_error(resp, 400, "bad snapshot", err.msg);
		return;
	}
	if (!rc)
		rc = kn_batch_page(st, id, view, &out, &err);
	if (rc)
		kn_api_store_failed(resp, rc, &err, NULL);
	else
		kn_http_resp_json(resp, 200, out);
}

/* The task version number batch results `s` ran task `id` at (0 when it did not run it). */
static json_int_t version_of(const json_t *s, const char *id)
{
	size_t i;
	json_t *t;
	json_array_foreach(json_object_get(s, "tasks"), i, t)
		if (strcmp(json_string_value(json_object_get(t, "task")) ? json_string_value(json_object_get(t, "task"))
		                                                           : "", id) == 0)
			return json_integer_value(json_object_get(t, "version"));
	return 0;
}

/* the tasks the comparison left out and why: [{"task", "why"}…]. Pairs are made on the
 * hash of what the scorer reads (kn_task_scoring_hash), so "changed" are the tasks whose key nodes
 * differ between the versions the batches ran. */
static json_t *left_out(const json_t *cmp, const json_t *sa, const json_t *sb)
{
	json_t *out = json_array(), *v;
	size_t i;
	json_array_foreach(json_object_get(cmp, "changed"), i, v) {
		const char *id = json_string_value(v);
		char why[160];
		snprintf(why, sizeof why, "key nodes differ: batch A ran version %lld, batch B version %lld",
		         (long long)version_of(sa, id), (long long)version_of(sb, id));
		json_array_append_new(out, json_pack("{s:s, s:s}", "task", id, "why", why));
	}
	json_array_foreach(json_object_get(cmp, "only_a"), i, v)
		json_array_append_new(out, json_pack("{s:O, s:s}", "task", v, "why", "only batch A ran it"));
	json_array_foreach(json_object_get(cmp, "only_b"), i, v)
		json_array_append_new(out, json_pack("{s:O, s:s}", "task", v, "why", "only batch B ran it"));
	return out;
}

/* GET /api/agent-runs/compare?a=ID&b=ID: batch b (the change) against batch a (the baseline). */
static void compare_batches(kn_store *st, const kn_http_req *req, kn_http_resp *resp)
{
	long long ia = batch_id(kn_http_query_get(req->query, "a")), ib = batch_id(kn_http_query_get(req->query, "b"));
	if (!ia || !ib) {
		kn_http_resp_error(resp, 400, "bad request", "give two batch ids: ?a=BASELINE&b=CHANGE "
		                   "(positive integers)");
		return;
	}
	kn_err err = {0};
	kn_rundir *a = NULL, *b = NULL;
	int rc = kn_rundir_from_batch(&a, st, ia, 0, &err);
	if (!rc)
		rc = kn_rundir_from_batch(&b, st, ib, 0, &err);
	json_t *j = rc ? NULL : kn_run_compare(a, b, &err);
	if (rc)
		kn_api_store_failed(resp, rc, &err, NULL);
	else if (j) {
		json_object_set_new(json_object_get(j, "a"), "batch", json_integer(ia));
		json_object_set_new(json_object_get(j, "b"), "batch", json_integer(ib));
		json_object_set(json_object_get(j, "a"), "snapshot", json_object_get(a->summary, "snapshot"));
		json_object_set(json_object_get(j, "b"), "snapshot", json_object_get(b->summary, "snapshot"));
		json_object_set_new(j, "left_out", left_out(j, a->summary, b->summary));
		kn_http_resp_json_value(resp, 200, j);
	} else
		kn_http_resp_error(resp, 500, "out of memory", NULL);
	kn_rundir_free(a);
	kn_rundir_free(b);
}

/* GET /api/agent-runs?before=ID&limit=N: a page of batches, newest first. */
static void list_batches(kn_store *st, const kn_http_req *req, kn_http_resp *resp)
{
	kn_err err = {0};
	int limit;
	if (kn_http_query_int(&limit, req->query, "limit", 50, 1, 1000, &err)) {
		kn_http_resp_error(resp, 400, "bad limit", err.msg);
		return;
	}
	const char *bs = kn_http_query_get(req->query, "before");
	char *end = NULL;
	long long before = bs ? strtoll(bs, &end, 10) : 0;
	if (bs && (!*bs || *end || before < 1)) {
		kn_http_resp_error(resp, 400, "bad before", "before: a batch id (a positive integer), the "
		                   "\"next_before\" of the previous page");
		return;
	}
	char *out = NULL;
	int rc = kn_store_agent_batches_json(st, before, limit, &out, &err);
	if (rc)
		kn_api_store_failed(resp, rc, &err, NULL);
	else
		kn_http_resp_json(resp, 200, out);
}

void kn_api_agent_runs(kn_store *st, const kn_http_req *req, kn_http_resp *resp)
{
	if (req->route == KN_ROUTE_AGENT_RUNS_POST)
		post_batch(st, req, resp);
	else if (req->route == KN_ROUTE_AGENT_RUNS)
		list_batches(st, req, resp);
	else if (req->route == KN_ROUTE_AGENT_RUNS_COMPARE)
		compare_batches(st, req, resp);
	else
		get_batch(st, req, resp);
}
