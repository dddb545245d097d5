/* replay.h — drive a browser through a task's reference steps over CDP (a basic, scripted agent).
 *
 * The replayer opens its own tab on its own connection and acts through trusted Input.* events
 * (mouse clicks at the element's centre, inserted text, key presses), so a monitor watching the
 * same browser sees what it would see of any agent. Each step waits for its element (bounded) and
 * for the page to settle after it. Issue "Replay validation" makes locating robust. */
#ifndef KEYNODE_REPLAY_H
#define KEYNODE_REPLAY_H

#include <stdio.h>

#include "blocked.h"
#include "cdp.h"
#include "keynode/task.h"
#include "trace.h"
#include "wait_table.h"

/* A step's verdict. OK_FALLBACK: done, but the recorded selector no longer finds the element
 * (a fallback locator or healing did): a drift warning. NAV_TIMEOUT: the document the step led to
 * was not in place (committed and parsed) within settle_ms — the site was slow, which says nothing
 * of a change (a document in place whose `load` is late is gone on with: the step is ok).
 * HTTP_ERROR: the page the step led to answered 4xx/5xx. UNREACHABLE: the site could not be
 * reached (connection refused, DNS). BLOCKED: the page the step led to refused service (blocked.h;
 * the replay stops there). BROWSER_TIMEOUT: the step failed while the browser left a DevTools
 * command unanswered (kn_cdp_stats.timeouts): an overloaded or lost browser, not the site. */
typedef enum kn_step_outcome {
	KN_STEP_OK, KN_STEP_OK_FALLBACK, KN_STEP_NOT_FOUND, KN_STEP_ACTION_FAILED, KN_STEP_NAV_TIMEOUT,
	KN_STEP_HTTP_ERROR, KN_STEP_UNREACHABLE, KN_STEP_BLOCKED, KN_STEP_BROWSER_TIMEOUT,
	KN_STEP_PAGE_ERROR /* the page shows a not-found or error state, or an own-site data request
	                    * failed, that the step's recording did not have (softpage.h) */
} kn_step_outcome;

/* What a step waits for after its action (services/replay/README.md "A step"; keynode.yaml
 * `replay:`): 0 → the default (wait_table.h; quoted below), negative → that wait is off. */
typedef struct kn_replay_waits {
	int settle_ms;        /* the page settled within this, else it goes on once its document is in
	                       * place (a late `load`), or "navigation timeout"; 10000 */
	int quiet_ms;         /* the DOM held still this long (transitions, renders); 100 */
	int quiet_max_ms;     /* a DOM that never holds still is waited for no longer; 1000 */
	int consequence_ms;   /* an action that changed nothing yet is given this long to (a timer); 500 */
	int script_quiet_ms;  /* after a script's request (fetch, XHR) ended, for what it does next; 250 */
	int network_max_ms;   /* requests in flight (polling, streams) are waited for no longer; 1000 */
	int postcondition_ms; /* a step's recorded postcondition (after:) is waited for this long; 5000 */
	int grace_ms;         /* before "key node not reached", the page gets this long to finish; 2000 */
} kn_replay_waits;

/* The expression (for Runtime.evaluate) calling page function fn ("find", "pick", "focus",
 * "select", "state", "excerpt", "describe") of replay's in-page library (page_js.c) with params
 * (borrowed; NULL: {}). The recorder uses it to describe a recorded step's element as replay
 * locates it. Caller frees; NULL when out of memory. */
char *kn_replay_page_expr(const char *fn, json_t *params);

/* wait with every field resolved: the defaults (wait_table.h), and 0 for the waits that are off. */
kn_replay_waits kn_replay_waits_resolve(const kn_replay_waits *wait);

typedef struct kn_replay_opts {
	int element_timeout_ms; /* wait for a step's element; 0 → the default (kn_replay_element_timeout) */
	int command_timeout_ms; /* validation's connection: each DevTools command answered within this
	                         * (kn_cdp_opts.timeout_ms; at least element_timeout_ms + 2000, the
	                         * longest in-page wait); 0 → KN_CDP_TIMEOUT_DEFAULT_MS */
	kn_replay_waits wait;   /* what a step waits for after its action */
	int fallback_after_ms;  /* fallback locators only after the selector failed this long; 0 → 300 */
	int heal_after_ms;      /* healing only after this long; 0 → 1500 (clamped to the element timeout) */
	int step_delay_ms;      /* pause between steps (lets watchers see distinct steps); 0 → none */
	FILE *progress;         /* per-step lines for a person; NULL quiet */
	FILE *answers;          /* `answer` steps are appended here as lines (flushed); NULL: none */
	/* called for each `answer` step (optional; validation feeds the monitor) */
	void (*on_answer)(void *ud, const char *text);
	/* optional: 1 when every key node was reached (validation asks its monitor); after the last
	 * step, while it says 0, the page is given wait.grace_ms to finish what it was doing */
	int (*reached_all)(void *ud);
	void *ud;
	const char *target_id;  /* act in this existing tab instead of a new one; NULL: new tab */
	int evidence;           /* on a failed step capture screenshot, URL and DOM excerpt */
	int viewport_w, viewport_h; /* 0: the task's recorded viewport, else KN_VIEWPORT_DEFAULT_* */
	const kn_blocked_rules *blocked; /* blocked detection after each step; NULL: the defaults */
	/* validation's monitor: keynode.yaml's guard rules beside the task's (NULL: none)
	 * and the redaction rules (NULL: the defaults) */
	const struct kn_guard *guard;
	const struct kn_redact *redact;
	int canary_timeout_ms; /* keynode.yaml canary.timeout_ms (monitor.h); 0: the default */
	/* optional (the live view): asked before step i (0-based) and once after the last
	 * (i == the task's n_steps, st NULL); while it answers 1 the replay is held (a person took over
	 * its page): the loop is served 100 ms and it is asked again */
	int (*before_step)(void *ud, size_t i, const kn_step *st);
	void *step_ud;
} kn_replay_opts;

/* The field of o that wait setting id sets (element_timeout_ms, command_timeout_ms or one of
 * wait): the one map from wait_table.h's index to kn_replay_opts. Borrowed from o. */
int *kn_replay_opts_wait(kn_replay_opts *o, kn_replay_wait_id id);
/* How long a step waits for its element: o's element_timeout_ms, else the default. */
int kn_replay_element_timeout(const kn_replay_opts *o);

/* How one step went. */
typedef struct kn_step_report {
	kn_step_outcome outcome;
	const char *locator;     /* "selector", "id", "name", "aria-label", "role+text", "href", "text",
	                          * "healed"; NULL when the step locates nothing (static strings) */
	double score;            /* 1 for the selector and exact fallbacks, the healing score */
	char *proposed;          /* OK_FALLBACK: a selector that finds the element now (owned) */
	char detail[256];        /* why it failed (or, for a drift, what disagreed); else empty */
	char *url_after;         /* the page's URL once the step settled (owned; NULL: not known) */
	int unsettled;           /* the page had not settled within settle_ms, its document in place:
	                          * gone on (a late `load`, a busy network); the report's "settled": false */
	char *found_now;         /* OK_FALLBACK: the element found, as JSON {alts: [{how, sel}], sig}
	                          * (page_js.c alts; owned; NULL: not taken), for repair.c */
} kn_step_report;

/* What the page looked like when a step failed (all owned, any may be NULL). */
typedef struct kn_replay_evidence {
	char *url;
	char *dom_excerpt;          /* outerHTML of the closest existing ancestor, ≤ ~2 KB */
	unsigned char *png;         /* Page.captureScreenshot, decoded */
	size_t png_len;
} kn_replay_evidence;

typedef struct kn_replay_result {
	size_t n_steps;             /* steps attempted */
	kn_step_report *steps;      /* one per attempted step */
	int failed_step;            /* 1-based index of the first failed step, 0 when all passed */
	char detail[256];           /* why it failed */
	char *answer;               /* the task's answer step text, if any (borrowed from the task) */
	char *target_id;            /* the tab the replay ended in (owned) */
	kn_replay_evidence evidence;/* opts->evidence and a step failed */
	kn_blocked_hit blocked;     /* the failed step's outcome is BLOCKED: what blocked it */
	char *error_request;        /* PAGE_ERROR: the own-site data request that failed (owned; NULL:
	                             * only the page's not-found state counts) */
	int error_status;           /* its status (0: a network failure) */
} kn_replay_result;

/* The handlers of a connection the replayer acts on: kn_cdp_link's open / closed, and the browser
 * events a replay running on it waits for (page lifecycle, network, new tabs) instead of sleeping.
 * Connect with h = kn_replay_link_handlers(&l); l must outlive the connection. */
typedef struct kn_replay_link {
	kn_cdp_link link;
	struct kn_replay_waiter *waiter; /* the running replay's (set by kn_replay_task); else NULL */
} kn_replay_link;
kn_cdp_handlers kn_replay_link_handlers(kn_replay_link *l);
/* Serve loop until the connection opened or closed (at most timeout_ms): 1 when open. */
int kn_replay_link_wait_open(kn_replay_link *l, kn_cdp_loop *loop, int timeout_ms);

/* What a type step types: its value ("" when it has none), or for a `secret:` step the environment
 * variable KN_SECRET_<secret> (its name written into var, cap bytes), NULL when that is not set. */
const char *kn_replay_secret(const kn_step *st, char *var, size_t cap);

/* Replay task's steps in a new tab of the browser on connection c (or opts->target_id); link is
 * the one c was connected with (kn_replay_link_handlers). Returns 0 when every step succeeded (OK
 * or OK_FALLBACK), KN_EINVAL when a step failed (see res), other codes when the browser failed.
 * res is the caller's (kn_replay_result_clear) in every case. */
int kn_replay_task(kn_cdp_loop *loop, kn_cdp *c, kn_replay_link *link, const kn_task *task,
                   const kn_replay_opts *opts, kn_replay_result *res, kn_err *err);
void kn_replay_result_clear(kn_replay_result *res);
void kn_replay_evidence_clear(kn_replay_evidence *ev);

/* Capture evidence from the page of session (a flattened CDP session of c): URL, the outerHTML
 * of the closest existing ancestor of selector (NULL: body), a screenshot. Best effort: what
 * cannot be had stays NULL. ev is the caller's (kn_replay_evidence_clear). */
void kn_replay_capture(kn_cdp *c, const char *session, const char *selector, kn_replay_evidence *ev);

/* "ok", "ok-by-fallback", "element not found", "action failed", "navigation timeout",
 * "http error", "site unreachable", "blocked", "browser timeout", "page shows an error". */
const char *kn_step_outcome_name(kn_step_outcome o);
/* 1 for OK and OK_FALLBACK. */
int kn_step_outcome_ok(kn_step_outcome o);

/* ---- replay validation (issue "Replay validation"; used by `keynode replay` and `keynode worker`)
 * Replay a task's reference workflow in a fresh browser context on the browser at ws_url, watched
 * and scored by the monitor (services/monitor) exactly like an agent run, and judge it: per step
 * ok / ok-by-fallback / element not found / action failed / navigation timeout, with the locator
 * that worked and its score (a fallback or healed locator is a drift warning with the proposed
 * new selector); per key node reached / not reached. "passed" only when every step succeeded and
 * every key node was reached; "broken" otherwise; "error" when the site or browser was
 * unreachable (connection refused, DNS, TLS: a goto that failed, or a page of the task's own
 * site that did not answer, seen by the monitor: services/monitor/unreachable.h), and when the
 * failed step is a navigation timeout or a browser timeout (slow or overloaded says nothing of a
 * change). A failure carries a screenshot, the URL and a DOM
 * excerpt around where the element was expected. Each call opens (and closes) its own two
 * connections and browser context: safe to call again and again on one loop. */
/* BLOCKED: the site refused service (a step's outcome was "blocked"): neither passed nor broken. */
typedef enum kn_replay_status { KN_REPLAY_PASSED, KN_REPLAY_BROKEN, KN_REPLAY_ERROR, KN_REPLAY_BLOCKED } kn_replay_status;

typedef struct kn_replay_report kn_replay_report;

/* Who watches a validation while it runs (services/live, the live view and takeover).
 * begin: the replay's tab exists (its target id; loop thread). step: kn_replay_opts.before_step.
 * end: the replay's steps are over (status: kn_replay_status_name; "" when not judged yet); what
 * people did in the page meanwhile as a JSON array (a new reference; NULL: nothing), kept in the
 * report's replay.takeovers — human steps, never the replay's own. */
typedef struct kn_replay_watch {
	void (*begin)(void *ud, kn_cdp_loop *loop, const char *ws_url, const char *target_id,
	              const char *run_id, const kn_task *task);
	int (*step)(void *ud, size_t i, const kn_step *st);
	json_t *(*end)(void *ud);
	void *ud;
	/* 1 while a person holds the page (optional): the monitor's events are then theirs ("human":
	 * true in the trajectory, never the replay's steps) */
	int (*taken)(void *ud);
} kn_replay_watch;

typedef struct kn_validate_opts {
	kn_replay_opts replay;
	const kn_replay_watch *watch; /* NULL: nobody can watch */
	int fresh_context;      /* new browser context per replay (default behaviour: 1) */
	const char *run_id;     /* run id of the watched run; NULL: generated */
	FILE *trajectory;       /* the watched run's events (JSONL); NULL: none */
	kn_trace *trace;        /* the run trace (services/trace), finished here with the verdict; NULL: none */
	int repairs;            /* propose repairs and verify them by a second replay (repair.c): the
	                         * report's "repairs"; 0: none (the report has no "repairs") */
	kn_format task_format;  /* the task file's format: key-node proposals in its syntax */
} kn_validate_opts;

/* The step's recorded element (selector hints, record-time fingerprint, postcondition URL) as a
 * report step's "recorded" object (recorded.c); NULL when the step carries none. New reference. */
json_t *kn_replay_step_recorded(const kn_step *st);

/* Run the validation; *out is the caller's (kn_replay_report_free) whenever 0 is returned,
 * including for a broken or error verdict. A negative code only when nothing could be judged. */
int kn_replay_validate(kn_cdp_loop *loop, const char *ws_url, const kn_task *task,
                       const kn_validate_opts *opts, kn_replay_report **out, kn_err *err);
kn_replay_status kn_replay_report_status(const kn_replay_report *r);
const char *kn_replay_status_name(kn_replay_status s);   /* "passed", "broken", "error", "blocked" */
/* The report as JSON text (borrowed): the run result (docs/formats.md §3, status "finished" etc.
 * replaced by passed/broken/error and "broken": {step, reason, selector, url, dom_excerpt}) plus
 * "replay": {"steps": [{step, verb, outcome, locator, locator_score, selector, proposed_selector}],
 * "drift": [...], "key_nodes": [...]}, and with opts->repairs "repairs": [...] (repair.h;
 * schemas/replay-report.schema.json) */
const char *kn_replay_report_json(const kn_replay_report *r);
/* Why a replay did not pass — the report's "broken" member, or "blocked" — for callers to read
 * without parsing the report. Strings borrowed from the report. */
typedef struct kn_replay_failure {
	int step;                      /* the step that failed, or that a key node's failure is
	                                * attributed to (1-based); 0 when none */
	const char *key_node;          /* the key node not reached (no step failed); NULL when none */
	const char *reason;            /* broken: "element not found", "key node not reached", …;
	                                * blocked: the signature of the rule that matched */
	const char *detail;            /* NULL when none */
	const kn_blocked_hit *blocked; /* status blocked: what refused service; NULL otherwise */
} kn_replay_failure;
/* The failure of a report whose status is not passed; NULL for a passed one. */
const kn_replay_failure *kn_replay_report_failure(const kn_replay_report *r);
/* Record the name under which the caller stored the screenshot ("broken": {"screenshot": name}). */
int kn_replay_report_set_screenshot_name(kn_replay_report *r, const char *name);
/* Say which reference workflow was replayed: workflow_json (a JSON object, e.g. {"source":
 * "stored", "version": 3}) becomes the report's "workflow" (schemas/run-result.schema.json).
 * KN_EINVAL when it is not an object. */
int kn_replay_report_set_workflow(kn_replay_report *r, const char *workflow_json);
/* The drift warnings: n, and for each the step (1-based), its selector and the proposed one
 * (borrowed). */
size_t kn_replay_report_drift(const kn_replay_report *r, size_t i, int *step, const char **selector,
                              const char **proposed);
/* Print the report's repair proposals ("repairs", repair.c) for a person to f; nothing when none. */
void kn_replay_report_print_repairs(const kn_replay_report *r, FILE *f);
/* The failure screenshot (PNG, borrowed), NULL/0 when none. */
const unsigned char *kn_replay_report_screenshot(const kn_replay_report *r, size_t *len);
const char *kn_replay_report_run_id(const kn_replay_report *r);
void kn_replay_report_free(kn_replay_report *r);

#endif
