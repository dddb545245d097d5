/* heal.h — locator healing for replay: what an element a step acts on is expected to look like
 * (derived from the step's selector, hints and text), what candidate elements in the page look
 * like (collected in-page as JSON), and a Healenium-style similarity score between the two.
 * Pure functions: no browser, no I/O; unit-tested (tests/unit/test_heal.c) and the candidate
 * parser fuzzed (tests/fuzz/fuzz_heal.c). services/replay/README.md explains the weights. */
#ifndef KEYNODE_HEAL_H
#define KEYNODE_HEAL_H

#include <stddef.h>

#include "keynode/error.h"
#include "keynode/task.h"

#define KN_HEAL_THRESHOLD 0.6       /* the best candidate is accepted only at or above this */
#define KN_HEAL_MIN_WEIGHT 6.0      /* a sparse signature is scored as if it weighed this much */
#define KN_HEAL_MAX_CANDIDATES 500  /* candidates kept from one page */
#define KN_HEAL_MAX_FIELD 512       /* bytes kept of any one candidate field */
#define KN_HEAL_MAX_JSON (4u * 1024u * 1024u)

/* An element's signature. Every field may be NULL (unknown); strings are owned. `path` is the
 * ancestor chain, outermost first, as space-separated descriptors "tag#id.class1.class2";
 * `classes` space-separated. `index` is the candidate's position in the page's list. */
typedef struct kn_heal_sig {
	char *tag, *id, *name, *aria, *role, *href, *text, *classes, *path;
	int index;
} kn_heal_sig;

/* Per-feature similarities of the last kn_heal_score call (for reports and tests); -1 when the
 * feature was not compared (unknown in the expected signature). */
typedef struct kn_heal_detail {
	double tag, id, name, classes, text, aria, role, href, path;
} kn_heal_detail;

/* Derive the expected signature of step st's element: from its selector (CSS: the last compound's
 * tag, #id, .classes, [name=…], [aria-label=…], [href=…], [role=…], the earlier compounds as the
 * path; XPath: the last step's tag, @id, @name, @aria-label, @href and text()/normalize-space()
 * = '…'), overridden by the step's hints (id, name, aria-label, role, href) and text, and the verb
 * (select → select). *out is the caller's (kn_heal_sig_clear). KN_ENOMEM only. */
int kn_heal_expected(kn_heal_sig *out, const kn_step *st);

/* Similarity of candidate c to expected e in [0, 1]: the weighted mean of the feature
 * similarities over the features e knows, the divisor at least KN_HEAL_MIN_WEIGHT. detail may
 * be NULL. */
double kn_heal_score(const kn_heal_sig *e, const kn_heal_sig *c, kn_heal_detail *detail);

/* Similarity of two strings in [0, 1]: 1 when equal after case folding and whitespace
 * collapsing, else the larger of the token Dice coefficient and 1 - Levenshtein/longer length
 * (on the first 128 bytes). NULL or empty on either side: 0. */
double kn_heal_text_sim(const char *a, const char *b);

/* Parse the in-page candidate list: a JSON array of objects with string fields tag, id, name,
 * aria, role, href, text, classes, path (others ignored, non-strings ignored). At most
 * KN_HEAL_MAX_CANDIDATES are kept, fields cut to KN_HEAL_MAX_FIELD bytes (at a UTF-8 boundary).
 * *out (array of *n, index = position) is the caller's (kn_heal_sigs_free). KN_EINVAL with err
 * for malformed input, KN_ELIMIT over KN_HEAL_MAX_JSON. */
int kn_heal_parse_candidates(kn_heal_sig **out, size_t *n, const char *json, size_t len, kn_err *err);

/* The best candidate of n: its index into cands (or -1 when n is 0) and its score. */
int kn_heal_best(const kn_heal_sig *e, const kn_heal_sig *cands, size_t n, double *score);

/* Whether an element found for step st (its signature c; e the step's expected signature, may be
 * NULL) is the element the step recorded (agree.c). NO: its accessible name (visible text or
 * aria-label) contradicts the recorded text or aria-label — another item of the same kind; a heal
 * or fallback must not take it and a selector match is not the element. RELABEL: the name's words
 * were only dropped or added ("View history" → "history") and the strong signals weigh for it
 * (kn_heal_weigh: the same control, relabelled — a drift; replay.c's locate() still refuses it
 * when another element has the recorded name under another href). DRIFT: the name agrees but the
 * recorded href does not (the same control leading elsewhere now). REWORDED: the href agrees (or
 * was not recorded) and a recorded text agrees as a name with its words changed ("&" → "and"): a
 * drift too. YES otherwise (nothing recorded to compare counts as agreement). Names agree when
 * their words (lower case, without "and", "&", "the", "a", "of"…) are the same, a counter aside
 * (numbers of up to three digits); a hand-written text hint (a step without a recorded
 * fingerprint, st->tag NULL) may also be part of the element's text. why (optional) says what
 * disagreed, and the evidence. */
typedef enum kn_heal_agreement {
	KN_AGREE_YES, KN_AGREE_REWORDED, KN_AGREE_DRIFT, KN_AGREE_RELABEL, KN_AGREE_NO
} kn_heal_agreement;
kn_heal_agreement kn_heal_agree(const kn_step *st, const kn_heal_sig *e, const kn_heal_sig *c, char *why, size_t n);

/* How a name now relates to the recorded one, best first: SAME words (a counter aside); AGREE as
 * names (stop words, "&"/"and", or within a hand-written hint when `within`); RELABEL — one side's
 * meaningful words (fillers such as "view", "show", "page", "this" aside) all in the other's, and
 * the words left over are neither a polarity word ("not", "out", "hide", "remove"…) nor a number of
 * four digits or more; OTHER — a word in another's place, a different year, nothing in common. */
typedef enum kn_heal_name_rel { KN_NAME_SAME, KN_NAME_AGREE, KN_NAME_RELABEL, KN_NAME_OTHER } kn_heal_name_rel;
kn_heal_name_rel kn_heal_name_relation(const char *recorded, const char *now, int within);

/* The evidence that candidate c is step st's element whatever its name (README.md "Precise
 * verdicts"): each signal known on both sides adds its weight when it agrees and subtracts it when
 * it differs — href 3, id 2, name 2 (identity), place 2 (kn_heal_place), role 1, tag 1. A
 * relabel is believed (ev->relabel) when an identity signal agrees, none differs and the score is
 * at least KN_HEAL_RELABEL_MIN. `said` lists the signals weighed. e may be NULL. */
#define KN_HEAL_RELABEL_MIN 4
typedef struct kn_heal_evidence {
	int score, identity_agree, identity_disagree, relabel;
	char said[160];
} kn_heal_evidence;
void kn_heal_weigh(kn_heal_evidence *ev, const kn_step *st, const kn_heal_sig *e, const kn_heal_sig *c);

/* Whether a candidate is where the expected ancestors (a selector's, or a recorded dom_path
 * "html > body > … > a") say: with ancestors that have an id, 1 when the innermost of them is an
 * ancestor of the candidate (by id alone: a skin renames classes and may turn a div into a nav), -1
 * when none of them is, else 0; without ids, by tags in order: 1 when at least 2/3 are found, -1
 * under 1/3. 0 when nothing is expected. */
int kn_heal_place(const char *expected, const char *cand);

/* 1 when names a and b agree as above. */
int kn_heal_names_agree(const char *a, const char *b);
/* 1 when two hrefs name the same target: equal after scheme and host, or one the other's
 * trailing path segments ("new.html" and "/forum/new.html"). */
int kn_heal_hrefs_agree(const char *a, const char *b);

/* Shared text pieces (heal.c): a lower-cased, whitespace-collapsed copy of at most cap bytes
 * (caller frees); the alphanumeric tokens of s; an href after its scheme and host. */
char *kn_heal_fold(const char *s, size_t cap);
size_t kn_heal_tokens(const char *s, const char **start, size_t *len, size_t max);
const char *kn_heal_href_tail(const char *h);

void kn_heal_sig_clear(kn_heal_sig *s);
void kn_heal_sigs_free(kn_heal_sig *s, size_t n);

#endif
