/* http_listen.h — opening an lws listener (one context with one explicitly created vhost on
 * host:port) and serving it until a stop flag is set. Shared by the API server (server.c) and
 * `keynode sites` (sites.c), the two servers in this folder; lws headers stay inside
 * services/http. */
#ifndef KEYNODE_HTTP_LISTEN_H
#define KEYNODE_HTTP_LISTEN_H

#include <signal.h>

#include <libwebsockets.h>

#include "keynode/error.h"

typedef struct kn_http_listen_opts {
	const char *host; /* a numeric address ("127.0.0.1", "::1") */
	int port;         /* 0: any free port (lws_get_vhost_listen_port says which) */
	const char *vhost_name, *server_string;
	const struct lws_protocols *protocols;
	const lws_retry_bo_t *idle; /* the vhost's ping / hang-up policy, or NULL for lws's */
	void *user;                 /* the context's user (lws_context_user) */
} kn_http_listen_opts;

/* Check that host:port can be bound (the kernel's reason, "Address already in use", is a better
 * message than lws's), then create the context (IPv6 off unless host is an IPv6 address) and the
 * vhost. While lws creates them its error lines are kept rather than logged (kn_log_lws_capture),
 * and the last one is the reason in err ("cannot listen on HOST:PORT: REASON"); otherwise lws's
 * lines go to services/log (kn_log_lws_hook). 0 with *ctx and *vh set; otherwise a KN_E* code with err filled, *vh NULL and
 * *ctx the context to destroy when it was created. */
int kn_http_listen(struct lws_context **ctx, struct lws_vhost **vh, const kn_http_listen_opts *o,
                   kn_err *err);

/* Serve ctx until *stop is set or lws fails. No lws call is async-signal-safe, so a signal handler
 * only sets *stop and an lws timer polls it every tick_us; on_tick(ud), when not NULL, runs at each
 * of those polls inside the loop. 0, or KN_EIO when lws_service failed. */
int kn_http_serve(struct lws_context *ctx, volatile sig_atomic_t *stop, lws_usec_t tick_us,
                  void (*on_tick)(void *ud), void *ud);

#endif
