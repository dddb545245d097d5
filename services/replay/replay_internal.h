/* replay_internal.h — what the replayer's files share (not a public contract). */
#ifndef KEYNODE_REPLAY_INTERNAL_H
#define KEYNODE_REPLAY_INTERNAL_H

#include <jansson.h>

#include "cdp.h"
#include "keynode/task.h"
#include "replay.h"
#include "softpage.h"

/* Evaluate page function fn in session of c (a promise it returns is awaited: "wait"); *value is
 * the caller's (JSON null when the function returned nothing). KN_EPROTO for a script exception or
 * a navigating page. */
int kn_replay_page_call(kn_cdp *c, const char *session, const char *fn, json_t *params,
                        json_t **value, kn_err *err);
/* The work tracker installed in the replay tab before the page's scripts (page_js.c). */
extern const char kn_replay_tracker_js[];


/* ---- waiting for the browser (wait.c) */

/* What one tab's session reported so far (counters only grow; kn_replay_mark takes a copy). */
typedef struct kn_replay_waiter {
	kn_cdp_loop *loop;
	kn_cdp *c;
	char session[128], target[128], frame[128]; /* the tab, its session and main frame */
	unsigned long gen;          /* +1 for every event that counts: what kn_replay_wait_any waits for */
	unsigned nav_requested, nav_started, nav_committed, nav_stopped, loads, window_opens, net_started;
	unsigned xhr_started;       /* requests a script made (fetch, XHR) */
	int loading;                /* the main frame started loading and has not stopped */
	int nav_pending;            /* a navigation was requested and has not started yet */
	int uncommitted;            /* the main frame started loading a document not committed yet */
	double nav_requested_at;    /* kn_time_mono_ms */
	double net_at;              /* the last request started or ended */
	double xhr_at;              /* the last script request ended */
	char url[2048];             /* the main frame's URL, as the navigation events said */
	char **req;                 /* requests in flight (ids, owned) */
	size_t n_req, cap_req;
	char popup[128];            /* the newest page target our tab opened */
	int detached;               /* the tab or the connection is gone */
	kn_softpage_failed fails;   /* its script requests that failed (softpage.h) */
} kn_replay_waiter;

typedef struct kn_replay_mark {
	unsigned nav_requested, nav_started, nav_committed, nav_stopped, net_started, window_opens, xhr_started;
	unsigned n_failed;
	char popup[128];
} kn_replay_mark;

/* Start following the tab target (attached as session on c): Page and Network events enabled,
 * counters reset. w keeps its request table between tabs; kn_replay_wait_clear frees it. */
int kn_replay_wait_attach(kn_replay_waiter *w, kn_cdp_loop *loop, kn_cdp *c, const char *session,
                          const char *target, kn_err *err);
void kn_replay_wait_clear(kn_replay_waiter *w);
/* An event of the connection (kn_replay_link_handlers hands them over). */
void kn_replay_wait_event(kn_replay_waiter *w, const char *method, const char *session, json_t *params);
/* Where the counters stand now, to compare with after an action. */
void kn_replay_wait_mark(const kn_replay_waiter *w, kn_replay_mark *m);
/* 1 when the tab's document is in place although the page has not settled: no navigation
 * requested or loading that has not committed, and the document parsed (readyState interactive
 * or complete) — what is late is its `load` or its network. 0 otherwise. */
int kn_replay_wait_in_place(kn_replay_waiter *w);
/* How many script requests (fetch, XHR) of the tab are in flight now. */
size_t kn_replay_wait_scripts_out(const kn_replay_waiter *w);
/* Nothing the action could have caused has shown yet: no navigation, request or window since m. */
int kn_replay_wait_nothing_moved(const kn_replay_waiter *w, const kn_replay_mark *m);
/* Serve the loop until an event counts or ms pass; 1 when an event came. */
int kn_replay_wait_any(kn_replay_waiter *w, int ms);
/* Before an action: the page starts counting its DOM changes (page_js.c mark), so that settling
 * knows whether the action changed anything. early: an action in the top document, whose page's own
 * work (timers, requests) the tracker sees: when it changed nothing and started nothing, its
 * consequence window ends after s->quiet_ms instead of s->consequence_ms. */
void kn_replay_wait_dom_mark(kn_replay_waiter *w, int early);
/* kn_replay_settle flags: the step navigates (goto, back, forward: a navigation is expected, not
 * only possible); the tab was just opened (its first document, about:blank, is not the page); the
 * step's own postcondition is waited for instead of a first consequence (postcond.c). */
#define KN_SETTLE_NAV 1
#define KN_SETTLE_NEW_TAB 2
#define KN_SETTLE_NO_WAIT_FIRST 4
/* After an action taken at mark m: wait until what it started is over — the navigation it asked
 * for or the page requested, loaded; the requests it triggered ended and the network quiet for a
 * short window (bounded); after a script's request, a window for what the script does next; the
 * page says its document is complete; and its DOM held still for s->quiet_ms (an action that
 * changed nothing yet is first given s->consequence_ms to change something). Every wait bounded by
 * s (all fields set: kn_replay_waits_resolve). 0, or KN_ETIMEOUT after s->settle_ms. */
int kn_replay_settle(kn_replay_waiter *w, const kn_replay_mark *m, int flags, const kn_replay_waits *s);

/* ---- what the page shows (page_error.c; the pure half: softpage.h) */

/* What a step left on the page. */
typedef struct kn_replay_page_verdict {
	int shows_error;   /* the page shows a not-found or error state */
	char phrase[64];   /* the phrase it matched */
	char url[512];     /* the own-site data request that counts ("" when only the state counts) */
	int status;        /* its status (0: a network failure) */
} kn_replay_page_verdict;
/* 1 when the page after step st shows an error state, or a data request of the task's sites failed
 * since mark m, that the step's recording did not have (softpage.h kn_softpage_judge), what counts
 * in out; else 0. The step is asked again as the tab's events come until no script request is out
 * and the network has been quiet 500 ms since the judgement began or its last request, and while it
 * has one signal of a removal and not yet the other (kn_softpage_undecided), up to 2.5 s — at once
 * when nothing moved since m and the page's own scripts have no work to come within that window. */
int kn_replay_page_error(kn_replay_waiter *w, const kn_task *task, const kn_step *st, const kn_replay_mark *m,
                         kn_replay_page_verdict *out);

/* ---- postconditions (postcond.c) */

/* The URL got agrees with the recorded expect: the same path, fragment and query parameter names
 * (the site may be served elsewhere; a value may be new each time, as an order number is). */
int kn_replay_url_agrees(const char *expect, const char *got);
/* Wait up to ms until step st's recorded URL (after.url) and navigation (after.navigated: one
 * committed since mark m) hold, from the tab's events: 1 held, 0 not within ms, -1 the step
 * records neither. */
int kn_replay_wait_postcondition(kn_replay_waiter *w, const kn_replay_mark *m, const kn_step *st, int ms);

/* How long a found element may keep moving (scrolling, animating) before the step acts anyway. */
#define KN_REPLAY_STABLE_MS 500
/* The page target the action taken at mark m opened (a popup, a new tab), waited for a short while
 * when the page said it opens one: 1 and its id in out, or 0. */
int kn_replay_wait_popup(kn_replay_waiter *w, const kn_replay_mark *m, char *out, size_t n);

#endif
