/* until.h — when a watched run ends, as `--until` (watch, record) and the API's "until" spell it:
 * "finished" (every key node reached), "idle:S" (S seconds without an event), "steps:N" (N steps).
 * One parser, one set of bounds, for every place that takes it. */
#ifndef KEYNODE_UNTIL_H
#define KEYNODE_UNTIL_H

#define KN_UNTIL_IDLE_MAX_S 86400.0 /* a day */
#define KN_UNTIL_STEPS_MAX 100000

typedef struct kn_until {
	int finished;  /* "finished" */
	double idle_s; /* "idle:S": 0 < S ≤ KN_UNTIL_IDLE_MAX_S; 0 when not given */
	int steps;     /* "steps:N": 1 ≤ N ≤ KN_UNTIL_STEPS_MAX; 0 when not given */
} kn_until;

/* Add the condition text names to *out (zero it first; `--until` may be given several times, each
 * adding one). NULL or "" adds nothing. 0, or KN_EINVAL for anything else, out of bounds included
 * (*out is then unchanged). */
int kn_until_parse(kn_until *out, const char *text);

#endif
