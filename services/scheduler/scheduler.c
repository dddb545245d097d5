/* scheduler.c — kn_scheduler (scheduler.h): per schedule a parsed cron and its next fire time; a
 * tick fires what is due through kn_store_schedule_fire, whose (schedule, fire_time) claim makes
 * racing instances harmless. The thread only decides when to tick (the earliest next fire, at most
 * 30 s away so a changed wall clock is noticed); the store reconnects after database errors. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cron.h"
#include "keynode/clock.h"
#include "log.h"
#include "scheduler.h"
#include "store.h"

#define KN_SCHED_MAX_WAIT_S 30
#define KN_SCHED_RETRY_S 5

typedef struct entry {
	char *name, *taskset; /* taskset NULL: all tasks, or refs */
	char **refs;
	size_t n_refs;
	kn_cron cron;
	int init;
	int64_t next;
} entry;

struct kn_scheduler {
	entry *e;
	size_t n;
	char *conninfo;
	kn_store *st;
	int threaded;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int stop;
};

void kn_scheduler_free(kn_scheduler *s)
{
	if (!s)
		return;
	if (s->threaded) {
		pthread_mutex_lock(&s->mu);
		s->stop = 1;
		pthread_cond_broadcast(&s->cv);
		pthread_mutex_unlock(&s->mu);
		pthread_join(s->thread, NULL);
		pthread_mutex_destroy(&s->mu);
		pthread_cond_destroy(&s->cv);
	}
	for (size_t i = 0; i < s->n; i++) {
		free(s->e[i].name);
		free(s->e[i].taskset);
		for (size_t j = 0; j < s->e[i].n_refs; j++)
			free(s->e[i].refs[j]);
		free(s->e[i].refs);
	}
	free(s->e);
	free(s->conninfo);
	kn_store_free(s->st);
	free(s);
}

int kn_scheduler_open(kn_scheduler **out, const kn_config *cfg, const char *conninfo, kn_err *err)
{
	*out = NULL;
	if (!cfg)
		return kn_err_set(err, KN_EINVAL, "scheduler: no config");
	if (!conninfo || !*conninfo)
		return kn_err_set(err, KN_EINVAL, "scheduler: no database url (database.url)");
	kn_scheduler *s = calloc(1, sizeof *s);
	if (!s || !(s->conninfo = strdup(conninfo)) ||
	    (cfg->n_schedules && !(s->e = calloc(cfg->n_schedules, sizeof *s->e)))) {
		kn_scheduler_free(s);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < cfg->n_schedules; i++) {
		const kn_config_schedule *cs = &cfg->schedules[i];
		entry *e = &s->e[s->n++];
		kn_err cerr = { 0 };
		int rc;
		if (!cs->name || !*cs->name || strlen(cs->name) >= 64) {
			kn_scheduler_free(s);
			return kn_err_set(err, KN_EINVAL, "scheduler: schedules[%zu]: a name of 1-63 bytes is required", i);
		}
		if ((rc = kn_cron_parse(&e->cron, cs->cron ? cs->cron : "", &cerr)) != 0) {
			kn_scheduler_free(s);
			return kn_err_set(err, rc, "scheduler: schedule '%s': %s", cs->name, cerr.msg);
		}
		if (!(e->name = strdup(cs->name)))
			goto nomem;
		if (cs->n_refs) {
			if (!(e->refs = calloc(cs->n_refs, sizeof *e->refs)))
				goto nomem;
			for (size_t j = 0; j < cs->n_refs; j++, e->n_refs++)
				if (!(e->refs[j] = strdup(cs->refs[j])))
					goto nomem;
		} else if (cs->tasks && strcmp(cs->tasks, "all") != 0 && !(e->taskset = strdup(cs->tasks))) {
			goto nomem;
		}
	}
	*out = s;
	return 0;
nomem:
	kn_scheduler_free(s);
	return kn_err_set(err, KN_ENOMEM, "out of memory");
}

/* Open s->st on first use (the store reconnects it after a lost connection). */
static int connect_store(kn_scheduler *s, kn_err *err)
{
	return s->st ? 0 : kn_store_open(&s->st, s->conninfo, err);
}

/* Enqueue the jobs of e's fire at t. 1 fired, 0 taken by another instance, < 0 error. */
static int fire(kn_scheduler *s, entry *e, int64_t t, int catch_up, size_t *jobs, kn_err *err)
{
	int64_t *v = NULL;
	size_t nv = 0;
	int rc;
	*jobs = 0;
	if (e->n_refs) {
		if (!(v = calloc(e->n_refs, sizeof *v)))
			return kn_err_set(err, KN_ENOMEM, "out of memory");
		for (size_t i = 0; i < e->n_refs; i++) {
			kn_err rerr = { 0 };
			rc = kn_store_task_resolve(s->st, e->refs[i], &v[nv], &rerr);
			if (rc == 0) {
				nv++;
			} else if (rc == KN_ENOTFOUND) {
				kn_log("warn", "scheduler", "msg=\"schedule task not found, skipped\" schedule=%s task=\"%.128s\"",
				     e->name, e->refs[i]);
			} else {
				free(v);
				return kn_err_set(err, rc, "%s", rerr.msg);
			}
		}
	}
	kn_store_schedule_sel sel = { e->taskset, v, nv };
	if (e->n_refs && nv == 0) {
		/* nothing resolved: claim the fire with no jobs rather than enqueue every task */
		static const int64_t none = -1;
		sel.versions = &none;
		sel.n_versions = 1;
	}
	rc = kn_store_schedule_fire(s->st, e->name, t, catch_up, &sel, jobs, err);
	free(v);
	return rc;
}

int kn_scheduler_tick(kn_scheduler *s, int64_t now, size_t *fired, size_t *enqueued, kn_err *err)
{
	size_t nf = 0, nj = 0;
	int last_rc = 0;
	kn_err e_ = { 0 };
	if (fired)
		*fired = 0;
	if (enqueued)
		*enqueued = 0;
	for (size_t i = 0; i < s->n; i++) {
		entry *e = &s->e[i];
		int64_t t = 0, last = 0;
		int catch_up = 0, rc;
		if ((rc = connect_store(s, &e_)) != 0)
			goto failed;
		if (!e->init) {
			rc = kn_store_schedule_last(s->st, e->name, &last, &e_);
			if (rc != 0 && rc != KN_ENOTFOUND)
				goto failed;
			int have_last = rc == 0;
			if ((rc = kn_cron_next(&e->cron, now, &e->next, &e_)) != 0) {
				kn_log("warn", "scheduler", "msg=\"schedule never fires\" schedule=%s detail=\"%s\"", e->name, e_.msg);
				e->init = 1;
				e->next = INT64_MAX;
				continue;
			}
			if (!have_last || kn_cron_prev(&e->cron, now, &t, &e_) != 0 || t <= last) {
				e->init = 1;
				continue;
			}
			catch_up = 1;
		} else if (e->next <= now) {
			if ((rc = kn_cron_prev(&e->cron, now, &t, &e_)) != 0)
				goto failed;
			catch_up = t != e->next; /* asleep across fires: only the latest */
		} else {
			continue;
		}
		size_t jobs = 0;
		rc = fire(s, e, t, catch_up, &jobs, &e_);
		if (rc < 0)
			goto failed;
		char when[KN_TIME_MAX];
		kn_time_rfc3339(when, (time_t)t);
		if (rc == 1) {
			nf++, nj += jobs;
			kn_log("info", "scheduler", "msg=\"schedule fired\" schedule=%s fire=%s jobs=%zu catch_up=%d", e->name,
			     when, jobs, catch_up);
		} else {
			kn_log("debug", "scheduler", "msg=\"fire already enqueued by another instance\" schedule=%s fire=%s",
			     e->name, when);
		}
		e->init = 1;
		if ((rc = kn_cron_next(&e->cron, now, &e->next, &e_)) != 0)
			e->next = INT64_MAX;
		continue;
	failed:
		kn_log("error", "scheduler", "msg=\"schedule tick failed, retrying\" schedule=%s detail=\"%s\"", e->name, e_.msg);
		last_rc = kn_err_set(err, rc, "scheduler: schedule '%s': %s", e->name, e_.msg);
	}
	if (fired)
		*fired = nf;
	if (enqueued)
		*enqueued = nj;
	return last_rc;
}

static void *thread_main(void *arg)
{
	kn_scheduler *s = arg;
	pthread_mutex_lock(&s->mu);
	while (!s->stop) {
		pthread_mutex_unlock(&s->mu);
		int64_t now = (int64_t)time(NULL);
		int rc = kn_scheduler_tick(s, now, NULL, NULL, NULL);
		int64_t wake = now + KN_SCHED_MAX_WAIT_S;
		for (size_t i = 0; i < s->n; i++)
			if (s->e[i].init && s->e[i].next < wake)
				wake = s->e[i].next;
		if (rc != 0 && wake > now + KN_SCHED_RETRY_S)
			wake = now + KN_SCHED_RETRY_S;
		if (wake <= now)
			wake = now + 1;
		struct timespec dl = { (time_t)wake, 0 };
		pthread_mutex_lock(&s->mu);
		while (!s->stop)
			if (pthread_cond_timedwait(&s->cv, &s->mu, &dl) == ETIMEDOUT)
				break;
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

int kn_scheduler_start(kn_scheduler **out, const kn_config *cfg, const char *conninfo, kn_err *err)
{
	kn_scheduler *s;
	int rc = kn_scheduler_open(&s, cfg, conninfo, err);
	if (rc != 0)
		return rc;
	if (s->n == 0) {
		*out = s;
		return 0;
	}
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	if (pthread_create(&s->thread, NULL, thread_main, s) != 0) {
		pthread_mutex_destroy(&s->mu);
		pthread_cond_destroy(&s->cv);
		kn_scheduler_free(s);
		return kn_err_set(err, KN_ENOMEM, "scheduler: cannot start the thread");
	}
	s->threaded = 1;
	kn_log("info", "scheduler", "msg=\"scheduler started\" schedules=%zu", s->n);
	*out = s;
	return 0;
}
