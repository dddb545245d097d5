/* sites.c — the static file server behind `keynode sites` (contract in sites.h).
 *
 * One lws context with one explicitly created vhost; every request lands in LWS_CALLBACK_HTTP
 * with the path lws has already percent-decoded and stripped of its query. We map it to a file
 * ourselves rather than through an lws mount so that each refusal is ours to decide and to test:
 * a ".." segment or a backslash is 403 before the file system is touched, hidden files are 404,
 * and the resolved real path must still lie under the served directory (403 otherwise, which
 * also catches symlinks leading out); kn_sites_resolve_path / kn_sites_resolve do this mapping
 * as functions of (root, path) alone, so that a fuzz target can hold them to it. Files go out
 * with lws_serve_http_file; our own answers (the 404 page, 403, 405, the slash redirect) are
 * written as headers plus a body sent from LWS_CALLBACK_HTTP_WRITEABLE. Stopping is driven by a
 * flag a signal handler sets and a 100 ms lws_sul timer polls, because no lws call is
 * async-signal-safe. lws's own log lines go through services/log (kn_log_lws_hook, component=lws);
 * while the vhost is being created they are kept instead, so a bind failure becomes one error
 * message rather than a burst of lws lines. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <limits.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libwebsockets.h>

#include "http_listen.h"
#include "log.h"
#include "sites.h"
#include "sites_rules.h"
#include "sites_ws.h"

#define SITES_TICK_US (100 * LWS_US_PER_MS)
#define SITES_MAX_PAGE (256u * 1024u) /* cap on the 404 page read from DIR/404.html */

struct kn_sites {
	struct lws_context *ctx;
	struct lws_vhost *vh;
	char *root; /* realpath of the served directory */
	int port;
	int csp, log_requests;
	char *page404; /* DIR/404.html, or NULL for the built-in page */
	kn_sites_rules *rules; /* DIR/_redirects (sites_rules.h) */
	size_t page404_len;
};

/* Per-connection state: a body of our own still to be written (borrowed, static or s->page404). */
struct pss {
	const char *body;
	size_t len, off;
	const kn_sites_redirect *pending; /* a POST's redirect, answered when its body is read */
	char *late;   /* the path of a `kn-delay` request, answered when its timer fires (owned) */
	int late_head; /* that request was a HEAD */
	kn_sites_ws ws; /* a WebSocket connection's state (sites_ws.h) */
};

static const char builtin_404[] =
	"<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Not found</title>"
	"</head><body><h1>404 — not found</h1><p>There is no page at this address.</p>"
	"<p><a href=\"/\">All sites</a></p></body></html>\n";
static const char body_403[] =
	"<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Forbidden</title>"
	"</head><body><h1>403 — forbidden</h1></body></html>\n";
static const char body_405[] =
	"<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Method not allowed"
	"</title></head><body><h1>405 — only GET and HEAD</h1></body></html>\n";
static const char body_400[] =
	"<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Bad request</title>"
	"</head><body><h1>400 — kn-delay takes 1 to 60000 (milliseconds)</h1></body></html>\n";
static const char body_301[] =
	"<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Moved</title>"
	"</head><body><h1>301 — moved</h1></body></html>\n";

static const char csp_policy[] =
	"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
	"object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'self'";

/* --- logging ------------------------------------------------------------------------------- */

static void log_request(const kn_sites *s, const char *method, const char *path, int status)
{
	if (!s->log_requests)
		return;
	char q[512];
	kn_log("info", "sites", "msg=\"request\" method=%s path=\"%s\" status=%d", method,
	       kn_log_quote(q, sizeof q, path), status);
}

/* --- responses ----------------------------------------------------------------------------- */

static const struct {
	const char *ext, *type;
} mime_types[] = {
	{"html", "text/html; charset=utf-8"},
	{"htm", "text/html; charset=utf-8"},
	{"js", "text/javascript; charset=utf-8"},
	{"mjs", "text/javascript; charset=utf-8"},
	{"css", "text/css; charset=utf-8"},
	{"json", "application/json"},
	{"png", "image/png"},
	{"svg", "image/svg+xml"},
	{"ico", "image/x-icon"},
	{"jpg", "image/jpeg"},
	{"jpeg", "image/jpeg"},
	{"gif", "image/gif"},
	{"webp", "image/webp"},
	{"txt", "text/plain; charset=utf-8"},
	{"md", "text/plain; charset=utf-8"},
	{"yaml", "text/plain; charset=utf-8"},
	{"yml", "text/plain; charset=utf-8"},
	{"woff2", "font/woff2"},
	{"woff", "font/woff"},
};

/* The Content-Type for a file name; application/octet-stream when the extension is unknown. */
static const char *mime_type(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *dot = strrchr(slash ? slash : path, '.');
	if (dot)
		for (size_t i = 0; i < sizeof mime_types / sizeof mime_types[0]; i++)
			if (strcasecmp(dot + 1, mime_types[i].ext) == 0)
				return mime_types[i].type;
	return "application/octet-stream";
}

/* Append the headers every response carries (no-cache instead of no-store for a file of a
 * `_cacheable` folder). Nonzero when the buffer is too small. */
static int add_common(const kn_sites *s, struct lws *wsi, unsigned char **p, unsigned char *end,
                      int cacheable)
{
	static const char nostore[] = "no-store", nocache[] = "no-cache", nosniff[] = "nosniff";
	const char *cc = cacheable ? nocache : nostore;
	if (lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_CACHE_CONTROL,
	                                 (const unsigned char *)cc, (int)strlen(cc), p, end))
		return 1;
	if (lws_add_http_header_by_name(wsi, (const unsigned char *)"x-content-type-options:",
	                                (const unsigned char *)nosniff, (int)strlen(nosniff), p, end))
		return 1;
	if (s->csp && lws_add_http_header_by_name(wsi,
	                                          (const unsigned char *)"content-security-policy:",
	                                          (const unsigned char *)csp_policy,
	                                          (int)strlen(csp_policy), p, end))
		return 1;
	return 0;
}

/* Answer with status and a body of our own (borrowed; must outlive the connection's write).
 * location adds a Location header. Returns what the callback should return. */
static int respond(const kn_sites *s, struct lws *wsi, struct pss *pss, int head, unsigned status,
                   const char *body, size_t len, const char *location)
{
	unsigned char buf[LWS_PRE + 2048], *start = buf + LWS_PRE, *p = start, *end = buf + sizeof buf;
	if (lws_add_http_common_headers(wsi, status, "text/html; charset=utf-8", len, &p, end) ||
	    add_common(s, wsi, &p, end, 0) ||
	    (location && lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_LOCATION,
	                                              (const unsigned char *)location,
	                                              (int)strlen(location), &p, end)) ||
	    lws_finalize_write_http_header(wsi, start, &p, end))
		return -1;
	if (head || !len)
		return lws_http_transaction_completed(wsi) ? -1 : 0;
	pss->body = body;
	pss->len = len;
	pss->off = 0;
	lws_callback_on_writable(wsi);
	return 0;
}

/* Write the next piece of a pending body; the last one completes the transaction. */
static int write_body(struct lws *wsi, struct pss *pss)
{
	if (!pss->body)
		return 0;
	unsigned char buf[LWS_PRE + 4096];
	size_t n = pss->len - pss->off;
	if (n > sizeof buf - LWS_PRE)
		n = sizeof buf - LWS_PRE;
	memcpy(buf + LWS_PRE, pss->body + pss->off, n);
	pss->off += n;
	int last = pss->off == pss->len;
	if (lws_write(wsi, buf + LWS_PRE, n, last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP) < (int)n)
		return -1;
	if (!last) {
		lws_callback_on_writable(wsi);
		return 0;
	}
	pss->body = NULL;
	return lws_http_transaction_completed(wsi) ? -1 : 0;
}

/* --- path resolution ----------------------------------------------------------------------- */

/* Length of root without trailing slashes ("/" gives 0: request paths bring their own). */
static size_t root_length(const char *root)
{
	size_t n = strlen(root);
	while (n && root[n - 1] == '/')
		n--;
	return n;
}

/* Check the decoded request path segment by segment: KN_EINVAL for "." / ".." / a backslash
 * (an attempt to leave or confuse the tree), KN_ENOTFOUND for hidden names and control
 * characters (no served file has them; a Location header must never carry them), 0 when it may
 * be looked up. The first offending segment decides. */
static int check_segments(const char *path)
{
	if (strchr(path, '\\'))
		return KN_EINVAL;
	for (const unsigned char *c = (const unsigned char *)path; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			return KN_ENOTFOUND;
	for (const char *seg = path + 1; *seg;) {
		size_t n = strcspn(seg, "/");
		if ((n == 1 && seg[0] == '.') || (n == 2 && seg[0] == '.' && seg[1] == '.'))
			return KN_EINVAL;
		if (n > 0 && seg[0] == '.')
			return KN_ENOTFOUND;
		seg += n;
		if (*seg == '/')
			seg++;
	}
	return 0;
}

int kn_sites_resolve_path(char *out, size_t cap, const char *root, const char *url_path)
{
	if (!out || !root || !url_path)
		return KN_EINVAL;
	if (url_path[0] != '/')
		return KN_ENOTFOUND;
	size_t pl = strlen(url_path);
	if (pl > KN_SITES_MAX_PATH)
		return KN_ELIMIT;
	int rc = check_segments(url_path);
	if (rc)
		return rc;
	size_t rl = root_length(root);
	if (rl + pl + 1 > cap)
		return KN_ELIMIT;
	memcpy(out, root, rl);
	memcpy(out + rl, url_path, pl + 1);
	return 0;
}

/* 1 when the real path real is root itself or lies below it ("/srv/www2" is not inside
 * "/srv/www"). rl is root_length(root). */
static int inside_root(const char *real, const char *root, size_t rl)
{
	if (strncmp(real, root, rl) != 0)
		return 0;
	return real[rl] == '/' || (rl > 0 && real[rl] == '\0');
}

int kn_sites_resolve(char **out, int *redirect, const char *root, const char *url_path)
{
	if (!out || !redirect || !root || !url_path)
		return KN_EINVAL;
	*out = NULL;
	*redirect = 0;
	size_t pl = strlen(url_path);
	if (pl > KN_SITES_MAX_PATH)
		return KN_ELIMIT;
	size_t rl = root_length(root);
	size_t cap = rl + pl + sizeof "index.html";
	char *fs = malloc(cap);
	if (!fs)
		return KN_ENOMEM;
	int rc = kn_sites_resolve_path(fs, cap, root, url_path);
	if (rc) {
		free(fs);
		return rc;
	}
	struct stat st;
	if (stat(fs, &st) != 0)
		goto missing;
	if (S_ISDIR(st.st_mode)) {
		if (url_path[pl - 1] != '/') {
			/* The Location is the request path plus the slash, with one leading slash: "//host"
			 * would send the browser to another host. */
			const char *rest = url_path + strspn(url_path, "/");
			snprintf(fs, cap, "/%s/", rest);
			*out = fs;
			*redirect = 1;
			return 0;
		}
		memcpy(fs + rl + pl, "index.html", sizeof "index.html");
		if (stat(fs, &st) != 0)
			goto missing;
	}
	if (!S_ISREG(st.st_mode))
		goto missing;
	/* The file exists: its real path must still be inside the root (symlinks, races). */
	char *real = realpath(fs, NULL);
	free(fs);
	if (!real)
		return errno == ENOMEM ? KN_ENOMEM : KN_ENOTFOUND;
	if (!inside_root(real, root, rl)) {
		free(real);
		return KN_EINVAL;
	}
	*out = real;
	return 0;
missing:
	free(fs);
	return KN_ENOTFOUND;
}

/* --- the lws protocol ---------------------------------------------------------------------- */

/* Answer a `_redirects` rule. */
static int redirect(kn_sites *s, struct lws *wsi, struct pss *pss, int head, const kn_sites_redirect *d)
{
	return respond(s, wsi, pss, head, (unsigned)d->status, body_301, sizeof body_301 - 1, d->to);
}

static int serve_file(kn_sites *s, struct lws *wsi, struct pss *pss, int head, const char *method,
                      const char *path);

static int handle_request(kn_sites *s, struct lws *wsi, struct pss *pss, const char *path)
{
	int head = lws_hdr_total_length(wsi, WSI_TOKEN_HEAD_URI) > 0;
	int get = lws_hdr_total_length(wsi, WSI_TOKEN_GET_URI) > 0;
	int post = lws_hdr_total_length(wsi, WSI_TOKEN_POST_URI) > 0;
	const char *method = head ? "HEAD" : get ? "GET" : post ? "POST" : "other";
	const kn_sites_redirect *rule = kn_sites_rules_find(s->rules, path);
	if (rule && (get || head || post)) {
		log_request(s, method, path, rule->status);
		char cl[24] = "";
		if (post && lws_hdr_copy(wsi, cl, sizeof cl, WSI_TOKEN_HTTP_CONTENT_LENGTH) > 0 && atol(cl) > 0) {
			pss->pending = rule; /* read the form's body first: LWS_CALLBACK_HTTP_BODY_COMPLETION */
			return 0;
		}
		return redirect(s, wsi, pss, head, rule);
	}
	if (kn_sites_rules_is_rule_file(path)) {
		log_request(s, method, path, 404);
		const char *page = s->page404 ? s->page404 : builtin_404;
		size_t len = s->page404 ? s->page404_len : sizeof builtin_404 - 1;
		return respond(s, wsi, pss, head, HTTP_STATUS_NOT_FOUND, page, len, NULL);
	}
	if (!get && !head) {
		log_request(s, method, path, 405);
		return respond(s, wsi, pss, 0, HTTP_STATUS_METHOD_NOT_ALLOWED, body_405,
		               sizeof body_405 - 1, NULL);
	}
	char arg[64];
	const char *delay = lws_get_urlarg_by_name(wsi, "kn-delay=", arg, (int)sizeof arg);
	if (delay) {
		int ms = kn_sites_delay_ms(delay);
		if (ms < 0 || !(pss->late = strdup(path))) {
			log_request(s, method, path, 400);
			return respond(s, wsi, pss, head, HTTP_STATUS_BAD_REQUEST, body_400, sizeof body_400 - 1, NULL);
		}
		pss->late_head = head;
		lws_set_timeout(wsi, PENDING_TIMEOUT_HTTP_CONTENT, ms / 1000 + 10);
		lws_set_timer_usecs(wsi, (lws_usec_t)ms * LWS_US_PER_MS);
		return 0; /* LWS_CALLBACK_TIMER: serve_file */
	}
	return serve_file(s, wsi, pss, head, method, path);
}

/* Answer a GET or HEAD of path from the served directory (a file, its folder's slash, 403, 404). */
static int serve_file(kn_sites *s, struct lws *wsi, struct pss *pss, int head, const char *method,
                      const char *path)
{
	char *file;
	int redirect;
	int res = kn_sites_resolve(&file, &redirect, s->root, path);
	int status = res == KN_EINVAL ? 403 : res ? 404 : redirect ? 301 : 200;
	log_request(s, method, path, status);
	if (status == 301) {
		int rc = respond(s, wsi, pss, head, HTTP_STATUS_MOVED_PERMANENTLY, body_301,
		                 sizeof body_301 - 1, file);
		free(file);
		return rc;
	}
	if (status == 403)
		return respond(s, wsi, pss, head, HTTP_STATUS_FORBIDDEN, body_403, sizeof body_403 - 1,
		               NULL);
	if (status == 404) {
		const char *page = s->page404 ? s->page404 : builtin_404;
		size_t len = s->page404 ? s->page404_len : sizeof builtin_404 - 1;
		return respond(s, wsi, pss, head, HTTP_STATUS_NOT_FOUND, page, len, NULL);
	}

	unsigned char hdr[1024], *p = hdr;
	if (add_common(s, wsi, &p, hdr + sizeof hdr, kn_sites_rules_cacheable(file))) {
		free(file);
		return -1;
	}
	int n = lws_serve_http_file(wsi, file, mime_type(file), (const char *)hdr, (int)(p - hdr));
	free(file);
	if (n < 0 || (n > 0 && lws_http_transaction_completed(wsi)))
		return -1;
	return 0;
}

static int sites_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                          size_t len)
{
	struct pss *pss = user;
	switch (reason) {
	case LWS_CALLBACK_HTTP:
		return handle_request(lws_context_user(lws_get_context(wsi)), wsi, pss, in);
	case LWS_CALLBACK_HTTP_BODY:
		return 0; /* a POST's form body: read and dropped */
	case LWS_CALLBACK_HTTP_BODY_COMPLETION:
		if (pss && pss->pending) {
			const kn_sites_redirect *d = pss->pending;
			pss->pending = NULL;
			return redirect(lws_context_user(lws_get_context(wsi)), wsi, pss, 0, d);
		}
		break;
	case LWS_CALLBACK_HTTP_WRITEABLE:
		if (pss && pss->body)
			return write_body(wsi, pss);
		break;
	case LWS_CALLBACK_TIMER: /* a kn-delay request's time has come */
		if (pss && pss->late) {
			char *path = pss->late;
			pss->late = NULL;
			lws_set_timeout(wsi, NO_PENDING_TIMEOUT, 0);
			int rc = serve_file(lws_context_user(lws_get_context(wsi)), wsi, pss, pss->late_head,
			                    pss->late_head ? "HEAD" : "GET", path);
			free(path);
			return rc;
		}
		break;
	case LWS_CALLBACK_ESTABLISHED:
	case LWS_CALLBACK_RECEIVE:
	case LWS_CALLBACK_SERVER_WRITEABLE:
	case LWS_CALLBACK_CLOSED: /* a page's WebSocket (sites_ws.h) */
		if (!pss)
			return -1;
		return kn_sites_ws_callback(wsi, reason, &pss->ws, in, len,
		                            ((kn_sites *)lws_context_user(lws_get_context(wsi)))->log_requests);
	case LWS_CALLBACK_CLOSED_HTTP: /* gone before its delay ended */
		if (pss) {
			free(pss->late);
			pss->late = NULL;
		}
		break;
	default:
		break;
	}
	return lws_callback_http_dummy(wsi, reason, user, in, len);
}

static const struct lws_protocols protocols[] = {
	{"http", sites_callback, sizeof(struct pss), 0, 0, NULL, 0},
	{NULL, NULL, 0, 0, 0, NULL, 0},
};

/* --- lifecycle ----------------------------------------------------------------------------- */

/* Read DIR/404.html into s->page404 when it exists (capped); a missing page is not an error. */
static void load_404(kn_sites *s)
{
	size_t pl = strlen(s->root) + sizeof "/404.html";
	char *path = malloc(pl);
	if (!path)
		return;
	snprintf(path, pl, "%s/404.html", s->root);
	FILE *f = fopen(path, "rb");
	free(path);
	if (!f)
		return;
	char *buf = malloc(SITES_MAX_PAGE);
	size_t n = buf ? fread(buf, 1, SITES_MAX_PAGE, f) : 0;
	fclose(f);
	if (!n) {
		free(buf);
		return;
	}
	s->page404 = buf;
	s->page404_len = n;
}

int kn_sites_new(kn_sites **out, const kn_sites_opts *opts, kn_err *err)
{
	if (!out || !opts || !opts->dir)
		return kn_err_set(err, KN_EINVAL, "no directory to serve");
	*out = NULL;
	const char *host = opts->host ? opts->host : "127.0.0.1";
	if (strcmp(host, "localhost") == 0)
		host = "127.0.0.1";
	if (opts->port < 0 || opts->port > 65535)
		return kn_err_set(err, KN_EINVAL, "bad port %d", opts->port);

	kn_sites *s = calloc(1, sizeof *s);
	if (!s)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	struct stat st;
	if (!(s->root = realpath(opts->dir, NULL)) || stat(s->root, &st) != 0 ||
	    !S_ISDIR(st.st_mode)) {
		kn_sites_free(s);
		return kn_err_set(err, KN_ENOTFOUND, "%s: not a directory", opts->dir);
	}
	s->csp = opts->csp;
	s->log_requests = opts->log_requests;
	load_404(s);
	int rc = kn_sites_rules_load(&s->rules, s->root, err);
	if (rc) {
		kn_sites_free(s);
		return rc;
	}

	kn_http_listen_opts lo = {.host = host, .port = opts->port, .vhost_name = "sites",
	                          .server_string = "keynode-sites", .protocols = protocols, .user = s};
	if ((rc = kn_http_listen(&s->ctx, &s->vh, &lo, err)) != 0) {
		kn_sites_free(s);
		return rc;
	}
	s->port = lws_get_vhost_listen_port(s->vh);
	*out = s;
	return 0;
}

int kn_sites_port(const kn_sites *s)
{
	return s ? s->port : 0;
}

const char *kn_sites_dir(const kn_sites *s)
{
	return s ? s->root : NULL;
}

int kn_sites_run(kn_sites *s, volatile sig_atomic_t *stop)
{
	if (!s || !stop)
		return KN_EINVAL;
	return kn_http_serve(s->ctx, stop, SITES_TICK_US, NULL, NULL);
}

void kn_sites_free(kn_sites *s)
{
	if (!s)
		return;
	if (s->ctx)
		lws_context_destroy(s->ctx);
	free(s->page404);
	kn_sites_rules_free(s->rules);
	free(s->root);
	free(s);
}
