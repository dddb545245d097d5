/* run_phase.h — where a watched run is on its way to its end, and why it ends: one phase, one
 * reason, one setter that checks each move against the transition table (README.md "The run's
 * end"). Internal to services/monitor. */
#ifndef KEYNODE_RUN_PHASE_H
#define KEYNODE_RUN_PHASE_H

#include "monitor.h"

typedef enum kn_run_phase {
	KN_RUN_WATCHING, /* events are taken; nobody asked for the end yet */
	KN_RUN_FLUSHING, /* the end was asked: the recorders hand over what they hold (at most 2 s) */
	KN_RUN_PURCHASE, /* flushed; the purchase read started at the buy click is still running */
	KN_RUN_CHECKS,   /* the page checks read the live pages */
	KN_RUN_VERDICTS, /* the end waits for the judge's verdicts; no more events are taken */
	KN_RUN_ENDED     /* on_end was told (or the monitor is being freed); final */
} kn_run_phase;

/* The run's end as one value: the phase and the reason it ends for. */
typedef struct kn_run_end {
	kn_run_phase phase;
	kn_end why; /* the stop's reason from FLUSHING on; the end's from VERDICTS and ENDED */
} kn_run_end;

/* The phase's name for logs ("watching", "flushing"…). */
const char *kn_run_phase_name(kn_run_phase p);

/* 1 when a run may move from `from` to `to`, 0 otherwise (staying put is not a move). */
int kn_run_phase_allowed(kn_run_phase from, kn_run_phase to);

/* Move e to phase `to` for reason `why`. A move the table does not allow is a programming error:
 * it is logged, asserted in debug builds, and e is left as it was (KN_EINVAL); 0 otherwise. */
int kn_run_end_set(kn_run_end *e, kn_run_phase to, kn_end why);

#endif
