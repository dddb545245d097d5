/* api_agent_runs.c — POST /api/agent-runs, GET /api/agent-runs (a page of batches),
 * GET /api/agent-runs/{id} and GET /api/agent-runs/compare?a=ID&b=ID (services/http/API.md):
 * a batch of agent attempts as jobs of the worker queue (services/store/store_agent_jobs.c), its
 * progress, metrics, per-task results and uncertainty, and the paired comparison of two batches.
 * The uncertainty and the comparison are `keynode run`'s and `keynode compare`'s own code
 * (services/runner: the batch read as a run folder, kn_rundir_from_batch; kn_run_summary_stats;
 * kn_run_compare), never a second implementation. The body names an agent by the name workers know it
 * under (their keynode.yaml `agents:`), never a command line: nothing a client sends is ever
 * executed as given. */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "api.h"
#include "api_fail.h"
#include "compare.h"
#include "request.h"
#include "rundir.h"
#include "stats.h"
#include "summary.h"

#define KN_AGENT_RUN_MAX_TASKS 1000
#define KN_AGENT_RUN_MAX_REF 512

static void answer(kn_http_resp *resp, int status, json_t *j)
{
	char *t = j ? json_dumps(j, JSON_COMPACT) : NULL;
	json_decref(j);
	if (t)
		kn_http_resp_json(resp, status, t);
	else
		kn_http_resp_error(resp, 500, "out of memory", NULL);
}

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
	json_t *ret = json_object_get(body, "retries");
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
	int64_t batch = 0;
	size_t n_jobs = 0;
	int retries = ret ? (int)json_integer_value(ret) : 1;
	int rc = kn_store_agent_batch_new(st, agent, refs, n_refs, taskset, repeat, retries, &batch, &n_jobs,
	                                  &err);
	if (rc) {
		kn_api_store_failed(resp, rc, &err, NULL);
		goto done;
	}
	char loc[64];
	snprintf(loc, sizeof loc, "/api/agent-runs/%lld", (long long)batch);
	answer(resp, 201, json_pack("{s:I, s:s, s:i, s:i, s:I, s:s, s:s}", "id", (json_int_t)batch, "agent",
	                            agent, "repeat", repeat, "retries", retries, "jobs", (json_int_t)n_jobs, "status", "queued", "url", loc));
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

/* The uncertainty of a batch's results (summary.json's keys: ci95, bootstrap, per_repeat,
 * std_over_repeats, pass_at_k, pass_all_k, pass_k_tasks, per_site, denominators) and "rates", the
 * point values the intervals are around (the defined ones: summary.json's metrics). */
static int batch_stats(kn_store *st, long long id, json_t **out, kn_err *err)
{
	kn_rundir *d = NULL;
	int rc = kn_rundir_from_batch(&d, st, id, err);
	if (rc)
		return rc;
	kn_stats sts;
	double v[KN_RATE_N];
	int ok[KN_RATE_N], bad = kn_stats_build(&sts, d->rows, d->n_rows, d->tasks, d->n_tasks, d->repeat);
	json_t *rates = json_object();
	if (!bad) {
		kn_stats_rates(v, ok, &sts, NULL, 0, 0);
		for (int r = 0; rates && r < KN_RATE_N; r++)
			if (ok[r])
				json_object_set_new(rates, kn_stats_rate_names[r], json_real(v[r]));
		kn_stats_clear(&sts);
	}
	*out = json_object();
	if (bad || !rates || !*out || json_object_set_new(*out, "rates", json_incref(rates)) ||
	    kn_run_summary_stats(*out, d->rows, d->n_rows, d->repeat, &d->meta) != 0) {
		json_decref(*out);
		*out = NULL;
		rc = kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	json_decref(rates);
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
	json_t *j = NULL, *stats = NULL;
	int rc = kn_store_agent_batch_json(st, id, &out, &err);
	if (!rc)
		rc = batch_stats(st, id, &stats, &err);
	if (rc) {
		free(out);
		kn_api_store_failed(resp, rc, &err, NULL);
		return;
	}
	json_error_t je;
	j = json_loads(out, 0, &je);
	free(out);
	if (j)
		json_object_set_new(j, "stats", stats);
	else
		json_decref(stats);
	answer(resp, 200, j);
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
	int rc = kn_rundir_from_batch(&a, st, ia, &err);
	if (!rc)
		rc = kn_rundir_from_batch(&b, st, ib, &err);
	json_t *j = rc ? NULL : kn_run_compare(a, b, &err);
	if (rc)
		kn_api_store_failed(resp, rc, &err, NULL);
	else if (j) {
		json_object_set_new(json_object_get(j, "a"), "batch", json_integer(ia));
		json_object_set_new(json_object_get(j, "b"), "batch", json_integer(ib));
		answer(resp, 200, j);
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
