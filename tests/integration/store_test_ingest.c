/* store_test_ingest.c — store_test (store_test.c): the verdict cache from several threads,
 * kn_ingest with the database up and down, a lost connection, and the durability modes store.sh
 * drives (outage, spool-only, recover, version). */
#include "store_internal.h" /* kn_store_begin / kn_store_rollback: the reconnect rule inside a transaction */
#include "store_test.h"

/* ---- verdict cache ----------------------------------------------------------------------------- */

struct vt_arg {
	const kn_verdict_store *vs;
	int id, bad;
};

static void *verdict_thread(void *p)
{
	struct vt_arg *a = p;
	for (int i = 0; i < 50; i++) {
		char input[64];
		snprintf(input, sizeof input, "input %d/%d", a->id, i);
		double s = 0;
		kn_err err;
		if (a->vs->get(a->vs->ud, "m", 1, "rule", input, &s) != 0)
			a->bad++;
		if (a->vs->put(a->vs->ud, "m", 1, "rule", input, (double)i / 50.0, NULL, &err) != 0)
			a->bad++;
		if (a->vs->get(a->vs->ud, "m", 1, "rule", input, &s) != 1 || s != (double)i / 50.0)
			a->bad++;
	}
	return NULL;
}

void test_verdicts(void **state)
{
	(void)state;
	kn_err err;
	kn_store_verdicts *v;
	assert_int_equal(kn_store_verdicts_open(&v, pg_url, &err), 0);
	const kn_verdict_store *vs = kn_store_verdicts_store(v);
	double s = -1;
	assert_int_equal(vs->get(vs->ud, "gpt-x", 1, "the page shows shoes", "red shoes", &s), 0);
	assert_int_equal(vs->put(vs->ud, "gpt-x", 1, "the page shows shoes", "red shoes", 0.9, "close", &err), 0);
	assert_int_equal(vs->get(vs->ud, "gpt-x", 1, "the page shows shoes", "red shoes", &s), 1);
	assert_true(s == 0.9);
	assert_int_equal(vs->get(vs->ud, "gpt-x", 2, "the page shows shoes", "red shoes", &s), 0);
	assert_int_equal(vs->get(vs->ud, "gpt-y", 1, "the page shows shoes", "red shoes", &s), 0);
	assert_int_equal(vs->put(vs->ud, "gpt-x", 1, "the page shows shoes", "red shoes", 0.1, NULL, &err), 0);
	assert_int_equal(vs->get(vs->ud, "gpt-x", 1, "the page shows shoes", "red shoes", &s), 1);
	assert_true(s == 0.1);
	assert_int_equal(vs->put(vs->ud, "gpt-x", 1, "r", "i", 1.5, NULL, &err), KN_EINVAL);
	/* a long input (beyond any btree row limit) still keys */
	char *big = malloc(200001);
	memset(big, 'x', 200000);
	big[200000] = 0;
	assert_int_equal(vs->put(vs->ud, "gpt-x", 1, "r", big, 0.5, NULL, &err), 0);
	assert_int_equal(vs->get(vs->ud, "gpt-x", 1, "r", big, &s), 1);
	big[100] = 'y';
	assert_int_equal(vs->get(vs->ud, "gpt-x", 1, "r", big, &s), 0);
	free(big);
	/* several threads through one adapter */
	struct vt_arg a[4];
	pthread_t th[4];
	for (int i = 0; i < 4; i++) {
		a[i] = (struct vt_arg){vs, i, 0};
		pthread_create(&th[i], NULL, verdict_thread, &a[i]);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(a[i].bad, 0);
	}
	kn_store_verdicts_free(v);
	assert_int_equal(kn_store_verdicts_open(&v, "host=/nonexistent-kn dbname=x", &err), KN_EIO);
}

/* ---- kn_ingest with the database up -------------------------------------------------------------- */

void test_ingest_live(void **state)
{
	(void)state;
	kn_err err;
	char dir[] = "/tmp/kn-spool-XXXXXX";
	assert_non_null(mkdtemp(dir));
	kn_ingest_opts o = {.conninfo = pg_url, .spool_dir = dir, .batch_max = 64, .flush_ms = 5};
	kn_ingest *in;
	assert_int_equal(kn_ingest_new(&in, &o, &err), 0);
	int64_t v = version_of("t-two");
	const char *ids[3] = {"r-live-a", "r-live-b", "r-live-c"};
	for (int r = 0; r < 3; r++) {
		kn_store_run run = {ids[r], v, "agent", NULL, "2026-11-22T13:00:00Z", NULL, 0};
		assert_int_equal(kn_ingest_run_start(in, &run, &err), 0);
	}
	/* interleaved runs, and one line the database refuses */
	for (int i = 1; i <= 1000; i++)
		for (int r = 0; r < 3; r++) {
			char line[100];
			if (r == 2 && i == 500)
				snprintf(line, sizeof line, "{broken");
			else
				snprintf(line, sizeof line, "{\"n\": %d}", i);
			assert_int_equal(kn_ingest_event(in, ids[r], i, line, &err), 0);
		}
	assert_int_equal(kn_ingest_run_finish(in, "r-live-a", "2026-11-22T13:00:09Z",
	                                       "{\"status\": \"incomplete\", \"key_nodes\": []}", &err), 0);
	assert_int_equal(kn_ingest_sync(in, 60000, &err), 0);
	kn_ingest_stats s;
	kn_ingest_get_stats(in, &s);
	assert_int_equal(s.events_written, 2999);
	assert_int_equal(s.spooled, 0);
	assert_true(s.db_up);
	kn_ingest_free(in);
	assert_int_equal(sql_int("SELECT count(*) FROM events WHERE run_id IN ('r-live-a', 'r-live-b')"), 2000);
	assert_int_equal(sql_int("SELECT count(*) FROM events WHERE run_id = 'r-live-c'"), 999);
	assert_int_equal(sql_int("SELECT count(*) FROM events WHERE run_id LIKE 'r-live-%' AND (line->>'n')::int <> seq"), 0);
	assert_int_equal(sql_int("SELECT count(*) FROM runs WHERE id = 'r-live-a' AND status = 'incomplete'"), 1);
	char path[300];
	snprintf(path, sizeof path, "%s/spool.log", dir);
	struct stat sb;
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_size, 0);
	unlink(path);
	rmdir(dir);
}

/* Database unreachable from the start: records go to the spool until its cap (KN_ELIMIT), sync
 * times out saying why, and free leaves the spool on disk for the next start. */
void test_ingest_down_cap(void **state)
{
	(void)state;
	kn_err err;
	char dir[] = "/tmp/kn-spool-cap-XXXXXX";
	assert_non_null(mkdtemp(dir));
	kn_ingest_opts o = {.conninfo = "host=/nonexistent-kn port=1 dbname=x", .spool_dir = dir,
	                    .spool_max_bytes = 8192, .retry_ms = 50};
	kn_ingest *in;
	assert_int_equal(kn_ingest_new(&in, &o, &err), 0);
	kn_store_run run = {"r-cap", 1, "agent", NULL, "2026-11-22T16:00:00Z", NULL, 0};
	assert_int_equal(kn_ingest_run_start(in, &run, &err), 0);
	int rc = 0, n = 0;
	while (n < 10000 && (rc = kn_ingest_event(in, "r-cap", n + 1, "{\"type\": \"scroll\"}", &err)) == 0)
		n++;
	assert_int_equal(rc, KN_ELIMIT);
	assert_non_null(strstr(err.msg, "spool full"));
	assert_true(n > 10);
	kn_ingest_stats s;
	kn_ingest_get_stats(in, &s);
	assert_false(s.db_up);
	assert_int_equal(s.spooled, (uint64_t)n + 1);
	assert_true(s.spool_bytes > 0 && s.spool_bytes <= 8192);
	assert_int_equal(kn_ingest_sync(in, 100, &err), KN_ETIMEOUT);
	assert_non_null(strstr(err.msg, "unreachable"));
	assert_int_equal(kn_ingest_event(in, "r-cap", 0, "{}", &err), KN_EINVAL);
	kn_ingest_free(in);
	char path[300];
	snprintf(path, sizeof path, "%s/spool.log", dir);
	struct stat sb;
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal((uint64_t)sb.st_size, s.spool_bytes);
	unlink(path);
	rmdir(dir);
}

/* Drop every idle client connection but the caller's (state: 'idle' or 'idle in transaction'). */
static void drop_idle(const char *state)
{
	char sql[400];
	snprintf(sql, sizeof sql, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname ="
	         " current_database() AND pid <> pg_backend_pid() AND application_name = '' AND"
	         " backend_type = 'client backend' AND state = '%s'", state);
	sql_exec(sql);
}

/* The store owns reconnects: after the server dropped the connection a read is sent again on a
 * new one (a new session); a write that is not idempotent is not (KN_EIO, nothing written) and
 * the next call reconnects first; inside a transaction nothing is retried. */
void test_connection_loss(void **state)
{
	(void)state;
	kn_err err;
	kn_store *s;
	char *js = NULL;
	int64_t jid = 0, n0, n1, v = version_of("t-one");
	assert_int_equal(kn_store_open(&s, pg_url, &err), 0);
	unsigned long s0 = kn_store_session(s);
	drop_idle("idle"); /* the suite's own connection too: its next read reconnects as well */
	assert_int_equal(kn_store_runs_json(s, NULL, NULL, 1, &js, &err), 0);
	free(js);
	assert_int_equal(kn_store_session(s), s0 + 1);
	n0 = sql_int("SELECT count(*) FROM jobs");
	drop_idle("idle");
	assert_int_equal(kn_store_job_enqueue(s, v, "", &jid, &err), KN_EIO);
	n1 = sql_int("SELECT count(*) FROM jobs");
	assert_int_equal(n1, n0); /* the INSERT was not sent again */
	assert_int_equal(kn_store_job_enqueue(s, v, "", &jid, &err), 0);
	assert_int_equal(kn_store_session(s), s0 + 2);
	assert_int_equal(kn_store_begin(s, &err), 0);
	drop_idle("idle in transaction");
	assert_int_equal(kn_store_runs_json(s, NULL, NULL, 1, &js, &err), KN_EIO);
	assert_null(js);
	assert_int_equal(kn_store_runs_json(s, NULL, NULL, 1, &js, &err), KN_EIO); /* still in it */
	kn_store_rollback(s);
	assert_int_equal(kn_store_runs_json(s, NULL, NULL, 1, &js, &err), 0);
	free(js);
	assert_int_equal(kn_store_session(s), s0 + 3);
	kn_store_free(s);
	assert_int_equal(kn_store_open(&s, "host=/nonexistent-kn port=1 dbname=x", &err), KN_EIO);
	assert_non_null(strstr(err.msg, "cannot connect"));
}


/* ---- durability modes (driven by store.sh) ------------------------------------------------------- */

static int fails;
static void check(int ok, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf(ok ? "ok   " : "FAIL ");
	vprintf(fmt, ap);
	printf("\n");
	fflush(stdout);
	va_end(ap);
	if (!ok)
		fails++;
}

static void msleep(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

static void touch(const char *path)
{
	FILE *f = fopen(path, "w");
	if (f)
		fclose(f);
}

static void wait_file(const char *path)
{
	struct stat sb;
	for (int i = 0; i < 6000 && stat(path, &sb) != 0; i++)
		msleep(10);
}

/* A store to check with, and the task version the durability runs use. */
static int64_t prepare(kn_store **out)
{
	kn_err err;
	if (kn_store_open(out, pg_url, &err) != 0 || kn_store_migrate(*out, NULL, NULL, &err) != 0) {
		fprintf(stderr, "store_test: %s\n", err.msg);
		exit(1);
	}
	kn_taskset *set = NULL;
	kn_taskset_load_buffer(&set, yaml_v1, strlen(yaml_v1), "d.yaml", NULL, &err);
	int64_t v = 0;
	if (!set || kn_store_taskset_put(*out, "durability", "d.yaml", set, NULL, NULL, &err) != 0 ||
	    kn_store_task_resolve(*out, "durability:t-one", &v, &err) != 0) {
		fprintf(stderr, "store_test: %s\n", err.msg);
		exit(1);
	}
	kn_taskset_free(set);
	return v;
}

/* Every event 1..n of run arrived once, in order (seq and payload agree), read page by page
 * (kn_store_events_json); GET run's inline events and events_total agree. */
static void check_run(kn_store *s, const char *run, long n)
{
	kn_err err;
	char *js = NULL;
	int rc = kn_store_run_get_json(s, run, &js, &err);
	check(rc == 0, "run %s readable (%s)", run, rc ? err.msg : "ok");
	if (rc != 0)
		return;
	json_t *r = json_loads(js, 0, NULL);
	free(js);
	json_int_t total = json_integer_value(json_object_get(r, "events_total"));
	size_t inline_n = json_array_size(json_object_get(r, "events"));
	json_decref(r);
	size_t got = 0, bad = 0;
	int64_t after = 0;
	for (;;) {
		char *page = NULL;
		if (kn_store_events_json(s, run, after, 1500, &page, &err) != 0) {
			check(0, "run %s: page after %lld: %s", run, (long long)after, err.msg);
			return;
		}
		json_t *pj = json_loads(page, 0, NULL);
		free(page);
		json_t *evs = json_object_get(pj, "events"), *e;
		size_t i;
		json_array_foreach(evs, i, e) {
			got++;
			if (json_integer_value(json_object_get(e, "seq")) != (json_int_t)got ||
			    json_integer_value(json_object_get(json_object_get(e, "event"), "n")) != (json_int_t)got)
				bad++;
		}
		json_t *next = json_object_get(pj, "next_after");
		int more = json_is_integer(next);
		if (more)
			after = json_integer_value(next);
		json_decref(pj);
		if (!more)
			break;
	}
	check(got == (size_t)n, "run %s: %zu events stored, %ld sent", run, got, n);
	check(total == (json_int_t)n && inline_n == (size_t)(n < KN_STORE_RUN_EVENTS_INLINE ? n : KN_STORE_RUN_EVENTS_INLINE),
	      "run %s: GET shows %zu inline of %lld", run, inline_n, (long long)total);
	check(bad == 0, "run %s: every event in seq order with its own payload (%zu out of place)", run, bad);
}

int mode_outage(const char *dir, const char *ready, const char *go, long n)
{
	kn_store *s;
	int64_t v = prepare(&s);
	kn_err err;
	kn_ingest_opts o = {.conninfo = pg_url, .spool_dir = dir, .retry_ms = 200};
	kn_ingest *in;
	if (kn_ingest_new(&in, &o, &err) != 0) {
		fprintf(stderr, "store_test: %s\n", err.msg);
		return 1;
	}
	kn_store_run run = {"r-outage", v, "agent", NULL, "2026-11-22T14:00:00Z", NULL, 0};
	check(kn_ingest_run_start(in, &run, &err) == 0, "run start enqueued");
	int enq_fail = 0;
	for (long i = 1; i <= n; i++) {
		char line[100];
		snprintf(line, sizeof line, "{\"t\": %ld.5, \"type\": \"scroll\", \"n\": %ld}", i, i);
		if (kn_ingest_event(in, "r-outage", i, line, &err) != 0)
			enq_fail++;
		if (i == n / 4) {
			kn_ingest_sync(in, 30000, &err);
			touch(ready);
			wait_file(go); /* the cluster is stopped now */
		}
		if (i % 1000 == 0)
			msleep(20); /* stream, don't dump: part of it meets the outage */
	}
	kn_ingest_run_finish(in, "r-outage", "2026-11-22T14:05:00Z",
	                     "{\"status\": \"incomplete\", \"steps\": 0, \"key_nodes\": []}", &err);
	check(enq_fail == 0, "every enqueue accepted (%d failed)", enq_fail);
	kn_ingest_stats st1;
	kn_ingest_get_stats(in, &st1);
	check(st1.spooled > 0, "records went to the spool during the outage (%llu)",
	      (unsigned long long)st1.spooled);
	int rc = kn_ingest_sync(in, 120000, &err);
	check(rc == 0, "ingest synced after the database came back (%s)", rc ? err.msg : "ok");
	kn_ingest_get_stats(in, &st1);
	check(st1.db_up && st1.spool_bytes == 0, "database up and spool empty");
	kn_ingest_free(in);
	kn_store_reset(s, &err);
	check_run(s, "r-outage", n);
	char *js = NULL;
	kn_store_run_get_json(s, "r-outage", &js, &err);
	check(js && strstr(js, "\"incomplete\""), "run finish arrived");
	free(js);
	kn_store_free(s);
	return fails ? 1 : 0;
}

int mode_spool_only(const char *dir, const char *ready, long n)
{
	kn_err err;
	kn_ingest_opts o = {.conninfo = pg_url, .spool_dir = dir, .retry_ms = 200};
	kn_ingest *in;
	if (kn_ingest_new(&in, &o, &err) != 0) {
		fprintf(stderr, "store_test: %s\n", err.msg);
		return 1;
	}
	/* the task version of the durability set, from the earlier mode; passed as an env var */
	const char *ver = getenv("KN_TASK_VERSION");
	kn_store_run run = {"r-killed", ver ? strtoll(ver, NULL, 10) : 1, "agent", NULL, "2026-11-22T15:00:00Z", NULL, 0};
	int bad = kn_ingest_run_start(in, &run, &err) != 0;
	for (long i = 1; i <= n; i++) {
		char line[100];
		snprintf(line, sizeof line, "{\"type\": \"click\", \"n\": %ld}", i);
		bad += kn_ingest_event(in, "r-killed", i, line, &err) != 0;
	}
	kn_ingest_stats s;
	kn_ingest_get_stats(in, &s);
	printf("spooled %llu records, %llu bytes, %d refused\n", (unsigned long long)s.spooled,
	       (unsigned long long)s.spool_bytes, bad);
	fflush(stdout);
	if (bad || s.spooled != (uint64_t)n + 1)
		return 1;
	touch(ready);
	for (;;)
		pause(); /* store.sh kills us with SIGKILL */
}

int mode_recover(const char *dir, long n)
{
	kn_store *s;
	prepare(&s);
	kn_err err;
	kn_ingest_opts o = {.conninfo = pg_url, .spool_dir = dir, .retry_ms = 200};
	kn_ingest *in;
	if (kn_ingest_new(&in, &o, &err) != 0) {
		fprintf(stderr, "store_test: %s\n", err.msg);
		return 1;
	}
	int rc = kn_ingest_sync(in, 120000, &err);
	check(rc == 0, "the spool left by the killed process was flushed (%s)", rc ? err.msg : "ok");
	kn_ingest_free(in);
	check_run(s, "r-killed", n);
	kn_store_free(s);
	return fails ? 1 : 0;
}

int mode_version(void)
{
	kn_store *s;
	printf("%" PRId64 "\n", prepare(&s));
	kn_store_free(s);
	return 0;
}
