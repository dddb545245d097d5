/* match_one.h — one value judged against one key node exactly as a run would judge it.
 *
 * `keynode match` and `keynode judge-audit` both ask this question: does this URL, typed value
 * or answer reach this key node? The answer comes from the evaluator itself (a one-node task fed
 * one event), so it is what a scored run would get, in either mode and with either judge. */
#ifndef KEYNODE_MATCH_ONE_H
#define KEYNODE_MATCH_ONE_H

#include "keynode/error.h"
#include "keynode/eval.h"
#include "keynode/task.h"

typedef struct kn_match_input {
	kn_target target;   /* KN_TARGET_URL, KN_TARGET_ELEMENT_VALUE or KN_TARGET_ANSWER */
	kn_matcher matcher; /* exact, include, semantic or regex */
	const char *expect; /* the key node's reference (a semantic rule as the task file writes it) */
	const char *key;    /* url: the query parameter judged; NULL or "" for none */
	const char *value;  /* url: the URL; element_value: the typed value or clicked text; answer */
} kn_match_input;

typedef struct kn_match_result {
	double score;     /* the node's score after the event, in [0, 1] */
	int match;        /* 1 when it counts as reached: score 1, or in webcanvas mode any score > 0 */
	int judge_failed; /* 1 when the error returned is the semantic judge's (nothing was decided) */
} kn_match_result;

/* Judge in->value against the key node in describes under opts (mode, threshold, judge; the
 * judge is called synchronously, opts->defer must be NULL). Returns 0 with *out filled;
 * KN_EINVAL when the key node itself is invalid (a target or matcher not allowed here, a key off a
 * url target, a bad regex: err says which, prefixed "expect: " for the reference); KN_ENOMEM; or
 * the judge's negative code with out->judge_failed set and its words in err. */
int kn_match_one(kn_match_result *out, const kn_match_input *in, const kn_eval_opts *opts,
                 kn_err *err);

#endif
