/* runs.c — the live runs registry (runs.h).
 *
 * Threads: the HTTP thread calls kn_runs_*; the registry's own thread runs a kn_cdp_loop where
 * every monitor lives (lws is single-threaded, so starting, answering and stopping a watched run
 * are posted to it with kn_cdp_loop_post). One mutex guards the list and every external run's
 * evaluator; a watched run's evaluator is only touched on the loop thread. A run is reference
 * counted (the list, a waiting kn_runs_stop, a queued post), and leaves the list once its result
 * is written; a watched run's monitor is freed on the loop thread after its on_end returned
 * (kn_monitor's rule), and whatever monitor is left at shutdown is freed before the loop. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "keynode/clock.h"
#include "keynode/randid.h"
#include "keynode/until.h"

#include "canary.h"
#include "monitor.h"
#include "live_hub.h"
#include "log.h"
#include "runs.h"
#include "relay.h"
#include "runs_internal.h"

static int durable_ms(const kn_runs *r)
{
	return r->o.durable_timeout_ms > 0 ? r->o.durable_timeout_ms : KN_RUNS_DURABLE_WAIT_MS;
}

void kn_run_unref(struct run *run)
{
	kn_runs *r = run->owner;
	pthread_mutex_lock(&r->mu);
	int last = --run->refs == 0;
	pthread_mutex_unlock(&r->mu);
	if (!last)
		return;
	kn_eval_free(run->ev);
	kn_taskset_free(run->set);
	free(run->task_ref);
	free(run->ws);
	free(run->result);
	free(run);
}

/* The live run with id, referenced (run_unref when done); NULL when none. */
static struct run *find(kn_runs *r, const char *id)
{
	pthread_mutex_lock(&r->mu);
	struct run *run;
	for (run = r->live; run; run = run->next)
		if (strcmp(run->id, id) == 0 && !run->finishing) {
			run->refs++;
			break;
		}
	pthread_mutex_unlock(&r->mu);
	return run;
}

/* --- JSON pieces ------------------------------------------------------------------------------ */

json_t *kn_run_reached(const kn_eval *ev, const kn_task *task)
{
	json_t *a = json_array();
	for (size_t i = 0; i < task->n_keynodes; i++) {
		const kn_node_state *ns = kn_eval_node(ev, i);
		if (ns && ns->score >= 1.0)
			json_array_append_new(a, json_string(task->keynodes[i].id));
	}
	return a;
}

void kn_runs_publish(kn_runs *r, const char *run_id, json_t *msg)
{
	char *text = msg ? json_dumps(msg, JSON_COMPACT) : NULL;
	if (text) {
		kn_stream_publish(r->o.stream, run_id, text);
		kn_runs_relay_send(r->o.relay, run_id, text); /* the other serves' subscribers */
	}
	free(text);
	json_decref(msg);
}

/* --- the life of a run ---------------------------------------------------------------------- */

/* One evaluated event: number it, store it, stream it, count it. -1 when it could not be handed
 * to the ingest (logged). */
static int record_event(struct run *run, const kn_eval *ev, const kn_event *e, int rises)
{
	kn_runs *r = run->owner;
	kn_err err = {0};
	char *line = kn_runs_event_line(e);
	int64_t seq = ++run->seq, lost = 0;
	run->last_event = kn_time_mono_s();
	if (!line || kn_ingest_event(r->o.ingest, run->id, seq, line, &err) != 0) {
		kn_log_msg("error", "runs", err.msg[0] ? err.msg : "event not stored", "run=%s", run->id);
		lost = 1;
	}
	json_t *evj = line ? json_loads(line, 0, NULL) : NULL;
	kn_runs_publish(r, run->id,
	        json_pack("{s:s, s:s, s:I, s:o, s:i, s:f, s:o}", "type", "event", "run", run->id, "seq",
	                  (json_int_t)seq, "event", evj ? evj : json_null(), "steps",
	                  kn_eval_steps(ev), "score", kn_eval_score(ev), "reached",
	                  kn_run_reached(ev, run->task)));
	free(line);
	kn_metrics_event(r->o.metrics, rises > 0 ? rises : 0);
	return lost ? -1 : 0;
}

/* The run ended: result to the store, the stream, the alerts and the metrics; leave the list.
 * Call once (run->finishing was set by the caller under the lock). */
void kn_run_finish(struct run *run, const kn_eval *ev, const char *reason)
{
	kn_runs *r = run->owner;
	kn_err err = {0};
	char ended[32];
	kn_runs_now(ended, sizeof ended);
	json_t *resj = kn_eval_result_json(ev, run->id);
	int llm = resj && r->o.llm && kn_runs_add_llm_usage(resj, r->o.llm, &run->llm0) == 0;
	char *result = resj ? kn_runs_result_text(resj, llm) : NULL;
	uint64_t mark0 = kn_ingest_mark(r->o.ingest);
	if (!result || kn_ingest_run_finish(r->o.ingest, run->id, ended, result, &err) != 0)
		kn_log_msg("error", "runs", err.msg[0] ? err.msg : "run result not stored", "run=%s", run->id);
	/* the run counts as ended (stop answers, GET shows it) once its result is durable */
	else if (kn_ingest_wait(r->o.ingest, mark0, kn_ingest_mark(r->o.ingest), durable_ms(r),
	                        &err) != 0)
		kn_log_msg("warn", "runs", err.msg, "run=%s", run->id);
	kn_runs_publish(r, run->id,
	        json_pack("{s:s, s:s, s:s, s:o}", "type", "end", "run", run->id, "reason", reason,
	                  "result", resj ? resj : json_null()));
	if (r->o.alerts && result &&
	    kn_alerts_run_finished(r->o.alerts, run->task_ref, run->id, result, &err) != 0)
		kn_log_msg("warn", "runs", err.msg, "run=%s", run->id);
	kn_metrics_run_ended(r->o.metrics, kn_status_name(kn_eval_status(ev)));
	char msg[160];
	snprintf(msg, sizeof msg, "run ended reason=\"%s\" score=%.3f steps=%d", reason,
	         kn_eval_score(ev), kn_eval_steps(ev));
	kn_log_msg("info", "runs", msg, "run=%s", run->id);

	pthread_mutex_lock(&r->mu);
	run->result = result;
	run->ended = 1;
	for (struct run **p = &r->live; *p; p = &(*p)->next)
		if (*p == run) {
			*p = run->next;
			break;
		}
	r->n_live--;
	if (run->mon) { /* freed on the loop thread later (kn_monitor: not inside on_end) */
		run->next = r->grave;
		r->grave = run;
	} else {
		run->refs--; /* the list's reference; the caller still holds one */
	}
	long n = r->n_live;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
	kn_metrics_set_runs_active(r->o.metrics, n);
}

/* Claim the right to finish (once). */
int kn_run_claim_finish(struct run *run)
{
	kn_runs *r = run->owner;
	pthread_mutex_lock(&r->mu);
	int mine = !run->finishing;
	run->finishing = 1;
	pthread_mutex_unlock(&r->mu);
	return mine;
}

/* --- watched runs (loop thread) ------------------------------------------------------------- */

static void mon_on_event(void *ud, kn_monitor *m, const kn_event *ev, int rises)
{
	struct run *run = ud;
	kn_runs *r = run->owner;
	long cap = r->o.max_events > 0 ? r->o.max_events : KN_RUNS_MAX_EVENTS;
	if (run->seq >= cap) { /* the run is full: say so once, keep scoring, store no more */
		if (run->seq++ == cap)
			kn_log_msg("warn", "runs", "event cap reached (http.max_run_events): later events are scored "
			           "but not stored", "run=%s", run->id);
		return;
	}
	record_event(run, kn_monitor_eval(m), ev, rises);
}

static void free_graves(void *ud)
{
	kn_runs *r = ud;
	pthread_mutex_lock(&r->mu);
	struct run *g = r->grave;
	r->grave = NULL;
	pthread_mutex_unlock(&r->mu);
	while (g) {
		struct run *next = g->next;
		kn_monitor_free(g->mon);
		g->mon = NULL;
		kn_trace_free(g->trace), g->trace = NULL; /* after the monitor: its captures have failed */
		kn_run_unref(g); /* the list's reference, kept while the monitor lived */
		g = next;
	}
}

static void mon_on_ready(void *ud, kn_monitor *m)
{
	(void)m;
	struct run *run = ud;
	kn_runs *r = run->owner;
	pthread_mutex_lock(&r->mu);
	run->attached = 1;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
}

static void mon_on_end(void *ud, kn_monitor *m, const char *reason)
{
	struct run *run = ud;
	if (!kn_run_claim_finish(run))
		return;
	kn_trace_finish(run->trace, kn_monitor_eval(m), reason, NULL, !kn_eval_completed(kn_monitor_eval(m)),
	                NULL, NULL);
	kn_run_finish(run, kn_monitor_eval(m), reason);
	json_decref(kn_live_hub_close(run->live, "run ended"));
	run->live = NULL;
	kn_cdp_loop_post(run->owner->loop, free_graves, run->owner);
}

static void post_start(void *ud)
{
	struct run *run = ud;
	kn_runs *r = run->owner;
	kn_monitor_opts mo = {0};
	mo.task = run->task;
	mo.eval = r->o.eval;
	mo.eval.step_limit = run->step_limit;
	mo.run_id = run->id;
	mo.until_finished = run->until.finished;
	mo.until_idle_s = run->until.idle_s;
	mo.until_steps = run->until.steps;
	mo.cdp_timeout_ms = r->o.cdp_timeout_ms;
	mo.guard = r->o.guard;
	mo.canary_timeout_ms = r->o.canary_timeout_ms;
	mo.redact = r->o.redact;
	mo.on_event = mon_on_event;
	mo.on_ready = mon_on_ready;
	mo.on_end = mon_on_end;
	mo.on_verdict_wait = kn_run_on_verdict_wait;
	mo.ud = run;
	if (r->judges) {
		mo.eval.defer = kn_run_defer;
		mo.eval.defer_ud = run;
		mo.verdict_wait_ms = kn_runs_verdict_wait_ms(r);
	}
	kn_err err = {0};
	mo.trace = run->trace = kn_trace_open_in(r->o.trace_root, run->id, (kn_trace_mode)r->o.trace_mode,
	                                         run->task, r->o.trace_max_bytes, &err);
	/* the live view: nothing happens until someone watches (services/live/README.md) */
	run->live = kn_live_hub_open(r->o.live, r->loop, run->ws, NULL, run->id, run->task, 0);
	if (kn_monitor_start(&run->mon, r->loop, run->ws, &mo, &err) != 0) {
		json_decref(kn_live_hub_close(run->live, "not watched"));
		run->live = NULL;
		kn_log_msg("error", "runs", err.msg, "run=%s", run->id);
		run->mon = NULL;
		kn_trace_free(run->trace), run->trace = NULL;
		if (kn_run_claim_finish(run)) {
			/* nothing was watched: an evaluator with no events gives the empty result */
			kn_eval *ev = NULL;
			if (kn_eval_new(&ev, run->task, &r->o.eval) == 0) {
				kn_eval_set_error(ev);
				kn_run_finish(run, ev, "browser disconnected");
			}
			kn_eval_free(ev);
		}
	}
	kn_run_unref(run);
}

struct post_text {
	struct run *run;
	char *text;
};

static void post_answer(void *ud)
{
	struct post_text *p = ud;
	if (p->run->mon && !kn_monitor_ended(p->run->mon))
		kn_monitor_answer(p->run->mon, p->text);
	kn_run_unref(p->run);
	free(p->text);
	free(p);
}

static void post_stop(void *ud)
{
	struct run *run = ud;
	if (run->mon && !kn_monitor_ended(run->mon))
		kn_monitor_stop(run->mon, KN_END_STOPPED);
	kn_run_unref(run);
}

static void *loop_main(void *ud)
{
	kn_runs *r = ud;
	kn_cdp_loop_run(r->loop);
	return NULL;
}

/* --- public --------------------------------------------------------------------------------- */

const kn_eval_opts *kn_runs_eval(const kn_runs *r)
{
	return &r->o.eval;
}

int kn_runs_new(kn_runs **out, const kn_runs_opts *opts, kn_err *err)
{
	if (!out || !opts || !opts->ingest || !opts->stream || !opts->metrics)
		return kn_err_set(err, KN_EINVAL, "bad runs options");
	kn_runs *r = calloc(1, sizeof *r);
	if (!r)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	r->o = *opts;
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->cv, NULL);
	int rc = kn_cdp_loop_new(&r->loop, err);
	if (rc) {
		kn_runs_free(r);
		return rc;
	}
	if ((rc = kn_runs_judge_new(r, err)) != 0) {
		kn_runs_free(r);
		return rc;
	}
	if (pthread_create(&r->thread, NULL, loop_main, r) != 0) {
		kn_runs_free(r);
		return kn_err_set(err, KN_EIO, "cannot start the runs thread");
	}
	r->thread_started = 1;
	*out = r;
	return 0;
}

int kn_runs_start(kn_runs *r, const char *task_ref, const char *task_id, int64_t version,
                  kn_taskset *set, const char *browser, const char *until, int step_limit,
                  char *id, int *attached, kn_err *err)
{
	kn_eval_opts eo = r->o.eval; /* an external run's evaluator: the run's own step budget */
	eo.step_limit = step_limit;
	if (attached)
		*attached = 0;
	struct run *run = calloc(1, sizeof *run);
	if (!run) {
		kn_taskset_free(set);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	run->owner = r;
	run->refs = 1;
	if (r->judges) { /* judgements on the judge's threads; verdicts come back (runs_judge.c) */
		eo.defer = kn_run_defer;
		eo.defer_ud = run;
	}
	run->set = set;
	run->version = version;
	run->step_limit = step_limit;
	run->task = kn_taskset_find(set, task_id);
	if (!run->task && set && set->n_tasks == 1)
		run->task = &set->tasks[0];
	int rc = 0;
	if (!run->task)
		rc = kn_err_set(err, KN_ENOTFOUND, "task '%s' not found", task_id);
	else if (kn_until_parse(&run->until, until))
		rc = kn_err_set(err, KN_EINVAL, "\"until\" must be finished, idle:SECONDS or steps:N");
	else if (!(run->task_ref = strdup(task_ref)) || (browser && !(run->ws = strdup(browser))))
		rc = kn_err_set(err, KN_ENOMEM, "out of memory");
	else if (!browser && kn_eval_new(&run->ev, run->task, &eo) != 0)
		rc = kn_err_set(err, KN_ENOMEM, "out of memory");
	if (rc) {
		kn_run_unref(run);
		return rc;
	}
	kn_random_id(run->id, KN_RUN_ID_MAX, "r-", 8);
	if (r->o.llm)
		kn_llm_stats_get(r->o.llm, &run->llm0);
	run->started_mono = kn_time_mono_s();
	run->last_event = run->started_mono;
	char started[32];
	kn_runs_now(started, sizeof started);
	kn_store_run sr = {run->id, version, "agent", browser, started, r->o.owner, 0};
	pthread_mutex_lock(&r->mu);
	if (r->n_live >= KN_RUNS_MAX_ACTIVE) {
		pthread_mutex_unlock(&r->mu);
		kn_run_unref(run);
		return kn_err_set(err, KN_ELIMIT, "more than %d live runs", KN_RUNS_MAX_ACTIVE);
	}
	run->next = r->live;
	r->live = run;
	long n = ++r->n_live;
	pthread_mutex_unlock(&r->mu);
	kn_metrics_set_runs_active(r->o.metrics, n);
	uint64_t mark0 = kn_ingest_mark(r->o.ingest);
	if ((rc = kn_ingest_run_start(r->o.ingest, &sr, err)) != 0 ||
	    (rc = kn_ingest_wait(r->o.ingest, mark0, kn_ingest_mark(r->o.ingest), durable_ms(r),
	                         err)) != 0)
		kn_log_msg("error", "runs", err->msg, "run=%s", run->id);
	json_t *kns = json_array();
	for (size_t i = 0; i < run->task->n_keynodes; i++) {
		const kn_keynode *k = &run->task->keynodes[i];
		json_array_append_new(kns, json_pack("{s:s, s:s?, s:s?}", "id", k->id, "function",
		                                     k->function, "expect", k->expect));
	}
	kn_runs_publish(r, run->id,
	        json_pack("{s:s, s:s, s:s, s:s, s:i, s:o}", "type", "run", "run", run->id, "task",
	                  task_ref, "status", "running", "total", (int)run->task->n_keynodes,
	                  "key_nodes", kns));
	snprintf(id, KN_RUN_ID_MAX, "%s", run->id);
	kn_log_msg("info", "runs", browser ? "run started (watched)" : "run started (external)", "run=%s", run->id);
	if (browser) {
		pthread_mutex_lock(&r->mu);
		run->refs += 2; /* one for post_start, one for the wait below */
		pthread_mutex_unlock(&r->mu);
		if (kn_cdp_loop_post(r->loop, post_start, run) != 0)
			kn_run_unref(run);
		/* answer once keynode is watching, so an agent acting right after is seen */
		struct timespec dl;
		kn_time_deadline(&dl, CLOCK_REALTIME, KN_RUNS_ATTACH_WAIT_MS + (r->o.canary_timeout_ms > 0 ?
		                                      r->o.canary_timeout_ms : KN_CANARY_TIMEOUT_MS));
		pthread_mutex_lock(&r->mu);
		while (!run->attached && !run->ended)
			if (pthread_cond_timedwait(&r->cv, &r->mu, &dl) != 0)
				break;
		if (attached)
			*attached = run->attached;
		pthread_mutex_unlock(&r->mu);
		kn_run_unref(run);
	}
	return 0;
}

/* Feed events to an external run (lock not held); ends it when its until says so. With hold
 * (may be NULL) the caller waits for durability itself: hold[0..1] get the ticket range. */
static int feed_external(struct run *run, kn_event *evs, size_t n, char **out, uint64_t *hold,
                         kn_err *err)
{
	kn_runs *r = run->owner;
	const char *end_reason = NULL;
	long cap = r->o.max_events > 0 ? r->o.max_events : KN_RUNS_MAX_EVENTS;
	pthread_mutex_lock(&r->mu);
	if (run->finishing) {
		pthread_mutex_unlock(&r->mu);
		return kn_err_set(err, KN_ENOTFOUND, "the run already ended");
	}
	if (run->seq + (int64_t)n > cap) {
		int64_t held = run->seq;
		pthread_mutex_unlock(&r->mu);
		return kn_err_set(err, KN_ELIMIT, "the run holds %lld events and may hold at most %ld "
		                  "(http.max_run_events): %zu more refused", (long long)held, cap, n);
	}
	uint64_t mark0 = kn_ingest_mark(r->o.ingest);
	int lost = 0;
	for (size_t i = 0; i < n; i++) {
		kn_err fe = {0};
		int rises = kn_eval_feed(run->ev, &evs[i], &fe);
		if (rises < 0)
			kn_log_msg("warn", "runs", fe.msg, "run=%s", run->id);
		if (record_event(run, run->ev, &evs[i], rises) != 0)
			lost = 1;
	}
	if (run->until.finished && kn_eval_completed(run->ev))
		end_reason = "finished";
	else if (run->until.steps && kn_eval_steps(run->ev) >= run->until.steps)
		end_reason = "steps";
	else if (kn_eval_status(run->ev) == KN_STATUS_STEP_LIMIT)
		end_reason = "step limit"; /* the budget is spent: as a watched run (monitor.c) */
	if (out) {
		json_t *j = json_pack("{s:s, s:I, s:i, s:f, s:o, s:s}", "id", run->id, "accepted",
		                      (json_int_t)n, "steps", kn_eval_steps(run->ev), "score",
		                      kn_eval_score(run->ev), "reached", kn_run_reached(run->ev, run->task),
		                      "status", end_reason ? "ended" : "running");
		*out = j ? json_dumps(j, JSON_COMPACT) : NULL;
		json_decref(j);
	}
	if (end_reason)
		run->finishing = 1;
	uint64_t mark1 = kn_ingest_mark(r->o.ingest);
	pthread_mutex_unlock(&r->mu);
	/* "accepted" means durable: committed, or in the spool and fdatasync'ed */
	int rc = 0;
	if (hold) {
		hold[0] = mark0;
		hold[1] = mark1;
	} else {
		rc = kn_ingest_wait(r->o.ingest, mark0, mark1, durable_ms(r), err);
	}
	if (!rc && lost)
		rc = kn_err_set(err, KN_EIO, "events could not be stored or spooled (see the log)");
	if (end_reason)
		kn_run_end(run, end_reason);
	if (rc && out) {
		free(*out);
		*out = NULL;
	}
	return rc ? (rc == KN_ETIMEOUT ? rc : KN_EIO) : 0;
}

int kn_runs_events(kn_runs *r, const char *id, const char *body, size_t len, char **out,
                   int *queued, uint64_t *hold, kn_err *err)
{
	*out = NULL;
	*queued = 0;
	if (hold)
		hold[0] = hold[1] = 0;
	struct run *run = find(r, id);
	if (!run)
		return kn_err_set(err, KN_ENOTFOUND, "no live run '%s'", id);
	int rc;
	if (!run->ev) {
		rc = kn_err_set(err, KN_EUNSUPPORTED, "run '%s' is watched in a browser: events come "
		                                      "from there", id);
	} else {
		kn_event *evs;
		size_t n;
		rc = kn_runs_parse_events(&evs, &n, body, len, err);
		if (!rc) {
			rc = feed_external(run, evs, n, out, hold, err);
			kn_traj_events_free(evs, n);
		}
	}
	kn_run_unref(run);
	return rc;
}

int kn_runs_answer(kn_runs *r, const char *id, const char *text, kn_err *err)
{
	struct run *run = find(r, id);
	if (!run)
		return kn_err_set(err, KN_ENOTFOUND, "no live run '%s'", id);
	int rc = 0;
	if (run->ev) {
		kn_event e = {0};
		e.type = KN_EV_ANSWER;
		e.text = text;
		e.trusted = -1;
		e.t = kn_time_mono_s() - run->started_mono;
		rc = feed_external(run, &e, 1, NULL, NULL, err);
		kn_run_unref(run);
		return rc;
	}
	struct post_text *p = malloc(sizeof *p);
	if (!p || !(p->text = strdup(text))) {
		free(p);
		kn_run_unref(run);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	p->run = run; /* the reference goes with the post */
	if (kn_cdp_loop_post(r->loop, post_answer, p) != 0) {
		free(p->text);
		free(p);
		kn_run_unref(run);
		return kn_err_set(err, KN_EIO, "the runs thread is gone");
	}
	return 0;
}

/* Wait (bounded) until run ended; the result copied to *result. */
static int wait_end(kn_runs *r, struct run *run, char **result, kn_err *err)
{
	struct timespec dl;
	kn_time_deadline(&dl, CLOCK_REALTIME, 15000);
	pthread_mutex_lock(&r->mu);
	while (!run->ended && !run->awaiting) /* an end waiting for verdicts is not waited for */
		if (pthread_cond_timedwait(&r->cv, &r->mu, &dl) != 0)
			break;
	int ended = run->ended;
	char *res = ended && run->result ? strdup(run->result) : NULL;
	if (!ended && run->awaiting)
		res = kn_run_finishing_json(run);
	pthread_mutex_unlock(&r->mu);
	if (!ended && !res)
		return kn_err_set(err, KN_ETIMEOUT, "the run did not end in time");
	if (result)
		*result = res;
	else
		free(res);
	return 0;
}

int kn_runs_stop(kn_runs *r, const char *id, char **result, kn_err *err)
{
	if (result)
		*result = NULL;
	struct run *run = find(r, id);
	if (!run)
		return kn_err_set(err, KN_ENOTFOUND, "no live run '%s'", id);
	if (run->ev) {
		if (kn_run_claim_finish(run))
			kn_run_end(run, "stopped");
	} else {
		pthread_mutex_lock(&r->mu);
		run->refs++;
		pthread_mutex_unlock(&r->mu);
		if (kn_cdp_loop_post(r->loop, post_stop, run) != 0)
			kn_run_unref(run);
	}
	int rc = wait_end(r, run, result, err);
	kn_run_unref(run);
	return rc;
}

size_t kn_runs_live_ids(kn_runs *r, char (*ids)[KN_RUN_ID_MAX], size_t cap)
{
	size_t n = 0;
	pthread_mutex_lock(&r->mu);
	for (struct run *run = r->live; run && n < cap; run = run->next)
		if (!run->finishing)
			memcpy(ids[n++], run->id, KN_RUN_ID_MAX);
	pthread_mutex_unlock(&r->mu);
	return n;
}

void kn_runs_tick(kn_runs *r)
{
	/* external runs with an idle limit */
	for (;;) {
		struct run *due = NULL;
		pthread_mutex_lock(&r->mu);
		for (struct run *run = r->live; run; run = run->next)
			if (run->ev && !run->finishing && run->until.idle_s > 0 &&
			    kn_time_mono_s() - run->last_event >= run->until.idle_s) {
				run->finishing = 1;
				run->refs++;
				due = run;
				break;
			}
		pthread_mutex_unlock(&r->mu);
		if (!due)
			break;
		kn_run_end(due, "idle");
		kn_run_unref(due);
	}
	kn_runs_judge_tick(r);
}

long kn_runs_active(kn_runs *r)
{
	pthread_mutex_lock(&r->mu);
	long n = r->n_live;
	pthread_mutex_unlock(&r->mu);
	return n;
}

void kn_runs_free(kn_runs *r)
{
	if (!r)
		return;
	/* stop every live run; their results are written */
	for (;;) {
		pthread_mutex_lock(&r->mu);
		struct run *run;
		for (run = r->live; run && (run->finishing || run->awaiting); run = run->next)
			; /* an end waiting for verdicts is stopped already */
		char id[KN_RUN_ID_MAX];
		if (run)
			snprintf(id, sizeof id, "%s", run->id);
		pthread_mutex_unlock(&r->mu);
		if (!run)
			break;
		kn_err err;
		if (kn_runs_stop(r, id, NULL, &err) == KN_ETIMEOUT) {
			kn_log_msg("warn", "runs", "run did not stop in time", "run=%s", id);
			break;
		}
	}
	kn_runs_judge_wait_ends(r);
	if (r->loop) {
		kn_cdp_loop_stop(r->loop);
		if (r->thread_started)
			pthread_join(r->thread, NULL);
		kn_runs_judge_free(r); /* the verdicts still to come hold runs */
		free_graves(r);
		kn_cdp_loop_free(r->loop);
	}
	pthread_mutex_lock(&r->mu);
	struct run *run = r->live;
	r->live = NULL;
	pthread_mutex_unlock(&r->mu);
	while (run) { /* runs that did not stop in time: drop them */
		struct run *next = run->next;
		run->refs = 1;
		kn_run_unref(run);
		run = next;
	}
	pthread_cond_destroy(&r->cv);
	pthread_mutex_destroy(&r->mu);
	free(r);
}
