/* store_prune.h — retention: `keynode prune` and serve's hourly prune delete what
 * keynode.yaml's `retention:` says is old, in short batches so no statement holds a lock for long.
 * What goes: the events of finished agent runs and of finished replay runs (each kind its own age,
 * counted from the run's start; the run, its result, key-node results and replay result stay, and the
 * run is marked events_pruned), and the screenshots of old failed replays (the replay result stays,
 * "screenshot": false). A live run (not ended) is never touched. Traces are files with their own
 * retention (trace.keep_days). services/store/README.md "Retention". */
#ifndef KEYNODE_STORE_PRUNE_H
#define KEYNODE_STORE_PRUNE_H

#include <signal.h>
#include <stdint.h>

#include "store.h"

/* Ages in days; 0 keeps that kind for ever. */
typedef struct kn_store_retention {
	int agent_events_days;  /* events of agent runs */
	int replay_events_days; /* events of replay runs */
	int screenshots_days;   /* failed replays' screenshots */
} kn_store_retention;

enum { KN_PRUNE_AGENT_EVENTS, KN_PRUNE_REPLAY_EVENTS, KN_PRUNE_SCREENSHOTS, KN_PRUNE_KINDS };
/* "agent events", "replay events", "screenshots" */
extern const char *const kn_prune_kind_names[KN_PRUNE_KINDS];

/* What a prune removed (or, dry, would remove), per kind: items are runs (events) or replay results
 * (screenshots); rows the events deleted, or the screenshots' bytes. */
typedef struct kn_store_prune_totals {
	int64_t items[KN_PRUNE_KINDS];
	int64_t rows[KN_PRUNE_KINDS];
} kn_store_prune_totals;

/* Called after each batch (and once per kind when it is done, last = 1) with the totals so far. */
typedef void (*kn_store_prune_progress)(void *ud, int kind, const kn_store_prune_totals *t, int last);

/* Prune what r says is old: per kind, batches of at most batch runs / replay results (<= 0: 500), each
 * one statement (its own transaction), until none is left or *stop (may be NULL) becomes nonzero. With
 * dry_run nothing is changed: t is what would go. t is filled (zeroed first). */
int kn_store_prune(kn_store *st, const kn_store_retention *r, int batch, int dry_run,
                   kn_store_prune_progress progress, void *ud, const volatile sig_atomic_t *stop,
                   kn_store_prune_totals *t, kn_err *err);

/* 1 when r asks for anything to be pruned. */
int kn_store_retention_any(const kn_store_retention *r);

#endif
