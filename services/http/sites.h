/* sites.h — a small static file server for the local test sites (`keynode sites`).
 *
 * It serves one directory over plain HTTP/1.1 on libwebsockets: GET and HEAD, a MIME type per
 * extension, index.html for directories (a directory asked for without its trailing slash is
 * redirected to it, so relative links resolve), a 404 page (DIR/404.html when present) for what
 * is missing, 403 for anything that tries to leave the directory ("..", symlinks pointing out).
 * Responses carry `Cache-Control: no-store` so a changed site is seen at once (`no-cache` in a folder
 * marked `_cacheable`); `DIR/_redirects` answers paths with HTTP redirects, also to POST
 * (sites_rules.h); optionally a strict
 * Content-Security-Policy, to prove the sites keep every script in a file. One server runs on the
 * thread that calls kn_sites_run; nothing here is shared between threads. */
#ifndef KEYNODE_SITES_H
#define KEYNODE_SITES_H

#include <signal.h>
#include <stddef.h>

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

/* --- request path → file (pure functions; the server uses them, fuzz_sites_path tests them) ---
 * url_path is the path as lws hands it over: percent-decoded, without the query, untrusted.
 * root is the served directory as realpath gives it: absolute, no symlinks, no trailing slash
 * ("/" itself is allowed; trailing slashes are ignored). The errors map to the HTTP answer:
 * KN_EINVAL → 403, KN_ENOTFOUND / KN_ELIMIT / KN_ENOMEM → 404. */

/* Longest url_path that is looked up; longer ones are KN_ELIMIT (404). */
#define KN_SITES_MAX_PATH 2048

/* The lexical half, no file system: checks url_path and writes root + url_path into out (cap
 * bytes, NUL included), a name that lies inside root — no "." or ".." segment, no backslash.
 * 0; KN_EINVAL when url_path tries to leave or confuse the tree (a "." or ".." segment, a
 * backslash); KN_ENOTFOUND when it does not start with '/', names a hidden file (a segment
 * starting with '.') or holds a control character; KN_ELIMIT when it is longer than
 * KN_SITES_MAX_PATH or out is too small. out holds a string only after 0. */
int kn_sites_resolve_path(char *out, size_t cap, const char *root, const char *url_path);

/* The whole mapping, file system included. 0 with *redirect = 0: *out is the real path of a
 * regular file inside root (what url_path names, or its index.html when url_path ends in '/'
 * and names a directory). 0 with *redirect = 1: url_path names a directory without its trailing
 * slash and *out is the Location to answer with (url_path plus "/", starting with exactly one
 * '/'). *out is the caller's (free) after 0 and NULL otherwise. Errors as kn_sites_resolve_path,
 * plus KN_EINVAL when the real path leaves root (a symlink leading out), KN_ENOTFOUND when there
 * is nothing, or nothing regular, at that name, KN_ENOMEM. */
int kn_sites_resolve(char **out, int *redirect, const char *root, const char *url_path);

#endif
