/* test_json_depth.c — kn_json_depth_exceeds (keynode/json_depth.h), the one nesting check before
 * jansson parses a task file (task_mind2web.c) or an HTTP request body (services/http/request.c):
 * the limit itself passes and one more level does not; brackets inside strings, escaped quotes
 * included, are not counted; closers with nothing open do not hide the depth that follows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "keynode/json_depth.h"
#include "keynode/task.h"

static int exceeds(const char *s, int max)
{
	return kn_json_depth_exceeds(s, strlen(s), max);
}

static void test_limit(void **state)
{
	(void)state;
	assert_int_equal(exceeds("[[{\"a\":1}]]", 3), 0);
	assert_int_equal(exceeds("[[{\"a\":[1]}]]", 3), 1);
	assert_int_equal(exceeds("[] [] {} {\"a\":{}}", 2), 0);
	assert_int_equal(exceeds("", 0), 0);
	assert_int_equal(exceeds("1", 0), 0);
	assert_int_equal(exceeds("[", 0), 1);
}

static void test_strings(void **state)
{
	(void)state;
	assert_int_equal(exceeds("[\"[[[[{{{{\"]", 1), 0);
	assert_int_equal(exceeds("[\"\\\"[[[[\"]", 1), 0);      /* an escaped quote does not end the string */
	assert_int_equal(exceeds("[\"\\\\\",[[1]]]", 2), 1);     /* an escaped backslash does */
	assert_int_equal(exceeds("{\"k\\\"]]]\":[[1]]}", 3), 0); /* closers in a key are not counted either */
}

/* Unbalanced closers once lowered the count below zero in the task loader's copy, so that
 * "]]]]" followed by max + 3 openers passed as max - 1 levels. */
static void test_stray_closers(void **state)
{
	(void)state;
	assert_int_equal(exceeds("]]]][[[[[", 4), 1);
	assert_int_equal(exceeds("}}}}{{{{{", 4), 1);
	assert_int_equal(exceeds("]]]][[[[", 4), 0);
}

/* The Mind2Web loader refuses stray closers hiding deep nesting before jansson sees it. */
static void test_mind2web(void **state)
{
	(void)state;
	char doc[600];
	size_t n = 0;
	for (int i = 0; i < 100; i++)
		doc[n++] = ']';
	for (int i = 0; i < KN_LOAD_MAX_DEPTH + 50; i++)
		doc[n++] = '[';
	kn_taskset *set = NULL;
	kn_err err = {0};
	assert_int_equal(kn_task_load_mind2web(&set, doc, n, "deep.json", NULL, &err), KN_ELIMIT);
	assert_null(set);
	assert_non_null(strstr(err.msg, "nesting deeper than"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_limit),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_stray_closers),
		cmocka_unit_test(test_mind2web),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
