/* audit_summary.c — what the report says of verdicts: a judge against the labels, two judges against
 * each other (the items both judged), each as a confusion table with its metrics and intervals. */
#include <stdlib.h>
#include <string.h>

#include "audit.h"

/* The metrics and intervals of cells[0..n) into out (judged/unjudged already set). */
static int finish(kn_audit_summary *out, const kn_cell *cells, size_t n, size_t resamples,
                  uint64_t seed)
{
	for (size_t i = 0; i < n; i++)
		kn_confusion_add(&out->c, cells[i]);
	for (int m = 0; m < KN_AGREE_N; m++)
		out->ok[m] = kn_agree_metric(&out->v[m], &out->why[m], &out->c, m);
	return kn_agree_bootstrap(out->ci, cells, n, resamples, seed);
}

int kn_audit_summarise(kn_audit_summary *out, const kn_labels *l, const kn_audit_verdict *v,
                       size_t resamples, uint64_t seed)
{
	memset(out, 0, sizeof *out);
	kn_cell *cells = malloc((l->n + 1) * sizeof *cells);
	if (!cells)
		return KN_ENOMEM;
	for (size_t i = 0; i < l->n; i++) {
		if (v[i].verdict == KN_AUDIT_UNJUDGED)
			out->unjudged++;
		else
			cells[out->judged++] = kn_cell_of(l->items[i].label, v[i].verdict);
	}
	int rc = finish(out, cells, out->judged, resamples, seed);
	free(cells);
	return rc;
}

int kn_audit_pair(kn_audit_summary *out, const kn_audit_verdict *a, const kn_audit_verdict *b, size_t n,
                  size_t resamples, uint64_t seed)
{
	memset(out, 0, sizeof *out);
	kn_cell *cells = malloc((n + 1) * sizeof *cells);
	if (!cells)
		return KN_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (a[i].verdict == KN_AUDIT_UNJUDGED || b[i].verdict == KN_AUDIT_UNJUDGED)
			out->unjudged++;
		else
			cells[out->judged++] = kn_cell_of(a[i].verdict, b[i].verdict);
	}
	int rc = finish(out, cells, out->judged, resamples, seed);
	free(cells);
	return rc;
}
