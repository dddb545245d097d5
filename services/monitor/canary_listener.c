/* canary_listener.c — the canary's endpoint (canary_listener.h): a non-blocking listening socket on
 * 127.0.0.1, polled by the monitor's loop. Each accepted connection is read until its request line
 * is complete (at most a few polls; a connection that sends nothing in 2 s is dropped), counted
 * when its path starts with the prefix, answered 204 and closed. At most KN_CANARY_CONNS
 * connections are kept at once: more are answered and closed unread (they are not ours: only the
 * canary knows the random prefix). */
#define _GNU_SOURCE /* accept4 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "keynode/clock.h"
#include "canary_listener.h"

#define KN_CANARY_CONNS 8
#define KN_CANARY_LINE 512

struct conn {
	int fd;
	double since;
	size_t len;
	char line[KN_CANARY_LINE];
};

struct kn_canary_listener {
	int fd, port, arrived;
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
	ssize_t w = send(c->fd, answer, sizeof answer - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
	(void)w; /* a peer gone before the answer: nothing to do */
	close(c->fd);
	c->fd = -1;
	c->len = 0;
}

/* Read what c sent; 1 once its request line is complete (or can never be: closed, too long). */
static int conn_read(kn_canary_listener *l, struct conn *c)
{
	ssize_t n = recv(c->fd, c->line + c->len, sizeof c->line - 1 - c->len, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return kn_time_mono_s() - c->since > 2.0;
	if (n <= 0)
		return 1;
	c->len += (size_t)n;
	c->line[c->len] = '\0';
	char *eol = strstr(c->line, "\r\n");
	if (!eol && c->len < sizeof c->line - 1)
		return 0;
	/* "METHOD SP PATH SP VERSION": the path after the first space */
	const char *sp = strchr(c->line, ' ');
	if (sp && strncmp(sp + 1, l->prefix, strlen(l->prefix)) == 0)
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
	return l->arrived;
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
