/* health.h — the task health state machine of scheduled replay validation, as a pure
 * function the worker applies after each replay job: no database, no clock.
 *
 * A failed replay (broken or error) is retried once in a fresh browser context before it counts:
 * kn_health_next first answers "retry" for a failed first attempt, and the worker calls it again
 * with the retry's outcome. Then, with N = broken_after (config health.broken_after, default 2):
 *
 *   passed first time    healthy, unknown, flaky → healthy; recovered → healthy;
 *                        broken → recovered; error → recovered when the task had been failing
 *                        (consecutive_failures >= N), else healthy. Failures reset to 0.
 *   failed, then passed  (the retry passed: flaky evidence) broken → recovered, error → as above,
 *                        anything else → flaky. Failures reset to 0.
 *   failed twice, broken failures + 1; broken when that reaches N, else flaky (broken stays broken).
 *   failed twice, error  (site unreachable: DNS, connection refused) → error; failures unchanged,
 *                        so an outage neither counts towards broken nor hides an earlier breakage.
 *   failed twice, blocked (the site refused service: 401/403/429/5xx, a challenge, a CAPTCHA, a
 *                        consent wall, a geo redirect — services/replay/blocked.h) → blocked;
 *                        failures unchanged: like an outage it never counts towards broken. A pass
 *                        from blocked is handled as a pass from error.
 *
 * An alert goes with every change of state except unknown → healthy (a new task that works). */
#ifndef KEYNODE_HEALTH_H
#define KEYNODE_HEALTH_H

#include "store.h" /* kn_health */

typedef enum kn_health_outcome {
	KN_OUTCOME_NONE = 0, /* no retry ran yet */
	KN_OUTCOME_PASSED,
	KN_OUTCOME_BROKEN, /* the site answered but a step or key node failed */
	KN_OUTCOME_ERROR,  /* the site was unreachable */
	KN_OUTCOME_BLOCKED /* the site refused service (not the workflow's fault) */
} kn_health_outcome;

typedef struct kn_health_input {
	kn_health state;           /* current state (KN_HEALTH_UNKNOWN for a new task) */
	int consecutive_failures;  /* counted failed replays so far */
	int broken_after;          /* N >= 1; values below 1 are treated as 1 */
	kn_health_outcome first;   /* outcome of the job's first attempt (not NONE) */
	kn_health_outcome retry;   /* outcome of the retry, KN_OUTCOME_NONE when none ran */
} kn_health_input;

typedef struct kn_health_step {
	int retry;                 /* 1: run the replay again in a fresh context, then call again with
	                            * .retry set; nothing else in this step is meaningful */
	kn_health next;            /* the state to store */
	int consecutive_failures;  /* the count to store */
	int changed;               /* next != state */
	int alert;                 /* raise kn_alerts_health(state → next) */
	kn_health_outcome counted; /* the outcome that counted (PASSED, BROKEN, ERROR or BLOCKED) */
	int flaky_pass;            /* failed, then passed on the retry */
} kn_health_step;

/* Decide what follows a replay. Never fails; out-of-range input is clamped. */
void kn_health_next(kn_health_step *out, const kn_health_input *in);

/* "passed", "broken", "error", "blocked" or "none"; static storage. */
const char *kn_health_outcome_name(kn_health_outcome o);

#endif
