/* serve_prune.c — serve applies keynode.yaml's `retention:` itself: a thread with its own database
 * connection prunes (services/store/store_prune.h) 5 s after start and then every hour, one short
 * batch at a time, and logs what it deleted; stopping serve stops it between two batches. Nothing
 * runs when no retention is configured. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "keynode/clock.h"
#include "cli.h"
#include "log.h"
#include "store_prune.h"

#define FIRST_S 5
#define EVERY_S 3600

struct kn_serve_prune {
	char *conninfo;
	kn_store_retention r;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	volatile sig_atomic_t stop;
};

/* Wait s seconds or until stopped: 1 when stopped. */
static int nap(kn_serve_prune *p, int s)
{
	struct timespec until;
	kn_time_deadline(&until, CLOCK_MONOTONIC, s * 1000L);
	pthread_mutex_lock(&p->mu);
	while (!p->stop && pthread_cond_timedwait(&p->cv, &p->mu, &until) != ETIMEDOUT)
		;
	int stop = p->stop;
	pthread_mutex_unlock(&p->mu);
	return stop;
}

static void *prune_main(void *arg)
{
	kn_serve_prune *p = arg;
	kn_store *st = NULL;
	for (int wait = FIRST_S; !nap(p, wait); wait = EVERY_S) {
		kn_err err = {0};
		kn_store_prune_totals t;
		char q[512];
		if ((!st && kn_store_open(&st, p->conninfo, &err) != 0) ||
		    kn_store_prune(st, &p->r, 0, 0, NULL, NULL, &p->stop, &t, &err) != 0) {
			kn_log_msg("warn", "prune", "retention prune failed", "detail=\"%s\"",
			           kn_log_quote(q, sizeof q, err.msg));
			continue;
		}
		kn_log_msg("info", "prune", "retention applied",
		           "agent_runs=%lld agent_events=%lld replay_runs=%lld replay_events=%lld screenshots=%lld",
		           (long long)t.items[KN_PRUNE_AGENT_EVENTS], (long long)t.rows[KN_PRUNE_AGENT_EVENTS],
		           (long long)t.items[KN_PRUNE_REPLAY_EVENTS], (long long)t.rows[KN_PRUNE_REPLAY_EVENTS],
		           (long long)t.items[KN_PRUNE_SCREENSHOTS]);
	}
	kn_store_free(st);
	return NULL;
}

int kn_serve_prune_start(kn_serve_prune **out, const char *conninfo, const kn_config *cfg, kn_err *err)
{
	*out = NULL;
	kn_store_retention r = {cfg->retention.agent_events_days, cfg->retention.replay_events_days,
	                        cfg->retention.screenshots_days};
	if (!kn_store_retention_any(&r))
		return 0;
	kn_serve_prune *p = calloc(1, sizeof *p);
	if (!p || !(p->conninfo = strdup(conninfo))) {
		free(p);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	p->r = r;
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->cv, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&p->mu, NULL);
	if (pthread_create(&p->thread, NULL, prune_main, p) != 0) {
		pthread_cond_destroy(&p->cv);
		pthread_mutex_destroy(&p->mu);
		free(p->conninfo);
		free(p);
		return kn_err_set(err, KN_ENOMEM, "cannot start the prune thread");
	}
	*out = p;
	return 0;
}

void kn_serve_prune_stop(kn_serve_prune *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->stop = 1;
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->thread, NULL);
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
	free(p->conninfo);
	free(p);
}
