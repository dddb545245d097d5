/* sites.h — a small static file server for the local test sites (`keynode sites`).
 *
 * It serves one directory over plain HTTP/1.1 on libwebsockets: GET and HEAD, a MIME type per
 * extension, index.html for directories (a directory asked for without its trailing slash is
 * redirected to it, so relative links resolve), a 404 page (DIR/404.html when present) for what
 * is missing, 403 for anything that tries to leave the directory ("..", symlinks pointing out).
 * Responses carry `Cache-Control: no-store` so a changed site is seen at once; optionally a strict
 * Content-Security-Policy, to prove the sites keep every script in a file. One server runs on the
 * thread that calls kn_sites_run; nothing here is shared between threads. */
#ifndef KEYNODE_SITES_H
#define KEYNODE_SITES_H

#include <signal.h>

#include "keynode/error.h"

typedef struct kn_sites_opts {
	const char *dir;  /* directory to serve (required) */
	const char *host; /* address to bind; NULL = "127.0.0.1" */
	int port;         /* 0 = let the kernel pick a free port */
	int csp;          /* 1 = add a strict Content-Security-Policy (no inline script or style) */
	int log_requests; /* 1 = one log line per request */
} kn_sites_opts;

typedef struct kn_sites kn_sites;

/* Create a server listening on opts->host:opts->port. *out is the caller's (kn_sites_free).
 * KN_ENOTFOUND when dir is not a directory, KN_EIO when the address cannot be bound (err says
 * why, e.g. "127.0.0.1:8100: Address already in use"), KN_ENOMEM. */
int kn_sites_new(kn_sites **out, const kn_sites_opts *opts, kn_err *err);

/* The port the server listens on (the chosen one when opts->port was 0). */
int kn_sites_port(const kn_sites *s);

/* The directory served, as an absolute path without symlinks (borrowed). */
const char *kn_sites_dir(const kn_sites *s);

/* Serve until *stop becomes non-zero (a signal handler may set it: it is polled every 100 ms, no
 * lws call happens in the handler). Returns 0, or KN_EIO when the event loop failed. */
int kn_sites_run(kn_sites *s, volatile sig_atomic_t *stop);

/* Close the listener and every connection. NULL is a no-op. */
void kn_sites_free(kn_sites *s);

#endif
