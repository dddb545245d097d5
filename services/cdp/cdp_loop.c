/* cdp_loop.c — the event loop every CDP connection lives in: one lws context, served on one thread.
 *
 * lws 4.1 polls once per lws_service() call and ignores its timeout argument: the poll sleeps
 * until the next scheduled lws_sul (or ~23 days). So every deadline here is an lws_sul, and a
 * sul callback that changes what a waiter checks also calls lws_cancel_service(), or the poll
 * that follows it in the same lws_service() call would sleep on. Other threads reach the loop
 * only through kn_cdp_loop_post/kn_cdp_loop_stop: a queue under a mutex plus
 * lws_cancel_service(), drained in LWS_CALLBACK_EVENT_WAIT_CANCELLED. lws's own logs are routed
 * to stderr in the house format, errors and warnings only. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdp_internal.h"
#include "log.h"

/* lws hands each message over in chunks of this many bytes; CDP events are mostly < 2 KB, so
 * nearly all of them arrive whole and are decoded in place. */
#define RX_CHUNK (64 * 1024)

struct kn_cdp_timer {
	lws_sorted_usec_list_t sul; /* first: the sul callback gets its address */
	kn_cdp_loop *loop;
	kn_cdp_timer *prev, *next;
	void (*fn)(void *ud);
	void *ud;
	int firing;
};

int kn_cdp_loop_new(kn_cdp_loop **out, kn_err *err)
{
	*out = NULL;
	kn_cdp_loop *loop = calloc(1, sizeof *loop);
	if (!loop)
		return kn_err_set(err, KN_ENOMEM, "cdp loop: out of memory");
	atomic_init(&loop->stop, 0);
	if (pthread_mutex_init(&loop->mu, NULL) != 0) {
		free(loop);
		return kn_err_set(err, KN_ENOMEM, "cdp loop: cannot create a mutex");
	}
	loop->protocols[0].name = KN_CDP_PROTOCOL;
	loop->protocols[0].callback = kn_cdp_callback;
	loop->protocols[0].rx_buffer_size = RX_CHUNK;

	kn_log_lws_hook(); /* lws lines → level=… component=lws (services/log) */
	struct lws_context_creation_info info;
	memset(&info, 0, sizeof info);
	info.port = CONTEXT_PORT_NO_LISTEN;
	info.protocols = loop->protocols;
	info.gid = -1;
	info.uid = -1;
	info.user = loop;
	info.pt_serv_buf_size = RX_CHUNK;
	loop->ctx = lws_create_context(&info);
	if (!loop->ctx) {
		pthread_mutex_destroy(&loop->mu);
		free(loop);
		return kn_err_set(err, KN_EIO, "cdp loop: cannot create the libwebsockets context");
	}
	*out = loop;
	return 0;
}

void kn_cdp_loop_free(kn_cdp_loop *loop)
{
	if (!loop)
		return;
	loop->destroying = 1;
	/* connections first (their on_close may still start timers), then timers, then lws */
	kn_cdp_close_all(loop, "closed");
	while (loop->timers) {
		kn_cdp_timer *t = loop->timers;
		loop->timers = t->next;
		lws_sul_cancel(&t->sul);
		free(t);
	}
	lws_context_destroy(loop->ctx);
	for (kn_cdp_post *p = loop->post_head, *next; p; p = next) {
		next = p->next;
		free(p);
	}
	pthread_mutex_destroy(&loop->mu);
	free(loop);
}

/* One poll and whatever it brings. */
static int serve_once(kn_cdp_loop *loop)
{
	loop->depth++;
	int n = lws_service(loop->ctx, 0);
	loop->depth--;
	return n < 0 ? KN_EIO : 0;
}

int kn_cdp_loop_run(kn_cdp_loop *loop)
{
	if (loop->depth)
		return KN_EINVAL;
	while (!kn_cdp_loop_stopped(loop))
		if (serve_once(loop))
			return KN_EIO;
	return 0;
}

typedef struct wake {
	lws_sorted_usec_list_t sul;
	kn_cdp_loop *loop;
} wake;

static void on_wake(lws_sorted_usec_list_t *sul)
{
	wake *w = (wake *)sul;
	lws_cancel_service(w->loop->ctx);
}

static int never(void *ud)
{
	(void)ud;
	return 0;
}

int kn_cdp_loop_run_for(kn_cdp_loop *loop, int ms)
{
	if (loop->depth)
		return KN_EINVAL;
	if (ms <= 0) { /* one turn without waiting */
		loop->depth++;
		int n = kn_cdp_loop_stopped(loop) ? 0 : lws_service(loop->ctx, -1);
		loop->depth--;
		return n < 0 ? KN_EIO : 0;
	}
	return kn_cdp_loop_run_until(loop, ms, never, NULL); /* 0 or KN_EIO: never is never done */
}

int kn_cdp_loop_run_until(kn_cdp_loop *loop, int ms, int (*done)(void *ud), void *ud)
{
	if (loop->depth)
		return KN_EINVAL;
	if (done(ud))
		return 1;
	if (ms <= 0)
		return 0;
	lws_usec_t deadline = lws_now_usecs() + (lws_usec_t)ms * LWS_US_PER_MS;
	wake w;
	memset(&w, 0, sizeof w);
	w.loop = loop;
	lws_sul_schedule(loop->ctx, 0, &w.sul, on_wake, (lws_usec_t)ms * LWS_US_PER_MS);
	int rc = 0;
	while (!kn_cdp_loop_stopped(loop) && lws_now_usecs() < deadline) {
		if (serve_once(loop) != 0) {
			rc = KN_EIO;
			break;
		}
		if (done(ud)) {
			rc = 1;
			break;
		}
	}
	lws_sul_cancel(&w.sul);
	return rc;
}

void kn_cdp_loop_stop(kn_cdp_loop *loop)
{
	atomic_store(&loop->stop, 1);
	lws_cancel_service(loop->ctx);
}

int kn_cdp_loop_stopped(const kn_cdp_loop *loop)
{
	return atomic_load(&loop->stop) != 0;
}

static void timer_unlink(kn_cdp_timer *t)
{
	if (t->prev)
		t->prev->next = t->next;
	else
		t->loop->timers = t->next;
	if (t->next)
		t->next->prev = t->prev;
	t->prev = t->next = NULL;
}

static void on_timer(lws_sorted_usec_list_t *sul)
{
	kn_cdp_timer *t = (kn_cdp_timer *)sul;
	kn_cdp_loop *loop = t->loop;
	timer_unlink(t);
	t->firing = 1;
	t->fn(t->ud);
	free(t);
	lws_cancel_service(loop->ctx);
}

kn_cdp_timer *kn_cdp_timer_start(kn_cdp_loop *loop, int ms, void (*fn)(void *ud), void *ud)
{
	if (!loop || !fn || loop->destroying)
		return NULL;
	kn_cdp_timer *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	t->loop = loop;
	t->fn = fn;
	t->ud = ud;
	t->next = loop->timers;
	if (t->next)
		t->next->prev = t;
	loop->timers = t;
	lws_sul_schedule(loop->ctx, 0, &t->sul, on_timer,
	                 (lws_usec_t)(ms > 0 ? ms : 0) * LWS_US_PER_MS);
	return t;
}

void kn_cdp_timer_cancel(kn_cdp_timer *t)
{
	if (!t || t->firing) /* from inside its own fn: on_timer frees it */
		return;
	lws_sul_cancel(&t->sul);
	timer_unlink(t);
	free(t);
}

int kn_cdp_loop_post(kn_cdp_loop *loop, void (*fn)(void *ud), void *ud)
{
	if (!loop || !fn)
		return KN_EINVAL;
	kn_cdp_post *p = malloc(sizeof *p);
	if (!p)
		return KN_ENOMEM;
	p->next = NULL;
	p->fn = fn;
	p->ud = ud;
	pthread_mutex_lock(&loop->mu);
	if (loop->post_tail)
		loop->post_tail->next = p;
	else
		loop->post_head = p;
	loop->post_tail = p;
	pthread_mutex_unlock(&loop->mu);
	lws_cancel_service(loop->ctx);
	return 0;
}

void kn_cdp_loop_drain(kn_cdp_loop *loop)
{
	pthread_mutex_lock(&loop->mu);
	kn_cdp_post *p = loop->post_head;
	loop->post_head = loop->post_tail = NULL;
	pthread_mutex_unlock(&loop->mu);
	while (p) {
		kn_cdp_post *next = p->next;
		p->fn(p->ud);
		free(p);
		p = next;
	}
}
