/* store_test.c — services/store against a real PostgreSQL (store.sh starts a private cluster and
 * passes it in env KN_PG_URL).
 *
 * With no arguments, the cmocka suite: migrations (embedded and from a directory, re-run a no-op,
 * a failing migration rolled back whole, two concurrent migrators on a fresh database); task
 * versions (a changed task gets a new version, an old run keeps its own, the stored definition
 * loads back equal); SQL-injection and odd strings in every text parameter stored and read back
 * verbatim; events appended twice stored once; run finish idempotent; the API JSON shapes; job
 * claim / heartbeat / complete with an expired lease re-claimed (the old holder writes nothing)
 * and concurrent claims; health transitions; alerts dedupe and NOTIFY received on another
 * connection; the verdict cache through its kn_verdict_store adapter from several threads;
 * kn_ingest with the database up (a bad line drops alone).
 *
 * The durability modes, driven by store.sh, which stops and starts the cluster in between:
 *   store_test outage SPOOL_DIR READY_FILE GO_FILE N — stream N events through kn_ingest; after N/4
 *     write READY_FILE and wait for GO_FILE (the database is down then), stream the rest, wait for
 *     the database to come back and check every event arrived once, in order
 *   store_test spool-only SPOOL_DIR READY_FILE N — database down: spool a run start and N events,
 *     write READY_FILE and sleep (store.sh kills it with SIGKILL)
 *   store_test recover SPOOL_DIR N — a new ingest flushes what the killed one left; check it */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <libpq-fe.h>

#include "keynode/purchase.h"
#include "store.h"
#include "store_internal.h" /* kn_store_begin / kn_store_rollback: the reconnect rule inside a transaction */
#include "verdict.h"

static const char *pg_url;
static kn_store *st;

static const char *const evil[] = {
	"'; DROP TABLE runs; --",
	"quote \" double ' single '' two",
	"back\\slash \\' \\\" \\\\ end\\",
	"unicode: ünïcødé ✓ 日本語 🙂 \u00a0",
	"$1 %s %n {\"a\":1} [] E'\\x41' ::text",
};
#define N_EVIL (sizeof evil / sizeof *evil)

static const char yaml_v1[] =
	"tasks:\n"
	"  - id: t-one\n"
	"    intent: \"buy red shoes\"\n"
	"    start_url: http://127.0.0.1:8100/shop/\n"
	"    key_nodes:\n"
	"      - url: { include: \"/shop/search\" }\n"
	"      - element_value: { path: \"#size\", exact: \"9\" }\n"
	"      - answer: { regex: \"^4[0-9]$\" }\n"
	"    steps:\n"
	"      - goto: http://127.0.0.1:8100/shop/\n"
	"      - type: { selector: \"#q\", value: \"red\", enter: true }\n"
	"      - click: { selector: \"#go\", text: \"Go\" }\n"
	"  - id: t-two\n"
	"    intent: \"read the forum\"\n"
	"    start_url: http://localhost:8100/forum/\n"
	"    key_nodes:\n"
	"      - url: { exact: \"http://localhost:8100/forum/\" }\n";

static kn_taskset *load_yaml(const char *text)
{
	kn_taskset *set = NULL;
	kn_err err;
	int rc = kn_taskset_load_buffer(&set, text, strlen(text), "test.yaml", NULL, &err);
	if (rc != 0)
		fail_msg("yaml: %s", err.msg);
	return set;
}

static json_t *parse(const char *text)
{
	json_error_t je;
	json_t *j = json_loads(text, 0, &je);
	if (!j)
		fail_msg("bad JSON from the store: %s: %.200s", je.text, text);
	return j;
}

static int64_t sql_int(const char *sql)
{
	PGconn *c = PQconnectdb(pg_url);
	PGresult *r = PQexec(c, sql);
	if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) < 1)
		fail_msg("%s: %s", sql, PQerrorMessage(c));
	int64_t v = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	PQclear(r);
	PQfinish(c);
	return v;
}

static void sql_exec(const char *sql)
{
	PGconn *c = PQconnectdb(pg_url);
	PGresult *r = PQexec(c, sql);
	if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK)
		fail_msg("%s: %s", sql, PQerrorMessage(c));
	PQclear(r);
	PQfinish(c);
}

static int64_t version_of(const char *ref)
{
	int64_t v = 0;
	kn_err err;
	assert_int_equal(kn_store_task_resolve(st, ref, &v, &err), 0);
	return v;
}

static void has_keys(const json_t *o, const char *const *keys)
{
	assert_true(json_is_object(o));
	for (; *keys; keys++)
		if (!json_object_get(o, *keys))
			fail_msg("missing key '%s' in %s", *keys, json_dumps(o, JSON_COMPACT));
}

/* ---- migrations ------------------------------------------------------------------------------ */

static void test_migrate_rerun(void **state)
{
	(void)state;
	kn_err err;
	int applied = -1, v = 0;
	assert_int_equal(kn_store_migrate(st, NULL, &applied, &err), 0);
	assert_int_equal(applied, 0); /* the group setup applied them */
	assert_int_equal(kn_store_migrate(st, KN_SQL_DIR, &applied, &err), 0);
	assert_int_equal(applied, 0);
	assert_int_equal(kn_store_schema_version(st, &v, &err), 0);
	assert_true(v >= 1);
	assert_int_equal(sql_int("SELECT max(version) FROM schema_migrations"), v);
}

static void test_migrate_failure_rolls_back(void **state)
{
	(void)state;
	char dir[] = "/tmp/kn-mig-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[256];
	snprintf(path, sizeof path, "%s/900_half.sql", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("CREATE TABLE kn_half (a int);\nINSERT INTO kn_half VALUES (1);\nSELECT no_such_fn();\n", f);
	fclose(f);
	kn_err err;
	int applied = -1, v0, v1;
	assert_int_equal(kn_store_schema_version(st, &v0, &err), 0);
	assert_int_equal(kn_store_migrate(st, dir, &applied, &err), KN_EDB);
	assert_non_null(strstr(err.msg, "900_half.sql:3"));
	assert_non_null(strstr(err.msg, "no_such_fn"));
	assert_int_equal(kn_store_schema_version(st, &v1, &err), 0);
	assert_int_equal(v0, v1);
	assert_int_equal(sql_int("SELECT (to_regclass('kn_half') IS NULL)::int"), 1);
	unlink(path);
	/* a directory without migrations and one that does not exist */
	assert_int_equal(kn_store_migrate(st, dir, &applied, &err), KN_ENOTFOUND);
	rmdir(dir);
	assert_int_equal(kn_store_migrate(st, "/nonexistent/kn", &applied, &err), KN_EIO);
}

struct mig_arg {
	char url[512];
	int applied, rc;
};

static void *migrate_thread(void *p)
{
	struct mig_arg *a = p;
	kn_store *s;
	kn_err err;
	a->rc = kn_store_open(&s, a->url, &err);
	if (a->rc == 0) {
		a->rc = kn_store_migrate(s, NULL, &a->applied, &err);
		kn_store_free(s);
	}
	return NULL;
}

static void test_migrate_concurrent(void **state)
{
	(void)state;
	sql_exec("DROP DATABASE IF EXISTS keynode_mig");
	sql_exec("CREATE DATABASE keynode_mig");
	struct mig_arg a[3];
	pthread_t th[3];
	for (int i = 0; i < 3; i++) {
		memset(&a[i], 0, sizeof a[i]);
		snprintf(a[i].url, sizeof a[i].url, "%s dbname=keynode_mig", pg_url);
		pthread_create(&th[i], NULL, migrate_thread, &a[i]);
	}
	int total = 0;
	for (int i = 0; i < 3; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(a[i].rc, 0);
		total += a[i].applied;
	}
	/* each migration ran exactly once across the three */
	assert_int_equal(total, sql_int("SELECT count(*) FROM schema_migrations"));
}

/* ---- tasks -------------------------------------------------------------------------------- */

static void test_task_versions(void **state)
{
	(void)state;
	kn_err err;
	kn_taskset *set = load_yaml(yaml_v1);
	int64_t sid = 0;
	size_t fresh = 99;
	assert_int_equal(kn_store_taskset_put(st, "shop", "shop.yaml", set, &sid, &fresh, &err), 0);
	assert_true(sid > 0);
	assert_int_equal(fresh, 2);
	assert_int_equal(kn_store_taskset_put(st, "shop", "shop.yaml", set, &sid, &fresh, &err), 0);
	assert_int_equal(fresh, 0);
	int64_t v1 = version_of("t-one"), v1q = version_of("shop:t-one");
	assert_int_equal(v1, v1q);

	kn_store_run run = {"r-versions-old", v1, "agent", NULL, "2026-11-22T10:00:00Z", NULL};
	assert_int_equal(kn_store_run_start(st, &run, &err), 0);

	/* the stored definition loads back as the same task */
	kn_taskset *back = NULL;
	assert_int_equal(kn_store_task_load(st, v1, &back, &err), 0);
	char *a, *b;
	assert_int_equal(kn_store_task_json(&a, kn_taskset_find(set, "t-one")), 0);
	assert_int_equal(kn_store_task_json(&b, &back->tasks[0]), 0);
	assert_string_equal(a, b);
	assert_int_equal(back->tasks[0].n_keynodes, 3);
	assert_non_null(back->tasks[0].keynodes[2].regex);
	free(a);
	free(b);
	kn_taskset_free(back);

	/* change one task: a new version for it only */
	char *v2text = strdup(yaml_v1);
	char *p = strstr(v2text, "buy red shoes");
	memcpy(p, "buy RED shoes", 13);
	kn_taskset *set2 = load_yaml(v2text);
	free(v2text);
	assert_int_equal(kn_store_taskset_put(st, "shop", "shop.yaml", set2, &sid, &fresh, &err), 0);
	assert_int_equal(fresh, 1);
	int64_t v2 = version_of("t-one");
	assert_true(v2 != v1);
	assert_int_equal(sql_int("SELECT task_version FROM runs WHERE id = 'r-versions-old'"), v1);
	assert_int_equal(kn_store_task_load(st, v1, &back, &err), 0);
	assert_string_equal(back->tasks[0].intent, "buy red shoes");
	kn_taskset_free(back);
	assert_int_equal(kn_store_task_load(st, v2, &back, &err), 0);
	assert_string_equal(back->tasks[0].intent, "buy RED shoes");
	kn_taskset_free(back);

	char *js;
	assert_int_equal(kn_store_task_get_json(st, "t-one", &js, &err), 0);
	json_t *t = parse(js);
	free(js);
	static const char *const task_keys[] = {"id", "intent", "start_url", "reference_length", "answer",
		"key_nodes", "steps", "taskset", "version", "versions", "health", "runs", "replays", NULL};
	has_keys(t, task_keys);
	assert_int_equal(json_integer_value(json_object_get(t, "version")), 2);
	assert_int_equal(json_integer_value(json_object_get(t, "versions")), 2);
	assert_string_equal(json_string_value(json_object_get(t, "intent")), "buy RED shoes");
	assert_int_equal(json_array_size(json_object_get(t, "runs")), 1);
	json_t *kn0 = json_array_get(json_object_get(t, "key_nodes"), 0);
	static const char *const kn_keys[] = {"id", "target", "matcher", "expect", "key", "netloc", "path",
		"function", NULL};
	has_keys(kn0, kn_keys);
	json_decref(t);

	assert_int_equal(kn_store_task_resolve(st, "no-such-task", &v1, &err), KN_ENOTFOUND);
	assert_int_equal(kn_store_task_resolve(st, "nope:t-one", &v1, &err), KN_ENOTFOUND);
	assert_int_equal(kn_store_task_get_json(st, "no-such-task", &js, &err), KN_ENOTFOUND);
	kn_taskset_free(set);
	kn_taskset_free(set2);
}

/* ---- hostile strings everywhere ----------------------------------------------------------------- */

/* A task's purchase: survives the stored definition (runs through serve score the reward from it). */
static void test_task_purchase(void **state)
{
	(void)state;
	kn_err err;
	kn_taskset *set = load_yaml("tasks:\n"
	                            "  - id: p-shoe\n"
	                            "    intent: buy a blue shoe\n"
	                            "    key_nodes:\n"
	                            "      - url: { include: \"/product\" }\n"
	                            "    purchase:\n"
	                            "      type: trail running shoe\n"
	                            "      attributes: [waterproof, lightweight]\n"
	                            "      options: { color: blue, size: 9 }\n"
	                            "      price_max: 60\n"
	                            "      buy: \"#buy\"\n"
	                            "      read: { title: \"#title\" }\n");
	int64_t sid = 0;
	size_t fresh = 0;
	assert_int_equal(kn_store_taskset_put(st, "purchase", "p.yaml", set, &sid, &fresh, &err), 0);
	kn_taskset *back = NULL;
	assert_int_equal(kn_store_task_load(st, version_of("purchase:p-shoe"), &back, &err), 0);
	const kn_purchase *p = back->tasks[0].purchase;
	assert_non_null(p);
	assert_string_equal(p->type, "trail running shoe");
	assert_int_equal(p->n_attributes, 2);
	assert_string_equal(p->attributes[1], "lightweight");
	assert_int_equal(p->n_options, 2);
	assert_string_equal(p->options[0].field, "color");
	assert_string_equal(p->options[1].value, "9");
	assert_true(p->price_max == 60);
	assert_string_equal(p->buy, "#buy");
	assert_string_equal(p->read_title, "#title");
	assert_null(p->read_price);
	char *a, *b;
	assert_int_equal(kn_store_task_json(&a, &set->tasks[0]), 0);
	assert_int_equal(kn_store_task_json(&b, &back->tasks[0]), 0);
	assert_string_equal(a, b);
	free(a);
	free(b);
	kn_taskset_free(back);
	kn_taskset_free(set);
}

static void test_injection_verbatim(void **state)
{
	(void)state;
	kn_err err;
	for (size_t i = 0; i < N_EVIL; i++) {
		const char *s = evil[i];
		/* task set name, task id, intent through a YAML document */
		json_t *doc = json_pack("{s:[{s:s, s:s, s:s, s:[{s:{s:s}}]}]}", "tasks", "id", s, "intent", s,
		                        "start_url", "http://127.0.0.1:1/x", "key_nodes", "answer", "include", s);
		char *text = json_dumps(doc, 0); /* JSON is YAML */
		json_decref(doc);
		kn_taskset *set = load_yaml(text);
		free(text);
		char setname[300];
		snprintf(setname, sizeof setname, "evil %zu %s", i, s);
		for (char *c = setname; *c; c++)
			if (*c == ':')
				*c = ';'; /* a set name cannot hold the TASKSET:TASK separator */
		assert_int_equal(kn_store_taskset_put(st, setname, s, set, NULL, NULL, &err), 0);
		kn_taskset_free(set);
		char ref[700];
		snprintf(ref, sizeof ref, "%s:%s", setname, s);
		int64_t v = version_of(ref);
		char *js;
		assert_int_equal(kn_store_task_get_json(st, ref, &js, &err), 0);
		json_t *t = parse(js);
		free(js);
		assert_string_equal(json_string_value(json_object_get(t, "id")), s);
		assert_string_equal(json_string_value(json_object_get(t, "intent")), s);
		assert_string_equal(json_string_value(json_object_get(t, "taskset")), setname);
		json_decref(t);

		/* run id, browser, event line, result */
		char run_id[300];
		snprintf(run_id, sizeof run_id, "r-%zu-%s", i, s);
		kn_store_run run = {run_id, v, "agent", s, "2026-11-22T11:00:00Z", NULL};
		assert_int_equal(kn_store_run_start(st, &run, &err), 0);
		json_t *ev = json_pack("{s:f, s:s, s:s}", "t", 0.5, "type", "answer", "text", s);
		char *line = json_dumps(ev, JSON_COMPACT);
		json_decref(ev);
		const char *lines[1] = {line};
		assert_int_equal(kn_store_events_append(st, run_id, 1, lines, 1, &err), 0);
		json_t *res = json_pack("{s:s, s:s, s:s, s:i, s:i, s:i, s:f, s:b, s:f, s:[{s:s, s:s, s:f}]}",
			"task", s, "run", run_id, "status", "finished", "steps", 1, "reached", 1, "total", 1,
			"score", 1.0, "completion", 1, "efficiency", 1.0, "key_nodes", "id", s, "function", s,
			"score", 1.0);
		char *rtext = json_dumps(res, JSON_COMPACT);
		json_decref(res);
		assert_int_equal(kn_store_run_finish(st, run_id, "2026-11-22T11:00:05Z", rtext, &err), 0);
		free(rtext);
		assert_int_equal(kn_store_run_get_json(st, run_id, &js, &err), 0);
		json_t *r = parse(js);
		free(js);
		assert_string_equal(json_string_value(json_object_get(r, "run")), run_id);
		assert_string_equal(json_string_value(json_object_get(r, "browser")), s);
		json_t *e0 = json_array_get(json_object_get(r, "events"), 0);
		assert_string_equal(json_string_value(json_object_get(e0, "text")), s);
		json_t *k0 = json_array_get(json_object_get(r, "key_nodes"), 0);
		assert_string_equal(json_string_value(json_object_get(k0, "id")), s);
		json_decref(r);
		free(line);

		/* alert dedupe key, title, detail */
		int64_t aid = 0;
		json_t *det = json_pack("{s:s}", "why", s);
		char *dtext = json_dumps(det, JSON_COMPACT);
		json_decref(det);
		assert_int_equal(kn_store_alert_put(st, s, "warning", s, dtext, &aid, &err), 1);
		free(dtext);
		assert_int_equal(kn_store_alert_delivery(st, aid, s, 1, 1, s, &err), 0);
		assert_int_equal(kn_store_alerts_json(st, 0, 1000, &js, &err), 0);
		json_t *al = parse(js);
		free(js);
		int found = 0;
		size_t k;
		json_t *a;
		json_array_foreach(json_object_get(al, "alerts"), k, a) {
			if (json_integer_value(json_object_get(a, "id")) != aid)
				continue;
			found = 1;
			assert_string_equal(json_string_value(json_object_get(a, "title")), s);
			assert_string_equal(json_string_value(json_object_get(json_object_get(a, "detail"), "why")), s);
			json_t *d0 = json_array_get(json_object_get(a, "deliveries"), 0);
			assert_string_equal(json_string_value(json_object_get(d0, "channel")), s);
		}
		assert_true(found);
		json_decref(al);
		assert_int_equal(kn_store_alert_ack(st, aid, &err), 0);

		/* verdicts */
		double score = 0;
		assert_int_equal(kn_store_verdict_put(st, s, 1, s, s, 0.25, s, &err), 0);
		assert_int_equal(kn_store_verdict_get(st, s, 1, s, s, &score, &err), 1);
		assert_true(score == 0.25);

		/* job worker name */
		int64_t jid;
		kn_store_job job;
		assert_int_equal(kn_store_job_enqueue(st, v, s, &jid, &err), 0);
		int got;
		do
			got = kn_store_job_claim(st, s, 60, &job, &err);
		while (got == 1 && job.id != jid && kn_store_job_complete(st, job.id, s, "passed", NULL, NULL, NULL, 0,
		                                                            NULL, &err) == 0);
		assert_int_equal(got, 1);
		assert_string_equal(job.schedule, s);
		assert_int_equal(kn_store_job_complete(st, jid, s, "passed", NULL, "{}", NULL, 0, NULL, &err), 0);
	}
	/* and the tables are all still there */
	assert_true(sql_int("SELECT count(*) FROM runs") >= (int64_t)N_EVIL);
	assert_true(sql_int("SELECT count(*) FROM events") >= (int64_t)N_EVIL);
}

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

static void test_events_once(void **state)
{
	(void)state;
	kn_err err;
	kn_store_run run = {"r-events", version_of("t-two"), "replay", "http://127.0.0.1:9222",
	                    "2026-11-22T12:00:00Z", NULL};
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

static void test_run_finish_idempotent(void **state)
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
	assert_int_equal(kn_store_runs_json(st, "t-two", 10, &js, &err), 0);
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

static void test_jobs_lease(void **state)
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
	assert_int_equal(kn_store_replays_json(st, "t-one", 10, &js, &err), 0);
	t = parse(js);
	free(js);
	json_t *reps = json_object_get(t, "replays");
	assert_int_equal(json_array_size(reps), 2);
	has_keys(json_array_get(reps, 1), rp_keys);
	assert_true(json_is_true(json_object_get(json_array_get(reps, 1), "screenshot")));
	assert_int_equal(json_integer_value(json_object_get(json_array_get(reps, 1), "job")), jid);
	json_decref(t);
	assert_int_equal(kn_store_replays_json(st, "no-such-task", 10, &js, &err), KN_ENOTFOUND);
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

static void test_jobs_concurrent_claims(void **state)
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

static void test_health(void **state)
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

static void test_alerts_notify(void **state)
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
	assert_int_equal(kn_store_alerts_json(st, 0, 1000, &js, &err), 0);
	json_t *j = parse(js);
	free(js);
	size_t i;
	json_t *x;
	json_array_foreach(json_object_get(j, "alerts"), i, x)
		assert_true(json_integer_value(json_object_get(x, "id")) != id1);
	json_decref(j);
	assert_int_equal(kn_store_alerts_json(st, 1, 1000, &js, &err), 0);
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

static void test_verdicts(void **state)
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

static void test_ingest_live(void **state)
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
		kn_store_run run = {ids[r], v, "agent", NULL, "2026-11-22T13:00:00Z", NULL};
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
static void test_ingest_down_cap(void **state)
{
	(void)state;
	kn_err err;
	char dir[] = "/tmp/kn-spool-cap-XXXXXX";
	assert_non_null(mkdtemp(dir));
	kn_ingest_opts o = {.conninfo = "host=/nonexistent-kn port=1 dbname=x", .spool_dir = dir,
	                    .spool_max_bytes = 8192, .retry_ms = 50};
	kn_ingest *in;
	assert_int_equal(kn_ingest_new(&in, &o, &err), 0);
	kn_store_run run = {"r-cap", 1, "agent", NULL, "2026-11-22T16:00:00Z", NULL};
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
static void test_connection_loss(void **state)
{
	(void)state;
	kn_err err;
	kn_store *s;
	char *js = NULL;
	int64_t jid = 0, n0, n1, v = version_of("t-one");
	assert_int_equal(kn_store_open(&s, pg_url, &err), 0);
	unsigned long s0 = kn_store_session(s);
	drop_idle("idle"); /* the suite's own connection too: its next read reconnects as well */
	assert_int_equal(kn_store_runs_json(s, NULL, 1, &js, &err), 0);
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
	assert_int_equal(kn_store_runs_json(s, NULL, 1, &js, &err), KN_EIO);
	assert_null(js);
	assert_int_equal(kn_store_runs_json(s, NULL, 1, &js, &err), KN_EIO); /* still in it */
	kn_store_rollback(s);
	assert_int_equal(kn_store_runs_json(s, NULL, 1, &js, &err), 0);
	free(js);
	assert_int_equal(kn_store_session(s), s0 + 3);
	kn_store_free(s);
	assert_int_equal(kn_store_open(&s, "host=/nonexistent-kn port=1 dbname=x", &err), KN_EIO);
	assert_non_null(strstr(err.msg, "cannot connect"));
}

static int group_setup(void **state)
{
	(void)state;
	kn_err err;
	if (kn_store_open(&st, pg_url, &err) != 0) {
		fprintf(stderr, "store_test: %s\n", err.msg);
		return -1;
	}
	int applied = 0;
	if (kn_store_migrate(st, NULL, &applied, &err) != 0) {
		fprintf(stderr, "store_test: %s\n", err.msg);
		return -1;
	}
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	kn_store_free(st);
	return 0;
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

static void ingest_log(void *ud, const char *level, const char *msg)
{
	(void)ud;
	fprintf(stderr, "level=%s component=ingest msg=\"%s\"\n", level, msg);
}

static int mode_outage(const char *dir, const char *ready, const char *go, long n)
{
	kn_store *s;
	int64_t v = prepare(&s);
	kn_err err;
	kn_ingest_opts o = {.conninfo = pg_url, .spool_dir = dir, .retry_ms = 200, .log = ingest_log};
	kn_ingest *in;
	if (kn_ingest_new(&in, &o, &err) != 0) {
		fprintf(stderr, "store_test: %s\n", err.msg);
		return 1;
	}
	kn_store_run run = {"r-outage", v, "agent", NULL, "2026-11-22T14:00:00Z", NULL};
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

static int mode_spool_only(const char *dir, const char *ready, long n)
{
	kn_err err;
	kn_ingest_opts o = {.conninfo = pg_url, .spool_dir = dir, .retry_ms = 200, .log = ingest_log};
	kn_ingest *in;
	if (kn_ingest_new(&in, &o, &err) != 0) {
		fprintf(stderr, "store_test: %s\n", err.msg);
		return 1;
	}
	/* the task version of the durability set, from the earlier mode; passed as an env var */
	const char *ver = getenv("KN_TASK_VERSION");
	kn_store_run run = {"r-killed", ver ? strtoll(ver, NULL, 10) : 1, "agent", NULL, "2026-11-22T15:00:00Z", NULL};
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

static int mode_recover(const char *dir, long n)
{
	kn_store *s;
	prepare(&s);
	kn_err err;
	kn_ingest_opts o = {.conninfo = pg_url, .spool_dir = dir, .retry_ms = 200, .log = ingest_log};
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

static int mode_version(void)
{
	kn_store *s;
	printf("%" PRId64 "\n", prepare(&s));
	kn_store_free(s);
	return 0;
}

int main(int argc, char **argv)
{
	pg_url = getenv("KN_PG_URL");
	if (!pg_url) {
		fprintf(stderr, "store_test: set KN_PG_URL (store.sh does)\n");
		return 1;
	}
	if (argc >= 6 && strcmp(argv[1], "outage") == 0)
		return mode_outage(argv[2], argv[3], argv[4], atol(argv[5]));
	if (argc >= 5 && strcmp(argv[1], "spool-only") == 0)
		return mode_spool_only(argv[2], argv[3], atol(argv[4]));
	if (argc >= 4 && strcmp(argv[1], "recover") == 0)
		return mode_recover(argv[2], atol(argv[3]));
	if (argc >= 2 && strcmp(argv[1], "version") == 0)
		return mode_version();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_migrate_rerun),
		cmocka_unit_test(test_migrate_failure_rolls_back),
		cmocka_unit_test(test_migrate_concurrent),
		cmocka_unit_test(test_task_versions),
		cmocka_unit_test(test_task_purchase),
		cmocka_unit_test(test_injection_verbatim),
		cmocka_unit_test(test_events_once),
		cmocka_unit_test(test_run_finish_idempotent),
		cmocka_unit_test(test_jobs_lease),
		cmocka_unit_test(test_jobs_concurrent_claims),
		cmocka_unit_test(test_health),
		cmocka_unit_test(test_alerts_notify),
		cmocka_unit_test(test_verdicts),
		cmocka_unit_test(test_ingest_live),
		cmocka_unit_test(test_ingest_down_cap),
		cmocka_unit_test(test_connection_loss),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
