/* test_eval.c — the evaluator and the dataset metrics: the shared conformance example, latching,
 * step scores, both modes, the step budget, site gates, live `matched` lists, and each metric on a
 * hand-worked example. */
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

#define CONF KN_SHARED_DIR "/conformance/"

static kn_taskset *load(const char *doc)
{
	kn_taskset *set;
	kn_err err = {0};
	if (kn_taskset_load_buffer(&set, doc, strlen(doc), "t.json", NULL, &err) != 0)
		fail_msg("load: %s", err.msg);
	return set;
}

static kn_event ev_nav(const char *url, const char *how)
{
	return (kn_event){.type = KN_EV_NAVIGATE, .url = url, .how = how, .trusted = -1};
}

static kn_event ev_act(kn_event_type type, const char *url, const char *sel, const char *text,
                       const char *value)
{
	return (kn_event){.type = type, .url = url, .selector = sel, .text = text, .value = value,
	                  .trusted = -1};
}

static void feed(kn_eval *ev, kn_event e)
{
	kn_err err = {0};
	if (kn_eval_feed(ev, &e, &err) < 0)
		fail_msg("feed: %s", err.msg);
}

/* The shared conformance example: every number of expected.json, from the recorded runs. */
static void test_conformance(void **state)
{
	(void)state;
	kn_taskset *set;
	kn_err err = {0};
	assert_int_equal(kn_taskset_load_file(&set, CONF "tasks.json", NULL, &err), 0);
	json_error_t je;
	json_t *exp = json_load_file(CONF "expected.json", 0, &je);
	assert_non_null(exp);
	kn_summary sum;
	kn_summary_init(&sum);
	json_t *results = json_object_get(exp, "results"), *r;
	size_t i;
	json_array_foreach(results, i, r) {
		const char *id = json_string_value(json_object_get(r, "task"));
		char path[512];
		snprintf(path, sizeof path, CONF "runs/%s.jsonl", id);
		kn_traj_header hdr;
		kn_event *events;
		size_t n;
		assert_int_equal(kn_traj_read_file(path, &hdr, &events, &n, &err), 0);
		assert_string_equal(hdr.task, id);
		kn_eval *ev;
		assert_int_equal(kn_eval_new(&ev, kn_taskset_find(set, id), NULL), 0);
		for (size_t k = 0; k < n; k++)
			assert_true(kn_eval_feed(ev, &events[k], &err) >= 0);
		assert_int_equal(kn_eval_steps(ev), json_integer_value(json_object_get(r, "steps")));
		assert_double_equal(kn_eval_reached(ev), json_number_value(json_object_get(r, "reached")), 1e-12);
		assert_int_equal(kn_eval_total(ev), json_integer_value(json_object_get(r, "total")));
		assert_double_equal(kn_eval_score(ev), json_number_value(json_object_get(r, "score")), 1e-12);
		assert_int_equal(kn_eval_completed(ev), json_is_true(json_object_get(r, "completion")));
		assert_double_equal(kn_eval_efficiency(ev), json_number_value(json_object_get(r, "efficiency")), 1e-12);
		kn_summary_add(&sum, ev);
		kn_eval_free(ev);
		kn_traj_events_free(events, n);
		kn_traj_header_clear(&hdr);
	}
	kn_summary_finish(&sum);
	json_t *s = json_object_get(exp, "summary");
	assert_int_equal(sum.tasks, json_integer_value(json_object_get(s, "tasks")));
	assert_double_equal(sum.key_node_completion_rate, json_number_value(json_object_get(s, "key_node_completion_rate")), 1e-12);
	assert_double_equal(sum.average_step_score_rate, json_number_value(json_object_get(s, "average_step_score_rate")), 1e-12);
	assert_double_equal(sum.task_success_rate, json_number_value(json_object_get(s, "task_success_rate")), 1e-12);
	assert_double_equal(sum.task_near_success_rate, json_number_value(json_object_get(s, "task_near_success_rate")), 1e-12);
	assert_double_equal(sum.efficiency_score, json_number_value(json_object_get(s, "efficiency_score")), 1e-12);
	json_decref(exp);
	kn_taskset_free(set);
}

static const char shop[] =
	"[{\"index\": 1, \"task\": \"t\", \"reference_task_length\": 4, \"evaluation\": ["
	"{\"match_function_name\": \"url_included_match\", \"content\": {\"key\": \"\", \"reference_answer\": \"/cart\"}},"
	"{\"match_function_name\": \"url_exactly_match\", \"content\": {\"key\": \"q\", \"reference_answer\": \"red shoes\"}},"
	"{\"match_function_name\": \"element_path_exactly_match\", \"method\": \"selector\", \"content\": {\"reference_answer\": \"#add \", \"netloc\": \"shop\"}},"
	"{\"match_function_name\": \"element_value_exactly_match\", \"content\": {\"reference_answer\": \"9\", \"path\": \"#size\", \"netloc\": \"shop\"}}]}]";

/* Scores only rise; leaving a page keeps what it gave; consequences credit the causing step. */
static void test_latching_and_step_scores(void **state)
{
	(void)state;
	kn_taskset *set = load(shop);
	kn_eval *ev;
	assert_int_equal(kn_eval_new(&ev, &set->tasks[0], NULL), 0);
	feed(ev, ev_nav("http://www.shop.com/", "goto"));                                  /* step 1 */
	feed(ev, ev_act(KN_EV_TYPE, "http://www.shop.com/", "#q", NULL, "red shoes"));     /* step 2 */
	feed(ev, ev_act(KN_EV_PRESS, "http://www.shop.com/", "#q", NULL, NULL));           /* step 3 */
	feed(ev, ev_nav("http://www.shop.com/s?q=red+shoes&q=blue", "form"));             /* k2 */
	assert_int_equal(kn_eval_node(ev, 1)->reached_at_step, 3);
	feed(ev, ev_nav("http://www.shop.com/s?q=other", "goto"));                         /* step 4 */
	assert_double_equal(kn_eval_node(ev, 1)->score, 1.0, 0);                           /* latched */
	feed(ev, ev_act(KN_EV_SELECT, "http://www.shop.com/p/1", "#size", "Size 9", "9")); /* step 5, k4 */
	feed(ev, ev_act(KN_EV_CLICK, "http://www.shop.com/p/1", "#add", "Add", NULL));     /* step 6, k3 */
	feed(ev, ev_nav("http://www.shop.com/cart", "link"));                              /* k1 */
	assert_int_equal(kn_eval_steps(ev), 6);
	assert_int_equal(kn_eval_status(ev), KN_STATUS_FINISHED);
	size_t n;
	const double *sc = kn_eval_step_scores(ev, &n);
	double want[] = {0, 0, 0.25, 0.25, 0.5, 1.0};
	assert_int_equal(n, 6);
	for (size_t i = 0; i < n; i++)
		assert_double_equal(sc[i], want[i], 1e-12);
	assert_int_equal(kn_eval_node(ev, 0)->reached_at_step, 6);
	assert_double_equal(kn_eval_efficiency(ev), 6.0 / 4.0, 1e-12);
	kn_eval_free(ev);
	kn_taskset_free(set);
}

/* kn_eval_run (keynode score and POST /api/rescore) is the evaluator fed the events in order: the
 * same result as feeding them one by one, no judge failure offline. */
static void test_run(void **state)
{
	(void)state;
	kn_taskset *set = load(shop);
	kn_event evs[] = {ev_nav("http://www.shop.com/", "goto"),
	                  ev_act(KN_EV_TYPE, "http://www.shop.com/", "#q", NULL, "red shoes"),
	                  ev_act(KN_EV_PRESS, "http://www.shop.com/", "#q", NULL, NULL),
	                  ev_nav("http://www.shop.com/s?q=red+shoes", "form"),
	                  ev_act(KN_EV_CLICK, "http://www.shop.com/p/1", "#add", "Add", NULL)};
	size_t n = sizeof evs / sizeof *evs, failures = 0;
	kn_eval *a, *b;
	kn_err err = {0};
	assert_int_equal(kn_eval_run(&a, &set->tasks[0], NULL, evs, n, &failures, &err), 0);
	assert_int_equal(kn_eval_new(&b, &set->tasks[0], NULL), 0);
	for (size_t i = 0; i < n; i++)
		feed(b, evs[i]);
	assert_int_equal(failures, 0);
	assert_int_equal(kn_eval_steps(a), kn_eval_steps(b));
	assert_double_equal(kn_eval_score(a), 0.5, 1e-12); /* the query and the add button */
	assert_double_equal(kn_eval_score(a), kn_eval_score(b), 0);
	assert_int_equal(kn_eval_status(a), kn_eval_status(b));
	kn_eval_free(a);
	kn_eval_free(b);
	assert_int_equal(kn_eval_run(&a, &set->tasks[0], NULL, NULL, 0, NULL, &err), 0); /* no events */
	assert_double_equal(kn_eval_score(a), 0, 0);
	kn_eval_free(a);
	kn_taskset_free(set);
}

/* a person's events (a takeover from the live view, "human": true) are no steps and reach
 * nothing; the same node reached later by the agent counts, at the agent's step. */
static void test_human_events(void **state)
{
	(void)state;
	kn_taskset *set = load(shop);
	kn_eval *ev;
	assert_int_equal(kn_eval_new(&ev, &set->tasks[0], NULL), 0);
	feed(ev, ev_nav("http://www.shop.com/", "goto"));                                  /* step 1 */
	kn_event h = ev_act(KN_EV_CLICK, "http://www.shop.com/p/1", "#add", "Add", NULL);  /* k3, the person's */
	h.human = 1;
	feed(ev, h);
	kn_event hn = ev_nav("http://www.shop.com/cart", "goto");                           /* k1, the person's */
	hn.human = 1;
	feed(ev, hn);
	assert_int_equal(kn_eval_steps(ev), 1);
	assert_double_equal(kn_eval_score(ev), 0, 0);
	assert_int_equal(kn_eval_node(ev, 2)->reached_at_step, -1);
	json_t *j = kn_eval_result_json(ev, "r");
	assert_int_equal(json_integer_value(json_object_get(j, "human_events")), 2);
	json_decref(j);
	feed(ev, ev_act(KN_EV_CLICK, "http://www.shop.com/p/1", "#add", "Add", NULL));     /* step 2, k3 */
	assert_int_equal(kn_eval_steps(ev), 2);
	assert_int_equal(kn_eval_node(ev, 2)->reached_at_step, 2);
	assert_double_equal(kn_eval_score(ev), 0.25, 1e-12);
	kn_eval_free(ev);
	/* and kn_eval_run (keynode score, serve's rescoring) the same */
	kn_event evs[] = {ev_nav("http://www.shop.com/", "goto"), h, hn};
	kn_err err = {0};
	assert_int_equal(kn_eval_run(&ev, &set->tasks[0], NULL, evs, 3, NULL, &err), 0);
	assert_double_equal(kn_eval_score(ev), 0, 0);
	assert_int_equal(kn_eval_steps(ev), 1);
	kn_eval_free(ev);
	/* without "human" the same events are the agent's */
	assert_int_equal(kn_eval_new(&ev, &set->tasks[0], NULL), 0);
	h.human = hn.human = 0;
	feed(ev, h);
	feed(ev, hn);
	assert_double_equal(kn_eval_score(ev), 0.5, 1e-12);
	j = kn_eval_result_json(ev, "r");
	assert_null(json_object_get(j, "human_events"));
	json_decref(j);
	kn_eval_free(ev);
	kn_taskset_free(set);
}

/* netloc gates element nodes to the site; a path must match before the value counts; a live
 * `matched` list replaces selector comparison. */
static void test_gates_and_matched(void **state)
{
	(void)state;
	kn_taskset *set = load(shop);
	kn_eval *ev;
	assert_int_equal(kn_eval_new(&ev, &set->tasks[0], NULL), 0);
	feed(ev, ev_act(KN_EV_CLICK, "http://www.other.com/", "#add", "Add", NULL)); /* wrong site */
	feed(ev, ev_act(KN_EV_SELECT, "http://www.shop.com/", "#colour", NULL, "9")); /* wrong path */
	assert_double_equal(kn_eval_reached(ev), 0, 0);
	const char *const none[] = {"k9"};
	kn_event e = ev_act(KN_EV_CLICK, "http://www.shop.com/", "#add", "Add", NULL);
	e.matched = none; /* the live page said: #add did not resolve to this element */
	e.n_matched = 1;
	feed(ev, e);
	assert_double_equal(kn_eval_node(ev, 2)->score, 0, 0);
	const char *const k3[] = {"k3"};
	e = ev_act(KN_EV_CLICK, "http://www.shop.com/", "span.icon", NULL, NULL);
	e.matched = k3; /* inner span, resolved to #add's ancestor tolerance in the page */
	e.n_matched = 1;
	feed(ev, e);
	assert_double_equal(kn_eval_node(ev, 2)->score, 1, 0);
	kn_eval_free(ev);
	kn_taskset_free(set);
}

/* Offline (no live `matched`): a plain CSS reference names the element in whichever tree it is,
 * so it matches a recorded piercing chain whose last part it is; a chain reference still needs the
 * whole chain, and a plain recorded selector never satisfies a chain reference. */
static void test_shadow_chains_offline(void **state)
{
	(void)state;
	const char *doc =
		"[{\"index\": 1, \"task\": \"t\", \"reference_task_length\": 3, \"evaluation\": ["
		"{\"match_function_name\": \"element_value_exactly_match\", \"content\": {\"reference_answer\": \"SPRING\", \"path\": \"#coupon\"}},"
		"{\"match_function_name\": \"element_path_exactly_match\", \"method\": \"selector\", \"content\": {\"reference_answer\": \"div > button.apply\"}},"
		"{\"match_function_name\": \"element_path_exactly_match\", \"method\": \"selector\", \"content\": {\"reference_answer\": \"coupon-box >> #remove\"}},"
		"{\"match_function_name\": \"element_path_included_match\", \"method\": \"selector\", \"content\": {\"reference_answer\": \"#gift\"}}]}]";
	kn_taskset *set = load(doc);
	kn_eval *ev;
	assert_int_equal(kn_eval_new(&ev, &set->tasks[0], NULL), 0);
	const char *u = "http://shop.test/checkout";
	feed(ev, ev_act(KN_EV_TYPE, u, "coupon-box >> #coupon-old", NULL, "SPRING")); /* another field */
	feed(ev, ev_act(KN_EV_CLICK, u, "coupon-box >> span > button.apply", "Apply", NULL));
	feed(ev, ev_act(KN_EV_CLICK, u, "#remove", "Remove", NULL)); /* a light-DOM #remove: not the chain's */
	feed(ev, ev_act(KN_EV_CLICK, u, "coupon-box >> [title=\"a >> b\"]", "x", NULL));
	for (size_t i = 0; i < 4; i++)
		assert_double_equal(kn_eval_node(ev, i)->score, 0, 0);
	feed(ev, ev_act(KN_EV_TYPE, u, "shop-checkout >> coupon-box >> #coupon", NULL, "SPRING"));
	assert_double_equal(kn_eval_node(ev, 0)->score, 1, 0);
	feed(ev, ev_act(KN_EV_CLICK, u, "coupon-box   >>   div>button.apply", "Apply", NULL)); /* normalised */
	assert_double_equal(kn_eval_node(ev, 1)->score, 1, 0);
	feed(ev, ev_act(KN_EV_CLICK, u, "coupon-box >> #remove", "Remove", NULL));
	assert_double_equal(kn_eval_node(ev, 2)->score, 1, 0);
	feed(ev, ev_act(KN_EV_CLICK, u, "gift-box >> #gift > span", "Gift", NULL)); /* include: a substring */
	assert_double_equal(kn_eval_node(ev, 3)->score, 1, 0);
	kn_eval_free(ev);
	kn_taskset_free(set);
}

/* webcanvas mode: a step is checked before its action, so a URL first seen after the last action
 * never counts, and semantic scores count as fractions. default mode counts both. */
static void test_modes(void **state)
{
	(void)state;
	const char *doc =
		"[{\"index\": 1, \"task\": \"t\", \"reference_task_length\": 2, \"evaluation\": ["
		"{\"match_function_name\": \"url_included_match\", \"content\": {\"key\": \"\", \"reference_answer\": \"/done\"}},"
		"{\"match_function_name\": \"url_semantic_match\", \"content\": {\"key\": \"q\", \"reference_answer\": \"Decide whether are searching for red running shoes\"}}]}]";
	kn_taskset *set = load(doc);
	for (int mode = 0; mode < 2; mode++) {
		kn_eval_opts o = {.mode = mode ? KN_MODE_WEBCANVAS : KN_MODE_DEFAULT};
		kn_eval *ev;
		assert_int_equal(kn_eval_new(&ev, &set->tasks[0], &o), 0);
		feed(ev, ev_nav("http://a.com/s?q=red+running+shoes", "goto"));
		feed(ev, ev_act(KN_EV_CLICK, "http://a.com/s?q=red+running+shoes", "#go", NULL, NULL));
		feed(ev, ev_nav("http://a.com/done", "link"));
		if (mode == 0) {
			assert_double_equal(kn_eval_reached(ev), 2.0, 0);
			assert_int_equal(kn_eval_status(ev), KN_STATUS_FINISHED);
		} else {
			/* the goto is checked on the blank page before it, the click on the search page:
			 * the semantic node counts, /done was only reached after the last action */
			assert_double_equal(kn_eval_node(ev, 0)->score, 0, 0);
			assert_double_equal(kn_eval_node(ev, 1)->score, 1, 0);
			assert_int_equal(kn_eval_status(ev), KN_STATUS_INCOMPLETE);
			feed(ev, (kn_event){.type = KN_EV_ANSWER, .text = "done", .url = "http://a.com/done", .trusted = -1});
			assert_double_equal(kn_eval_node(ev, 0)->score, 1, 0); /* the next step sees it */
		}
		kn_eval_free(ev);
	}
	/* a partial semantic match: fractional in webcanvas, 0 below threshold in default */
	for (int mode = 0; mode < 2; mode++) {
		kn_eval_opts o = {.mode = mode ? KN_MODE_WEBCANVAS : KN_MODE_DEFAULT};
		kn_eval *ev;
		assert_int_equal(kn_eval_new(&ev, &set->tasks[0], &o), 0);
		feed(ev, ev_act(KN_EV_SCROLL, "http://a.com/s?q=running+shoes", NULL, NULL, NULL));
		double s = kn_eval_node(ev, 1)->score;
		if (mode == 0)
			assert_double_equal(s, 0, 0);
		else
			assert_true(s > 0 && s < 1);
		assert_int_equal(kn_eval_node(ev, 1)->reached_at_step, -1);
		kn_eval_free(ev);
	}
	kn_taskset_free(set);
}

static void test_step_limit_and_error(void **state)
{
	(void)state;
	kn_taskset *set = load(shop); /* reference length 4: budget max(10, 6) = 10 */
	kn_eval *ev;
	assert_int_equal(kn_eval_new(&ev, &set->tasks[0], NULL), 0);
	for (int i = 0; i < 12; i++)
		feed(ev, ev_act(KN_EV_SCROLL, "http://www.shop.com/", NULL, NULL, NULL));
	feed(ev, ev_nav("http://www.shop.com/cart", "link")); /* after the budget: not evaluated */
	assert_int_equal(kn_eval_steps(ev), 10);
	assert_int_equal(kn_eval_ignored(ev), 2);
	assert_double_equal(kn_eval_reached(ev), 0, 0);
	assert_int_equal(kn_eval_status(ev), KN_STATUS_STEP_LIMIT);
	kn_eval_set_error(ev);
	assert_int_equal(kn_eval_status(ev), KN_STATUS_ERROR);
	kn_eval_free(ev);

	kn_eval_opts none = {.step_limit = -1};
	assert_int_equal(kn_eval_new(&ev, &set->tasks[0], &none), 0);
	for (int i = 0; i < 30; i++)
		feed(ev, ev_act(KN_EV_SCROLL, "http://www.shop.com/", NULL, NULL, NULL));
	assert_int_equal(kn_eval_steps(ev), 30);
	assert_int_equal(kn_eval_status(ev), KN_STATUS_INCOMPLETE);
	kn_eval_free(ev);
	kn_taskset_free(set);
}

/* Test judges: `recorder` remembers the input it was asked about (and scores 0), `fixed` gives
 * fixed_score whatever it is asked. */
static char last_judged[256];
static double fixed_score;

static int judge_recorder(void *ud, const char *rule, const char *phrase, const char *input,
                          double *score, kn_err *err)
{
	(void)ud, (void)rule, (void)phrase, (void)err;
	snprintf(last_judged, sizeof last_judged, "%s", input);
	*score = 0;
	return 0;
}

static int judge_fixed(void *ud, const char *rule, const char *phrase, const char *input,
                       double *score, kn_err *err)
{
	(void)ud, (void)rule, (void)phrase, (void)input, (void)err;
	*score = fixed_score;
	return 0;
}

static const kn_semantic recorder = {judge_recorder, NULL, "recorder", NULL};
static const kn_semantic fixed = {judge_fixed, NULL, "fixed", NULL};

/* A task whose one key node is reached on /late, reference length %d. */
#define LATE_DOC                                                                                    \
	"[{\"index\": 1, \"task\": \"t\", \"reference_task_length\": %d, \"evaluation\": ["             \
	"{\"match_function_name\": \"url_included_match\", \"content\": {\"key\": \"\", \"reference_answer\": \"/late\"}}]}]"

/* webcanvas mode runs upstream's loop: it stops at the step whose check completes the task, and
 * its budget is max(10, 1.5 × reference length) uncapped, plus 5 once after an "error" URL, with at
 * most 26 steps (evaluate_utils.py run_task). */
static void test_webcanvas_loop(void **state)
{
	(void)state;
	char buf[512];
	kn_eval_opts wc = {.mode = KN_MODE_WEBCANVAS};
	/* reference lengths 17 (budget 25), 18 (27: the 26th step runs) and 4 (10) */
	const int lens[] = {17, 18, 4}, budget[] = {25, 26, 10};
	for (int k = 0; k < 3; k++) {
		snprintf(buf, sizeof buf, LATE_DOC, lens[k]);
		kn_taskset *set = load(buf);
		kn_eval *ev;
		assert_int_equal(kn_eval_new(&ev, &set->tasks[0], &wc), 0);
		for (int i = 0; i < 25; i++)
			feed(ev, ev_act(KN_EV_SCROLL, "http://www.shop.com/", NULL, NULL, NULL));
		/* step 26 starts on /late: checked only when the budget allows a 26th step */
		for (int i = 0; i < 4; i++)
			feed(ev, ev_act(KN_EV_SCROLL, "http://www.shop.com/late", NULL, NULL, NULL));
		assert_int_equal(kn_eval_steps(ev), budget[k]);
		assert_int_equal(kn_eval_ignored(ev), 29 - budget[k]);
		assert_double_equal(kn_eval_reached(ev), budget[k] == 26 ? 1 : 0, 0);
		assert_int_equal(kn_eval_status(ev), budget[k] == 26 ? KN_STATUS_FINISHED : KN_STATUS_STEP_LIMIT);
		kn_eval_free(ev);
		/* default mode keeps the cap at 25 and counts every step it evaluates */
		assert_int_equal(kn_eval_new(&ev, &set->tasks[0], NULL), 0);
		for (int i = 0; i < 29; i++)
			feed(ev, ev_act(KN_EV_SCROLL, "http://www.shop.com/", NULL, NULL, NULL));
		assert_int_equal(kn_eval_steps(ev), budget[k] < 25 ? budget[k] : 25);
		kn_eval_free(ev);
		kn_taskset_free(set);
	}

	/* an "error" page left by step 3 adds 5 steps, once: a second one adds nothing */
	snprintf(buf, sizeof buf, LATE_DOC, 4);
	kn_taskset *set = load(buf);
	kn_eval *ev;
	assert_int_equal(kn_eval_new(&ev, &set->tasks[0], &wc), 0);
	feed(ev, ev_nav("http://www.shop.com/", "goto"));
	feed(ev, ev_act(KN_EV_SCROLL, "http://www.shop.com/", NULL, NULL, NULL));
	feed(ev, ev_nav("http://www.shop.com/error?e=1", "goto"));
	feed(ev, ev_nav("http://www.shop.com/error/again", "goto"));
	for (int i = 0; i < 20; i++)
		feed(ev, ev_act(KN_EV_SCROLL, "http://www.shop.com/", NULL, NULL, NULL));
	assert_int_equal(kn_eval_steps(ev), 15);
	assert_int_equal(kn_eval_status(ev), KN_STATUS_STEP_LIMIT);
	kn_eval_free(ev);

	/* the step that completes the task is the last one: efficiency counts the steps up to it */
	assert_int_equal(kn_eval_new(&ev, &set->tasks[0], &wc), 0);
	feed(ev, ev_nav("http://www.shop.com/late", "goto"));
	feed(ev, ev_act(KN_EV_SCROLL, "http://www.shop.com/late", NULL, NULL, NULL));
	for (int i = 0; i < 5; i++)
		feed(ev, ev_act(KN_EV_SCROLL, "http://www.shop.com/", NULL, NULL, NULL));
	assert_int_equal(kn_eval_steps(ev), 2);
	assert_int_equal(kn_eval_ignored(ev), 5);
	assert_double_equal(kn_eval_efficiency(ev), 2, 0);
	assert_int_equal(kn_eval_status(ev), KN_STATUS_FINISHED);
	kn_eval_free(ev);
	kn_taskset_free(set);
}

/* webcanvas mode reads URLs and values as upstream's step_score.py: query values decoded twice, the
 * include form from urlparse (";params" dropped), url_semantic_match without a key on the whole
 * URL, a select's value never the chosen option; the first step sees about:blank. */
static void test_webcanvas_inputs(void **state)
{
	(void)state;
	const char *doc =
		"[{\"index\": 1, \"task\": \"t\", \"reference_task_length\": 4, \"evaluation\": ["
		"{\"match_function_name\": \"url_exactly_match\", \"content\": {\"key\": \"q\", \"reference_answer\": \"red shoes\"}},"
		"{\"match_function_name\": \"url_included_match\", \"content\": {\"key\": \"\", \"reference_answer\": \"shop.com/cart;sid\"}},"
		"{\"match_function_name\": \"url_included_match\", \"content\": {\"key\": \"\", \"reference_answer\": \"blank\"}},"
		"{\"match_function_name\": \"element_value_exactly_match\", \"content\": {\"reference_answer\": \"2 adults\", \"path\": \"#guests\", \"netloc\": \"shop\"}},"
		"{\"match_function_name\": \"url_semantic_match\", \"content\": {\"key\": \"\", \"reference_answer\": \"Decide whether the content is about shop.com/cart\"}}]}]";
	kn_taskset *set = load(doc);
	for (int mode = 0; mode < 2; mode++) {
		kn_eval_opts o = {.mode = mode ? KN_MODE_WEBCANVAS : KN_MODE_DEFAULT};
		kn_eval *ev;
		assert_int_equal(kn_eval_new(&ev, &set->tasks[0], &o), 0);
		feed(ev, ev_nav("http://www.shop.com/cart;sid=9?q=red%2520shoes", "goto"));
		feed(ev, ev_act(KN_EV_SELECT, "http://www.shop.com/cart;sid=9?q=red%2520shoes", "#guests",
		                "2 adults", "2"));
		/* default: decoded once ("red%20shoes"), the whole path, the chosen option's text */
		assert_double_equal(kn_eval_node(ev, 0)->score, mode ? 1 : 0, 0);
		assert_double_equal(kn_eval_node(ev, 1)->score, mode ? 0 : 1, 0);
		assert_double_equal(kn_eval_node(ev, 2)->score, mode ? 1 : 0, 0); /* about:blank */
		assert_double_equal(kn_eval_node(ev, 3)->score, mode ? 0 : 1, 0);
		kn_eval_free(ev);
	}
	/* the semantic judge sees the whole URL in webcanvas mode, the include form in default mode */
	char *seen[2] = {NULL, NULL};
	for (int mode = 0; mode < 2; mode++) {
		kn_eval_opts o = {.mode = mode ? KN_MODE_WEBCANVAS : KN_MODE_DEFAULT, .semantic = &recorder};
		kn_eval *ev;
		last_judged[0] = '\0';
		assert_int_equal(kn_eval_new(&ev, &set->tasks[0], &o), 0);
		feed(ev, ev_act(KN_EV_SCROLL, "http://www.shop.com/cart?q=a%20b", NULL, NULL, NULL));
		seen[mode] = strdup(last_judged);
		kn_eval_free(ev);
	}
	assert_string_equal(seen[0], "www.shop.com/cart");
	assert_string_equal(seen[1], "http://www.shop.com/cart?q=a b");
	free(seen[0]);
	free(seen[1]);
	kn_taskset_free(set);
}

/* webcanvas mode: a fractional score is rounded to two decimals as Python's round(s, 2), summed in
 * key-node order, and near success is N − Σ == 1.0 (experiment_results.py). */
static void test_webcanvas_fractions(void **state)
{
	(void)state;
	const char *doc =
		"[{\"index\": 1, \"task\": \"t\", \"reference_task_length\": 4, \"evaluation\": ["
		"{\"match_function_name\": \"url_semantic_match\", \"content\": {\"key\": \"q\", \"reference_answer\": \"Decide whether are searching for a\"}},"
		"{\"match_function_name\": \"url_included_match\", \"content\": {\"key\": \"\", \"reference_answer\": \"/a\"}}]}]";
	kn_taskset *set = load(doc);
	/* raw score → (rounded, near success with the other node at 1) */
	const struct { double raw, want; int near; } cases[] = {
		{0.775, 0.78, 0},  /* 0.77500000000000002220: above the tie */
		{0.125, 0.12, 0},  /* an exact tie: to even */
		{0.004, 0, 1},     /* rounds to 0: 2 − 1 == 1.0 */
		{0.999, 1, 0},     /* rounds to 1: finished */
	};	/* a score outside [0, 1] is a failed judgement, not a fraction (test_eval_unjudged) */
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		fixed_score = cases[k].raw;
		kn_eval_opts o = {.mode = KN_MODE_WEBCANVAS, .semantic = &fixed};
		kn_eval *ev;
		assert_int_equal(kn_eval_new(&ev, &set->tasks[0], &o), 0);
		feed(ev, ev_act(KN_EV_SCROLL, "http://x.com/a?q=a", NULL, NULL, NULL));
		assert_double_equal(kn_eval_node(ev, 0)->score, cases[k].want, 0);
		kn_summary sum;
		kn_summary_init(&sum);
		kn_summary_add(&sum, ev);
		kn_summary_finish(&sum);
		assert_int_equal(sum.n_near, cases[k].near);
		kn_eval_free(ev);
	}
	/* default mode: one node below 1 is near success whatever its fraction */
	fixed_score = 0.5;
	kn_eval_opts o = {.semantic = &fixed};
	kn_eval *ev;
	assert_int_equal(kn_eval_new(&ev, &set->tasks[0], &o), 0);
	feed(ev, ev_act(KN_EV_SCROLL, "http://x.com/a?q=a", NULL, NULL, NULL));
	kn_summary sum;
	kn_summary_init(&sum);
	kn_summary_add(&sum, ev);
	assert_int_equal(sum.n_near, 1);
	kn_eval_free(ev);
	kn_taskset_free(set);
}

/* Consecutive input into one field is one step; anything in between starts a new one. */
static void test_type_coalescing(void **state)
{
	(void)state;
	kn_taskset *set = load(shop);
	kn_eval *ev;
	assert_int_equal(kn_eval_new(&ev, &set->tasks[0], NULL), 0);
	feed(ev, ev_act(KN_EV_TYPE, "http://www.shop.com/", "#q", NULL, "red"));
	feed(ev, ev_act(KN_EV_TYPE, "http://www.shop.com/", "#q", NULL, "red shoes"));  /* same step */
	assert_int_equal(kn_eval_steps(ev), 1);
	feed(ev, ev_act(KN_EV_TYPE, "http://www.shop.com/", "#size", NULL, "9"));      /* other field */
	assert_int_equal(kn_eval_steps(ev), 2);
	assert_double_equal(kn_eval_node(ev, 3)->score, 1, 0);                          /* k4 via type */
	feed(ev, ev_nav("http://www.shop.com/x", "link"));
	feed(ev, ev_act(KN_EV_TYPE, "http://www.shop.com/x", "#size", NULL, "10"));    /* after a nav */
	assert_int_equal(kn_eval_steps(ev), 3);
	size_t n;
	kn_eval_step_scores(ev, &n);
	assert_int_equal(n, 3);
	kn_eval_free(ev);
	kn_taskset_free(set);
}

/* Answers compare lower-cased; element values do not. */
static void test_answer_case(void **state)
{
	(void)state;
	const char *doc =
		"[{\"index\": 1, \"task\": \"t\", \"evaluation\": ["
		"{\"match_function_name\": \"final_answer_exact_match\", \"content\": {\"reference_answer\": \"Open 9AM\"}},"
		"{\"match_function_name\": \"cache_data_included_match\", \"content\": {\"reference_answer\": \"9am\"}},"
		"{\"match_function_name\": \"element_value_exactly_match\", \"content\": {\"reference_answer\": \"Refund\"}}]}]";
	kn_taskset *set = load(doc);
	kn_eval *ev;
	assert_int_equal(kn_eval_new(&ev, &set->tasks[0], NULL), 0);
	feed(ev, ev_act(KN_EV_TYPE, "http://x.com/", "#s", NULL, "refund"));
	feed(ev, (kn_event){.type = KN_EV_ANSWER, .text = "open 9am", .trusted = -1});
	assert_double_equal(kn_eval_node(ev, 0)->score, 1, 0);
	assert_double_equal(kn_eval_node(ev, 1)->score, 1, 0);
	assert_double_equal(kn_eval_node(ev, 2)->score, 0, 0);
	kn_eval_free(ev);
	kn_taskset_free(set);
}

/* Each dataset metric on a hand-worked example: three runs of tasks with 4, 2 and 3 nodes
 * reaching 3, 0 and 3 nodes in 6, 5 and 3 steps. */
static void test_summary(void **state)
{
	(void)state;
	const char *doc =
		"[{\"index\": 1, \"task\": \"a\", \"evaluation\": ["
		"{\"match_function_name\": \"url_included_match\", \"content\": {\"reference_answer\": \"/1\"}},"
		"{\"match_function_name\": \"url_included_match\", \"content\": {\"reference_answer\": \"/2\"}},"
		"{\"match_function_name\": \"url_included_match\", \"content\": {\"reference_answer\": \"/3\"}},"
		"{\"match_function_name\": \"url_included_match\", \"content\": {\"reference_answer\": \"/4\"}}]},"
		"{\"index\": 2, \"task\": \"b\", \"evaluation\": ["
		"{\"match_function_name\": \"url_included_match\", \"content\": {\"reference_answer\": \"/1\"}},"
		"{\"match_function_name\": \"url_included_match\", \"content\": {\"reference_answer\": \"/2\"}}]},"
		"{\"index\": 3, \"task\": \"c\", \"evaluation\": ["
		"{\"match_function_name\": \"url_included_match\", \"content\": {\"reference_answer\": \"/1\"}},"
		"{\"match_function_name\": \"url_included_match\", \"content\": {\"reference_answer\": \"/2\"}},"
		"{\"match_function_name\": \"url_included_match\", \"content\": {\"reference_answer\": \"/3\"}}]}]";
	kn_taskset *set = load(doc);
	const char *urls[3][6] = {{"http://x/1", "http://x/2", "http://x/3", "http://x/0", "http://x/0", "http://x/0"},
	                          {"http://x/0", "http://x/0", "http://x/0", "http://x/0", "http://x/0", NULL},
	                          {"http://x/1", "http://x/2", "http://x/3", NULL, NULL, NULL}};
	kn_summary sum;
	kn_summary_init(&sum);
	for (int t = 0; t < 3; t++) {
		kn_eval *ev;
		assert_int_equal(kn_eval_new(&ev, &set->tasks[t], NULL), 0);
		for (int s = 0; s < 6 && urls[t][s]; s++)
			feed(ev, ev_nav(urls[t][s], "goto"));
		kn_summary_add(&sum, ev);
		kn_eval_free(ev);
	}
	kn_summary_finish(&sum);
	assert_int_equal(sum.tasks, 3);
	assert_double_equal(sum.key_node_completion_rate, 6.0 / 9.0, 1e-12);           /* (3+0+3)/(4+2+3) */
	assert_double_equal(sum.average_step_score_rate, (0.75 + 0 + 1) / 3, 1e-12);
	assert_double_equal(sum.task_success_rate, 1.0 / 3, 1e-12);                     /* c */
	assert_double_equal(sum.task_near_success_rate, 1.0 / 3, 1e-12);                /* a */
	assert_double_equal(sum.efficiency_score, (6.0 / 3 + 0 + 3.0 / 3) / 3, 1e-12);  /* b counts 0 */
	kn_taskset_free(set);
}

/* The run result has the §3 fields and parses back. */
static void test_write_result(void **state)
{
	(void)state;
	kn_taskset *set = load(shop);
	kn_eval *ev;
	assert_int_equal(kn_eval_new(&ev, &set->tasks[0], NULL), 0);
	feed(ev, ev_nav("http://www.shop.com/cart", "goto"));
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(kn_eval_write_result(ev, "r-1", f), 0);
	fclose(f);
	json_error_t je;
	json_t *j = json_loads(buf, 0, &je);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "status")), "incomplete");
	assert_int_equal(json_integer_value(json_object_get(j, "steps")), 1);
	assert_int_equal(json_integer_value(json_object_get(j, "reached")), 1);
	assert_int_equal(json_integer_value(json_object_get(j, "total")), 4);
	assert_double_equal(json_number_value(json_object_get(j, "score")), 0.25, 0);
	assert_false(json_is_true(json_object_get(j, "completion")));
	json_t *k1 = json_array_get(json_object_get(j, "key_nodes"), 0);
	assert_string_equal(json_string_value(json_object_get(k1, "function")), "url_included_match");
	assert_int_equal(json_integer_value(json_object_get(k1, "reached_at_step")), 1);
	assert_true(json_is_null(json_object_get(json_array_get(json_object_get(j, "key_nodes"), 1), "reached_at_step")));
	json_decref(j);
	free(buf);
	kn_eval_free(ev);
	kn_taskset_free(set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conformance),
		cmocka_unit_test(test_latching_and_step_scores),
		cmocka_unit_test(test_run),
		cmocka_unit_test(test_gates_and_matched),
		cmocka_unit_test(test_shadow_chains_offline),
		cmocka_unit_test(test_modes),
		cmocka_unit_test(test_step_limit_and_error),
		cmocka_unit_test(test_webcanvas_loop),
		cmocka_unit_test(test_webcanvas_inputs),
		cmocka_unit_test(test_webcanvas_fractions),
		cmocka_unit_test(test_type_coalescing),
		cmocka_unit_test(test_answer_case),
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_write_result),
		cmocka_unit_test(test_human_events),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
