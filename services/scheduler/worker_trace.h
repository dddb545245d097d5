/* worker_trace.h — the trace of each replay a `keynode worker` runs: the same folder
 * layout as `keynode replay --validate --trace` (services/trace/README.md), kept where `serve`
 * keeps its run traces (keynode.yaml `trace.dir`), so GET /api/runs/{run}/trace and the drift diff
 * (GET /api/tasks/{id}/drift) serve it. worker.c calls these around kn_replay_validate. */
#ifndef KEYNODE_WORKER_TRACE_H
#define KEYNODE_WORKER_TRACE_H

#include "worker.h"

/* One replay attempt's trace. */
typedef struct kn_worker_trace {
	char run_id[160];     /* the replay's run id (the trace folder's name) */
	kn_trace *t;          /* open between begin and end; NULL when traces are off */
	int open;             /* a folder was made for this attempt */
} kn_worker_trace;

/* Before an attempt: a run id for the replay in vo->run_id (borrowed from wt) and, when o's
 * trace mode is not off, a trace of kind "replay" in vo->trace. A trace that cannot be made is
 * logged and the replay runs untraced. */
void kn_worker_trace_begin(kn_worker_trace *wt, kn_worker *w, const kn_worker_opts *o, const kn_task *task,
                           kn_validate_opts *vo);
/* After kn_replay_validate (which wrote the index, or dropped it in failures mode when passed). */
void kn_worker_trace_end(kn_worker_trace *wt);
/* The attempt's result will not be stored (retried, abandoned, lease lost): remove its folder
 * and the row serve's scan may have written for it meanwhile. */
void kn_worker_trace_discard(kn_worker_trace *wt, kn_worker *w, const kn_worker_opts *o);
/* The result was stored: the trace's index row on the worker's connection, and — at most hourly —
 * retention over trace_root. Failures are logged. */
void kn_worker_trace_index(kn_worker_trace *wt, kn_worker *w, const kn_worker_opts *o);

#endif
