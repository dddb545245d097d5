/* store_test_runs.c — store_test (store_test.c): runs and events (appended twice, stored once;
 * finish idempotent; the API JSON shapes), job leases and concurrent claims, health, alerts and NOTIFY. */
#include "store_test.h"

/* ---- runs and events ----------------------------------------------------------------------------- */

static char **make_lines(int64_t first, size_t n)
{
	char **l = calloc(n, sizeof *l);
	for (size_t i = 0; i < n; i++) {
		l[i] = malloc(80);
		snprintf(l[i], 80, "{\"t\": %.3f, \"type\": \"click\", \"n\": %" PRId64 "}", (double)i, first + (int64_t)i);
	}
	return l;
}

static void free_lines(char **l, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(l[i]);
	free(l);
}

void test_events_once(void **state)
{
	(void)state;
	kn_err err;
	kn_store_run run = {"r-events", version_of("t-two"), "replay", "http://127.0.0.1:9222",
	                    "2026-11-22T12:00:00Z", NULL, 0};
	assert_int_equal(kn_store_run_start(st, &run, &err), 0);
	assert_int_equal(kn_store_run_start(st, &run, &err), 0);
	char **a = make_lines(1, 100), **b = make_lines(51, 100);
	assert_int_equal(kn_store_events_append(st, "r-events", 1, (const char *const *)a, 100, &err), 0);
	assert_int_equal(kn_store_events_append(st, "r-events", 1, (const char *const *)a, 100, &err), 0);
	assert_int_equal(kn_store_events_append(st, "r-events", 51, (const char *const *)b, 100, &err), 0);
	free_lines(a, 100);
	free_lines(b, 100);
	assert_int_equal(sql_int("SELECT count(*) FROM events WHERE run_id = 'r-events'"), 150);
	char *js;
	assert_int_equal(kn_store_run_get_json(st, "r-events", &js, &err), 0);
	json_t *r = parse(js);
	free(js);
	json_t *evs = json_object_get(r, "events");
	assert_int_equal(json_array_size(evs), 150);
	for (size_t i = 0; i < 150; i++)
		assert_int_equal(json_integer_value(json_object_get(json_array_get(evs, i), "n")), (int64_t)i + 1);
	assert_string_equal(json_string_value(json_object_get(r, "status")), "running");
	json_decref(r);

	/* malformed input is refused whole */
	const char *bad[2] = {"{\"ok\": 1}", "{not json"};
	assert_int_equal(kn_store_events_append(st, "r-events", 200, bad, 2, &err), KN_EDB);
	assert_non_null(strstr(err.msg, "json"));
	assert_int_equal(sql_int("SELECT count(*) FROM events WHERE run_id = 'r-events'"), 150);
	assert_int_equal(kn_store_events_append(st, "r-events", 0, bad, 1, &err), KN_EINVAL);
	assert_int_equal(kn_store_events_append(st, "r-no-such-run", 1, bad, 1, &err), KN_ENOTFOUND);
	assert_int_equal(sql_int("SELECT count(*) FROM events WHERE run_id = 'r-no-such-run'"), 0);
}

void test_run_finish_idempotent(void **state)
{
	(void)state;
	kn_err err;
	const char *res1 = "{\"task\": \"t-two\", \"run\": \"r-events\", \"status\": \"finished\", \"steps\": 3,"
		" \"reached\": 2, \"total\": 2, \"score\": 1.0, \"completion\": true, \"efficiency\": 1.5,"
		" \"step_scores\": [0.5, 1.0, 1.0], \"key_nodes\": [{\"id\": \"k1\", \"function\": \"url_exactly_match\","
		" \"score\": 1.0, \"reached_at_step\": 1}, {\"id\": \"k2\", \"function\": \"url_exactly_match\","
		" \"score\": 1.0, \"reached_at_step\": 3}]}";
	const char *res2 = "{\"status\": \"error\", \"key_nodes\": [{\"id\": \"k9\"}]}";
	assert_int_equal(kn_store_run_finish(st, "r-events", "2026-11-22T12:00:09Z", res1, &err), 0);
	assert_int_equal(kn_store_run_finish(st, "r-events", "2026-11-22T12:00:09Z", res1, &err), 0);
	assert_int_equal(kn_store_run_finish(st, "r-events", "2026-11-22T12:30:00Z", res2, &err), 0);
	assert_int_equal(sql_int("SELECT count(*) FROM keynode_results WHERE run_id = 'r-events'"), 2);
	assert_int_equal(sql_int("SELECT steps FROM runs WHERE id = 'r-events' AND status = 'finished'"), 3);
	assert_int_equal(kn_store_run_finish(st, "r-nope", "2026-11-22T12:00:09Z", res1, &err), KN_ENOTFOUND);
	assert_int_equal(kn_store_run_finish(st, "r-events", "2026-11-22T12:00:09Z", "{oops", &err), KN_EDB);

	char *js;
	assert_int_equal(kn_store_runs_json(st, "t-two", NULL, 10, &js, &err), 0);
	json_t *r = parse(js);
	free(js);
	json_t *s0 = json_array_get(json_object_get(r, "runs"), 0);
	static const char *const summary_keys[] = {"id", "task", "kind", "status", "steps", "reached", "total",
		"score", "completion", "efficiency", "started", "ended", NULL};
	has_keys(s0, summary_keys);
	assert_string_equal(json_string_value(json_object_get(s0, "id")), "r-events");
	assert_string_equal(json_string_value(json_object_get(s0, "task")), "t-two");
	assert_string_equal(json_string_value(json_object_get(s0, "ended")), "2026-11-22T12:00:09.000Z");
	assert_true(json_is_true(json_object_get(s0, "completion")));
	json_decref(r);

	assert_int_equal(kn_store_run_get_json(st, "r-events", &js, &err), 0);
	r = parse(js);
	free(js);
	static const char *const run_keys[] = {"task", "run", "status", "steps", "reached", "total", "score",
		"completion", "efficiency", "step_scores", "key_nodes", "kind", "browser", "started", "ended",
		"events", NULL};
	has_keys(r, run_keys);
	assert_string_equal(json_string_value(json_object_get(r, "kind")), "replay");
	json_decref(r);
	assert_int_equal(kn_store_run_get_json(st, "r-nope", &js, &err), KN_ENOTFOUND);

	assert_int_equal(kn_store_tasks_json(st, NULL, NULL, &js, &err), 0);
	r = parse(js);
	free(js);
	static const char *const ts_keys[] = {"id", "taskset", "intent", "start_url", "site", "key_nodes",
		"version", "health", "last_run", NULL};
	size_t i;
	json_t *t;
	int seen = 0;
	json_array_foreach(json_object_get(r, "tasks"), i, t) {
		has_keys(t, ts_keys);
		if (strcmp(json_string_value(json_object_get(t, "id")), "t-two") == 0) {
			seen = 1;
			assert_string_equal(json_string_value(json_object_get(t, "site")), "localhost");
			assert_string_equal(json_string_value(json_object_get(json_object_get(t, "last_run"), "id")),
			                    "r-events");
		}
	}
	assert_true(seen);
	json_decref(r);
	assert_int_equal(kn_store_tasks_json(st, "localhost", NULL, &js, &err), 0);
	r = parse(js);
	free(js);
	assert_int_equal(json_array_size(json_object_get(r, "tasks")), 1);
	json_decref(r);
	assert_int_equal(kn_store_tasks_json(st, "localhost:8100", "unknown", &js, &err), 0);
	r = parse(js);
	free(js);
	assert_int_equal(json_array_size(json_object_get(r, "tasks")), 1);
	json_decref(r);
}

/* ---- jobs, replays, health ------------------------------------------------------------------------ */

void test_jobs_lease(void **state)
{
	(void)state;
	kn_err err;
	sql_exec("UPDATE jobs SET state = 'done'"); /* a clean queue for this test */
	int64_t v = version_of("t-one"), jid, rid, rid2;
	kn_store_job job;
	assert_int_equal(kn_store_job_enqueue(st, v, "nightly", &jid, &err), 0);
	assert_int_equal(kn_store_job_claim(st, "w1", 60, &job, &err), 1);
	assert_int_equal(job.id, jid);
	assert_int_equal(job.attempt, 1);
	assert_int_equal(job.task_version, v);
	assert_string_equal(job.schedule, "nightly");
	assert_int_equal(kn_store_job_claim(st, "w2", 60, &job, &err), 0);
	assert_int_equal(kn_store_job_heartbeat(st, jid, "w1", 60, &err), 0);
	/* w1's lease runs out (set in the past rather than waited for) and w2 takes the job */
	sql_exec("UPDATE jobs SET lease_until = clock_timestamp() - interval '1 second' WHERE state = 'running'");
	assert_int_equal(kn_store_job_claim(st, "w2", 60, &job, &err), 1);
	assert_int_equal(job.id, jid);
	assert_int_equal(job.attempt, 2);
	assert_int_equal(kn_store_job_heartbeat(st, jid, "w1", 60, &err), KN_ENOTFOUND);
	assert_int_equal(kn_store_job_complete(st, jid, "w1", "broken", NULL, "{\"who\":\"w1\"}", NULL, 0, &rid, &err),
	                 KN_ENOTFOUND);
	char q[200];
	snprintf(q, sizeof q, "SELECT count(*) FROM replay_results WHERE job_id = %" PRId64, jid);
	assert_int_equal(sql_int(q), 0);
	unsigned char png[300];
	for (size_t i = 0; i < sizeof png; i++)
		png[i] = (unsigned char)(i * 7);
	png[0] = 0x89;
	png[1] = 0;
	assert_int_equal(kn_store_job_complete(st, jid, "w2", "broken", NULL,
		"{\"broken\": {\"step\": 2, \"reason\": \"element not found\"}, \"drift\": 0.5}", png, sizeof png,
		&rid, &err), 0);
	assert_true(rid > 0);
	assert_int_equal(sql_int(q), 1);
	assert_int_equal(kn_store_job_complete(st, jid, "w2", "passed", NULL, NULL, NULL, 0, &rid2, &err), KN_ENOTFOUND);
	assert_int_equal(sql_int(q), 1);
	snprintf(q, sizeof q, "SELECT count(*) FROM jobs WHERE id = %" PRId64 " AND state = 'done'", jid);
	assert_int_equal(sql_int(q), 1);
	unsigned char *back;
	size_t len;
	assert_int_equal(kn_store_replay_screenshot(st, rid, &back, &len, &err), 0);
	assert_int_equal(len, sizeof png);
	assert_memory_equal(back, png, sizeof png);
	free(back);
	assert_int_equal(kn_store_replay_put(st, v, NULL, 0, "passed", "{}", NULL, 0, &rid2, &err), 0);
	assert_int_equal(kn_store_replay_screenshot(st, rid2, &back, &len, &err), KN_ENOTFOUND);
	assert_int_equal(kn_store_replay_put(st, v, NULL, 0, "weird", "{}", NULL, 0, &rid2, &err), KN_EDB);

	char *js;
	assert_int_equal(kn_store_task_get_json(st, "t-one", &js, &err), 0);
	json_t *t = parse(js);
	free(js);
	json_t *rp = json_array_get(json_object_get(t, "replays"), 1);
	static const char *const rp_keys[] = {"id", "task", "status", "run", "created", "drift", "broken", NULL};
	has_keys(rp, rp_keys);
	assert_string_equal(json_string_value(json_object_get(rp, "status")), "broken");
	json_decref(t);
	assert_int_equal(kn_store_replays_json(st, "t-one", NULL, 10, &js, &err), 0);
	t = parse(js);
	free(js);
	json_t *reps = json_object_get(t, "replays");
	assert_int_equal(json_array_size(reps), 2);
	has_keys(json_array_get(reps, 1), rp_keys);
	assert_true(json_is_true(json_object_get(json_array_get(reps, 1), "screenshot")));
	assert_int_equal(json_integer_value(json_object_get(json_array_get(reps, 1), "job")), jid);
	json_decref(t);
	assert_int_equal(kn_store_replays_json(st, "no-such-task", NULL, 10, &js, &err), KN_ENOTFOUND);
}

struct claim_arg {
	int n;
	int64_t ids[64];
	char name[16];
};

static void *claim_thread(void *p)
{
	struct claim_arg *a = p;
	kn_store *s;
	kn_err err;
	if (kn_store_open(&s, pg_url, &err) != 0)
		return NULL;
	kn_store_job job;
	while (a->n < 64 && kn_store_job_claim(s, a->name, 60, &job, &err) == 1) {
		a->ids[a->n++] = job.id;
		kn_store_job_complete(s, job.id, a->name, "passed", NULL, "{}", NULL, 0, NULL, &err);
	}
	kn_store_free(s);
	return NULL;
}

void test_jobs_concurrent_claims(void **state)
{
	(void)state;
	kn_err err;
	int64_t v = version_of("t-two");
	for (int i = 0; i < 40; i++)
		assert_int_equal(kn_store_job_enqueue(st, v, NULL, NULL, &err), 0);
	struct claim_arg a[4];
	pthread_t th[4];
	for (int i = 0; i < 4; i++) {
		memset(&a[i], 0, sizeof a[i]);
		snprintf(a[i].name, sizeof a[i].name, "cw%d", i);
		pthread_create(&th[i], NULL, claim_thread, &a[i]);
	}
	int total = 0;
	for (int i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		total += a[i].n;
	}
	assert_int_equal(total, 40);
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < a[i].n; j++)
			for (int k = i; k < 4; k++)
				for (int l = (k == i ? j + 1 : 0); l < a[k].n; l++)
					assert_true(a[i].ids[j] != a[k].ids[l]);
	assert_int_equal(sql_int("SELECT count(*) FROM jobs WHERE state <> 'done'"), 0);
}

void test_health(void **state)
{
	(void)state;
	kn_err err;
	int64_t v = version_of("t-two");
	kn_health h;
	int fails = -1;
	assert_int_equal(kn_store_health_get(st, v, &h, &fails, &err), 0);
	assert_int_equal(h, KN_HEALTH_UNKNOWN);
	assert_int_equal(fails, 0);
	assert_int_equal(kn_store_health_set(st, v, KN_HEALTH_BROKEN, 2, "{\"replay\": 7}", &err), 0);
	assert_int_equal(kn_store_health_set(st, v, KN_HEALTH_BROKEN, 3, NULL, &err), 0);
	assert_int_equal(kn_store_health_set(st, v, KN_HEALTH_RECOVERED, 0, "{\"replay\": 8}", &err), 0);
	assert_int_equal(kn_store_health_get(st, v, &h, &fails, &err), 0);
	assert_int_equal(h, KN_HEALTH_RECOVERED);
	assert_string_equal(kn_health_name(h), "recovered");
	assert_int_equal(kn_store_health_set(st, 999999, KN_HEALTH_BROKEN, 1, NULL, &err), KN_ENOTFOUND);
	char *js;
	assert_int_equal(kn_store_health_json(st, "t-two", &js, &err), 0);
	json_t *j = parse(js);
	free(js);
	static const char *const keys[] = {"task", "state", "consecutive_failures", "since", "transitions", NULL};
	has_keys(j, keys);
	json_t *tr = json_object_get(j, "transitions");
	assert_int_equal(json_array_size(tr), 2);
	json_t *t0 = json_array_get(tr, 0);
	assert_string_equal(json_string_value(json_object_get(t0, "from")), "broken");
	assert_string_equal(json_string_value(json_object_get(t0, "to")), "recovered");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(t0, "evidence"), "replay")), 8);
	json_decref(j);
	assert_int_equal(kn_store_tasks_json(st, NULL, "recovered", &js, &err), 0);
	j = parse(js);
	free(js);
	assert_int_equal(json_array_size(json_object_get(j, "tasks")), 1);
	json_decref(j);
}

/* ---- alerts ----------------------------------------------------------------------------------- */

void test_alerts_notify(void **state)
{
	(void)state;
	kn_err err;
	PGconn *l = PQconnectdb(pg_url);
	assert_int_equal(PQstatus(l), CONNECTION_OK);
	PQclear(PQexec(l, "LISTEN keynode_alerts"));
	int64_t id1 = 0, id2 = 0;
	assert_int_equal(kn_store_alert_put(st, "task:t-one:broken", "critical", "t-one is broken",
	                                     "{\"task\": \"t-one\"}", &id1, &err), 1);
	assert_int_equal(kn_store_alert_put(st, "task:t-one:broken", "critical", "again", "{}", &id2, &err), 0);
	assert_int_equal(kn_store_alert_put(st, "k", "loud", "bad severity", NULL, &id2, &err), KN_EDB);
	/* the notification arrives on the other connection */
	PGnotify *n = NULL;
	for (int tries = 0; tries < 100 && !n; tries++) {
		PQconsumeInput(l);
		n = PQnotifies(l);
		if (n)
			break;
		fd_set fds;
		FD_ZERO(&fds);
		FD_SET(PQsocket(l), &fds);
		struct timeval tv = {0, 100000};
		select(PQsocket(l) + 1, &fds, NULL, NULL, &tv);
	}
	assert_non_null(n);
	assert_string_equal(n->relname, "keynode_alerts");
	json_t *a = parse(n->extra);
	static const char *const alert_keys[] = {"id", "severity", "title", "detail", "created", "acked",
		"deliveries", NULL};
	has_keys(a, alert_keys);
	assert_int_equal(json_integer_value(json_object_get(a, "id")), id1);
	assert_string_equal(json_string_value(json_object_get(a, "title")), "t-one is broken");
	json_decref(a);
	PQfreemem(n);
	/* only one notification: the duplicate sent none */
	PQconsumeInput(l);
	n = PQnotifies(l);
	assert_null(n);
	PQfinish(l);

	assert_int_equal(kn_store_alert_delivery(st, id1, "webhook", 0, 3, "HTTP 500", &err), 0);
	assert_int_equal(kn_store_alert_delivery(st, 987654321, "webhook", 0, 3, NULL, &err), KN_ENOTFOUND);
	assert_int_equal(kn_store_alert_ack(st, id1, &err), 0);
	assert_int_equal(kn_store_alert_ack(st, id1, &err), 0);
	assert_int_equal(kn_store_alert_ack(st, 987654321, &err), KN_ENOTFOUND);
	/* acknowledged: the same key alerts again */
	assert_int_equal(kn_store_alert_put(st, "task:t-one:broken", "critical", "t-one is broken again", NULL,
	                                     &id2, &err), 1);
	assert_true(id2 != id1);
	char *js;
	assert_int_equal(kn_store_alerts_json(st, 0, NULL, 1000, &js, &err), 0);
	json_t *j = parse(js);
	free(js);
	size_t i;
	json_t *x;
	json_array_foreach(json_object_get(j, "alerts"), i, x)
		assert_true(json_integer_value(json_object_get(x, "id")) != id1);
	json_decref(j);
	assert_int_equal(kn_store_alerts_json(st, 1, NULL, 1000, &js, &err), 0);
	j = parse(js);
	free(js);
	int seen = 0;
	json_array_foreach(json_object_get(j, "alerts"), i, x) {
		if (json_integer_value(json_object_get(x, "id")) == id1) {
			seen = 1;
			assert_true(json_is_true(json_object_get(x, "acked")));
			json_t *d = json_array_get(json_object_get(x, "deliveries"), 0);
			assert_string_equal(json_string_value(json_object_get(d, "channel")), "webhook");
			assert_int_equal(json_integer_value(json_object_get(d, "attempts")), 3);
			assert_true(json_is_false(json_object_get(d, "ok")));
		}
	}
	assert_true(seen);
	json_decref(j);
}
