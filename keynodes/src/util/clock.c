/* clock.c — the monotonic and system clocks, condition-variable deadlines, written timestamps and
 * sleeps (clock.h). Every clock_gettime and nanosleep in keynode is one of these. */
#include "keynode/clock.h"

#include <errno.h>
#include <string.h>

void kn_time_rfc3339(char out[KN_TIME_MAX], time_t t)
{
	struct tm tm;
	if (!gmtime_r(&t, &tm) || !strftime(out, KN_TIME_MAX, "%Y-%m-%dT%H:%M:%SZ", &tm))
		strcpy(out, "1970-01-01T00:00:00Z");
}

struct timespec kn_time_wall(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return ts;
}

double kn_time_wall_s(void)
{
	struct timespec ts = kn_time_wall();
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double kn_time_mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double kn_time_mono_ms(void)
{
	return kn_time_mono_s() * 1e3;
}

void kn_time_deadline(struct timespec *out, clockid_t clock, long ms)
{
	clock_gettime(clock, out);
	out->tv_sec += ms / 1000;
	out->tv_nsec += (ms % 1000) * 1000000L;
	if (out->tv_nsec >= 1000000000L) {
		out->tv_sec++;
		out->tv_nsec -= 1000000000L;
	}
}

void kn_time_sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}
