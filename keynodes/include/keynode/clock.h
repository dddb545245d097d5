/* clock.h — the one place keynode reads a clock for a duration or a deadline, and writes a
 * timestamp down.
 *
 * Durations, idle checks and deadlines are taken on the monotonic clock (it never jumps when the
 * system time is set); the condition-variable deadlines are built here too, on whichever clock
 * the condition variable was made with. Timestamps that are written down (trajectory headers,
 * reports) are RFC 3339 UTC. */
#ifndef KEYNODE_CLOCK_H
#define KEYNODE_CLOCK_H

#include <time.h>

/* t as RFC 3339 UTC, "2026-11-23T03:00:00Z": the form of a trajectory header's "started" and of
 * every timestamp keynode writes. out holds KN_TIME_MAX bytes (t out of range: the epoch). */
#define KN_TIME_MAX 32
void kn_time_rfc3339(char out[KN_TIME_MAX], time_t t);

/* Now on the system clock (CLOCK_REALTIME): for timestamps written down and for ids made unique
 * by the time, never for durations. */
struct timespec kn_time_wall(void);
double kn_time_wall_s(void);

/* Seconds / milliseconds on the monotonic clock (CLOCK_MONOTONIC): for durations and deadlines only,
 * never for timestamps that are written down. */
double kn_time_mono_s(void);
double kn_time_mono_ms(void);

/* *out = now on clock (CLOCK_MONOTONIC or CLOCK_REALTIME) plus ms milliseconds: the absolute
 * deadline pthread_cond_timedwait takes, on the clock its condition variable was made with. */
void kn_time_deadline(struct timespec *out, clockid_t clock, long ms);

/* Sleep ms milliseconds, the whole of them: a signal that interrupts the sleep does not shorten it. */
void kn_time_sleep_ms(long ms);

#endif
