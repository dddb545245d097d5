/* randid.c — unpredictable names (randid.h). */
#include "keynode/randid.h"

#include <stdio.h>
#include <time.h>

#include "keynode/clock.h"

void kn_random_id(char *out, size_t n, const char *prefix, size_t nbytes)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char r[32];
	if (nbytes > sizeof r)
		nbytes = sizeof r;
	FILE *f = fopen("/dev/urandom", "rb");
	size_t got = f ? fread(r, 1, nbytes, f) : 0;
	if (f)
		fclose(f);
	if (got < nbytes) {
		struct timespec ts = kn_time_wall();
		unsigned long long x = (unsigned long long)ts.tv_nsec ^ ((unsigned long long)ts.tv_sec << 20);
		for (size_t i = got; i < nbytes; i++, x = x * 6364136223846793005ULL + 1442695040888963407ULL)
			r[i] = (unsigned char)(x >> 56);
	}
	if (n == 0)
		return;
	size_t p = (size_t)snprintf(out, n, "%s", prefix);
	if (p >= n)
		return;
	for (size_t i = 0; i < nbytes && p + 2 < n; i++) {
		out[p++] = hex[r[i] >> 4];
		out[p++] = hex[r[i] & 15];
	}
	out[p] = '\0';
}
