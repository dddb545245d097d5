/* recover.c — crash recovery of `keynode serve` (runs.h kn_runs_recover).
 *
 * Each serve process records itself as the owner of the runs it starts and holds a PostgreSQL
 * session advisory lock named after itself (schemas/sql/020_run_owner.sql). When a process dies
 * (kill -9, a crash, a lost machine) its connection closes and the lock goes with it, so a serve
 * starting later, or the orphan sweep of a running one (sweep.c), can take the lock: that owner's
 * live runs are orphans. Each is scored from the
 * events the store holds (read page by page, so a run of a million events costs no more memory
 * than a page), ended with status error and "reason": "service restarted", written with
 * kn_store_run_finish, announced on the stream as an "end" message and alerted. Runs of a process
 * still alive are never touched: its lock cannot be taken. With the LLM judge the orphans'
 * judgements are asked on worker threads (judge_queue.h), all at once, and waited for at most the
 * verdict wait in all; what has not come then is recorded as missing, so a judge that does not
 * answer delays the start by that bound, not more. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "judge_queue.h"
#include "keynode/clock.h"
#include "log.h"
#include "relay.h"
#include "runs.h"
#include "store_serve.h"

#define RECOVER_REASON "service restarted"
#define RECOVER_PAGE 5000

/* The LLM judge during recovery: a queue, and a condition variable its workers signal. */
struct rjudge {
	kn_judge_queue *q;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct timespec deadline; /* CLOCK_REALTIME: one verdict wait for the whole recovery */
};

static void rj_notify(void *ud)
{
	struct rjudge *j = ud;
	pthread_mutex_lock(&j->mu);
	pthread_cond_broadcast(&j->cv);
	pthread_mutex_unlock(&j->mu);
}

static void rj_cancel(void *ud)
{
	kn_llm_cancel(ud);
}

static int rj_defer(void *ud, const char *rule, const char *phrase, const char *input)
{
	struct rjudge *j = ud;
	return kn_judge_queue_submit(j->q, rule, phrase, input, NULL);
}

/* Give ev the verdicts as they come until none is awaited or the deadline passed (then the rest
 * are recorded as missing). */
static void rj_wait(struct rjudge *j, kn_eval *ev)
{
	for (;;) {
		kn_judge_done *list = kn_judge_queue_take(j->q);
		for (kn_judge_done *d = list; d; d = d->next)
			kn_eval_verdict_detail(ev, d->rule, d->input, d->rc, d->score, d->detail);
		kn_judge_done_free(list);
		if (kn_eval_pending(ev) == 0)
			return;
		pthread_mutex_lock(&j->mu);
		int late = kn_judge_queue_outstanding(j->q) > 0 &&
		           pthread_cond_timedwait(&j->cv, &j->mu, &j->deadline) != 0;
		pthread_mutex_unlock(&j->mu);
		if (late) {
			kn_eval_verdicts_abandon(ev);
			return;
		}
	}
}

/* A store answer's text (freed here) parsed; *list gets its member key (NULL when the text is not
 * JSON or has no such member). The caller releases what is returned. */
static json_t *parse_list(char *text, const char *key, json_t **list)
{
	json_t *j = json_loads(text, 0, NULL);
	free(text);
	*list = json_object_get(j, key);
	return j;
}

/* Feed every stored event of run_id to ev, a page at a time. */
static int feed_stored(kn_store *st, const char *run_id, kn_eval *ev, kn_err *err)
{
	int64_t after = 0;
	for (;;) {
		char *page = NULL;
		int rc = kn_store_events_json(st, run_id, after, RECOVER_PAGE, &page, err);
		if (rc)
			return rc;
		json_t *evs, *e, *j = parse_list(page, "events", &evs);
		size_t i;
		json_array_foreach(evs, i, e) {
			char *line = json_dumps(json_object_get(e, "event"), JSON_COMPACT | JSON_ENCODE_ANY);
			kn_event one = {0};
			kn_err pe = {0};
			if (line && kn_event_parse(&one, line, strlen(line), &pe) == 0)
				kn_eval_feed(ev, &one, &pe);
			kn_event_clear(&one);
			free(line);
		}
		json_t *next = json_object_get(j, "next_after");
		int more = json_is_integer(next);
		after = more ? json_integer_value(next) : after;
		json_decref(j);
		if (!more)
			return 0;
	}
}

/* End one orphan: score, write, announce, alert. */
static int end_orphan(kn_store *st, const kn_runs_opts *o, struct rjudge *rj, const char *id,
                      int64_t version, const char *task, kn_err *err)
{
	kn_taskset *set = NULL;
	int rc = kn_store_task_load(st, version, &set, err);
	const kn_task *t = rc == 0 && set && set->n_tasks ? &set->tasks[0] : NULL;
	kn_eval *ev = NULL;
	kn_eval_opts eo = o->eval;
	if (rj->q) {
		eo.defer = rj_defer;
		eo.defer_ud = rj;
	}
	if (!rc && (!t || kn_eval_new(&ev, t, &eo) != 0))
		rc = kn_err_set(err, KN_ENOMEM, "cannot evaluate task '%s'", task);
	if (!rc)
		rc = feed_stored(st, id, ev, err);
	if (!rc && rj->q)
		rj_wait(rj, ev);
	char *result = NULL;
	json_t *resj = NULL;
	if (!rc) {
		kn_eval_set_error(ev);
		resj = kn_eval_result_json(ev, id);
		if (resj && json_object_set_new(resj, "reason", json_string(RECOVER_REASON)) == 0)
			result = kn_runs_result_text(resj, 1);
		if (!result)
			rc = kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	char ended[32];
	kn_runs_now(ended, sizeof ended);
	if (!rc)
		rc = kn_store_run_finish(st, id, ended, result, err);
	if (!rc) {
		json_t *m = json_pack("{s:s, s:s, s:s, s:O}", "type", "end", "run", id, "reason",
		                      RECOVER_REASON, "result", resj);
		char *text = m ? json_dumps(m, JSON_COMPACT) : NULL;
		if (text) {
			kn_stream_publish(o->stream, id, text);
			kn_runs_relay_send(o->relay, id, text);
		}
		free(text);
		json_decref(m);
		kn_err ae = {0};
		if (o->alerts && kn_alerts_run_interrupted(o->alerts, task, id, RECOVER_REASON, &ae) != 0)
			kn_log_msg("warn", "runs", ae.msg, "run=%s", id);
		kn_metrics_run_ended(o->metrics, "error");
		char msg[200];
		snprintf(msg, sizeof msg, "run ended reason=\"" RECOVER_REASON "\" score=%.3f steps=%d "
		         "(its process is gone)", kn_eval_score(ev), kn_eval_steps(ev));
		kn_log_msg("info", "runs", msg, "run=%s", id);
	}
	free(result);
	json_decref(resj);
	kn_eval_free(ev);
	kn_taskset_free(set);
	return rc;
}

int kn_runs_recover(kn_store *st, const kn_runs_opts *o, const char *owners, size_t *n, kn_err *err)
{
	if (n)
		*n = 0;
	if (!st || !o || !o->owner)
		return kn_err_set(err, KN_EINVAL, "recovery needs a store and this process's owner id");
	char *list = NULL;
	int rc = kn_store_orphans_take(st, o->owner, owners, &list, err);
	if (rc)
		return rc;
	json_t *runs, *r, *j = parse_list(list, "runs", &runs);
	size_t i;
	struct rjudge rj = {0};
	pthread_mutex_init(&rj.mu, NULL);
	pthread_cond_init(&rj.cv, NULL);
	if (o->llm && json_array_size(runs)) {
		kn_judge_queue_opts qo = {.judge = kn_llm_semantic(o->llm), .threads = o->judge_threads,
		                          .notify = rj_notify, .notify_ud = &rj, .cancel = rj_cancel,
		                          .cancel_ud = o->llm};
		kn_err qe = {0};
		if (kn_judge_queue_new(&rj.q, &qo, &qe) != 0)
			kn_log_msg("warn", "runs", qe.msg, NULL); /* then judged synchronously */
		int wait = o->verdict_wait_ms > 0 ? o->verdict_wait_ms : KN_RUNS_VERDICT_WAIT_MS;
		kn_time_deadline(&rj.deadline, CLOCK_REALTIME, wait);
	}
	json_array_foreach(runs, i, r) {
		const char *id = json_string_value(json_object_get(r, "id"));
		const char *task = json_string_value(json_object_get(r, "task"));
		json_int_t v = json_integer_value(json_object_get(r, "task_version"));
		kn_err e = {0};
		if (!id || !task)
			continue;
		if ((rc = end_orphan(st, o, &rj, id, v, task, &e)) != 0) {
			kn_log_msg("error", "runs", e.msg, "run=%s", id);
			if (rc == KN_EIO)
				break;
			rc = 0;
			continue;
		}
		if (n)
			++*n;
	}
	json_decref(j);
	kn_judge_queue_free(rj.q); /* judgements still in flight are cancelled */
	pthread_cond_destroy(&rj.cv);
	pthread_mutex_destroy(&rj.mu);
	kn_err ue = {0};
	if (kn_store_orphans_release(st, o->owner, &ue) != 0 && !rc)
		rc = kn_err_set(err, ue.code, "%s", ue.msg);
	return rc;
}
