/* server.h — the HTTP/websocket server of `keynode serve` on one lws context.
 *
 * The server owns the transport: routing (request.h), the bearer token, body accumulation with
 * caps (413), JSON error answers, /metrics, the embedded dashboard (/ and /static/…), and the
 * /api/stream websocket fed from a kn_stream. Everything the API answers from data (tasks, runs,
 * replays, alerts, /healthz) is delegated to one handler callback, called on the server thread,
 * so this folder stays free of the database and the runs registry; the handler may defer a request
 * to a worker thread (kn_http_resp.defer, async.c) rather than wait there. */
#ifndef KEYNODE_HTTP_SERVER_H
#define KEYNODE_HTTP_SERVER_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "keynode/error.h"
#include "metrics.h"
#include "request.h"
#include "stream.h"

struct kn_live_input; /* services/live/live_wire.h */

typedef struct kn_http_req {
	kn_http_method method;
	kn_route route;
	const char *id;             /* path parameter, "" when the route has none */
	const kn_http_query *query;
	const char *body;           /* NUL-terminated copy of the body; "" when none */
	size_t body_len;
	/* the X-Kn-Forwarded value (request.h KN_HTTP_HOP_HEADER): the owner id of the serve that
	 * forwarded this call here; NULL: not forwarded */
	const char *hop;
	/* the name of the token the request carried (kn_server_opts.tokens, "default" for token);
	 * NULL: none */
	const char *author;
	const char *accept; /* the Accept header (up to 127 bytes); NULL: none */
} kn_http_req;

typedef struct kn_http_resp {
	int status;                 /* 0 → 200 */
	const char *content_type;   /* NULL → application/json */
	char *body;                 /* malloc'd, taken by the server; NULL: empty */
	size_t len;
	const char *location;       /* optional Location header (static string) */
	/* when hold_upto > 0 the answer is held until opts.durable(ud, hold_from, hold_upto) says
	 * the records it acknowledges are durable (a failure or KN_SERVER_HOLD_MS replaces it with
	 * 503); the server thread serves others meanwhile */
	uint64_t hold_from, hold_upto;
	/* set by opts.handle instead of answering: KN_HTTP_LANE_READ or KN_HTTP_LANE_SLOW — the
	 * server moves the request to a worker thread of that lane, where opts.handle_worker answers
	 * it (async.c); the server thread serves others meanwhile */
	int defer;
} kn_http_resp;
#define KN_HTTP_LANE_READ 1 /* short database reads */
#define KN_HTTP_LANE_SLOW 2 /* writes, uploads, browser discovery: may take seconds */
#define KN_SERVER_HOLD_MS 10000

/* Fill resp with an error answer {"error", "detail"}; returns 0. */
int kn_http_resp_error(kn_http_resp *resp, int status, const char *msg, const char *detail);
/* Take a malloc'd JSON text as the body. */
void kn_http_resp_json(kn_http_resp *resp, int status, char *json);
/* The same from a JSON value (taken: decref'd here); 500 "out of memory" when j is NULL or cannot
 * be printed. */
void kn_http_resp_json_value(kn_http_resp *resp, int status, json_t *j);

typedef struct kn_server_opts {
	const char *listen;         /* "HOST:PORT" (numeric host; port 0 picks one) */
	const char *token;          /* NULL/empty: no token — writes are then always 401 (unless tokens) */
	const kn_http_token *tokens; /* named tokens besides token (http.tokens); borrowed */
	size_t n_tokens;
	kn_metrics *metrics;        /* borrowed; required */
	kn_stream *stream;          /* borrowed; required (its wake must be kn_server_wake) */
	/* API routes and /healthz: fill resp. Server thread. */
	void (*handle)(void *ud, const kn_http_req *req, kn_http_resp *resp);
	/* called before /metrics renders (to set gauges); optional */
	void (*before_metrics)(void *ud);
	/* 1 when the ticket range of a held answer is durable, 0 not yet, < 0 failed (err says
	 * why); server thread; required for handlers that hold answers. The server asks again on
	 * every wake (kn_server_wake) and tick. */
	int (*durable)(void *ud, uint64_t from, uint64_t upto, kn_err *err);
	/* called every ~100 ms on the server thread (housekeeping); optional */
	void (*tick)(void *ud);
	void *ud;
	int log_requests;
	/* Host names accepted (DNS-rebinding guard, request.h kn_http_host_ok); n_hosts 0: the
	 * default rule. Origins allowed besides the server's own (kn_http_origin_ok). Borrowed. */
	const char *const *hosts;
	size_t n_hosts;
	const char *const *origins;
	size_t n_origins;
	/* Peer addresses of trusted proxies (http.trusted_proxies): a request from one is judged on
	 * its X-Forwarded-Host / -Proto (the Host and Origin guards) and X-Forwarded-For (the client
	 * logged), and needs the token for reads even on a loopback listener. Borrowed. */
	const char *const *proxies;
	size_t n_proxies;
	int stream_idle_s;          /* a websocket answering no ping this long is closed; 0 → 60 */
	/* Deferred answers (kn_http_resp.defer), on a worker thread of the lane: *wctx is the
	 * thread's own state (NULL at first; the handler may set it, e.g. to a database connection
	 * of its own), handed to worker_exit when the thread ends. A GET /metrics deferred and left
	 * without a body is rendered by the server after the call. With handle_worker set, handle
	 * is also called for GET /metrics (after before_metrics): an empty answer renders the
	 * metrics, defer moves them to a worker. Optional; threads are started by kn_server_run and
	 * joined before it returns. */
	void (*handle_worker)(void *ud, void **wctx, const kn_http_req *req, kn_http_resp *resp);
	void (*worker_exit)(void *ud, void *wctx);
	int workers_read, workers_slow; /* threads per lane; 0 → 2 and 4 */
	/* The live view (server_ws.c; services/live/README.md): the viewers of
	 * /api/live?run=RUN subscribe to live (its wake must be kn_server_wake too); NULL: no live
	 * view (the upgrade is refused). live_public: watching needs no token (taking over always
	 * does). live_in(ud, run, what, in, client) on the server thread: a viewer came (what 1) or
	 * went (0, after a release of its takeover), or sent a take, release or input it may send
	 * (2, in; a viewer with the token that took over). */
	kn_stream *live;
	int live_public;
	int live_max_s;             /* a viewer is closed after this long (http.live_view_max_s); 0 → 3600 */
	void (*live_in)(void *ud, const char *run, int what, const struct kn_live_input *in, const char *client);
	/* asked before a take goes to live_in (optional): 0, or an HTTP-like status (409) with why (a
	 * run that cannot be taken over: answered {"type":"error","status":409,"error":why}) */
	int (*live_can_take)(void *ud, const char *run, char *why, size_t cap);
} kn_server_opts;

typedef struct kn_server kn_server;

/* Bind and create the context. KN_EIO "cannot listen on H:P: reason" when the port is taken.
 * *out the caller's (kn_server_free). */
int kn_server_new(kn_server **out, const kn_server_opts *opts, kn_err *err);
int kn_server_port(const kn_server *s);
/* The HOST:PORT other serves reach this one at when http.advertise is not set
 * (request.h kn_http_advertise over the listen host, the bound port and hostname). */
int kn_server_advertise(const kn_server *s, const char *hostname, char *out, size_t cap, kn_err *err);
/* Serve until *stop becomes nonzero (polled every 100 ms; a signal also cuts the poll short). */
int kn_server_run(kn_server *s, volatile sig_atomic_t *stop);
/* Wake the server thread so queued stream messages get written; any thread. For kn_stream_new. */
void kn_server_wake(void *server);
void kn_server_free(kn_server *s);

/* The embedded dashboard (generated at build time from services/http/dashboard/). */
typedef struct kn_dashboard_file {
	const char *path;           /* relative to the folder, e.g. "index.html", "app.js" */
	const unsigned char *data;
	unsigned long len;
} kn_dashboard_file;
extern const kn_dashboard_file kn_dashboard_files[];
extern const unsigned long kn_dashboard_n_files;

#endif
