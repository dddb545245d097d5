/* worker_agent.c — one agent job in `keynode worker` (worker_agent.h): claim → hold the lease
 * with the worker's heartbeat → load the task version → kn_attempt_run in DIR/<batch>/<task>/<k>
 * (an infrastructure error tried again up to the batch's retries) → the run and its events in
 * runs/events → result.json and the done mark in one transaction (the batch's last: its page computed
 * and stored, kn_batch_page_warm). A worker killed mid-attempt
 * takes its browser and agent with it (both die with the worker's thread, PR_SET_PDEATHSIG) and stores
 * nothing; the lease expires and another worker runs the attempt again from the start. */
#define _GNU_SOURCE /* asprintf */
#include "worker_agent.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "keynode/clock.h"
#include "provenance.h"
#include "rundir.h"
#include "runner.h"
#include "store.h"

/* result.json of an attempt that could not even start (its task cannot be loaded). */
static char *error_result(const char *why)
{
	json_t *j = json_pack("{s:s, s:b, s:f, s:{s:s, s:s}}", "status", "error", "completion", 0, "score",
	                      0.0, "attempt", "status", "error", "reason", why);
	char *t = j ? json_dumps(j, JSON_COMPACT) : NULL;
	json_decref(j);
	return t;
}

/* result.json as stored, with "attempt"."retried": the infrastructure errors before this try. */
static char *slurp(const char *path, int retried)
{
	json_error_t je;
	json_t *j = json_load_file(path, 0, &je);
	json_t *att = json_object_get(j, "attempt");
	if (json_is_object(att))
		json_object_set_new(att, "retried", json_integer(retried));
	char *t = j ? json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	json_decref(j);
	return t;
}

/* The attempt's run in runs/events (kind "agent", as a `keynode run --server` attempt's), so the
 * dashboard shows it like every other run: its trajectory and its result.json. Idempotent on the
 * run id; a lost lease after this leaves the run stored (it did happen) but no agent result. */
static int store_run(kn_worker *w, const kn_store_agent_job *job, const char *run_id, const char *traj,
                     const char *result, kn_err *err)
{
	FILE *f = fopen(traj, "r");
	if (!f)
		return 0; /* no trajectory (the browser never started): the result alone tells */
	kn_store_run run = {.id = run_id, .task_version = job->task_version, .kind = "agent",
	                    .owner = kn_worker_id(w), .snapshot = job->snapshot};
	int r = kn_store_run_import(kn_worker_store(w), &run, f, result, err);
	fclose(f);
	return r;
}

/* The folder of this claim: DIR/<batch>/<task>/<k>; a folder left by an earlier claim (a worker
 * on this machine that died) is set aside as <k>.lost-<claim>. */
static char *claim_dir(const kn_worker_agents *a, const kn_store_agent_job *job, const char *task_id)
{
	char name[256], *dir = NULL, *old = NULL;
	kn_runner_folder_name(name, sizeof name, task_id);
	if (asprintf(&dir, "%s/%" PRId64 "/%s/%d", a->dir, job->batch, name, job->attempt_no) < 0)
		return NULL;
	if (job->attempt > 1 && asprintf(&old, "%s.lost-%d", dir, job->attempt - 1) >= 0) {
		rename(dir, old);
		free(old);
	}
	return dir;
}

/* Idle: one finished batch below the cursor without its page or packed attempts computed and
 * stored; from the newest again a minute after the last pass began (a batch that cannot be stored
 * is not tried in a loop). Failures are logged, never the queue's. */
static void warm_one(kn_worker *w, kn_worker_agents *a)
{
	kn_store *st = kn_worker_store(w);
	int64_t batch = 0;
	kn_err e = {0};
	if (a->warm_below == 0) {
		if (kn_time_mono_ms() < a->warm_restart_ms)
			return;
		a->warm_below = INT64_MAX, a->warm_restart_ms = kn_time_mono_ms() + 60000;
	}
	if (kn_store_batch_cache_missing(st, a->warm_below, &batch, &e) != 0 || batch <= 0) {
		a->warm_below = 0; /* a pass done (or the database away: the claim loop sees to it) */
		return;
	}
	a->warm_below = batch;
	if (kn_batch_page_warm(st, batch, &e) != 0)
		kn_worker_log(w, "warn", "batch page not stored", "batch=%" PRId64 " error=%s", batch, e.msg);
	else
		kn_worker_log(w, "info", "batch page stored", "batch=%" PRId64 " when=idle", batch);
}

int kn_worker_agent_job(kn_worker *w, void *ud, kn_err *err)
{
	kn_worker_agents *a = ud;
	kn_store *st = kn_worker_store(w);
	kn_store_agent_job job;
	int r = kn_store_agent_job_claim(st, kn_worker_id(w), kn_worker_lease_s(w), a->names, a->n, &job, err);
	if (r == 0)
		warm_one(w, a);
	if (r != 1)
		return r;
	kn_worker_count(w, "claimed");
	kn_worker_hold(w, job.id);
	const char *cmd = NULL;
	for (size_t i = 0; i < a->n && !cmd; i++)
		if (strcmp(a->names[i], job.agent) == 0)
			cmd = a->commands[i];
	kn_taskset *set = NULL;
	kn_err e = {0};
	char *dir = NULL, *run_id = NULL, *result = NULL, *env_text = NULL, why[600] = "";
	r = kn_store_task_load(st, job.task_version, &set, &e);
	if (r == KN_EIO || r == KN_EDB) {
		kn_err_set(err, r, "%s", e.msg);
		goto out; /* the database: the store reconnects, the job goes to lease expiry */
	}
	if (r == 0 && set->n_tasks != 1)
		r = kn_err_set(&e, KN_EINVAL, "task version %" PRId64 " holds %zu tasks", job.task_version,
		               set->n_tasks);
	if (r) {
		snprintf(why, sizeof why, "task version %" PRId64 " cannot be loaded: %s", job.task_version, e.msg);
		result = error_result(why);
		goto complete;
	}
	const kn_task *task = &set->tasks[0];
	kn_worker_log(w, "info", "agent job claimed", "job=%" PRId64 " batch=%" PRId64 " agent=%s task=%s "
	              "attempt=%d claim=%d", job.id, job.batch, job.agent, task->id, job.attempt_no, job.attempt);
	if (!(dir = claim_dir(a, &job, task->id)) ||
	    asprintf(&run_id, "b%" PRId64 "-j%" PRId64 "-c%d", job.batch, job.id, job.attempt) < 0) {
		run_id = NULL;
		r = kn_err_set(err, KN_ENOMEM, "out of memory");
		goto out;
	}
	/* provenance, as `keynode run`'s (provenance.h): batches compared on the dashboard say when their
	 * attempts ran in different environments */
	json_t *env = kn_run_environment(&(kn_run_env_opts){
		.chromium = a->chromium ? a->chromium : kn_runner_chromium_default(), .region = a->region});
	env_text = env ? json_dumps(env, JSON_COMPACT) : NULL;
	json_decref(env);
	kn_attempt_opts o = {.task = task, .agent_cmd = cmd, .dir = dir, .run_id = run_id,
	                     .chromium = a->chromium, .timeout_s = a->timeout_s,
	                     .stop = kn_worker_stop_flag(w), .environment = env_text, .watch = a->watch};
	kn_attempt_report rep;
	int retried = 0, ran;
	/* an infrastructure error (start page down, browser crash, agent not startable) is tried again,
	 * up to the batch's retries, as `keynode run --retries`; the errored try's folder is kept aside */
	while ((ran = kn_attempt_run(&rep, &o, &e)) == 0 && rep.status == KN_ATTEMPT_ERROR &&
	       retried < job.retries && !kn_worker_lease_lost(w) && !atomic_load(kn_worker_stop_flag(w))) {
		kn_worker_log(w, "info", "agent job retried", "job=%" PRId64 " try=%d", job.id, retried + 2);
		char *aside = NULL, *rid = NULL;
		if (asprintf(&aside, "%s.error-%d", dir, ++retried) >= 0)
			rename(dir, aside);
		if (asprintf(&rid, "b%" PRId64 "-j%" PRId64 "-c%d-r%d", job.batch, job.id, job.attempt, retried) >= 0) {
			free(run_id);
			o.run_id = run_id = rid;
		}
		free(aside);
	}
	if (ran != 0) {
		snprintf(why, sizeof why, "%s", e.msg);
		result = error_result(why);
	} else if (rep.status == KN_ATTEMPT_INTERRUPTED) {
		kn_worker_log(w, "info", "agent job abandoned", "job=%" PRId64 " reason=stopping", job.id);
		kn_worker_count(w, "abandoned");
		r = 0;
		goto out;
	} else {
		char path[4200];
		snprintf(path, sizeof path, "%s/result.json", dir);
		result = slurp(path, retried);
		snprintf(path, sizeof path, "%s/trajectory.jsonl", dir);
		if (result && !kn_worker_lease_lost(w) && (r = store_run(w, &job, run_id, path, result, &e)) != 0) {
			kn_worker_log(w, "warn", "agent run not stored", "job=%" PRId64 " run=%s", job.id, run_id);
			if (r == KN_EIO || r == KN_EDB) {
				kn_err_set(err, r, "%s", e.msg);
				goto out; /* the database: the job goes to lease expiry and is run again */
			}
			r = 0; /* the run alone is lost: the result is still stored */
		}
	}
complete:
	if (!result) {
		r = kn_err_set(err, KN_ENOMEM, "out of memory");
		goto out;
	}
	r = kn_worker_lease_lost(w) ? KN_ENOTFOUND
	                            : kn_store_agent_job_complete(st, job.id, kn_worker_id(w), result, &e);
	if (r == KN_ENOTFOUND) {
		kn_worker_log(w, "warn", "lease lost, result dropped", "job=%" PRId64, job.id);
		kn_worker_count(w, "lost");
		r = 0;
	} else if (r) {
		kn_err_set(err, r, "%s", e.msg);
		kn_worker_log(w, "error", "agent result not stored", "job=%" PRId64, job.id);
	} else {
		kn_worker_count(w, "completed");
		kn_worker_log(w, "info", "agent job done", "job=%" PRId64 " batch=%" PRId64 " dir=%s", job.id,
		              job.batch, dir ? dir : "-");
		/* the batch's last attempt: its page computed once now, not by its first reader */
		kn_err pe = {0};
		if (kn_batch_page_warm(st, job.batch, &pe) != 0)
			kn_worker_log(w, "warn", "batch page not stored", "batch=%" PRId64 " error=%s", job.batch, pe.msg);
	}
out:
	kn_worker_hold(w, 0);
	kn_taskset_free(set);
	free(dir), free(run_id), free(result), free(env_text);
	if (r == 0)
		return 1;
	return r == KN_EIO || r == KN_EDB ? r : 1; /* other failures were this job's, not the queue's */
}
