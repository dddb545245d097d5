/* match.h — text matchers (exact, include, regex, semantic); selector normalisation is
 * selector.h's, included here for the matchers' callers.
 *
 * A matcher compares the input derived from an event (a URL form, a typed value, an answer)
 * with a key node's expected value and gives a score in [0, 1]. Semantic judgement goes through
 * a kn_semantic interface so the offline default and an LLM backend are interchangeable. */
#ifndef KEYNODE_MATCH_H
#define KEYNODE_MATCH_H

#include <stddef.h>

#include "keynode/error.h"
#include "keynode/selector.h"
#include "keynode/task.h"

/* A semantic judge: score in [0, 1] of how well `input` satisfies `rule` (a sentence such as
 * "Decide whether are searching for mens winter coat"); phrase is the extracted target phrase
 * (may be NULL). Returns 0 and sets *score, or a negative KN_E* code. */
typedef struct kn_semantic {
	int (*judge)(void *ud, const char *rule, const char *phrase, const char *input,
	             double *score, kn_err *err);
	void *ud;
	const char *name; /* "offline", "llm:<model>" */
	/* SHA-256 (64 hex digits) of what the judge's verdicts depend on beside rule and input — an
	 * LLM judge's prompt template, the offline judge's KN_SEMANTIC_OFFLINE_ID — so a result can
	 * say which judge made it (judge_fingerprint.h); NULL: not known. */
	const char *prompt_sha256;
} kn_semantic;

/* The offline judge's identity: its version, bumped whenever a change to its tokenizer, lexicon
 * or scoring may change a verdict (tests/data/semantic/ is the calibration that says so), and the
 * SHA-256 of KN_SEMANTIC_OFFLINE_ID, the text "keynode offline judge <version>", which its
 * kn_semantic carries as prompt_sha256 (docs/scoring.md "Judge fingerprint"). */
#define KN_SEMANTIC_OFFLINE_VERSION 1
#define KN_SEMANTIC_OFFLINE_ID "keynode offline judge 1"
#define KN_SEMANTIC_OFFLINE_SHA256 "61f2acdfb3eadd15c0e1db462edfe5cfc755af94c62cbbefcedca0b6ab302740"

/* The default threshold at which a semantic score counts as reached (the evaluator's default,
 * and what the offline judge is calibrated for: tests/data/semantic/). */
#define KN_SEMANTIC_THRESHOLD 0.7

/* The built-in offline judge (no network): a weighted overlap of normalised, stemmed tokens with
 * numbers, units and durations understood (keynodes/README.md). Deterministic and thread-safe.
 * Static storage. */
const kn_semantic *kn_semantic_offline(void);

/* The offline judge's score of input against rule (or phrase, when not NULL) as the judge gives
 * it, and in *out a few lines saying how it came about (tokens of both sides, what matched, the
 * extra words, any veto). For debugging and calibration; *out is the caller's. */
int kn_semantic_offline_explain(char **out, double *score, const char *rule, const char *phrase,
                                const char *input);

/* The target phrase of a rule-style reference ("Decide whether are searching for X" → "X");
 * the reference itself when it has no recognised lead-in. *out is the caller's. */
int kn_semantic_extract_phrase(char **out, const char *rule);

/* Compile a PCRE2 pattern with match limits set; *out is an opaque compiled regex (pattern plus
 * match context) the caller frees with kn_regex_free. err says the offset of a syntax error. */
int kn_regex_compile(void **out, const char *pattern, kn_err *err);
void kn_regex_free(void *re);

/* 1 when re matches anywhere in subject, 0 when not, negative KN_E* (KN_ELIMIT when the match
 * limit is hit). */
int kn_regex_match(const void *re, const char *subject, size_t len);

/* Score of a non-semantic matcher: 1.0 or 0.0. fold: compare lower-cased (answers).
 * For KN_MATCH_REGEX, re is the compiled pattern. */
double kn_match_text(kn_matcher m, const char *expect, const char *input, int fold, const void *re);

#endif
