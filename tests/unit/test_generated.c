/* test_generated.c — keynodes/src/selector/generated.c, the C mirror of services/recorder/generated.js, over
 * the table both are tested on (tests/data/generated_names.json; generated.test.mjs runs the
 * JavaScript over it): every generated id and class is judged generated, every stable one stable.
 * A rule changed in one implementation and not the other fails one of the two tests. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>

#include "keynode/generated.h"

static json_t *table(void)
{
	json_error_t e;
	json_t *t = json_load_file(KN_TESTS_DIR "/data/generated_names.json", 0, &e);
	if (!t)
		fail_msg("generated_names.json:%d: %s", e.line, e.text);
	return t;
}

/* every name of t[kind][group] is judged want by fn; returns how many names were checked */
static size_t check(json_t *t, const char *kind, const char *group, int (*fn)(const char *), int want)
{
	json_t *list = json_object_get(json_object_get(t, kind), group);
	assert_true(json_is_array(list) && json_array_size(list) > 0);
	size_t i, bad = 0;
	json_t *v;
	json_array_foreach(list, i, v) {
		const char *s = json_string_value(v);
		if (fn(s) != want) {
			print_message("%s \"%s\" should be %s\n", kind, s, want ? "generated" : "stable");
			bad++;
		}
	}
	assert_int_equal(bad, 0);
	return json_array_size(list);
}

static void test_ids(void **state)
{
	(void)state;
	json_t *t = table();
	check(t, "ids", "generated", kn_generated_id, 1);
	check(t, "ids", "stable", kn_generated_id, 0);
	json_decref(t);
}

static void test_classes(void **state)
{
	(void)state;
	json_t *t = table();
	check(t, "classes", "generated", kn_generated_class, 1);
	check(t, "classes", "stable", kn_generated_class, 0);
	json_decref(t);
}

static void test_edges(void **state)
{
	(void)state;
	assert_int_equal(kn_generated_id(NULL), 0);
	assert_int_equal(kn_generated_id(""), 0);
	assert_int_equal(kn_generated_class(NULL), 0);
	assert_int_equal(kn_generated_class(""), 0);
	assert_int_equal(kn_generated_class("css-"), 0); /* no hash after the prefix */
	assert_int_equal(kn_generated_class("css-a--1b"), 0);
	assert_int_equal(kn_generated_class("sc-"), 0);
	assert_int_equal(kn_generated_id("_r__"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ids),
		cmocka_unit_test(test_classes),
		cmocka_unit_test(test_edges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
