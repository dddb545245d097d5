/* server.c — `keynode serve`'s HTTP + websocket server on one lws context (server.h).
 *
 * One protocol handles both HTTP and the /api/stream websocket, because a websocket client that
 * names no subprotocol lands in protocols[0] (docs/development.md, "libwebsockets"). HTTP requests are routed in
 * LWS_CALLBACK_HTTP with the path lws already percent-decoded; a POST's body is accumulated
 * (LWS_CALLBACK_HTTP_BODY) up to the route's cap — a declared or actual length past it is 413 and
 * the connection is closed after the answer — and handled on LWS_CALLBACK_HTTP_BODY_COMPLETION.
 * Answers are headers plus a body written in pieces from LWS_CALLBACK_HTTP_WRITEABLE. Stream
 * messages are queued in a kn_stream by any thread, which wakes the loop with lws_cancel_service;
 * on LWS_CALLBACK_EVENT_WAIT_CANCELLED every websocket is asked to write what it has queued, and
 * a subscriber whose queue overflowed is closed. The stop flag is polled by a 100 ms lws_sul
 * timer (no lws call is async-signal-safe). The websocket's own handlers are in server_ws.c; the
 * state both files share is in server_internal.h. */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <libwebsockets.h>

#include "keynode/clock.h"
#include "http_listen.h"
#include "log.h"
#include "server.h"
#include "server_internal.h"

#define TICK_US (100 * LWS_US_PER_MS)
#define HDR_MAX 4096
#define ONE_WRITE_MAX 16384 /* a body up to this size goes out with its headers */

static const char csp_policy[] =
	"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
	"connect-src 'self' ws: wss:; object-src 'none'; base-uri 'none'; form-action 'self'; "
	"frame-ancestors 'none'";

static const char placeholder_index[] =
	"<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>keynode</title>"
	"</head><body><h1>keynode</h1><p>The dashboard was not built into this binary. The API is at "
	"<code>/api/</code>, metrics at <code>/metrics</code>.</p></body></html>\n";

/* --- responses ------------------------------------------------------------------------------ */

int kn_http_resp_error(kn_http_resp *resp, int status, const char *msg, const char *detail)
{
	free(resp->body);
	resp->body = NULL;
	resp->status = status;
	resp->content_type = "application/json";
	if (kn_http_error_json(&resp->body, msg, detail) == 0)
		resp->len = strlen(resp->body);
	else
		resp->len = 0;
	return 0;
}

void kn_http_resp_json(kn_http_resp *resp, int status, char *json)
{
	free(resp->body);
	resp->status = status;
	resp->content_type = "application/json";
	resp->body = json;
	resp->len = json ? strlen(json) : 0;
}

void kn_http_resp_json_value(kn_http_resp *resp, int status, json_t *j)
{
	char *t = j ? json_dumps(j, JSON_COMPACT) : NULL;
	json_decref(j);
	if (t)
		kn_http_resp_json(resp, status, t);
	else
		kn_http_resp_error(resp, 500, "out of memory", NULL);
}

static const char *method_name(kn_http_method m)
{
	return m == KN_HTTP_GET ? "GET" : m == KN_HTTP_POST ? "POST" : m == KN_HTTP_HEAD ? "HEAD"
	                                                                                 : "other";
}

static const struct {
	const char *ext, *type;
} mime_types[] = {
	{"html", "text/html; charset=utf-8"}, {"js", "text/javascript; charset=utf-8"},
	{"mjs", "text/javascript; charset=utf-8"}, {"css", "text/css; charset=utf-8"},
	{"json", "application/json"}, {"png", "image/png"}, {"svg", "image/svg+xml"},
	{"ico", "image/x-icon"}, {"txt", "text/plain; charset=utf-8"}, {"woff2", "font/woff2"},
	{"map", "application/json"},
};

static const char *mime_type(const char *path)
{
	const char *dot = strrchr(path, '.');
	if (dot && !strchr(dot, '/'))
		for (size_t i = 0; i < sizeof mime_types / sizeof mime_types[0]; i++)
			if (strcasecmp(dot + 1, mime_types[i].ext) == 0)
				return mime_types[i].type;
	return "application/octet-stream";
}

/* Write the headers of an answer and queue its body (resp->body taken; borrowed data when
 * resp->body is NULL and borrowed is set). Counts the request in the metrics. Returns what the
 * callback should return. */
static int send_answer(kn_server *s, struct lws *wsi, struct pss *pss, kn_http_resp *resp,
                       const unsigned char *borrowed, size_t borrowed_len, int extra_auth)
{
	/* the request is answered: its body and query are not needed any more */
	kn_http_query_clear(&pss->query);
	free(pss->body);
	pss->body = NULL;
	pss->body_len = pss->body_cap = 0;
	pss->in_body = 0;
	int status = resp->status ? resp->status : 200;
	const char *ctype = resp->content_type ? resp->content_type : "application/json";
	size_t len = borrowed ? borrowed_len : resp->len;
	kn_metrics_request(s->o.metrics, pss->route, status, kn_time_mono_s() - pss->t0);
	if (s->o.log_requests)
		kn_log("info", "http", "msg=\"request\" method=%s route=\"%s\" status=%d", method_name(pss->method),
		       kn_route_name(pss->route), status);
	/* headers, and a small body right after them: one write, now, instead of the headers now
	 * and the body on the next WRITEABLE (a whole loop turn later, which under load is what a
	 * cheap answer such as /healthz waits for) */
	unsigned char hb[LWS_PRE + HDR_MAX + ONE_WRITE_MAX], *start = hb + LWS_PRE, *p = start;
	unsigned char *end = hb + LWS_PRE + HDR_MAX;
	static const char nostore[] = "no-store", nosniff[] = "nosniff", bearer[] = "Bearer";
	int bad = lws_add_http_common_headers(wsi, (unsigned)status, ctype, len, &p, end) ||
	          lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_CACHE_CONTROL,
	                                       (const unsigned char *)nostore, (int)strlen(nostore),
	                                       &p, end) ||
	          lws_add_http_header_by_name(wsi, (const unsigned char *)"x-content-type-options:",
	                                      (const unsigned char *)nosniff, (int)strlen(nosniff), &p,
	                                      end) ||
	          lws_add_http_header_by_name(wsi, (const unsigned char *)"content-security-policy:",
	                                      (const unsigned char *)csp_policy,
	                                      (int)strlen(csp_policy), &p, end);
	if (!bad && extra_auth)
		bad = lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_WWW_AUTHENTICATE,
		                                   (const unsigned char *)bearer, (int)strlen(bearer), &p,
		                                   end);
	if (!bad && resp->location)
		bad = lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_LOCATION,
		                                   (const unsigned char *)resp->location,
		                                   (int)strlen(resp->location), &p, end);
	if (!bad && pss->close_after)
		bad = lws_add_http_header_by_token(wsi, WSI_TOKEN_CONNECTION,
		                                   (const unsigned char *)"close", 5, &p, end);
	if (bad || lws_finalize_http_header(wsi, &p, end)) {
		free(resp->body);
		resp->body = NULL;
		return -1;
	}
	int whole = pss->method == KN_HTTP_HEAD || len <= ONE_WRITE_MAX;
	if (whole && pss->method != KN_HTTP_HEAD && len) {
		memcpy(p, borrowed ? borrowed : (const unsigned char *)resp->body, len);
		p += len;
	}
	int wrote = lws_write(wsi, start, (size_t)(p - start),
	                      whole ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP_HEADERS);
	if (whole || wrote < (int)(p - start)) {
		free(resp->body);
		resp->body = NULL;
		if (wrote < (int)(p - start) || pss->close_after)
			return -1;
		return lws_http_transaction_completed(wsi) ? -1 : 0;
	}
	free(pss->out);
	pss->out = resp->body;
	resp->body = NULL;
	pss->out_borrowed = borrowed;
	pss->out_len = len;
	pss->out_off = 0;
	lws_callback_on_writable(wsi);
	return 0;
}

static int send_error(kn_server *s, struct lws *wsi, struct pss *pss, int status, const char *msg,
                      const char *detail)
{
	kn_http_resp r = {0};
	kn_http_resp_error(&r, status, msg, detail);
	return send_answer(s, wsi, pss, &r, NULL, 0, status == 401);
}

static int write_body(struct lws *wsi, struct pss *pss)
{
	const unsigned char *src = pss->out_borrowed ? pss->out_borrowed
	                                             : (const unsigned char *)pss->out;
	if (!src)
		return 0;
	unsigned char buf[LWS_PRE + 16384];
	size_t n = pss->out_len - pss->out_off;
	if (n > sizeof buf - LWS_PRE)
		n = sizeof buf - LWS_PRE;
	memcpy(buf + LWS_PRE, src + pss->out_off, n);
	pss->out_off += n;
	int last = pss->out_off == pss->out_len;
	if (lws_write(wsi, buf + LWS_PRE, n, last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP) < (int)n)
		return -1;
	if (!last) {
		lws_callback_on_writable(wsi);
		return 0;
	}
	free(pss->out);
	pss->out = NULL;
	pss->out_borrowed = NULL;
	if (pss->close_after)
		return -1;
	return lws_http_transaction_completed(wsi) ? -1 : 0;
}

/* --- requests ------------------------------------------------------------------------------- */

static void unhold(kn_server *s, struct pss *pss)
{
	for (struct pss **p = &s->held; *p; p = &(*p)->held_next)
		if (*p == pss) {
			*p = pss->held_next;
			break;
		}
	free(pss->held.body);
	memset(&pss->held, 0, sizeof pss->held);
	pss->holding = pss->release = 0;
	pss->held_next = NULL;
}

/* Ask about every held answer; ready (or failed, or too old) ones are written from their own
 * WRITEABLE callback. */
static void check_held(kn_server *s)
{
	for (struct pss *p = s->held; p; p = p->held_next) {
		if (p->release)
			continue;
		kn_err err = {0};
		int rc = s->o.durable ? s->o.durable(s->o.ud, p->held.hold_from, p->held.hold_upto, &err)
		                      : 1;
		double age = kn_time_mono_s() - p->t0;
		if (rc == 0 && age * 1000 > KN_SERVER_HOLD_MS)
			rc = kn_err_set(&err, KN_ETIMEOUT, "not durable within %d ms", KN_SERVER_HOLD_MS);
		if (rc < 0)
			kn_http_resp_error(&p->held, 503, "events not durable", err.msg);
		if (rc != 0) {
			p->release = 1;
			lws_callback_on_writable(p->wsi);
		}
	}
}

static void reset_request(struct pss *pss)
{
	kn_srv_job_forget(pss);
	kn_http_query_clear(&pss->query);
	free(pss->body);
	free(pss->out);
	kn_stream_sub *sub = pss->sub;
	memset(pss, 0, sizeof *pss);
	pss->sub = sub;
}

static kn_http_method get_method(struct lws *wsi)
{
	if (lws_hdr_total_length(wsi, WSI_TOKEN_GET_URI) > 0)
		return KN_HTTP_GET;
	if (lws_hdr_total_length(wsi, WSI_TOKEN_POST_URI) > 0)
		return KN_HTTP_POST;
	if (lws_hdr_total_length(wsi, WSI_TOKEN_HEAD_URI) > 0)
		return KN_HTTP_HEAD;
	return KN_HTTP_OTHER;
}

/* Collect the decoded query fragments lws keeps ("name=value" each). */
int kn_srv_read_query(struct lws *wsi, kn_http_query *q, kn_err *err)
{
	char frag[KN_HTTP_MAX_QUERY_NAME + KN_HTTP_MAX_QUERY_VALUE + 2];
	for (int i = 0; i < 64; i++) {
		int n = lws_hdr_copy_fragment(wsi, frag, (int)sizeof frag, WSI_TOKEN_HTTP_URI_ARGS, i);
		if (n < 0) {
			if (lws_hdr_fragment_length(wsi, WSI_TOKEN_HTTP_URI_ARGS, i) > 0)
				return kn_err_set(err, KN_ELIMIT, "query parameter too long");
			return 0;
		}
		int rc = kn_http_query_add(q, frag, (size_t)n, err);
		if (rc)
			return rc;
	}
	return kn_err_set(err, KN_ELIMIT, "too many query parameters");
}

/* A header's value into buf (NULL when absent; "" when too long for buf). */
static const char *header(struct lws *wsi, enum lws_token_indexes t, char *buf, int cap)
{
	if (lws_hdr_total_length(wsi, t) <= 0)
		return NULL;
	if (lws_hdr_copy(wsi, buf, cap, t) < 0)
		buf[0] = '\0';
	return buf;
}

/* The first entry of a proxy header's comma-separated value (name with its ':', lower case),
 * trimmed, into buf; NULL when absent, empty or too long. */
static const char *forwarded(struct lws *wsi, const char *name, char *buf, int cap)
{
	int n = lws_hdr_custom_copy(wsi, buf, cap, name, (int)strlen(name));
	if (n <= 0)
		return NULL;
	buf[strcspn(buf, ",")] = '\0';
	char *b = buf + strspn(buf, " \t");
	size_t len = strcspn(b, " \t");
	b[len] = '\0';
	return len ? b : NULL;
}

int kn_srv_proxied(kn_server *s, struct lws *wsi)
{
	char ip[64] = "";
	lws_get_peer_simple(wsi, ip, sizeof ip);
	const char *a = strncmp(ip, "::ffff:", 7) == 0 ? ip + 7 : ip; /* IPv4 on a dual-stack socket */
	for (size_t i = 0; *a && i < s->o.n_proxies; i++)
		if (strcmp(a, s->o.proxies[i]) == 0)
			return 1;
	return 0;
}

/* The Host and Origin guards (request.h): NULL when the request may go on, else why not. Behind a
 * trusted proxy the Host and scheme the client used are its X-Forwarded-Host and -Proto. */
const char *kn_srv_foreign(kn_server *s, struct lws *wsi)
{
	char host[300], origin[300], fhost[300], proto[32];
	const char *h = header(wsi, WSI_TOKEN_HOST, host, (int)sizeof host);
	int https = 0;
	if (kn_srv_proxied(s, wsi)) {
		const char *fh = forwarded(wsi, "x-forwarded-host:", fhost, (int)sizeof fhost);
		const char *fp = forwarded(wsi, "x-forwarded-proto:", proto, (int)sizeof proto);
		h = fh ? fh : h;
		https = fp && strcasecmp(fp, "https") == 0;
	}
	if (!kn_http_host_ok(h, s->o.hosts, s->o.n_hosts, s->host, s->loopback))
		return "host not allowed";
	const char *o = header(wsi, WSI_TOKEN_ORIGIN, origin, (int)sizeof origin);
	if (!kn_http_origin_ok(o, h, https, s->o.origins, s->o.n_origins))
		return "origin not allowed";
	return NULL;
}

void kn_srv_peer(kn_server *s, struct lws *wsi, char *buf, size_t cap)
{
	buf[0] = '\0';
	char xff[512];
	if (kn_srv_proxied(s, wsi) && header(wsi, WSI_TOKEN_X_FORWARDED_FOR, xff, (int)sizeof xff)) {
		kn_http_forwarded_for(xff, buf, cap); /* the client the proxy saw */
		if (buf[0])
			return;
	}
	lws_get_peer_simple(wsi, buf, cap);
}

/* 1 when the request carries one of the tokens; *name (may be NULL) its name. */
int kn_srv_authed(kn_server *s, struct lws *wsi, const kn_http_query *q, const char **name)
{
	char h[1024], b[1100];
	const char *hv = NULL;
	if (name)
		*name = NULL;
	if (lws_hdr_copy(wsi, h, (int)sizeof h, WSI_TOKEN_HTTP_AUTHORIZATION) > 0)
		hv = h;
	/* a browser websocket cannot send headers: /api/stream also takes ?token= */
	const char *t = q ? kn_http_query_get(q, "token") : NULL;
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1) {
			if (!t)
				break;
			snprintf(b, sizeof b, "Bearer %s", t);
			hv = b;
		}
		if (!hv)
			continue;
		if (s->o.token && *s->o.token && kn_http_auth_ok(hv, s->o.token)) {
			if (name)
				*name = "default";
			return 1;
		}
		int i = kn_http_auth_which(hv, s->o.tokens, s->o.n_tokens);
		if (i >= 0) {
			if (name)
				*name = s->o.tokens[i].name;
			return 1;
		}
	}
	return 0;
}

static int serve_static(kn_server *s, struct lws *wsi, struct pss *pss, const char *path)
{
	const char *name = strcmp(path, "/") == 0 || strcmp(path, "/index.html") == 0
	                       ? "index.html"
	                       : path + strlen("/static/");
	for (unsigned long i = 0; i < kn_dashboard_n_files; i++)
		if (strcmp(kn_dashboard_files[i].path, name) == 0) {
			kn_http_resp r = {0};
			r.content_type = mime_type(name);
			return send_answer(s, wsi, pss, &r, kn_dashboard_files[i].data,
			                   kn_dashboard_files[i].len, 0);
		}
	if (strcmp(name, "index.html") == 0) {
		kn_http_resp r = {0};
		r.content_type = "text/html; charset=utf-8";
		return send_answer(s, wsi, pss, &r, (const unsigned char *)placeholder_index,
		                   sizeof placeholder_index - 1, 0);
	}
	return send_error(s, wsi, pss, 404, "not found", "no such dashboard file");
}

/* An answer, or (resp->defer) the request moved to a worker lane (async.c). */
static int answer_or_defer(kn_server *s, struct lws *wsi, struct pss *pss, kn_http_resp *r)
{
	if (!r->defer)
		return send_answer(s, wsi, pss, r, NULL, 0, 0);
	free(r->body);
	r->body = NULL;
	if (!s->pool_init || kn_srv_defer(s, wsi, pss, r->defer) != 0)
		return send_error(s, wsi, pss, 500, "cannot answer", "no worker thread");
	return 0;
}

static int dispatch(kn_server *s, struct lws *wsi, struct pss *pss)
{
	if (pss->route == KN_ROUTE_METRICS) {
		if (s->o.before_metrics)
			s->o.before_metrics(s->o.ud);
		kn_http_resp r = {0};
		if (s->o.handle_worker && s->o.handle) { /* gauges may need the database: a worker's */
			kn_http_req mreq = {pss->method, pss->route, pss->id, &pss->query, "", 0, NULL, NULL, NULL};
			s->o.handle(s->o.ud, &mreq, &r);
			if (r.defer || r.body || r.status)
				return answer_or_defer(s, wsi, pss, &r);
		}
		if (kn_metrics_render(s->o.metrics, &r.body, &r.len) != 0)
			return send_error(s, wsi, pss, 500, "out of memory", NULL);
		r.content_type = "text/plain; version=0.0.4; charset=utf-8";
		return send_answer(s, wsi, pss, &r, NULL, 0, 0);
	}
	kn_http_req req = {pss->method, pss->route, pss->id, &pss->query,
	                   pss->body ? pss->body : "", pss->body_len, pss->hop[0] ? pss->hop : NULL,
	                   pss->author[0] ? pss->author : NULL, pss->accept[0] ? pss->accept : NULL};
	kn_http_resp r = {0};
	if (s->o.handle)
		s->o.handle(s->o.ud, &req, &r);
	else
		kn_http_resp_error(&r, 404, "not found", NULL);
	if (r.defer)
		return answer_or_defer(s, wsi, pss, &r);
	if (r.hold_upto > 0 && s->o.durable) {
		pss->held = r;
		pss->holding = 1;
		pss->wsi = wsi;
		pss->held_next = s->held;
		s->held = pss;
		check_held(s); /* a batch may be durable already */
		return 0;
	}
	return send_answer(s, wsi, pss, &r, NULL, 0, 0);
}

static int on_http(kn_server *s, struct lws *wsi, struct pss *pss, const char *path)
{
	reset_request(pss);
	pss->t0 = kn_time_mono_s();
	pss->method = get_method(wsi);
	kn_err err = {0};
	int rc = kn_http_route(&pss->route, pss->id, sizeof pss->id, pss->method, path);
	int has_body = lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH) > 0 ||
	               lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_TRANSFER_ENCODING) > 0;
	if (rc || pss->method == KN_HTTP_OTHER)
		pss->close_after = has_body; /* the body is not read: do not reuse the connection */
	if (rc == KN_ENOTFOUND)
		return send_error(s, wsi, pss, 404, "not found", "no such route");
	if (rc == KN_EUNSUPPORTED)
		return send_error(s, wsi, pss, 405, "method not allowed", NULL);
	if (rc)
		return send_error(s, wsi, pss, 400, "bad path parameter",
		                  "the id is empty, too long or holds control characters");
	if (kn_srv_read_query(wsi, &pss->query, &err)) {
		pss->close_after = has_body;
		return send_error(s, wsi, pss, 400, "bad query", err.msg);
	}
	/* a call another serve forwarded (services/runs/README.md "Several serves"): that serve
	 * judged its Host and Origin; here it needs the token like any write */
	int hop = lws_hdr_custom_length(wsi, "x-kn-forwarded:", 15) > 0;
	if (hop && (lws_hdr_custom_copy(wsi, pss->hop, (int)sizeof pss->hop, "x-kn-forwarded:", 15) <= 0 ||
	            !kn_http_hop_ok(pss->hop) || !kn_route_forwardable(pss->route))) {
		pss->hop[0] = '\0';
		pss->close_after = has_body;
		return send_error(s, wsi, pss, 400, "bad " KN_HTTP_HOP_HEADER,
		                  "only on a run's events, answer and stop; 1 to 159 bytes of A-Z a-z 0-9 . _ -");
	}
	/* DNS rebinding (a foreign Host) and pages of other origins get nothing but the dashboard's
	 * files (which hold no data) */
	const char *why = pss->route == KN_ROUTE_STATIC || hop ? NULL : kn_srv_foreign(s, wsi);
	if (why) {
		char ip[64];
		kn_srv_peer(s, wsi, ip, sizeof ip);
		kn_log("warn", "http", "msg=\"request refused\" reason=\"%s\" client=%s route=\"%s\"", why, ip,
		       kn_route_name(pss->route));
		pss->close_after = has_body;
		return send_error(s, wsi, pss, 403, why,
		                  "configure http.hosts / http.origins to allow it");
	}
	int write = kn_route_is_write(pss->route);
	/* reads are open on a loopback listener, unless a proxy brought the request from elsewhere */
	const char *author = NULL;
	int authed = kn_srv_authed(s, wsi, NULL, &author);
	snprintf(pss->author, sizeof pss->author, "%s", authed && author ? author : "");
	if (lws_hdr_copy(wsi, pss->accept, (int)sizeof pss->accept, WSI_TOKEN_HTTP_ACCEPT) <= 0)
		pss->accept[0] = '\0';
	if ((write || hop || !s->loopback || kn_srv_proxied(s, wsi)) && pss->route != KN_ROUTE_HEALTHZ &&
	    pss->route != KN_ROUTE_STATIC && !authed) {
		pss->close_after = has_body;
		return send_error(s, wsi, pss, 401, "unauthorized",
		                  "send Authorization: Bearer <token> (http.token / KEYNODE_API_TOKEN)");
	}
	if (pss->route == KN_ROUTE_STREAM)
		return send_error(s, wsi, pss, 400, "websocket upgrade required",
		                  "connect with a websocket client");
	if (pss->route == KN_ROUTE_STATIC)
		return serve_static(s, wsi, pss, path);
	if (pss->method == KN_HTTP_POST) {
		size_t cap = pss->route == KN_ROUTE_TASKSETS_POST ? KN_HTTP_MAX_TASKSET_BODY
		                                                  : KN_HTTP_MAX_BODY;
		char cl[32];
		if (lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_TRANSFER_ENCODING) > 0 &&
		    lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH) <= 0) {
			pss->close_after = 1;
			return send_error(s, wsi, pss, 411, "length required",
			                  "send the body with a Content-Length");
		}
		/* lws reads whatever follows a POST without Content-Length as its body until the
		 * keep-alive timeout (5 s): answer it with Connection: close, so the client opens a
		 * new connection for its next request at once */
		if (lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH) <= 0)
			pss->close_after = 1;
		if (lws_hdr_copy(wsi, cl, (int)sizeof cl, WSI_TOKEN_HTTP_CONTENT_LENGTH) > 0) {
			char *end;
			unsigned long long n = strtoull(cl, &end, 10);
			if (*end || cl[0] == '-') {
				pss->close_after = 1;
				return send_error(s, wsi, pss, 400, "bad content-length", NULL);
			}
			if (n > cap) {
				pss->close_after = 1;
				char d[96];
				snprintf(d, sizeof d, "the body is capped at %zu bytes for this route", cap);
				return send_error(s, wsi, pss, 413, "body too large", d);
			}
			if (n > 0) {
				pss->body_cap = (size_t)n;
				if (!(pss->body = malloc(pss->body_cap + 1)))
					return -1;
				pss->in_body = 1;
				return 0; /* wait for LWS_CALLBACK_HTTP_BODY_COMPLETION */
			}
		}
	}
	return dispatch(s, wsi, pss);
}

/* --- the protocol --------------------------------------------------------------------------- */

static const struct lws_protocols protocols[2];

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
	struct pss *pss = user;
	struct lws_context *ctx = lws_get_context(wsi);
	kn_server *s = ctx ? lws_context_user(ctx) : NULL;
	switch (reason) {
	case LWS_CALLBACK_HTTP:
		return on_http(s, wsi, pss, in);
	case LWS_CALLBACK_HTTP_BODY:
		if (!pss->in_body)
			return 0;
		if (pss->body_len + len > pss->body_cap) {
			pss->in_body = 0;
			pss->close_after = 1;
			return send_error(s, wsi, pss, 413, "body too large", "longer than its Content-Length");
		}
		memcpy(pss->body + pss->body_len, in, len);
		pss->body_len += len;
		return 0;
	case LWS_CALLBACK_HTTP_BODY_COMPLETION:
		if (!pss->in_body)
			return 0;
		pss->in_body = 0;
		pss->body[pss->body_len] = '\0';
		return dispatch(s, wsi, pss);
	case LWS_CALLBACK_HTTP_WRITEABLE:
		if (pss->holding) {
			if (!pss->release)
				return 0;
			kn_http_resp r = pss->held;
			pss->held.body = NULL;
			unhold(s, pss);
			return send_answer(s, wsi, pss, &r, NULL, 0, 0);
		}
		return write_body(wsi, pss);
	case LWS_CALLBACK_CLOSED_HTTP:
	case LWS_CALLBACK_HTTP_DROP_PROTOCOL:
		if (pss && pss->holding)
			unhold(s, pss);
		if (pss && !pss->sub)
			reset_request(pss);
		break;
	case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
		return kn_srv_ws_filter(s, wsi);
	case LWS_CALLBACK_ESTABLISHED:
		return kn_srv_ws_established(s, wsi, pss);
	case LWS_CALLBACK_SERVER_WRITEABLE:
		return kn_srv_ws_writeable(s, wsi, pss);
	case LWS_CALLBACK_RECEIVE: /* /api/stream is one-way; /api/live takes a viewer's input */
		return pss && pss->live ? kn_srv_ws_receive(s, wsi, pss, in, len) : 0;
	case LWS_CALLBACK_CLOSED:
		if (pss)
			kn_srv_ws_closed(s, pss);
		return 0;
	case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
		if (s)
			kn_srv_pool_deliver(s);
		if (s && s->held)
			check_held(s);
		if (s && s->vh && s->proto) {
			kn_srv_close_dropped(s);
			lws_callback_on_writable_all_protocol_vhost(s->vh, s->proto);
		}
		return 0;
	default:
		break;
	}
	return lws_callback_http_dummy(wsi, reason, user, in, len);
}

static const struct lws_protocols protocols[2] = {
	{"keynode", callback, sizeof(struct pss), 65536, 0, NULL, 0},
	{NULL, NULL, 0, 0, 0, NULL, 0},
};

/* --- lifecycle ------------------------------------------------------------------------------ */

static int split_listen(char *host, size_t cap, int *port, const char *listen, kn_err *err)
{
	const char *colon = listen ? strrchr(listen, ':') : NULL;
	if (!colon || colon == listen)
		return kn_err_set(err, KN_EINVAL, "listen address '%s' is not HOST:PORT",
		                  listen ? listen : "");
	size_t hl = (size_t)(colon - listen);
	if (listen[0] == '[' && hl >= 2 && listen[hl - 1] == ']') {
		listen++;
		hl -= 2;
	}
	if (hl >= cap)
		return kn_err_set(err, KN_EINVAL, "listen host too long");
	memcpy(host, listen, hl);
	host[hl] = '\0';
	char *end;
	long p = strtol(colon + 1, &end, 10);
	if (end == colon + 1 || *end || p < 0 || p > 65535)
		return kn_err_set(err, KN_EINVAL, "bad port in listen address '%s'", listen);
	*port = (int)p;
	if (strcmp(host, "localhost") == 0)
		snprintf(host, cap, "127.0.0.1");
	return 0;
}

int kn_server_new(kn_server **out, const kn_server_opts *opts, kn_err *err)
{
	if (!out || !opts || !opts->metrics || !opts->stream)
		return kn_err_set(err, KN_EINVAL, "bad server options");
	*out = NULL;
	kn_server *s = calloc(1, sizeof *s);
	if (!s)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	s->o = *opts;
	int rc = split_listen(s->host, sizeof s->host, &s->port, opts->listen, err);
	if (rc) {
		free(s);
		return rc;
	}
	s->loopback = strncmp(s->host, "127.", 4) == 0 || strcmp(s->host, "::1") == 0;
	int idle = opts->stream_idle_s > 0 ? opts->stream_idle_s : 60;
	s->idle.secs_since_valid_ping = (uint16_t)(idle > 1 ? idle / 2 : 1);
	s->idle.secs_since_valid_hangup = (uint16_t)idle;
	kn_http_listen_opts lo = {.host = s->host, .port = s->port, .vhost_name = "keynode",
	                          .server_string = "keynode", .protocols = protocols, .idle = &s->idle,
	                          .user = s};
	if ((rc = kn_http_listen(&s->ctx, &s->vh, &lo, err)) != 0) {
		kn_server_free(s);
		return rc;
	}
	s->port = lws_get_vhost_listen_port(s->vh);
	s->proto = lws_vhost_name_to_protocol(s->vh, protocols[0].name);
	*out = s;
	return 0;
}

int kn_server_advertise(const kn_server *s, const char *hostname, char *out, size_t cap, kn_err *err)
{
	return kn_http_advertise(out, cap, s->host, s->port, hostname, err);
}

int kn_server_port(const kn_server *s)
{
	return s ? s->port : 0;
}

/* At each stop poll of the loop: the held answers, then the owner's tick. */
static void server_tick(void *ud)
{
	kn_server *s = ud;
	if (s->held)
		check_held(s);
	if (s->o.tick)
		s->o.tick(s->o.ud);
}

int kn_server_run(kn_server *s, volatile sig_atomic_t *stop)
{
	if (!s || !stop)
		return KN_EINVAL;
	kn_err err = {0};
	if (kn_srv_pool_start(s, &err) != 0) {
		kn_log_msg("error", "http", err.msg, NULL);
		kn_srv_pool_stop(s);
		return err.code;
	}
	int rc = kn_http_serve(s->ctx, stop, TICK_US, server_tick, s);
	kn_srv_pool_stop(s); /* no worker calls a handler once run returns */
	return rc;
}

void kn_server_wake(void *server)
{
	kn_server *s = server;
	if (s && s->ctx)
		lws_cancel_service(s->ctx);
}

void kn_server_free(kn_server *s)
{
	if (!s)
		return;
	if (s->ctx)
		lws_context_destroy(s->ctx);
	free(s);
}
