/* sweep.c — the orphan sweep of `keynode serve` and the watch over its own owner lock (runs.h
 * kn_runs_sweeper_new; README "Crash recovery" and "Several serves").
 *
 * Recovery at start ends the runs a dead serve left live, but a serve that dies while the others
 * keep running would leave its runs live until some serve starts. So every serve also sweeps
 * periodically on a thread and a connection of its own: the same test (a dead owner's advisory
 * lock can be taken, a live one's cannot), the same ending (kn_runs_recover), then the dead
 * serves' rows of serve_instances go. Several serves sweeping at once is safe: a lock is taken by
 * one of them, and a run finish changes only a run that has not ended.
 *
 * A serve cut from the database (not dead) loses its lock too: PostgreSQL ends its session once
 * its TCP keepalive gives up. Two things keep that from ending its runs behind its back: an owner
 * is swept only when its lock was free at two sweeps in a row (a cut shorter than a period is
 * forgiven), and the same thread watches this serve's lock connection every second — after a
 * reconnect it takes the lock again, writes its serve row again, and ends here the runs the
 * database says ended (they were swept while it was away: their calls would otherwise still be
 * taken here). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "keynode/clock.h"
#include "log.h"
#include "runs.h"
#include "store_serve.h"

struct kn_runs_sweeper {
	kn_runs_sweeper_opts so;
	kn_runs_opts o;
	char *conninfo, *advertise;
	unsigned long lock_session; /* kn_store_session of lock_st when the lock was taken */
	json_t *dead_before;        /* owners whose lock was free at the last sweep */
	int stop;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t thread;
};

int kn_runs_sweep(kn_store *st, const kn_runs_opts *o, const char *owners, size_t *runs,
                  kn_err *err)
{
	kn_err fe = {0};
	char q[512];
	size_t n = 0, serves = 0;
	int rc = kn_runs_recover(st, o, owners, &n, err);
	if (rc)
		kn_log_msg("error", "runs", "orphan sweep failed", "detail=\"%s\"", kn_log_quote(q, sizeof q, err->msg));
	else if (n)
		kn_log_msg("info", "runs", "orphan sweep: ended runs left live by a dead process", "runs=%zu", n);
	if (kn_store_serve_forget_dead(st, o->owner, owners, &serves, &fe) != 0)
		kn_log_msg("warn", "runs", "orphan sweep: serve rows not cleared", "detail=\"%s\"",
		           kn_log_quote(q, sizeof q, fe.msg));
	else if (serves)
		kn_log_msg("info", "runs", "orphan sweep: dead serves forgotten", "serves=%zu", serves);
	if (runs)
		*runs = n;
	return rc;
}

/* The owners free now and at the last sweep are swept. */
static void sweep_once(kn_runs_sweeper *s, kn_store **st)
{
	kn_err err = {0};
	char *now = NULL;
	if (!*st && kn_store_open(st, s->conninfo, &err) != 0)
		return; /* the database is away: next period */
	if (kn_store_dead_owners(*st, s->o.owner, &now, &err) != 0)
		return;
	json_t *dead = json_loads(now, 0, NULL), *both = json_array(), *a, *b;
	free(now);
	size_t i, j;
	json_array_foreach(dead, i, a)
		json_array_foreach(s->dead_before, j, b)
			if (json_equal(a, b))
				json_array_append(both, a);
	if (json_array_size(both)) {
		char *owners = json_dumps(both, JSON_COMPACT);
		if (owners)
			kn_runs_sweep(*st, &s->o, owners, NULL, &err);
		free(owners);
	}
	json_decref(both);
	json_decref(s->dead_before);
	s->dead_before = json_is_array(dead) ? dead : json_array();
	if (!json_is_array(dead))
		json_decref(dead);
}

/* After the lock connection came back: the lock again, the serve row again, and the live runs
 * another serve ended meanwhile ended here too. */
static void lock_again(kn_runs_sweeper *s)
{
	kn_store *st = s->so.lock_st;
	kn_err err = {0};
	char q[512];
	if (kn_store_owner_hold(st, s->o.owner, &err) != 0 ||
	    kn_store_serve_register(st, s->o.owner, s->advertise, &err) != 0) {
		kn_log_msg("warn", "runs", "owner lock not taken again", "detail=\"%s\"", kn_log_quote(q, sizeof q, err.msg));
		return;
	}
	s->lock_session = kn_store_session(st);
	kn_log_msg("info", "runs", "owner lock taken again after a reconnect", "owner=%s", s->o.owner);
	char ids[KN_RUNS_MAX_ACTIVE][KN_RUN_ID_MAX];
	size_t n = kn_runs_live_ids(s->so.runs, ids, KN_RUNS_MAX_ACTIVE);
	for (size_t i = 0; i < n; i++) {
		kn_store_run_home home;
		if (kn_store_run_home_get(st, ids[i], &home, &err) != 0 || !home.ended)
			continue;
		char *result = NULL;
		kn_log_msg("warn", "runs", "run ended by another serve while this one was cut off", "run=%s", ids[i]);
		kn_runs_stop(s->so.runs, ids[i], &result, &err); /* its stored result stays (the first end wins) */
		free(result);
	}
}

/* Every second: is the lock's session the one that took it? */
static void watch_lock(kn_runs_sweeper *s)
{
	kn_store *st = s->so.lock_st;
	if (!st || !s->so.runs)
		return;
	int v = 0;
	kn_err err = {0};
	if (kn_store_schema_version(st, &v, &err) != 0)
		return; /* still away */
	if (kn_store_session(st) != s->lock_session)
		lock_again(s);
}

static void *sweep_main(void *arg)
{
	kn_runs_sweeper *s = arg;
	kn_store *st = NULL;
	double next = kn_time_mono_s() + s->so.period_s;
	pthread_mutex_lock(&s->mu);
	while (!s->stop) {
		struct timespec until;
		kn_time_deadline(&until, CLOCK_REALTIME, 1000);
		while (!s->stop && pthread_cond_timedwait(&s->cv, &s->mu, &until) == 0)
			;
		if (s->stop)
			break;
		pthread_mutex_unlock(&s->mu);
		watch_lock(s);
		if (kn_time_mono_s() >= next) {
			next = kn_time_mono_s() + s->so.period_s;
			sweep_once(s, &st);
		}
		pthread_mutex_lock(&s->mu);
	}
	pthread_mutex_unlock(&s->mu);
	kn_store_free(st);
	return NULL;
}

int kn_runs_sweeper_new(kn_runs_sweeper **out, const kn_runs_sweeper_opts *so, kn_err *err)
{
	*out = NULL;
	if (!so || !so->conninfo || !so->runs_opts || !so->runs_opts->owner || so->period_s < 1)
		return kn_err_set(err, KN_EINVAL, "the orphan sweep needs a database, an owner and a period");
	kn_runs_sweeper *s = calloc(1, sizeof *s);
	if (!s || !(s->conninfo = strdup(so->conninfo)) ||
	    !(s->advertise = strdup(so->advertise ? so->advertise : "")) || !(s->dead_before = json_array())) {
		if (s) {
			free(s->conninfo);
			free(s->advertise);
		}
		free(s);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	s->so = *so;
	s->o = *so->runs_opts;
	s->lock_session = so->lock_st ? kn_store_session(so->lock_st) : 0;
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	if (pthread_create(&s->thread, NULL, sweep_main, s) != 0) {
		pthread_cond_destroy(&s->cv);
		pthread_mutex_destroy(&s->mu);
		json_decref(s->dead_before);
		free(s->conninfo);
		free(s->advertise);
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
	json_decref(s->dead_before);
	free(s->conninfo);
	free(s->advertise);
	free(s);
}
