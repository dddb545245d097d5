/* server_ws.c — the /api/stream and /api/live websockets of `keynode serve` (server.h,
 * services/http/API.md): who may subscribe (the path, the Host/Origin guards, a token off loopback
 * or through a trusted proxy; for /api/live a token always, unless http.live_view_public), the
 * subscriber limits of kn_stream, and writing each subscriber's queue one message at a time. A live
 * view viewer also sends: take, release and inputs (services/live/live_wire.h), each parsed
 * strictly, refused unless it showed the token (401) and took over (409), answered on its own; a
 * take on a page that cannot be taken over now (a run serve watches, an attempt its site does not
 * block, a page not live) is refused 409 with the reason. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live_wire.h"
#include "log.h"
#include "server_internal.h"

static int ws_refuse(kn_server *s, struct lws *wsi, const char *why)
{
	char ip[64];
	kn_srv_peer(s, wsi, ip, sizeof ip);
	kn_log("warn", "http", "msg=\"stream subscriber refused\" reason=\"%s\" client=%s", why, ip);
	return -1;
}

/* 1 for the live view's path. */
static int live_path(struct lws *wsi)
{
	char uri[64];
	return lws_hdr_copy(wsi, uri, (int)sizeof uri, WSI_TOKEN_GET_URI) > 0 && strcmp(uri, "/api/live") == 0;
}

int kn_srv_ws_filter(kn_server *s, struct lws *wsi)
{
	char uri[64];
	int live = s->o.live && live_path(wsi);
	if (!live && (lws_hdr_copy(wsi, uri, (int)sizeof uri, WSI_TOKEN_GET_URI) <= 0 ||
	              strcmp(uri, "/api/stream") != 0))
		return ws_refuse(s, wsi, "not /api/stream");
	const char *why = kn_srv_foreign(s, wsi);
	if (why)
		return ws_refuse(s, wsi, why);
	kn_http_query q = {0};
	kn_err err;
	int ok = kn_srv_read_query(wsi, &q, &err) == 0, token = ok && kn_srv_authed(s, wsi, &q, NULL);
	const char *run = ok ? kn_http_query_get(&q, "run") : NULL;
	int run_ok = kn_live_run_ok(run);
	kn_http_query_clear(&q);
	if (!ok)
		return ws_refuse(s, wsi, "bad query");
	if (live) { /* a live page may show private data: the token, unless keynode.yaml opens it */
		if (!run_ok)
			return ws_refuse(s, wsi, "live view: no run");
		if (!token && !s->o.live_public)
			return ws_refuse(s, wsi, "live view: no token");
		return 0;
	}
	if ((!s->loopback || kn_srv_proxied(s, wsi)) && !token)
		return ws_refuse(s, wsi, "no token");
	return 0;
}

/* A reply to this viewer only, written before its queue ({"type":"error"|"taken"|"released", …}). */
static void reply(struct lws *wsi, struct pss *pss, const char *type, int status, const char *error)
{
	char buf[400];
	if (error)
		snprintf(buf, sizeof buf, "{\"type\":\"%s\",\"status\":%d,\"error\":\"%.200s\"}", type, status, error);
	else
		snprintf(buf, sizeof buf, "{\"type\":\"%s\",\"run\":\"%s\"}", type, pss->run);
	free(pss->reply);
	pss->reply = strdup(buf);
	lws_callback_on_writable(wsi);
}

int kn_srv_ws_receive(kn_server *s, struct lws *wsi, struct pss *pss, const void *in, size_t len)
{
	if (pss->rx_len + len > KN_LIVE_VIEWER_MAX) { /* never buffered past the cap: closed */
		unsigned char why[] = "message too big";
		lws_close_reason(wsi, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE, why, sizeof why - 1);
		return -1;
	}
	char *b = realloc(pss->rx, pss->rx_len + len + 1);
	if (!b)
		return -1;
	pss->rx = b;
	memcpy(b + pss->rx_len, in, len);
	pss->rx_len += len;
	if (!lws_is_final_fragment(wsi) || lws_remaining_packet_payload(wsi))
		return 0;
	kn_live_input li;
	kn_err err = {0};
	int rc = kn_live_viewer_parse(&li, pss->rx, pss->rx_len, &err);
	pss->rx_len = 0;
	char ip[64];
	kn_srv_peer(s, wsi, ip, sizeof ip);
	if (rc) {
		char q[200];
		kn_log_msg("warn", "http", "live view message refused", "run=%s client=%s detail=\"%s\"", pss->run, ip,
		           kn_log_quote(q, sizeof q, err.msg));
		for (char *p = err.msg; *p; p++) /* the detail goes back inside a JSON string */
			if (*p == '"' || *p == '\\' || (unsigned char)*p < 0x20)
				*p = '\'';
		reply(wsi, pss, "error", 400, err.msg);
		return 0;
	}
	if (!pss->authed) {
		kn_log_msg("warn", "http", "takeover refused", "run=%s client=%s reason=\"no token\"", pss->run, ip);
		reply(wsi, pss, "error", 401, "taking over needs the token");
		return 0;
	}
	char why[200];
	int refused = li.kind == KN_LIVE_TAKE && !pss->taking && s->o.live_can_take
	              ? s->o.live_can_take(s->o.ud, pss->run, why, sizeof why) : 0;
	if (refused) { /* a page nobody may take over now: said, never answered "taken" */
		kn_log_msg("warn", "http", "takeover refused", "run=%s client=%s reason=\"%s\"", pss->run, ip, why);
		reply(wsi, pss, "error", refused, why);
		return 0;
	}
	if (li.kind == KN_LIVE_TAKE) {
		if (!pss->taking)
			kn_log_msg("info", "http", "takeover", "run=%s client=%s", pss->run, ip);
		pss->taking = 1;
	} else if (li.kind == KN_LIVE_RELEASE) {
		if (pss->taking)
			kn_log_msg("info", "http", "takeover released", "run=%s client=%s", pss->run, ip);
		pss->taking = 0;
	} else if (!pss->taking) {
		reply(wsi, pss, "error", 409, "take over first");
		return 0;
	}
	if (s->o.live_in)
		s->o.live_in(s->o.ud, pss->run, 2, &li, ip);
	if (li.kind == KN_LIVE_TAKE || li.kind == KN_LIVE_RELEASE)
		reply(wsi, pss, li.kind == KN_LIVE_TAKE ? "taken" : "released", 200, NULL);
	return 0;
}

void kn_srv_ws_closed(kn_server *s, struct pss *pss)
{
	if (pss->live) {
		char ip[64] = "";
		if (pss->taking && s->o.live_in) {
			kn_live_input rel = {.kind = KN_LIVE_RELEASE};
			kn_log_msg("info", "http", "takeover released", "run=%s reason=\"viewer gone\"", pss->run);
			s->o.live_in(s->o.ud, pss->run, 2, &rel, ip);
		}
		if (s->o.live_in)
			s->o.live_in(s->o.ud, pss->run, 0, NULL, ip);
	}
	if (pss->sub)
		kn_stream_unsubscribe(pss->live ? s->o.live : s->o.stream, pss->sub);
	pss->sub = NULL;
	pss->live = pss->taking = 0;
	free(pss->reply), pss->reply = NULL;
	free(pss->rx), pss->rx = NULL;
	pss->rx_len = 0;
}

int kn_srv_ws_established(kn_server *s, struct lws *wsi, struct pss *pss)
{
	kn_http_query q = {0};
	kn_err err;
	memset(pss, 0, sizeof *pss);
	if (kn_srv_read_query(wsi, &q, &err))
		return -1;
	const char *run = kn_http_query_get(&q, "run");
	char ip[64];
	kn_srv_peer(s, wsi, ip, sizeof ip);
	int live = s->o.live && live_path(wsi), authed = kn_srv_authed(s, wsi, &q, NULL);
	int rc = kn_stream_subscribe_from(live ? s->o.live : s->o.stream, run && *run ? run : NULL, wsi, ip,
	                                  authed, &pss->sub, &err);
	if (!rc && live) {
		pss->live = 1, pss->authed = authed;
		snprintf(pss->run, sizeof pss->run, "%s", run);
		if (s->o.live_in)
			s->o.live_in(s->o.ud, pss->run, 1, NULL, ip);
		/* a watching session ends (the page may show private data to an unattended screen) */
		lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, s->o.live_max_s > 0 ? s->o.live_max_s : 3600);
	}
	kn_http_query_clear(&q);
	if (rc) {
		unsigned char why[] = "too many subscribers";
		lws_close_reason(wsi, LWS_CLOSE_STATUS_POLICY_VIOLATION, why, sizeof why - 1);
		return ws_refuse(s, wsi, err.msg);
	}
	kn_metrics_request(s->o.metrics, KN_ROUTE_STREAM, 101, 0);
	return 0;
}

int kn_srv_ws_writeable(kn_server *s, struct lws *wsi, struct pss *pss)
{
	if (!pss->sub)
		return 0;
	/* lws would buffer what the socket does not take, without bound: write only when the
	 * previous message is gone, so a client that does not read backs up into its own queue */
	if (lws_send_pipe_choked(wsi)) {
		lws_callback_on_writable(wsi);
		return 0;
	}
	char *msg;
	size_t len;
	int dropped;
	if (pss->reply) { /* this viewer's own answer first */
		msg = pss->reply, len = strlen(msg), pss->reply = NULL, dropped = 0;
	} else if (!kn_stream_pop(pss->live ? s->o.live : s->o.stream, pss->sub, &msg, &len, &dropped)) {
		if (dropped) { /* logged by close_dropped */
			unsigned char why[] = "too slow";
			lws_close_reason(wsi, LWS_CLOSE_STATUS_POLICY_VIOLATION, why, sizeof why - 1);
			return -1;
		}
		return 0;
	}
	unsigned char *buf = malloc(LWS_PRE + len);
	if (!buf) {
		free(msg);
		return -1;
	}
	memcpy(buf + LWS_PRE, msg, len);
	free(msg);
	int n = lws_write(wsi, buf + LWS_PRE, len, LWS_WRITE_TEXT);
	free(buf);
	if (n < (int)len)
		return -1;
	lws_callback_on_writable(wsi); /* more may be queued; an empty pop costs little */
	return 0;
}

/* Close the subscribers whose queue overflowed. Their socket may be full, so no write callback
 * would come: kill the connection asynchronously (CLOSED then unsubscribes it). */
void kn_srv_close_dropped(kn_server *s)
{
	void *conns[32];
	size_t n;
	for (int k = 0; k < 2; k++) {
		kn_stream *st = k ? s->o.live : s->o.stream;
		while (st && (n = kn_stream_take_dropped(st, conns, 32)) > 0)
			for (size_t i = 0; i < n; i++) {
				kn_log_msg("warn", "http", "stream subscriber dropped: too slow", NULL);
				lws_set_timeout(conns[i], PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
			}
	}
}
