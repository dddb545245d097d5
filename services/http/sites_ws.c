/* sites_ws.c — the WebSocket endpoint of `keynode sites` (sites_ws.h). Fragments are joined up to
 * KN_SITES_WS_MAX_MESSAGE; answers are written one per writeable callback, as lws wants. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "sites_ws.h"

static void log_message(const kn_sites_ws *st, size_t size)
{
	char qp[300], qt[2048], *text = malloc(st->len + 1);
	if (!text)
		return;
	memcpy(text, st->buf ? st->buf : "", st->len);
	text[st->len] = '\0';
	kn_log("info", "sites", "msg=\"websocket message\" path=\"%s\" size=%zu text=\"%s\"",
	       kn_log_quote(qp, sizeof qp, st->path), size, kn_log_quote(qt, sizeof qt, text));
	free(text);
}

static int receive(struct lws *wsi, kn_sites_ws *st, const void *in, size_t len, int log)
{
	size_t room = KN_SITES_WS_MAX_MESSAGE - st->len, take = len < room ? len : room;
	if (take) {
		char *grown = realloc(st->buf, st->len + take);
		if (!grown)
			return -1;
		st->buf = grown;
		memcpy(st->buf + st->len, in, take);
		st->len += take;
	}
	st->total += len;
	if (!lws_is_final_fragment(wsi) || lws_remaining_packet_payload(wsi))
		return 0;
	if (log)
		log_message(st, st->total);
	st->total = 0;
	st->len = 0;
	st->got++;
	lws_callback_on_writable(wsi);
	return 0;
}

static int reply(struct lws *wsi, kn_sites_ws *st)
{
	unsigned char buf[LWS_PRE + 64];
	int n = st->replied == 0 ? snprintf((char *)buf + LWS_PRE, 64, "{\"type\":\"hello\"}")
	                         : snprintf((char *)buf + LWS_PRE, 64, "{\"type\":\"ack\",\"n\":%u}", st->replied);
	if (lws_write(wsi, buf + LWS_PRE, (size_t)n, LWS_WRITE_TEXT) < n)
		return -1;
	st->replied++;
	if (st->replied < st->got + 1)
		lws_callback_on_writable(wsi);
	return 0;
}

int kn_sites_ws_callback(struct lws *wsi, enum lws_callback_reasons reason, kn_sites_ws *st, void *in,
                         size_t len, int log)
{
	switch (reason) {
	case LWS_CALLBACK_ESTABLISHED:
		memset(st, 0, sizeof *st);
		if (lws_hdr_copy(wsi, st->path, sizeof st->path, WSI_TOKEN_GET_URI) < 0)
			st->path[0] = '\0';
		lws_callback_on_writable(wsi); /* the hello */
		return 0;
	case LWS_CALLBACK_RECEIVE:
		return receive(wsi, st, in, len, log);
	case LWS_CALLBACK_SERVER_WRITEABLE:
		return reply(wsi, st);
	case LWS_CALLBACK_CLOSED:
		free(st->buf);
		st->buf = NULL;
		return 0;
	default:
		return 0;
	}
}
