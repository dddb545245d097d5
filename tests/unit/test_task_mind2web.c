/* test_task_mind2web.c — the Mind2Web-Live JSON loader: both published files load completely
 * with every key node mapped, and every malformed construct is an error naming its JSON path. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "keynode/task.h"

#define M2W KN_SHARED_DIR "/data/mind2web-live/"

static size_t count_fn(const kn_taskset *set, const char *fn)
{
	size_t n = 0;
	for (size_t t = 0; t < set->n_tasks; t++)
		for (size_t k = 0; k < set->tasks[t].n_keynodes; k++)
			n += strcmp(set->tasks[t].keynodes[k].function, fn) == 0;
	return n;
}

static void test_file(void **state)
{
	(void)state;
	kn_taskset *set;
	kn_err err = {0};
	assert_int_equal(kn_taskset_load_file(&set, M2W "mind2web-live_test_20241024.json", NULL, &err), 0);
	assert_int_equal(set->format, KN_FORMAT_MIND2WEB);
	assert_int_equal(set->n_tasks, 104);
	assert_int_equal(kn_taskset_count_keynodes(set), 443);
	assert_int_equal(count_fn(set, "url_included_match"), 258);
	assert_int_equal(count_fn(set, "element_path_exactly_match"), 90);
	assert_int_equal(count_fn(set, "url_exactly_match"), 47);
	assert_int_equal(count_fn(set, "element_value_exactly_match"), 26);
	assert_int_equal(count_fn(set, "url_semantic_match"), 18);
	assert_int_equal(count_fn(set, "element_value_semantic_match"), 4);

	/* task 0: ids, keys, options as in the file */
	const kn_task *t = kn_taskset_find(set, "0");
	assert_non_null(t);
	assert_int_equal(t->reference_length, 8);
	assert_int_equal(t->n_keynodes, 2);
	assert_string_equal(t->keynodes[0].id, "k1");
	assert_int_equal(t->keynodes[0].target, KN_TARGET_URL);
	assert_int_equal(t->keynodes[0].matcher, KN_MATCH_INCLUDE);
	assert_null(t->keynodes[0].key); /* "" means no parameter */
	assert_string_equal(t->keynodes[0].expect, "gamestop.");
	assert_string_equal(t->keynodes[1].key, "store");
	assert_int_equal(t->keynodes[1].matcher, KN_MATCH_EXACT);

	/* every element_path node has a normalised selector; every semantic node a phrase */
	for (size_t i = 0; i < set->n_tasks; i++)
		for (size_t k = 0; k < set->tasks[i].n_keynodes; k++) {
			const kn_keynode *kn = &set->tasks[i].keynodes[k];
			if (kn->target == KN_TARGET_ELEMENT_PATH || kn->path)
				assert_non_null(kn->norm_selector);
			if (kn->matcher == KN_MATCH_SEMANTIC)
				assert_true(kn->semantic_phrase && *kn->semantic_phrase);
		}
	kn_taskset_free(set);

	assert_int_equal(kn_taskset_load_file(&set, M2W "example_130.json", NULL, &err), 0);
	assert_int_equal(set->n_tasks, 130);
	assert_int_equal(kn_taskset_count_keynodes(set), 588);
	assert_int_equal(count_fn(set, "url_included_match"), 310);
	assert_int_equal(count_fn(set, "element_path_exactly_match"), 129);
	kn_taskset_free(set);
}

/* Load text and expect rc with a message containing want. */
static void expect_error(const char *json, int rc, const char *want)
{
	kn_taskset *set = (kn_taskset *)1;
	kn_err err = {0};
	int r = kn_taskset_load_buffer(&set, json, strlen(json), "t.json", NULL, &err);
	if (r != rc || !strstr(err.msg, want))
		fail_msg("for %s\n got rc %d '%s'\n want rc %d containing '%s'", json, r, err.msg, rc, want);
	assert_null(set);
}

#define NODE(fn, content) "{\"match_function_name\": \"" fn "\", \"content\": {" content "}}"
#define TASK(idx, nodes) \
	"{\"index\": " idx ", \"task\": \"t\", \"reference_task_length\": 3, \"evaluation\": [" nodes "]}"

static void test_errors(void **state)
{
	(void)state;
	expect_error("[" TASK("0", NODE("url_included_match", "\"reference_answer\": \"a\"")) ","
	             TASK("1", NODE("url_fuzzy_match", "\"reference_answer\": \"a\"")) "]",
	             KN_EINVAL, "t.json: [1].evaluation[0].match_function_name: unknown function 'url_fuzzy_match'");
	expect_error("[" TASK("0", NODE("url_included_match", "\"reference_answer\": \"a\"") ","
	             NODE("url_included_match", "\"key\": \"q\"")) "]",
	             KN_EINVAL, "[0].evaluation[1].content.reference_answer: missing");
	expect_error("[" TASK("0", NODE("url_included_match", "\"reference_answer\": [1]")) "]",
	             KN_EINVAL, "[0].evaluation[0].content.reference_answer: expected a string");
	expect_error("[" TASK("0", NODE("url_included_match", "\"reference_answer\": \"a\", \"colour\": 1")) "]",
	             KN_EINVAL, "[0].evaluation[0].content.colour: unknown field");
	expect_error("[" TASK("0", NODE("element_value_exactly_match", "\"reference_answer\": \"a\", \"key\": \"q\"")) "]",
	             KN_EINVAL, "[0].evaluation[0].content.key: only URL key nodes");
	expect_error("[{\"index\": 0, \"task\": \"t\", \"evaluation\": []}]", KN_EINVAL,
	             "[0].evaluation: no key nodes");
	expect_error("[{\"index\": 0, \"evaluation\": []}]", KN_EINVAL, "[0].task: missing");
	expect_error("[{\"index\": 0, \"task\": \"t\", \"reference_task_length\": -1, \"evaluation\": []}]",
	             KN_EINVAL, "[0].reference_task_length: expected a non-negative integer");
	expect_error("[" TASK("7", NODE("url_included_match", "\"reference_answer\": \"a\"")) ","
	             TASK("\"7\"", NODE("url_included_match", "\"reference_answer\": \"a\"")) "]",
	             KN_EINVAL, "[1].index: duplicate task id '7' (also [0])");
	expect_error("[" TASK("0", "{\"match_function_name\": \"element_path_exactly_match\", \"method\": \"css\", "
	             "\"content\": {\"reference_answer\": \"#a\"}}") "]",
	             KN_EINVAL, "[0].evaluation[0].method: unknown method");
	expect_error("[1, 2]", KN_EINVAL, "t.json: [0]: expected an object");
	expect_error("[{\"index\": 0,", KN_EINVAL, "t.json:1:");  /* truncated: line:column */
	expect_error("[{\"a\": 1, \"a\": 2}]", KN_EINVAL, "duplicate");
	expect_error("[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
	             KN_ELIMIT, "nesting deeper than 64");
}

static void test_limits_and_empty(void **state)
{
	(void)state;
	kn_taskset *set;
	kn_err err = {0};
	kn_load_opts small = {.max_bytes = 10};
	const char *doc = "[" TASK("0", NODE("url_included_match", "\"reference_answer\": \"a\"")) "]";
	assert_int_equal(kn_taskset_load_buffer(&set, doc, strlen(doc), "t.json", &small, &err), KN_ELIMIT);
	assert_int_equal(kn_taskset_load_buffer(&set, "[]", 2, "t.json", NULL, &err), 0);
	assert_int_equal(set->n_tasks, 0);
	kn_taskset_free(set);
	assert_int_equal(kn_taskset_load_file(&set, "/nonexistent/x.json", NULL, &err), KN_ENOTFOUND);
	/* string index, xpath method, number reference answer taken as text */
	const char *d2 = "[{\"index\": \"abc-1\", \"task\": \"t\", \"evaluation\": ["
	                 "{\"match_function_name\": \"element_path_exactly_match\", \"method\": \"xpath\", "
	                 "\"content\": {\"reference_answer\": \"//a[1]\", \"netloc\": \"x\"}},"
	                 NODE("final_answer_exact_match", "\"reference_answer\": 42") "]}]";
	assert_int_equal(kn_taskset_load_buffer(&set, d2, strlen(d2), "t.json", NULL, &err), 0);
	assert_string_equal(set->tasks[0].id, "abc-1");
	assert_int_equal(set->tasks[0].keynodes[0].xpath, 1);
	assert_string_equal(set->tasks[0].keynodes[0].netloc, "x");
	assert_int_equal(set->tasks[0].keynodes[1].target, KN_TARGET_ANSWER);
	assert_string_equal(set->tasks[0].keynodes[1].expect, "42");
	kn_taskset_free(set);
}

static void test_every_function_name(void **state)
{
	(void)state;
	static const char *const names[] = {
		"url_exactly_match", "url_included_match", "url_semantic_match",
		"element_path_exactly_match", "element_path_included_match",
		"element_value_exactly_match", "element_value_included_match",
		"element_value_semantic_match", "cache_data_exact_match", "cache_data_included_match",
		"cache_data_semantic_match", "final_answer_exact_match", "final_answer_included_match",
		"final_answer_semantic_match"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		kn_keynode kn = {0};
		assert_int_equal(kn_keynode_parse_function(&kn, names[i]), 0);
		assert_string_equal(kn_keynode_function_name(kn.target, kn.matcher), names[i]);
	}
	kn_keynode kn = {0};
	assert_int_equal(kn_keynode_parse_function(&kn, "element_path_semantic_match"), KN_EINVAL);
	assert_int_equal(kn_keynode_parse_function(&kn, ""), KN_EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_file),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_limits_and_empty),
		cmocka_unit_test(test_every_function_name),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
