/* worker.h — a replay worker: the consumer side of the job queue in PostgreSQL.
 *
 * A kn_worker claims replay jobs (kn_store_job_claim: SELECT … FOR UPDATE SKIP LOCKED with a
 * lease), holds the lease with a heartbeat on its own thread and its own database connection,
 * replays the job's task version in a fresh browser context of its own browser (a local Chromium
 * it starts and stops itself, or a remote CDP endpoint), retries a failed replay once in a new
 * context when the health state machine says so, then writes the result and marks the job done in
 * one transaction (kn_store_job_complete). A job whose lease was lost meanwhile is dropped without
 * writing anything: another worker owns it. After a stored result the task's health moves through
 * the state machine (services/scheduler/health.h) and a transition is recorded with its evidence and
 * raised as an alert. A worker killed mid-job loses nothing: its lease expires and another worker
 * takes the job. Logs are single lines on stderr (docs/development.md), component=worker. */
#ifndef KEYNODE_WORKER_H
#define KEYNODE_WORKER_H

#include <stdatomic.h>
#include <stdint.h>

#include "alerts.h"
#include "keynode/error.h"
#include "replay.h"

#define KN_WORKER_LEASE_DEFAULT_S 30
#define KN_WORKER_MAX_ATTEMPTS 5   /* a job the browser failed on this often is stored as error */

typedef struct kn_worker kn_worker;

typedef struct kn_worker_opts {
	const char *conninfo;      /* libpq connection string or URL; required */
	const char *id;            /* worker id stored with the lease; NULL → "HOST:PID" */
	const char *browser;       /* CDP endpoint (ws://, http://HOST:PORT, DevToolsActivePort file);
	                              NULL → start a local headless Chromium */
	const char *chromium;      /* local browser binary; NULL → /usr/lib/chromium/chromium */
	int lease_s;               /* lease length; 0 → KN_WORKER_LEASE_DEFAULT_S; heartbeat every third */
	int poll_ms;               /* pause after an empty claim; 0 → 1000 */
	int once;                  /* return when the queue is empty */
	long max_jobs;             /* return after this many jobs were handled; 0 → no limit */
	int broken_after;          /* consecutive failed replays before "broken"; 0 → 2 */
	kn_validate_opts validate; /* per-replay options (timeouts, step delay) */
	kn_alerts *alerts;         /* health transitions are raised here; NULL: recorded only */
	const char *workflows_dir; /* replay DIR/<task-id>.yaml (keynode/workflow.h) when it exists
	                              instead of the stored steps; NULL: none (borrowed) */
	/* Agent jobs (worker_agent.h): when set, called when no replay job is waiting, to claim and
	 * run one job of another kind: 1 one was run, 0 none was waiting, a negative code (KN_EIO,
	 * KN_EDB: the database) otherwise. ud is borrowed. */
	int (*other_job)(kn_worker *w, void *ud, kn_err *err);
	void *other_ud;
	/* Replay traces (worker_trace.h, keynode.yaml `trace:`): one per stored replay in
	 * trace_root/<run id>/ with its index row (schemas/sql/050_traces.sql), the layout of
	 * `replay --validate --trace`; traces older than trace_keep_days removed hourly. */
	int trace_mode;            /* kn_trace_mode; 0 off */
	const char *trace_root;    /* borrowed; NULL: no traces */
	long long trace_max_bytes; /* screenshots per trace; 0 no cap */
	int trace_keep_days;       /* 0: no sweep here */
} kn_worker_opts;

typedef struct kn_worker_stats {
	long claimed;    /* jobs claimed */
	long completed;  /* results stored (job done) */
	long lost;       /* leases lost before the result could be stored (nothing written) */
	long abandoned;  /* jobs left to lease expiry (browser failure, stop) */
	long retried;    /* failed replays run again in a fresh context */
	long transitions;/* health transitions recorded */
} kn_worker_stats;

/* Connect to the database (twice: jobs and heartbeat), start or reach the browser and the
 * heartbeat thread. *out is the caller's (kn_worker_free). Strings in opts are copied; opts->alerts
 * is borrowed and must outlive the worker. KN_EIO when the database or browser is unreachable. */
int kn_worker_new(kn_worker **out, const kn_worker_opts *opts, kn_err *err);

/* Claim and run jobs until kn_worker_stop, until the queue is empty (opts.once) or max_jobs were
 * handled. 0 on a normal end (a stop included), a negative code when the database stayed
 * unreachable. Call from the thread that created the worker (the local browser is tied to it). */
int kn_worker_run(kn_worker *w, kn_err *err);

/* Ask kn_worker_run to return: the current replay is abandoned at once (its lease expires and
 * another worker takes the job). Safe from any thread, not from a signal handler. */
void kn_worker_stop(kn_worker *w);

void kn_worker_get_stats(kn_worker *w, kn_worker_stats *out);

/* ---- for job kinds run outside worker.c (worker_agent.c): the worker's pieces they share ---- */

struct kn_store;
/* The worker's job connection (run thread only), its id, its lease length. Borrowed. */
struct kn_store *kn_worker_store(kn_worker *w);
const char *kn_worker_id(const kn_worker *w);
int kn_worker_lease_s(const kn_worker *w);
/* The heartbeat holds the lease of job (0: none) from now on. */
void kn_worker_hold(kn_worker *w, int64_t job);
/* 1 when the heartbeat found the held job no longer ours. */
int kn_worker_lease_lost(kn_worker *w);
/* Becomes non-zero when the worker is asked to stop (kn_worker_stop). */
const atomic_int *kn_worker_stop_flag(kn_worker *w);
/* For jobs run on the worker's own thread (services/cli worker_record.c): its CDP loop, and the
 * browser-level websocket URL of its browser (restarted when it died; *out the caller's). */
kn_cdp_loop *kn_worker_loop(kn_worker *w);
int kn_worker_browser_ws(kn_worker *w, char **out, kn_err *err);
/* Count a job in the stats: what is "claimed", "completed", "lost" or "abandoned". */
void kn_worker_count(kn_worker *w, const char *what);
/* One log line through services/log: component=worker worker=ID msg="MSG", then FMT's key=value
 * pairs (FMT may be NULL). */
void kn_worker_log(const kn_worker *w, const char *level, const char *msg, const char *fmt, ...)
	KN_PRINTF(4, 5);

/* Stop the heartbeat, close the connections, stop a local browser and remove its profile.
 * NULL is a no-op. */
void kn_worker_free(kn_worker *w);

#endif
