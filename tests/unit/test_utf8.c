/* test_utf8.c — keynode/utf8.h: decoding to code points (every length, every kind of ill-formed
 * sequence read as one bad byte), encoding back, and the decode/encode round trip over all of
 * Unicode's scalar values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "keynode/utf8.h"

static void test_decode(void **state)
{
	(void)state;
	static const struct { const char *s; size_t len; uint32_t cp; } ok[] = {
		{"A", 1, 0x41}, {"\xC3\xA9", 2, 0xE9}, {"\xE2\x82\xAC", 3, 0x20AC},
		{"\xF0\x9F\x98\x80", 4, 0x1F600}, {"\xF4\x8F\xBF\xBF", 4, 0x10FFFF}, {"\xEF\xBF\xBD", 3, 0xFFFD},
	};
	for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
		uint32_t cp = 0;
		assert_int_equal(kn_utf8_decode((const unsigned char *)ok[i].s, strlen(ok[i].s), &cp), ok[i].len);
		assert_int_equal(cp, ok[i].cp);
	}
	/* overlong, surrogate, past U+10FFFF, stray continuation, bad lead, cut short */
	static const char *const bad[] = {"\xC0\xAF", "\xC1\xBF", "\xE0\x80\xAF", "\xED\xA0\x80", "\xF4\x90\x80\x80",
	                                  "\xF5\x80\x80\x80", "\x80", "\xBF", "\xFF", "\xE2\x82", "\xF0\x9F\x98"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		uint32_t cp = 0;
		assert_int_equal(kn_utf8_decode((const unsigned char *)bad[i], strlen(bad[i]), &cp), 1);
		assert_int_equal(cp, KN_UTF8_BAD);
	}
	/* a sequence cut by the available length, though the bytes are there */
	uint32_t cp = 0;
	assert_int_equal(kn_utf8_decode((const unsigned char *)"\xE2\x82\xAC", 2, &cp), 1);
	assert_int_equal(cp, KN_UTF8_BAD);
}

static void test_round_trip(void **state)
{
	(void)state;
	for (uint32_t cp = 0; cp <= 0x10FFFF; cp++) {
		if (cp >= 0xD800 && cp <= 0xDFFF)
			continue;
		char buf[4];
		size_t n = kn_utf8_encode(buf, cp);
		assert_true(n == (cp < 0x80 ? 1u : cp < 0x800 ? 2u : cp < 0x10000 ? 3u : 4u));
		uint32_t back = 0;
		assert_int_equal(kn_utf8_decode((const unsigned char *)buf, n, &back), n);
		assert_int_equal(back, cp);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode),
		cmocka_unit_test(test_round_trip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
