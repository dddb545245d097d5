/* attempt_remote.c — the run of an attempt made on keynode serve (`keynode run --server URL`,
 * runner.h kn_remote_run_*): POST /api/runs with the attempt's browser and step budget (serve's
 * monitor attaches and answers once every tab records), answers posted as the agent writes them,
 * the end polled (a step budget spent, a browser gone or the task's site unreachable ends the run
 * on the server), then the stop, the run result and the trajectory read back into the attempt's
 * folder. The run is in PostgreSQL and on the dashboard from its first event. */
#define _GNU_SOURCE /* asprintf */
#include "runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "keynode/clock.h"

#define KN_REMOTE_POLL_S 0.5

struct kn_remote_run {
	const kn_remote *srv;
	char *id;        /* the server's run id */
	char *esc;       /* id escaped for a path */
	double polled;   /* kn_time_mono_s of the last poll */
	int ended;
	kn_end end;
};

int kn_remote_run_start(kn_remote_run **out, const kn_remote *srv, const char *task_ref,
                        const char *browser_http, int step_limit, kn_err *err)
{
	*out = NULL;
	json_t *body = json_pack("{s:s, s:s}", "task", task_ref, "browser", browser_http), *ans = NULL;
	if (body && step_limit)
		json_object_set_new(body, "step_limit", json_integer(step_limit));
	if (body && kn_remote_snapshot(srv)) /* the snapshot `keynode run` pinned */
		json_object_set_new(body, "snapshot", json_integer(kn_remote_snapshot(srv)));
	if (!body)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	int rc = kn_remote_json(srv, "POST", "/api/runs", body, &ans, NULL, err);
	json_decref(body);
	if (rc)
		return rc;
	const char *id = json_string_value(json_object_get(ans, "id"));
	kn_remote_run *r = calloc(1, sizeof *r);
	if (!id || !r) {
		free(r);
		json_decref(ans);
		return kn_err_set(err, id ? KN_ENOMEM : KN_EPROTO, id ? "out of memory" : "POST /api/runs: no id");
	}
	r->srv = srv;
	r->id = strdup(id);
	r->esc = curl_easy_escape(NULL, id, 0);
	int attached = json_is_true(json_object_get(ans, "attached"));
	json_decref(ans);
	*out = r;
	if (!r->id || !r->esc)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	if (!attached)
		return kn_err_set(err, KN_ETIMEOUT, "serve's monitor did not attach to every tab in time");
	r->polled = kn_time_mono_s();
	return 0;
}

const char *kn_remote_run_id(const kn_remote_run *r)
{
	return r->id;
}

int kn_remote_run_answer(kn_remote_run *r, const char *text)
{
	char path[600];
	snprintf(path, sizeof path, "/api/runs/%s/answer", r->esc);
	json_t *body = json_pack("{s:s}", "text", text), *ans = NULL;
	int rc = body ? kn_remote_json(r->srv, "POST", path, body, &ans, NULL, NULL) : KN_ENOMEM;
	json_decref(body);
	json_decref(ans);
	return rc;
}

/* GET /api/runs/{id}: the run result while live or ended (*out the caller's). */
static int get_run(kn_remote_run *r, json_t **out, kn_err *err)
{
	char path[600];
	snprintf(path, sizeof path, "/api/runs/%s", r->esc);
	return kn_remote_json(r->srv, "GET", path, NULL, out, NULL, err);
}

static void note_end(kn_remote_run *r, const json_t *run)
{
	const json_t *ended = json_object_get(run, "ended");
	if (!ended || json_is_null(ended))
		return;
	r->ended = 1;
	const char *st = json_string_value(json_object_get(run, "status"));
	r->end = json_object_get(run, "unreachable")        ? KN_END_UNREACHABLE /* serve's monitor: unreachable.h */
	         : st && strcmp(st, "step_limit") == 0 ? KN_END_STEP_LIMIT
	                                               : KN_END_BROWSER_GONE;
}

int kn_remote_run_ended(kn_remote_run *r)
{
	if (r->ended || kn_time_mono_s() - r->polled < KN_REMOTE_POLL_S)
		return r->ended;
	r->polled = kn_time_mono_s();
	json_t *run = NULL;
	if (get_run(r, &run, NULL) == 0)
		note_end(r, run);
	json_decref(run);
	return r->ended;
}

int kn_remote_run_end_cause(const kn_remote_run *r, kn_end *out)
{
	if (r->ended)
		*out = r->end;
	return r->ended;
}

/* Every event of the run, in order, one line each, into traj. */
static int read_trajectory(kn_remote_run *r, FILE *traj, kn_err *err)
{
	long long after = 0;
	for (int pages = 0; pages < 1000; pages++) {
		char path[700];
		snprintf(path, sizeof path, "/api/runs/%s/events?after=%lld&limit=10000", r->esc, after);
		json_t *page = NULL;
		int rc = kn_remote_json(r->srv, "GET", path, NULL, &page, NULL, err);
		if (rc)
			return rc;
		size_t i;
		json_t *e;
		json_array_foreach(json_object_get(page, "events"), i, e) {
			json_t *line = json_object_get(e, "event");
			if (json_is_string(line))
				fprintf(traj, "%s\n", json_string_value(line));
			else if (line)
				json_dumpf(line, traj, JSON_COMPACT | JSON_PRESERVE_ORDER), fputc('\n', traj);
		}
		json_t *next = json_object_get(page, "next_after");
		int more = json_is_integer(next);
		after = more ? (long long)json_integer_value(next) : after;
		json_decref(page);
		if (!more)
			return 0;
	}
	return 0;
}

int kn_remote_run_finish(kn_remote_run *r, FILE *traj, json_t **result, kn_err *err)
{
	*result = NULL;
	char path[600];
	snprintf(path, sizeof path, "/api/runs/%s/stop", r->esc);
	json_t *ans = NULL;
	int status = 0;
	/* 409: it ended on its own meanwhile (budget spent, browser gone): read it instead */
	int rc = kn_remote_json(r->srv, "POST", path, NULL, &ans, &status, err);
	json_decref(ans);
	if (rc && status != 409)
		return rc;
	json_t *run = NULL;
	if ((rc = get_run(r, &run, err)) != 0)
		return rc;
	note_end(r, run);
	static const char *const extra[] = {"events", "events_total", "events_next"};
	for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++)
		json_object_del(run, extra[i]);
	if (traj && (rc = read_trajectory(r, traj, err)) != 0) {
		json_decref(run);
		return rc;
	}
	*result = run;
	return 0;
}

void kn_remote_run_free(kn_remote_run *r)
{
	if (!r)
		return;
	free(r->id);
	curl_free(r->esc);
	free(r);
}
