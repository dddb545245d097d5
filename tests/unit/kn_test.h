/* kn_test.h — what the unit tests share beyond cmocka 1.1.5: a double comparison that prints
 * both values (cmocka's assert_float_equal works in float precision). Include after cmocka.h. */
#ifndef KN_TEST_H
#define KN_TEST_H

#include <math.h>

#define assert_double_equal(a, b, eps) kn_assert_double_equal((a), (b), (eps), #a, __FILE__, __LINE__)

static inline void kn_assert_double_equal(double a, double b, double eps, const char *expr,
                                          const char *file, int line)
{
	if (!(fabs(a - b) <= eps)) {
		print_error("%s = %.17g, want %.17g (±%g)\n", expr, a, b, eps);
		_fail(file, line);
	}
}

#endif
