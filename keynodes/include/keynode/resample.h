/* resample.h — the seeded bootstrap's two pieces, shared by every interval keynode reports (the
 * run comparison's, services/runner/stats.c; the judge audit's, services/audit/agreement.c): one
 * generator, so a seed draws the same items everywhere, and one percentile rule. */
#ifndef KEYNODE_RESAMPLE_H
#define KEYNODE_RESAMPLE_H

#include <stddef.h>
#include <stdint.h>

/* The next number of splitmix64 from *state (advanced): fast, seedable, the same on every machine. */
uint64_t kn_splitmix64(uint64_t *state);

/* The 95 % percentile interval of v[0..m) (m > 0): v is sorted in place, then *lo and *hi are its
 * nearest-rank 2.5th and 97.5th percentiles — the k-th smallest, k = ceil(p m), computed in integers. */
void kn_percentile95(double *v, size_t m, double *lo, double *hi);

#endif
