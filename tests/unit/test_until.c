/* test_until.c — kn_until_parse (keynode/until.h), the one parser of `--until` and the API's "until":
 * each condition, several added together, the bounds, and malformed text refused with *out unchanged. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "keynode/error.h"
#include "keynode/until.h"

static void test_each_and_together(void **state)
{
	(void)state;
	kn_until u = {0};
	assert_int_equal(kn_until_parse(&u, NULL), 0);
	assert_int_equal(kn_until_parse(&u, ""), 0);
	assert_true(!u.finished && u.idle_s == 0 && u.steps == 0);
	assert_int_equal(kn_until_parse(&u, "finished"), 0);
	assert_int_equal(kn_until_parse(&u, "idle:2.5"), 0);
	assert_int_equal(kn_until_parse(&u, "steps:7"), 0);
	assert_int_equal(u.finished, 1);
	assert_true(u.idle_s == 2.5);
	assert_int_equal(u.steps, 7);
}

static void test_bounds(void **state)
{
	(void)state;
	kn_until u = {0};
	assert_int_equal(kn_until_parse(&u, "idle:86400"), 0);
	assert_int_equal(kn_until_parse(&u, "steps:1"), 0);
	assert_int_equal(kn_until_parse(&u, "steps:100000"), 0);
	assert_int_equal(u.steps, 100000);
	static const char *const bad[] = {"idle:0", "idle:-1", "idle:86401", "idle:nan", "idle:", "idle:3s",
	                                  "steps:0", "steps:100001", "steps:-2", "steps:", "steps:1.5",
	                                  "steps:99999999999999999999", "finished ", "Finished", "idle",
	                                  "steps", "done", ":", "idle:inf"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		kn_until v = {.finished = 1, .idle_s = 4, .steps = 3};
		assert_int_equal(kn_until_parse(&v, bad[i]), KN_EINVAL);
		assert_true(v.finished == 1 && v.idle_s == 4 && v.steps == 3); /* unchanged */
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_and_together),
		cmocka_unit_test(test_bounds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
