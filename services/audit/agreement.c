/* agreement.c — the confusion table, agreement, Cohen's κ, false-positive and false-negative
 * rates, and their percentile-bootstrap intervals (audit.h). Pure arithmetic, no I/O. */
#include <stdlib.h>

#include "audit.h"
#include "keynode/resample.h"

const char *const kn_agree_names[KN_AGREE_N] = {"agreement", "kappa", "false_positive_rate",
                                                "false_negative_rate"};

kn_cell kn_cell_of(int reference, int verdict)
{
	if (reference)
		return verdict ? KN_CELL_TP : KN_CELL_FN;
	return verdict ? KN_CELL_FP : KN_CELL_TN;
}

void kn_confusion_add(kn_confusion *c, kn_cell cell)
{
	switch (cell) {
	case KN_CELL_TP: c->tp++; break;
	case KN_CELL_FP: c->fp++; break;
	case KN_CELL_TN: c->tn++; break;
	case KN_CELL_FN: c->fn++; break;
	}
}

static int undefined(double *v, const char **why, const char *words)
{
	*v = 0;
	if (why)
		*why = words;
	return 0;
}

int kn_agree_metric(double *v, const char **why, const kn_confusion *c, int m)
{
	double tp = (double)c->tp, fp = (double)c->fp, tn = (double)c->tn, fn = (double)c->fn;
	double n = tp + fp + tn + fn;
	if (why)
		*why = NULL;
	if (n == 0)
		return undefined(v, why, "no item was judged");
	switch (m) {
	case KN_AGREE_AGREEMENT:
		*v = (tp + tn) / n;
		return 1;
	case KN_AGREE_KAPPA: {
		double po = (tp + tn) / n;
		/* chance agreement: both say true by chance, or both say false */
		double pe = ((tp + fn) / n) * ((tp + fp) / n) + ((tn + fp) / n) * ((tn + fn) / n);
		/* pe is 1 exactly when labels and verdicts all fall in the same one class */
		if (tp == n)
			return undefined(v, why, "labels and verdicts are all true: chance agreement is 1, "
			                         "kappa is 0/0");
		if (tn == n)
			return undefined(v, why, "labels and verdicts are all false: chance agreement is 1, "
			                         "kappa is 0/0");
		*v = (po - pe) / (1 - pe);
		return 1;
	}
	case KN_AGREE_FPR:
		if (fp + tn == 0)
			return undefined(v, why, "no judged item is labelled false");
		*v = fp / (fp + tn);
		return 1;
	case KN_AGREE_FNR:
		if (fn + tp == 0)
			return undefined(v, why, "no judged item is labelled true");
		*v = fn / (fn + tp);
		return 1;
	default:
		return undefined(v, why, "no such metric");
	}
}

int kn_agree_bootstrap(kn_agree_ci out[KN_AGREE_N], const kn_cell *cells, size_t n, size_t resamples,
                       uint64_t seed)
{
	for (int m = 0; m < KN_AGREE_N; m++)
		out[m] = (kn_agree_ci){0};
	if (n == 0 || resamples == 0)
		return 0;
	double *rep = malloc(resamples * KN_AGREE_N * sizeof *rep);
	if (!rep)
		return KN_ENOMEM;
	uint64_t state = seed;
	for (size_t b = 0; b < resamples; b++) {
		kn_confusion c = {0};
		for (size_t i = 0; i < n; i++)
			kn_confusion_add(&c, cells[kn_splitmix64(&state) % n]);
		for (int m = 0; m < KN_AGREE_N; m++) {
			double v;
			if (kn_agree_metric(&v, NULL, &c, m))
				rep[(size_t)m * resamples + out[m].defined++] = v;
		}
	}
	for (int m = 0; m < KN_AGREE_N; m++) {
		size_t d = out[m].defined;
		if (!d)
			continue;
		out[m].ok = 1;
		kn_percentile95(rep + (size_t)m * resamples, d, &out[m].lo, &out[m].hi);
	}
	free(rep);
	return 0;
}
