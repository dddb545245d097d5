/* audit.h — auditing a semantic judge against human labels (`keynode judge-audit`).
 *
 * A labels file is JSON Lines, one judgement a person made per line:
 *   {"rule": "Decide whether are searching for mens winter coat", "target": "url", "key": "search",
 *    "value": "https://www.kohls.com/search.jsp?search=mens+winter+coats", "label": true}
 * `rule` is a semantic key node's reference as a task file writes it (what `keynode match --expect`
 * takes), `value` what an agent produced for that target (a URL, a typed value or clicked text, an
 * answer: `--value`), `key` the query parameter a url key node reads (`--key`, url only), `label`
 * whether the key node should count as reached. Each item is judged with kn_match_one, exactly as
 * `keynode match --matcher semantic` judges it; verdicts are compared with the labels:
 *
 * - the confusion table (TP: label true, verdict true; FP: false, true; TN; FN) over the items the
 *   judge gave a verdict on — a failed judgement (an LLM outage) is "unjudged", counted apart and never
 *   a verdict;
 * - agreement (TP+TN)/n, Cohen's κ (p_o − p_e)/(1 − p_e), false-positive rate FP/(FP+TN) and
 *   false-negative rate FN/(FN+TP); a rate whose denominator is 0 is undefined (null, with words why);
 * - each with a 95 % percentile bootstrap interval: B replicates, each drawing n of the n judged items
 *   with replacement (a splitmix64 generator from the seed, item index = next() mod n); of the m
 *   replicates where the metric is defined, sorted, the ceil(0.025 m)-th and ceil(0.975 m)-th values
 *   (nearest rank). Same seed and B, same interval.
 * - two judges side by side: agreement and κ between them over the items both judged. */
#ifndef KEYNODE_AUDIT_H
#define KEYNODE_AUDIT_H

#include <stddef.h>
#include <stdint.h>

#include "keynode/error.h"
#include "keynode/eval.h"
#include "keynode/task.h"

/* --- the labels file (labels.c) --- */

#define KN_LABELS_MAX_LINE (64 * 1024) /* bytes in one line, newline excluded */
#define KN_LABELS_MAX_ITEMS 100000
#define KN_LABELS_MAX_BYTES (64 * 1024 * 1024) /* the whole file */

typedef struct kn_label_item {
	int line;          /* 1-based line of the file */
	kn_target target;  /* KN_TARGET_URL, KN_TARGET_ELEMENT_VALUE or KN_TARGET_ANSWER */
	char *rule, *value;
	char *key;         /* url only; NULL when none */
	int label;         /* 1: the key node should count as reached */
} kn_label_item;

typedef struct kn_labels {
	kn_label_item *items;
	size_t n;
} kn_labels;

/* Parse len bytes of JSON Lines (need not be NUL-terminated); name is what error messages call the
 * input. Blank lines are skipped; every other line must be one JSON object with a non-empty string
 * "rule", a string "value", "target" one of "url", "element_value", "answer", "label" true or false,
 * and optionally "key" (a string, url only); other members are ignored (notes, sources). The first
 * bad line is an error KN_EINVAL "NAME:LINE: …" (":COL" too for bad JSON), KN_ELIMIT past the caps,
 * KN_EINVAL "NAME: no labelled items" for an input without one; *out is then NULL. Otherwise *out
 * is the caller's (kn_labels_free). */
int kn_labels_parse(kn_labels **out, const char *name, const char *text, size_t len, kn_err *err);
/* The same from a file (KN_EIO "PATH: why" when it cannot be read). */
int kn_labels_load(kn_labels **out, const char *path, kn_err *err);
void kn_labels_free(kn_labels *l);

/* --- the agreement statistics (agreement.c, pure) --- */

typedef enum kn_cell { KN_CELL_TP, KN_CELL_FP, KN_CELL_TN, KN_CELL_FN } kn_cell;

typedef struct kn_confusion {
	size_t tp, fp, tn, fn;
} kn_confusion;

/* The cell of one judged item: reference (the label, or judge A) and verdict (judge B), each 0 or 1. */
kn_cell kn_cell_of(int reference, int verdict);
void kn_confusion_add(kn_confusion *c, kn_cell cell);

enum { KN_AGREE_AGREEMENT, KN_AGREE_KAPPA, KN_AGREE_FPR, KN_AGREE_FNR, KN_AGREE_N };
/* "agreement", "kappa", "false_positive_rate", "false_negative_rate" */
extern const char *const kn_agree_names[KN_AGREE_N];

/* Metric m of c: 1 with *v set, or 0 when it is undefined (*v 0), *why (may be NULL) then saying
 * why in static words ("no judged item is labelled false", "labels and verdicts are all true:
 * chance agreement is 1, κ is 0/0"); *why is NULL when it is defined. */
int kn_agree_metric(double *v, const char **why, const kn_confusion *c, int m);

typedef struct kn_agree_ci {
	int ok;         /* 0: the metric was defined in no replicate (or B = 0): no interval */
	double lo, hi;
	size_t defined; /* replicates where it was defined */
} kn_agree_ci;

/* 95 % percentile-bootstrap intervals (header comment) of every metric over the n items whose
 * cells are cells[0..n), from `resamples` replicates seeded with seed. KN_ENOMEM. */
int kn_agree_bootstrap(kn_agree_ci out[KN_AGREE_N], const kn_cell *cells, size_t n, size_t resamples,
                       uint64_t seed);

/* --- judging the items (audit_judge.c) --- */

#define KN_AUDIT_UNJUDGED (-1)

typedef struct kn_audit_verdict {
	int verdict;  /* 1 match, 0 no match, KN_AUDIT_UNJUDGED when the judge failed */
	double score; /* the key node's score (0 when unjudged) */
	char *error;  /* unjudged: the judge's words; else NULL */
} kn_audit_verdict;

/* Called after each item (done of n) so a long run can show progress. */
typedef void (*kn_audit_progress_fn)(void *ud, size_t done, size_t n);

#define KN_AUDIT_MAX_THREADS 32

/* Judge every item of l with kn_match_one (matcher semantic) under opts (whose judge must be
 * thread-safe, as the offline and LLM judges are), up to `threads` items at once (0 or 1: one at a
 * time, in the calling thread); *out (l->n verdicts, in file order whatever order they came in) is the
 * caller's (kn_audit_verdicts_free). A failed judgement is an unjudged verdict, not an error. progress
 * (may be NULL) is called after each item, never from two threads at once. Errors: KN_ENOMEM, KN_EINVAL
 * when an item cannot be a key node ("N: expect: …", N the first such item's line). */
int kn_audit_judge(kn_audit_verdict **out, const kn_labels *l, const kn_eval_opts *opts,
                   size_t threads, kn_audit_progress_fn progress, void *ud, kn_err *err);
void kn_audit_verdicts_free(kn_audit_verdict *v, size_t n);

/* What the report says of one comparison (a judge against the labels, or two judges;
 * audit_summary.c). */
typedef struct kn_audit_summary {
	size_t judged, unjudged;   /* unjudged: by the judge (or by either judge of a pair) */
	kn_confusion c;
	int ok[KN_AGREE_N];
	double v[KN_AGREE_N];
	const char *why[KN_AGREE_N]; /* static words when !ok[m] */
	kn_agree_ci ci[KN_AGREE_N];
} kn_audit_summary;

/* A judge's verdicts (n of them) against the labels. KN_ENOMEM. */
int kn_audit_summarise(kn_audit_summary *out, const kn_labels *l, const kn_audit_verdict *v,
                       size_t resamples, uint64_t seed);
/* Judge a against judge b over the items both judged: a stands where the labels stand (agreement
 * and κ are symmetric; the rates then read as b's against a). KN_ENOMEM. */
int kn_audit_pair(kn_audit_summary *out, const kn_audit_verdict *a, const kn_audit_verdict *b, size_t n,
                  size_t resamples, uint64_t seed);

#endif
