/* run_batch.h — the batch of `keynode run`: K attempts of every selected task planned (with
 * --resume, the attempts that already have a result kept), run N at once on N threads
 * (kn_attempt_run, each with its own browser) with retries of infrastructure errors and progress on
 * stderr, the summary written, and the exit code decided. The CLI (services/cli/cmd_run.c) parses
 * options, fills a kn_run_batch and calls these in order: kn_run_dir_prepare, kn_run_plan,
 * kn_run_batch_go, kn_run_batch_summary, kn_run_batch_exit, kn_run_batch_clear. */
#ifndef KEYNODE_RUN_BATCH_H
#define KEYNODE_RUN_BATCH_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <time.h>

#include <jansson.h>

#include "blocked.h"
#include "keynode/redact.h"
#include "keynode/task.h"
#include "run_rows.h"
#include "runner.h"
#include "summary.h"

/* One planned attempt: attempt k (1..K) of task. */
typedef struct kn_run_item {
	const kn_task *task;
	int k;
	int skip;               /* --resume: already has a result */
	kn_run_row row;         /* its result.json once it has one */
	int has_row;
} kn_run_item;

typedef struct kn_run_batch {
	/* set by the caller before kn_run_plan */
	int trace;               /* --trace (kn_trace_mode) */
	const char *environment; /* kn_run_environment as JSON text, for every attempt's result.json */
	const char *dir, *agent, *chromium, *run_base; /* --out, --agent, --chromium, run id prefix */
	const kn_remote *server; /* --server, or NULL */
	const char *taskset;     /* with server: the set's name there */
	const char **browsers;   /* --browser, one attempt at a time each */
	size_t n_browsers;
	int vw, vh, retries, quiet, repeat;
	int ws_received; /* --ws-received */
	double timeout_s;
	kn_eval_opts eval;
	kn_blocked_rules blocked; /* keynode.yaml blocked: */
	const struct kn_guard *guard; /* keynode.yaml guard: and redact: */
	int canary_timeout_ms;   /* keynode.yaml canary.timeout_ms; 0: the default */
	kn_redact redact;
	time_t t0;               /* when the run started (names, summary) */
	/* the plan (kn_run_plan); owned, released by kn_run_batch_clear */
	kn_run_item *items;
	size_t n_items;
	size_t pre_done;         /* items kept from an earlier run */
	/* while kn_run_batch_go runs: the attempts' threads share these */
	atomic_size_t next;
	atomic_int stop;
	atomic_int running, done, successes, errors, unjudged;
	pthread_mutex_t lock;    /* plain progress lines */
	int plain;               /* stderr is no terminal: a line per attempt, no live line */
	kn_browser_pool *pool;   /* --warm: browsers launched ahead of the attempts */
	double t0_mono;
} kn_run_batch;

/* --out dir: must be new or empty, unless resume; created when missing. 0; KN_EINVAL (not empty,
 * a usage error) or KN_EIO (cannot create), why saying so. */
int kn_run_dir_prepare(const char *dir, int resume, char *why, size_t cap);

/* --resume: refuse to add attempts to a folder whose earlier ones ran in another environment
 * (summary.json "environment", and every attempt's own result.json "environment": a folder whose
 * summary was never written, or was deleted, is checked all the same), unless mix; with mix, now
 * gets "mixed_with_earlier", what differed. 0, or KN_EINVAL with why (a usage error). */
int kn_run_environment_check(const char *dir, json_t *now, int mix, char *why, size_t cap);

/* Plan b->repeat attempts of every task of set (of ids when n_ids, a task given twice once) into
 * b->items; with resume mark those whose result.json says done as kept (b->pre_done). 0;
 * KN_ENOMEM; KN_EINVAL with why (a usage error: an id not in tasks_file, or two ids that would
 * share a folder). */
int kn_run_plan(kn_run_batch *b, const kn_taskset *set, const char **ids, size_t n_ids, int resume,
                const char *tasks_file, char *why, size_t cap);

/* Run the plan: at most parallel attempts at once, warm browsers launched ahead (-1: parallel, at
 * most KN_BROWSER_POOL_MAX). Says the plan on stderr, then progress (a line per attempt, or a live
 * line on a terminal) unless quiet. SIGINT/SIGTERM are taken by the calling thread meanwhile: every
 * attempt is told to stop and finished ones are kept. Returns the signal that stopped it, or 0. */
int kn_run_batch_go(kn_run_batch *b, int parallel, int warm);

/* Write summary.json and summary.csv of the finished attempts into b->dir, the table to stdout
 * (unless quiet), completing meta (agent, times, task file, planned tasks); t gets the totals. A
 * failure is said on stderr and left out of the exit code, as before. */
void kn_run_batch_summary(kn_run_batch *b, kn_run_meta *meta, const char *tasks_file, kn_run_totals *t);

/* `keynode run`'s exit: 130/143 interrupted by SIGINT/SIGTERM, 1 an attempt ended in error, was
 * blocked or unjudged, else 0. */
int kn_run_batch_exit(int sig, const kn_run_totals *t);

/* Release the plan. */
void kn_run_batch_clear(kn_run_batch *b);

#endif
