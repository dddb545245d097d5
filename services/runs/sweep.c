/* sweep.c — the orphan sweep of `keynode serve` (runs.h kn_runs_sweeper_new; README "Crash
 * recovery").
 *
 * Recovery at start ends the runs a dead serve left live, but a serve that dies while the others
 * keep running would leave its runs live until some serve starts. So every serve also sweeps
 * periodically on a thread and a connection of its own: the same test (a dead owner's advisory
 * lock can be taken, a live one's cannot), the same ending (kn_runs_recover), then the dead
 * serves' rows of serve_instances go. Several serves sweeping at once is safe: a lock is taken by
 * one of them, and a run finish changes only a run that has not ended. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "keynode/event.h"
#include "log.h"
#include "runs.h"
#include "store_serve.h"

struct kn_runs_sweeper {
	char *conninfo;
	kn_runs_opts o;
	int period_s;
	int stop;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t thread;
};

int kn_runs_sweep(kn_store *st, const kn_runs_opts *o, size_t *runs, kn_err *err)
{
	kn_err fe = {0};
	char q[512];
	size_t n = 0, serves = 0;
	int rc = kn_runs_recover(st, o, &n, err);
	if (rc)
		kn_log_msg("error", "runs", "orphan sweep failed", "detail=\"%s\"", kn_log_quote(q, sizeof q, err->msg));
	else if (n)
		kn_log_msg("info", "runs", "orphan sweep: ended runs left live by a dead process", "runs=%zu", n);
	if (kn_store_serve_forget_dead(st, o->owner, &serves, &fe) != 0)
		kn_log_msg("warn", "runs", "orphan sweep: serve rows not cleared", "detail=\"%s\"",
		           kn_log_quote(q, sizeof q, fe.msg));
	else if (serves)
		kn_log_msg("info", "runs", "orphan sweep: dead serves forgotten", "serves=%zu", serves);
	if (runs)
		*runs = n;
	return rc;
}

static void sweep_once(kn_runs_sweeper *s, kn_store **st)
{
	kn_err err = {0};
	if (!*st && kn_store_open(st, s->conninfo, &err) != 0)
		return; /* the database is away: next period */
	kn_runs_sweep(*st, &s->o, NULL, &err);
}

static void *sweep_main(void *arg)
{
	kn_runs_sweeper *s = arg;
	kn_store *st = NULL;
	pthread_mutex_lock(&s->mu);
	while (!s->stop) {
		struct timespec until;
		kn_time_deadline(&until, CLOCK_REALTIME, s->period_s * 1000);
		while (!s->stop && pthread_cond_timedwait(&s->cv, &s->mu, &until) == 0)
			;
		if (s->stop)
			break;
		pthread_mutex_unlock(&s->mu);
		sweep_once(s, &st);
		pthread_mutex_lock(&s->mu);
	}
	pthread_mutex_unlock(&s->mu);
	kn_store_free(st);
	return NULL;
}

int kn_runs_sweeper_new(kn_runs_sweeper **out, const char *conninfo, const kn_runs_opts *o,
                        int period_s, kn_err *err)
{
	*out = NULL;
	if (!conninfo || !o || !o->owner || period_s < 1)
		return kn_err_set(err, KN_EINVAL, "the orphan sweep needs a database, an owner and a period");
	kn_runs_sweeper *s = calloc(1, sizeof *s);
	if (!s || !(s->conninfo = strdup(conninfo))) {
		free(s);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	s->o = *o;
	s->period_s = period_s;
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	if (pthread_create(&s->thread, NULL, sweep_main, s) != 0) {
		pthread_cond_destroy(&s->cv);
		pthread_mutex_destroy(&s->mu);
		free(s->conninfo);
		free(s);
		return kn_err_set(err, KN_ENOMEM, "cannot start the orphan sweep thread");
	}
	*out = s;
	return 0;
}

void kn_runs_sweeper_free(kn_runs_sweeper *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->mu);
	s->stop = 1;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	pthread_join(s->thread, NULL);
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->mu);
	free(s->conninfo);
	free(s);
}
