/* functional.h — WebArena-style end-state checks: answer cleaning and matching, URL
 * "GOLD in PRED", and the rules page checks are scored by (keynodes/README.md "Functional checks").
 *
 * These are pure functions over NUL-terminated text: no allocation is handed out except by
 * kn_func_clean, nothing is global, everything is thread-safe. The evaluator calls them for key
 * nodes whose matcher is must_include / fuzzy / gold_in_pred, whose `clean` option is set, or
 * whose target is `page`. */
#ifndef KEYNODE_FUNCTIONAL_H
#define KEYNODE_FUNCTIONAL_H

#include <stddef.h>

#include "keynode/error.h"

/* Whose rules a functional check follows (keynodes/README.md "Functional semantics"). keynode's
 * are the default for native tasks; WebArena imports follow WebArena's evaluator rule for rule. */
typedef enum kn_func_sem {
	KN_FUNC_SEM_KEYNODE = 0,
	KN_FUNC_SEM_WEBARENA = 1
} kn_func_sem;

/* The separator of alternatives inside one reference (WebArena's " |OR| "). */
#define KN_FUNC_OR " |OR| "

/* WebArena's clean_answer: trim ASCII whitespace, remove one pair of surrounding quotes (both
 * '…' or both "…"), lower-case ASCII. *out is the caller's. */
int kn_func_clean(char **out, const char *s);

/* 1 when clean(ref) == clean(pred), else 0 (0 on NULL or out of memory). */
int kn_func_exact(const char *ref, const char *pred);

/* One must_include entry: 1 when any of its " |OR| " alternatives, cleaned, is found in the
 * cleaned pred. With token_rule, a one-character alternative must equal a whole token of pred
 * (tokens: runs of letters/digits/non-ASCII bytes; each other non-space character is a token),
 * so "0" does not match "10". */
int kn_func_must_include(const char *entry, const char *pred, int token_rule);

/* Every entry of a must_include list (an empty list is 1). */
int kn_func_must_include_all(char *const *items, size_t n, const char *pred, int token_rule);

/* 1 when clean(s) is "n/a": the reference (or answer) of an unachievable task. */
int kn_func_is_na(const char *s);

/* WebArena url_match "GOLD in PRED": refs holds one or more reference URLs separated by " |OR| ".
 * Both sides lose trailing '/'s; host[:port]+path of any reference must be a substring of the
 * visited URL's host[:port]+path, and for each query key of any reference (values pooled over
 * the references), one of its values must be among the visited URL's values for that key
 * (parse_qs rules: '&' fields, '+' and %XX decoded, blank values skipped). 1 or 0. */
int kn_func_gold_in_pred(const char *refs, const char *url);

/* kn_func_gold_in_pred with sem's URL rules: webarena splits as Python's urlsplit does (the
 * netloc keeps any userinfo; a scheme needs no "//"). Neither limits the number of fields. */
int kn_func_gold_in_pred_sem(const char *refs, const char *url, kn_func_sem sem);

/* --- WebArena's evaluator, rule for rule (functional_webarena.c) --- */

/* clean_answer with Python's str semantics: strip() (Unicode whitespace), one pair of surrounding
 * quotes, lower() (full Unicode mappings). *out is the caller's. */
int kn_func_wa_clean(char **out, const char *s);

/* StringEvaluator on the agent's answer: __call__ cleans the answer, then exact_match /
 * must_include clean it again. exact: clean(clean(answer)) == clean(ref). must_include: every
 * entry (no " |OR| " split) is a substring of the twice-cleaned answer — or, when the list has
 * exactly one entry whose cleaned form is one character and one word token, that character is
 * one of word_tokenize(answer)'s tokens (wordtok.h). 1 or 0. */
int kn_func_wa_answer_exact(const char *ref, const char *answer);
int kn_func_wa_answer_must_include(char *const *items, size_t n, const char *answer);

/* HTMLContentEvaluator on text read from a page: html.unescape first, then exact_match (cleaned
 * once) or must_include per entry, each entry's " |OR| " alternatives tried, no token rule. */
int kn_func_wa_page_exact(const char *ref, const char *content);
int kn_func_wa_page_must_include(char *const *items, size_t n, const char *content);

/* WebArena's reddit_get_post_url: "scheme://netloc/f/SUB/ID/" from a URL whose path is
 * /f/SUB/ID/…, else the URL unchanged. *out is the caller's. */
int kn_func_reddit_post_url(char **out, const char *url);

/* The rule and phrase the semantic backend gets for a fuzzy reference, and for "the answer says
 * the task cannot be done" (N/A). Static text for the latter. */
#define KN_FUNC_NA_RULE "Decide whether the answer is that the task cannot be done"
#define KN_FUNC_NA_PHRASE "the task cannot be done"

#endif
