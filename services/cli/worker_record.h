/* worker_record.h — a worker's recordings from the dashboard (services/live/README.md
 * "Recording"): a kn_worker_opts.other_job hook that claims a queued recording
 * (store_recordings.h), opens the task's start page in a fresh browser context shown on the live hub
 * to be taken over, records what the maintainer does there (record_session.h, as `keynode record`),
 * and at "finish" replays the workflow at once and stores it as a new workflow version (with its
 * changelog row and the verifying replay), or nothing when that replay fails. */
#ifndef KEYNODE_WORKER_RECORD_H
#define KEYNODE_WORKER_RECORD_H

#include "keynode/error.h"
#include "live_hub.h"
#include "replay.h"
#include "worker.h"

typedef struct kn_worker_recorder {
	kn_live_hub *hub;          /* where the recording tab is shown (borrowed) */
	int idle_s;                /* no action recorded this long: cancelled (http.takeover_idle_s); 0 → 300 */
	kn_validate_opts validate; /* the validation replay's options (the worker's replays') */
	/* tried when no recording waits: the agent jobs (worker_agent.h); NULL: none */
	int (*next)(kn_worker *w, void *ud, kn_err *err);
	void *next_ud;
} kn_worker_recorder;

/* The kn_worker_opts.other_job hook (ud: a kn_worker_recorder): 1 when a recording (or next's job)
 * ran, 0 when none waits, < 0 a database error. */
int kn_worker_record_job(kn_worker *w, void *ud, kn_err *err);

#endif
