/* test_health.c — the task health state machine (services/scheduler/health.h), table-driven: every
 * state × every counted outcome (passed first time, failed then passed, failed twice broken, failed
 * twice error), the retry decision, the broken_after threshold (1, 2, 3), error not counting towards
 * broken nor hiding an earlier breakage, blocked (the site refused service) never counting towards
 * broken either, and which transitions raise an alert. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "health.h"

enum { U = KN_HEALTH_UNKNOWN, H = KN_HEALTH_HEALTHY, F = KN_HEALTH_FLAKY, B = KN_HEALTH_BROKEN,
	   R = KN_HEALTH_RECOVERED, E = KN_HEALTH_ERROR, K = KN_HEALTH_BLOCKED };
enum { P = KN_OUTCOME_PASSED, X = KN_OUTCOME_BROKEN, N = KN_OUTCOME_ERROR, O = KN_OUTCOME_NONE,
	   Z = KN_OUTCOME_BLOCKED };

static const char *sn(int s)
{
	static const char *const names[] = { "unknown", "healthy", "flaky", "broken", "recovered", "error",
		                             "blocked" };
	return s >= 0 && s <= 6 ? names[s] : "?";
}

typedef struct row {
	int state, cf, n, first, retry;  /* input */
	int next, next_cf, alert;        /* expected (retry rows: unused) */
} row;

static const row rows[] = {
	/* passed first time */
	{ U, 0, 2, P, O, H, 0, 0 }, /* a new task that works: no alert */
	{ H, 0, 2, P, O, H, 0, 0 },
	{ F, 1, 2, P, O, H, 0, 1 },
	{ F, 0, 2, P, O, H, 0, 1 },
	{ B, 2, 2, P, O, R, 0, 1 },
	{ B, 5, 2, P, O, R, 0, 1 },
	{ R, 0, 2, P, O, H, 0, 1 },
	{ E, 0, 2, P, O, H, 0, 1 }, /* site back, never broken */
	{ E, 1, 2, P, O, H, 0, 1 },
	{ E, 2, 2, P, O, R, 0, 1 }, /* was broken before the outage */
	/* failed, then passed on the retry: flaky evidence */
	{ U, 0, 2, X, P, F, 0, 1 },
	{ H, 0, 2, X, P, F, 0, 1 },
	{ H, 0, 2, N, P, F, 0, 1 },
	{ F, 1, 2, X, P, F, 0, 0 },
	{ B, 3, 2, X, P, R, 0, 1 },
	{ R, 0, 2, X, P, F, 0, 1 },
	{ E, 0, 2, N, P, F, 0, 1 },
	{ E, 2, 2, X, P, R, 0, 1 },
	/* failed twice, broken: counts */
	{ U, 0, 2, X, X, F, 1, 1 },
	{ H, 0, 2, X, X, F, 1, 1 },
	{ F, 1, 2, X, X, B, 2, 1 },
	{ F, 0, 2, X, X, F, 1, 0 },
	{ B, 2, 2, X, X, B, 3, 0 },
	{ R, 0, 2, X, X, F, 1, 1 },
	{ E, 0, 2, X, X, F, 1, 1 },
	{ E, 1, 2, X, X, B, 2, 1 },
	{ H, 0, 2, N, X, F, 1, 1 }, /* first unreachable, retry reached a broken site: broken counts */
	{ H, 0, 1, X, X, B, 1, 1 }, /* broken_after 1 */
	{ U, 0, 1, X, X, B, 1, 1 },
	{ H, 0, 3, X, X, F, 1, 1 }, /* broken_after 3 */
	{ F, 1, 3, X, X, F, 2, 0 },
	{ F, 2, 3, X, X, B, 3, 1 },
	{ H, 0, 0, X, X, B, 1, 1 }, /* broken_after < 1 is 1 */
	/* failed twice, error: site unreachable, distinct from broken, count kept */
	{ U, 0, 2, N, N, E, 0, 1 },
	{ H, 0, 2, N, N, E, 0, 1 },
	{ F, 1, 2, N, N, E, 1, 1 },
	{ B, 2, 2, N, N, E, 2, 1 },
	{ R, 0, 2, N, N, E, 0, 1 },
	{ E, 0, 2, N, N, E, 0, 0 },
	{ H, 0, 2, X, N, E, 0, 1 },
	/* failed twice, blocked: the site refused service; never counts towards broken, count kept */
	{ U, 0, 2, Z, Z, K, 0, 1 },
	{ H, 0, 2, Z, Z, K, 0, 1 },
	{ F, 1, 2, Z, Z, K, 1, 1 }, /* 1 of 2: a block does not tip it over */
	{ B, 2, 2, Z, Z, K, 2, 1 },
	{ R, 0, 2, Z, Z, K, 0, 1 },
	{ E, 0, 2, Z, Z, K, 0, 1 },
	{ K, 0, 2, Z, Z, K, 0, 0 }, /* still blocked: no new alert */
	{ K, 1, 2, Z, X, B, 2, 1 }, /* retry got through and broke: that counts */
	{ K, 0, 2, Z, N, E, 0, 1 },
	{ K, 0, 2, Z, P, F, 0, 1 }, /* blocked, then passed on the retry */
	{ H, 0, 2, X, Z, K, 0, 1 },
	/* blocked, then passed first time: like after an outage */
	{ K, 0, 2, P, O, H, 0, 1 }, /* the fixture removed: healthy again */
	{ K, 2, 2, P, O, R, 0, 1 }, /* was broken before the block */
};

static void test_table(void **state)
{
	(void)state;
	int seen[7][7] = { { 0 } };
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		const row *r = &rows[i];
		kn_health_input in = { (kn_health)r->state, r->cf, r->n, (kn_health_outcome)r->first,
			                   (kn_health_outcome)r->retry };
		kn_health_step st;
		kn_health_next(&st, &in);
		if (st.retry || (int)st.next != r->next || st.consecutive_failures != r->next_cf ||
		    st.alert != r->alert || st.changed != (r->next != r->state))
			fail_msg("row %zu: %s cf=%d N=%d %s/%s: got retry=%d %s cf=%d alert=%d, want %s cf=%d "
			         "alert=%d",
			         i, sn(r->state), r->cf, r->n, kn_health_outcome_name(in.first),
			         kn_health_outcome_name(in.retry), st.retry, sn((int)st.next),
			         st.consecutive_failures, st.alert, sn(r->next), r->next_cf, r->alert);
		assert_int_equal(st.flaky_pass, r->first != P && r->retry == P);
		assert_int_equal(st.counted, r->first == P ? P : r->retry);
		seen[r->state][r->next] = 1;
	}
	/* every transition the machine can make appears in the table */
	static const int reachable[][2] = { { U, H }, { U, F }, { U, B }, { U, E }, { H, F }, { H, B },
		                                { H, E }, { F, H }, { F, B }, { F, E }, { B, R }, { B, E },
		                                { R, H }, { R, F }, { R, E }, { E, H }, { E, F }, { E, B },
		                                { E, R }, { U, K }, { H, K }, { F, K }, { B, K }, { R, K },
		                                { E, K }, { K, H }, { K, R }, { K, F }, { K, B }, { K, E } };
	for (size_t i = 0; i < sizeof reachable / sizeof reachable[0]; i++)
		if (!seen[reachable[i][0]][reachable[i][1]])
			fail_msg("transition %s -> %s not covered", sn(reachable[i][0]), sn(reachable[i][1]));
}

/* A failed first attempt (broken or error) is retried once before anything counts. */
static void test_retry_decision(void **state)
{
	(void)state;
	for (int s = U; s <= K; s++)
		for (int first = X; first <= Z; first++) {
			kn_health_input in = { (kn_health)s, 1, 2, (kn_health_outcome)first, KN_OUTCOME_NONE };
			kn_health_step st;
			kn_health_next(&st, &in);
			assert_int_equal(st.retry, 1);
			assert_int_equal((int)st.next, s);
			assert_int_equal(st.consecutive_failures, 1);
			assert_int_equal(st.alert, 0);
			assert_int_equal(st.changed, 0);
		}
	kn_health_input in = { KN_HEALTH_HEALTHY, 0, 2, KN_OUTCOME_PASSED, KN_OUTCOME_NONE };
	kn_health_step st;
	kn_health_next(&st, &in);
	assert_int_equal(st.retry, 0);
}

/* A sequence as the worker lives it: healthy, one flaky pass, two failures → broken, then pass →
 * recovered, pass → healthy; an outage in the middle stays error and keeps the count, and so does a
 * block (blocked, then healthy again when the block is gone). */
static void test_sequence(void **state)
{
	(void)state;
	static const struct {
		int first, retry, want, cf;
	} seq[] = { { P, O, H, 0 }, { X, P, F, 0 }, { P, O, H, 0 }, { X, X, F, 1 }, { N, N, E, 1 },
		        { X, X, B, 2 }, { X, X, B, 3 }, { N, N, E, 3 }, { P, O, R, 0 }, { P, O, H, 0 },
		        { Z, Z, K, 0 }, { Z, Z, K, 0 }, { P, O, H, 0 }, { X, X, F, 1 }, { Z, Z, K, 1 },
		        { X, X, B, 2 } };
	kn_health s = KN_HEALTH_UNKNOWN;
	int cf = 0;
	for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++) {
		kn_health_input in = { s, cf, 2, (kn_health_outcome)seq[i].first, KN_OUTCOME_NONE };
		kn_health_step st;
		kn_health_next(&st, &in);
		if (seq[i].first != P) {
			assert_int_equal(st.retry, 1);
			in.retry = (kn_health_outcome)seq[i].retry;
			kn_health_next(&st, &in);
		}
		assert_int_equal(st.retry, 0);
		if ((int)st.next != seq[i].want || st.consecutive_failures != seq[i].cf)
			fail_msg("step %zu: got %s cf=%d, want %s cf=%d", i, sn((int)st.next),
			         st.consecutive_failures, sn(seq[i].want), seq[i].cf);
		s = st.next, cf = st.consecutive_failures;
	}
}

static void test_clamp(void **state)
{
	(void)state;
	kn_health_step st;
	kn_health_input in = { (kn_health)42, -5, 2, KN_OUTCOME_PASSED, KN_OUTCOME_NONE };
	kn_health_next(&st, &in);
	assert_int_equal(st.next, KN_HEALTH_HEALTHY);
	assert_int_equal(st.consecutive_failures, 0);
	in = (kn_health_input){ KN_HEALTH_HEALTHY, 0, 2, KN_OUTCOME_NONE, KN_OUTCOME_NONE };
	kn_health_next(&st, &in); /* no first outcome: treated as a failure to retry */
	assert_int_equal(st.retry, 1);
	assert_string_equal(kn_health_outcome_name(KN_OUTCOME_BROKEN), "broken");
	assert_string_equal(kn_health_outcome_name((kn_health_outcome)99), "none");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_retry_decision),
		cmocka_unit_test(test_sequence),
		cmocka_unit_test(test_clamp),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
