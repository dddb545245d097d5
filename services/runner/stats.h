/* stats.h — the uncertainty of `keynode run` results and the paired comparison of two runs.
 *
 * Live-web results are noisy, so every rate of a run gets a 95 % interval, the spread over its
 * --repeat attempts, pass@k / pass^k, and two runs of two agents on the same tasks are compared
 * pair by pair (keynode compare). Everything here is pure arithmetic on kn_run_row attempts; the
 * exact definitions (README.md "Uncertainty") are what tests/differential/run_stats_diff.py checks
 * against an independent implementation:
 *
 * - the unit of resampling is the task: a bootstrap replicate draws as many tasks as the run has,
 *   with replacement, and takes every attempt of each drawn task together;
 * - KN_STATS_RESAMPLES replicates from a splitmix64 generator seeded with KN_STATS_SEED (the same
 *   numbers every time); replicate b draws index i as next() % T, in order b = 0.., i = 0..T-1;
 * - the interval is the percentile one, nearest rank: of the m replicates where the rate is
 *   defined, sorted, the ceil(0.025 m)-th and the ceil(0.975 m)-th value.
 */
#ifndef KEYNODE_RUN_STATS_H
#define KEYNODE_RUN_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "keynode/eval.h"
#include "summary.h"

#define KN_STATS_SEED 20241024u
#define KN_STATS_RESAMPLES 2000

/* The rates that get intervals. Executable-attempt rates are those of kn_summary (WebCanvas
 * formulas over attempts with status done); KN_RATE_TSR_PLANNED is successes over every planned
 * attempt (errors, unreachable, blocked, unjudged and missing attempts count as failures). */
enum {
	KN_RATE_KNCR,        /* key_node_completion_rate */
	KN_RATE_ASSR,        /* average_step_score_rate */
	KN_RATE_TSR,         /* task_success_rate */
	KN_RATE_TNSR,        /* task_near_success_rate */
	KN_RATE_FSR,         /* functional_success_rate (attempts whose task has a functional check) */
	KN_RATE_RSR,         /* reward_success_rate (attempts whose task has a purchase) */
	KN_RATE_TSR_PLANNED, /* task success over planned attempts */
	KN_RATE_N
};
extern const char *const kn_stats_rate_names[KN_RATE_N];

/* One task as the statistics see it. */
typedef struct kn_stats_task {
	const char *id, *site, *sha256;  /* borrowed; site "-" when unknown, sha256 NULL when unknown */
	const kn_run_row **rows;         /* its executable attempts (status done) */
	size_t n, successes;             /* executable attempts, successes among them */
	size_t planned;                  /* K */
	size_t errors, unreachable, blocked; /* finished attempts left out; errors without unreachable */
	size_t unjudged;                 /* finished attempts left out: a judgement failed */
	kn_summary sum;                  /* the WebCanvas sums of its executable attempts */
} kn_stats_task;

typedef struct kn_stats {
	kn_stats_task *tasks;            /* sorted by id (byte order) */
	size_t n_tasks;
	int repeat;
	const kn_run_row **slots;        /* storage of every task's rows */
} kn_stats;

/* Group rows by task: the tasks of plan (n_plan of them; NULL: the tasks the rows name), each
 * planned `repeat` times, sorted by id. Rows of tasks not in the plan are ignored. Borrows rows
 * and plan for the life of *out. KN_ENOMEM. */
int kn_stats_build(kn_stats *out, const kn_run_row *rows, size_t n, const kn_run_task *plan,
                   size_t n_plan, int repeat);
void kn_stats_clear(kn_stats *s);

/* Add one executable attempt to the WebCanvas sums (what kn_summary_add adds, from a row). */
void kn_stats_summary_add(kn_summary *s, const kn_run_row *r);

/* Judged and deterministic over the attempts with status done (judged_stats.c): *out is a
 * finished kn_summary of them (n_judged_nodes, n_judged_success, judged_success_share,
 * deterministic_floor, n_judged_unknown). */
void kn_stats_judged(kn_summary *out, const kn_run_row *rows, size_t n);
/* The same as JSON {judged_key_nodes, judged_successes, judged_success_share, deterministic_floor,
 * judged_unknown when some result does not say}: a new reference, NULL when out of memory. */
json_t *kn_stats_judged_json(const kn_run_row *rows, size_t n);

/* The rates over the tasks pick[0..n_pick) (NULL: every task once; an index may repeat) and,
 * when attempt > 0, only attempt number `attempt` of each (planned: 1 per task). v[r] is the
 * rate, ok[r] 0 when its denominator is 0 (v[r] then 0). */
void kn_stats_rates(double v[KN_RATE_N], int ok[KN_RATE_N], const kn_stats *s, const size_t *pick,
                    size_t n_pick, int attempt);

/* 95 % percentile-bootstrap intervals of every rate (header comment). With b NULL, of a's rates;
 * else of b's rate minus a's, a and b holding the same tasks in the same order (a paired
 * bootstrap: one draw picks a task in both). ok[r] 0 when the rate is never defined. KN_ENOMEM. */
int kn_stats_ci95(double lo[KN_RATE_N], double hi[KN_RATE_N], int ok[KN_RATE_N], const kn_stats *a,
                  const kn_stats *b);

/* pass@k (all = 0: 1 - C(n-c,k)/C(n,k), at least one of k attempts succeeds) or pass^k (all = 1:
 * C(c,k)/C(n,k), all k succeed) — the unbiased estimators from a task's n executable attempts with
 * c successes — averaged over the tasks with n ≥ k; *n_tasks how many (0: the value is 0). */
double kn_stats_pass_k(const kn_stats *s, int k, int all, size_t *n_tasks);

/* Exact two-sided sign test (binomial, p = 1/2) of wins against losses, ties left out: with K = 1
 * the exact McNemar test on the discordant pairs. 1 when there are none. */
double kn_stats_sign_test(size_t wins, size_t losses);

/* The sample standard deviation (n - 1) of v[0..n); 0 when n < 2. */
double kn_stats_std(const double *v, size_t n);

#endif
