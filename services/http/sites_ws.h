/* sites_ws.h — the WebSocket endpoint of `keynode sites`: a test site's page may open a WebSocket on
 * any path of the server. Every message it receives is logged (with --log-requests) as one line,
 * `component=sites msg="websocket message" path="/live" size=N text="…"`, so a test proves a message
 * arrived or did not; each connection is greeted with {"type":"hello"} and every message answered
 * with {"type":"ack","n":N} (N counts the connection's messages), so a page receives messages too. */
#ifndef KEYNODE_SITES_WS_H
#define KEYNODE_SITES_WS_H

#include <stddef.h>

#include <libwebsockets.h>

#define KN_SITES_WS_MAX_MESSAGE (64u * 1024u) /* longer messages are logged from their start */

/* One connection's state, zeroed when it opens. */
typedef struct kn_sites_ws {
	char path[256];
	char *buf;        /* the message being received (fragments joined) */
	size_t len, total; /* bytes kept, bytes received (total may pass the cap) */
	unsigned got;     /* messages received */
	unsigned replied; /* answers written (the hello counts one) */
} kn_sites_ws;

/* The lws callback's websocket reasons for connection st; log: one line per message.
 * Returns what the lws callback returns. */
int kn_sites_ws_callback(struct lws *wsi, enum lws_callback_reasons reason, kn_sites_ws *st, void *in,
                         size_t len, int log);

#endif
