/* canary_listener.c — the canary's endpoint (canary_listener.h): a non-blocking listening socket on
 * 127.0.0.1, polled by the monitor's loop. Each accepted connection is read until its request head
 * is complete (at most a few polls; a connection that sends nothing in 2 s is dropped). A WebSocket
 * upgrade for the prefix's `ws` path is answered 101 (RFC 6455: Sec-WebSocket-Accept, the SHA-1 of
 * the key and the protocol's GUID) and kept open: each data frame the page sends on it is a message
 * arrived. Any other request is counted when its path starts with the prefix, answered 204 and
 * closed. At most KN_CANARY_CONNS connections are kept at once: more are answered and closed unread
 * (they are not ours: only the canary knows the random prefix). */
#define _GNU_SOURCE /* accept4 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "keynode/base64.h"
#include "keynode/clock.h"
#include "canary_listener.h"

#define KN_CANARY_CONNS 8
#define KN_CANARY_LINE 4096 /* a request head: a browser's WebSocket upgrade is ~600 bytes */
#define KN_WS_GUID "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

struct conn {
	int fd;
	double since;
	int ws;          /* upgraded: what follows are WebSocket frames */
	size_t len;
	unsigned long long skip; /* ws: payload bytes of the current frame still to come */
	char line[KN_CANARY_LINE];
};

struct kn_canary_listener {
	int fd, port, arrived, ws_messages;
	char *prefix;
	struct conn conns[KN_CANARY_CONNS];
};

int kn_canary_listener_new(kn_canary_listener **out, const char *prefix, kn_err *err)
{
	*out = NULL;
	kn_canary_listener *l = calloc(1, sizeof *l);
	if (!l || !(l->prefix = strdup(prefix))) {
		free(l);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	for (int i = 0; i < KN_CANARY_CONNS; i++)
		l->conns[i].fd = -1;
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t alen = sizeof a;
	l->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (l->fd < 0 || bind(l->fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(l->fd, 16) != 0 ||
	    getsockname(l->fd, (struct sockaddr *)&a, &alen) != 0) {
		int e = errno;
		kn_canary_listener_free(l);
		return kn_err_set(err, KN_EIO, "canary endpoint: cannot listen on 127.0.0.1: %s", strerror(e));
	}
	l->port = ntohs(a.sin_port);
	*out = l;
	return 0;
}

int kn_canary_listener_port(const kn_canary_listener *l)
{
	return l->port;
}

static void conn_close(struct conn *c)
{
	static const char answer[] = "HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n";
	if (c->fd < 0)
		return;
	if (!c->ws) {
		ssize_t w = send(c->fd, answer, sizeof answer - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
		(void)w; /* a peer gone before the answer: nothing to do */
	}
	close(c->fd);
	c->fd = -1;
	c->len = 0;
	c->ws = 0;
	c->skip = 0;
}

/* The value of header name in the head (case-insensitive name), copied into out; 0 when absent. */
static int header(const char *head, const char *name, char *out, size_t out_len)
{
	size_t n = strlen(name);
	for (const char *p = strstr(head, "\r\n"); p; p = strstr(p + 2, "\r\n")) {
		if (strncasecmp(p + 2, name, n) != 0 || p[2 + n] != ':')
			continue;
		const char *v = p + 3 + n, *end;
		while (*v == ' ' || *v == '\t')
			v++;
		if (!(end = strstr(v, "\r\n")) || (size_t)(end - v) >= out_len)
			return 0;
		memcpy(out, v, (size_t)(end - v));
		out[end - v] = '\0';
		return 1;
	}
	return 0;
}

/* Answer a WebSocket upgrade (101 with the key's accept value); 0 when it could not be. */
static int upgrade(struct conn *c)
{
	char key[128], cat[200], answer[300];
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdn = 0;
	char *accept = NULL;
	if (!header(c->line, "Sec-WebSocket-Key", key, sizeof key))
		return 0;
	int n = snprintf(cat, sizeof cat, "%s%s", key, KN_WS_GUID);
	if (n <= 0 || (size_t)n >= sizeof cat || EVP_Digest(cat, (size_t)n, md, &mdn, EVP_sha1(), NULL) != 1 ||
	    kn_base64_encode(&accept, md, mdn) != 0)
		return 0;
	n = snprintf(answer, sizeof answer, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
	             "Connection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n\r\n", accept);
	free(accept);
	ssize_t w = send(c->fd, answer, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
	return w == n;
}

/* Take the WebSocket frames read into c->line: each text or binary frame is a message arrived; a
 * close frame ends the connection (1). Frames are counted at their header; their payload skipped. */
static int ws_frames(kn_canary_listener *l, struct conn *c)
{
	size_t at = 0;
	for (;;) {
		if (c->skip) {
			size_t take = c->skip < c->len - at ? (size_t)c->skip : c->len - at;
			at += take;
			c->skip -= take;
			if (c->skip)
				break;
		}
		const unsigned char *b = (const unsigned char *)c->line + at;
		size_t have = c->len - at, head = 2;
		if (have < 2)
			break;
		unsigned long long plen = b[1] & 0x7f;
		if (plen == 126)
			head += 2;
		else if (plen == 127)
			head += 8;
		if (b[1] & 0x80)
			head += 4; /* the client's mask */
		if (have < head)
			break;
		if (plen == 126)
			plen = (unsigned long long)b[2] << 8 | b[3];
		else if (plen == 127)
			for (int i = 0, j = 2; i < 8; i++, j++)
				plen = (i ? plen << 8 : 0) | b[j];
		int opcode = b[0] & 0x0f;
		if (opcode == 1 || opcode == 2)
			l->ws_messages++;
		if (opcode == 8)
			return 1;
		at += head;
		c->skip = plen;
	}
	memmove(c->line, c->line + at, c->len - at);
	c->len -= at;
	return 0;
}

/* Read what c sent; 1 once it is done with: its request answered (or it can never be: closed, too
 * long, silent for 2 s) or, upgraded, its socket closed. */
static int conn_read(kn_canary_listener *l, struct conn *c)
{
	ssize_t n = recv(c->fd, c->line + c->len, sizeof c->line - 1 - c->len, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return !c->ws && kn_time_mono_s() - c->since > 2.0;
	if (n <= 0)
		return 1;
	c->len += (size_t)n;
	if (c->ws)
		return ws_frames(l, c);
	c->line[c->len] = '\0';
	char *eoh = strstr(c->line, "\r\n\r\n");
	if (!eoh && c->len < sizeof c->line - 1)
		return 0;
	/* "METHOD SP PATH SP VERSION": the path after the first space */
	const char *sp = strchr(c->line, ' ');
	size_t np = strlen(l->prefix);
	if (!sp || strncmp(sp + 1, l->prefix, np) != 0)
		return 1;
	char up[64];
	if (eoh && strncmp(sp + 1 + np, "ws ", 3) == 0 && header(c->line, "Upgrade", up, sizeof up) &&
	    strcasecmp(up, "websocket") == 0) {
		/* the WebSocket probe's socket: opened, not an arrival; its messages are */
		if (!upgrade(c))
			return 1;
		size_t rest = c->len - (size_t)(eoh + 4 - c->line);
		memmove(c->line, eoh + 4, rest);
		c->len = rest;
		c->ws = 1;
		return ws_frames(l, c);
	}
	l->arrived++;
	return 1;
}

int kn_canary_listener_poll(kn_canary_listener *l)
{
	for (;;) {
		int fd = accept4(l->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			break;
		struct conn *slot = NULL;
		for (int i = 0; i < KN_CANARY_CONNS && !slot; i++)
			if (l->conns[i].fd < 0)
				slot = &l->conns[i];
		if (!slot) {
			struct conn extra = {.fd = fd};
			conn_close(&extra);
			continue;
		}
		slot->fd = fd;
		slot->len = 0;
		slot->since = kn_time_mono_s();
	}
	for (int i = 0; i < KN_CANARY_CONNS; i++)
		if (l->conns[i].fd >= 0 && conn_read(l, &l->conns[i]))
			conn_close(&l->conns[i]);
	return l->arrived + l->ws_messages;
}

int kn_canary_listener_ws_messages(const kn_canary_listener *l)
{
	return l ? l->ws_messages : 0;
}

void kn_canary_listener_free(kn_canary_listener *l)
{
	if (!l)
		return;
	for (int i = 0; i < KN_CANARY_CONNS; i++)
		conn_close(&l->conns[i]);
	if (l->fd >= 0)
		close(l->fd);
	free(l->prefix);
	free(l);
}
