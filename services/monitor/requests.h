/* requests.h — the HTTP requests a watched run's pages send, and the guard that holds some of them
 * (services/monitor/README.md "Requests and the guard").
 *
 * With guard rules or request key nodes, every attached target (tabs, out-of-process iframes,
 * dedicated workers) gets Fetch.enable for the resource types a page sends data with — every
 * resource type when a guard rule may hold a GET (kn_guard_holds_gets: it may name an image) — the
 * browser session too (service workers' requests are decided there, kn_requests_attach_browser), and each
 * paused request is decided at once: a match is held (answered by keynode, never sent), anything
 * else continued. Interception is also what gives every body: Chromium keeps a form
 * upload's file parts from the Network domain ("No post data available"), not from Fetch. Without
 * either, requests are only seen on Network.requestWillBeSent in every tab and iframe session (a
 * body not inlined is asked for with Network.getRequestPostData; a file upload's then stays
 * unknown). What is recorded: every request whose method is not GET, HEAD or OPTIONS, every held
 * request, and with request_nodes the GET requests of fetch, XHR and beacons. Each recorded
 * request reaches the owner twice over: in clear (for key nodes) and redacted (for everything
 * written). */
#ifndef KEYNODE_MONITOR_REQUESTS_H
#define KEYNODE_MONITOR_REQUESTS_H

#include <jansson.h>

#include "cdp.h"
#include "keynode/guard.h"
#include "keynode/redact.h"
#include "keynode/request.h"

typedef struct kn_requests kn_requests;

/* A request seen: the same request in clear and redacted, the session it came from, its CDP
 * resource type ("Document", "XHR", "Fetch", "Ping", …) and when it was sent (epoch ms, 0 unknown).
 * Everything is borrowed for the call. */
typedef struct kn_request_seen {
	const char *session, *type;
	const kn_request *clear, *redacted;
	double wall_ms;
	const kn_guard_rule *held_by; /* the rule that held it; NULL: sent */
} kn_request_seen;

typedef struct kn_requests_opts {
	const kn_guard *guards[4]; /* the task's, its set's, keynode.yaml's; NULL entries skipped */
	const kn_redact *redact;   /* NULL: the defaults */
	int request_nodes;         /* the task has request key nodes: intercept to read every body,
	                            * and record GET fetch/XHR/beacon requests too */
	void (*on_request)(void *ud, const kn_request_seen *r);
	/* A service worker's paused request waits for barrier's done(arg, c) before it is decided and
	 * recorded (session NULL: the owner calls done once the events every tab sent until now have
	 * arrived); a request seen at a target session, before it is recorded only — it is decided at
	 * once — with that session (done once that session's events sent until now are in, or after a
	 * deadline). The click that caused the request comes first, and the request credits its step.
	 * NULL: no wait. */
	void (*barrier)(void *ud, kn_cdp *c, const char *session, void (*done)(void *arg, kn_cdp *c),
	                void *arg);
	void *ud;
	int skip_fetch; /* test only (KEYNODE_TEST_SKIP_FETCH, canary.h): never send Fetch.enable */
} kn_requests_opts;

int kn_requests_new(kn_requests **out, const kn_requests_opts *o);
/* After the CDP connection is closed (its pending replies have failed). NULL is a no-op. */
void kn_requests_free(kn_requests *r);
/* 1 when some guard rule exists. */
int kn_requests_guarded(const kn_requests *r);
/* 1 when requests are intercepted (rules or request key nodes). */
int kn_requests_intercepting(const kn_requests *r);
/* Set up a newly attached target's session before it runs: Network.enable when network (tab
 * sessions enable it themselves), Fetch.enable when intercepting (rules or request key nodes). */
void kn_requests_attach(kn_requests *r, kn_cdp *c, const char *session, int network);
/* The browser session's Fetch.enable (when intercepting), sent before the auto-attach: service
 * workers' requests are decided there. Chromium gives a service worker its loaders when it starts,
 * before any session on it could enable Fetch, and a later Fetch.enable on the worker's own session
 * does not reach a worker started from installed scripts (one registered earlier, started again for
 * a page); a browser session's Fetch is in the loaders of every worker started after it. A request
 * of the run's frames (kn_requests_frame) whose networkId no target session continued is decided
 * there too, as its target's session would have: a tab's pagehide/beforeunload beacon or keepalive
 * fetch sent as the tab closes pauses only there, after the tab's session is gone. Every other
 * request pausing there — a tab's, once more after its own session let it go (its networkId
 * remembered), another browser context's — is continued at once. A worker's body Chromium keeps
 * back is not asked for there (no networkId): a rule on a body field does not see it. */
void kn_requests_attach_browser(kn_requests *r, kn_cdp *c);
/* A frame of the run (a tab's target id): a request of it pausing at the browser session that no
 * target session continued is decided there (kn_requests_attach_browser). Frames whose requests
 * paused at a target session are the run's too, without this call. */
void kn_requests_frame(kn_requests *r, const char *frame_id);
/* A service worker target of the run's browser context is there (alive) or gone: its requests
 * paused at the browser session (frameId: the worker's target id) are the run's. */
void kn_requests_worker(kn_requests *r, const char *target_id, int alive);
/* Feed an event of any session. 1 when it was a request event it took (Network.requestWillBeSent
 * or Fetch.requestPaused), else 0. Fetch.requestPaused is always answered, also after the run ended
 * (ended: nothing more is recorded, held requests stay held). */
int kn_requests_event(kn_requests *r, kn_cdp *c, const char *session, const char *method,
                      json_t *params, int ended);

/* Build the request of params' "request" object (Network.Request) with body bytes: *clear the
 * request as sent, *redacted the same with secrets replaced (redact.h). Both own their strings in
 * *store (kn_request_store_free). For tests and fuzzing. */
typedef struct kn_request_store kn_request_store;
int kn_request_build(kn_request_store **store, kn_request *clear, kn_request *redacted,
                     json_t *request, const char *body, size_t body_len, const kn_redact *rules);
void kn_request_store_free(kn_request_store *s);

#endif
