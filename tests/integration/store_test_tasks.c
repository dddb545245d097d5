/* store_test_tasks.c — store_test (store_test.c): migrations, task versions, SQL injection and
 * odd strings in every text parameter stored and read back verbatim. */
#include "keynode/guard.h"
#include "keynode/request.h"
#include "store_test.h"

static const char *const evil[] = {
	"'; DROP TABLE runs; --",
	"quote \" double ' single '' two",
	"back\\slash \\' \\\" \\\\ end\\",
	"unicode: ünïcødé ✓ 日本語 🙂 \u00a0",
	"$1 %s %n {\"a\":1} [] E'\\x41' ::text",
};
#define N_EVIL (sizeof evil / sizeof *evil)

/* ---- migrations ------------------------------------------------------------------------------ */

void test_migrate_rerun(void **state)
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

void test_migrate_failure_rolls_back(void **state)
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

void test_migrate_concurrent(void **state)
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

void test_task_versions(void **state)
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

	kn_store_run run = {"r-versions-old", v1, "agent", NULL, "2026-11-22T10:00:00Z", NULL, 0};
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
void test_task_purchase(void **state)
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

/* a request key node, the guard rules (the task's and its set's) and a guarded workflow's
 * held request and secret step survive the stored definition (workers replay from it). */
void test_task_guard(void **state)
{
	(void)state;
	kn_err err;
	kn_taskset *set = load_yaml("guard:\n"
	                            "  - { method: POST, url: { include: /api/beacon }, respond: error }\n"
	                            "tasks:\n"
	                            "  - id: g-order\n"
	                            "    intent: order two lamps\n"
	                            "    key_nodes:\n"
	                            "      - request: { method: POST, url: { include: /api/orders },\n"
	                            "                   body: { qty: { exact: \"2\" }, card.cvc: { regex: \"^7\" } } }\n"
	                            "    end_on_guard: false\n"
	                            "    guard:\n"
	                            "      - { method: POST, url: { include: /api/orders }, respond: { status: 202, body: held } }\n"
	                            "    steps:\n"
	                            "      - goto: http://127.0.0.1:1/c.html\n"
	                            "      - type: { selector: \"#cvc\", secret: CVC }\n"
	                            "      - click: { selector: \"#buy\" }\n"
	                            "        after: { held: { method: POST, url: { include: \"127.0.0.1:1/api/orders\" },\n"
	                            "                         body: { qty: { exact: \"2\" } } } }\n");
	int64_t sid = 0;
	size_t fresh = 0;
	assert_int_equal(kn_store_taskset_put(st, "guarded", "g.yaml", set, &sid, &fresh, &err), 0);
	kn_taskset *back = NULL;
	assert_int_equal(kn_store_task_load(st, version_of("guarded:g-order"), &back, &err), 0);
	const kn_task *t = &back->tasks[0];
	assert_non_null(t->keynodes[0].request);
	assert_int_equal(t->keynodes[0].request->n_fields, 2);
	assert_string_equal(t->keynodes[0].request->fields[1].key, "card.cvc");
	assert_int_equal(t->keynodes[0].request->fields[1].matcher, KN_MATCH_REGEX);
	assert_non_null(t->guard);
	assert_int_equal(t->guard->n, 1); /* the task's rule; its set's are the loaded set's */
	assert_int_equal(t->guard->end_on_guard, 0);
	assert_int_equal(t->guard->rules[0].status, 202);
	assert_string_equal(t->guard->rules[0].body, "held");
	assert_non_null(t->set_guard);
	assert_ptr_equal(t->set_guard, back->guard);
	assert_int_equal(t->set_guard->n, 1);
	assert_int_equal(t->set_guard->rules[0].fail, 1);
	assert_string_equal(t->steps[1].secret, "CVC");
	assert_null(t->steps[1].value);
	assert_non_null(t->steps[2].held);
	assert_string_equal(t->steps[2].held->fields[0].expect, "2");
	/* a held request against the stored key node: the same match as the file's */
	kn_field f[] = {{"qty", "2"}, {"card.cvc", "731"}};
	kn_request q = {.method = "POST", .url = "http://127.0.0.1:1/api/orders", .fields = f, .n_fields = 2};
	assert_int_equal(kn_request_match(t->keynodes[0].request, &q, NULL, 0, &err), 1);
	f[0].value = "3";
	assert_int_equal(kn_request_match(t->keynodes[0].request, &q, NULL, 0, &err), 0);
	char *a, *b;
	assert_int_equal(kn_store_task_json(&a, &set->tasks[0]), 0);
	assert_int_equal(kn_store_task_json(&b, t), 0);
	assert_string_equal(a, b);
	free(a);
	free(b);
	kn_taskset_free(back);
	kn_taskset_free(set);
}

void test_injection_verbatim(void **state)
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
		kn_store_run run = {run_id, v, "agent", s, "2026-11-22T11:00:00Z", NULL, 0};
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
		assert_int_equal(kn_store_alerts_json(st, 0, NULL, 1000, &js, &err), 0);
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
