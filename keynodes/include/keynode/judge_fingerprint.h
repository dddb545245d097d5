/* judge_fingerprint.h — which judge a score was made by (docs/scoring.md "Judge fingerprint").
 *
 * A score of semantic key nodes depends on more than the trajectory: the judge backend, its model,
 * the prompt it was given (or the offline judge's version), the threshold, the evaluation mode and
 * keynode itself. The fingerprint is that, as one JSON object built here and only here:
 *   {"backend": "offline"|"llm"|"custom", "model": "…"|null, "prompt_sha256": "…"|null,
 *    "threshold": 0.7, "mode": "default"|"webcanvas", "keynode_version": "…"}
 * Every run result carries it as "judge" (kn_eval_result_json); summaries, the run environment and
 * the service's stored runs copy it. Two results whose fingerprints differ were judged differently:
 * comparing them compares judges as much as agents (keynode compare, leaderboard warn). */
#ifndef KEYNODE_JUDGE_FINGERPRINT_H
#define KEYNODE_JUDGE_FINGERPRINT_H

#include <stddef.h>

#include "keynode/eval.h"

struct json_t;

/* The fingerprint of the judge opts describe (NULL opts: the defaults — offline, 0.7, default
 * mode). The caller's (json_decref); NULL when out of memory. */
struct json_t *kn_judge_fingerprint(const kn_eval_opts *opts);

/* The fingerprint a result document carries (borrowed): its "judge", else its
 * "environment"."judge" (results of keynode run before fingerprints); NULL when it has none. */
const struct json_t *kn_judge_fingerprint_of(const struct json_t *result);

/* Compare two fingerprints field by field: the names of the fields that differ, ", "-separated,
 * into out (cap bytes, always terminated). Returns their number (0: judged alike), or -1 when
 * either is missing or not an object (out says "unknown": it cannot be told). An environment's
 * older "semantic" stands for "backend"; a field neither has is not a difference. */
int kn_judge_fingerprint_diff(char *out, size_t cap, const struct json_t *a, const struct json_t *b);

#endif
