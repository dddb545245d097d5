/* runs.h — the live runs registry of `keynode serve`.
 *
 * A run is either watched (POST /api/runs with "browser": a kn_monitor on the registry's
 * kn_cdp_loop thread, which attaches to the browser and turns what the agent does into events) or
 * external (no "browser": the harness posts its own trajectory events, evaluated on the caller's
 * thread). Either way each event gets the next seq (from 1) and goes to kn_ingest (the durable
 * write path), to /api/stream and to the metrics; at the end the run result (§3) is written with
 * kn_ingest_run_finish, an "end" stream message is sent and kn_alerts_run_finished is told.
 * Thread-safe: the HTTP thread calls in, the loop thread runs monitors. */
#ifndef KEYNODE_RUNS_H
#define KEYNODE_RUNS_H

#include <stddef.h>
#include <stdint.h>

#include "alerts.h"
#include "keynode/eval.h"
#include "llm.h"
#include "metrics.h"
#include "store.h"
#include "stream.h"

#define KN_RUNS_MAX_ACTIVE 64        /* more live runs at once: KN_ELIMIT (the API says 429) */
#define KN_RUNS_MAX_EVENTS_POST 10000 /* events in one POST /api/runs/{id}/events */
#define KN_RUN_ID_MAX 40
#define KN_RUNS_MAX_EVENTS 1000000   /* events one run may hold (default of http.max_run_events) */
#define KN_RUNS_DURABLE_WAIT_MS 10000 /* longest an answer waits for its records to be durable */
#define KN_RUNS_VERDICT_WAIT_MS 30000 /* longest an ended run waits for the LLM judge's verdicts */

typedef struct kn_runs kn_runs;

typedef struct kn_runs_opts {
	kn_ingest *ingest;           /* borrowed, required */
	kn_stream *stream;           /* borrowed, required */
	kn_metrics *metrics;         /* borrowed, required */
	kn_alerts *alerts;           /* borrowed, may be NULL */
	kn_eval_opts eval;           /* semantic judge and threshold for every run */
	/* the LLM judge behind eval.semantic, or NULL (offline). When set, judgements run on worker
	 * threads of their own (judge_queue.h), never on the caller's or the runs thread; verdicts
	 * come back into the runs' evaluations as they arrive ("score" stream messages), a run's end
	 * waits for the awaited ones (at most verdict_wait_ms; then they are recorded as missing),
	 * and each result gets an "llm" usage object and a "verdicts" count. */
	kn_llm *llm;
	int verdict_wait_ms;         /* 0 → KN_RUNS_VERDICT_WAIT_MS */
	int judge_threads;           /* judgements in flight at once; 0 → 4 */
	int cdp_timeout_ms;
	const char *owner;           /* this process's id, recorded with each run (crash recovery) */
	long max_events;             /* per run; 0 → KN_RUNS_MAX_EVENTS */
	int durable_timeout_ms;      /* 0 → KN_RUNS_DURABLE_WAIT_MS */
	/* the run trace of watched runs (services/trace): <trace_root>/<run id>/ */
	int trace_mode;              /* kn_trace_mode; 0 off */
	const char *trace_root;
	long long trace_max_bytes;   /* screenshots per run; 0 no cap */
	const struct kn_guard *guard;   /* keynode.yaml's guard rules; NULL: none */
	int canary_timeout_ms;          /* keynode.yaml canary.timeout_ms (monitor.h); 0: the default */
	const struct kn_redact *redact; /* redaction rules; NULL: the defaults */
	/* the other serves' view of the live feed (relay.h): every run message published is also
	 * relayed; NULL: none (borrowed) */
	struct kn_runs_relay *relay;
	/* the live view (services/live): each watched run's page can be watched from the
	 * dashboard (never taken over: the agent drives it); NULL: none (borrowed) */
	struct kn_live_hub *live;
} kn_runs_opts;

/* Start the loop thread. *out the caller's (kn_runs_free). */
int kn_runs_new(kn_runs **out, const kn_runs_opts *opts, kn_err *err);
/* End every live run with reason "stopped" (results written), stop the thread, free. */
void kn_runs_free(kn_runs *r);

/* Start a run of task (taken from set, which the registry now owns — freed on error too) as
 * task_ref (the API reference, for messages) at version. browser: a ws:// URL from
 * kn_cdp_discover, or NULL for an external run. until: "finished" | "idle:S" | "steps:N" | NULL.
 * step_limit: the run's step budget (kn_eval_opts.step_limit: 0 the upstream one, < 0 none); a
 * run whose budget is spent ends with reason "step limit" (status step_limit): a watched one at
 * the step past it, an external one at the events post that spent it.
 * The new run id is written to id (KN_RUN_ID_MAX bytes). A watched run returns once the monitor
 * is ready (every open tab attached, recorders installed: what the agent does from then on is
 * seen), or after KN_RUNS_ATTACH_WAIT_MS; *attached (may be NULL) says which. KN_EINVAL for a bad
 * until, KN_ELIMIT when too many runs are live, KN_ENOTFOUND when the set does not hold task_id. */
#define KN_RUNS_ATTACH_WAIT_MS 5000
int kn_runs_start(kn_runs *r, const char *task_ref, const char *task_id, int64_t version,
                  kn_taskset *set, const char *browser, const char *until, int step_limit,
                  char *id, int *attached, kn_err *err);

/* Feed an external run: body is one trajectory event object, an array of them, or JSON Lines.
 * All are parsed before any is evaluated (a bad one: KN_EINVAL naming it, nothing stored). The
 * call returns once the events are durable (kn_ingest_wait): KN_ETIMEOUT or KN_EIO when they
 * could not be made so in KN_RUNS_DURABLE_WAIT_MS (they were evaluated; they may still be
 * stored). KN_ELIMIT when the run would pass its cap (max_events), nothing evaluated.
 * *out (caller's) is {"id","accepted","steps","score","reached":[…],"status"}: with the LLM
 * judge, the score so far — checks waiting for a verdict count when it comes. *queued is always
 * 0 (kept for the API's callers). KN_ENOTFOUND when no live run has that id, KN_EUNSUPPORTED for
 * a watched run. */
int kn_runs_events(kn_runs *r, const char *id, const char *body, size_t len, char **out,
                   int *queued, uint64_t *hold, kn_err *err);
/* hold (may be NULL: the call waits): hold[0], hold[1] get the kn_ingest ticket range the answer
 * must wait for (kn_ingest_poll) instead, so the server thread is not blocked. */
/* Parse a body of events (one object, an array, or JSON Lines) into *out, n of them (the caller's:
 * kn_traj_events_free). KN_EINVAL naming the first bad event, KN_ELIMIT past
 * KN_RUNS_MAX_EVENTS_POST. Pure: no run is touched. */
int kn_runs_parse_events(kn_event **out, size_t *n, const char *body, size_t len, kn_err *err);
/* Add an answer event. KN_ENOTFOUND when the run is not live. */
int kn_runs_answer(kn_runs *r, const char *id, const char *text, kn_err *err);
/* End the run (reason "stopped") and give its result (§3, caller's). With the LLM judge and
 * verdicts still awaited the end waits for them (at most verdict_wait_ms) without this call:
 * *result is then {"id","status":"finishing","verdicts_pending":N} and the result is written,
 * streamed ("end") and readable once they came. KN_ENOTFOUND when not live. */
int kn_runs_stop(kn_runs *r, const char *id, char **result, kn_err *err);

/* Housekeeping for external runs (idle limits); call every ~100 ms from any thread. */
void kn_runs_tick(kn_runs *r);
/* The semantic judge and threshold every run is scored with (kn_runs_opts.eval; borrowed): what a
 * rescore judges with too. The judge is thread-safe (the offline one, kn_llm). */
const kn_eval_opts *kn_runs_eval(const kn_runs *r);
long kn_runs_active(kn_runs *r);

/* The run result tree (kn_eval_result_json) as the one JSON line stored and returned, without
 * its newline: extended when members were added to the evaluator's (llm, reason). The caller's
 * (free), NULL when out of memory. */
char *kn_runs_result_text(const struct json_t *result, int extended);

/* Crash recovery at start: every run a dead serve process left live (schemas/sql 020) is ended
 * with status error and "reason": "service restarted", scored from its stored events, written,
 * announced on the stream ("end") and alerted — of the owners listed in owners (a JSON array of owner
 * ids; NULL: every dead one). o: ingest unused, owner = this process. *n (may be NULL) how many.
 * Call after the spool left by the dead process was flushed. */
int kn_runs_recover(kn_store *st, const kn_runs_opts *o, const char *owners, size_t *n, kn_err *err);
/* The ids of the live runs into ids (at most cap); returns how many. */
size_t kn_runs_live_ids(kn_runs *r, char (*ids)[KN_RUN_ID_MAX], size_t cap);

/* One orphan sweep (sweep.c): kn_runs_recover of the owners listed (a JSON array
 * of owner ids; NULL: every owner whose lock can be taken), then the serve_instances rows of those
 * dead serves deleted. Logged; *runs (may be NULL) how many runs were ended. serve calls it at
 * start for all (after the spool a dead process left was flushed); the sweeper every period. */
int kn_runs_sweep(kn_store *st, const kn_runs_opts *o, const char *owners, size_t *runs,
                  kn_err *err);
/* The sweeper: a thread that
 * - every second checks the owner lock's connection (lock_st, borrowed: only this thread uses it
 *   from now on); after a reconnect (the lock went with the old session) it takes the lock again,
 *   writes this serve's row again (advertise) and ends the live runs the database says ended
 *   (another serve's sweep took them while this one was cut off);
 * - every period_s seconds sweeps, over a connection of its own, the owners whose lock it could
 *   take at this sweep and the one before: a serve cut from the database for less than a period
 *   keeps its runs, one dead (or cut off) for two periods has them ended "service restarted".
 * o is copied (its pointers borrowed: they outlive the sweeper). *out the caller's. */
typedef struct kn_runs_sweeper kn_runs_sweeper;
typedef struct kn_runs_sweeper_opts {
	const char *conninfo;
	const kn_runs_opts *runs_opts;
	kn_runs *runs;        /* this serve's registry (its runs ended by others are ended here) */
	kn_store *lock_st;    /* the connection holding the owner lock; NULL: not watched */
	const char *advertise;/* this serve's serve_instances address */
	int period_s;
} kn_runs_sweeper_opts;
int kn_runs_sweeper_new(kn_runs_sweeper **out, const kn_runs_sweeper_opts *so, kn_err *err);
/* Stop (a sweep in progress finishes first) and free. */
void kn_runs_sweeper_free(kn_runs_sweeper *s);

/* The current UTC time as RFC 3339 with milliseconds (buf ≥ 32 bytes). */
void kn_runs_now(char *buf, size_t cap);

#endif
