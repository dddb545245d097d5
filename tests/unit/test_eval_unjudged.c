/* test_eval_unjudged.c — a judge outage is never the agent's failure: a key node whose judgement
 * failed (an error, a score outside [0, 1], a deferred verdict that failed or never came) makes the
 * run `unjudged` with its evidence, unless the run finished anyway or errored or was blocked; an
 * unjudged run is left out of the metrics and counted apart (kn_summary_add); a re-score with a
 * working judge gives the real verdict; and every status says whose it is (kn_status_fault). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "kn_test.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "keynode/eval.h"

/* k1: a deterministic URL node; k2: a semantic answer node (the judged one). */
static const char doc[] = "tasks:\n"
                          "  - id: t\n"
                          "    intent: find the answer\n"
                          "    key_nodes:\n"
                          "      - url: { include: \"/a\" }\n"
                          "      - answer: { semantic: \"Decide whether the answer is forty-two\" }\n";

/* The judge under test: fails with rc and words when rc != 0, else answers score. It outlives the
 * evaluators that use it (the result names it). */
struct judge {
	kn_semantic sem;
	int rc;
	double score;
	const char *words;
	int calls;
};

static int fake_judge(void *ud, const char *rule, const char *phrase, const char *input,
                      double *score, kn_err *err)
{
	(void)rule, (void)phrase, (void)input;
	struct judge *j = ud;
	j->calls++;
	if (j->rc)
		return kn_err_set(err, j->rc, "%s", j->words);
	*score = j->score;
	return 0;
}

static kn_taskset *load(void)
{
	kn_taskset *set;
	kn_err err = {0};
	if (kn_taskset_load_buffer(&set, doc, strlen(doc), "t.yaml", NULL, &err) != 0)
		fail_msg("load: %s", err.msg);
	return set;
}

static const kn_event nav_a = {.type = KN_EV_NAVIGATE, .url = "http://x/a", .how = "goto", .trusted = -1};
static const kn_event nav_b = {.type = KN_EV_NAVIGATE, .url = "http://x/b", .how = "goto", .trusted = -1};
static const kn_event answer = {.type = KN_EV_ANSWER, .text = "42", .trusted = -1};

/* Score events with judge j (the name "llm:test"); *failures: what kn_eval_run counted. */
static kn_eval *score(const kn_task *t, struct judge *j, const kn_event *events, size_t n,
                      size_t *failures)
{
	j->sem = (kn_semantic){.judge = fake_judge, .ud = j, .name = "llm:test"};
	kn_eval_opts o = {.semantic = &j->sem};
	kn_eval *ev = NULL;
	kn_err err = {0};
	size_t f = 0;
	assert_int_equal(kn_eval_run(&ev, t, &o, events, n, &f, &err), 0);
	if (failures)
		*failures = f;
	return ev;
}

/* The result's member name as text (NULL when absent). */
static const char *member(const json_t *j, const char *name)
{
	return json_string_value(json_object_get(j, name));
}

/* HTTP 402 from the judge: unjudged with the key node, the judge and the error; a re-score with a
 * judge that answers gives the real verdict, either way. */
static void test_outage_then_rescore(void **state)
{
	(void)state;
	kn_taskset *set = load();
	const kn_event run[] = {nav_a, answer};
	struct judge down = {.rc = KN_EIO, .words = "llm: HTTP 402: insufficient credit"};
	size_t failures = 0;
	kn_eval *ev = score(&set->tasks[0], &down, run, 2, &failures);
	assert_int_equal(failures, 1);
	assert_int_equal(kn_eval_status(ev), KN_STATUS_UNJUDGED);
	assert_int_equal(kn_eval_unjudged(ev), 1);
	assert_string_equal(kn_eval_fault(ev), "judge");
	assert_string_equal(kn_status_name(KN_STATUS_UNJUDGED), "unjudged");
	json_t *j = kn_eval_result_json(ev, "r1");
	assert_string_equal(member(j, "status"), "unjudged");
	assert_string_equal(member(j, "fault"), "judge");
	assert_string_equal(member(j, "reason"), "judge failed");
	json_t *u = json_object_get(j, "unjudged");
	assert_string_equal(member(u, "judge"), "llm:test");
	json_t *k = json_array_get(json_object_get(u, "key_nodes"), 0);
	assert_string_equal(member(k, "id"), "k2");
	assert_string_equal(member(k, "error"), "llm: HTTP 402: insufficient credit");
	assert_int_equal(json_array_size(json_object_get(u, "key_nodes")), 1);
	json_decref(j);
	kn_eval_free(ev);

	struct judge yes = {.score = 0.9}, no = {.score = 0.1};
	ev = score(&set->tasks[0], &yes, run, 2, &failures);
	assert_int_equal(failures, 0);
	assert_int_equal(kn_eval_status(ev), KN_STATUS_FINISHED);
	assert_null(kn_eval_fault(ev));
	j = kn_eval_result_json(ev, "r1");
	assert_null(json_object_get(j, "unjudged"));
	assert_null(json_object_get(j, "fault"));
	json_decref(j);
	kn_eval_free(ev);
	ev = score(&set->tasks[0], &no, run, 2, NULL);
	assert_int_equal(kn_eval_status(ev), KN_STATUS_INCOMPLETE);
	assert_string_equal(kn_eval_fault(ev), "agent");
	kn_eval_free(ev);
	kn_taskset_free(set);
}

/* A score outside [0, 1] breaks the judge's contract: a failed judgement, not a clamped 1. */
static void test_out_of_range(void **state)
{
	(void)state;
	kn_taskset *set = load();
	const kn_event run[] = {nav_a, answer};
	const double bad[] = {1.7, -0.2};
	for (size_t i = 0; i < 2; i++) {
		struct judge j = {.score = bad[i]};
		size_t failures = 0;
		kn_eval *ev = score(&set->tasks[0], &j, run, 2, &failures);
		assert_int_equal(failures, 1);
		assert_int_equal(kn_eval_status(ev), KN_STATUS_UNJUDGED);
		assert_double_equal(kn_eval_reached(ev), 1, 0);
		json_t *r = kn_eval_result_json(ev, "r");
		const char *e = member(json_array_get(json_object_get(json_object_get(r, "unjudged"), "key_nodes"), 0),
		                       "error");
		assert_non_null(e);
		assert_non_null(strstr(e, "outside [0, 1]"));
		json_decref(r);
		kn_eval_free(ev);
	}
	kn_taskset_free(set);
}

/* "Depends on": a failed deterministic node does not make the judged one irrelevant (the key-node
 * score still depends on it); a later check that reaches the node does; error and blocked are the
 * infrastructure's and the site's whatever the judge said; the step budget does not hide it. */
static void test_depends_on(void **state)
{
	(void)state;
	kn_taskset *set = load();
	struct judge down = {.rc = KN_ETIMEOUT, .words = "llm: timed out after 30000 ms"};

	const kn_event failed_k1[] = {nav_b, answer};
	kn_eval *ev = score(&set->tasks[0], &down, failed_k1, 2, NULL);
	assert_int_equal(kn_eval_status(ev), KN_STATUS_UNJUDGED);
	kn_eval_set_blocked(ev, "{\"kind\": \"captcha\"}");
	assert_int_equal(kn_eval_status(ev), KN_STATUS_BLOCKED);
	assert_string_equal(kn_eval_fault(ev), "site");
	kn_eval_set_blocked(ev, NULL);
	kn_eval_set_error(ev);
	assert_int_equal(kn_eval_status(ev), KN_STATUS_ERROR);
	assert_string_equal(kn_eval_fault(ev), "infrastructure");
	kn_eval_free(ev);

	/* the judge fails on the first answer, answers the second: the node is reached, no outage */
	struct judge flaky = {.rc = KN_EIO, .words = "llm: HTTP 500"};
	kn_semantic sem = {.judge = fake_judge, .ud = &flaky, .name = "llm:test"};
	kn_eval_opts o = {.semantic = &sem};
	assert_int_equal(kn_eval_new(&ev, &set->tasks[0], &o), 0);
	kn_err err = {0};
	assert_int_equal(kn_eval_feed(ev, &nav_a, &err), 1);
	assert_true(kn_eval_feed(ev, &answer, &err) < 0);
	assert_int_equal(kn_eval_status(ev), KN_STATUS_UNJUDGED);
	flaky.rc = 0, flaky.score = 1;
	assert_int_equal(kn_eval_feed(ev, &answer, &err), 1);
	assert_int_equal(kn_eval_status(ev), KN_STATUS_FINISHED);
	assert_int_equal(kn_eval_unjudged(ev), 0);
	kn_eval_free(ev);

	/* past the step budget: still the judge's, not step_limit */
	kn_eval_opts lim = {.semantic = &sem, .step_limit = 2};
	flaky.rc = KN_EIO;
	assert_int_equal(kn_eval_new(&ev, &set->tasks[0], &lim), 0);
	assert_true(kn_eval_feed(ev, &answer, &err) < 0);
	for (int i = 0; i < 3; i++)
		kn_eval_feed(ev, &nav_b, &err);
	assert_int_equal(kn_eval_status(ev), KN_STATUS_UNJUDGED);
	kn_eval_free(ev);
	kn_taskset_free(set);
}

/* A failed judgement had after all (the same input again, the judge back) no longer counts; another
 * input's failure still does, with its own words. */
static void test_retried(void **state)
{
	(void)state;
	kn_taskset *set = load();
	struct judge j = {.rc = KN_EIO, .words = "llm: HTTP 500"};
	j.sem = (kn_semantic){.judge = fake_judge, .ud = &j, .name = "llm:test"};
	kn_eval_opts o = {.semantic = &j.sem};
	kn_eval *ev;
	kn_err err = {0};
	const kn_event other = {.type = KN_EV_ANSWER, .text = "41", .trusted = -1};
	assert_int_equal(kn_eval_new(&ev, &set->tasks[0], &o), 0);
	assert_true(kn_eval_feed(ev, &answer, &err) < 0);  /* "42": HTTP 500 */
	j.words = "llm: HTTP 429";
	assert_true(kn_eval_feed(ev, &other, &err) < 0);   /* "41": HTTP 429 */
	assert_int_equal(kn_eval_status(ev), KN_STATUS_UNJUDGED);
	j.rc = 0, j.score = 0.1;
	assert_int_equal(kn_eval_feed(ev, &other, &err), 0); /* "41" judged after all: 0.1 */
	assert_int_equal(kn_eval_status(ev), KN_STATUS_UNJUDGED); /* "42" still not */
	json_t *r = kn_eval_result_json(ev, "r");
	assert_string_equal(member(json_array_get(json_object_get(json_object_get(r, "unjudged"), "key_nodes"), 0),
	                           "error"), "llm: HTTP 500");
	json_decref(r);
	assert_int_equal(kn_eval_feed(ev, &answer, &err), 0); /* "42" judged after all: 0.1 */
	assert_int_equal(kn_eval_unjudged(ev), 0);
	assert_int_equal(kn_eval_status(ev), KN_STATUS_INCOMPLETE); /* the agent's, now that it is known */
	kn_eval_free(ev);
	kn_taskset_free(set);
}

/* Unjudged runs are left out of the metrics and counted: the metrics are those of the same runs
 * without them. */
static void test_summary(void **state)
{
	(void)state;
	kn_taskset *set = load();
	struct judge up = {.score = 0.95}, down = {.rc = KN_EIO, .words = "llm: HTTP 429"};
	const kn_event ok[] = {nav_a, answer}, half[] = {nav_b, answer};
	kn_eval *a = score(&set->tasks[0], &up, ok, 2, NULL);      /* finished */
	kn_eval *b = score(&set->tasks[0], &up, half, 2, NULL);    /* incomplete: 1 of 2 */
	kn_eval *c = score(&set->tasks[0], &down, half, 2, NULL);  /* unjudged */
	kn_eval *d = score(&set->tasks[0], &down, ok, 2, NULL);    /* unjudged */
	kn_summary with, without;
	kn_summary_init(&with);
	kn_summary_init(&without);
	kn_summary_add(&with, a), kn_summary_add(&with, c), kn_summary_add(&with, b), kn_summary_add(&with, d);
	kn_summary_add(&without, a), kn_summary_add(&without, b);
	kn_summary_finish(&with);
	kn_summary_finish(&without);
	assert_int_equal(with.tasks, 2);
	assert_int_equal(with.n_unjudged, 2);
	assert_int_equal(with.n_error + with.n_blocked, 0);
	assert_int_equal(without.n_unjudged, 0);
	assert_double_equal(with.task_success_rate, 0.5, 1e-12);
	assert_double_equal(with.key_node_completion_rate, without.key_node_completion_rate, 0);
	assert_double_equal(with.average_step_score_rate, without.average_step_score_rate, 0);
	assert_double_equal(with.task_near_success_rate, without.task_near_success_rate, 0);
	assert_double_equal(with.efficiency_score, without.efficiency_score, 0);
	kn_eval_free(a), kn_eval_free(b), kn_eval_free(c), kn_eval_free(d);
	kn_taskset_free(set);
}

static int defer_ok(void *ud, const char *rule, const char *phrase, const char *input)
{
	(void)ud, (void)rule, (void)phrase, (void)input;
	return 0;
}

/* Deferred judgements (the watch/serve/run judge): a failed verdict with the judge's words, a
 * score out of range, and a verdict that never came are each unjudged; a late good verdict is not. */
static void test_deferred(void **state)
{
	(void)state;
	kn_taskset *set = load();
	const char *rule = set->tasks[0].keynodes[1].expect;
	kn_err err = {0};
	for (int way = 0; way < 4; way++) {
		kn_eval_opts o = {.defer = defer_ok};
		kn_eval *ev;
		assert_int_equal(kn_eval_new(&ev, &set->tasks[0], &o), 0);
		kn_eval_feed(ev, &nav_a, &err);
		kn_eval_feed(ev, &answer, &err);
		assert_int_equal(kn_eval_pending(ev), 1);
		assert_int_equal(kn_eval_status(ev), KN_STATUS_INCOMPLETE); /* waiting is not failing */
		if (way == 0)
			kn_eval_verdict_detail(ev, rule, "42", KN_EIO, 0, "llm: HTTP 402: insufficient credit");
		else if (way == 1)
			kn_eval_verdict(ev, rule, "42", 0, 1.7);
		else if (way == 2)
			kn_eval_verdicts_abandon(ev);
		else
			kn_eval_verdict(ev, rule, "42", 0, 0.9);
		json_t *j = kn_eval_result_json(ev, "r");
		const char *e = member(json_array_get(json_object_get(json_object_get(j, "unjudged"), "key_nodes"), 0),
		                       "error");
		if (way == 3) {
			assert_int_equal(kn_eval_status(ev), KN_STATUS_FINISHED);
			assert_null(e);
		} else {
			assert_int_equal(kn_eval_status(ev), KN_STATUS_UNJUDGED);
			assert_non_null(e);
			assert_non_null(strstr(e, way == 0 ? "HTTP 402" : way == 1 ? "outside [0, 1]" : "no verdict came"));
		}
		json_decref(j);
		kn_eval_free(ev);
	}
	kn_taskset_free(set);
}

/* Whose each status is; which are left out of the metrics. */
static void test_faults(void **state)
{
	(void)state;
	assert_null(kn_status_fault(KN_STATUS_FINISHED));
	assert_string_equal(kn_status_fault(KN_STATUS_INCOMPLETE), "agent");
	assert_string_equal(kn_status_fault(KN_STATUS_STEP_LIMIT), "agent");
	assert_string_equal(kn_status_fault(KN_STATUS_BLOCKED), "site");
	assert_string_equal(kn_status_fault(KN_STATUS_BROKEN), "site");
	assert_string_equal(kn_status_fault(KN_STATUS_ERROR), "infrastructure");
	assert_string_equal(kn_status_fault(KN_STATUS_UNJUDGED), "judge");
	assert_false(kn_status_excluded(KN_STATUS_INCOMPLETE));
	assert_false(kn_status_excluded(KN_STATUS_STEP_LIMIT));
	assert_false(kn_status_excluded(KN_STATUS_FINISHED));
	assert_true(kn_status_excluded(KN_STATUS_UNJUDGED));
	assert_true(kn_status_excluded(KN_STATUS_BLOCKED));
	assert_true(kn_status_excluded(KN_STATUS_ERROR));

	kn_taskset *set = load();
	kn_eval *ev;
	assert_int_equal(kn_eval_new(&ev, &set->tasks[0], NULL), 0);
	assert_int_equal(kn_eval_set_unreachable(ev, "{\"url\": \"http://x/\", \"error\": "
	                                             "\"net::ERR_CONNECTION_REFUSED\", \"step\": 0}"), 0);
	assert_int_equal(kn_eval_status(ev), KN_STATUS_ERROR);
	assert_string_equal(kn_eval_fault(ev), "site"); /* the task's own site did not answer */
	kn_eval_free(ev);
	kn_taskset_free(set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_outage_then_rescore),
		cmocka_unit_test(test_out_of_range),
		cmocka_unit_test(test_depends_on),
		cmocka_unit_test(test_retried),
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_deferred),
		cmocka_unit_test(test_faults),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
