/* server_internal.h — what server.c (HTTP) and server_ws.c (the /api/stream websocket) share:
 * the server and per-connection state, and the helpers that say who is asking (query, Host and
 * Origin guards, bearer token, peer address). Loop thread only. */
#ifndef KEYNODE_HTTP_SERVER_INTERNAL_H
#define KEYNODE_HTTP_SERVER_INTERNAL_H

#include <pthread.h>
#include <signal.h>
#include <time.h>

#include <libwebsockets.h>

#include "server.h"

struct kn_server {
	struct lws_context *ctx;
	struct lws_vhost *vh;
	const struct lws_protocols *proto; /* the vhost's copy of protocols[0] */
	kn_server_opts o;
	char host[128];
	int port, loopback;
	lws_retry_bo_t idle;        /* websocket ping / hang-up policy */
	struct pss *held;           /* answers waiting for durability */
	/* the worker lanes of deferred answers (async.c) */
	pthread_mutex_t pool_mu;
	pthread_cond_t pool_cv[2];
	struct kn_srv_job *queue[2], *queue_tail[2], *finished;
	pthread_t *threads;
	size_t n_threads;
	int pool_stop, pool_init;
};

/* Per connection: one HTTP transaction at a time (keep-alive reuses it), or one subscriber. */
struct pss {
	/* request */
	kn_route route;
	kn_http_method method;
	char id[KN_HTTP_MAX_ID + 1];
	kn_http_query query;
	char *body;
	size_t body_len, body_cap;
	int in_body, too_large;
	char hop[KN_HTTP_MAX_HOP + 1]; /* kn_http_req.hop ("": not forwarded) */
	char author[KN_HTTP_MAX_TOKEN_NAME + 1]; /* kn_http_req.author ("": no token) */
	char accept[128];              /* kn_http_req.accept ("": none, or too long) */
	double t0;                     /* kn_time_mono_s when the request began */
	/* response */
	char *out;
	const unsigned char *out_borrowed;
	size_t out_len, out_off;
	int close_after;
	/* an answer held until what it acknowledges is durable */
	kn_http_resp held;
	int holding, release;
	struct pss *held_next;
	struct lws *wsi;
	/* a deferred answer being made on a worker thread (async.c) */
	struct kn_srv_job *job;
	/* websocket */
	kn_stream_sub *sub;
	/* a live view viewer: its run, whether it showed the token and took over, a reply
	 * of its own waiting to be written, what it is sending */
	int live, authed, taking;
	char run[160];
	char *reply;
	char *rx;
	size_t rx_len;
};

/* The decoded query fragments lws keeps ("name=value" each) into q. */
int kn_srv_read_query(struct lws *wsi, kn_http_query *q, kn_err *err);
/* The Host and Origin guards (request.h): NULL when the request may go on, else why not. */
const char *kn_srv_foreign(kn_server *s, struct lws *wsi);
/* The peer's address into buf ("" when unknown). */
void kn_srv_peer(kn_server *s, struct lws *wsi, char *buf, size_t cap);
/* 1 when wsi's peer is a trusted proxy (kn_server_opts.proxies). */
int kn_srv_proxied(kn_server *s, struct lws *wsi);
/* 1 when the request carries the right bearer token (header, or ?token= in q). */
int kn_srv_authed(kn_server *s, struct lws *wsi, const kn_http_query *q, const char **name);

/* The websocket (server_ws.c): LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION, ESTABLISHED, SERVER_WRITEABLE
 * of a subscriber, and closing the subscribers whose queue overflowed. -1 closes the connection. */
int kn_srv_ws_filter(kn_server *s, struct lws *wsi);
int kn_srv_ws_established(kn_server *s, struct lws *wsi, struct pss *pss);
int kn_srv_ws_writeable(kn_server *s, struct lws *wsi, struct pss *pss);
void kn_srv_close_dropped(kn_server *s);
/* The live view's websocket (server_ws.c): a viewer's message (LWS_CALLBACK_RECEIVE) and its end
 * (LWS_CALLBACK_CLOSED of any websocket). */
int kn_srv_ws_receive(kn_server *s, struct lws *wsi, struct pss *pss, const void *in, size_t len);
void kn_srv_ws_closed(kn_server *s, struct pss *pss);

/* Deferred answers (async.c). kn_srv_pool_start/stop around the loop (stop joins the threads and
 * drops what is left). kn_srv_defer moves pss's request (id, query, body) into a job for lane's
 * threads; KN_ENOMEM. kn_srv_pool_deliver (on a wake) hands each finished answer to its
 * connection: held and released, written from its WRITEABLE callback. kn_srv_job_forget: the
 * connection is closing, its answer will be dropped. Loop thread. */
int kn_srv_pool_start(kn_server *s, kn_err *err);
void kn_srv_pool_stop(kn_server *s);
int kn_srv_defer(kn_server *s, struct lws *wsi, struct pss *pss, int lane);
void kn_srv_pool_deliver(kn_server *s);
void kn_srv_job_forget(struct pss *pss);

#endif
