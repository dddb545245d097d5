/* stream.c — subscriber registry and per-subscriber bounded queues for /api/stream (stream.h).
 *
 * One mutex guards the list and every queue; publish copies the message into each matching
 * queue (messages are small: a run event is under 2 KB) so subscribers free what they pop
 * independently. Overflow marks the subscriber dropped and empties its queue at once, so a dead
 * client holds no memory until the server gets round to closing it. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream.h"

struct qmsg {
	struct qmsg *next;
	size_t len;
	char data[];
};

struct kn_stream_sub {
	kn_stream_sub *next;
	char *run;
	struct qmsg *head, *tail;
	size_t n, bytes;
	int dropped, reported, authed;
	char client[64]; /* peer address, "" when unknown */
	void *conn;
};

struct kn_stream {
	pthread_mutex_t mu;
	kn_stream_sub *subs;
	size_t n_subs, n_anon, max_queue;
	void (*wake)(void *ud);
	void *ud;
};

int kn_stream_new(kn_stream **out, size_t max_queue, void (*wake)(void *ud), void *ud)
{
	kn_stream *s = calloc(1, sizeof *s);
	if (!s)
		return KN_ENOMEM;
	pthread_mutex_init(&s->mu, NULL);
	s->max_queue = max_queue ? max_queue : KN_STREAM_MAX_QUEUE;
	s->wake = wake;
	s->ud = ud;
	*out = s;
	return 0;
}

static void sub_empty(kn_stream_sub *sub)
{
	while (sub->head) {
		struct qmsg *m = sub->head;
		sub->head = m->next;
		free(m);
	}
	sub->tail = NULL;
	sub->n = sub->bytes = 0;
}

static void sub_free(kn_stream_sub *sub)
{
	sub_empty(sub);
	free(sub->run);
	free(sub);
}

void kn_stream_free(kn_stream *s)
{
	if (!s)
		return;
	while (s->subs) {
		kn_stream_sub *n = s->subs->next;
		sub_free(s->subs);
		s->subs = n;
	}
	pthread_mutex_destroy(&s->mu);
	free(s);
}

int kn_stream_subscribe(kn_stream *s, const char *run, void *conn, kn_stream_sub **out,
                        kn_err *err)
{
	return kn_stream_subscribe_from(s, run, conn, NULL, 1, out, err);
}

/* Under mu: why sub may not join, or NULL. */
static const char *refusal(const kn_stream *s, const kn_stream_sub *sub, char *why, size_t cap)
{
	size_t same = 0;
	for (const kn_stream_sub *o = s->subs; o; o = o->next)
		if (sub->client[0] && o->authed == sub->authed && strcmp(o->client, sub->client) == 0)
			same++;
	size_t per_client = sub->authed ? KN_STREAM_MAX_PER_CLIENT : KN_STREAM_MAX_ANON_PER_CLIENT;
	if (s->n_subs >= KN_STREAM_MAX_SUBSCRIBERS)
		snprintf(why, cap, "more than %d subscribers", KN_STREAM_MAX_SUBSCRIBERS);
	else if (!sub->authed && s->n_anon >= KN_STREAM_MAX_ANON)
		snprintf(why, cap, "more than %d subscribers without a token", KN_STREAM_MAX_ANON);
	else if (same >= per_client)
		snprintf(why, cap, "more than %zu %s subscribers from %s", per_client,
		         sub->authed ? "token" : "tokenless", sub->client);
	else
		return NULL;
	return why;
}

int kn_stream_subscribe_from(kn_stream *s, const char *run, void *conn, const char *client,
                             int authed, kn_stream_sub **out, kn_err *err)
{
	kn_stream_sub *sub = calloc(1, sizeof *sub);
	if (!sub || (run && !(sub->run = strdup(run)))) {
		free(sub);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	sub->conn = conn;
	sub->authed = authed != 0;
	snprintf(sub->client, sizeof sub->client, "%s", client ? client : "");
	char why[160];
	pthread_mutex_lock(&s->mu);
	if (refusal(s, sub, why, sizeof why)) {
		pthread_mutex_unlock(&s->mu);
		sub_free(sub);
		return kn_err_set(err, KN_ELIMIT, "%s", why);
	}
	sub->next = s->subs;
	s->subs = sub;
	s->n_subs++;
	s->n_anon += !sub->authed;
	pthread_mutex_unlock(&s->mu);
	*out = sub;
	return 0;
}

void kn_stream_unsubscribe(kn_stream *s, kn_stream_sub *sub)
{
	if (!s || !sub)
		return;
	pthread_mutex_lock(&s->mu);
	for (kn_stream_sub **p = &s->subs; *p; p = &(*p)->next)
		if (*p == sub) {
			*p = sub->next;
			s->n_subs--;
			s->n_anon -= !sub->authed;
			break;
		}
	pthread_mutex_unlock(&s->mu);
	sub_free(sub);
}

int kn_stream_publish(kn_stream *s, const char *run, const char *msg)
{
	if (!s || !msg)
		return 0;
	size_t len = strlen(msg);
	int n = 0;
	pthread_mutex_lock(&s->mu);
	for (kn_stream_sub *sub = s->subs; sub; sub = sub->next) {
		if (sub->dropped)
			continue;
		if (sub->run && (!run || strcmp(sub->run, run) != 0))
			continue;
		if (sub->n >= s->max_queue || sub->bytes + len > KN_STREAM_MAX_QUEUE_BYTES) {
			sub->dropped = 1;
			sub_empty(sub);
			n++; /* the server must still be woken to close it */
			continue;
		}
		struct qmsg *m = malloc(sizeof *m + len + 1);
		if (!m) {
			sub->dropped = 1;
			sub_empty(sub);
			continue;
		}
		m->next = NULL;
		m->len = len;
		memcpy(m->data, msg, len + 1);
		if (sub->tail)
			sub->tail->next = m;
		else
			sub->head = m;
		sub->tail = m;
		sub->n++;
		sub->bytes += len;
		n++;
	}
	pthread_mutex_unlock(&s->mu);
	if (n && s->wake)
		s->wake(s->ud);
	return n;
}

int kn_stream_pop(kn_stream *s, kn_stream_sub *sub, char **out, size_t *len, int *dropped)
{
	*out = NULL;
	*len = 0;
	pthread_mutex_lock(&s->mu);
	*dropped = sub->dropped;
	struct qmsg *m = sub->dropped ? NULL : sub->head;
	if (m) {
		sub->head = m->next;
		if (!sub->head)
			sub->tail = NULL;
		sub->n--;
		sub->bytes -= m->len;
	}
	pthread_mutex_unlock(&s->mu);
	if (!m)
		return 0;
	/* hand over the message's bytes: move them to the front of the block */
	size_t n = m->len;
	memmove(m, m->data, n + 1);
	*out = (char *)m;
	*len = n;
	return 1;
}

size_t kn_stream_subscribers(kn_stream *s)
{
	pthread_mutex_lock(&s->mu);
	size_t n = s->n_subs;
	pthread_mutex_unlock(&s->mu);
	return n;
}

size_t kn_stream_take_dropped(kn_stream *s, void **conns, size_t cap)
{
	size_t n = 0;
	pthread_mutex_lock(&s->mu);
	for (kn_stream_sub *sub = s->subs; sub && n < cap; sub = sub->next)
		if (sub->dropped && !sub->reported) {
			sub->reported = 1;
			conns[n++] = sub->conn;
		}
	pthread_mutex_unlock(&s->mu);
	return n;
}
