/* websockets.h — the WebSocket messages a watched run's pages and workers send, and the guard that
 * holds some of them (services/monitor/README.md "WebSocket messages").
 *
 * CDP has no way to pause a WebSocket frame, so messages are taken where the page sends them: every
 * page, frame and dedicated-worker session gets, before it runs, a binding and a hook of
 * WebSocket.prototype.send (websocket_hook.c). Each message the hook reports is parsed as a request
 * body is (kn_body_parse, as JSON; what is not JSON is the one field `$body`), redacted as one is,
 * and, when some websocket guard rule exists, decided at once: a match is dropped in the page (held),
 * anything else released to the real send, in the order the messages came. Without such rules the
 * hook sends at once and only reports. As a second source every such session has Network enabled:
 * a frame on the network that no hook reported (a service worker's socket, a page that kept the
 * native send for itself) is reported as watched_only — never held — and the owner warns. With
 * `received`, frames the sockets receive are reported too (direction "received"). */
#ifndef KEYNODE_MONITOR_WEBSOCKETS_H
#define KEYNODE_MONITOR_WEBSOCKETS_H

#include <jansson.h>

#include "cdp.h"
#include "keynode/guard.h"
#include "keynode/redact.h"
#include "keynode/request.h"
#include "requests.h"

typedef struct kn_websockets kn_websockets;

/* A message seen: in clear (for key nodes) and redacted (for what is written), the session it came
 * from; held_by the rule that held it (NULL: sent or received). Borrowed for the call. */
typedef struct kn_ws_seen {
	const char *session;
	const kn_request *clear, *redacted;
	const kn_guard_rule *held_by;
} kn_ws_seen;

typedef struct kn_websockets_opts {
	const kn_guard *guards[4]; /* the canary's, the task's, its set's, keynode.yaml's; NULL skipped */
	const kn_redact *redact;   /* NULL: the defaults */
	int received;              /* 1: report received messages too */
	int skip_hook;             /* test only (KEYNODE_TEST_SKIP_WS_HOOK, canary.h): no hook in any page
	                            * or worker — messages are seen on the network only, none is held */
	void (*on_message)(void *ud, const kn_ws_seen *w);
	/* A worker's message waits for barrier's done(arg, c) (requests.h: the events its tab sent
	 * until now come first). NULL: no wait. */
	void (*barrier)(void *ud, kn_cdp *c, const char *session, void (*done)(void *arg, kn_cdp *c),
	                void *arg);
	void *ud;
} kn_websockets_opts;

int kn_websockets_new(kn_websockets **out, const kn_websockets_opts *o);
/* After the CDP connection is closed. NULL is a no-op. */
void kn_websockets_free(kn_websockets *w);
/* The binding's name (random per kn_websockets; for tests). Borrowed. */
const char *kn_websockets_binding_name(const kn_websockets *w);
/* 1 when some websocket guard rule exists (sends wait for the monitor's decision). */
int kn_websockets_guarded(const kn_websockets *w);
/* Set up a page or iframe session before it runs: the binding and the hook for every document to
 * come and the current one. network: also Network.enable (a tab session enables it itself). */
void kn_websockets_attach_page(kn_websockets *w, kn_cdp *c, const char *session, int network);
/* The binding and the hook at once in the session's current document (after attach_page, once the
 * page runs): for a page whose first document may never count as a new one — the canary's
 * about:blank tab. */
void kn_websockets_hook_now(kn_websockets *w, kn_cdp *c, const char *session);
/* Set up a dedicated worker's session before it runs (its script has not started): the binding,
 * the hook evaluated now, Network. A service worker gets Network only: its messages are watched,
 * never held. The caller sends Runtime.runIfWaitingForDebugger after. */
void kn_websockets_attach_worker(kn_websockets *w, kn_cdp *c, const char *session, int service_worker);
/* A session went away. */
void kn_websockets_detach(kn_websockets *w, const char *session);
/* Feed an event of any session. 1 when it was the hook's binding call, a WebSocket network event or
 * another Network event of a worker session whose Network only this module enabled (taken: nobody
 * else is to see it), else 0. Every message the hook holds back is answered, also after the run ended (ended:
 * nothing more is recorded; a message a rule matches stays held). */
int kn_websockets_event(kn_websockets *w, kn_cdp *c, const char *session, const char *method,
                        json_t *params, int ended);

/* The monitor is leaving (the run stops): tell every hook it has put into a page, frame or worker to
 * stop waiting for answers, so no page's send waits forever once the connection is gone. Messages
 * already waiting are still answered while the connection lasts. cb(ud, …) comes with each command's
 * reply; returns how many were sent, so the owner can keep the connection until they are answered
 * (a shared worker, or a page in the back/forward cache, outlives the run with its hook). */
int kn_websockets_release(kn_websockets *w, kn_cdp *c, kn_cdp_reply_fn cb, void *ud);

/* The hook's source (websocket_hook.c) for binding and release names and the release's key; defer 1
 * makes every send wait for the release. *out is the caller's. */
int kn_websocket_hook_source(char **out, const char *binding, const char *release, const char *key,
                             int defer);

/* Build a message: url, direction, the payload (text, or bytes) parsed as a request body is, *clear
 * as sent and *redacted with secrets replaced, their strings owned by *store
 * (kn_request_store_free, requests.h). For tests and fuzzing too. */
int kn_websocket_build(kn_request_store **store, kn_request *clear, kn_request *redacted,
                       const char *url, const char *direction, const char *payload, size_t len,
                       int binary, const kn_redact *rules);

#endif
