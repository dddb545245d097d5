/* monitor.h — watch a browser where an agent works and score its task live.
 *
 * The monitor attaches to every tab and popup of one browser (CDP auto-attach with
 * waitForDebuggerOnStart), injects the recorder (services/recorder) into an isolated world of
 * each page behind a binding whose name is random per session, turns recorder payloads and
 * navigations into trajectory events (docs/formats.md §2), writes each one to the trajectory as it
 * happens, and feeds the evaluator. The agent is untouched: it drives the browser over its own
 * connection. Everything runs on the kn_cdp_loop thread. */
#ifndef KEYNODE_MONITOR_H
#define KEYNODE_MONITOR_H

#include <stdio.h>

#include "blocked.h"
#include "cdp.h"
#include "keynode/eval.h"
#include "trace.h"

/* The value the recorder gives a password field's typing (recorder.js): its text is never sent. */
#define KN_RECORDER_PASSWORD_MASK "\u2022\u2022\u2022\u2022"

typedef struct kn_monitor kn_monitor;

typedef struct kn_monitor_opts {
	const kn_task *task;    /* borrowed; must outlive the monitor */
	kn_eval_opts eval;
	const char *run_id;
	FILE *trajectory;       /* JSONL, header + events, flushed per event; NULL: none */
	FILE *progress;         /* progress lines for a person; NULL: quiet */
	int until_finished;     /* end when every key node is reached */
	double until_idle_s;    /* end after this many seconds without an event; 0: off */
	int until_steps;        /* end after this many steps; 0: off */
	int cdp_timeout_ms;     /* per CDP command; 0: default */
	/* after each page load the page is asked, passively, whether it refuses service (blocked.h);
	 * a run that ends unfinished on such a page has status "blocked" and its evidence */
	const kn_blocked_rules *blocked; /* NULL: the defaults */
	int blocked_off;        /* 1: do not ask (replay validation judges blocks itself) */
	/* called after each event was evaluated (optional; for the service) */
	void (*on_event)(void *ud, kn_monitor *m, const kn_event *ev, int rises);
	/* called once when the monitor is ready: every tab open when it connected is attached with
	 * its recorder installed, so what an agent does from now on is seen (optional) */
	void (*on_ready)(void *ud, kn_monitor *m);
	/* called once when the run ended (reason: "finished", "idle", "steps", "stopped",
	 * "browser disconnected", "unreachable"); the monitor may be freed after it returns */
	void (*on_end)(void *ud, kn_monitor *m, const char *reason);
	/* with eval.defer set (an asynchronous judge): at its end the run waits at most this long
	 * for the verdicts awaited (kn_monitor_verdict), then records them as missing; 0 → 30000 */
	int verdict_wait_ms;
	/* called when the run's end starts waiting for pending verdicts (optional) */
	void (*on_verdict_wait)(void *ud, kn_monitor *m, size_t pending);
	/* called with each recorder payload (JSON text, borrowed) just before the event made of it
	 * (optional; `keynode record` takes the element's locator hints from it) */
	void (*on_payload)(void *ud, kn_monitor *m, const char *tab, const char *payload, size_t len);
	/* called with each Network.* event of a tab's own session (params borrowed; optional:
	 * `keynode record` follows the page's failed data requests, services/replay/softpage.h) */
	void (*on_network)(void *ud, kn_monitor *m, const char *tab, const char *method, json_t *params);
	void *ud;
	/* > 0: every tab attached is given this viewport (Emulation.setDeviceMetricsOverride on the
	 * monitor's session, undone when it detaches): `keynode record` records at the workflow's
	 * viewport. 0: the tabs are left as they are */
	int viewport_w, viewport_h;
	/* the run trace (services/trace): fed with every tab, its CDP events and every event; the
	 * caller finishes it after kn_monitor_free. NULL: no trace */
	kn_trace *trace;
	/* watch only the tabs of this browser context (replay validation's own: another context's tabs,
	 * an earlier validation's or an agent's, are never scored in this run); NULL: every tab */
	const char *browser_context;
	/* requests.h: keynode.yaml's guard rules, held beside the task's and its set's
	 * (NULL: none), and the redaction rules for what is written (NULL: the defaults) */
	const struct kn_guard *guard;
	const struct kn_redact *redact;
	int ws_received;        /* 1: WebSocket messages the pages receive are events too (websockets.h) */
	/* 1: on_event gets each event before redaction (keynode record: a workflow step must replay the
	 * card number that was typed; workflow files are the one thing written with it) */
	int on_event_clear;
	/* 1: each recorder payload of a tab's top document carries what the page showed as its action
	 * came (`shows`: services/recorder/shows.js) — keynode record's baseline of the step before */
	int page_views;
	/* asked at every event (optional): 1 while a person holds the page from the live view
	 * (services/live), and the event is then theirs: "human": true, never the agent's step */
	int (*human)(void *ud);
	void *human_ud;
	/* with guard rules, the canary (canary.h) must be held within this many ms before on_ready,
	 * else the run ends as an error, reason "guard not active"; 0: KN_CANARY_TIMEOUT_MS (5 s) */
	int canary_timeout_ms;
} kn_monitor_opts;

/* Connect to the browser at ws_url and start watching. *out is the caller's (kn_monitor_free). */
int kn_monitor_start(kn_monitor **out, kn_cdp_loop *loop, const char *ws_url,
                     const kn_monitor_opts *opts, kn_err *err);

/* Why a run ended: a closed set, one name each (end_reason.c; the text results, the stream and
 * the logs show). */
typedef enum kn_end {
	KN_END_STOPPED,      /* "stopped": its caller stopped it */
	KN_END_FINISHED,     /* "finished": every key node reached (until finished) */
	KN_END_STEPS,        /* "steps": until steps:N */
	KN_END_STEP_LIMIT,   /* "step limit": past the evaluator's step budget */
	KN_END_IDLE,         /* "idle": until idle:S */
	KN_END_BROWSER_GONE, /* "browser disconnected" */
	KN_END_UNREACHABLE,  /* "unreachable": the task's own site did not answer (unreachable.h) */
	KN_END_GUARD,        /* "guard": a guard rule held a request and end_on_guard is on (requests.h) */
	KN_END_GUARD_INACTIVE /* "guard not active": the canary was not held before the agent started
	                       * (canary.h); on_ready never came */
} kn_end;
const char *kn_end_name(kn_end e);
/* The reason whose name is name; KN_EINVAL when none is. */
int kn_end_parse(kn_end *out, const char *name);

/* End the run: flush what the recorders hold, then end for `why`. Loop thread only. */
void kn_monitor_stop(kn_monitor *m, kn_end why);

/* Add an answer event (the agent reported its answer). Loop thread only. */
int kn_monitor_answer(kn_monitor *m, const char *text);

/* Evaluate expression (Runtime.evaluate, returnByValue) in the page of tab (an event's `tab`,
 * "T1"…) over the monitor's own session; cb gets the reply (may be NULL). For `keynode record`,
 * which describes the element an action was recorded on. KN_ENOTFOUND for an unknown tab.
 * Loop thread only. */
int kn_monitor_eval_in_tab(kn_monitor *m, const char *tab, const char *expression,
                           kn_cdp_reply_fn cb, void *ud);

/* A verdict of the asynchronous judge for a judgement the evaluator deferred (eval.opts.defer):
 * it is placed at the step that asked (kn_eval_verdict_detail; detail: the failure's words, may be
 * NULL), the progress is told, `until_finished` may end the run, and an end waiting for verdicts
 * completes once none is awaited. Returns the number of key nodes that rose. Loop thread only. */
int kn_monitor_verdict(kn_monitor *m, const char *rule, const char *input, int rc, double score,
                       const char *detail);

int kn_monitor_ended(const kn_monitor *m);
/* Why the run ended, in a sentence, when the reason has more to say ("guard not active": what the
 * canary saw); NULL otherwise. Borrowed. */
const char *kn_monitor_end_detail(const kn_monitor *m);
const char *kn_monitor_end_reason(const kn_monitor *m); /* kn_end_name; NULL while running */
/* 1 with *out why the run ended, 0 while it runs. */
int kn_monitor_end_cause(const kn_monitor *m, kn_end *out);
const kn_eval *kn_monitor_eval(const kn_monitor *m);
/* The run is an error whatever it reached so far — its caller saw the browser stop answering
 * (services/runner: frozen): the evaluator's status becomes error (a finished run stays finished). */
void kn_monitor_set_error(kn_monitor *m);
unsigned long long kn_monitor_events(const kn_monitor *m);

void kn_monitor_free(kn_monitor *m);

/* Decode one recorder payload (services/recorder/README.md) into ev (owned; kn_event_clear).
 * Only the recorder's action types are accepted; tab and t are left for the caller. */
int kn_monitor_decode_payload(kn_event *ev, const char *payload, size_t len, kn_err *err);

/* What a payload says besides its event: the action time (its `t`, epoch milliseconds of the
 * recorder's clock; 0 when absent) and, for a click that opens a link in a new tab (`newtab`), the
 * link's href (*newtab_href, the caller's; NULL otherwise). */
void kn_monitor_payload_meta(const char *payload, size_t len, double *t_ms, char **newtab_href);

/* The recorder script for a task: recorder.js with its configuration (binding name, the task's
 * element key nodes, shows: the payloads say what the page showed, kn_monitor_opts.page_views) filled
 * in. *out is the caller's. */
int kn_monitor_recorder_source(char **out, const kn_task *task, const char *binding, int shows);

#endif
