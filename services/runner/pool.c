/* pool.c — the warm pool of `keynode run` (runner.h kn_browser_pool): browsers launched ahead of the
 * attempts that will use them, so that when an attempt starts its browser is already up.
 *
 * Each of the pool's `size` filler threads owns one place: it launches a fresh private Chromium
 * (its own new profile) on the start page of the next attempt to come, marks it ready, and waits until an attempt took it; then it
 * launches the next, as long as attempts are still expected (no browser is launched for nothing
 * at the end of a run; an unexpected take — a retry — asks for one more). An attempt takes a ready browser (waiting when none is; that wait is part of
 * the attempt's start; one already on the attempt's start page first, and that page counts as
 * loaded only when the browser came up less than KN_BROWSER_POOL_FRESH_S ago, else it is navigated
 * again), after checking it is still alive: a pooled browser that died is stopped
 * (profile removed) and its place launched again, never handed out. A taken browser belongs to its
 * attempt alone, which stops it (kn_local_browser_stop from any thread). Every browser is tied to
 * its filler thread (PR_SET_PDEATHSIG), so the pool must be freed only after every attempt that
 * took a browser has ended; freeing it stops the browsers still waiting. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "keynode/clock.h"
#include "runner.h"
#include "worker_browser.h"

enum place_state { PLACE_EMPTY, PLACE_LAUNCHING, PLACE_READY, PLACE_FAILED };

struct place {
	kn_browser_pool *pool;
	pthread_t thread;
	int started;
	enum place_state state;
	kn_local_browser b;
	const char *url;        /* the first page it was launched with (NULL: about:blank) */
	double ready_at;        /* kn_time_mono_s() when it was up */
	kn_err err;             /* PLACE_FAILED: why the launch failed */
};

struct kn_browser_pool {
	pthread_mutex_t mu;
	pthread_cond_t cv;      /* any place changed state, or closing */
	int closing;
	size_t budget;          /* launches still wanted: the attempts to come (one more per retry) */
	char **urls;            /* the start pages of the attempts to come, in their order */
	size_t n_urls, next_url;
	char *chromium;
	size_t n;
	struct place *places;
};

static void *filler(void *ud)
{
	struct place *pl = ud;
	kn_browser_pool *p = pl->pool;
	pthread_mutex_lock(&p->mu);
	while (!p->closing) {
		if (pl->state != PLACE_EMPTY || p->budget == 0) {
			pthread_cond_wait(&p->cv, &p->mu);
			continue;
		}
		p->budget--;
		pl->state = PLACE_LAUNCHING;
		const char *url = p->next_url < p->n_urls ? p->urls[p->next_url++] : NULL;
		pthread_mutex_unlock(&p->mu);
		kn_local_browser b;
		kn_err e = {0};
		int rc = kn_local_browser_start_at(&b, p->chromium, url, &e);
		pthread_mutex_lock(&p->mu);
		if (rc == 0) {
			pl->b = b;
			/* kn_local_browser_start_at opens only a web URL, anything else about:blank */
			pl->url = url && (strncmp(url, "http://", 7) == 0 || strncmp(url, "https://", 8) == 0) ? url : NULL;
			pl->ready_at = kn_time_mono_s();
			pl->state = PLACE_READY;
		} else {
			pl->err = e;
			pl->state = PLACE_FAILED;
		}
		pthread_cond_broadcast(&p->cv);
	}
	/* closing: the browser still waiting here is stopped (a taken one is its attempt's) */
	if (pl->state == PLACE_READY) {
		pl->state = PLACE_EMPTY;
		pthread_mutex_unlock(&p->mu);
		kn_local_browser_stop(&pl->b);
		return NULL;
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

int kn_browser_pool_new(kn_browser_pool **out, size_t size, const char *const *urls, size_t n_urls,
                        const char *chromium, kn_err *err)
{
	*out = NULL;
	if (size < 1 || size > KN_BROWSER_POOL_MAX)
		return kn_err_set(err, KN_EINVAL, "a warm pool of 1 to %d browsers", KN_BROWSER_POOL_MAX);
	kn_browser_pool *p = calloc(1, sizeof *p);
	if (!p || !(p->places = calloc(size, sizeof *p->places)) ||
	    !(p->chromium = strdup(chromium ? chromium : kn_runner_chromium_default()))) {
		if (p)
			free(p->places);
		free(p);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	p->n = size;
	p->budget = p->n_urls = n_urls;
	if (!(p->urls = calloc(n_urls + 1, sizeof *p->urls))) {
		kn_browser_pool_free(p);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n_urls; i++)
		if (urls[i] && !(p->urls[i] = strdup(urls[i]))) {
			kn_browser_pool_free(p);
			return kn_err_set(err, KN_ENOMEM, "out of memory");
		}
	for (size_t i = 0; i < size; i++) {
		p->places[i].pool = p;
		if (pthread_create(&p->places[i].thread, NULL, filler, &p->places[i]) != 0) {
			kn_browser_pool_free(p);
			return kn_err_set(err, KN_EIO, "cannot start the warm pool's threads");
		}
		p->places[i].started = 1;
	}
	*out = p;
	return 0;
}

int kn_browser_pool_take(kn_browser_pool *p, const char *url, kn_local_browser *out, int *preloaded,
                         const atomic_int *stop, kn_err *err)
{
	memset(out, 0, sizeof *out);
	*preloaded = 0;
	pthread_mutex_lock(&p->mu);
	for (;;) {
		struct place *ready = NULL, *failed = NULL;
		int launching = 0;
		for (size_t i = 0; i < p->n; i++) {
			struct place *pl = &p->places[i];
			if (pl->state == PLACE_READY) {
				int same = url && pl->url && strcmp(url, pl->url) == 0;
				if (!ready || (same && !(ready->url && strcmp(url, ready->url) == 0)))
					ready = pl; /* one already on this attempt's start page first */
			}
			else if (pl->state == PLACE_FAILED && !failed)
				failed = pl;
			else if (pl->state == PLACE_LAUNCHING)
				launching = 1;
		}
		if (ready) {
			kn_local_browser b = ready->b;
			/* its first page is this attempt's start page, loaded lately enough to be the live
			 * site's (older: navigated again) */
			int pre = url && ready->url && strcmp(url, ready->url) == 0 &&
			          kn_time_mono_s() - ready->ready_at < KN_BROWSER_POOL_FRESH_S;
			ready->state = PLACE_EMPTY; /* its filler launches the next */
			pthread_cond_broadcast(&p->cv);
			pthread_mutex_unlock(&p->mu);
			if (kn_local_browser_alive(&b)) {
				*out = b;
				*preloaded = pre;
				return 0;
			}
			kn_local_browser_stop(&b); /* died while it waited: never handed out */
			pthread_mutex_lock(&p->mu);
			continue;
		}
		if (failed) {
			int rc = kn_err_set(err, failed->err.code ? failed->err.code : KN_EIO, "%s", failed->err.msg);
			failed->state = PLACE_EMPTY; /* tried again for the next attempt */
			pthread_cond_broadcast(&p->cv);
			pthread_mutex_unlock(&p->mu);
			return rc;
		}
		if (!launching && p->budget == 0) { /* more takes than expected (a retry): one more */
			p->budget = 1;
			pthread_cond_broadcast(&p->cv);
		}
		if (p->closing || (stop && atomic_load(stop))) {
			pthread_mutex_unlock(&p->mu);
			return kn_err_set(err, KN_EINVAL, "stopped while waiting for a browser");
		}
		struct timespec until;
		kn_time_deadline(&until, CLOCK_REALTIME, 100); /* look at stop ten times a second */
		pthread_cond_timedwait(&p->cv, &p->mu, &until);
	}
}

void kn_browser_pool_free(kn_browser_pool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->closing = 1;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	for (size_t i = 0; i < p->n; i++)
		if (p->places[i].started)
			pthread_join(p->places[i].thread, NULL);
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
	for (size_t i = 0; p->urls && i < p->n_urls; i++)
		free(p->urls[i]);
	free(p->urls);
	free(p->places);
	free(p->chromium);
	free(p);
}
