/* runs_internal.h — what runs.c, recover.c and run_json.c share inside services/runs. */
#ifndef KEYNODE_RUNS_INTERNAL_H
#define KEYNODE_RUNS_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include <jansson.h>

#include "judge_queue.h"
#include "keynode/until.h"
#include "monitor.h"
#include "runs.h"

struct run {
	struct run *next;
	kn_runs *owner;
	atomic_int refs;   /* the list, a waiting stop, a queued post, a judgement in flight */
	char id[KN_RUN_ID_MAX];
	char *task_ref, *ws;
	kn_taskset *set;
	const kn_task *task;
	int64_t version;
	/* until */
	kn_until until;
	int step_limit;    /* kn_eval_opts.step_limit of this run (0 upstream, <0 none) */
	/* watched */
	kn_monitor *mon;
	kn_trace *trace;   /* its run trace (services/trace), NULL: none */
	struct kn_live_src *live; /* its page in the live view (services/live), NULL: none; loop thread */
	/* external */
	kn_eval *ev;
	double started_mono, last_event; /* kn_time_mono_s */
	int64_t seq;
	int finishing, ended;
	int attached;      /* the monitor is ready (monitor.h on_ready) */
	char *result;
	kn_llm_stats llm0; /* the judge's counters when the run started */
	/* external: the run ended while verdicts were awaited (runs_judge.c) */
	const char *end_reason;
	double end_deadline_ms; /* kn_time_mono_ms: when the awaited verdicts are given up */
	int finish_started; /* the result is being written: verdicts come too late */
	size_t awaiting;    /* the end waits for this many verdicts (stop answers "finishing") */
};

struct kn_runs {
	kn_runs_opts o;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct run *live, *grave; /* grave: ended runs whose monitor is still to be freed */
	long n_live;
	kn_cdp_loop *loop;
	pthread_t thread;
	int thread_started;
	kn_judge_queue *judges; /* the LLM judge's worker threads (runs_judge.c); NULL: offline */
};

/* runs.c */
void kn_run_unref(struct run *run);
void kn_runs_publish(kn_runs *r, const char *run_id, json_t *msg);
json_t *kn_run_reached(const kn_eval *ev, const kn_task *task);
int kn_run_claim_finish(struct run *run);
/* The run ended: result written (durable), streamed, alerted; it leaves the list. Once. */
void kn_run_finish(struct run *run, const kn_eval *ev, const char *reason);

/* runs_judge.c: the LLM judge off the runs thread */
/* Start the judge's workers when r->o.llm is set. */
int kn_runs_judge_new(kn_runs *r, kn_err *err);
/* Stop the workers (judgements in flight cancelled) and release what they held. Call after every
 * run ended and after the loop thread was joined. */
void kn_runs_judge_free(kn_runs *r);
/* kn_eval_opts.defer of a run's evaluator (ud: the struct run). */
int kn_run_defer(void *ud, const char *rule, const char *phrase, const char *input);
/* End an external run (run->finishing already set): at once, or once its awaited verdicts came
 * or its verdict wait passed (kn_runs_judge_tick). */
void kn_run_end(struct run *run, const char *reason);
/* External runs whose verdict wait passed: their verdicts are recorded missing and they end. */
void kn_runs_judge_tick(kn_runs *r);
/* kn_monitor_opts.on_verdict_wait of a watched run. */
void kn_run_on_verdict_wait(void *ud, kn_monitor *m, size_t pending);
/* {"id","status":"finishing","verdicts_pending":N} for a stop whose end waits (lock held). */
char *kn_run_finishing_json(const struct run *run);
/* At shutdown, after every run was stopped: wait until the runs whose end waits for verdicts
 * ended (each within its verdict wait). */
void kn_runs_judge_wait_ends(kn_runs *r);
/* The verdict wait of r's runs in ms. */
int kn_runs_verdict_wait_ms(const kn_runs *r);

/* The trajectory line (§2) of an event without its newline; the caller's, NULL on failure. */
char *kn_runs_event_line(const kn_event *ev);
/* Add {"llm": {...}} to result (a run result tree): the judge's counters since s0. 0, -1 when
 * out of memory. */
int kn_runs_add_llm_usage(json_t *result, kn_llm *llm, const kn_llm_stats *s0);

#endif
