/* runs_judge.c — the LLM judge off the runs thread: judgements on worker threads of their own
 * (services/llm/judge_queue.h), verdicts back into the runs' evaluations as they come.
 *
 * Every run's evaluator defers its semantic judgements (kn_eval_opts.defer = kn_run_defer): the
 * judgement is queued with the run as its tag (holding a reference), so neither the HTTP thread
 * that evaluates an external run's events nor the loop thread where monitors live ever waits for
 * the model. A worker's verdict wakes the loop thread (kn_cdp_loop_post), which takes every verdict
 * that came and gives each to its run's evaluator — under the registry's mutex for an external run,
 * through kn_monitor_verdict for a watched one — and publishes a "score" message on the stream
 * with the run's new score. A run that ends while verdicts are awaited waits for them, at most the
 * verdict wait (kn_runs_opts.verdict_wait_ms); what has not come then is recorded as missing
 * (kn_eval_verdicts_abandon) and the run ends. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "keynode/clock.h"
#include "log.h"
#include "runs_internal.h"

static void llm_cancel(void *ud)
{
	kn_llm_cancel(ud);
}

int kn_runs_verdict_wait_ms(const kn_runs *r)
{
	return r->o.verdict_wait_ms > 0 ? r->o.verdict_wait_ms : KN_RUNS_VERDICT_WAIT_MS;
}

int kn_run_defer(void *ud, const char *rule, const char *phrase, const char *input)
{
	struct run *run = ud;
	kn_runs *r = run->owner;
	run->refs++; /* held by the judgement until its verdict is taken */
	int rc = kn_judge_queue_submit(r->judges, rule, phrase, input, run);
	if (rc)
		run->refs--; /* the evaluator's caller holds another: never the last */
	return rc;
}

/* The stream's "score" message: the run's score after a verdict. */
static void publish_score(struct run *run, const kn_eval *ev, const kn_judge_done *d, int rises)
{
	json_t *steps = json_array();
	size_t n;
	const double *ss = kn_eval_step_scores(ev, &n);
	for (size_t i = 0; steps && i < n; i++)
		json_array_append_new(steps, json_real(ss[i]));
	json_t *v = d->rc ? json_pack("{s:s, s:s}", "input", d->input, "error", d->detail)
	                  : json_pack("{s:s, s:f}", "input", d->input, "score", d->score);
	kn_runs_publish(run->owner, run->id,
	                json_pack("{s:s, s:s, s:i, s:f, s:o, s:o, s:i, s:I, s:o}", "type", "score",
	                          "run", run->id, "steps", kn_eval_steps(ev), "score",
	                          kn_eval_score(ev), "reached", kn_run_reached(ev, run->task),
	                          "step_scores", steps ? steps : json_array(), "rises", rises,
	                          "pending", (json_int_t)kn_eval_pending(ev), "verdict",
	                          v ? v : json_null()));
}

/* One verdict for an external run (loop thread). */
static void verdict_external(struct run *run, const kn_judge_done *d)
{
	kn_runs *r = run->owner;
	const char *end = NULL;
	pthread_mutex_lock(&r->mu);
	if (run->finish_started) { /* too late: the result is being written or was */
		pthread_mutex_unlock(&r->mu);
		return;
	}
	int rises = kn_eval_verdict_detail(run->ev, d->rule, d->input, d->rc, d->score, d->detail);
	publish_score(run, run->ev, d, rises);
	if (run->end_reason && kn_eval_pending(run->ev) == 0) {
		end = run->end_reason; /* the end was waiting for this */
		run->end_reason = NULL;
	} else if (!run->finishing && run->until.finished && kn_eval_completed(run->ev)) {
		run->finishing = 1;
		end = "finished";
	}
	run->finish_started |= end != NULL;
	pthread_mutex_unlock(&r->mu);
	if (end)
		kn_run_finish(run, run->ev, end);
}

/* On the loop thread: every verdict that came goes to its run. */
static void take_verdicts(void *ud)
{
	kn_runs *r = ud;
	kn_judge_done *list = kn_judge_queue_take(r->judges);
	for (kn_judge_done *d = list; d; d = d->next) {
		struct run *run = d->tag;
		if (d->rc)
			kn_log_msg("warn", "runs", d->detail, "run=%s", run->id);
		if (run->ev) {
			verdict_external(run, d);
		} else if (run->mon && !kn_monitor_ended(run->mon)) {
			int rises = kn_monitor_verdict(run->mon, d->rule, d->input, d->rc, d->score, d->detail);
			if (run->mon && !run->ended)
				publish_score(run, kn_monitor_eval(run->mon), d, rises);
		}
		kn_run_unref(run);
	}
	kn_judge_done_free(list);
}

/* On a worker thread: a verdict came; the loop thread takes it. */
static void judge_notify(void *ud)
{
	kn_runs *r = ud;
	kn_cdp_loop_post(r->loop, take_verdicts, r);
}

int kn_runs_judge_new(kn_runs *r, kn_err *err)
{
	if (!r->o.llm)
		return 0;
	kn_judge_queue_opts qo = {0};
	qo.judge = kn_llm_semantic(r->o.llm);
	qo.threads = r->o.judge_threads;
	qo.notify = judge_notify;
	qo.notify_ud = r;
	qo.cancel = llm_cancel;
	qo.cancel_ud = r->o.llm;
	return kn_judge_queue_new(&r->judges, &qo, err);
}

void kn_runs_judge_free(kn_runs *r)
{
	if (!r->judges)
		return;
	kn_judge_queue_close(r->judges);
	kn_judge_done *list = kn_judge_queue_take(r->judges);
	for (kn_judge_done *d = list; d; d = d->next)
		kn_run_unref(d->tag);
	kn_judge_done_free(list);
	kn_judge_queue_free(r->judges);
	r->judges = NULL;
}

void kn_run_end(struct run *run, const char *reason)
{
	kn_runs *r = run->owner;
	pthread_mutex_lock(&r->mu);
	int wait = run->ev && kn_eval_pending(run->ev) > 0;
	if (wait) {
		run->end_reason = reason;
		run->awaiting = kn_eval_pending(run->ev);
		run->end_deadline_ms = kn_time_mono_ms() + kn_runs_verdict_wait_ms(r);
		pthread_cond_broadcast(&r->cv); /* a waiting stop answers "finishing" */
	}
	run->finish_started = !wait;
	pthread_mutex_unlock(&r->mu);
	if (!wait)
		kn_run_finish(run, run->ev, reason);
}

void kn_runs_judge_tick(kn_runs *r)
{
	for (;;) {
		struct run *due = NULL;
		const char *reason = NULL;
		pthread_mutex_lock(&r->mu);
		for (struct run *run = r->live; run; run = run->next)
			if (run->ev && run->end_reason && !run->ended && kn_time_mono_ms() >= run->end_deadline_ms) {
				reason = run->end_reason;
				run->end_reason = NULL;
				run->finish_started = 1;
				kn_eval_verdicts_abandon(run->ev);
				run->refs++;
				due = run;
				break;
			}
		pthread_mutex_unlock(&r->mu);
		if (!due)
			return;
		kn_log_msg("warn", "runs", "verdicts did not come within the verdict wait: recorded as missing",
		           "run=%s", due->id);
		kn_run_finish(due, due->ev, reason);
		kn_run_unref(due);
	}
}

void kn_run_on_verdict_wait(void *ud, kn_monitor *m, size_t pending)
{
	(void)m;
	struct run *run = ud;
	kn_runs *r = run->owner;
	pthread_mutex_lock(&r->mu);
	run->awaiting = pending;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
}

char *kn_run_finishing_json(const struct run *run)
{
	json_t *j = json_pack("{s:s, s:s, s:I}", "id", run->id, "status", "finishing",
	                      "verdicts_pending", (json_int_t)run->awaiting);
	char *t = j ? json_dumps(j, JSON_COMPACT) : NULL;
	json_decref(j);
	return t;
}

void kn_runs_judge_wait_ends(kn_runs *r)
{
	if (!r->judges)
		return;
	/* each end is bounded by its own wait */
	double end = kn_time_mono_s() + 16 + kn_runs_verdict_wait_ms(r) / 1000;
	for (;;) {
		kn_runs_judge_tick(r);
		pthread_mutex_lock(&r->mu);
		int left = r->live != NULL;
		if (left) {
			struct timespec step;
			kn_time_deadline(&step, CLOCK_REALTIME, 100);
			pthread_cond_timedwait(&r->cv, &r->mu, &step);
		}
		pthread_mutex_unlock(&r->mu);
		if (!left || kn_time_mono_s() > end)
			return;
	}
}
