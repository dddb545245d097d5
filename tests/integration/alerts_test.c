/* alerts_test.c — drives services/alerts and services/scheduler against a real PostgreSQL for
 * tests/integration/alerts.sh. Prints "ok …" / "FAIL …" lines and exits 1 on any failure.
 *
 *   alerts_test alerts CONNINFO HOOK_URL SLACK_URL DEAD_URL
 *     raises a run-below-threshold alert, health alerts and their duplicates through kn_alerts with
 *     a webhook, a Slack webhook and a dead channel; acknowledges one and raises it again. The
 *     shell then checks the receiver's log, the database and the NOTIFYs.
 *   alerts_test scheduler CONNINFO TASKFILE
 *     loads TASKFILE as task sets "shop" and "other", then drives two kn_schedulers with a fake
 *     clock: first ticks, a fire seen by both, both racing on 20 fires from two threads, a restart
 *     hours later (one catch-up), selection by "all", a set name and a list of refs.
 *   alerts_test config FILE
 *     loads FILE with the keynode.yaml loader (deploy.sh checks the shipped configs). */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alerts.h"
#include "keynode/task.h"
#include "scheduler.h"
#include "store.h"

static int fails;

#define CHECK(cond, ...)                                                                         \
	do {                                                                                         \
		if (cond) {                                                                              \
			printf("ok   ");                                                                     \
		} else {                                                                                 \
			printf("FAIL ");                                                                     \
			fails++;                                                                             \
		}                                                                                        \
		printf(__VA_ARGS__);                                                                     \
		printf("\n");                                                                            \
		fflush(stdout);                                                                          \
	} while (0)

/* ---- alerts ------------------------------------------------------------------------------------ */

static pthread_mutex_t seen_mu = PTHREAD_MUTEX_INITIALIZER;
static int seen;
static int64_t first_id;

static void on_alert(void *ud, const char *json)
{
	(void)ud;
	pthread_mutex_lock(&seen_mu);
	if (seen++ == 0) {
		const char *p = strstr(json, "\"id\":");
		first_id = p ? strtoll(p + 5, NULL, 10) : 0;
	}
	pthread_mutex_unlock(&seen_mu);
	fprintf(stderr, "on_alert %s\n", json);
}

static int run_alerts(const char *conninfo, const char *hook, const char *slack, const char *dead)
{
	char yaml[2048];
	snprintf(yaml, sizeof yaml,
	         "alerts:\n  - {type: webhook, url: '%s'}\n  - {type: slack, url: '%s'}\n"
	         "  - {type: webhook, url: '%s'}\n",
	         hook, slack, dead);
	kn_config *cfg = NULL;
	kn_err err = { 0 };
	if (kn_config_load_buffer(&cfg, yaml, strlen(yaml), "test.yaml", &err) != 0) {
		printf("FAIL config: %s\n", err.msg);
		return 1;
	}
	kn_alerts_opts o = { .config = cfg, .conninfo = conninfo, .run_score_below = 0.7,
		                 .timeout_ms = 3000, .retries = 3, .backoff_ms = 20, .on_alert = on_alert };
	kn_alerts *a = NULL;
	int rc = kn_alerts_new(&a, &o, &err);
	CHECK(rc == 0, "kn_alerts_new (%s)", err.msg);
	if (rc != 0)
		return 1;
	const char *low = "{\"task\":\"shop-1\",\"run\":\"r-1\",\"status\":\"finished\",\"score\":0.4,"
	                  "\"reached\":2,\"total\":5}";
	CHECK(kn_alerts_run_finished(a, "shop-1", "r-1", low, &err) == 0, "run below threshold raised");
	CHECK(kn_alerts_drain(a, 30000, &err) == 0, "drained");
	CHECK(kn_alerts_run_finished(a, "shop-1", "r-2", "{\"score\":0.3}", &err) == 0,
	      "second low run of the same task queued (to be deduplicated)");
	CHECK(kn_alerts_run_finished(a, "shop-2", "r-3", "{\"score\":0.9}", &err) == 0,
	      "run above threshold: no alert");
	CHECK(kn_alerts_run_finished(a, "shop-2", "r-4", "{\"score\":0.7}", &err) == 0,
	      "run at the threshold: no alert");
	CHECK(kn_alerts_health(a, "shop-1", KN_HEALTH_HEALTHY, KN_HEALTH_BROKEN,
	                       "{\"replays\":[11,12]}", &err) == 0,
	      "health healthy -> broken raised");
	CHECK(kn_alerts_health(a, "shop-1", KN_HEALTH_FLAKY, KN_HEALTH_BROKEN, "{\"replays\":[13]}", &err) == 0,
	      "health flaky -> broken queued (to be deduplicated)");
	CHECK(kn_alerts_health(a, "shop-1", KN_HEALTH_BROKEN, KN_HEALTH_RECOVERED, NULL, &err) == 0,
	      "health broken -> recovered raised");
	CHECK(kn_alerts_health(a, "shop-1", KN_HEALTH_BROKEN, KN_HEALTH_BROKEN, NULL, &err) == 0,
	      "no change: no alert");

	/* malformed input is refused at the call, nothing queued */
	CHECK(kn_alerts_run_finished(a, "t", "r", "{\"score\":", &err) == KN_EINVAL &&
	          strstr(err.msg, "run result is not JSON"),
	      "bad run JSON refused: %s", err.msg);
	CHECK(kn_alerts_run_finished(a, "t", "r", "{\"score\":\"low\"}", &err) == KN_EINVAL,
	      "non-numeric score refused: %s", err.msg);
	CHECK(kn_alerts_run_finished(a, "t", "r", "[1]", &err) == KN_EINVAL, "array result refused");
	CHECK(kn_alerts_run_finished(a, "", "r", "{\"score\":0}", &err) == KN_EINVAL, "empty task refused");
	char big[400];
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	CHECK(kn_alerts_run_finished(a, big, "r", "{\"score\":0}", &err) == KN_ELIMIT,
	      "over-long task ref refused: %s", err.msg);
	CHECK(kn_alerts_health(a, "t", KN_HEALTH_HEALTHY, (kn_health)77, NULL, &err) == KN_EINVAL,
	      "unknown health state refused");
	CHECK(kn_alerts_health(a, "t", KN_HEALTH_HEALTHY, KN_HEALTH_FLAKY, "{", &err) == KN_EINVAL,
	      "bad evidence JSON refused");
	CHECK(kn_alerts_drain(a, 30000, &err) == 0, "drained");
	CHECK(seen == 3, "on_alert called for the 3 recorded alerts (got %d)", seen);

	/* acknowledging releases the dedupe key: the next low run alerts again */
	kn_store *st = NULL;
	CHECK(kn_store_open(&st, conninfo, &err) == 0, "store open");
	CHECK(st && first_id > 0 && kn_store_alert_ack(st, first_id, &err) == 0, "alert %" PRId64 " acknowledged",
	      first_id);
	kn_store_free(st);
	CHECK(kn_alerts_run_finished(a, "shop-1", "r-5", "{\"score\":0.1}", &err) == 0,
	      "low run after the ack raised");
	CHECK(kn_alerts_drain(a, 30000, &err) == 0, "drained");
	CHECK(seen == 4, "on_alert called 4 times in all (got %d)", seen);
	kn_alerts_free(a);
	kn_config_free(cfg);
	return fails ? 1 : 0;
}

/* ---- scheduler --------------------------------------------------------------------------------- */

typedef struct racer {
	kn_scheduler *s;
	int64_t t;
	size_t fired, jobs;
	int rc;
	pthread_barrier_t *bar;
} racer;

static void *race(void *arg)
{
	racer *r = arg;
	pthread_barrier_wait(r->bar);
	r->rc = kn_scheduler_tick(r->s, r->t, &r->fired, &r->jobs, NULL);
	return NULL;
}

static int run_scheduler(const char *conninfo, const char *taskfile)
{
	kn_err err = { 0 };
	kn_store *st = NULL;
	kn_taskset *set = NULL;
	int64_t id;
	size_t nv;
	if (kn_store_open(&st, conninfo, &err) != 0 || kn_taskset_load_file(&set, taskfile, NULL, &err) != 0) {
		printf("FAIL setup: %s\n", err.msg);
		return 1;
	}
	CHECK(kn_store_taskset_put(st, "shop", taskfile, set, &id, &nv, &err) == 0, "task set shop loaded (%zu tasks)", nv);
	CHECK(kn_store_taskset_put(st, "other", taskfile, set, &id, &nv, &err) == 0, "task set other loaded (%zu tasks)", nv);
	size_t n_tasks = set->n_tasks;
	char refs[512];
	/* a set-qualified ref, an unqualified one, and one that does not exist */
	snprintf(refs, sizeof refs, "['shop:%s', '%s', no-such-task]", set->tasks[0].id, set->tasks[1].id);
	char yaml[2048];
	snprintf(yaml, sizeof yaml,
	         "schedules:\n"
	         "  - {name: every-min, cron: '* * * * *'}\n"
	         "  - {name: shop-daily, cron: '@daily', tasks: shop}\n"
	         "  - {name: picked, cron: '*/5 * * * *', tasks: %s}\n",
	         refs);
	kn_config *cfg = NULL;
	if (kn_config_load_buffer(&cfg, yaml, strlen(yaml), "sched.yaml", &err) != 0) {
		printf("FAIL config: %s\n", err.msg);
		return 1;
	}
	kn_scheduler *a = NULL, *b = NULL;
	CHECK(kn_scheduler_open(&a, cfg, conninfo, &err) == 0 && kn_scheduler_open(&b, cfg, conninfo, &err) == 0,
	      "two schedulers opened (%s)", err.msg);
	const int64_t t0 = 1893456030; /* 2030-01-01T00:00:30Z */
	size_t fired = 9, jobs = 9;
	CHECK(kn_scheduler_tick(a, t0, &fired, &jobs, &err) == 0 && fired == 0,
	      "first tick of a new schedule fires nothing (fired %zu) %s", fired, err.msg);
	CHECK(kn_scheduler_tick(b, t0, &fired, &jobs, &err) == 0 && fired == 0, "same for the second scheduler");
	CHECK(kn_scheduler_tick(a, t0 + 20, &fired, &jobs, &err) == 0 && fired == 0,
	      "before the next minute: nothing");
	CHECK(kn_scheduler_tick(a, t0 + 30, &fired, &jobs, &err) == 0 && fired == 1 && jobs == 2 * n_tasks,
	      "00:01 fire of every-min: %zu fire, %zu jobs (want 1, %zu)", fired, jobs, 2 * n_tasks);
	CHECK(kn_scheduler_tick(b, t0 + 45, &fired, &jobs, &err) == 0 && fired == 0 && jobs == 0,
	      "the other scheduler sees the fire taken (fired %zu)", fired);

	/* two schedulers racing: 20 minutes, both ticking the same instant from two threads */
	size_t total_fires = 0, total_jobs = 0, picked_fires = 0;
	int race_rc = 0;
	for (int m = 2; m <= 21; m++) {
		pthread_barrier_t bar;
		pthread_barrier_init(&bar, NULL, 2);
		racer ra = { a, t0 - 30 + m * 60, 0, 0, 0, &bar }, rb = { b, t0 - 30 + m * 60, 0, 0, 0, &bar };
		pthread_t ta, tb;
		pthread_create(&ta, NULL, race, &ra);
		pthread_create(&tb, NULL, race, &rb);
		pthread_join(ta, NULL);
		pthread_join(tb, NULL);
		pthread_barrier_destroy(&bar);
		race_rc |= ra.rc | rb.rc;
		total_fires += ra.fired + rb.fired;
		total_jobs += ra.jobs + rb.jobs;
		if (m % 5 == 0)
			picked_fires++;
	}
	size_t want_jobs = 20 * 2 * n_tasks + picked_fires * 2;
	CHECK(race_rc == 0 && total_fires == 20 + picked_fires && total_jobs == want_jobs,
	      "racing on 20 minutes: %zu fires, %zu jobs (want %zu, %zu)", total_fires, total_jobs,
	      20 + picked_fires, want_jobs);

	int64_t last = 0;
	CHECK(kn_store_schedule_last(st, "every-min", &last, &err) == 0 && last == t0 - 30 + 21 * 60,
	      "last every-min fire is 00:21 (%" PRId64 ")", last);
	CHECK(kn_store_schedule_last(st, "shop-daily", &last, &err) == KN_ENOTFOUND, "shop-daily never fired");

	/* a job enqueued by a schedule is claimable and carries the schedule's name */
	kn_store_job job;
	int c = kn_store_job_claim(st, "test-worker", 60, &job, &err);
	CHECK(c == 1 && strcmp(job.schedule, "every-min") == 0, "first claimed job is from every-min (%s)",
	      c == 1 ? job.schedule : err.msg);
	kn_scheduler_free(a);
	kn_scheduler_free(b);

	/* down for 5.5 hours: one catch-up fire per schedule that had fired, not 300 */
	kn_scheduler *s = NULL;
	CHECK(kn_scheduler_open(&s, cfg, conninfo, &err) == 0, "scheduler reopened");
	int64_t t1 = 1893456030 + 5 * 3600 + 30 * 60 - 20; /* 05:30:10 */
	CHECK(kn_scheduler_tick(s, t1, &fired, &jobs, &err) == 0 && fired == 2 && jobs == 2 * n_tasks + 2,
	      "restart: one catch-up for every-min and picked (fired %zu, jobs %zu; want 2, %zu)", fired, jobs,
	      2 * n_tasks + 2);
	CHECK(kn_scheduler_tick(s, t1 + 30, &fired, &jobs, &err) == 0 && fired == 0, "no second catch-up");
	CHECK(kn_scheduler_tick(s, t1 + 50, &fired, &jobs, &err) == 0 && fired == 1 && jobs == 2 * n_tasks,
	      "05:31 fires every-min as usual (fired %zu)", fired);
	/* a day later the suspended process wakes: only the latest missed fire; shop-daily fires */
	int64_t t2 = 1893456000 + 86400 + 600; /* 2030-01-02T00:10 */
	CHECK(kn_scheduler_tick(s, t2, &fired, &jobs, &err) == 0 && fired == 3 &&
	          jobs == 2 * n_tasks + 2 + n_tasks,
	      "after a long sleep: every-min, picked and shop-daily once each (fired %zu, jobs %zu)", fired, jobs);
	CHECK(kn_store_schedule_last(st, "shop-daily", &last, &err) == 0 && last == 1893456000 + 86400,
	      "shop-daily fired for 2030-01-02T00:00");
	kn_scheduler_free(s);

	/* a schedule that can never fire is reported, not looped on */
	kn_config *bad = NULL;
	const char *never = "schedules: [{name: never, cron: '0 0 30 2 *'}]\n";
	CHECK(kn_config_load_buffer(&bad, never, strlen(never), "never.yaml", &err) == 0 &&
	          kn_scheduler_open(&s, bad, conninfo, &err) == 0 &&
	          kn_scheduler_tick(s, t2, &fired, &jobs, &err) == 0 && fired == 0,
	      "Feb 30 schedule: no fire, no error");
	kn_scheduler_free(s);
	kn_config_free(bad);
	CHECK(kn_scheduler_open(&s, cfg, "", &err) == KN_EINVAL, "no database url refused: %s", err.msg);

	/* the threaded scheduler starts and stops cleanly */
	CHECK(kn_scheduler_start(&s, cfg, conninfo, &err) == 0, "threaded scheduler started");
	kn_scheduler_free(s);
	kn_config_free(cfg);
	kn_taskset_free(set);
	kn_store_free(st);
	return fails ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 6 && strcmp(argv[1], "alerts") == 0)
		return run_alerts(argv[2], argv[3], argv[4], argv[5]);
	if (argc == 4 && strcmp(argv[1], "scheduler") == 0)
		return run_scheduler(argv[2], argv[3]);
	if (argc == 3 && strcmp(argv[1], "config") == 0) { /* deploy.sh: the config loader's verdict */
		kn_config *cfg = NULL;
		kn_err err = { 0 };
		if (kn_config_load(&cfg, argv[2], &err) != 0) {
			printf("%s\n", err.msg);
			return 1;
		}
		printf("ok %zu schedule(s), %zu alert channel(s)\n", cfg->n_schedules, cfg->n_alerts);
		kn_config_free(cfg);
		return 0;
	}
	fprintf(stderr, "usage: alerts_test alerts CONNINFO HOOK SLACK DEAD | scheduler CONNINFO TASKFILE"
	                " | config FILE\n");
	return 2;
}
