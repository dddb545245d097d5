/* store_recordings.h — workflows re-recorded from the dashboard (item 3;
 * schemas/sql/180_record_jobs.sql, services/live/README.md "Recording"): serve queues a recording and
 * passes the maintainer's finish/cancel on; a worker claims it, polls what was asked, and ends it.
 * Same conventions as store.h. */
#ifndef KEYNODE_STORE_RECORDINGS_H
#define KEYNODE_STORE_RECORDINGS_H

#include <stdint.h>

#include "keynode/error.h"
#include "store.h"

/* Queue a recording of the task ref names (its current version). KN_ENOTFOUND: no such task. */
int kn_store_recording_new(kn_store *st, const char *ref, const char *author, const char *reason, int64_t *id,
                           kn_err *err);
/* Ask a recording to finish or to be cancelled (want "finish" | "cancel"); a queued one cancelled
 * ends at once, and so does one whose worker has not polled for 15 s (cancelled, or failed for a
 * finish: "its worker stopped answering"). *state (the caller's) its state after. KN_ENOTFOUND: no such recording; KN_EBUSY:
 * it ended already (or a finish asked before any worker claimed it). */
int kn_store_recording_want(kn_store *st, int64_t id, const char *want, char **state, kn_err *err);
/* GET /api/recordings/{id}: {id, run, task, task_version, state, want, worker, author, reason, steps,
 * workflow_version, replay, replay_status, detail, created, started, ended}. KN_ENOTFOUND. */
int kn_store_recording_json(kn_store *st, int64_t id, char **out, kn_err *err);
/* GET /api/tasks/{id}/recordings: {"task", "recordings": [RECORDING]}, newest first (≤ 50). */
int kn_store_recordings_json(kn_store *st, const char *ref, char **out, kn_err *err);

/* Worker: claim the oldest queued recording (state recording, this worker). 1 claimed, 0 none. */
typedef struct kn_store_recording {
	int64_t id, task_version;
	char *task_ref, *author, *reason; /* the caller's (kn_store_recording_clear) */
} kn_store_recording;
int kn_store_recording_claim(kn_store *st, const char *worker, kn_store_recording *out, kn_err *err);
void kn_store_recording_clear(kn_store_recording *r);
/* What serve asked: *want "" (nothing), "finish" or "cancel"; stamps `polled` (the worker is alive). */
int kn_store_recording_asked(kn_store *st, int64_t id, char want[16], kn_err *err);
/* Move it on: state, and (when not NULL / > 0) steps, detail, workflow_version, replay, replay_status;
 * a final state (stored, failed, cancelled) stamps `ended`. One that ended already is left as it is. */
int kn_store_recording_set(kn_store *st, int64_t id, const char *state, int steps, const char *detail,
                           int workflow_version, int64_t replay, const char *replay_status, kn_err *err);

#endif
