/* evidence.h — what each key-node check saw, as it happens (the run trace).
 *
 * The evaluator can report, for every key node it checks on an event, the input the matcher saw
 * (the URL form or query parameter value, the typed value, the clicked text, the answer), whether
 * the check applied at all (and if not, why), the matcher's score and the node's latched score.
 * A trace (services/trace) records these per step so a maintainer can read why a node was or was
 * not reached, without recomputing anything. Nodes already reached are not checked again and so
 * not reported. */
#ifndef KEYNODE_EVIDENCE_H
#define KEYNODE_EVIDENCE_H

#include <stddef.h>

#include "keynode/eval.h"

/* One check of one key node on one event. Everything is borrowed for the callback's duration. */
typedef struct kn_evidence {
	size_t node;             /* index of the key node in its task */
	const kn_keynode *kn;
	const kn_event *e;       /* the event checked */
	int step;                /* the run's step count at the check */
	int checked;             /* 1: the matcher ran (or the URL was looked at); 0: not applicable */
	const char *input;       /* what the matcher compared (NULL: nothing to compare) */
	const char *page_url;    /* the URL the check saw (NULL before any) */
	double score;            /* this check's score; -1 when the check failed (judge error) */
	double latched;          /* the node's score after this event */
	const char *why;         /* one short sentence of static text on what happened */
} kn_evidence;

typedef void (*kn_evidence_fn)(void *ud, const kn_evidence *x);

/* Report every key-node check of ev to fn (NULL: stop reporting). */
void kn_eval_set_evidence(kn_eval *ev, kn_evidence_fn fn, void *ud);

/* For eval.c: build the record of node i's check on e and hand it to fn. */
void kn_evidence_report(const kn_eval *ev, kn_evidence_fn fn, void *ud, size_t i,
                        const kn_event *e, int checked, const char *input, double score);

#endif
