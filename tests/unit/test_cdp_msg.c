/* test_cdp_msg.c — kn_cdp_decode on the two CDP shapes as Chromium writes them (replies with a
 * result or an error, events with and without params, flattened sessions) and on everything it
 * must refuse with KN_EPROTO: truncated or invalid JSON, non-object roots, wrong member types,
 * both or neither of id/method and of result/error, ids that are not integers or overflow. Unknown
 * members are ignored. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "cdp.h"

static int decode(kn_cdp_msg *m, const char *s, kn_err *err)
{
	return kn_cdp_decode(m, s, strlen(s), err);
}

static void reply_with_result(void **state)
{
	(void)state;
	kn_cdp_msg m;
	kn_err err;
	assert_int_equal(decode(&m, "{\"id\":7,\"result\":{\"product\":\"Chrome/156\"}}", &err), 0);
	assert_int_equal(m.kind, KN_CDP_REPLY);
	assert_int_equal(m.id, 7);
	assert_null(m.error);
	assert_null(m.session_id);
	assert_null(m.method);
	assert_string_equal(json_string_value(json_object_get(m.params, "product")), "Chrome/156");
	json_decref(m.root);
}

static void reply_with_error(void **state)
{
	(void)state;
	kn_cdp_msg m;
	kn_err err;
	assert_int_equal(decode(&m,
	                        "{\"id\":2,\"error\":{\"code\":-32601,\"message\":\"'Foo.bar' wasn't "
	                        "found\"},\"sessionId\":\"AB12\"}",
	                        &err),
	                 0);
	assert_int_equal(m.kind, KN_CDP_REPLY);
	assert_int_equal(m.id, 2);
	assert_string_equal(m.error, "'Foo.bar' wasn't found");
	assert_string_equal(m.session_id, "AB12");
	assert_null(m.params);
	json_decref(m.root);
}

static void event_with_session(void **state)
{
	(void)state;
	kn_cdp_msg m;
	kn_err err;
	assert_int_equal(decode(&m,
	                        "{\"method\":\"Runtime.bindingCalled\",\"params\":{\"name\":\"kn\","
	                        "\"payload\":\"{}\",\"executionContextId\":3},\"sessionId\":\"S1\"}",
	                        &err),
	                 0);
	assert_int_equal(m.kind, KN_CDP_EVENT);
	assert_string_equal(m.method, "Runtime.bindingCalled");
	assert_string_equal(m.session_id, "S1");
	assert_int_equal(json_integer_value(json_object_get(m.params, "executionContextId")), 3);
	json_decref(m.root);
}

static void event_without_params(void **state)
{
	(void)state;
	kn_cdp_msg m;
	kn_err err;
	assert_int_equal(decode(&m, "{\"method\":\"Inspector.detached\"}", &err), 0);
	assert_int_equal(m.kind, KN_CDP_EVENT);
	assert_null(m.params);
	assert_null(m.session_id);
	json_decref(m.root);
}

static void unknown_members_and_whitespace(void **state)
{
	(void)state;
	kn_cdp_msg m;
	kn_err err;
	assert_int_equal(decode(&m, " {\n \"extra\": [1, 2], \"id\" : 0 , \"result\" : { } ,"
	                            " \"future\": {\"x\": null}}\n", &err),
	                 0);
	assert_int_equal(m.kind, KN_CDP_REPLY);
	assert_int_equal(m.id, 0);
	assert_non_null(m.params);
	json_decref(m.root);
}

static void ids_at_the_edges(void **state)
{
	(void)state;
	kn_cdp_msg m;
	kn_err err;
	assert_int_equal(decode(&m, "{\"id\":9223372036854775807,\"result\":{}}", &err), 0);
	assert_int_equal(m.id, 9223372036854775807LL);
	json_decref(m.root);
	assert_int_equal(decode(&m, "{\"id\":-1,\"result\":{}}", &err), 0);
	assert_int_equal(m.id, -1);
	json_decref(m.root);
	/* past json_int_t: refused by the parser, not wrapped */
	assert_int_equal(decode(&m, "{\"id\":9223372036854775808,\"result\":{}}", &err), KN_EPROTO);
	assert_int_equal(decode(&m, "{\"id\":123456789012345678901234567890,\"result\":{}}", &err),
	                 KN_EPROTO);
	assert_null(m.root);
}

static void nul_bytes(void **state)
{
	(void)state;
	kn_cdp_msg m;
	kn_err err;
	/* a NUL inside a value a page returned is data */
	static const char ok[] = "{\"id\":1,\"result\":{\"value\":\"a\\u0000b\"}}";
	assert_int_equal(kn_cdp_decode(&m, ok, sizeof ok - 1, &err), 0);
	assert_int_equal(json_string_length(json_object_get(m.params, "value")), 3);
	json_decref(m.root);
	/* ... but not inside an identifier */
	assert_int_equal(decode(&m, "{\"method\":\"A.b\\u0000c\"}", &err), KN_EPROTO);
	assert_int_equal(decode(&m, "{\"method\":\"A.b\",\"sessionId\":\"x\\u0000\"}", &err),
	                 KN_EPROTO);
	/* a raw NUL byte in the buffer is invalid JSON */
	static const char raw[] = "{\"id\":1,\"result\":{}}\0";
	assert_int_equal(kn_cdp_decode(&m, raw, sizeof raw, &err), KN_EPROTO);
}

/* Every one of these must be KN_EPROTO with a message, and leave nothing to free. */
static void malformed(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"",
		" ",
		"{",
		"{\"id\":1,\"result\":{\"a\":",
		"{\"id\":1,\"result\":{}",
		"{\"id\":1,\"result\":{}}}",
		"{\"id\":1,\"result\":{}} trailing",
		"null",
		"42",
		"\"str\"",
		"[{\"id\":1,\"result\":{}}]",
		"{}",
		"{\"params\":{}}",
		"{\"id\":1,\"method\":\"A.b\",\"result\":{}}",
		"{\"id\":\"1\",\"result\":{}}",
		"{\"id\":1.0,\"result\":{}}",
		"{\"id\":1e3,\"result\":{}}",
		"{\"id\":true,\"result\":{}}",
		"{\"id\":null,\"result\":{}}",
		"{\"id\":1}",
		"{\"id\":1,\"result\":{},\"error\":{\"message\":\"x\"}}",
		"{\"id\":1,\"result\":[]}",
		"{\"id\":1,\"result\":\"ok\"}",
		"{\"id\":1,\"result\":null}",
		"{\"id\":1,\"error\":\"boom\"}",
		"{\"id\":1,\"error\":{}}",
		"{\"id\":1,\"error\":{\"message\":7}}",
		"{\"id\":1,\"result\":{},\"sessionId\":5}",
		"{\"method\":7}",
		"{\"method\":null}",
		"{\"method\":\"\"}",
		"{\"method\":\"A.b\",\"params\":[]}",
		"{\"method\":\"A.b\",\"params\":\"x\"}",
		"{\"method\":\"A.b\",\"params\":null}",
		"{\"method\":\"A.b\",\"sessionId\":null}",
		"{\"method\":\"A.b\",\"sessionId\":{}}",
		"{'method':'A.b'}",
		"{\"method\":\"A.b\",}",
		"{\"method\":\"\xff\xfe\"}",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		kn_cdp_msg m;
		kn_err err = {0};
		int rc = decode(&m, bad[i], &err);
		if (rc != KN_EPROTO)
			print_error("input %zu: %s\n", i, bad[i]);
		assert_int_equal(rc, KN_EPROTO);
		assert_int_equal(err.code, KN_EPROTO);
		assert_true(strncmp(err.msg, "cdp ", 4) == 0);
		assert_null(m.root);
		assert_null(m.params);
	}
	kn_cdp_msg m;
	assert_int_equal(kn_cdp_decode(&m, NULL, 0, NULL), KN_EPROTO);
}

static void error_detail(void **state)
{
	(void)state;
	kn_cdp_msg m;
	kn_err err;
	decode(&m, "{\"id\":1,\"result\":{\"a\":", &err);
	assert_non_null(strstr(err.msg, "invalid JSON at 1:"));
	decode(&m, "{\"id\":4,\"result\":[]}", &err);
	assert_string_equal(err.msg, "cdp reply 4: 'result' is not an object");
	decode(&m, "{\"method\":\"Page.x\",\"params\":1}", &err);
	assert_string_equal(err.msg, "cdp event Page.x: 'params' is not an object");
}

/* Deep nesting is refused by the parser's depth cap, not by the stack. */
static void deep_nesting(void **state)
{
	(void)state;
	size_t depth = 100000;
	char *s = malloc(depth * 2 + 64);
	assert_non_null(s);
	size_t n = (size_t)sprintf(s, "{\"id\":1,\"result\":{\"a\":");
	for (size_t i = 0; i < depth; i++)
		s[n++] = '[';
	for (size_t i = 0; i < depth; i++)
		s[n++] = ']';
	n += (size_t)sprintf(s + n, "}}");
	kn_cdp_msg m;
	kn_err err;
	assert_int_equal(kn_cdp_decode(&m, s, n, &err), KN_EPROTO);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reply_with_result),
		cmocka_unit_test(reply_with_error),
		cmocka_unit_test(event_with_session),
		cmocka_unit_test(event_without_params),
		cmocka_unit_test(unknown_members_and_whitespace),
		cmocka_unit_test(ids_at_the_edges),
		cmocka_unit_test(nul_bytes),
		cmocka_unit_test(malformed),
		cmocka_unit_test(error_detail),
		cmocka_unit_test(deep_nesting),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
