/* trace.h — the run trace: per step a screenshot, the acted-on element, console and
 * network trouble, and every key-node check's evidence, as files beside the trajectory.
 *
 * A kn_trace is fed from the monitor's loop thread: the monitor announces each tab it attaches
 * (kn_trace_attach), hands over the CDP events of its tabs (kn_trace_cdp_event) and every event
 * after the evaluator saw it (kn_trace_event); the evaluator reports each key-node check
 * (kn_trace_bind_eval). Captures are asynchronous CDP commands and each step's screenshot is the
 * tab's latest screencast frame at/just after the step (trace_frames.c): nothing here waits, so the
 * agent is never slowed; a step that gets no screenshot says why. kn_trace_finish writes DIR/index.json (schemas/trace.schema.json) — or, in `failures`
 * mode for a run that went well, removes DIR. Every function accepts a NULL trace and does
 * nothing, so callers hook it in unconditionally. Layout: services/trace/README.md. */
#ifndef KEYNODE_TRACE_H
#define KEYNODE_TRACE_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "cdp.h"
#include "keynode/eval.h"
#include "keynode/event.h"

typedef enum kn_trace_mode { KN_TRACE_OFF, KN_TRACE_ON, KN_TRACE_FAILURES } kn_trace_mode;

/* "on", "off", "failures" → mode; KN_EINVAL otherwise. */
int kn_trace_mode_parse(kn_trace_mode *out, const char *s);
const char *kn_trace_mode_name(kn_trace_mode m);

typedef struct kn_trace kn_trace;

typedef struct kn_trace_opts {
	kn_trace_mode mode;     /* ON or FAILURES (OFF: do not create a trace) */
	const char *kind;       /* "run" or "replay" */
	const char *run_id;
	const kn_task *task;    /* borrowed; must outlive the trace */
	int jpeg_quality;       /* 1..100; 0 → 50 */
	double scale;           /* screenshot scale in (0, 1]; 0 → 0.5 */
	long long max_bytes;    /* screenshots stop once they hold this many bytes (the steps say so);
	                         * 0: no limit */
} kn_trace_opts;

/* A trace writing into dir (created when missing; shots/ inside). *out is the caller's
 * (kn_trace_free). */
int kn_trace_new(kn_trace **out, const char *dir, const kn_trace_opts *opts, kn_err *err);

/* Report the key-node checks of ev into the trace (kn_eval_set_evidence). */
void kn_trace_bind_eval(kn_trace *t, kn_eval *ev);

/* A tab the monitor attached: its flattened session on c, its id ("T1"), its main frame id and
 * the name of the monitor's isolated world (the DOM probe runs there). Enables Log and Network and
 * starts the tab's screencast. */
void kn_trace_attach(kn_trace *t, kn_cdp *c, const char *session, const char *tab,
                     const char *frame_id, const char *world);

/* A CDP event of the tab (or one of its frames): console errors, exceptions, failed requests,
 * the main document's HTTP status, the isolated world's context, screencast frames, the main
 * frame's loads (a step whose probe the navigation lost probes the page it led to). params
 * borrowed. */
void kn_trace_cdp_event(kn_trace *t, kn_cdp *c, const char *tab, const char *method,
                        json_t *params);

/* An event the evaluator has just seen: a step opens a new trace step and starts its captures
 * (screenshot, element box, DOM excerpt, title, selector resolution); other events are added to
 * the current step. */
void kn_trace_event(kn_trace *t, kn_cdp *c, const kn_event *ev);

/* Shots taken / skipped so far (for benchmarks and tests). */
void kn_trace_counts(const kn_trace *t, int *shots, int *skipped);

/* The run ended: steps still waiting take their tab's latest frame, then index.json is written with
 * the result of ev and the end reason. failed: the run did not finish / the replay did not pass —
 * in FAILURES mode a trace that did not fail is removed (*kept says which). Call after the monitor
 * is freed (pending probes then failed). */
int kn_trace_finish(kn_trace *t, const kn_eval *ev, const char *end_reason, const char *answer,
                    int failed, int *kept, kn_err *err);

/* Call done(ud) on loop once kn_trace_busy is 0, or after max_ms (a run that ended lets its last
 * probe answer and its last steps take their screenshots before the index is written). NULL
 * trace: done at once. */
void kn_trace_settle(kn_trace *t, kn_cdp_loop *loop, int max_ms, void (*done)(void *ud), void *ud);

/* A replay's verdict (passed, broken, error, blocked) as the index's status instead of the
 * evaluator's (copied). */
void kn_trace_set_verdict(kn_trace *t, const char *status);
/* 1 while a probe is in flight or a step waits for its screenshot (at most 5 s after the step;
 * the monitor hands over the tab's Page events after the run ended too). A caller that drives its
 * own loop serves it until 0, or for as long as it can afford. */
int kn_trace_busy(const kn_trace *t);

/* The trace's folder (borrowed). */
const char *kn_trace_dir(const kn_trace *t);

void kn_trace_free(kn_trace *t);

/* ---- under the service (trace_service.c) ---- */

/* A trace for run_id in root/<run_id>/ (NULL when mode is OFF, root is NULL, the id is not a plain
 * file name, or the folder cannot be made: err says why). */
kn_trace *kn_trace_open_in(const char *root, const char *run_id, kn_trace_mode mode,
                           const kn_task *task, long long max_bytes, kn_err *err);
/* The same for another kind of trace ("run" or "replay": `keynode worker`'s replays). */
kn_trace *kn_trace_open_kind(const char *root, const char *run_id, const char *kind, kn_trace_mode mode,
                             const kn_task *task, long long max_bytes, kn_err *err);
/* Remove root/<run_id>/ when it is a trace folder (its shots, index.json; nothing else). */
void kn_trace_discard(const char *root, const char *run_id);
/* kn_trace_scan for the one trace root/<run_id>/ (any age): 1 reported, 0 no such trace. */
int kn_trace_scan_one(const char *root, const char *run_id,
                      void (*fn)(void *ud, const char *run_id, const char *dir, json_t *idx, long long bytes),
                      void *ud);
/* kn_trace_load of root/<run_id>/ (KN_ENOTFOUND when root is NULL or the id is not a plain file
 * name). */
int kn_trace_load_run(json_t **out, const char *root, const char *run_id, kn_err *err);
/* The fields of a trace's index row (schemas/sql/050_traces.sql) from a checked index (borrowed). */
void kn_trace_row_of(const json_t *idx, const char **kind, const char **status, int *steps, int *shots,
                     int *skipped);
/* Retention: remove the traces under root whose index.json (or, for one never finished, the
 * folder) is older than keep_days, calling removed(ud, run id) for each (may be NULL). Returns how
 * many were removed (≥ 0). Only folders holding a trace's files are touched. */
int kn_trace_sweep(const char *root, int keep_days, void (*removed)(void *ud, const char *run_id),
                   void *ud);
/* The traces under root whose index.json changed at or after since (epoch seconds): fn gets each
 * one's run id, folder, checked index (borrowed) and size in bytes (index + screenshots). A trace
 * whose index does not load is skipped. Returns how many were reported. */
int kn_trace_scan(const char *root, long long since,
                  void (*fn)(void *ud, const char *run_id, const char *dir, json_t *idx, long long bytes),
                  void *ud);

/* ---- reading a trace (trace_read.c) ---- */

#define KN_TRACE_MAX_INDEX (64u * 1024u * 1024u)

/* Load and check DIR/index.json (or a file path): the shape keynode writes (every required
 * member with its type). *out is the caller's (json_decref). err: "<file>: <what>" — a clear
 * error for any malformed input, never a crash. */
int kn_trace_load(json_t **out, const char *path, kn_err *err);
/* The same over a buffer (name for messages). */
int kn_trace_parse(json_t **out, const char *buf, size_t len, const char *name, kn_err *err);

/* ---- words (trace_show.c) ---- */

/* One paragraph per key node ("k3 not reached: at step 4 the selector `#size` resolved to
 * nothing; …") from a loaded index, into idx's key_nodes[i].summary. */
int kn_trace_summarise(json_t *idx);
/* The terminal view of a loaded index: header, steps, evidence, the requests, the node
 * summaries. */
int kn_trace_print(FILE *f, json_t *idx);

/* ---- requests (trace_requests.c) ---- */

/* The requests of a trace index in order (the `request` events its steps hold), as a new array
 * of {step (the step it is credited to), method, url, held, matched (the key-node ids it met),
 * fields ([name, value] pairs, secrets as the trace has them: redacted)}; members of the wrong
 * type count as missing. NULL only when out of memory. */
json_t *kn_trace_requests(const json_t *idx);
/* Print them, one line each, and the body fields indented under it (nothing when none). */
void kn_trace_print_requests(FILE *f, const json_t *requests);

/* ---- drift diff (trace_drift.c) ---- */

/* The drift diff of a task (services/trace/README.md "Drift diff"): the last passing replay's
 * report pass and the failing one's fail (docs/formats.md §3), with their trace indexes when kept
 * (NULL: none; steps are then without screenshots). *out (the caller's) holds "step" (the first
 * step that differs, null when none), "verb", "differs" (of "status", "url", "selector",
 * "drift"), "recorded" (the workflow's element fingerprint), "passing" / "failing" (outcome, url,
 * resolved, drift, selector, locator, locator_score, proposed_selector, detail, trace_step,
 * screenshot, title, element), "key_nodes" ({id, passing, failing, changed}), "changed_key_nodes",
 * "repairs" (fail's, verbatim), "broken" (fail's), and "requests" — both traces' requests paired by
 * method and URL form ({method, url_form, change: same|changed|missing|new, passing, failing,
 * differs of "held", "matched", "fields", fields_changed}) — with "changed_requests" counting
 * those not the same. Any JSON is accepted: members of the wrong
 * type count as missing. KN_EINVAL when a report is not an object. */
int kn_trace_drift(json_t **out, const json_t *pass, const json_t *pass_trace, const json_t *fail,
                   const json_t *fail_trace, kn_err *err);

/* ---- one archive (trace_tar.c) ---- */

/* Write the trace folder dir as a POSIX ustar archive to f, members under prefix/ (index.json
 * first, then shots/). Only regular files; names over 99 bytes are refused. */
int kn_trace_tar(FILE *f, const char *dir, const char *prefix, kn_err *err);

#endif
