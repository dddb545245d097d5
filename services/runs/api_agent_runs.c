/* api_agent_runs.c — POST /api/agent-runs, GET /api/agent-runs (a page of batches) and
 * GET /api/agent-runs/{id} (services/http/API.md):
 * a batch of agent attempts as jobs of the worker queue (services/store/store_agent_jobs.c), and
 * its progress, metrics and per-task results. The body names an agent by the name workers know it
 * under (their keynode.yaml `agents:`), never a command line: nothing a client sends is ever
 * executed as given. */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "api.h"
#include "api_fail.h"
#include "request.h"

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

static void get_batch(kn_store *st, const kn_http_req *req, kn_http_resp *resp)
{
	char *end = NULL;
	long long id = strtoll(req->id, &end, 10);
	if (!req->id[0] || *end || id <= 0) {
		kn_http_resp_error(resp, 404, "not found", "no such agent batch");
		return;
	}
	kn_err err = {0};
	char *out = NULL;
	int rc = kn_store_agent_batch_json(st, id, &out, &err);
	if (rc)
		kn_api_store_failed(resp, rc, &err, NULL);
	else
		kn_http_resp_json(resp, 200, out);
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
	else
		get_batch(st, req, resp);
}
