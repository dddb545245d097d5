/* worker_agent.h — agent jobs in `keynode worker`: attempts of POST /api/agent-runs
 * batches, claimed from the replay job queue under the same lease and heartbeat, run as one
 * `keynode run` attempt each (services/runner: a fresh private Chromium, the monitor ready, the
 * agent's process group), completed exactly once (kn_store_agent_job_complete). Each result.json
 * carries `keynode run`'s environment (provenance.h; tasks_sha256 null: a job names a task version).
 *
 * Security: the worker runs only the agents of its keynode.yaml `agents:` mapping; a job names an
 * agent, never a command line, and a worker claims only jobs of the agents it has. */
#ifndef KEYNODE_WORKER_AGENT_H
#define KEYNODE_WORKER_AGENT_H

#include <stddef.h>
#include <stdint.h>

#include "worker.h"

typedef struct kn_worker_agents {
	const char *const *names;    /* the agents (borrowed, n of them) */
	const char *const *commands; /* their command lines, run by /bin/sh -c */
	size_t n;
	const char *dir;             /* attempt folders DIR/<batch>/<task>/<k> (created) */
	const char *chromium;        /* browser binary; NULL: the default */
	double timeout_s;            /* an agent's wall-clock budget; <= 0: none */
	const char *region;          /* the results' environment region (KEYNODE_REGION, else keynode.yaml
	                              * region:); NULL: none */
	const struct kn_attempt_watch *watch; /* the live view of each attempt
	                              * (kn_live_hub_attempt_watch); NULL: not watchable */
	int64_t warm_below;          /* the idle warm-up's cursor (zero-initialised: from the newest) */
	double warm_restart_ms;      /* when it may start again from the newest (kn_time_mono_ms) */
} kn_worker_agents;

/* The kn_worker_opts.other_job hook (ud: a kn_worker_agents that outlives the worker): claim one
 * agent job of these agents and run it to its end. 1 one ran, 0 none waiting, KN_EIO/KN_EDB
 * database errors. With none waiting, a finished batch whose page or packed attempts are not stored
 * (finished before keynode stored them, or changed since) is computed and stored, one per
 * call, newest first, each at most once a minute, so no reader pays for it. The result is stored unless the lease was lost meanwhile (another worker owns
 * the job: nothing is written) or the worker is stopping (the job is left to lease expiry). */
int kn_worker_agent_job(kn_worker *w, void *ud, kn_err *err);

#endif
