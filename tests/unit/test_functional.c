/* test_functional.c — WebArena-style functional checks: cleaning, exact, must_include with
 * " |OR| " and the one-character token rule, N/A, gold_in_pred, the YAML syntax of the new
 * matchers and the page target, the evaluator's functional result and page results, the summary's
 * functional_success_rate, and the WebArena import of tests/data/webarena/tasks.json. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "kn_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "keynode/eval.h"
#include "keynode/functional.h"

#define WA_FILE KN_TESTS_DIR "/data/webarena/tasks.json"

static kn_taskset *load(const char *doc, const kn_load_opts *o)
{
	kn_taskset *set = NULL;
	kn_err err = {0};
	if (kn_taskset_load_buffer(&set, doc, strlen(doc), "t.yaml", o, &err) != 0)
		fail_msg("load: %s", err.msg);
	return set;
}

static void load_fails(const char *doc, const char *want)
{
	kn_taskset *set = NULL;
	kn_err err = {0};
	assert_true(kn_taskset_load_buffer(&set, doc, strlen(doc), "t.yaml", NULL, &err) < 0);
	assert_null(set);
	if (!strstr(err.msg, want))
		fail_msg("error '%s' does not say '%s'", err.msg, want);
}

static void test_clean(void **state)
{
	(void)state;
	char *c;
	const char *cases[][2] = {
		{"  Hello World \n", "hello world"}, {"\"Quoted\"", "quoted"}, {"'single'", "single"},
		{"\"\"x\"\"", "\"x\""},              /* one pair only */
		{"'mixed\"", "'mixed\""},             {"\"", "\""}, {"", ""}, {"  ' A '  ", " a "},
		{"\xc3\x89" "COLE", "\xc3\x89" "cole"}, /* ASCII only: É stays */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		assert_int_equal(kn_func_clean(&c, cases[i][0]), 0);
		assert_string_equal(c, cases[i][1]);
		free(c);
	}
	assert_int_equal(kn_func_clean(&c, NULL), KN_EINVAL);
}

static void test_exact(void **state)
{
	(void)state;
	assert_true(kn_func_exact("Quest Lumaflex Band", "  \"quest lumaflex band\" "));
	assert_true(kn_func_exact("'Yes'", "YES"));
	assert_false(kn_func_exact("Yes", "Yes."));
	assert_false(kn_func_exact("Yes", NULL));
	assert_false(kn_func_exact("42", "420"));
}

static void test_must_include(void **state)
{
	(void)state;
	/* the one-character token rule */
	assert_false(kn_func_must_include("0", "10", 1));
	assert_true(kn_func_must_include("0", "10", 0));
	assert_true(kn_func_must_include("0", "There are 0 items", 1));
	assert_true(kn_func_must_include("2", "2", 1));
	assert_true(kn_func_must_include("2", "(2)", 1));
	assert_false(kn_func_must_include("a", "banana", 1));
	assert_true(kn_func_must_include("a", "Option A.", 1));
	assert_true(kn_func_must_include("$", "$42", 1)); /* punctuation is a token of its own */
	assert_true(kn_func_must_include("12", "112", 1)); /* two characters: substring */
	/* |OR| */
	assert_true(kn_func_must_include("cooking |OR| Cooking", "r/Cooking and r/baking", 1));
	assert_true(kn_func_must_include("Blue Runner |OR| Azure", "azure shoe", 1));
	assert_false(kn_func_must_include("Blue Runner |OR| Azure", "red shoe", 1));
	assert_true(kn_func_must_include("x|OR|y", "a x|or|y b", 1)); /* no spaces: not a separator */
	assert_false(kn_func_must_include("x|OR|y", "x", 1));
	assert_true(kn_func_must_include("7 |OR| seven", "seven", 1));
	assert_false(kn_func_must_include("7 |OR| seven", "17", 1));
	/* cleaning on both sides */
	assert_true(kn_func_must_include("\"Baking\"", "  I LIKE BAKING  ", 1));
	/* all entries */
	char i1[] = "cooking |OR| Cooking", i2[] = "baking";
	char *items[] = {i1, i2};
	assert_true(kn_func_must_include_all(items, 2, "Cooking, Baking", 1));
	assert_false(kn_func_must_include_all(items, 2, "Cooking only", 1));
	assert_true(kn_func_must_include_all(items, 0, "anything", 1));
	assert_false(kn_func_must_include_all(items, 2, NULL, 1));
}

static void test_na(void **state)
{
	(void)state;
	assert_true(kn_func_is_na("N/A"));
	assert_true(kn_func_is_na(" n/a "));
	assert_true(kn_func_is_na("\"N/a\""));
	assert_false(kn_func_is_na("NA"));
	assert_false(kn_func_is_na("N/A because"));
	assert_false(kn_func_is_na(NULL));
}

static void test_gold_in_pred(void **state)
{
	(void)state;
	const char *ref = "http://h:8100/shop/search?q=red+shoes";
	assert_true(kn_func_gold_in_pred(ref, "http://h:8100/shop/search?q=red%20shoes"));
	assert_true(kn_func_gold_in_pred(ref, "http://h:8100/shop/search/?page=2&q=red+shoes"));
	assert_true(kn_func_gold_in_pred(ref, "https://h:8100/shop/search/more?q=red+shoes"));
	assert_false(kn_func_gold_in_pred(ref, "http://h:8100/shop/search?q=blue+shoes"));
	assert_false(kn_func_gold_in_pred(ref, "http://h:8100/shop/search"));
	assert_false(kn_func_gold_in_pred(ref, "http://h:8101/shop/search?q=red+shoes"));
	assert_false(kn_func_gold_in_pred(ref, "http://h:8100/shop/?q=red+shoes"));
	/* trailing slashes go on both sides; no query in the reference: the base decides */
	assert_true(kn_func_gold_in_pred("http://h/shop/cart/", "http://h/shop/cart"));
	assert_true(kn_func_gold_in_pred("http://h/shop/cart", "http://h/shop/cart?x=1#top"));
	/* |OR|: any base; query values pooled per key */
	const char *two = "http://h/a?q=x |OR| http://h/b?q=y";
	assert_true(kn_func_gold_in_pred(two, "http://h/b?q=x"));
	assert_true(kn_func_gold_in_pred(two, "http://h/a?q=y"));
	assert_false(kn_func_gold_in_pred(two, "http://h/c?q=x"));
	assert_false(kn_func_gold_in_pred(two, "http://h/a?q=z"));
	/* every reference key must hold; extra keys in the visited URL are fine */
	assert_true(kn_func_gold_in_pred("http://h/s?a=1&b=2", "http://h/s?b=2&c=3&a=1"));
	assert_false(kn_func_gold_in_pred("http://h/s?a=1&b=2", "http://h/s?a=1"));
	/* blank values are skipped as parse_qs does; a repeated key matches any of its values */
	assert_true(kn_func_gold_in_pred("http://h/s?a=", "http://h/s"));
	assert_true(kn_func_gold_in_pred("http://h/s?a=2", "http://h/s?a=1&a=2"));
	/* userinfo is not part of the host; garbage does not crash */
	assert_true(kn_func_gold_in_pred("http://h/s", "http://u:p@h/s"));
	assert_false(kn_func_gold_in_pred("http://h/s", "not a url"));
	assert_false(kn_func_gold_in_pred(NULL, "http://h/s"));
	assert_true(kn_func_gold_in_pred(" |OR| ", "anything")); /* empty references: "" in anything */
}

static double answer_score(kn_taskset *set, size_t ti, const char *answer, int *functional)
{
	kn_eval *ev = NULL;
	assert_int_equal(kn_eval_new(&ev, &set->tasks[ti], NULL), 0);
	kn_event e = {.type = KN_EV_ANSWER, .text = answer, .trusted = -1};
	assert_true(kn_eval_feed(ev, &e, NULL) >= 0);
	double s = kn_eval_score(ev);
	if (functional)
		*functional = kn_eval_functional(ev);
	kn_eval_free(ev);
	return s;
}

static const char *yaml_doc =
	"tasks:\n"
	"  - id: mi\n"
	"    intent: count\n"
	"    key_nodes:\n"
	"      - answer: { must_include: [\"0\"] }\n"
	"  - id: or\n"
	"    intent: forums\n"
	"    key_nodes:\n"
	"      - answer: { must_include: [\"cooking |OR| Cooking\", baking] }\n"
	"  - id: ex\n"
	"    intent: best seller\n"
	"    key_nodes:\n"
	"      - answer: { exact: \"Quest Band\", clean: true }\n"
	"  - id: na\n"
	"    intent: phone of the CEO\n"
	"    answer: N/A\n"
	"    key_nodes:\n"
	"      - answer: { fuzzy: N/A }\n"
	"  - id: fz\n"
	"    intent: return policy\n"
	"    key_nodes:\n"
	"      - answer: { fuzzy: [\"red running shoes\"] }\n"
	"  - id: plain\n"
	"    intent: old style\n"
	"    key_nodes:\n"
	"      - answer: { include: \"42\" }\n"
	"  - id: url\n"
	"    intent: search\n"
	"    key_nodes:\n"
	"      - url: { gold_in_pred: \"http://h/shop/search?q=red |OR| http://h/shop/find?q=red\" }\n"
	"  - id: page\n"
	"    intent: post\n"
	"    key_nodes:\n"
	"      - id: newest\n"
	"        page: { url: \"http://h/forum/\", locator: \".post .body\", include: [hello, \"world |OR| earth\"] }\n"
	"      - page: { url: last, locator: \"js:document.title\", exact: \"Forum\" }\n"
	"      - url: { include: \"/forum\" }\n";

static void test_yaml_and_eval(void **state)
{
	(void)state;
	kn_taskset *set = load(yaml_doc, NULL);
	assert_int_equal(set->n_tasks, 8);
	const kn_keynode *k = &set->tasks[0].keynodes[0];
	assert_int_equal(k->matcher, KN_MATCH_MUST_INCLUDE);
	assert_string_equal(k->function, "final_answer_must_include_match");
	assert_true(k->functional);
	assert_string_equal(set->tasks[1].keynodes[0].expect, "cooking |OR| Cooking |AND| baking");
	assert_int_equal(set->tasks[1].keynodes[0].n_items, 2);
	assert_true(set->tasks[2].keynodes[0].clean);
	assert_false(set->tasks[5].keynodes[0].functional);
	int fn;
	assert_double_equal(answer_score(set, 0, "10", &fn), 0, 0);
	assert_int_equal(fn, 0);
	assert_double_equal(answer_score(set, 0, "There are 0 left", &fn), 1, 0);
	assert_int_equal(fn, 1);
	assert_double_equal(answer_score(set, 1, "r/Cooking, r/Baking", NULL), 1, 0);
	assert_double_equal(answer_score(set, 1, "r/Cooking", NULL), 0, 0);
	assert_double_equal(answer_score(set, 2, "\"quest band\"", NULL), 1, 0);
	assert_double_equal(answer_score(set, 2, "Quest Band!", NULL), 0, 0);
	/* N/A: the text itself, any case, or (semantic backend) an answer saying it cannot be done */
	assert_double_equal(answer_score(set, 3, "n/a", NULL), 1, 0);
	assert_double_equal(answer_score(set, 3, "The task cannot be done", NULL), 1, 0);
	assert_double_equal(answer_score(set, 3, "555-1234", NULL), 0, 0);
	assert_double_equal(answer_score(set, 4, "Red running shoes", NULL), 1, 0);
	assert_double_equal(answer_score(set, 4, "blue sandals", NULL), 0, 0);
	assert_double_equal(answer_score(set, 5, "42", &fn), 1, 0);
	assert_int_equal(fn, -1); /* no functional check: not reported */

	/* gold_in_pred on navigations */
	kn_eval *ev;
	assert_int_equal(kn_eval_new(&ev, &set->tasks[6], NULL), 0);
	kn_event nav = {.type = KN_EV_NAVIGATE, .url = "http://h/shop/find/?q=blue", .how = "goto",
	                .trusted = -1};
	kn_eval_feed(ev, &nav, NULL);
	assert_double_equal(kn_eval_score(ev), 0, 0);
	nav.url = "http://h/shop/find/?q=red&page=1";
	kn_eval_feed(ev, &nav, NULL);
	assert_double_equal(kn_eval_score(ev), 1, 0);
	assert_int_equal(kn_eval_functional(ev), 1);
	kn_eval_free(ev);

	/* page checks: scored when the monitor records what it read */
	const kn_task *pt = &set->tasks[7];
	assert_int_equal(pt->keynodes[0].target, KN_TARGET_PAGE);
	assert_string_equal(pt->keynodes[0].function, "page_must_include_match");
	assert_string_equal(pt->keynodes[0].page_url, "http://h/forum/");
	assert_null(pt->keynodes[1].page_url); /* last */
	assert_string_equal(pt->keynodes[1].function, "page_exact_match");
	assert_true(pt->keynodes[1].clean);
	assert_int_equal(kn_eval_new(&ev, pt, NULL), 0);
	nav.url = "http://h/forum/new";
	kn_eval_feed(ev, &nav, NULL);
	assert_double_equal(kn_eval_reached(ev), 1, 0); /* the url node; page nodes wait */
	assert_int_equal(kn_eval_functional(ev), 0);
	kn_err err = {0};
	assert_int_equal(kn_eval_page_result(ev, 2, "x", NULL, &err), KN_EINVAL); /* not a page node */
	assert_int_equal(kn_eval_page_result(ev, 0, "Hello there, EARTH", NULL, &err), 0);
	assert_int_equal(kn_eval_page_result(ev, 1, NULL, "page closed", &err), 0);
	assert_double_equal(kn_eval_node(ev, 0)->score, 1, 0);
	assert_double_equal(kn_eval_node(ev, 1)->score, 0, 0);
	const char *why = NULL;
	assert_string_equal(kn_eval_page_read(ev, 0, &why), "Hello there, EARTH");
	assert_null(why);
	assert_null(kn_eval_page_read(ev, 1, &why));
	assert_string_equal(why, "page closed");
	assert_int_equal(kn_eval_functional(ev), 0);
	assert_int_equal(kn_eval_page_result(ev, 1, "  forum ", NULL, &err), 0);
	assert_int_equal(kn_eval_functional(ev), 1);
	assert_true(kn_eval_completed(ev));

	/* the run result says it */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(kn_eval_write_result(ev, "r1", f), 0);
	fclose(f);
	json_t *j = json_loads(buf, 0, NULL);
	assert_non_null(j);
	assert_true(json_is_true(json_object_get(j, "functional")));
	json_t *n0 = json_array_get(json_object_get(j, "key_nodes"), 0);
	assert_string_equal(json_string_value(json_object_get(n0, "read")), "Hello there, EARTH");
	assert_true(json_is_true(json_object_get(n0, "functional")));
	json_t *n2 = json_array_get(json_object_get(j, "key_nodes"), 2);
	assert_null(json_object_get(n2, "read"));
	json_decref(j);
	free(buf);

	/* the summary: functional rate over runs whose task has functional checks */
	kn_summary sum;
	kn_summary_init(&sum);
	kn_summary_add(&sum, ev);
	kn_eval *e2;
	assert_int_equal(kn_eval_new(&e2, &set->tasks[0], NULL), 0);
	kn_summary_add(&sum, e2);
	kn_eval *e3;
	assert_int_equal(kn_eval_new(&e3, &set->tasks[5], NULL), 0);
	kn_summary_add(&sum, e3);
	kn_summary_finish(&sum);
	assert_int_equal(sum.n_functional_tasks, 2);
	assert_double_equal(sum.functional_success_rate, 0.5, 1e-12);
	kn_eval_free(e2);
	kn_eval_free(e3);
	kn_eval_free(ev);
	kn_taskset_free(set);
}

static void test_yaml_errors(void **state)
{
	(void)state;
	const char *head = "tasks:\n  - id: a\n    intent: b\n    key_nodes:\n";
	char doc[512];
	const struct { const char *node, *want; } cases[] = {
		{"      - page: { include: x }\n", "needs a locator"},
		{"      - page: { locator: \"js:\", exact: x }\n", "has no expression"},
		{"      - page: { locator: a, semantic: x }\n", "not available for target 'page'"},
		{"      - page: { url: nowhere, locator: a, exact: x }\n", "'url' must be last"},
		{"      - url: { must_include: [a] }\n", "unknown matcher 'must_include'"},
		{"      - answer: { gold_in_pred: x }\n", "unknown matcher 'gold_in_pred'"},
		{"      - answer: { must_include: [] }\n", "empty list"},
		{"      - answer: { must_include: [[a]] }\n", "must be text"},
		{"      - answer: { exact: a, clean: yes please }\n", "'clean' must be true or false"},
		{"      - url: { exact: a, clean: true }\n", "applies only to answer"},
		{"      - answer: { exact: a, locator: b }\n", "applies only to page"},
		{"      - page: { locator: a, exact: x, exact: y }\n", "duplicate"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		snprintf(doc, sizeof doc, "%s%s", head, cases[i].node);
		load_fails(doc, cases[i].want);
	}
}

static const kn_site sites[] = {
	{"SHOPPING", "http://127.0.0.1:8100/"}, {"REDDIT", "http://127.0.0.1:8100"},
	{"SHOPPING_ADMIN", "http://127.0.0.1:8100/admin"},
};

static void test_webarena_file(void **state)
{
	(void)state;
	kn_load_opts o = {.sites = sites, .n_sites = 3};
	kn_taskset *set = NULL;
	kn_err err = {0};
	assert_int_equal(kn_taskset_load_file(&set, WA_FILE, &o, &err), 0);
	assert_int_equal(set->format, KN_FORMAT_WEBARENA);
	assert_int_equal(set->n_tasks, 12);
	static const size_t want_nodes[] = {1, 1, 1, 1, 1, 1, 1, 2, 0, 3, 0, 1};
	static const size_t want_unmapped[] = {0, 0, 0, 0, 1, 0, 0, 0, 3, 0, 3, 2};
	for (size_t i = 0; i < 12; i++) {
		const kn_task *t = &set->tasks[i];
		if (t->n_keynodes != want_nodes[i] || t->n_unmapped != want_unmapped[i])
			fail_msg("task %s: %zu nodes, %zu unmapped (want %zu, %zu)%s%s", t->id,
			         t->n_keynodes, t->n_unmapped, want_nodes[i], want_unmapped[i],
			         t->n_unmapped ? ": " : "", t->n_unmapped ? t->unmapped[0] : "");
	}
	assert_string_equal(set->tasks[0].start_url, "http://127.0.0.1:8100/");
	assert_string_equal(set->tasks[0].keynodes[0].function, "final_answer_exact_match");
	assert_true(set->tasks[0].keynodes[0].clean);
	assert_string_equal(set->tasks[2].start_url, "http://127.0.0.1:8100/forums");
	assert_int_equal(set->tasks[3].keynodes[0].matcher, KN_MATCH_FUZZY);
	assert_string_equal(set->tasks[4].keynodes[0].expect, "N/A");
	assert_true(strstr(set->tasks[4].unmapped[0], "__GITLAB__") != NULL);
	assert_string_equal(set->tasks[5].keynodes[0].expect,
	                    "http://127.0.0.1:8100/shop/search?q=red+shoes |OR| "
	                    "http://127.0.0.1:8100/shop/search?q=red%20shoes");
	assert_string_equal(set->tasks[5].keynodes[0].function, "url_gold_in_pred_match");
	const kn_keynode *p = &set->tasks[6].keynodes[0];
	assert_int_equal(p->target, KN_TARGET_PAGE);
	assert_string_equal(p->page_url, "http://127.0.0.1:8100/forum/");
	/* wrapped: prep_actions, "" when it throws, Python's str() of the value */
	assert_true(strstr(p->locator, "v = await (() => document.querySelector('.post:first-child')"
	                               ".outerText\n)()") != NULL);
	assert_true(strstr(p->locator, "return py(v, 1)") != NULL);
	assert_int_equal(set->tasks[6].func_sem, KN_FUNC_SEM_WEBARENA);
	assert_null(set->tasks[7].keynodes[0].page_url);
	assert_true(strstr(set->tasks[7].keynodes[1].locator, "XMLSerializer") != NULL); /* content() */
	assert_true(strstr(set->tasks[8].unmapped[1], "func:gitlab_get_project") != NULL ||
	            strstr(set->tasks[8].unmapped[0], "func:gitlab_get_project") != NULL);
	assert_true(strstr(set->tasks[10].unmapped[1], "EXACT") != NULL);
	assert_true(strstr(set->tasks[10].unmapped[2], "llm_judge") != NULL);
	assert_true(strstr(set->tasks[11].unmapped[1], "unknown_kind") != NULL);
	assert_int_equal(set->tasks[11].n_more_start_urls, 1); /* " |AND| ": one tab each */
	assert_string_equal(set->tasks[11].more_start_urls[0], "http://127.0.0.1:8100/");

	/* an unmapped part makes the functional result false, never true */
	kn_eval *ev;
	assert_int_equal(kn_eval_new(&ev, &set->tasks[8], NULL), 0);
	assert_int_equal(kn_eval_functional(ev), 0);
	kn_eval_free(ev);
	assert_double_equal(answer_score(set, 1, "2", NULL), 1, 0);
	assert_double_equal(answer_score(set, 1, "12", NULL), 0, 0);
	assert_double_equal(answer_score(set, 11, "yes", NULL), 1, 0);
	kn_taskset_free(set);

	/* without sites, the placeholders are reported */
	assert_int_equal(kn_taskset_load_file(&set, WA_FILE, NULL, &err), 0);
	assert_int_equal(set->tasks[5].n_keynodes, 0);
	assert_true(strstr(set->tasks[5].unmapped[1], "url_match: no site for __SHOPPING__") != NULL);
	kn_taskset_free(set);
}

static void wa_fails(const char *doc, const char *want)
{
	kn_taskset *set = NULL;
	kn_err err = {0};
	assert_true(kn_task_load_webarena(&set, doc, strlen(doc), "wa.json", NULL, &err) < 0);
	assert_null(set);
	if (!strstr(err.msg, want))
		fail_msg("error '%s' does not say '%s'", err.msg, want);
}

static void test_webarena_malformed(void **state)
{
	(void)state;
	wa_fails("[", "wa.json:");
	wa_fails("42", "wa.json:1:");
	wa_fails("[42]", "[0]: expected a task config object");
	wa_fails("[{\"intent\": \"x\", \"eval\": {\"eval_types\": []}}]", "[0].task_id");
	wa_fails("[{\"task_id\": 1, \"eval\": {\"eval_types\": []}}]", "[0].intent");
	wa_fails("[{\"task_id\": 1, \"intent\": \"x\"}]", "[0].eval");
	wa_fails("[{\"task_id\": 1, \"intent\": \"x\", \"eval\": {}}]", "eval_types");
	wa_fails("[{\"task_id\": 1, \"intent\": \"x\", \"eval\": {\"eval_types\": []}},"
	         " {\"task_id\": 1, \"intent\": \"y\", \"eval\": {\"eval_types\": []}}]",
	         "duplicate task id '1'");
	wa_fails("{\"task_id\": 1, \"task_id\": 2}", "wa.json:");
	/* a single config object loads, and detection picks it */
	const char *one = "{\"task_id\": \"t\", \"intent\": \"x\", \"eval\": {\"eval_types\": "
	                  "[\"string_match\"], \"reference_answers\": {\"must_include\": [1, \"b\"]}}}";
	kn_taskset *set = load(one, NULL);
	assert_int_equal(set->format, KN_FORMAT_WEBARENA);
	assert_int_equal(set->tasks[0].keynodes[0].n_items, 2);
	assert_string_equal(set->tasks[0].keynodes[0].items[0], "1");
	kn_taskset_free(set);
	/* malformed checks are reported per task, not fatal */
	const char *bad = "[{\"task_id\": 2, \"intent\": \"x\", \"eval\": {\"eval_types\": "
	                  "[\"string_match\", \"program_html\", \"url_match\", 7], "
	                  "\"reference_answers\": {\"must_include\": [{}], \"exact_match\": []},"
	                  "\"program_html\": [{\"url\": \"last\"}, 3, {\"url\": \"last\", \"locator\": \"\","
	                  "\"required_contents\": {\"exact_match\": 5}}]}}]";
	set = load(bad, NULL);
	assert_int_equal(set->tasks[0].n_keynodes, 0);
	assert_int_equal(set->tasks[0].n_unmapped, 7);
	kn_taskset_free(set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean),          cmocka_unit_test(test_exact),
		cmocka_unit_test(test_must_include),   cmocka_unit_test(test_na),
		cmocka_unit_test(test_gold_in_pred),   cmocka_unit_test(test_yaml_and_eval),
		cmocka_unit_test(test_yaml_errors),    cmocka_unit_test(test_webarena_file),
		cmocka_unit_test(test_webarena_malformed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
