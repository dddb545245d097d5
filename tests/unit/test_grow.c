/* test_grow.c — kn_grow and kn_grow_to (keynode/grow.h): the capacity starts at first and doubles only
 * when full (kn_grow_to: as often as it takes, in one reallocation), elements survive each
 * reallocation, and an impossible size is refused with nothing changed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "keynode/error.h"
#include "keynode/grow.h"

static void test_doubling(void **state)
{
	(void)state;
	int *a = NULL;
	size_t n = 0, cap = 0;
	size_t caps[] = {0, 0};
	for (int i = 0; i < 100; i++) {
		assert_int_equal(kn_grow(&a, n, &cap, sizeof *a, 4), 0);
		assert_true(cap > n);
		if (i == 0)
			caps[0] = cap;
		if (i == 4)
			caps[1] = cap;
		a[n++] = i;
	}
	assert_int_equal(caps[0], 4);
	assert_int_equal(caps[1], 8);
	assert_int_equal(cap, 128);
	for (int i = 0; i < 100; i++)
		assert_int_equal(a[i], i);
	/* not full: nothing moves */
	int *before = a;
	assert_int_equal(kn_grow(&a, 50, &cap, sizeof *a, 4), 0);
	assert_ptr_equal(a, before);
	assert_int_equal(cap, 128);
	free(a);
}

static void test_overflow(void **state)
{
	(void)state;
	char *a = malloc(1);
	assert_non_null(a);
	size_t cap = 1;
	/* doubling to 2 elements of SIZE_MAX / 2 + 1 bytes overflows */
	assert_int_equal(kn_grow(&a, 1, &cap, SIZE_MAX / 2 + 1, 4), KN_ENOMEM);
	assert_int_equal(cap, 1);
	assert_non_null(a);
	size_t big = SIZE_MAX / 2 + 1;
	assert_int_equal(kn_grow(&a, big, &big, 1, 4), KN_ENOMEM); /* the capacity itself overflows */
	free(a);
}

static void test_grow_to(void **state)
{
	(void)state;
	char *b = NULL;
	size_t cap = 0;
	assert_int_equal(kn_grow_to(&b, 0, &cap, 1, 64), 0); /* nothing needed: nothing allocated */
	assert_null(b);
	assert_int_equal(cap, 0);
	assert_int_equal(kn_grow_to(&b, 10, &cap, 1, 64), 0);
	assert_int_equal(cap, 64);
	memset(b, 'x', 10);
	assert_int_equal(kn_grow_to(&b, 64, &cap, 1, 64), 0); /* fits: unchanged */
	assert_int_equal(cap, 64);
	assert_int_equal(kn_grow_to(&b, 300, &cap, 1, 64), 0); /* 64 → 128 → 256 → 512 */
	assert_int_equal(cap, 512);
	assert_memory_equal(b, "xxxxxxxxxx", 10);
	/* a capacity that does not start at a power of two keeps doubling from where it is */
	size_t cap2 = 0;
	int *a = NULL;
	assert_int_equal(kn_grow_to(&a, 5, &cap2, sizeof *a, 3), 0);
	assert_int_equal(cap2, 6);
	free(a);
	/* refused, nothing changed: first 0, a count past what doubling reaches, a byte size overflowing */
	char *before = b;
	size_t z = 0;
	char *none = NULL;
	assert_int_equal(kn_grow_to(&none, 1, &z, 1, 0), KN_ENOMEM);
	assert_int_equal(kn_grow_to(&b, SIZE_MAX, &cap, 1, 64), KN_ENOMEM);
	assert_int_equal(kn_grow_to(&b, SIZE_MAX / 4, &cap, 8, 64), KN_ENOMEM);
	assert_ptr_equal(b, before);
	assert_int_equal(cap, 512);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_doubling),
		cmocka_unit_test(test_overflow),
		cmocka_unit_test(test_grow_to),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
