/* server_ws.c — the /api/stream websocket of `keynode serve` (server.h, services/http/API.md): who
 * may subscribe (the path, the Host/Origin guards, a token off loopback or through a trusted proxy), the subscriber limits of
 * kn_stream, and writing each subscriber's queue one message at a time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "server_internal.h"

static int ws_refuse(kn_server *s, struct lws *wsi, const char *why)
{
	char ip[64];
	kn_srv_peer(s, wsi, ip, sizeof ip);
	kn_log("warn", "http", "msg=\"stream subscriber refused\" reason=\"%s\" client=%s", why, ip);
	return -1;
}

int kn_srv_ws_filter(kn_server *s, struct lws *wsi)
{
	char uri[64];
	if (lws_hdr_copy(wsi, uri, (int)sizeof uri, WSI_TOKEN_GET_URI) <= 0 ||
	    strcmp(uri, "/api/stream") != 0)
		return ws_refuse(s, wsi, "not /api/stream");
	const char *why = kn_srv_foreign(s, wsi);
	if (why)
		return ws_refuse(s, wsi, why);
	kn_http_query q = {0};
	kn_err err;
	int ok = kn_srv_read_query(wsi, &q, &err) == 0, token = ok && kn_srv_authed(s, wsi, &q, NULL);
	kn_http_query_clear(&q);
	if (!ok)
		return ws_refuse(s, wsi, "bad query");
	if ((!s->loopback || kn_srv_proxied(s, wsi)) && !token)
		return ws_refuse(s, wsi, "no token");
	return 0;
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
	int rc = kn_stream_subscribe_from(s->o.stream, run && *run ? run : NULL, wsi, ip,
	                                  kn_srv_authed(s, wsi, &q, NULL), &pss->sub, &err);
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
	if (!kn_stream_pop(s->o.stream, pss->sub, &msg, &len, &dropped)) {
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
	while ((n = kn_stream_take_dropped(s->o.stream, conns, 32)) > 0)
		for (size_t i = 0; i < n; i++) {
			kn_log_msg("warn", "http", "stream subscriber dropped: too slow", NULL);
			lws_set_timeout(conns[i], PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
		}
}
