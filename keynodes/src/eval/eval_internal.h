/* eval_internal.h — what eval.c and eval_defer.c share: the evaluator's private state. */
#ifndef KEYNODE_EVAL_INTERNAL_H
#define KEYNODE_EVAL_INTERNAL_H

#include <jansson.h>

#include "keynode/eval.h"
#include "keynode/evidence.h"
#include "keynode/functional.h"
#include "keynode/purchase.h"

/* A score a node reached at a step, for placing late verdicts in the step scores (eval_defer.c). */
struct rise {
	int step;
	double score;
};

/* A judgement of a node that could not be had: the input judged and the judge's words. */
struct judge_failure {
	char *input, *error;
};

/* Private per-node state beside the public kn_node_state. */
struct node {
	kn_node_state pub;
	unsigned url_ver;   /* URL version this node was last checked against (0 = never) */
	char *last_input;   /* semantic nodes: the input last judged, to avoid asking twice */
	double last_score;
	char *read;         /* page: the text the check read (NULL: not read) */
	char *read_error;   /* page: why it could not be read */
	int page_done;      /* page: a result was recorded */
	double final;       /* webarena semantics: the functional score on the final state */
	unsigned final_gen; /* webarena: answers evaluated, so a late verdict updates final only for the last */
	struct rise *hist;  /* deferred judgements: the node's rises (step, score) */
	size_t n_hist;
	const char *verdict;/* deferred: "missing" or "failed" when a check of it never got a verdict */
	struct judge_failure *failed; /* judgements of it that failed and were not had since (unjudged) */
	size_t n_failed;
};

/* Forms of one URL, computed on first use. */
struct url_cache {
	char *url;
	unsigned ver;
	char *exact, *include, *site, *include_py; /* include_py: urlparse's (webcanvas mode) */
	int have_exact, have_include, have_site, have_include_py;
};

struct kn_eval {
	const kn_task *task;
	kn_eval_opts opts;
	struct node *nodes;
	size_t n;
	double reached;
	int steps, ignored, limit, limit_hit, error;
	/* webcanvas mode: upstream's budget rules apply (no explicit step limit), an "error" URL
	 * already extended the budget, the step that completed the task was run (nothing after it is) */
	int wc_budget_rules, wc_error, wc_done;
	int human;            /* events a person did in a takeover: skipped, counted */
	double *step_scores;
	size_t n_scores, cap_scores;
	struct url_cache cur; /* the page the agent is on */
	unsigned next_ver;
	char *typing;         /* "tab\x1fselector" of the last event when it was a `type`, else NULL */
	char *sel_norm;       /* the current event's selector, normalised on first need */
	int sel_done;         /* sel_norm is computed for the current event */
	json_t *blocked;      /* kn_eval_set_blocked: what refused service, NULL none */
	json_t *unreachable;  /* kn_eval_set_unreachable: the site that did not answer, NULL none */
	char *error_reason, *error_detail; /* kn_eval_set_error_reason; NULL none */
	kn_func_sem sem;      /* the functional semantics in force */
	/* purchase: (purchase.h) */
	char *buy_norm;       /* the buy selector, normalised; NULL when none */
	int bought;           /* the buy element was clicked */
	int purchase_read;    /* a purchase read was recorded */
	kn_reward reward;
	char *purchase_error; /* why the purchase read failed */
	char **touched;       /* selectors of the click and select events, distinct, oldest first */
	size_t n_touched;
	struct kn_defer *defer; /* deferred semantic judgements (eval_defer.c); NULL until the first */
	kn_evidence_fn evid; void *evid_ud; /* evidence.h: each check reported, with its input */
	const char *seen; int checked; char *seen_own; /* evidence: what the node being checked read */
};

/* eval.c: the sum of the key-node scores added in node order from 0, as upstream totals a step's
 * score (webcanvas mode keeps `reached` so, to the last bit: near success compares it to N - 1). */
double kn_eval_sum(const kn_eval *ev);

/* A semantic check of node i said "pending": the judge was not asked yet or has not answered. */
#define KN_EVAL_PENDING 1

/* eval.c: score input on node st/kn as a check does (semantic through the judge or the deferred
 * verdicts). 0, KN_EVAL_PENDING or a negative KN_E*. */
int kn_eval_score_text(kn_eval *ev, struct node *st, const kn_keynode *kn, const char *input,
                       int fold, double *score, kn_err *err);

/* eval.c: node i's check of input (NULL: "") came out rc. A negative rc is a judgement that could
 * not be had (msg: why; NULL → kn_strerror(rc)): the node is unjudged (kn_eval_unjudged) until it
 * reaches 1 or that input is judged after all (rc 0 for it later: a retried judgement). */
void kn_eval_judged(kn_eval *ev, size_t i, int rc, const char *input, const char *msg);
/* eval.c: a judge's score checked against the contract: 0 when in [0, 1], else KN_EPROTO with err. */
int kn_eval_judge_range(double score, kn_err *err);

/* eval_defer.c */
/* The verdict for (rule, input): 0 and *score when known, KN_EVAL_PENDING when awaited (asked
 * now when it was not yet), the failure's code when it failed or never came. */
int kn_eval_defer_lookup(kn_eval *ev, const char *rule, const char *phrase, const char *input,
                         double *score, kn_err *err);
/* Remember that node i's check of input waits for a verdict (at the current step). Not while
 * kn_eval_verdict re-runs the waiting checks. */
int kn_eval_defer_wait(kn_eval *ev, size_t i, const char *input, int fold);
/* Node i rose to score at step (a history entry, kept only when judgements are deferred). */
void kn_eval_defer_rise(kn_eval *ev, size_t i, int step, double score);
void kn_eval_defer_free(kn_eval *ev);
/* The result's "verdicts" object and each node's "verdict" (nodes: the result's key_nodes). */
void kn_eval_defer_result(const kn_eval *ev, json_t *result, json_t *nodes);

#endif
