/* cdp.h — a Chrome DevTools Protocol client on libwebsockets.
 *
 * One kn_cdp_loop owns an lws context and runs on one thread; any number of browser connections
 * (kn_cdp) live in it. A connection speaks flattened CDP: commands carry an optional sessionId,
 * replies are matched to commands by id (each with its own timeout), events are dispatched to
 * one handler with their method and sessionId. Messages of any size up to a cap are reassembled;
 * a larger one is reported and skipped, the connection kept. When the browser goes away the
 * connection's on_close says why and every pending command fails. Only this folder includes lws
 * client headers. */
#ifndef KEYNODE_CDP_H
#define KEYNODE_CDP_H

#include <stddef.h>

#include <jansson.h>

#include "keynode/error.h"

#define KN_CDP_MAX_MESSAGE_DEFAULT (64u * 1024u * 1024u)
#define KN_CDP_TIMEOUT_DEFAULT_MS 30000

/* --- endpoint discovery --- */

/* Resolve a browser endpoint to its browser-level websocket URL:
 *   "ws://HOST:PORT/devtools/browser/ID"  as is;
 *   "http://HOST:PORT"                    GET /json/version (libcurl), webSocketDebuggerUrl;
 *   a path to a DevToolsActivePort file   line 1 port, line 2 path → ws://127.0.0.1:PORT/PATH
 *   (or the user-data-dir holding it; a missing or half-written file is re-read until timeout_ms).
 * *out is the caller's (free()). KN_EIO/KN_ETIMEOUT when unreachable, KN_EPROTO on a bad answer,
 * KN_ENOTFOUND when the file's directory does not exist, KN_EINVAL for another scheme. */
int kn_cdp_discover(char **out, const char *endpoint, int timeout_ms, kn_err *err);

/* GET base/json/version of an http://HOST:PORT endpoint: *out the answer object (Browser,
 * User-Agent, Protocol-Version, V8-Version, webSocketDebuggerUrl; the caller's). KN_ETIMEOUT,
 * KN_EIO (no answer), KN_EPROTO (not 200, not a JSON object, too large), KN_ENOMEM. */
int kn_cdp_version(json_t **out, const char *base, int timeout_ms, kn_err *err);

/* --- message decoding (pure; fuzzed) --- */

typedef enum kn_cdp_msg_kind { KN_CDP_REPLY, KN_CDP_EVENT } kn_cdp_msg_kind;

typedef struct kn_cdp_msg {
	kn_cdp_msg_kind kind;
	long long id;           /* reply: the command id */
	const char *method;     /* event: method name */
	const char *session_id; /* NULL for the browser session */
	json_t *params;         /* event params / reply result (borrowed from root; may be NULL) */
	const char *error;      /* reply: error.message when the command failed, else NULL */
	json_t *root;           /* owns everything above: json_decref(root) when done */
} kn_cdp_msg;

/* Decode one complete CDP message. KN_EPROTO (with err) for invalid JSON or a wrong shape. */
int kn_cdp_decode(kn_cdp_msg *out, const char *buf, size_t len, kn_err *err);

/* --- the loop --- */

typedef struct kn_cdp_loop kn_cdp_loop;

int kn_cdp_loop_new(kn_cdp_loop **out, kn_err *err);
/* Closes every connection still open (their on_close runs) and frees the loop. NULL is a no-op. */
void kn_cdp_loop_free(kn_cdp_loop *loop);

/* Run the loop until kn_cdp_loop_stop. Returns 0, or a negative code if lws failed.
 * run, run_for and kn_cdp_call must not be entered from inside a loop callback (KN_EINVAL). */
int kn_cdp_loop_run(kn_cdp_loop *loop);
/* Serve for at most ms milliseconds (for callers that drive the loop themselves); ms <= 0: one
 * turn without waiting. */
int kn_cdp_loop_run_for(kn_cdp_loop *loop, int ms);
/* Serve until done(ud) is true or ms milliseconds have passed, whichever comes first: done is
 * checked before the first turn and after each one, so whatever a callback changes (an event, a
 * reply, a timer) ends the wait as soon as that turn returns (for callers that wait for browser
 * events instead of sleeping). Returns 1 when done, 0 at the deadline or when the loop was stopped,
 * KN_EINVAL from inside a loop callback, KN_EIO if lws failed. */
int kn_cdp_loop_run_until(kn_cdp_loop *loop, int ms, int (*done)(void *ud), void *ud);
/* Make kn_cdp_loop_run return; safe from any thread and from signal-free contexts
 * (sets a flag and wakes the loop with lws_cancel_service). Sticky: afterwards run, run_for and
 * kn_cdp_call return at once. */
void kn_cdp_loop_stop(kn_cdp_loop *loop);
int kn_cdp_loop_stopped(const kn_cdp_loop *loop);

/* Call fn(ud) on the loop thread after ms milliseconds (0: on the next turn). Loop thread only.
 * The returned handle cancels it with kn_cdp_timer_cancel (NULL: could not schedule); it is
 * valid until fn has run (cancelling from inside fn is a no-op). */
typedef struct kn_cdp_timer kn_cdp_timer;
kn_cdp_timer *kn_cdp_timer_start(kn_cdp_loop *loop, int ms, void (*fn)(void *ud), void *ud);
void kn_cdp_timer_cancel(kn_cdp_timer *t);

/* Run fn(ud) on the loop thread soon; safe from any thread. Posts still queued when the loop is
 * freed are dropped. */
int kn_cdp_loop_post(kn_cdp_loop *loop, void (*fn)(void *ud), void *ud);

/* --- a connection --- */

typedef struct kn_cdp kn_cdp;

typedef struct kn_cdp_handlers {
	/* the websocket is open: commands may be sent */
	void (*on_open)(void *ud, kn_cdp *c);
	/* an event; params borrowed for the call (NULL when the event has none) */
	void (*on_event)(void *ud, kn_cdp *c, const char *method, const char *session_id,
	                 json_t *params);
	/* the connection ended (browser gone, refused, closed by us); reason is one line, e.g.
	 * "browser disconnected". After it returns, c is freed: do not use it. */
	void (*on_close)(void *ud, kn_cdp *c, const char *reason);
	/* a message was dropped (too big, malformed); optional */
	void (*on_warning)(void *ud, kn_cdp *c, const char *what);
	void *ud;
} kn_cdp_handlers;

typedef struct kn_cdp_opts {
	size_t max_message;  /* 0 → KN_CDP_MAX_MESSAGE_DEFAULT */
	int timeout_ms;      /* per command; 0 → KN_CDP_TIMEOUT_DEFAULT_MS */
} kn_cdp_opts;

/* Start connecting to a browser-level ws:// URL (from kn_cdp_discover). on_open or on_close
 * follows on the loop. *out stays valid until on_close returns. */
int kn_cdp_connect(kn_cdp **out, kn_cdp_loop *loop, const char *ws_url, const kn_cdp_opts *opts,
                   const kn_cdp_handlers *h, kn_err *err);

/* The string member k of a CDP object o (params, result, info), or NULL when o is not an object, k is
 * absent or not a string. Borrowed from o. */
static inline const char *kn_json_str(json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

/* A connection whose owner only asks "open yet? gone, and why?" (replay, validation, the runner's
 * start page): kn_cdp_link_handlers gives handlers that keep it current (ud = link). */
typedef struct kn_cdp_link {
	int open, closed;
	char reason[160]; /* on_close's reason once closed */
} kn_cdp_link;
kn_cdp_handlers kn_cdp_link_handlers(kn_cdp_link *link);

/* Reply callback: result on success (borrowed), or error set ("timed out", the browser's
 * error.message, "browser disconnected") and result NULL. */
typedef void (*kn_cdp_reply_fn)(void *ud, kn_cdp *c, json_t *result, const char *error);

/* Queue a command (params stolen, may be NULL = {}); session_id NULL for the browser session.
 * cb may be NULL (fire and forget). Returns the command id (> 0) or a negative KN_E* code. */
long long kn_cdp_send(kn_cdp *c, const char *session_id, const char *method, json_t *params,
                      kn_cdp_reply_fn cb, void *ud);

/* Send and wait: serves the loop until the reply arrives (events are dispatched meanwhile) or the
 * command times out. *result is the caller's (json_decref) on success. Not from inside a loop
 * callback (KN_EINVAL: use kn_cdp_send there). Errors: KN_EPROTO with the browser's message,
 * KN_ETIMEOUT "timed out", KN_ELIMIT reply over max_message, KN_EIO connection ended (its
 * reason) or loop stopped; err->msg is "<method>: <reason>". */
int kn_cdp_call(kn_cdp *c, const char *session_id, const char *method, json_t *params,
                json_t **result, kn_err *err);

/* Close the connection: pending commands fail and on_close runs with "closed" before this
 * returns; c is freed after (safe from any handler of c itself). lws drops the socket on its next
 * turn, without a close frame. NULL or an already finished connection: no-op. */
void kn_cdp_close(kn_cdp *c);

/* Counters for benchmarks and /metrics; timeouts: commands the browser did not answer within their
 * timeout (a replay tells an overloaded or lost browser from a changed site by it). */
typedef struct kn_cdp_stats {
	unsigned long long messages_in, messages_out, bytes_in, dropped, timeouts;
} kn_cdp_stats;
void kn_cdp_get_stats(const kn_cdp *c, kn_cdp_stats *out);

#endif
