/* test_eval_defer.c — deferred semantic judgements (eval_defer.c): the same events scored with a
 * synchronous judge and with verdicts brought later — at once, at the end, in reverse, in a
 * shuffled order, one event late — give the same result (scores, reached_at_step, step scores,
 * status), in both modes, for URL, typed/selected value, answer, fuzzy-list and page checks; a
 * verdict nobody asked for or given twice changes nothing; a failed verdict scores 0; abandoned
 * verdicts are recorded as missing; a judge that cannot be asked counts as a failure. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "kn_test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "keynode/eval.h"

static const char tasks_yaml[] =
	"tasks:\n"
	"  - id: t\n"
	"    intent: shoes\n"
	"    reference_length: 4\n"
	"    key_nodes:\n"
	"      - url: { key: q, semantic: \"searching for red running shoes\" }\n"
	"      - url: { include: /cart }\n"
	"      - element_value: { semantic: \"typed the name Ada\" }\n"
	"      - answer: { semantic: \"the answer is forty two\" }\n"
	"      - answer: { fuzzy: [\"blue\", \"navy\"] }\n"
	"      - page: { url: last, locator: \"js:document.title\", include: \"Thank you\" }\n";

/* The fake judge: a deterministic score from the input's text. */
static double fake_score(const char *input)
{
	if (strstr(input, "red running") || strstr(input, "Ada") || strstr(input, "42") ||
	    strstr(input, "blue") || strstr(input, "navy") || strstr(input, "Thank"))
		return 0.95;
	if (strstr(input, "running"))
		return 0.5;
	return 0.05;
}

static int sync_judge(void *ud, const char *rule, const char *phrase, const char *input,
                      double *score, kn_err *err)
{
	(void)ud, (void)rule, (void)phrase, (void)err;
	if (strstr(input, "FAIL"))
		return KN_EIO;
	*score = fake_score(input);
	return 0;
}

static const kn_semantic fake = {sync_judge, NULL, "fake", NULL};

struct asked {
	char *rule[64], *input[64];
	int n;
	int refuse; /* defer answers KN_EIO */
};

static int defer_cb(void *ud, const char *rule, const char *phrase, const char *input)
{
	(void)phrase;
	struct asked *a = ud;
	if (a->refuse)
		return KN_EIO;
	assert_true(a->n < 64);
	a->rule[a->n] = strdup(rule);
	a->input[a->n] = strdup(input);
	a->n++;
	return 0;
}

/* Deliver asked verdicts [from, to) in order (rev: reversed). */
static void deliver(kn_eval *ev, struct asked *a, int from, int to, int rev)
{
	for (int k = 0; k < to - from; k++) {
		int i = rev ? to - 1 - k : from + k;
		int rc = strstr(a->input[i], "FAIL") ? KN_EIO : 0;
		assert_true(kn_eval_verdict(ev, a->rule[i], a->input[i], rc, fake_score(a->input[i])) >= 0);
	}
}

static void asked_clear(struct asked *a)
{
	for (int i = 0; i < a->n; i++)
		free(a->rule[i]), free(a->input[i]);
	a->n = 0;
}

static kn_event act(kn_event_type type, const char *url, const char *sel, const char *text,
                    const char *value)
{
	return (kn_event){.type = type, .url = url, .selector = sel, .text = text, .value = value,
	                  .trusted = -1};
}

#define N_EVENTS 9
static kn_event script(int i)
{
	switch (i) {
	case 0: return act(KN_EV_NAVIGATE, "http://s/find?q=running", NULL, NULL, NULL);
	case 1: return act(KN_EV_TYPE, "http://s/find?q=running", "#name", NULL, "Bob FAIL");
	case 2: return act(KN_EV_CLICK, "http://s/find?q=running", "#go", "Go", NULL);
	case 3: return act(KN_EV_NAVIGATE, "http://s/find?q=red+running+shoes", NULL, NULL, NULL);
	case 4: return act(KN_EV_SELECT, "http://s/find?q=red+running+shoes", "#who", "Ada", "u7");
	case 5: return act(KN_EV_CLICK, "http://s/cart", "#cart", "Cart", NULL);
	case 6: return act(KN_EV_ANSWER, "http://s/cart", NULL, "green", NULL);
	case 7: return act(KN_EV_TYPE, "http://s/cart", "#name", NULL, "Ada");
	default: return act(KN_EV_ANSWER, "http://s/cart", NULL, "42, navy", NULL);
	}
}

/* The result as JSON, without the deferral's own "verdicts" object. */
static json_t *result_of(kn_eval *ev)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(kn_eval_write_result(ev, "r", f), 0);
	fclose(f);
	json_t *j = json_loads(buf, 0, NULL);
	free(buf);
	assert_non_null(j);
	json_object_del(j, "verdicts");
	json_t *n;
	size_t i;
	json_array_foreach(json_object_get(j, "key_nodes"), i, n)
		json_object_del(n, "verdict"); /* what a synchronous result does not say */
	return j;
}

static void assert_same(json_t *a, json_t *b)
{
	json_t *sa = json_object_get(a, "step_scores"), *sb = json_object_get(b, "step_scores");
	assert_int_equal(json_array_size(sa), json_array_size(sb));
	for (size_t i = 0; i < json_array_size(sa); i++)
		assert_double_equal(json_number_value(json_array_get(sa, i)),
		                    json_number_value(json_array_get(sb, i)), 1e-9);
	json_t *ca = json_deep_copy(a), *cb = json_deep_copy(b);
	json_object_del(ca, "step_scores");
	json_object_del(cb, "step_scores");
	json_object_del(ca, "efficiency");
	json_object_del(cb, "efficiency");
	json_object_set_new(ca, "reached", json_real(round(json_number_value(json_object_get(a, "reached")) * 1e9)));
	json_object_set_new(cb, "reached", json_real(round(json_number_value(json_object_get(b, "reached")) * 1e9)));
	json_object_set_new(ca, "score", json_real(round(json_number_value(json_object_get(a, "score")) * 1e9)));
	json_object_set_new(cb, "score", json_real(round(json_number_value(json_object_get(b, "score")) * 1e9)));
	if (!json_equal(ca, cb)) {
		char *x = json_dumps(ca, JSON_SORT_KEYS), *y = json_dumps(cb, JSON_SORT_KEYS);
		fprintf(stderr, "results differ:\n sync     %s\n deferred %s\n", x, y);
		fail();
	}
	json_decref(ca);
	json_decref(cb);
}

/* The run scored synchronously. */
static json_t *sync_result(const kn_task *t, kn_mode mode)
{
	kn_eval_opts o = {.mode = mode, .semantic = &fake};
	kn_eval *ev;
	assert_int_equal(kn_eval_new(&ev, t, &o), 0);
	kn_err err = {0};
	for (int i = 0; i < N_EVENTS; i++) {
		kn_event e = script(i);
		kn_eval_feed(ev, &e, &err);
	}
	kn_eval_page_result(ev, 5, "Thank you for your order", NULL, &err);
	json_t *j = result_of(ev);
	kn_eval_free(ev);
	return j;
}

enum how { AT_ONCE, AT_END, REVERSED, ONE_LATE };

static json_t *deferred_result(const kn_task *t, kn_mode mode, enum how how, size_t *asked_n)
{
	struct asked a = {0};
	kn_eval_opts o = {.mode = mode, .semantic = &fake, .defer = defer_cb, .defer_ud = &a};
	kn_eval *ev;
	assert_int_equal(kn_eval_new(&ev, t, &o), 0);
	kn_err err = {0};
	int done = 0;
	for (int i = 0; i < N_EVENTS; i++) {
		kn_event e = script(i);
		assert_true(kn_eval_feed(ev, &e, &err) >= 0);
		if (how == AT_ONCE || (how == ONE_LATE && i > 0)) {
			int upto = how == AT_ONCE ? a.n : done + (a.n - done > 0 ? 1 : 0);
			deliver(ev, &a, done, upto, 0);
			done = upto;
		}
	}
	assert_int_equal(kn_eval_page_result(ev, 5, "Thank you for your order", NULL, &err), 0);
	/* fuzzy lists ask for their next reference only once the previous came: deliver until quiet */
	while (done < a.n) {
		int upto = a.n;
		deliver(ev, &a, done, upto, how == REVERSED);
		done = upto;
	}
	assert_int_equal(kn_eval_pending(ev), 0);
	json_t *j = result_of(ev);
	*asked_n = (size_t)a.n;
	kn_eval_verdicts v;
	kn_eval_verdicts_get(ev, &v);
	assert_int_equal(v.asked, a.n);
	assert_int_equal(v.answered + v.failed, a.n);
	assert_int_equal(v.failed, 1); /* "Bob FAIL" */
	kn_eval_free(ev);
	asked_clear(&a);
	return j;
}

static void test_same_as_sync(void **state)
{
	(void)state;
	kn_taskset *set;
	kn_err err = {0};
	assert_int_equal(kn_taskset_load_buffer(&set, tasks_yaml, strlen(tasks_yaml), "t.yaml", NULL, &err), 0);
	for (int mode = 0; mode < 2; mode++) {
		json_t *s = sync_result(&set->tasks[0], mode ? KN_MODE_WEBCANVAS : KN_MODE_DEFAULT);
		/* the run reaches something only a verdict can give */
		assert_true(json_number_value(json_object_get(s, "reached")) >= 3);
		for (int how = AT_ONCE; how <= ONE_LATE; how++) {
			size_t n = 0;
			json_t *d = deferred_result(&set->tasks[0], mode ? KN_MODE_WEBCANVAS : KN_MODE_DEFAULT,
			                            (enum how)how, &n);
			assert_true(n >= 5);
			assert_same(s, d);
			json_decref(d);
		}
		json_decref(s);
	}
	kn_taskset_free(set);
}

/* Nothing is scored before its verdict; a late one lands at its step; unknown and repeated
 * verdicts change nothing. */
static void test_placement(void **state)
{
	(void)state;
	kn_taskset *set;
	kn_err err = {0};
	assert_int_equal(kn_taskset_load_buffer(&set, tasks_yaml, strlen(tasks_yaml), "t.yaml", NULL, &err), 0);
	struct asked a = {0};
	kn_eval_opts o = {.semantic = &fake, .defer = defer_cb, .defer_ud = &a};
	kn_eval *ev;
	assert_int_equal(kn_eval_new(&ev, &set->tasks[0], &o), 0);
	kn_event e = act(KN_EV_NAVIGATE, "http://s/find?q=red+running+shoes", NULL, NULL, NULL);
	assert_int_equal(kn_eval_feed(ev, &e, &err), 0);
	e = act(KN_EV_CLICK, "http://s/x", "#a", NULL, NULL);
	assert_int_equal(kn_eval_feed(ev, &e, &err), 0);
	e = act(KN_EV_CLICK, "http://s/cart", "#b", NULL, NULL);
	assert_int_equal(kn_eval_feed(ev, &e, &err), 1); /* the include node, no judge needed */
	assert_int_equal(a.n, 1);
	assert_int_equal(kn_eval_pending(ev), 1);
	assert_double_equal(kn_eval_node(ev, 0)->score, 0, 0);
	assert_int_equal(kn_eval_verdict(ev, "nobody asked", a.input[0], 0, 1), 0);
	assert_int_equal(kn_eval_verdict(ev, a.rule[0], a.input[0], 0, 0.9), 1);
	assert_int_equal(kn_eval_verdict(ev, a.rule[0], a.input[0], 0, 0.9), 0); /* twice */
	assert_double_equal(kn_eval_node(ev, 0)->score, 1, 0);
	assert_int_equal(kn_eval_node(ev, 0)->reached_at_step, 0); /* before any step */
	size_t n;
	const double *ss = kn_eval_step_scores(ev, &n);
	assert_int_equal(n, 2);
	assert_double_equal(ss[0], 1.0 / 6, 1e-12);
	assert_double_equal(ss[1], 2.0 / 6, 1e-12);
	kn_eval_free(ev);
	asked_clear(&a);
	kn_taskset_free(set);
}

/* Verdicts that never come are recorded as missing; a judge that cannot be asked is a failure. */
static void test_missing_and_refused(void **state)
{
	(void)state;
	kn_taskset *set;
	kn_err err = {0};
	assert_int_equal(kn_taskset_load_buffer(&set, tasks_yaml, strlen(tasks_yaml), "t.yaml", NULL, &err), 0);
	struct asked a = {0};
	kn_eval_opts o = {.semantic = &fake, .defer = defer_cb, .defer_ud = &a};
	kn_eval *ev;
	assert_int_equal(kn_eval_new(&ev, &set->tasks[0], &o), 0);
	kn_event e = act(KN_EV_ANSWER, "http://s/", NULL, "42", NULL);
	kn_eval_feed(ev, &e, &err);
	assert_int_equal(kn_eval_pending(ev), 2); /* the semantic answer and the fuzzy list */
	kn_eval_verdicts_abandon(ev);
	assert_int_equal(kn_eval_pending(ev), 0);
	assert_int_equal(kn_eval_verdict(ev, a.rule[0], a.input[0], 0, 1), 0); /* too late */
	json_t *j = NULL;
	{
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		assert_int_equal(kn_eval_write_result(ev, "r", f), 0);
		fclose(f);
		j = json_loads(buf, 0, NULL);
		free(buf);
	}
	json_t *v = json_object_get(j, "verdicts");
	assert_int_equal(json_integer_value(json_object_get(v, "asked")), 2);
	assert_int_equal(json_integer_value(json_object_get(v, "missing")), 2);
	assert_int_equal(json_integer_value(json_object_get(v, "answered")), 0);
	json_t *nodes = json_object_get(j, "key_nodes");
	assert_string_equal(json_string_value(json_object_get(json_array_get(nodes, 3), "verdict")), "missing");
	assert_string_equal(json_string_value(json_object_get(json_array_get(nodes, 4), "verdict")), "missing");
	assert_null(json_object_get(json_array_get(nodes, 0), "verdict"));
	assert_double_equal(json_number_value(json_object_get(j, "score")), 0, 0);
	json_decref(j);
	kn_eval_free(ev);
	asked_clear(&a);

	a.refuse = 1;
	assert_int_equal(kn_eval_new(&ev, &set->tasks[0], &o), 0);
	e = act(KN_EV_TYPE, "http://s/", "#n", NULL, "Ada");
	assert_true(kn_eval_feed(ev, &e, &err) < 0); /* as a synchronous failure */
	kn_eval_verdicts w;
	kn_eval_verdicts_get(ev, &w);
	assert_int_equal(w.asked, 1);
	assert_int_equal(w.failed, 1);
	assert_int_equal(w.pending, 0);
	kn_eval_free(ev);
	kn_taskset_free(set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_as_sync),
		cmocka_unit_test(test_placement),
		cmocka_unit_test(test_missing_and_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
