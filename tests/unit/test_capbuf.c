/* test_capbuf.c — kn_capbuf_write (keynode/capbuf.h): appends stay NUL-terminated, a piece that would
 * pass the cap is refused whole (0, over set) and nothing is taken after it, an empty piece is fine. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "keynode/capbuf.h"

static void test_appends(void **state)
{
	(void)state;
	kn_capbuf b = {.cap = 8};
	char abc[] = "abc", de[] = "de", fgh[] = "fgh", x[] = "x";
	assert_int_equal(kn_capbuf_write(abc, 1, 3, &b), 3);
	assert_int_equal(kn_capbuf_write(de, 2, 1, &b), 2);
	assert_string_equal(b.p, "abcde");
	assert_int_equal(b.n, 5);
	assert_int_equal(kn_capbuf_write(fgh, 1, 0, &b), 0); /* nothing to take: not an error */
	assert_false(b.over);
	assert_int_equal(kn_capbuf_write(fgh, 1, 3, &b), 3); /* exactly the cap */
	assert_string_equal(b.p, "abcdefgh");
	assert_int_equal(kn_capbuf_write(x, 1, 1, &b), 0); /* one byte past it */
	assert_true(b.over);
	assert_int_equal(b.n, 8);
	assert_string_equal(b.p, "abcdefgh");
	free(b.p);
}

static void test_over(void **state)
{
	(void)state;
	kn_capbuf b = {.cap = 4};
	char big[] = "hello", ok[] = "ok";
	assert_int_equal(kn_capbuf_write(big, 1, 5, &b), 0); /* refused whole */
	assert_true(b.over);
	assert_null(b.p);
	assert_int_equal(kn_capbuf_write(ok, 1, 2, &b), 0); /* nothing after an overflow */
	assert_null(b.p);
	kn_capbuf c = {.cap = SIZE_MAX};
	assert_int_equal(kn_capbuf_write(ok, SIZE_MAX, 2, &c), 0); /* size * nmemb overflows */
	assert_null(c.p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_appends),
		cmocka_unit_test(test_over),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
