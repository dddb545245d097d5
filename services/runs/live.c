/* live.c — serve's side of the live view (live.h). The server thread counts viewers per run and
 * sends down messages through a kn_store_notifier; the listener thread of KN_LIVE_UP publishes
 * states and reassembled frames. One mutex guards the per-run list (a handful of runs at most). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "keynode/clock.h"
#include "live.h"
#include "log.h"
#include "store_serve.h"

#define WATCH_EVERY_MS 2000

struct watched {
	char run[KN_LIVE_RUN_MAX + 1];
	int viewers;
	double sent_at;           /* last "watch" */
	unsigned long seq;        /* the frame being put together */
	int pieces, got, w, h;
	size_t *len;              /* each piece's length; 0: not here */
	char *data;               /* pieces × KN_LIVE_PIECE_MAX */
	char *status;             /* the last state the holder sent (JSON text): may it be taken over */
	struct watched *next;
};

struct kn_runs_live {
	kn_stream *stream, *live;
	kn_store_notifier *down;
	kn_store_listener *up;
	pthread_mutex_t mu;
	struct watched *runs;
};

static struct watched *find(kn_runs_live *l, const char *run)
{
	for (struct watched *w = l->runs; w; w = w->next)
		if (strcmp(w->run, run) == 0)
			return w;
	return NULL;
}

static void send_down(kn_runs_live *l, kn_live_msg_kind kind, const char *run, const kn_live_input *in)
{
	char buf[KN_LIVE_PAYLOAD_MAX + 1];
	kn_err err = {0};
	if (kn_live_down_format(buf, sizeof buf, kind, run, in) == 0)
		kn_store_notifier_send(l->down, buf, &err);
}

/* The frame w is complete: one message for the viewers. */
static void publish_frame(kn_runs_live *l, struct watched *w)
{
	size_t n = 0;
	for (int i = 0; i < w->pieces; i++)
		n += w->len[i];
	char *m = malloc(n + strlen(w->run) + 160);
	if (!m)
		return;
	int k = sprintf(m, "{\"type\":\"frame\",\"run\":\"%s\",\"seq\":%lu,\"w\":%d,\"h\":%d,\"jpeg\":\"", w->run, w->seq,
	                w->w, w->h);
	for (int i = 0; i < w->pieces; i++) {
		memcpy(m + k, w->data + (size_t)i * KN_LIVE_PIECE_MAX, w->len[i]);
		k += (int)w->len[i];
	}
	strcpy(m + k, "\"}");
	kn_stream_publish(l->live, w->run, m);
	free(m);
}

static void on_piece(kn_runs_live *l, const kn_live_msg *m)
{
	pthread_mutex_lock(&l->mu);
	struct watched *w = find(l, m->run);
	if (!w || w->viewers <= 0) { /* nobody here watches it */
		pthread_mutex_unlock(&l->mu);
		return;
	}
	if (w->seq != m->seq || w->pieces != m->pieces || !w->data) {
		free(w->data), free(w->len);
		w->data = malloc((size_t)m->pieces * KN_LIVE_PIECE_MAX);
		w->len = calloc((size_t)m->pieces, sizeof *w->len);
		if (!w->data || !w->len) {
			free(w->data), free(w->len);
			w->data = NULL, w->len = NULL;
			pthread_mutex_unlock(&l->mu);
			return;
		}
		w->seq = m->seq, w->pieces = m->pieces, w->got = 0, w->w = m->w, w->h = m->h;
	}
	if (!w->len[m->piece]) {
		memcpy(w->data + (size_t)m->piece * KN_LIVE_PIECE_MAX, m->data, m->data_len);
		w->len[m->piece] = m->data_len;
		w->got++;
	}
	if (w->got == w->pieces) {
		publish_frame(l, w);
		free(w->data), free(w->len);
		w->data = NULL, w->len = NULL;
	}
	pthread_mutex_unlock(&l->mu);
}

static void on_payload(void *ud, const char *payload)
{
	kn_runs_live *l = ud;
	kn_live_msg m;
	kn_err err = {0};
	if (kn_live_msg_parse(&m, payload, strlen(payload), &err) != 0)
		return;
	if (m.kind == KN_LIVE_MSG_STATUS) { /* the page's state: on the run's feed and to its viewers */
		pthread_mutex_lock(&l->mu);
		struct watched *w = find(l, m.run);
		char *keep = w ? strdup(m.json) : NULL;
		if (keep) {
			free(w->status);
			w->status = keep;
		}
		pthread_mutex_unlock(&l->mu);
		kn_stream_publish(l->stream, m.run, m.json);
		kn_stream_publish(l->live, m.run, m.json);
	} else if (m.kind == KN_LIVE_MSG_FRAME) {
		on_piece(l, &m);
	}
}

int kn_runs_live_new(kn_runs_live **out, const char *conninfo, kn_stream *stream, kn_stream *live, kn_err *err)
{
	*out = NULL;
	kn_runs_live *l = calloc(1, sizeof *l);
	if (!l)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	l->stream = stream, l->live = live;
	pthread_mutex_init(&l->mu, NULL);
	int rc = kn_store_notifier_new(&l->down, conninfo, KN_LIVE_DOWN, 0, err);
	if (!rc)
		rc = kn_store_listener_new_payload(&l->up, conninfo, KN_LIVE_UP, NULL, on_payload, l, err);
	if (rc) {
		kn_runs_live_free(l);
		return rc;
	}
	*out = l;
	return 0;
}

void kn_runs_live_in(kn_runs_live *l, const char *run, int what, const kn_live_input *in, const char *client)
{
	(void)client;
	if (!l || !kn_live_run_ok(run))
		return;
	if (what == 2) {
		kn_live_msg_kind k = in->kind == KN_LIVE_TAKE ? KN_LIVE_MSG_TAKE
		                     : in->kind == KN_LIVE_RELEASE ? KN_LIVE_MSG_RELEASE : KN_LIVE_MSG_INPUT;
		send_down(l, k, run, in);
		return;
	}
	pthread_mutex_lock(&l->mu);
	struct watched *w = find(l, run);
	if (!w && what == 1 && (w = calloc(1, sizeof *w))) {
		snprintf(w->run, sizeof w->run, "%s", run);
		w->next = l->runs;
		l->runs = w;
	}
	if (w)
		w->viewers += what == 1 ? 1 : -1;
	int first = w && what == 1 && w->viewers == 1;
	if (w && w->viewers <= 0) { /* the last viewer went: the holder's screencast lapses */
		for (struct watched **p = &l->runs; *p; p = &(*p)->next)
			if (*p == w) {
				*p = w->next;
				break;
			}
		free(w->data), free(w->len), free(w->status), free(w);
	} else if (first) {
		w->sent_at = kn_time_mono_ms();
	}
	pthread_mutex_unlock(&l->mu);
	if (first)
		send_down(l, KN_LIVE_MSG_WATCH, run, NULL);
}

int kn_runs_live_can_take(kn_runs_live *l, const char *run, char *why, size_t cap)
{
	const char *w_why = "the live view is off";
	int rc = 409;
	if (l) {
		pthread_mutex_lock(&l->mu);
		struct watched *w = find(l, run);
		rc = kn_live_take_refusal(w ? w->status : NULL, &w_why);
		pthread_mutex_unlock(&l->mu);
	}
	snprintf(why, cap, "%s", rc ? w_why : "");
	return rc;
}

void kn_runs_live_tick(kn_runs_live *l)
{
	if (!l)
		return;
	double t = kn_time_mono_ms();
	char runs[16][KN_LIVE_RUN_MAX + 1];
	int n = 0;
	pthread_mutex_lock(&l->mu);
	for (struct watched *w = l->runs; w && n < 16; w = w->next)
		if (t - w->sent_at >= WATCH_EVERY_MS) {
			w->sent_at = t;
			snprintf(runs[n++], sizeof runs[0], "%s", w->run);
		}
	pthread_mutex_unlock(&l->mu);
	for (int i = 0; i < n; i++)
		send_down(l, KN_LIVE_MSG_WATCH, runs[i], NULL);
}

void kn_runs_live_free(kn_runs_live *l)
{
	if (!l)
		return;
	kn_store_listener_free(l->up);
	kn_store_notifier_free(l->down);
	while (l->runs) {
		struct watched *n = l->runs->next;
		free(l->runs->data), free(l->runs->len), free(l->runs->status), free(l->runs);
		l->runs = n;
	}
	pthread_mutex_destroy(&l->mu);
	free(l);
}
