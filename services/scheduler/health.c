/* health.c — the task health state machine (health.h): a replay outcome, plus the retry rule,
 * decides the next state. Kept pure so every transition is a row in tests/unit/test_health.c. */
#include "health.h"

const char *kn_health_outcome_name(kn_health_outcome o)
{
	switch (o) {
	case KN_OUTCOME_PASSED: return "passed";
	case KN_OUTCOME_BROKEN: return "broken";
	case KN_OUTCOME_ERROR: return "error";
	case KN_OUTCOME_BLOCKED: return "blocked";
	case KN_OUTCOME_NONE: break;
	}
	return "none";
}

/* A passing replay from state s; had_failed: the counted failures before it. */
static kn_health after_pass(kn_health s, int flaky, int was_failing)
{
	switch (s) {
	case KN_HEALTH_BROKEN: return KN_HEALTH_RECOVERED;
	case KN_HEALTH_ERROR:
	case KN_HEALTH_BLOCKED: return was_failing ? KN_HEALTH_RECOVERED : flaky ? KN_HEALTH_FLAKY : KN_HEALTH_HEALTHY;
	default: return flaky ? KN_HEALTH_FLAKY : KN_HEALTH_HEALTHY;
	}
}

void kn_health_next(kn_health_step *out, const kn_health_input *in)
{
	kn_health_step st = { 0 };
	kn_health s = in->state;
	int n = in->broken_after < 1 ? 1 : in->broken_after;
	int cf = in->consecutive_failures < 0 ? 0 : in->consecutive_failures;
	kn_health_outcome first = in->first == KN_OUTCOME_NONE ? KN_OUTCOME_ERROR : in->first;
	if (s < KN_HEALTH_UNKNOWN || s > KN_HEALTH_BLOCKED)
		s = KN_HEALTH_UNKNOWN;
	if (cf > 1000000)
		cf = 1000000;

	if (first != KN_OUTCOME_PASSED && in->retry == KN_OUTCOME_NONE) {
		st.retry = 1;
		st.next = s;
		st.consecutive_failures = cf;
		*out = st;
		return;
	}
	st.counted = first == KN_OUTCOME_PASSED ? first : in->retry;
	st.flaky_pass = first != KN_OUTCOME_PASSED && in->retry == KN_OUTCOME_PASSED;
	switch (st.counted) {
	case KN_OUTCOME_PASSED:
		st.next = after_pass(s, st.flaky_pass, cf >= n);
		st.consecutive_failures = 0;
		break;
	case KN_OUTCOME_BROKEN:
		st.consecutive_failures = cf + 1;
		st.next = st.consecutive_failures >= n ? KN_HEALTH_BROKEN : KN_HEALTH_FLAKY;
		break;
	case KN_OUTCOME_BLOCKED:
		st.next = KN_HEALTH_BLOCKED;
		st.consecutive_failures = cf;
		break;
	default:
		st.counted = KN_OUTCOME_ERROR;
		st.next = KN_HEALTH_ERROR;
		st.consecutive_failures = cf;
		break;
	}
	st.changed = st.next != s;
	st.alert = st.changed && !(s == KN_HEALTH_UNKNOWN && st.next == KN_HEALTH_HEALTHY);
	*out = st;
}
