/* worker.c — the replay worker (worker.h): claim a job, hold its lease, replay, store the result
 * and the job's end in one transaction, then move the task's health and raise its transitions.
 *
 * Two threads: the caller's runs jobs (the CDP loop lives there and so does the local browser);
 * the heartbeat thread owns a second database connection and extends the lease of the current
 * job every lease/3. They share the current job id and the stop flag under one mutex. Stopping
 * stops the CDP loop (sticky), so a replay in progress returns at once and the job is abandoned to
 * lease expiry — never half written. */
#include "worker.h"
#include "keynode/workflow.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "keynode/clock.h"
#include "store.h"
#include "worker_browser.h"
#include "worker_trace.h"
#include "worker_workflow.h"
#include "health.h"
#include "log.h"

/* The health state machine's outcome for a replay status; -1 (no retry ran) → none. */
static kn_health_outcome outcome_of(int status)
{
	switch (status) {
	case KN_REPLAY_PASSED: return KN_OUTCOME_PASSED;
	case KN_REPLAY_BROKEN: return KN_OUTCOME_BROKEN;
	case KN_REPLAY_ERROR: return KN_OUTCOME_ERROR;
	case KN_REPLAY_BLOCKED: return KN_OUTCOME_BLOCKED;
	default: return KN_OUTCOME_NONE;
	}
}

/* kn_health_next for a job whose first attempt gave `first` and retry `retry` (-1: none yet). */
static void health_decide(kn_health_step *out, kn_health state, int failures, int broken_after,
                          int first, int retry)
{
	kn_health_input in = {.state = state, .consecutive_failures = failures,
	                      .broken_after = broken_after, .first = outcome_of(first),
	                      .retry = outcome_of(retry)};
	kn_health_next(out, &in);
}

struct kn_worker {
	kn_worker_opts o;
	char *id, *browser, *chromium, *conninfo;
	kn_store *st;         /* jobs, results, health (run thread) */
	kn_store *hb_st;      /* heartbeat thread only */
	kn_cdp_loop *loop;
	kn_local_browser local;

	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t hb;
	int hb_started;
	int stopping;         /* kn_worker_stop or free */
	int64_t job;          /* the job whose lease the heartbeat holds; 0 none */
	int lease_lost;       /* the heartbeat found the job no longer ours */
	unsigned long owner_session; /* kn_store_session that took (or tried) the owner lock (sql 020) */
	kn_worker_stats stats;
	atomic_int stop_flag; /* = stopping, for agent attempts (kn_worker_stop_flag) */
};

/* ---- heartbeat ----------------------------------------------------------------------------- */

static void *heartbeat_main(void *arg)
{
	kn_worker *w = arg;
	long every_ms = (long)w->o.lease_s * 1000 / 3;
	if (every_ms < 200)
		every_ms = 200;
	pthread_mutex_lock(&w->mu);
	while (!w->stopping) {
		struct timespec ts;
		kn_time_deadline(&ts, CLOCK_REALTIME, every_ms);
		int64_t before = w->job;
		int r = 0;
		while (!w->stopping && r != ETIMEDOUT && w->job == before)
			r = pthread_cond_timedwait(&w->cv, &w->mu, &ts);
		if (w->stopping)
			break;
		if (w->job != before)   /* a new job: its lease is fresh, count from now */
			continue;
		int64_t job = w->job;
		if (!job || w->lease_lost)
			continue;
		pthread_mutex_unlock(&w->mu);
		kn_err err = {0};
		int hr = kn_store_job_heartbeat(w->hb_st, job, w->id, w->o.lease_s, &err);
		if (hr == KN_ENOTFOUND)
			kn_worker_log(w, "warn", "lease lost", "job=%" PRId64, job);
		else if (hr)
			kn_worker_log(w, "warn", "heartbeat failed", "job=%" PRId64 " error=\"%s\"", job, err.msg);
		pthread_mutex_lock(&w->mu);
		if (hr == KN_ENOTFOUND && w->job == job)
			w->lease_lost = 1;
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

static void set_job(kn_worker *w, int64_t job)
{
	pthread_mutex_lock(&w->mu);
	w->job = job;
	w->lease_lost = 0;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
}

static int stopping(kn_worker *w)
{
	pthread_mutex_lock(&w->mu);
	int s = w->stopping;
	pthread_mutex_unlock(&w->mu);
	return s;
}

/* sleep ms unless stopped meanwhile */
static void idle(kn_worker *w, long ms)
{
	struct timespec ts;
	kn_time_deadline(&ts, CLOCK_REALTIME, ms);
	pthread_mutex_lock(&w->mu);
	int r = 0;
	while (!w->stopping && r != ETIMEDOUT)
		r = pthread_cond_timedwait(&w->cv, &w->mu, &ts);
	pthread_mutex_unlock(&w->mu);
}

/* ---- life cycle ------------------------------------------------------------------------------ */

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

int kn_worker_new(kn_worker **out, const kn_worker_opts *opts, kn_err *err)
{
	*out = NULL;
	if (!opts || !opts->conninfo)
		return kn_err_set(err, KN_EINVAL, "no database url");
	kn_worker *w = calloc(1, sizeof *w);
	if (!w)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	w->o = *opts;
	if (w->o.lease_s <= 0)
		w->o.lease_s = KN_WORKER_LEASE_DEFAULT_S;
	if (w->o.poll_ms <= 0)
		w->o.poll_ms = 1000;
	if (w->o.broken_after <= 0)
		w->o.broken_after = 2;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	if (opts->id) {
		w->id = strdup(opts->id);
	} else {
		char host[256] = "localhost", buf[320];
		gethostname(host, sizeof host - 1);
		host[sizeof host - 1] = '\0';
		snprintf(buf, sizeof buf, "%s:%ld", host, (long)getpid());
		w->id = strdup(buf);
	}
	w->browser = dup_or_null(opts->browser);
	w->chromium = dup_or_null(opts->chromium);
	w->conninfo = strdup(opts->conninfo);
	int r;
	if (!w->id || !w->conninfo || (opts->browser && !w->browser) || (opts->chromium && !w->chromium)) {
		r = kn_err_set(err, KN_ENOMEM, "out of memory");
		goto fail;
	}
	w->o.id = w->id, w->o.browser = w->browser, w->o.chromium = w->chromium;
	w->o.conninfo = w->conninfo;
	if ((r = kn_store_open(&w->st, w->conninfo, err)) || (r = kn_store_open(&w->hb_st, w->conninfo, err)))
		goto fail;
	if ((r = kn_cdp_loop_new(&w->loop, err)))
		goto fail;
	if (!w->browser) {
		if ((r = kn_local_browser_start(&w->local, w->chromium, err)))
			goto fail;
		kn_worker_log(w, "info", "browser started", "pid=%ld endpoint=%s", (long)w->local.pid, w->local.ws_url);
	}
	if (pthread_create(&w->hb, NULL, heartbeat_main, w) != 0) {
		r = kn_err_set(err, KN_EIO, "cannot start the heartbeat thread");
		goto fail;
	}
	w->hb_started = 1;
	*out = w;
	return 0;
fail:
	kn_worker_free(w);
	return r;
}

void kn_worker_stop(kn_worker *w)
{
	pthread_mutex_lock(&w->mu);
	w->stopping = 1;
	atomic_store(&w->stop_flag, 1);
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	if (w->loop)
		kn_cdp_loop_stop(w->loop);
}

void kn_worker_get_stats(kn_worker *w, kn_worker_stats *out)
{
	pthread_mutex_lock(&w->mu);
	*out = w->stats;
	pthread_mutex_unlock(&w->mu);
}

void kn_worker_free(kn_worker *w)
{
	if (!w)
		return;
	if (w->hb_started) {
		pthread_mutex_lock(&w->mu);
		w->stopping = 1;
		pthread_cond_broadcast(&w->cv);
		pthread_mutex_unlock(&w->mu);
		pthread_join(w->hb, NULL);
	}
	kn_cdp_loop_free(w->loop);
	kn_local_browser_stop(&w->local);
	kn_store_free(w->st);
	kn_store_free(w->hb_st);
	pthread_cond_destroy(&w->cv);
	pthread_mutex_destroy(&w->mu);
	free(w->id);
	free(w->browser);
	free(w->chromium);
	free(w->conninfo);
	free(w);
}

/* ---- one job --------------------------------------------------------------------------------- */

/* The browser-level websocket URL for the next replay: the local browser (restarted when it died)
 * or the remote endpoint, discovered afresh each time (a remote browser pool may have moved). */
static int browser_ws(kn_worker *w, char **out, kn_err *err)
{
	*out = NULL;
	if (w->browser)
		return kn_cdp_discover(out, w->browser, 10000, err);
	if (!kn_local_browser_alive(&w->local)) {
		kn_worker_log(w, "warn", "browser gone, restarting", NULL);
		kn_local_browser_stop(&w->local);
		int r = kn_local_browser_start(&w->local, w->chromium, err);
		if (r)
			return r;
		kn_worker_log(w, "info", "browser started", "pid=%ld endpoint=%s", (long)w->local.pid, w->local.ws_url);
	}
	*out = strdup(w->local.ws_url);
	return *out ? 0 : kn_err_set(err, KN_ENOMEM, "out of memory");
}

/* A short reason for a failed report, for logs and evidence: broken.reason (or what blocked it),
 * else the status. */
static void report_reason(const kn_replay_report *rep, char *out, size_t cap)
{
	snprintf(out, cap, "%s", kn_replay_status_name(kn_replay_report_status(rep)));
	const kn_replay_failure *f = kn_replay_report_failure(rep);
	if (f && f->reason && f->step)
		snprintf(out, cap, "step %d: %s", f->step, f->reason);
	else if (f && f->reason)
		snprintf(out, cap, "%s", f->reason);
}

/* Store an error result for a job that cannot be replayed at all (its task is gone, or the
 * browser failed on it too often). */
static int complete_error(kn_worker *w, const kn_store_job *job, const char *why, int64_t *replay_id,
                          kn_err *err)
{
	json_t *j = json_pack("{s:s, s:{s:s}}", "status", "error", "error", "reason", why);
	char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
	json_decref(j);
	if (!text)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	int r = kn_store_job_complete(w->st, job->id, w->id, "error", NULL, text, NULL, 0, replay_id, err);
	free(text);
	return r;
}

/* Store the watched run of a replay (kind "replay"): its start, every event of the trajectory the
 * monitor wrote to traj, and its end with the report as the result. Idempotent, so a job finished
 * twice (a lost lease) stores the run once; the replay result then links to it. */
static int store_run(kn_worker *w, const kn_store_job *job, const kn_replay_report *rep, FILE *traj,
                     const char *browser, kn_err *err)
{
	kn_store_run run = {.id = kn_replay_report_run_id(rep), .task_version = job->task_version,
	                    .kind = "replay", .browser = browser, .owner = w->id};
	return kn_store_run_import(w->st, &run, traj, kn_replay_report_json(rep), err);
}

/* Move the task's health after a stored result and raise a transition. */
static void update_health(kn_worker *w, const kn_store_job *job, const char *task_id,
                          int first, int retry, int64_t replay_id, const kn_replay_report *rep,
                          const char *reason)
{
	const char *run_id = kn_replay_report_run_id(rep);
	kn_err err = {0};
	kn_health from;
	int failures;
	int r = kn_store_health_get(w->st, job->task_version, &from, &failures, &err);
	if (r == KN_ENOTFOUND)
		from = KN_HEALTH_UNKNOWN, failures = 0, r = 0;
	if (r) {
		kn_worker_log(w, "error", "health not updated", "job=%" PRId64 " error=\"%s\"", job->id, err.msg);
		return;
	}
	kn_health_step h;
	health_decide(&h, from, failures, w->o.broken_after, first, retry);
	kn_health to = h.next;
	int to_failures = h.consecutive_failures;
	kn_replay_status status = (kn_replay_status)(retry >= 0 ? retry : first);
	json_t *ev = json_pack("{s:I, s:I, s:I, s:s, s:s?, s:s, s:b, s:s, s:s, s:i, s:s, s:s}", "replay",
	                       (json_int_t)replay_id, "job", (json_int_t)job->id, "task_version",
	                       (json_int_t)job->task_version, "task", task_id, "run", run_id, "status",
	                       kn_replay_status_name(status), "retried", retry >= 0, "reason", reason,
	                       "worker", w->id, "consecutive_failures", to_failures, "from", kn_health_name(from), "to",
	                       kn_health_name(to));
	/* the report's repair proposals, counted: the alert says whether a verified fix waits */
	json_t *doc = json_loads(kn_replay_report_json(rep) ? kn_replay_report_json(rep) : "", 0, NULL), *p;
	json_t *repairs = json_object_get(doc, "repairs");
	if (ev && json_is_array(repairs)) {
		size_t i, verified = 0;
		json_array_foreach(repairs, i, p)
			verified += json_is_true(json_object_get(p, "verified"));
		json_object_set_new(ev, "repairs", json_pack("{s:I, s:I}", "proposals", (json_int_t)json_array_size(repairs),
		                                              "verified", (json_int_t)verified));
	}
	json_decref(doc);
	const kn_replay_failure *f = kn_replay_report_failure(rep);
	if (ev && f && f->blocked) /* what blocked it: kind, signature, status, URL */
		json_object_set_new(ev, "blocked", kn_blocked_hit_json(f->blocked, f->step));
	char *evidence = ev ? json_dumps(ev, JSON_COMPACT) : NULL;
	json_decref(ev);
	if (!evidence) {
		kn_worker_log(w, "error", "health not updated", "job=%" PRId64 " error=\"out of memory\"", job->id);
		return;
	}
	r = kn_store_health_set(w->st, job->task_version, to, to_failures, evidence, &err);
	if (r) {
		kn_worker_log(w, "error", "health not updated", "job=%" PRId64 " error=\"%s\"", job->id, err.msg);
	} else if (to != from) {
		kn_worker_log(w, "info", "health changed", "task=%s from=%s to=%s failures=%d", task_id,
		     kn_health_name(from), kn_health_name(to), to_failures);
		pthread_mutex_lock(&w->mu);
		w->stats.transitions++;
		pthread_mutex_unlock(&w->mu);
		if (h.alert && w->o.alerts && kn_alerts_health(w->o.alerts, task_id, from, to, evidence, &err) != 0)
			kn_worker_log(w, "warn", "alert not raised", "task=%s error=\"%s\"", task_id, err.msg);
	}
	free(evidence);
}

static void count(kn_worker *w, long *field)
{
	pthread_mutex_lock(&w->mu);
	(*field)++;
	pthread_mutex_unlock(&w->mu);
}

/* Take the owner lock once per session, never waiting: when another live worker uses the same id
 * it already protects the runs of that id. KN_EIO/KN_EDB when the database is gone. */
static int hold_owner(kn_worker *w, kn_err *err)
{
	int held = 0;
	if (w->owner_session == kn_store_session(w->st))
		return 0;
	int rc = kn_store_owner_try_hold(w->st, w->id, &held, err);
	if (rc == 0 && !held)
		kn_worker_log(w, "warn", "another live worker has the same id", "id=%s", w->id);
	if (rc == 0)
		w->owner_session = kn_store_session(w->st);
	return rc;
}

/* Hold this worker's owner lock (its replay runs are its own while it lives) and end the replay
 * runs of workers that are gone ("worker lost"). Failures are logged: the next chance retries. */
static void end_orphans(kn_worker *w)
{
	kn_err err = {0};
	size_t n = 0;
	if (hold_owner(w, &err) != 0 || kn_store_replay_orphans_end(w->st, w->id, "worker lost", &n, &err) != 0)
		kn_worker_log(w, "warn", "orphaned replay runs not ended", "error=\"%s\"", err.msg);
	else if (n)
		kn_worker_log(w, "info", "orphaned replay runs ended", "runs=%zu reason=\"worker lost\"", n);
}

/* Run one claimed job to its end. Returns 0, or KN_EIO when the database connection was lost
 * (the store reconnects at the next call; the job is left to lease expiry). */
/* One replay of task in a fresh context of the worker's browser (*ws its endpoint, replaced), with
 * repair proposals, its trajectory in a new temporary file (*traj; the previous one closed) and its
 * trace (wt; a previous attempt's discarded). *rep is the report, which names the workflow replayed
 * (wf_json) when there is one. 0, or a negative code with err set; *ws and *traj stay the caller's. */
static int replay_once(kn_worker *w, const kn_task *task, const char *wf_json, kn_worker_trace *wt,
                       char **ws, FILE **traj, kn_replay_report **rep, kn_err *err)
{
	free(*ws), *ws = NULL;
	int r = browser_ws(w, ws, err);
	if (r != 0)
		return r;
	kn_validate_opts vo = w->o.validate;
	vo.fresh_context = 1;
	vo.repairs = 1; /* proposals for the drift diff, verified by a second replay */
	if (*traj)
		fclose(*traj);
	if (!(*traj = tmpfile()))
		r = kn_err_set(err, KN_EIO, "no temporary file for the trajectory");
	vo.trajectory = *traj;
	kn_worker_trace_discard(wt, w, &w->o); /* a retried attempt's trace */
	if (r == 0) {
		kn_worker_trace_begin(wt, w, &w->o, task, &vo);
		r = kn_replay_validate(w->loop, *ws, task, &vo, rep, err);
		kn_worker_trace_end(wt);
		if (r == 0 && wf_json) /* which workflow was replayed: the stored row says it */
			kn_replay_report_set_workflow(*rep, wf_json);
	}
	return r;
}

static int run_job(kn_worker *w, const kn_store_job *job)
{
	kn_err err = {0};
	kn_taskset *set = NULL;
	kn_replay_report *rep = NULL;
	FILE *traj = NULL;
	char *ws = NULL, *wf_json = NULL, why[800];
	int64_t replay_id = 0;
	int first = -1, retry = -1, r;
	kn_worker_trace wt = {0}; /* the replay's trace (worker_trace.h) */

	set_job(w, job->id);
	if (job->attempt > 1) /* re-claimed after its lease expired: its worker may be gone */
		end_orphans(w);
	r = kn_store_task_load(w->st, job->task_version, &set, &err);
	if (r == KN_EIO)
		goto out;
	if (r == 0 && set->n_tasks != 1)
		r = kn_err_set(&err, KN_EINVAL, "task version %" PRId64 " holds %zu tasks", job->task_version,
		               set->n_tasks);
	if (r) {
		snprintf(why, sizeof why, "task version %" PRId64 " cannot be loaded: %s", job->task_version, err.msg);
		goto store_error;
	}
	/* --workflows file, else the newest uploaded workflow, else inline steps (worker_workflow.h) */
	if ((r = kn_worker_workflow_pick(w, &set->tasks[0], job->task_version, w->o.workflows_dir, &wf_json, &err))) {
		if (r == KN_EIO) /* the connection: reconnect, the job is left to lease expiry */
			goto out;
		snprintf(why, sizeof why, "workflow of task '%s' cannot be loaded: %s", set->tasks[0].id, err.msg);
		goto store_error;
	}
	const kn_task *task = &set->tasks[0];
	kn_worker_log(w, "info", "job claimed", "job=%" PRId64 " task=%s version=%" PRId64 " attempt=%d", job->id,
	     task->id, job->task_version, job->attempt);

	kn_health health_now = KN_HEALTH_UNKNOWN;
	int failures_now = 0;
	if (kn_store_health_get(w->st, job->task_version, &health_now, &failures_now, &err) != 0)
		health_now = KN_HEALTH_UNKNOWN, failures_now = 0;
	for (int attempt = 1; attempt <= 2; attempt++) {
		if ((r = replay_once(w, task, wf_json, &wt, &ws, &traj, &rep, &err))) {
			if (stopping(w)) {
				kn_worker_log(w, "info", "job abandoned", "job=%" PRId64 " reason=stopping", job->id);
				count(w, &w->stats.abandoned);
				r = 0;
				goto out;
			}
			char q[300];
			kn_log_quote(q, sizeof q, err.msg);
			if (job->attempt < KN_WORKER_MAX_ATTEMPTS) {
				/* nothing could be judged: leave the job to lease expiry and another try */
				kn_worker_log(w, "warn", "job abandoned", "job=%" PRId64 " reason=\"browser: %s\"", job->id, q);
				count(w, &w->stats.abandoned);
				r = 0;
				goto out;
			}
			snprintf(why, sizeof why, "browser failed %d times: %s", job->attempt, err.msg);
			goto store_error;
		}
		kn_replay_status st = kn_replay_report_status(rep);
		if (attempt == 2) {
			retry = (int)st;
			break;
		}
		first = (int)st;
		kn_health_step h;
		health_decide(&h, health_now, failures_now, w->o.broken_after, first, -1);
		if (h.retry) {
			char q[300];
			report_reason(rep, why, sizeof why);
			kn_log_quote(q, sizeof q, why);
			kn_worker_log(w, "info", "replay failed, retrying in a fresh context", "job=%" PRId64 " task=%s status=%s reason=\"%s\"",
			     job->id, task->id, kn_replay_status_name(st), q);
			kn_replay_report_free(rep), rep = NULL;
			count(w, &w->stats.retried);
			continue;
		}
		break;
	}

	pthread_mutex_lock(&w->mu);
	int lost = w->lease_lost;
	pthread_mutex_unlock(&w->mu);
	kn_replay_status status = kn_replay_report_status(rep);
	const char *run_id = NULL;
	if (!lost) {
		if ((r = hold_owner(w, &err)) == 0 && (r = store_run(w, job, rep, traj, ws, &err)) == 0)
			run_id = kn_replay_report_run_id(rep);
		else
			kn_worker_log(w, "warn", "replay run not stored", "job=%" PRId64 " error=\"%s\"", job->id, err.msg);
		size_t png_len = 0;
		const unsigned char *png = kn_replay_report_screenshot(rep, &png_len);
		r = kn_store_job_complete(w->st, job->id, w->id, kn_replay_status_name(status), run_id,
		                          kn_replay_report_json(rep), png, png_len, &replay_id, &err);
	}
	if (lost || r == KN_ENOTFOUND) {
		kn_worker_log(w, "warn", "lease lost, result dropped", "job=%" PRId64 " task=%s", job->id, task->id);
		count(w, &w->stats.lost);
		r = 0;
		goto out;
	}
	if (r) {
		kn_worker_log(w, "error", "result not stored", "job=%" PRId64 " error=\"%s\"", job->id, err.msg);
		goto out;
	}
	count(w, &w->stats.completed);
	kn_worker_trace_index(&wt, w, &w->o);
	report_reason(rep, why, sizeof why);
	char q[300];
	kn_log_quote(q, sizeof q, why);
	kn_worker_log(w, "info", "job done", "job=%" PRId64 " task=%s status=%s replay=%" PRId64 " retried=%d%s%s%s",
	     job->id, task->id, kn_replay_status_name(status), replay_id, retry >= 0,
	     status == KN_REPLAY_PASSED ? "" : " reason=\"", status == KN_REPLAY_PASSED ? "" : q,
	     status == KN_REPLAY_PASSED ? "" : "\"");
	/* the task's API reference, TASKSET:TASK, so alerts of equal ids in two sets stay apart */
	char ref[512];
	snprintf(ref, sizeof ref, "%s:%s", set->source, task->id);
	update_health(w, job, ref, first, retry, replay_id, rep, why);
	goto out;

store_error:
	r = complete_error(w, job, why, &replay_id, &err);
	if (r == KN_ENOTFOUND) {
		count(w, &w->stats.lost);
		r = 0;
	} else if (r == 0) {
		char qe[300];
		kn_log_quote(qe, sizeof qe, why);
		kn_worker_log(w, "warn", "job done", "job=%" PRId64 " status=error replay=%" PRId64 " reason=\"%s\"", job->id,
		     replay_id, qe);
		count(w, &w->stats.completed);
	}
out:
	if (r && r != KN_EIO)
		r = 0;
	set_job(w, 0);
	kn_worker_trace_discard(&wt, w, &w->o); /* not stored (indexed ones are closed) */
	kn_replay_report_free(rep);
	kn_taskset_free(set);
	if (traj)
		fclose(traj);
	free(ws);
	free(wf_json);
	return r;
}

/* ---- the claim loop -------------------------------------------------------------------------- */

int kn_worker_run(kn_worker *w, kn_err *err)
{
	long handled = 0;
	int db_failures = 0;
	kn_worker_log(w, "info", "worker started", "lease=%d browser=%s", w->o.lease_s,
	     w->browser ? w->browser : "local");
	end_orphans(w);
	while (!stopping(w) && (w->o.max_jobs <= 0 || handled < w->o.max_jobs)) {
		kn_store_job job;
		kn_err e = {0};
		int r = kn_store_job_claim(w->st, w->id, w->o.lease_s, &job, &e);
		if (r == 0 && w->o.other_job && (r = w->o.other_job(w, w->o.other_ud, &e)) == 1) {
			db_failures = 0; /* an agent job (worker_agent.c) ran */
			handled++;
			continue;
		}
		if (r == 1) {
			db_failures = 0;
			count(w, &w->stats.claimed);
			handled++;
			if ((r = run_job(w, &job)) == 0)
				continue;
		} else if (r == 0) {
			db_failures = 0;
			if (w->o.once)
				break;
			idle(w, w->o.poll_ms);
			continue;
		}
		if (r < 0 && r != KN_EIO && r != KN_EDB)
			return kn_err_set(err, r, "%s", e.msg);
		if (r < 0) {
			/* the database went away: reconnect with backoff, give up after a minute */
			char q[300];
			kn_log_quote(q, sizeof q, e.msg[0] ? e.msg : kn_strerror(r));
			kn_worker_log(w, "warn", "database unavailable", "error=\"%s\"", q);
			if (++db_failures > 60)
				return kn_err_set(err, KN_EIO, "database unreachable: %s", e.msg);
			idle(w, 1000); /* the store reconnects; a new session takes the owner lock again */
		}
	}
	kn_worker_stats s;
	kn_worker_get_stats(w, &s);
	kn_worker_log(w, "info", "worker stopped", "claimed=%ld completed=%ld lost=%ld abandoned=%ld retried=%ld",
	     s.claimed, s.completed, s.lost, s.abandoned, s.retried);
	return 0;
}

/* ---- shared with worker_agent.c (worker.h) ----------------------------------------------------- */

struct kn_store *kn_worker_store(kn_worker *w) { return w->st; }
const char *kn_worker_id(const kn_worker *w) { return w->id; }
int kn_worker_lease_s(const kn_worker *w) { return w->o.lease_s; }
void kn_worker_hold(kn_worker *w, int64_t job) { set_job(w, job); }
const atomic_int *kn_worker_stop_flag(kn_worker *w) { return &w->stop_flag; }
kn_cdp_loop *kn_worker_loop(kn_worker *w) { return w->loop; }
int kn_worker_browser_ws(kn_worker *w, char **out, kn_err *err) { return browser_ws(w, out, err); }

int kn_worker_lease_lost(kn_worker *w)
{
	pthread_mutex_lock(&w->mu);
	int lost = w->lease_lost;
	pthread_mutex_unlock(&w->mu);
	return lost;
}

void kn_worker_count(kn_worker *w, const char *what)
{
	long *f = strcmp(what, "claimed") == 0 ? &w->stats.claimed
	        : strcmp(what, "completed") == 0 ? &w->stats.completed
	        : strcmp(what, "lost") == 0 ? &w->stats.lost : &w->stats.abandoned;
	count(w, f);
}

void kn_worker_log(const kn_worker *w, const char *level, const char *msg, const char *fmt, ...)
{
	if (!kn_log_enabled(level))
		return;
	char extra[768] = "";
	if (fmt) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(extra, sizeof extra, fmt, ap);
		va_end(ap);
	}
	kn_log(level, "worker", "worker=%s msg=\"%s\"%s%s", w->id, msg, extra[0] ? " " : "", extra);
}
