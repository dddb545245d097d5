/* worker_record.c — a worker's recordings from the dashboard (worker_record.h). One recording at a
 * time on the worker's own thread and CDP loop, between jobs: claim, show, record, then at "finish"
 * write the workflow as `keynode record` writes it, load it back as an upload is loaded, replay it in
 * a fresh context and store it only when that replay passed. Every end is logged
 * (component=worker msg="recording …" recording= task= reason=). */
#define _GNU_SOURCE /* open_memstream */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "api_maint.h"
#include "cdp.h"
#include "keynode/clock.h"
#include "keynode/workflow.h"
#include "log.h"
#include "record_session.h"
#include "store.h"
#include "store_recordings.h"
#include "worker_record.h"

#define POLL_MS 1000 /* how often serve's finish/cancel is looked for */

static int link_open(void *ud)
{
	const kn_cdp_link *l = ud;
	return l->open || l->closed;
}

static int record_ready(void *ud)
{
	return kn_record_ready(ud);
}

/* A fresh browser context and its tab (about:blank) on c: *ctx, *target the caller's. */
static int open_tab(kn_cdp *c, char **ctx, char **target, kn_err *err)
{
	json_t *v = NULL;
	int rc = kn_cdp_call(c, NULL, "Target.createBrowserContext", json_object(), &v, err);
	if (rc)
		return rc;
	const char *id = kn_json_str(v, "browserContextId");
	*ctx = id ? strdup(id) : NULL;
	json_decref(v);
	if (!*ctx)
		return kn_err_set(err, KN_EPROTO, "no browser context");
	if ((rc = kn_cdp_call(c, NULL, "Target.createTarget",
	                      json_pack("{s:s, s:s}", "url", "about:blank", "browserContextId", *ctx), &v, err)))
		return rc;
	const char *tid = kn_json_str(v, "targetId");
	*target = tid ? strdup(tid) : NULL;
	json_decref(v);
	return *target ? 0 : kn_err_set(err, KN_EPROTO, "no target for the recording tab");
}

/* Go to url in the tab: the recorder sees it as the workflow's first step (goto). */
static int navigate(kn_cdp *c, const char *target, const char *url, kn_err *err)
{
	json_t *v = NULL;
	int rc = kn_cdp_call(c, NULL, "Target.attachToTarget", json_pack("{s:s, s:b}", "targetId", target, "flatten", 1),
	                     &v, err);
	if (rc)
		return rc;
	char *session = kn_json_str(v, "sessionId") ? strdup(kn_json_str(v, "sessionId")) : NULL;
	json_decref(v);
	if (!session)
		return kn_err_set(err, KN_EPROTO, "no session on the recording tab");
	rc = kn_cdp_call(c, session, "Page.navigate", json_pack("{s:s}", "url", url), &v, err);
	json_decref(v);
	free(session);
	return rc;
}

/* The workflow's text as `keynode record` writes it; *buf the caller's. */
static int workflow_text(const kn_task *wf, char **buf, size_t *len, kn_err *err)
{
	char when[KN_TIME_MAX];
	kn_time_rfc3339(when, time(NULL));
	FILE *f = open_memstream(buf, len);
	if (!f)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	int bad = kn_workflow_write(f, wf, when) != 0;
	if (fclose(f) != 0 || bad) {
		free(*buf);
		*buf = NULL;
		return kn_err_set(err, KN_EIO, "the workflow could not be written");
	}
	return 0;
}

/* Replay the recorded workflow (wf, loaded from its text) on task in a fresh context, store its run
 * and result (replay_results, no job): *replay the row, *status its status; why says what failed. */
static int validate(kn_worker *w, kn_worker_recorder *rc_, const kn_store_recording *rec, kn_task *task,
                    kn_task *wf, const char *ws, int64_t *replay, kn_replay_status *status, char *why, size_t cap,
                    kn_err *err)
{
	kn_store *st = kn_worker_store(w);
	int rc = kn_workflow_apply(task, wf, "recorded workflow", err);
	if (rc)
		return rc;
	kn_validate_opts vo = rc_->validate;
	vo.fresh_context = 1;
	vo.repairs = 0;
	FILE *traj = tmpfile();
	if (!traj)
		return kn_err_set(err, KN_EIO, "no temporary file for the trajectory");
	vo.trajectory = traj;
	kn_replay_report *rep = NULL;
	rc = kn_replay_validate(kn_worker_loop(w), ws, task, &vo, &rep, err);
	if (!rc) {
		*status = kn_replay_report_status(rep);
		const kn_replay_failure *f = kn_replay_report_failure(rep);
		snprintf(why, cap, "%s", kn_replay_status_name(*status));
		if (f && f->reason && f->step > 0)
			snprintf(why, cap, "%s at step %d: %s", kn_replay_status_name(*status), f->step, f->reason);
		else if (f && f->reason)
			snprintf(why, cap, "%s: %s", kn_replay_status_name(*status), f->reason);
		kn_store_run run = {.id = kn_replay_report_run_id(rep), .task_version = rec->task_version,
		                    .kind = "replay", .browser = ws, .owner = kn_worker_id(w)};
		size_t png_len = 0;
		const unsigned char *png = kn_replay_report_screenshot(rep, &png_len);
		rc = kn_store_run_import(st, &run, traj, kn_replay_report_json(rep), err);
		if (!rc)
			rc = kn_store_replay_put(st, rec->task_version, run.id, 0, kn_replay_status_name(*status),
			                         kn_replay_report_json(rep), png, png_len, replay, err);
	}
	kn_replay_report_free(rep);
	fclose(traj);
	return rc;
}

/* Record rec to its end. state/detail: how it ended (the caller stores them). */
static void record(kn_worker *w, kn_worker_recorder *o, const kn_store_recording *rec, const char **state,
                   char *detail, size_t cap)
{
	kn_store *st = kn_worker_store(w);
	kn_cdp_loop *loop = kn_worker_loop(w);
	kn_err err = {0};
	kn_taskset *set = NULL, *wfset = NULL;
	char *ws = NULL, *ctx = NULL, *target = NULL, *text = NULL, run[32];
	size_t text_len = 0;
	kn_cdp *c = NULL;
	kn_cdp_link link = {0};
	kn_record *r = NULL;
	kn_live_src *src = NULL;
	*state = "failed";
	snprintf(run, sizeof run, "rec-%" PRId64, rec->id);
	int rc = kn_store_task_load(st, rec->task_version, &set, &err);
	if (!rc && set->n_tasks != 1)
		rc = kn_err_set(&err, KN_EINVAL, "the task version holds %zu tasks", set->n_tasks);
	if (!rc && !set->tasks[0].start_url)
		rc = kn_err_set(&err, KN_EINVAL, "the task has no start_url");
	kn_cdp_handlers h = kn_cdp_link_handlers(&link);
	if (!rc && !(rc = kn_worker_browser_ws(w, &ws, &err)) && !(rc = kn_cdp_connect(&c, loop, ws, NULL, &h, &err))) {
		kn_cdp_loop_run_until(loop, 10000, link_open, &link);
		if (!link.open)
			rc = kn_err_set(&err, KN_EIO, "browser unreachable: %s", link.closed ? link.reason : "timed out");
	}
	if (rc) {
		snprintf(detail, cap, "cannot record: %s", err.msg);
		goto out;
	}
	const kn_task *task = &set->tasks[0];
	kn_record_opts ro = {.viewport_w = 0}; /* the documented default viewport, as keynode record */
	if ((rc = open_tab(c, &ctx, &target, &err)) == 0) {
		ro.browser_context = ctx;
		rc = kn_record_start(&r, loop, ws, task, &ro, &err);
	}
	if (!rc) {
		kn_cdp_loop_run_until(loop, 10000, record_ready, r);
		src = kn_live_hub_open(o->hub, loop, ws, target, run, task, 1);
		rc = navigate(c, target, task->start_url, &err);
	}
	if (rc) {
		snprintf(detail, cap, "cannot record: %s", err.msg);
		goto out;
	}
	kn_worker_log(w, "info", "recording", "recording=%" PRId64 " task=%s run=%s", rec->id, task->id, run);
	int idle_ms = (o->idle_s > 0 ? o->idle_s : 300) * 1000;
	double began = kn_time_mono_ms(), polled = 0;
	char want[16] = "";
	for (;;) {
		kn_cdp_loop_run_for(loop, 250);
		double now = kn_time_mono_ms(), last = kn_record_last_event(r);
		if (atomic_load(kn_worker_stop_flag(w)) || kn_cdp_loop_stopped(loop)) {
			*state = "cancelled", snprintf(detail, cap, "the worker stopped");
			goto out;
		}
		if (kn_monitor_ended(kn_record_monitor(r)) && strcmp(kn_monitor_end_reason(kn_record_monitor(r)), "steps")) {
			snprintf(detail, cap, "the browser went away (%s)", kn_monitor_end_reason(kn_record_monitor(r)));
			goto out;
		}
		if (now - (last > began ? last : began) > idle_ms) {
			*state = "cancelled", snprintf(detail, cap, "nothing done for %d s", idle_ms / 1000);
			goto out;
		}
		if (now - polled >= POLL_MS) {
			polled = now;
			if (kn_store_recording_asked(st, rec->id, want, &err) == 0 && want[0])
				break;
		}
	}
	if (strcmp(want, "cancel") == 0) {
		*state = "cancelled", snprintf(detail, cap, "cancelled by the maintainer");
		goto out;
	}
	const kn_task *wf = kn_record_finish(r, loop, NULL);
	json_decref(kn_live_hub_close(src, "recording finished"));
	src = NULL;
	if (wf->n_steps == 0) {
		snprintf(detail, cap, "nothing was recorded");
		goto out;
	}
	/* the text as keynode record writes it, loaded back as POST /api/workflows loads it */
	if ((rc = workflow_text(wf, &text, &text_len, &err)) == 0)
		rc = kn_workflow_load_buffer(&wfset, text, text_len, "recorded workflow", &err);
	if (rc) {
		snprintf(detail, cap, "the recorded workflow does not load: %s", err.msg);
		goto out;
	}
	kn_store_recording_set(st, rec->id, "validating", (int)wf->n_steps, NULL, 0, 0, NULL, &err);
	kn_worker_log(w, "info", "recording validated by a replay", "recording=%" PRId64 " steps=%zu", rec->id,
	              wf->n_steps);
	int64_t replay = 0;
	kn_replay_status status = KN_REPLAY_ERROR;
	char why[600] = "";
	kn_taskset *copy = NULL; /* the task the validation replays: the version's, with the new steps */
	if ((rc = kn_store_task_load(st, rec->task_version, &copy, &err)) == 0)
		rc = validate(w, o, rec, &copy->tasks[0], &wfset->tasks[0], ws, &replay, &status, why, sizeof why, &err);
	kn_taskset_free(copy);
	if (rc) {
		snprintf(detail, cap, "the validation replay could not run: %s", err.msg);
		goto out;
	}
	kn_store_recording_set(st, rec->id, "validating", 0, NULL, 0, replay, kn_replay_status_name(status), &err);
	if (status != KN_REPLAY_PASSED) {
		snprintf(detail, cap, "not stored: the validation replay was %s", why);
		goto out;
	}
	/* loaded again: kn_workflow_apply took the steps of the first load */
	kn_taskset_free(wfset), wfset = NULL;
	kn_store_change_out co;
	if ((rc = kn_workflow_load_buffer(&wfset, text, text_len, "recorded workflow", &err)) == 0)
		rc = kn_api_workflow_change_verified(st, rec->task_ref, &wfset->tasks[0], text, text_len, rec->author,
		                                     rec->reason, replay, &co, &err);
	if (rc || !co.created) {
		snprintf(detail, cap, "not stored: %s", rc ? err.msg : "the same workflow as the latest version");
		goto out;
	}
	*state = "stored";
	snprintf(detail, cap, "workflow version %d, verified by replay %" PRId64, co.workflow_version, replay);
	kn_store_recording_set(st, rec->id, "validating", 0, NULL, co.workflow_version, 0, NULL, &err);
out:
	json_decref(kn_live_hub_close(src, *state));
	kn_record_free(r);
	if (c && link.open && !link.closed && ctx) {
		json_t *d = NULL;
		kn_err e = {0};
		kn_cdp_call(c, NULL, "Target.disposeBrowserContext", json_pack("{s:s}", "browserContextId", ctx), &d, &e);
		json_decref(d);
	}
	if (c && !link.closed)
		kn_cdp_close(c);
	kn_taskset_free(set);
	kn_taskset_free(wfset);
	free(text), free(ws), free(ctx), free(target);
}

int kn_worker_record_job(kn_worker *w, void *ud, kn_err *err)
{
	kn_worker_recorder *o = ud;
	kn_store_recording rec;
	int rc = kn_store_recording_claim(kn_worker_store(w), kn_worker_id(w), &rec, err);
	if (rc == 0)
		return o->next ? o->next(w, o->next_ud, err) : 0;
	if (rc < 0)
		return rc;
	kn_worker_log(w, "info", "recording claimed", "recording=%" PRId64 " task=\"%s\" author=\"%s\"", rec.id,
	              rec.task_ref, rec.author ? rec.author : "");
	const char *state = "failed";
	char detail[800] = "", q[900];
	record(w, o, &rec, &state, detail, sizeof detail);
	kn_err e = {0};
	if (kn_store_recording_set(kn_worker_store(w), rec.id, state, 0, detail, 0, 0, NULL, &e) != 0)
		kn_worker_log(w, "warn", "recording's end not stored", "recording=%" PRId64 " error=\"%s\"", rec.id, e.msg);
	kn_log_quote(q, sizeof q, detail);
	kn_worker_log(w, strcmp(state, "stored") == 0 ? "info" : "warn", strcmp(state, "stored") == 0 ? "recording stored"
	              : strcmp(state, "cancelled") == 0 ? "recording cancelled" : "recording failed",
	              "recording=%" PRId64 " task=\"%s\" reason=\"%s\"", rec.id, rec.task_ref, q);
	kn_store_recording_clear(&rec);
	return 1;
}
