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
 *   store_test recover SPOOL_DIR N — a new ingest flushes what the killed one left; check it
 *
 * This file holds the shared fixture (store_test.h) and main; the tests are in store_test_tasks.c,
 * store_test_runs.c and store_test_ingest.c (with the durability modes). */
#include "store_test.h"

const char *pg_url;
kn_store *st;

const char yaml_v1[] =
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

kn_taskset *load_yaml(const char *text)
{
	kn_taskset *set = NULL;
	kn_err err;
	int rc = kn_taskset_load_buffer(&set, text, strlen(text), "test.yaml", NULL, &err);
	if (rc != 0)
		fail_msg("yaml: %s", err.msg);
	return set;
}

json_t *parse(const char *text)
{
	json_error_t je;
	json_t *j = json_loads(text, 0, &je);
	if (!j)
		fail_msg("bad JSON from the store: %s: %.200s", je.text, text);
	return j;
}

int64_t sql_int(const char *sql)
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

void sql_exec(const char *sql)
{
	PGconn *c = PQconnectdb(pg_url);
	PGresult *r = PQexec(c, sql);
	if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK)
		fail_msg("%s: %s", sql, PQerrorMessage(c));
	PQclear(r);
	PQfinish(c);
}

int64_t version_of(const char *ref)
{
	int64_t v = 0;
	kn_err err;
	assert_int_equal(kn_store_task_resolve(st, ref, &v, &err), 0);
	return v;
}

void has_keys(const json_t *o, const char *const *keys)
{
	assert_true(json_is_object(o));
	for (; *keys; keys++)
		if (!json_object_get(o, *keys))
			fail_msg("missing key '%s' in %s", *keys, json_dumps(o, JSON_COMPACT));
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
		cmocka_unit_test(test_task_guard),
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
