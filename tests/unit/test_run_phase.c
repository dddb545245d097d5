/* test_run_phase.c — the transition table of a run's end (services/monitor/run_phase.h): every
 * pair of phases against the table services/monitor/README.md documents, the paths a run takes to
 * its end with the reason each records, and a move the table lacks leaving the run as it was. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "run_phase.h"

#define N_PHASES (KN_RUN_ENDED + 1)

/* README.md "The run's end": 1 where a run may move from the row's phase to the column's */
static const int expected[N_PHASES][N_PHASES] = {
	/*               WATCH FLUSH PURCH CHECK VERD  ENDED */
	[KN_RUN_WATCHING] = {0, 1, 0, 0, 1, 1},
	[KN_RUN_FLUSHING] = {0, 0, 1, 1, 1, 1},
	[KN_RUN_PURCHASE] = {0, 0, 0, 1, 1, 1},
	[KN_RUN_CHECKS] = {0, 0, 0, 0, 1, 1},
	[KN_RUN_VERDICTS] = {0, 0, 0, 0, 0, 1},
	[KN_RUN_ENDED] = {0, 0, 0, 0, 0, 0},
};

static void test_table(void **state)
{
	(void)state;
	for (int from = 0; from < N_PHASES; from++)
		for (int to = 0; to < N_PHASES; to++) {
			int got = kn_run_phase_allowed((kn_run_phase)from, (kn_run_phase)to);
			if (got != expected[from][to])
				fail_msg("%s -> %s: allowed %d, expected %d", kn_run_phase_name((kn_run_phase)from),
				         kn_run_phase_name((kn_run_phase)to), got, expected[from][to]);
		}
	/* out of range either way: never */
	assert_false(kn_run_phase_allowed(KN_RUN_WATCHING, (kn_run_phase)N_PHASES));
	assert_false(kn_run_phase_allowed((kn_run_phase)N_PHASES, KN_RUN_ENDED));
	assert_false(kn_run_phase_allowed((kn_run_phase)-1, KN_RUN_ENDED));
}

static void test_names(void **state)
{
	(void)state;
	const char *want[] = {"watching", "flushing", "purchase", "checks", "verdicts", "ended"};
	for (int p = 0; p < N_PHASES; p++)
		assert_string_equal(kn_run_phase_name((kn_run_phase)p), want[p]);
	assert_string_equal(kn_run_phase_name((kn_run_phase)N_PHASES), "unknown");
}

/* The longest way: stopped when idle, a purchase read, page checks, verdicts awaited. */
static void test_longest_path(void **state)
{
	(void)state;
	kn_run_end e = {0};
	assert_int_equal(e.phase, KN_RUN_WATCHING);
	assert_int_equal(kn_run_end_set(&e, KN_RUN_FLUSHING, KN_END_IDLE), 0);
	assert_int_equal(kn_run_end_set(&e, KN_RUN_PURCHASE, e.why), 0);
	assert_int_equal(kn_run_end_set(&e, KN_RUN_CHECKS, e.why), 0);
	assert_int_equal(kn_run_end_set(&e, KN_RUN_VERDICTS, e.why), 0);
	assert_int_equal(kn_run_end_set(&e, KN_RUN_ENDED, e.why), 0);
	assert_int_equal(e.phase, KN_RUN_ENDED);
	assert_int_equal(e.why, KN_END_IDLE);
}

/* The browser going away ends a run in any phase but the last, with its own reason. */
static void test_browser_gone(void **state)
{
	(void)state;
	for (int p = KN_RUN_WATCHING; p < KN_RUN_ENDED; p++) {
		kn_run_end e = {.phase = (kn_run_phase)p, .why = KN_END_FINISHED};
		assert_int_equal(kn_run_end_set(&e, KN_RUN_ENDED, KN_END_BROWSER_GONE), 0);
		assert_int_equal(e.why, KN_END_BROWSER_GONE);
		if (p < KN_RUN_VERDICTS) { /* or waits for verdicts first */
			kn_run_end w = {.phase = (kn_run_phase)p, .why = KN_END_FINISHED};
			assert_int_equal(kn_run_end_set(&w, KN_RUN_VERDICTS, KN_END_BROWSER_GONE), 0);
			assert_int_equal(w.why, KN_END_BROWSER_GONE);
		}
	}
}

/* A move the table lacks is a programming error: in a build with assertions it aborts, so only
 * a build without them (NDEBUG, as ctest's RelWithDebInfo) sees the run left as it was. */
static void test_invalid_move(void **state)
{
	(void)state;
#ifdef NDEBUG
	kn_run_end e = {.phase = KN_RUN_ENDED, .why = KN_END_GUARD};
	assert_int_equal(kn_run_end_set(&e, KN_RUN_FLUSHING, KN_END_IDLE), KN_EINVAL);
	assert_int_equal(e.phase, KN_RUN_ENDED);
	assert_int_equal(e.why, KN_END_GUARD);
	kn_run_end w = {.phase = KN_RUN_VERDICTS, .why = KN_END_STEPS};
	assert_int_equal(kn_run_end_set(&w, KN_RUN_VERDICTS, KN_END_BROWSER_GONE), KN_EINVAL);
	assert_int_equal(w.why, KN_END_STEPS);
#else
	skip();
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_longest_path),
		cmocka_unit_test(test_browser_gone),
		cmocka_unit_test(test_invalid_move),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
