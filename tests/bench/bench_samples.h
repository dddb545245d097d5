/* bench_samples.h — what the monitor bench's two processes share: a growing list of samples and its
 * nearest-rank quantile, and the wall clock in milliseconds. */
#ifndef KN_BENCH_SAMPLES_H
#define KN_BENCH_SAMPLES_H

#include <math.h>
#include <stdlib.h>
#include <time.h>

typedef struct samples {
	double *v;
	size_t n, cap;
} samples;

static inline void sample_add(samples *s, double x)
{
	if (s->n == s->cap) {
		size_t nc = s->cap ? 2 * s->cap : 4096;
		double *nv = realloc(s->v, nc * sizeof *nv);
		if (!nv)
			return;
		s->v = nv;
		s->cap = nc;
	}
	s->v[s->n++] = x;
}

static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* The q-quantile (nearest rank) of s; sorts s. NAN when empty. */
static inline double quantile(samples *s, double q)
{
	if (!s->n)
		return NAN;
	qsort(s->v, s->n, sizeof *s->v, cmp_double);
	size_t rank = (size_t)ceil(q * (double)s->n);
	return s->v[rank ? rank - 1 : 0];
}

/* CLOCK_REALTIME in ms: the page (Date.now) and both processes share it */
static inline double real_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

#endif
