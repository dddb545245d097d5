/* store.h — keynode's PostgreSQL store: the only code that includes libpq.
 *
 * Everything the service keeps lives here: task sets and versioned tasks, runs and their
 * append-only events, key-node results, replay results, task health and its transitions, alerts,
 * the semantic-verdict cache and the replay job queue. The schema is versioned SQL under
 * schemas/sql/ (NNN_name.sql), applied in order by kn_store_migrate, each file in one transaction.
 * Every statement that carries data goes through PQexecParams or a prepared statement.
 *
 * A kn_store wraps one connection and is not thread-safe: give each thread its own. Functions
 * return 0 or a negative KN_E* code: KN_EDB for a database error (err holds the server's primary
 * message), KN_EIO when the connection is lost and could not be had back for this call,
 * KN_ENOTFOUND, KN_EINVAL. JSON crosses this boundary as
 * text (json_t is the caller's business, not the SQL layer's).
 *
 * kn_ingest (below) is the durable write path of `serve`: a background thread that batches events,
 * spools to disk while the database is unreachable and flushes the spool in order when it is back. */
#ifndef KEYNODE_STORE_H
#define KEYNODE_STORE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "keynode/error.h"
#include "keynode/task.h"

typedef struct kn_store kn_store;

/* Connect to a libpq connection string or URL. *out is the caller's (kn_store_free). KN_EIO
 * with the server's reason when it cannot connect. */
int kn_store_open(kn_store **out, const char *conninfo, kn_err *err);
void kn_store_free(kn_store *st);
/* Lost connections are the store's business (store_reconnect.c): a call that finds its
 * connection lost opens a new one first, and a statement that met the loss is sent once more on
 * a new one when that is safe — a read, or a write that is the same done twice (an upsert, a
 * heartbeat); never inside a transaction, never another write (KN_EIO: the next call reconnects).
 * Callers do not retry. What a session holds (advisory locks) is gone with it: compare
 * kn_store_session before and after to know (1 at open, one more per reconnect). */
unsigned long kn_store_session(const kn_store *st);
/* Reconnect now (the ingest writer's own backoff, tests). */
int kn_store_reset(kn_store *st, kn_err *err);

/* Apply every migration in dir (schemas/sql) not yet applied, in version order, each in one
 * transaction, under an advisory lock (two migrators never race). *applied = how many ran (0 on a
 * re-run). */
int kn_store_migrate(kn_store *st, const char *dir, int *applied, kn_err *err);
/* The schema version (highest applied migration), 0 for an empty database. */
int kn_store_schema_version(kn_store *st, int *out, kn_err *err);

/* ---- task sets and task versions ---------------------------------------------------------- */

/* Store a loaded task set under name (source: the file name, informational). Per task, the task's
 * canonical JSON (kn_store_task_json) is hashed: a new or changed task gets a new version, an
 * unchanged one keeps its current version; old runs keep pointing at the version they ran.
 * *taskset_id is the set's id; *new_versions how many tasks got a new version. */
int kn_store_taskset_put(kn_store *st, const char *name, const char *source, const kn_taskset *set,
                         int64_t *taskset_id, size_t *new_versions, kn_err *err);
/* Same, with author (the API token's name; NULL: unknown) on the maintenance-log rows
 * (store_changes.h, kind upload) written in the same transaction for each task that got a new version. */
int kn_store_taskset_put_by(kn_store *st, const char *name, const char *source, const char *author,
                            const kn_taskset *set, int64_t *taskset_id, size_t *new_versions, kn_err *err);
/* Store t as the next version of the task tasks.id task_id when its canonical JSON differs from the
 * current version's (then current): *version_id the new version's id, 0 when unchanged. *before
 * (may be NULL) the replaced definition (NULL: the first version), *after the new one, both the
 * caller's. No transaction of its own. */
int kn_store_task_version_add(kn_store *st, int64_t task_id, const kn_task *t, int64_t *version_id,
                              char **before, char **after, kn_err *err);

/* The canonical JSON of a task (id, intent, start_url, reference_length, answer, key_nodes with
 * target/matcher/expect/options/function, steps with their hints): stable key order, so equal
 * tasks give equal text. *out is the caller's (free). */
int kn_store_task_json(char **out, const kn_task *task);

/* Resolve an API task reference, "TASK" or "TASKSET:TASK" (unqualified: the most recently loaded
 * set holding that task id), to its current version id. KN_ENOTFOUND when none. */
int kn_store_task_resolve(kn_store *st, const char *ref, int64_t *version_id, kn_err *err);

/* The current definition of a version as a kn_taskset of one task (*out the caller's), so
 * serve/worker can evaluate exactly what the run ran against. */
int kn_store_task_load(kn_store *st, int64_t version_id, kn_taskset **out, kn_err *err);

/* ---- runs, events, key-node results --------------------------------------------------------- */

typedef struct kn_store_run {
	const char *id;          /* run id, unique ("r-…") */
	int64_t task_version;
	const char *kind;        /* "agent" or "replay" */
	const char *browser;     /* CDP endpoint, may be NULL */
	const char *started;     /* RFC 3339 */
	const char *owner;       /* the serve process running it (crash recovery), may be NULL */
	int64_t snapshot;        /* the task-set snapshot it runs under (an agent batch's pin); 0: the
	                          * newest one holding task_version (schemas/sql/150_snapshots.sql) */
} kn_store_run;

/* Record a run's start (status "running"). Idempotent on the run id. */
int kn_store_run_start(kn_store *st, const kn_store_run *run, kn_err *err);

/* Append events: lines[i] is the trajectory line (docs/formats.md §2, JSON text) of event number
 * first_seq + i of run_id (seq from 1). One multi-row statement per call; (run, seq) already
 * stored are skipped, so a retried batch never writes twice. */
int kn_store_events_append(kn_store *st, const char *run_id, int64_t first_seq,
                           const char *const *lines, size_t n, kn_err *err);

/* Record the run's end: result_json is the run result (§3, may carry "llm" usage and "replay"
 * detail); its status, steps, reached, total, score, completion, efficiency and key_nodes (one
 * row per node) are stored in columns as well. Idempotent. */
int kn_store_run_finish(kn_store *st, const char *run_id, const char *ended, const char *result_json,
                        kn_err *err);

/* A whole run at once from its trajectory file (docs/formats.md §2: the header line gives the start
 * time, every other line is an event): start (run->started is ignored), its events in batches,
 * its end now with result_json. Idempotent, as the calls it makes. A trajectory without even a
 * header stores nothing. Used by `keynode worker` for replay runs and agent jobs. */
int kn_store_run_import(kn_store *st, const kn_store_run *run, FILE *traj, const char *result_json,
                        kn_err *err);

/* ---- queries for the API (each returns one JSON text, the caller's) ------------------------ */

/* {"tasks": [{"id", "taskset", "intent", "start_url", "key_nodes": N, "version", "health",
 *   "last_run": {...}|null}]}; site/status filter when not NULL. */
int kn_store_tasks_json(kn_store *st, const char *site, const char *status, char **out, kn_err *err);
/* The task (canonical JSON plus "taskset", "version", "versions", "health", "runs": recent runs,
 * "replays": recent replay results) for an API reference (see kn_store_task_resolve). */
int kn_store_task_get_json(kn_store *st, const char *ref, char **out, kn_err *err);
/* {"runs": [...], "next_before": RUN|null} newest first (started, then id), at most limit (<= 0: 50,
 * at most 1000), optionally for one task reference, older than run before (NULL: from the newest);
 * next_before the last run listed when an older one exists. An unknown before is KN_EINVAL. */
int kn_store_runs_json(kn_store *st, const char *task_ref, const char *before, int limit, char **out,
                       kn_err *err);
/* The run result (§3) plus "kind", "browser", "started", "ended", "events": the first
 * KN_STORE_RUN_EVENTS_INLINE trajectory lines, "events_total" and "events_next": the URL path of
 * the next page (GET /api/runs/{id}/events?after=SEQ) or null when every event is inline. */
#define KN_STORE_RUN_EVENTS_INLINE 1000
#define KN_STORE_EVENTS_PAGE_MAX 10000
int kn_store_run_get_json(kn_store *st, const char *run_id, char **out, kn_err *err);
/* One page of a run's events: {"run", "events": [{"seq", "event": LINE}…] (seq > after, at most
 * limit ≤ KN_STORE_EVENTS_PAGE_MAX, in seq order), "next_after": the last seq or null when no
 * event follows}. KN_ENOTFOUND when there is no such run. */
int kn_store_events_json(kn_store *st, const char *run_id, int64_t after, int limit, char **out,
                         kn_err *err);

/* Crash recovery (schemas/sql/020_run_owner.sql). kn_store_owner_hold takes the session lock of
 * owner on this connection (hold it for the process's life; again after a reconnect).
 * kn_store_orphans_take: the live runs of owners other than me — of those listed in owners (a JSON
 * array of owner ids; NULL: any) — whose lock could be taken (their process is gone) as {"runs":
 * [{"id", "task_version", "task", "owner"}…]}; the locks taken stay held on this connection until
 * kn_store_orphans_release. */
int kn_store_owner_hold(kn_store *st, const char *owner, kn_err *err);
/* The same lock without waiting: *held 1 when taken, 0 when another live session holds it. */
int kn_store_owner_try_hold(kn_store *st, const char *owner, int *held, kn_err *err);
int kn_store_orphans_take(kn_store *st, const char *me, const char *owners, char **out, kn_err *err);
int kn_store_orphans_release(kn_store *st, const char *me, kn_err *err);
/* The replay runs (kind "replay") a dead `keynode worker` left live (its owner lock could be
 * taken: the process is gone, e.g. SIGKILLed between storing the run's start and its end) are
 * ended with status error and reason; me is this worker's owner id (its own runs are never
 * touched). *n (may be NULL) how many. */
int kn_store_replay_orphans_end(kn_store *st, const char *me, const char *reason, size_t *n,
                                kn_err *err);
/* GET /api/replays: {"replays": [{"id", "task", "status", "run", "job", "created", "drift", "broken",
 * "screenshot": bool}…], "next_before": ID|null} newest first, at most limit (≤ 0: 50), optionally for
 * one task reference (all its versions), older than replay before (NULL: from the newest; unknown:
 * KN_EINVAL). */
/* Replay results per status over every worker: *out is {"passed": N, "broken": N, …}, the
 * caller's. */
int kn_store_replay_counts_json(kn_store *st, char **out, kn_err *err);
int kn_store_replays_json(kn_store *st, const char *task_ref, const char *before, int limit,
                          char **out, kn_err *err);

/* ---- replay results, health, jobs (issue "Replay validation") ------------------------------ */

typedef enum kn_health { KN_HEALTH_UNKNOWN, KN_HEALTH_HEALTHY, KN_HEALTH_FLAKY, KN_HEALTH_BROKEN,
	KN_HEALTH_RECOVERED, KN_HEALTH_ERROR, KN_HEALTH_BLOCKED } kn_health; /* BLOCKED: the site refuses service */
const char *kn_health_name(kn_health h);

/* Store a replay result: status "passed"|"broken"|"error", report_json the replay report,
 * screenshot PNG bytes (may be NULL). *id the new row. */
int kn_store_replay_put(kn_store *st, int64_t task_version, const char *run_id, int64_t job_id,
                        const char *status, const char *report_json, const unsigned char *png,
                        size_t png_len, int64_t *id, kn_err *err);
/* The screenshot of a replay result; *out the caller's (free), KN_ENOTFOUND when none. */
int kn_store_replay_screenshot(kn_store *st, int64_t replay_id, unsigned char **out, size_t *len,
                               kn_err *err);

/* Current health of a task (by task key within its set, i.e. across versions). */
int kn_store_health_get(kn_store *st, int64_t task_version, kn_health *state, int *consecutive_failures,
                        kn_err *err);
/* Set the health and, when it changed, record the transition with its evidence (JSON). */
int kn_store_health_set(kn_store *st, int64_t task_version, kn_health state, int consecutive_failures,
                        const char *evidence_json, kn_err *err);
/* {"task", "state", "consecutive_failures", "since", "transitions": [...]} */
int kn_store_health_json(kn_store *st, const char *task_ref, char **out, kn_err *err);

typedef struct kn_store_job {
	int64_t id;
	int64_t task_version;
	int attempt;             /* 1 for the first claim */
	char schedule[64];       /* "" when triggered by the API */
} kn_store_job;

/* Enqueue a replay job. */
int kn_store_job_enqueue(kn_store *st, int64_t task_version, const char *schedule, int64_t *id,
                         kn_err *err);
/* Claim the oldest claimable job (queued, or running with an expired lease) with
 * SELECT … FOR UPDATE SKIP LOCKED, lease it to worker for lease_s seconds. 1 and *job when one
 * was claimed, 0 when the queue is empty. */
int kn_store_job_claim(kn_store *st, const char *worker, int lease_s, kn_store_job *job, kn_err *err);
/* Extend the lease; KN_ENOTFOUND when the job is no longer ours (lease lost). */
int kn_store_job_heartbeat(kn_store *st, int64_t job_id, const char *worker, int lease_s, kn_err *err);
/* In one transaction: check the job is still ours and not done, store the replay result (linked to
 * the watched run run_id, stored before with kn_store_run_*; NULL: none), mark the job done.
 * KN_ENOTFOUND (nothing written) when the lease was lost to another worker. */
int kn_store_job_complete(kn_store *st, int64_t job_id, const char *worker, const char *status,
                          const char *run_id, const char *report_json, const unsigned char *png, size_t png_len,
                          int64_t *replay_id, kn_err *err);

/* ---- agent jobs (store_agent_jobs.c, schemas/sql/060_agent_jobs.sql) ------------------------- */

#define KN_STORE_AGENT_NAME_MAX 64

typedef struct kn_store_agent_job {
	int64_t id, batch, task_version;
	int attempt;             /* claims of this job so far, 1 for the first */
	int attempt_no;          /* which of the batch's K attempts of the task: 1..K */
	char agent[KN_STORE_AGENT_NAME_MAX + 1];
	int retries;             /* the batch's: tries after an infrastructure error (0..10) */
	int64_t snapshot;        /* the batch's snapshot, 0 when it has none */
} kn_store_agent_job;

/* 1 when name is an agent name: 1..64 of [A-Za-z0-9._-], not starting with '.'. */
int kn_store_agent_name_ok(const char *name);
/* In one transaction: a batch of agent jobs, repeat (1..1000) per task, for the tasks refs (n_refs,
 * each resolved as kn_store_task_resolve; a task given twice gets one set of jobs) or every active
 * task of the task set named taskset (exactly one of the two). *batch its id, *n_jobs (may be
 * NULL) the jobs made; retries (0..10): how often a worker runs an attempt again after an
 * infrastructure error. KN_EINVAL bad arguments, KN_ENOTFOUND an unknown task or an empty set.
 * the batch pins a snapshot (*snapshot_id, may be NULL; 0 when its tasks are in no one
 * snapshot): a set's batch runs the versions of its snapshot `snapshot` (a version number; NULL: the
 * newest), a list's the versions current now; a version landing later changes none of its jobs. */
int kn_store_agent_batch_new(kn_store *st, const char *agent, const char *const *refs, size_t n_refs,
                             const char *taskset, const char *snapshot, int repeat, int retries,
                             int64_t *batch, int64_t *snapshot_id, size_t *n_jobs, kn_err *err);
/* Claim the oldest claimable agent job (queued, or running with an expired lease) of one of the
 * n_agents agents, as kn_store_job_claim; kn_store_job_heartbeat extends its lease. 1 and *job
 * when one was claimed, 0 when there is none. */
int kn_store_agent_job_claim(kn_store *st, const char *worker, int lease_s, const char *const *agents,
                             size_t n_agents, kn_store_agent_job *job, kn_err *err);
/* In one transaction: check the job is still leased to worker and not done, store result_json
 * (the attempt's result.json: its "attempt".status, "completed" and "score" are the columns) and
 * mark the job done. KN_ENOTFOUND (nothing written) when the lease was lost. */
int kn_store_agent_job_complete(kn_store *st, int64_t job_id, const char *worker, const char *result_json,
                                kn_err *err);
/* The batch as JSON (services/http/API.md AGENT_BATCH: progress, metrics, per-task results);
 * *out the caller's. KN_ENOTFOUND when there is no such batch. snapshot > 0: the results on that
 * snapshot's task versions (an attempt that ran another version: its rescore, or unscored). */
int kn_store_agent_batch_json(kn_store *st, int64_t batch, int64_t snapshot, char **out, kn_err *err);
/* The batch's plan and stored attempts, for the statistics and the comparison of batches
 * (services/runner/rundir_batch.c): {"id", "agent", "repeat", "created", "snapshot", "tasks":
 * [{"task": "TASKSET:TASK", "site", "sha256" (the hash of what the scorer reads of the version:
 * kn_task_scoring_hash), "version"}…], "results": [{"task", "attempt", "result": the members of
 * result.json kn_run_row_from_json reads (a rescored attempt: those of its rescore), each key node
 * only its score}…]},
 * tasks and results sorted; snapshot > 0 as for kn_store_agent_batch_json. *out the caller's.
 * KN_ENOTFOUND when there is no such batch. */
int kn_store_agent_batch_results_json(kn_store *st, int64_t batch, int64_t snapshot, char **out, kn_err *err);
/* a finished batch's GET /api/agent-runs/{id} answer (KN_BATCH_CACHE_PAGE) and its
 * attempts on its own snapshot as services/runner/rundir_batch.c reads them (KN_BATCH_CACHE_ROWS:
 * kn_store_agent_batch_results_json's plan and rows, packed by run_rows.h), computed once
 * (store_batch_stats.c, schemas/sql/190_batch_stats.sql, 200). *text the stored text (the caller's), NULL on
 * a miss; *claim what kn_store_batch_cache_put stores the computed text under (0: the batch is not
 * finished, nothing is stored). KN_ENOTFOUND when there is no such batch. */
typedef enum { KN_BATCH_CACHE_PAGE, KN_BATCH_CACHE_ROWS } kn_batch_cache;
int kn_store_batch_cache_get(kn_store *st, int64_t batch, kn_batch_cache what, char **text, int64_t *claim,
                             kn_err *err);
/* Store text, computed after kn_store_batch_cache_get gave claim, unless the batch changed since
 * (then nothing: the next reader computes again). */
int kn_store_batch_cache_put(kn_store *st, int64_t batch, kn_batch_cache what, int64_t claim, const char *text,
                             kn_err *err);
/* *batch: the newest finished batch with an id below `below` whose page or packed attempts are not
 * stored (0: none) — what an idle worker computes (services/scheduler/worker_agent.c). */
int kn_store_batch_cache_missing(kn_store *st, int64_t below, int64_t *batch, kn_err *err);
/* A page of batches, newest first (services/http/API.md AGENT_BATCHES): those with an id below
 * before (<= 0: from the newest), at most limit, each with progress and metrics, and
 * "next_before" (the cursor of the next page, null at the last). *out the caller's. */
int kn_store_agent_batches_json(kn_store *st, int64_t before, int limit, char **out, kn_err *err);

/* ---- alerts ---------------------------------------------------------------------------------- */

/* Record an alert unless one with the same dedupe_key is open (not acknowledged): 1 and *id when
 * recorded, 0 when deduplicated. Also sends NOTIFY keynode_alerts with the alert JSON. */
int kn_store_alert_put(kn_store *st, const char *dedupe_key, const char *severity, const char *title,
                       const char *detail_json, int64_t *id, kn_err *err);
/* Record a delivery attempt result for an alert on a channel. */
int kn_store_alert_delivery(kn_store *st, int64_t id, const char *channel, int ok, int attempts,
                            const char *detail, kn_err *err);
int kn_store_alert_ack(kn_store *st, int64_t id, kn_err *err);
/* {"alerts": [...], "next_before": ID|null} newest first, at most limit (<= 0: 100, at most 1000; the API asks 200 by default),
 * older than alert before (NULL: from the newest; unknown: KN_EINVAL). */
int kn_store_alerts_json(kn_store *st, int include_acked, const char *before, int limit, char **out,
                         kn_err *err);

/* ---- semantic verdict cache (plugs into services/llm/verdict.h) ------------------------------ */

/* 1 and *score when cached, 0 when not. */
int kn_store_verdict_get(kn_store *st, const char *model, int prompt, const char *rule,
                         const char *input, double *score, kn_err *err);
int kn_store_verdict_put(kn_store *st, const char *model, int prompt, const char *rule,
                         const char *input, double score, const char *reason, kn_err *err);

/* The PostgreSQL verdict cache as services/llm/verdict.h's kn_verdict_store (include verdict.h
 * to call through it): its own connection behind a mutex, so the judge may call it from several
 * threads; a lost connection is re-opened once per call. *out is the caller's
 * (kn_store_verdicts_free); KN_EIO when the database is unreachable. */
typedef struct kn_store_verdicts kn_store_verdicts;
struct kn_verdict_store;
int kn_store_verdicts_open(kn_store_verdicts **out, const char *conninfo, kn_err *err);
/* The store view (borrowed, lives as long as v). */
const struct kn_verdict_store *kn_store_verdicts_store(kn_store_verdicts *v);
void kn_store_verdicts_free(kn_store_verdicts *v);

/* ---- kn_ingest: the durable, batched write path ---------------------------------------------- */

typedef struct kn_ingest kn_ingest;

typedef struct kn_ingest_opts {
	const char *conninfo;
	const char *spool_dir;       /* where the on-disk spool lives (created) */
	size_t spool_max_bytes;      /* past it, kn_ingest_* return KN_ELIMIT; 0 → 256 MiB */
	int batch_max;               /* events per insert; 0 → 500 */
	int flush_ms;                /* longest an event waits in memory; 0 → 50 */
	int retry_ms;                /* reconnect interval while the database is down; 0 → 1000 */
	/* called on the writer thread (no lock held) after each batch it committed or spooled, so a
	 * server can answer what kn_ingest_poll now says is durable; may be NULL */
	void (*on_durable)(void *ud);
	void *on_durable_ud;
} kn_ingest_opts;

/* Start the writer thread. Records left in the spool by an earlier process are flushed first. */
int kn_ingest_new(kn_ingest **out, const kn_ingest_opts *opts, kn_err *err);
/* Thread-safe enqueues; each returns once the record is in memory (and, when the database is
 * down, in the spool). Order is kept per process. */
int kn_ingest_run_start(kn_ingest *in, const kn_store_run *run, kn_err *err);
int kn_ingest_event(kn_ingest *in, const char *run_id, int64_t seq, const char *line, kn_err *err);
int kn_ingest_run_finish(kn_ingest *in, const char *run_id, const char *ended,
                         const char *result_json, kn_err *err);
/* Durability. Every record enqueued gets the next number; kn_ingest_mark is the number of the
 * last one so far. kn_ingest_wait blocks until every record numbered up to upto is durable —
 * committed by the database, or appended to the spool and fdatasync'ed (one fdatasync covers
 * all records appended before it) — and returns 0; KN_ETIMEOUT after timeout_ms; KN_EIO when a
 * record numbered in (from, upto] was lost (the spool refused it). A writer waiting makes the
 * ingest write at once instead of waiting flush_ms for company. Thread-safe. */
uint64_t kn_ingest_mark(kn_ingest *in);
int kn_ingest_wait(kn_ingest *in, uint64_t from, uint64_t upto, int timeout_ms, kn_err *err);
/* The same without blocking: 1 when durable (0 when not yet — the writer is told to write now;
 * ask again after on_durable), KN_EIO as kn_ingest_wait. Syncs the spool when that is all it
 * takes. */
int kn_ingest_poll(kn_ingest *in, uint64_t from, uint64_t upto, kn_err *err);
/* The spool subfolder name for a database: "DBNAME-XXXXXXXX", the CRC-32 of the connection's
 * host, port, database and user as libpq resolves them (environment and defaults included), so
 * each database gets its own spool and records of one are never flushed into another. */
int kn_ingest_spool_key(char *out, size_t cap, const char *conninfo, kn_err *err);
/* Block until everything enqueued so far is in the database, or timeout_ms passed (KN_ETIMEOUT). */
int kn_ingest_sync(kn_ingest *in, int timeout_ms, kn_err *err);

typedef struct kn_ingest_stats {
	uint64_t events_written, batches, spooled, spool_bytes;
	int db_up;
} kn_ingest_stats;
void kn_ingest_get_stats(kn_ingest *in, kn_ingest_stats *out);

/* Flush what can be flushed (bounded wait), stop the thread. What is not in the database stays in
 * the spool for the next start. */
void kn_ingest_free(kn_ingest *in);

/* ---- schedule fires (services/scheduler; implemented in store_schedule.c, table in
 * schemas/sql/010_schedule.sql) ------------------------------------------------------------------ */

/* Which tasks a schedule fire enqueues: every active task's current version (taskset NULL and
 * n_versions 0), one task set's (taskset = its name), or exactly the given versions. */
typedef struct kn_store_schedule_sel {
	const char *taskset;
	const int64_t *versions;
	size_t n_versions;
} kn_store_schedule_sel;

/* Enqueue one replay job per selected task for the fire of schedule at fire_time (Unix seconds),
 * unless that fire was already enqueued — by this or another scheduler: (schedule, fire_time) is
 * unique and the claim and the jobs are one transaction. 1 and *enqueued (may be NULL) when this
 * call enqueued, 0 when the fire was taken. catch_up is recorded with the fire. */
int kn_store_schedule_fire(kn_store *st, const char *schedule, int64_t fire_time, int catch_up,
                           const kn_store_schedule_sel *sel, size_t *enqueued, kn_err *err);
/* The latest enqueued fire time of schedule; KN_ENOTFOUND when it never fired. */
int kn_store_schedule_last(kn_store *st, const char *schedule, int64_t *fire_time, kn_err *err);

/* ---- change notifications (store_listen.c, schemas/sql/080_notify.sql) ---------------------- */

typedef struct kn_store_listener kn_store_listener;
/* Start a thread that LISTENs on channel (a lowercase identifier) over a connection of its own and
 * calls on_change(ud, up) on that thread: with up = 1 for every batch of notifications and every
 * (re)connection (notifications may have been missed: drop what they would have invalidated), with
 * up = 0 when the connection is lost or cannot be made (retried every 250 ms). The first call
 * comes once the first connection attempt is over. *out the caller's (kn_store_listener_free,
 * which stops and joins the thread). */
int kn_store_listener_new(kn_store_listener **out, const char *conninfo, const char *channel,
                          void (*on_change)(void *ud, int up), void *ud, kn_err *err);
void kn_store_listener_free(kn_store_listener *l);
/* ---- run traces (schemas/sql/050_traces.sql) --------------------------------------- */

/* The replays a drift diff compares (store_drift.c): {"health", "failing", "passing"}, each side
 * {id, run, status, created, version, screenshot (bool), report} or null. failing is replay
 * replay_id when > 0 (it must be the task's), else the task's latest broken replay; passing the
 * last passed replay before it. KN_ENOTFOUND: no such task. */
int kn_store_drift_pair_json(kn_store *st, const char *ref, int64_t replay_id, char **out, kn_err *err);

/* One trace folder kept by `serve --trace` (strings borrowed). */
typedef struct kn_store_trace {
	const char *run_id, *path, *kind, *status;
	int steps, shots, skipped;
	long long bytes;
} kn_store_trace;
/* Upsert the index row of a trace. */
int kn_store_trace_put(kn_store *st, const kn_store_trace *t, kn_err *err);
/* Delete the row of a trace retention removed (no row: nothing to do). */
int kn_store_trace_drop(kn_store *st, const char *run_id, kn_err *err);

#endif
