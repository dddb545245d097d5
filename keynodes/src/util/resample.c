/* resample.c — splitmix64 and the nearest-rank 95 % percentile interval (resample.h). */
#include <stdlib.h>

#include "keynode/resample.h"

uint64_t kn_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

void kn_percentile95(double *v, size_t m, double *lo, double *hi)
{
	qsort(v, m, sizeof *v, cmp_double);
	size_t rl = (m * 25 + 999) / 1000, rh = (m * 975 + 999) / 1000; /* ceil(p m), exactly */
	*lo = v[rl ? rl - 1 : 0];
	*hi = v[rh ? rh - 1 : 0];
}
