/* canary.h — a guard that proves itself before the agent starts (services/monitor/README.md
 * "The guard's canary").
 *
 * When a run has guard rules, the monitor, once every tab is attached (before on_ready), opens a
 * background tab of its own in the run's browser context, sets it up for requests exactly as it
 * sets up the agent's tabs, and sends from it one request per probe to a local endpoint keynode
 * listens on (canary_listener.h): `http://127.0.0.1:PORT/__keynode_canary/<random id>/<probe>`. An
 * internal rule (kn_canary_guard, checked before every other rule) holds them. The canary passes
 * when every probe was held by the monitor and none arrived at the endpoint; it fails when one
 * arrives, or when not every probe is held within the bound (KN_CANARY_TIMEOUT_MS). The canary's tab
 * and requests are never a tab, an event or a step of the run. Probes are a list (canary.c): the
 * HTTP probe is a POST sent by fetch() from the tab's page; with websocket rules in the run, the
 * WebSocket probe is one message sent from that page on a socket to the endpoint's `ws` path, held
 * by the canary's internal `websocket:` rule. Loop thread only. */
#ifndef KEYNODE_MONITOR_CANARY_H
#define KEYNODE_MONITOR_CANARY_H

#include <jansson.h>

#include "cdp.h"
#include "keynode/guard.h"
#include "keynode/request.h"

#define KN_CANARY_TIMEOUT_MS 5000
#define KN_CANARY_PATH "/__keynode_canary/"
#define KN_CANARY_MARKER "about:blank#__keynode_canary_" /* a canary tab's first URL, + its id */

typedef struct kn_canary kn_canary;

typedef struct kn_canary_opts {
	kn_cdp_loop *loop;
	int timeout_ms;              /* the bound; 0: KN_CANARY_TIMEOUT_MS */
	int websocket;               /* 1: the run has websocket rules: the WebSocket probe too */
	const char *browser_context; /* where the canary's tab is opened (the run's); NULL: the default */
	/* set the canary's tab up for requests as the run's tabs are (the monitor's Fetch.enable),
	 * before it runs */
	void (*setup)(void *ud, kn_cdp *c, const char *session);
	/* the tab runs (its document exists): what must be in that document before the probes are sent
	 * (the WebSocket hook); NULL: nothing */
	void (*running)(void *ud, kn_cdp *c, const char *session);
	/* a page kn_canary_claim took while the canary's tab was being created (it attached at no URL
	 * yet) turned out not to be the canary's: the monitor attaches it as it would have (info borrowed
	 * for the call) */
	void (*release)(void *ud, const char *session, json_t *info);
	/* called once: held 1 when every probe was held and none arrived; else 0 and detail, a
	 * sentence saying what went wrong (borrowed for the call) */
	void (*done)(void *ud, int held, const char *detail);
	void *ud;
} kn_canary_opts;

/* Open the endpoint and make the internal rules (a POST to the HTTP probe's URL; with websocket, a
 * `websocket:` rule for the WebSocket probe's socket). *out is the caller's (kn_canary_free). */
int kn_canary_new(kn_canary **out, const kn_canary_opts *o, kn_err *err);
/* The internal rules holding the canary's request and message (borrowed; lives as long as c): the
 * first guard of both the requests' and the WebSocket messages' rule lists. */
const kn_guard *kn_canary_guard(const kn_canary *c);
/* Open the canary's tab and start the clock. KN_EIO when the command could not be sent. */
int kn_canary_start(kn_canary *c, kn_cdp *cdp);
/* A target attached (Target.attachedToTarget's targetInfo): 1 when it is the canary's tab, which
 * is then set up, let run and sent its probes, or another monitor's canary tab on the same browser,
 * which is let run — never a tab of the run — or a page at no URL yet while the canary's tab is
 * being created, kept paused until createTarget answers which it is (then the canary's, or handed
 * back through release); 0 otherwise. c may be NULL (a run without a canary). */
int kn_canary_claim(kn_canary *c, kn_cdp *cdp, const char *session, json_t *info);
/* A request or WebSocket message (req->websocket) the monitor saw (in clear), and the rule that
 * held it (NULL: sent): 1 when it is the canary's, which is then counted and must go nowhere else
 * (the WebSocket probe's upgrade GET included); 0 otherwise. c may be NULL. */
int kn_canary_request(kn_canary *c, const kn_request *req, const kn_guard_rule *held_by);
/* The run ended (or its connection closed: cdp NULL): a canary not decided yet stops without
 * calling done and its tab is closed over cdp; with cdp NULL nothing is sent any more, a close
 * still planned included. NULL c: no-op. */
void kn_canary_abandon(kn_canary *c, kn_cdp *cdp);
/* 1 once done was called (or it was abandoned). */
int kn_canary_done(const kn_canary *c);
/* Stop the clock and close the endpoint (the tab is closed when the canary is done). NULL: no-op. */
void kn_canary_free(kn_canary *c);

/* The test-only knob KEYNODE_TEST_SKIP_FETCH=1 (services/monitor/README.md): the monitor sends no
 * Fetch.enable, so nothing is held and the canary fails — how tests show that an agent never starts
 * under a guard that is not active. 1 when set. */
int kn_canary_test_skip_fetch(void);
/* The test-only knob KEYNODE_TEST_SKIP_WS_HOOK=1: the monitor puts no hook of
 * WebSocket.prototype.send in any page or worker (kn_websockets_opts.skip_hook), so no message is
 * held and the WebSocket probe fails — how tests show that an agent never starts when the
 * WebSocket guard is not active. 1 when set. */
int kn_canary_test_skip_ws_hook(void);

#endif
