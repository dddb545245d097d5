/* test_taskset_health.c — a task set's health over time (services/scheduler/taskset_health.h) on
 * hand-worked histories: the worked example of docs/maintain.md (validated share, breaks per month,
 * detection times, the Kaplan-Meier curve and its median), no replays at all, tasks that never
 * passed, a task broken twice without passing in between, a re-fixed task, events after now,
 * a month boundary at the turn of the year, an interval ending and one censored at the same duration,
 * and bad arguments. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "taskset_health.h"

#define D INT64_C(86400000)
#define T0 INT64_C(1767225600000) /* 2026-01-01T00:00:00Z */

#define P KN_TH_PASS
#define B KN_TH_BREAK

static void worked_example(void **state)
{
	(void)state;
	/* A passes days 0, 5 and 10, breaks day 12; B passes days 0, 20 and 35; C passes day 5, breaks
	 * day 20, passes day 25, breaks day 38; D passes days 2, 15 and 30, breaks day 33, passes day 36;
	 * E has no replay. Now: day 40 (2026-02-10). Given out of order on purpose. */
	const kn_th_event ev[] = {
		{2, T0 + 38 * D, B}, {0, T0, P}, {0, T0 + 10 * D, P}, {0, T0 + 12 * D, B}, {0, T0 + 5 * D, P},
		{1, T0, P}, {1, T0 + 35 * D, P}, {1, T0 + 20 * D, P}, {2, T0 + 5 * D, P}, {2, T0 + 20 * D, B},
		{2, T0 + 25 * D, P}, {3, T0 + 2 * D, P}, {3, T0 + 30 * D, P}, {3, T0 + 33 * D, B},
		{3, T0 + 36 * D, P}, {3, T0 + 15 * D, P}};
	kn_th_summary *s = NULL;
	kn_err err = {0};
	assert_int_equal(kn_th_compute(&s, 5, ev, sizeof ev / sizeof *ev, T0 + 40 * D, 7, &err), 0);
	assert_int_equal(s->tasks, 5);
	assert_int_equal(s->validated, 2); /* B (day 35) and D (day 36) */
	assert_int_equal(s->nbreaks, 4);
	const struct { size_t task; int64_t at, det; } br[] = {
		{0, 12 * D, 2 * D}, {2, 20 * D, 15 * D}, {3, 33 * D, 3 * D}, {2, 38 * D, 13 * D}};
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(s->breaks[i].task, br[i].task);
		assert_int_equal(s->breaks[i].at, T0 + br[i].at);
		assert_int_equal(s->breaks[i].detection_ms, br[i].det);
	}
	assert_int_equal(s->nmonths, 2);
	assert_int_equal(s->months[0].year, 2026);
	assert_int_equal(s->months[0].month, 1);
	assert_int_equal(s->months[0].breaks, 2);
	assert_int_equal(s->months[1].month, 2);
	assert_int_equal(s->months[1].breaks, 2);
	/* intervals: A 12 ended, C 15 ended, D 31 ended, B 40 censored */
	assert_int_equal(s->intervals, 4);
	assert_int_equal(s->ended, 3);
	assert_int_equal(s->ncurve, 4);
	const struct { int64_t t; long risk, ended, cens; double surv; } km[] = {
		{12 * D, 4, 1, 0, 0.75}, {15 * D, 3, 1, 0, 0.5}, {31 * D, 2, 1, 0, 0.25}, {40 * D, 1, 0, 1, 0.25}};
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(s->curve[i].t_ms, km[i].t);
		assert_int_equal(s->curve[i].at_risk, km[i].risk);
		assert_int_equal(s->curve[i].ended, km[i].ended);
		assert_int_equal(s->curve[i].censored, km[i].cens);
		assert_float_equal(s->curve[i].survival, km[i].surv, 1e-12);
	}
	assert_int_equal(s->median_ms, 15 * D);
	kn_th_summary_free(s);
}

static void no_replays(void **state)
{
	(void)state;
	kn_th_summary *s = NULL;
	assert_int_equal(kn_th_compute(&s, 3, NULL, 0, T0, 7, NULL), 0);
	assert_int_equal(s->tasks, 3);
	assert_int_equal(s->validated, 0);
	assert_int_equal(s->nbreaks, 0);
	assert_int_equal(s->intervals, 0);
	assert_int_equal(s->ncurve, 0);
	assert_int_equal(s->median_ms, -1);
	assert_int_equal(s->nmonths, 1); /* now's month, no breaks */
	assert_int_equal(s->months[0].breaks, 0);
	kn_th_summary_free(s);
	assert_int_equal(kn_th_compute(&s, 0, NULL, 0, T0, 7, NULL), 0);
	assert_int_equal(s->tasks, 0);
	kn_th_summary_free(s);
}

static void all_broken(void **state)
{
	(void)state;
	/* two tasks that never passed: breaks without detection time, no interval */
	const kn_th_event ev[] = {{0, T0 + 3 * D, B}, {1, T0 + 4 * D, B}};
	kn_th_summary *s = NULL;
	assert_int_equal(kn_th_compute(&s, 2, ev, 2, T0 + 10 * D, 7, NULL), 0);
	assert_int_equal(s->validated, 0);
	assert_int_equal(s->nbreaks, 2);
	assert_int_equal(s->breaks[0].detection_ms, -1);
	assert_int_equal(s->breaks[1].last_pass, -1);
	assert_int_equal(s->intervals, 0);
	assert_int_equal(s->median_ms, -1);
	kn_th_summary_free(s);
}

static void broken_twice_without_pass(void **state)
{
	(void)state;
	/* broken, then (through an outage) broken again: the second has no detection time */
	const kn_th_event ev[] = {{0, T0, P}, {0, T0 + 5 * D, B}, {0, T0 + 9 * D, B}};
	kn_th_summary *s = NULL;
	assert_int_equal(kn_th_compute(&s, 1, ev, 3, T0 + 10 * D, 7, NULL), 0);
	assert_int_equal(s->nbreaks, 2);
	assert_int_equal(s->breaks[0].detection_ms, 5 * D);
	assert_int_equal(s->breaks[1].detection_ms, -1);
	assert_int_equal(s->intervals, 1);
	assert_int_equal(s->curve[0].t_ms, 5 * D);
	assert_float_equal(s->curve[0].survival, 0.0, 0);
	assert_int_equal(s->median_ms, 5 * D);
	kn_th_summary_free(s);
}

static void refixed_and_window(void **state)
{
	(void)state;
	/* broken before its first pass (never validated then), fixed, validated within the window; a
	 * pass after now is ignored; with days = 1 the pass 2 days ago does not count */
	const kn_th_event ev[] = {{0, T0 + 1 * D, B}, {0, T0 + 4 * D, P}, {0, T0 + 20 * D, P}};
	kn_th_summary *s = NULL;
	assert_int_equal(kn_th_compute(&s, 1, ev, 3, T0 + 6 * D, 7, NULL), 0);
	assert_int_equal(s->validated, 1);
	assert_int_equal(s->nbreaks, 1);
	assert_int_equal(s->breaks[0].detection_ms, -1);
	assert_int_equal(s->intervals, 1); /* from day 4, censored at day 6 */
	assert_int_equal(s->ended, 0);
	assert_int_equal(s->curve[0].t_ms, 2 * D);
	assert_int_equal(s->curve[0].censored, 1);
	assert_float_equal(s->curve[0].survival, 1.0, 0);
	kn_th_summary_free(s);
	assert_int_equal(kn_th_compute(&s, 1, ev, 3, T0 + 6 * D, 1, NULL), 0);
	assert_int_equal(s->validated, 0);
	kn_th_summary_free(s);
}

static void turn_of_the_year(void **state)
{
	(void)state;
	const kn_th_event ev[] = {{0, T0 - 40 * D, P}, {0, T0 - 1, B}, {0, T0 + D, P}, {0, T0 + 2 * D, B}};
	kn_th_summary *s = NULL;
	assert_int_equal(kn_th_compute(&s, 1, ev, 4, T0 + 3 * D, 7, NULL), 0);
	assert_int_equal(s->nmonths, 3); /* Nov 2025, Dec 2025, Jan 2026 */
	assert_int_equal(s->months[0].year, 2025);
	assert_int_equal(s->months[0].month, 11);
	assert_int_equal(s->months[1].month, 12);
	assert_int_equal(s->months[1].breaks, 1);
	assert_int_equal(s->months[2].year, 2026);
	assert_int_equal(s->months[2].breaks, 1);
	kn_th_summary_free(s);
}

static void ties(void **state)
{
	(void)state;
	/* an interval that ended and one censored at the same duration: both at risk there */
	const kn_th_event ev[] = {{0, T0, P}, {0, T0 + 5 * D, B}, {1, T0 + 5 * D, P}, {2, T0, P}, {2, T0 + 10 * D, B}};
	kn_th_summary *s = NULL;
	assert_int_equal(kn_th_compute(&s, 3, ev, 5, T0 + 10 * D, 7, NULL), 0);
	assert_int_equal(s->ncurve, 2);
	assert_int_equal(s->curve[0].t_ms, 5 * D);
	assert_int_equal(s->curve[0].at_risk, 3);
	assert_int_equal(s->curve[0].ended, 1);
	assert_int_equal(s->curve[0].censored, 1);
	assert_true(s->curve[0].survival > 0.6666666666 && s->curve[0].survival < 0.6666666667); /* 1 - 1/3 */
	assert_int_equal(s->curve[1].at_risk, 1);
	assert_float_equal(s->curve[1].survival, 0.0, 0);
	assert_int_equal(s->median_ms, 10 * D);
	kn_th_summary_free(s);
}

static void bad_arguments(void **state)
{
	(void)state;
	kn_th_summary *s = NULL;
	kn_err err = {0};
	const kn_th_event bad_task[] = {{2, T0, P}};
	const kn_th_event bad_kind[] = {{0, T0, (kn_th_kind)7}};
	assert_int_equal(kn_th_compute(&s, 2, bad_task, 1, T0, 7, &err), KN_EINVAL);
	assert_null(s);
	assert_int_equal(kn_th_compute(&s, 2, bad_kind, 1, T0, 7, &err), KN_EINVAL);
	assert_int_equal(kn_th_compute(&s, 2, NULL, 0, T0, 0, &err), KN_EINVAL);
	assert_int_equal(kn_th_compute(&s, 2, NULL, 0, T0, KN_TH_MAX_DAYS + 1, &err), KN_EINVAL);
	kn_th_summary_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(worked_example), cmocka_unit_test(no_replays), cmocka_unit_test(all_broken),
		cmocka_unit_test(broken_twice_without_pass), cmocka_unit_test(refixed_and_window),
		cmocka_unit_test(turn_of_the_year), cmocka_unit_test(ties), cmocka_unit_test(bad_arguments)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
