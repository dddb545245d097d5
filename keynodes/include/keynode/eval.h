/* eval.h — the key-node evaluator and the dataset metrics (docs/scoring.md).
 *
 * Feed a run's events in order; the evaluator tracks steps, latched key-node scores
 * (max(old,new), never lowered), per-step scores, status and efficiency. Two modes:
 *   KN_MODE_DEFAULT   — every event is evaluated after it happens; semantic scores use a threshold.
 *   KN_MODE_WEBCANVAS — upstream behaviour (WebCanvas's run_task and step_score.py): a step is
 *                       evaluated before its action (URL nodes see the page the action starts from,
 *                       about:blank for the first), navigations alone are not evaluated, the run
 *                       ends at the step that completes the task or at upstream's budget, semantic
 *                       scores are added as fractions rounded to cents, query values are decoded
 *                       twice, the include form is urlparse's.
 * Differences are documented in keynodes/README.md. */
#ifndef KEYNODE_EVAL_H
#define KEYNODE_EVAL_H

#include <stddef.h>
#include <stdio.h>

#include "keynode/error.h"
#include "keynode/event.h"
#include "keynode/match.h"
#include "keynode/task.h"

typedef enum kn_mode { KN_MODE_DEFAULT, KN_MODE_WEBCANVAS } kn_mode;

typedef enum kn_status {
	KN_STATUS_INCOMPLETE, KN_STATUS_FINISHED, KN_STATUS_STEP_LIMIT, KN_STATUS_ERROR,
	KN_STATUS_BROKEN,
	KN_STATUS_BLOCKED, /* the site refused service (kn_eval_set_blocked) and the run did not finish */
	KN_STATUS_UNJUDGED /* a key node the run did not reach had a judgement fail (kn_eval_unjudged) */
} kn_status;

typedef struct kn_eval_opts {
	kn_mode mode;
	const kn_semantic *semantic; /* NULL: kn_semantic_offline() */
	double threshold;            /* default mode semantic threshold; 0 → 0.7 */
	int step_limit;              /* 0 → upstream max(10, 1.5×ref length), capped at 25 (default mode)
	                              * or upstream's loop (webcanvas: +5 after an "error" URL, at most
	                              * 26 steps); >0 → that many; <0 → none */
	int func_sem;                /* 0: the task's (kn_task.func_sem); 1 + a kn_func_sem forces one */
	/* Deferred judgements, for an asynchronous judge (the service's, the monitor's): when set,
	 * semantic checks never call `semantic`. A judgement without a verdict yet is handed to
	 * defer(defer_ud, …) once — it returns 0, or a negative KN_E* when it cannot be asked (the
	 * judgement then counts as failed) — and the check waits until kn_eval_verdict brings it.
	 * NULL: the judge is called synchronously, inside kn_eval_feed. */
	int (*defer)(void *ud, const char *rule, const char *phrase, const char *input);
	void *defer_ud;
} kn_eval_opts;

typedef struct kn_eval kn_eval;

/* Per key node state, borrowed from the evaluator. */
typedef struct kn_node_state {
	double score;        /* latched, in [0,1] */
	int reached_at_step; /* step count when the score first became 1 (0 = before any step), -1 never */
} kn_node_state;

/* New evaluator for task (borrowed; must outlive it). */
int kn_eval_new(kn_eval **out, const kn_task *task, const kn_eval_opts *opts);
void kn_eval_free(kn_eval *ev);

/* Feed one event. Returns the number of key nodes whose score rose (≥ 0), or a negative code
 * (the semantic judge failed: the event is still counted). */
int kn_eval_feed(kn_eval *ev, const kn_event *e, kn_err *err);

/* Score a recorded run: a new evaluator for task (borrowed) fed events[0..n) in order, what
 * `keynode score` does with a trajectory file and what rescoring a stored run does (services/runs,
 * POST /api/rescore), so both give the same numbers. *out is the caller's (kn_eval_free); an event
 * the semantic judge failed on is still counted and adds to *judge_failures (err: the last one's
 * detail, "event N: …", N counted from 1). Returns 0, or KN_ENOMEM with *out NULL. */
int kn_eval_run(kn_eval **out, const kn_task *task, const kn_eval_opts *opts, const kn_event *events,
                size_t n, size_t *judge_failures, kn_err *err);

/* Record what the page check of key node i (target page) read — text, or NULL with error saying
 * why it could not be read — and score it (texts are copied). The monitor calls it when the run
 * ends; replay and tests may too. KN_EINVAL when node i is not a page check. */
int kn_eval_page_result(kn_eval *ev, size_t i, const char *text, const char *error, kn_err *err);

/* What the page check of node i read (borrowed; NULL when nothing was read) and, in *error when
 * not NULL, why not (borrowed; NULL when none). */
const char *kn_eval_page_read(const kn_eval *ev, size_t i, const char **error);

/* The task's functional result: 1 when every functional check (functional.h) is at 1 and nothing
 * of an imported task was left unmapped, 0 when not, -1 when the task has no functional check.
 * Under the webarena semantics a check counts on the final state (the last answer, the last URL,
 * the page read at the end), not its latched key-node score. */
int kn_eval_functional(const kn_eval *ev);

/* The functional semantics in force (kn_func_sem) and the URL the agent is on now (borrowed,
 * NULL before any). */
int kn_eval_func_sem(const kn_eval *ev);
const char *kn_eval_url(const kn_eval *ev);

/* Purchase reward (purchase.h), for a task with `purchase:`. 1 when the page should be read now or
 * at the run's end: the task has a purchase, nothing was read yet, and its buy element was clicked
 * (or it names none). */
int kn_eval_purchase_wanted(const kn_eval *ev);
/* 1 when the task's buy element was clicked and nothing was read yet: read now. */
int kn_eval_purchase_bought(const kn_eval *ev);
/* The selectors of the elements the agent clicked or chose in (click and select events, at most
 * KN_EVAL_MAX_TOUCHED, the latest kept): what kn_purchase_script reads options from. Borrowed. */
#define KN_EVAL_MAX_TOUCHED 64
const char *const *kn_eval_purchase_touched(const kn_eval *ev, size_t *n);
/* Record what the purchase read returned (kn_purchase_script's JSON), or NULL with error; scores
 * the reward. KN_EINVAL when the task has no purchase. */
int kn_eval_purchase_result(kn_eval *ev, const char *json, const char *error, kn_err *err);
/* The reward so far (0 with nothing bought); -1 when the task has no purchase. */
double kn_eval_reward(const kn_eval *ev);

/* --- deferred judgements (kn_eval_opts.defer; eval_defer.c) ---
 * A verdict is placed where the check that asked for it happened: the node's score, the step it
 * was reached at and the step scores come out as if the judge had answered at once. */

/* The verdict for (rule, input) as asked through defer: rc 0 with score in [0, 1], or the
 * judge's failure (the checks waiting for it score 0, their nodes are unjudged: kn_eval_unjudged);
 * a score outside [0, 1] is a failure too. Returns the number of key nodes whose score rose (≥ 0);
 * a verdict nobody asked for, or given twice, changes nothing. */
int kn_eval_verdict(kn_eval *ev, const char *rule, const char *input, int rc, double score);
/* The same with the failure's words (detail, may be NULL: kn_strerror(rc)), which the result's
 * "unjudged" evidence then carries. */
int kn_eval_verdict_detail(kn_eval *ev, const char *rule, const char *input, int rc, double score,
                           const char *detail);
/* Checks waiting for a verdict. */
size_t kn_eval_pending(const kn_eval *ev);
/* The run ends without the verdicts still awaited: they are recorded as missing (the result's
 * "verdicts" counts them, each key node left waiting says "verdict": "missing"). */
void kn_eval_verdicts_abandon(kn_eval *ev);

typedef struct kn_eval_verdicts {
	size_t asked, answered, failed, missing, pending; /* pending: checks waiting */
} kn_eval_verdicts;
void kn_eval_verdicts_get(const kn_eval *ev, kn_eval_verdicts *out);

/* Mark the run as errored (browser gone, …); the status becomes KN_STATUS_ERROR. */
void kn_eval_set_error(kn_eval *ev);
/* The same, with why: the result carries "reason": reason and "detail": detail (may be NULL), as
 * for a guard that did not prove itself before the agent started ("guard not active"). KN_ENOMEM. */
int kn_eval_set_error_reason(kn_eval *ev, const char *reason, const char *detail);

/* The page the run is on refuses service (services/replay/blocked.h): evidence_json is the result's
 * "blocked" object (copied); NULL clears it (the agent got past). While set and the run is not
 * finished, the status is KN_STATUS_BLOCKED and the result carries "blocked". KN_EINVAL for text
 * that is not a JSON object, KN_ENOMEM. */
int kn_eval_set_blocked(kn_eval *ev, const char *evidence_json);

/* The task's own site could not be reached (site.h): evidence_json is the result's "unreachable"
 * object ({url, error, step}; copied). Unless the run is finished, the status becomes
 * KN_STATUS_ERROR and the result carries "reason": "unreachable" and "unreachable". KN_EINVAL for
 * text that is not a JSON object. */
int kn_eval_set_unreachable(kn_eval *ev, const char *evidence_json);
/* The "unreachable" evidence (borrowed) while it decides the status (set, and the run not
 * finished); NULL otherwise. */
const struct json_t *kn_eval_unreachable(const kn_eval *ev);

const kn_task *kn_eval_task(const kn_eval *ev);
int kn_eval_steps(const kn_eval *ev);
double kn_eval_reached(const kn_eval *ev);   /* sum of node scores */
size_t kn_eval_total(const kn_eval *ev);
double kn_eval_score(const kn_eval *ev);     /* reached / total */
int kn_eval_completed(const kn_eval *ev);    /* all key nodes at 1 */
double kn_eval_efficiency(const kn_eval *ev);/* steps / reached, 0 when reached = 0 */
kn_status kn_eval_status(const kn_eval *ev);
const kn_node_state *kn_eval_node(const kn_eval *ev, size_t i);
const double *kn_eval_step_scores(const kn_eval *ev, size_t *n);
int kn_eval_ignored(const kn_eval *ev);      /* steps past the step limit (not evaluated), and in
                                              * webcanvas mode the steps after the one that
                                              * completed the task */

const char *kn_status_name(kn_status s);

/* --- unjudged runs and faults (docs/scoring.md "Unjudged") ---
 * A judgement that could not be had — the judge's HTTP error, timeout, unparsable answer, a score
 * outside [0, 1], or a deferred verdict that never came (kn_eval_verdicts_abandon) — leaves its key
 * node unjudged until a later check reaches it. While some key node below 1 is unjudged, the run
 * depends on the judge: unless it is finished, errored or blocked, its status is
 * KN_STATUS_UNJUDGED, never incomplete or step_limit, and the result carries "unjudged" with the
 * evidence. Like error and blocked it is left out of the metrics (kn_summary_add). */

/* Key nodes below 1 whose judgement failed (0: the run does not depend on the judge). */
size_t kn_eval_unjudged(const kn_eval *ev);

/* Whose a status is when it is not a success: "agent" (incomplete, step_limit), "site" (blocked,
 * broken), "infrastructure" (error), "judge" (unjudged); NULL for finished. Static storage. */
const char *kn_status_fault(kn_status s);
/* The run's: kn_status_fault of its status, except that an error because the task's own site did
 * not answer (kn_eval_unreachable) is the site's. */
const char *kn_eval_fault(const kn_eval *ev);
/* 1 when runs of status s are left out of the metrics and counted apart (error, broken, blocked,
 * unjudged): the run could not be judged on the agent's merit. */
int kn_status_excluded(kn_status s);

/* The run result (docs/formats.md §3) as a jansson object, the caller's (json_decref); NULL when
 * out of memory. Its reals are rounded to 15 significant digits. Services add their members (the
 * attempt, "llm", a replay's verdict) and write it once, with KN_RESULT_JSON_FLAGS. */
struct json_t *kn_eval_result_json(const kn_eval *ev, const char *run_id);
/* How a run result is written (for callers that include <jansson.h>). */
#define KN_RESULT_JSON_FLAGS (JSON_COMPACT | JSON_REAL_PRECISION(15))

/* Write the run result (docs/formats.md §3) as one JSON document followed by a newline. */
int kn_eval_write_result(const kn_eval *ev, const char *run_id, FILE *f);

/* Dataset aggregation with the WebCanvas metric names, over the runs the metrics count: a run
 * whose status is excluded (kn_status_excluded) is counted in `excluded` by status instead. */
typedef struct kn_summary {
	size_t tasks;
	size_t n_error, n_blocked, n_unjudged; /* runs left out of the metrics (broken counts as error) */
	double key_node_completion_rate;
	double average_step_score_rate;
	double task_success_rate;
	double task_near_success_rate;
	double efficiency_score;
	/* running sums */
	double sum_reached, sum_total, sum_score, sum_eff;
	size_t n_success, n_near;
	/* functional results (kn_eval_functional): over runs whose task has functional checks */
	size_t n_functional_tasks, n_functional_ok;
	double functional_success_rate; /* n_functional_ok / n_functional_tasks; 0 when none */
	/* purchase rewards (kn_eval_reward): over runs whose task has a purchase */
	size_t n_reward_tasks, n_reward_full;
	double sum_reward;
	double task_score;          /* 100 × mean reward (WebShop's score); 0 when none */
	double reward_success_rate; /* runs with reward 1 / n_reward_tasks; 0 when none */
} kn_summary;

void kn_summary_init(kn_summary *s);
void kn_summary_add(kn_summary *s, const kn_eval *ev);
/* Compute the rates from the sums (safe to call repeatedly). */
void kn_summary_finish(kn_summary *s);

#endif
