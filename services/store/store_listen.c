/* store_listen.c — a thread that LISTENs on a PostgreSQL channel over a connection of its own and
 * tells its owner about every change: a notification arrived (schemas/sql/080_notify.sql sends one
 * per committed statement on the tables behind the hot listings), the connection came up, or it was
 * lost. A cache that drops everything on each call is therefore never older than the last commit
 * the listener has seen, and one that missed notifications while the connection was down is dropped
 * at the reconnect. The same callback carries "is the database reachable", which `serve` answers
 * /healthz from without a query. With kn_store_listener_new_payload (store_serve.h) each
 * notification's payload is handed over too (the live feed of runs other serves run). The thread waits in poll(2) on the connection's socket and a pipe
 * that kn_store_listener_free writes to; while the database is unreachable it retries every 250 ms. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store_internal.h"
#include "store_serve.h"

#define RETRY_MS 250

struct kn_store_listener {
	char *conninfo;
	char channel[64];
	void (*on_change)(void *ud, int up);
	void (*on_payload)(void *ud, const char *payload); /* may be NULL */
	void *ud;
	int pipe[2];                /* [1] written once to stop the thread */
	pthread_t thread;
};

/* A server's message while idle ("terminating connection due to administrator command") comes
 * as a notice: the loss itself is told through on_change, libpq prints nothing. */
static void quiet(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
}

static PGconn *listen_connect(kn_store_listener *l)
{
	/* TCP keepalives: an idle connection to a host that vanished without a word (no RST) is
	 * noticed within ~5 s, so /healthz does not say "up" for long after the database is gone
	 * (ignored on Unix sockets, where the server's exit closes the socket at once); the
	 * conninfo's own settings, expanded later, win */
	static const char *const keys[] = {"connect_timeout", "keepalives", "keepalives_idle",
	                                   "keepalives_interval", "keepalives_count", "dbname", NULL};
	const char *const vals[] = {"5", "1", "2", "1", "3", l->conninfo, NULL};
	PGconn *c = PQconnectdbParams(keys, vals, 1);
	if (!c || PQstatus(c) != CONNECTION_OK) {
		PQfinish(c);
		return NULL;
	}
	PQsetNoticeProcessor(c, quiet, NULL);
	char sql[96];
	snprintf(sql, sizeof sql, "LISTEN %s", l->channel);
	PGresult *r = PQexec(c, sql);
	int ok = PQresultStatus(r) == PGRES_COMMAND_OK;
	PQclear(r);
	if (!ok || PQsetnonblocking(c, 1) != 0) {
		PQfinish(c);
		return NULL;
	}
	return c;
}

/* Wait for the socket (fd ≥ 0) or the stop pipe; 1 when told to stop. */
static int wait_for(kn_store_listener *l, int fd, int ms)
{
	struct pollfd p[2] = {{l->pipe[0], POLLIN, 0}, {fd, POLLIN, 0}};
	int n = poll(p, fd >= 0 ? 2 : 1, ms);
	return n > 0 && (p[0].revents & POLLIN);
}

static void *listen_main(void *arg)
{
	kn_store_listener *l = arg;
	PGconn *c = NULL;
	int up = -1; /* unknown: the first state is always told */
	for (;;) {
		if (!c) {
			c = listen_connect(l);
			if ((c || up != 0) && l->on_change)
				l->on_change(l->ud, c != NULL); /* (re)connected: whatever was missed is dropped */
			up = c != NULL;
			if (!c) {
				if (wait_for(l, -1, RETRY_MS))
					break;
				continue;
			}
		}
		if (wait_for(l, PQsocket(c), 1000))
			break;
		if (!PQconsumeInput(c) || PQstatus(c) != CONNECTION_OK) {
			PQfinish(c);
			c = NULL;
			up = 0;
			if (l->on_change)
				l->on_change(l->ud, 0);
			continue;
		}
		int any = 0;
		PGnotify *n;
		while ((n = PQnotifies(c)) != NULL) {
			any = 1;
			if (l->on_payload)
				l->on_payload(l->ud, n->extra ? n->extra : "");
			PQfreemem(n);
		}
		if (any && l->on_change)
			l->on_change(l->ud, 1);
	}
	PQfinish(c);
	return NULL;
}

int kn_store_listener_new(kn_store_listener **out, const char *conninfo, const char *channel,
                          void (*on_change)(void *ud, int up), void *ud, kn_err *err)
{
	*out = NULL;
	if (!on_change)
		return kn_err_set(err, KN_EINVAL, "bad listener options (no callback)");
	return kn_store_listener_new_payload(out, conninfo, channel, on_change, NULL, ud, err);
}

int kn_store_listener_new_payload(kn_store_listener **out, const char *conninfo, const char *channel,
                                  void (*on_change)(void *ud, int up),
                                  void (*on_payload)(void *ud, const char *payload), void *ud,
                                  kn_err *err)
{
	*out = NULL;
	if (!conninfo || !channel || (!on_change && !on_payload) || !*channel || strlen(channel) >= 64 ||
	    strspn(channel, "abcdefghijklmnopqrstuvwxyz_0123456789") != strlen(channel))
		return kn_err_set(err, KN_EINVAL, "bad listener options (channel: lowercase identifier)");
	kn_store_listener *l = calloc(1, sizeof *l);
	if (!l || !(l->conninfo = strdup(conninfo))) {
		free(l);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	snprintf(l->channel, sizeof l->channel, "%s", channel);
	l->on_change = on_change;
	l->on_payload = on_payload;
	l->ud = ud;
	if (pipe(l->pipe) != 0) {
		free(l->conninfo);
		free(l);
		return kn_err_set(err, KN_EIO, "pipe: %s", strerror(errno));
	}
	if (pthread_create(&l->thread, NULL, listen_main, l) != 0) {
		close(l->pipe[0]);
		close(l->pipe[1]);
		free(l->conninfo);
		free(l);
		return kn_err_set(err, KN_ENOMEM, "cannot start the listener thread");
	}
	*out = l;
	return 0;
}

void kn_store_listener_free(kn_store_listener *l)
{
	if (!l)
		return;
	ssize_t w;
	do
		w = write(l->pipe[1], "x", 1);
	while (w < 0 && errno == EINTR);
	pthread_join(l->thread, NULL);
	close(l->pipe[0]);
	close(l->pipe[1]);
	free(l->conninfo);
	free(l);
}
