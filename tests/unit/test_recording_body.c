/* test_recording_body.c — the body of POST /api/tasks/{id}/recordings (services/runs/api_recordings.c
 * kn_api_recording_body_parse): nothing, or {"reason": TEXT}; anything else is KN_EINVAL with a message,
 * never a crash (malformed JSON, other shapes and types, unknown members, empty, too long or control
 * characters). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "api_recordings.h"

static int parse(const char *body, char *reason)
{
	kn_err err = {0};
	int rc = kn_api_recording_body_parse(body, strlen(body), reason, &err);
	if (rc)
		assert_true(err.msg[0] != '\0');
	return rc;
}

static void test_accepted(void **state)
{
	(void)state;
	char reason[KN_RECORDING_REASON_MAX + 1] = "x";
	assert_int_equal(parse("", reason), 0);
	assert_string_equal(reason, "");
	assert_int_equal(parse("{}", reason), 0);
	assert_string_equal(reason, "");
	assert_int_equal(parse("{\"reason\": \"the checkout moved\"}", reason), 0);
	assert_string_equal(reason, "the checkout moved");
	assert_int_equal(parse(" {\"reason\": \"caf\\u00e9\"} ", reason), 0);
	assert_string_equal(reason, "caf\xc3\xa9");
	char big[KN_RECORDING_REASON_MAX + 32];
	snprintf(big, sizeof big, "{\"reason\": \"%0*d\"}", KN_RECORDING_REASON_MAX, 0);
	assert_int_equal(parse(big, reason), 0);
	assert_int_equal(strlen(reason), KN_RECORDING_REASON_MAX);
}

static void test_refused(void **state)
{
	(void)state;
	char reason[KN_RECORDING_REASON_MAX + 1];
	const char *bad[] = {"{", "[]", "null", "5", "\"reason\"", "{\"reason\": 5}", "{\"reason\": null}",
	                     "{\"reason\": \"\"}", "{\"reason\": \"a\\u0001b\"}", "{\"reason\": \"a\\nb\"}",
	                     "{\"why\": \"x\"}", "{\"reason\": \"a\", \"reason\": \"b\"}", "{\"reason\": \"a\"} x",
	                     "{\"reason\": [\"a\"]}", "{\"reason\": \"a\\u0000b\"}"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_int_equal(parse(bad[i], reason), KN_EINVAL);
	char big[KN_RECORDING_REASON_MAX + 32];
	snprintf(big, sizeof big, "{\"reason\": \"%0*d\"}", KN_RECORDING_REASON_MAX + 1, 0);
	assert_int_equal(parse(big, reason), KN_EINVAL);
	/* a body with a NUL inside: JSON stops being valid there */
	kn_err err = {0};
	assert_int_equal(kn_api_recording_body_parse("{\"reason\":\0\"x\"}", 14, reason, &err), KN_EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_accepted), cmocka_unit_test(test_refused)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
