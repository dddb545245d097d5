/* test_agreement.c — the agreement statistics of `keynode judge-audit` (services/audit/agreement.c):
 * κ on hand-worked 2×2 tables, the two error rates, every undefined case with its reason (κ of a
 * table where labels and verdicts are all one class is 0/0), and the bootstrap: seeded and
 * repeatable, its interval holding the point estimate and close to the normal approximation,
 * degenerate samples giving degenerate intervals, no interval for a metric never defined. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "audit.h"
#include "kn_test.h"

static double metric(const kn_confusion *c, int m, int *ok, const char **why)
{
	double v = -1;
	*ok = kn_agree_metric(&v, why, c, m);
	return v;
}

static void assert_metric(kn_confusion c, int m, double want)
{
	int ok;
	const char *why = "unset";
	double v = metric(&c, m, &ok, &why);
	assert_int_equal(ok, 1);
	assert_null(why);
	assert_double_equal(v, want, 1e-12);
}

static void assert_undefined(kn_confusion c, int m, const char *why_part)
{
	int ok;
	const char *why = NULL;
	double v = metric(&c, m, &ok, &why);
	assert_int_equal(ok, 0);
	assert_double_equal(v, 0, 0);
	assert_non_null(why);
	if (!strstr(why, why_part))
		fail_msg("why = \"%s\", want it to say \"%s\"", why, why_part);
}

static void test_cells(void **state)
{
	(void)state;
	assert_int_equal(kn_cell_of(1, 1), KN_CELL_TP);
	assert_int_equal(kn_cell_of(0, 1), KN_CELL_FP);
	assert_int_equal(kn_cell_of(0, 0), KN_CELL_TN);
	assert_int_equal(kn_cell_of(1, 0), KN_CELL_FN);
	kn_confusion c = {0};
	kn_confusion_add(&c, KN_CELL_TP), kn_confusion_add(&c, KN_CELL_TP), kn_confusion_add(&c, KN_CELL_FN);
	kn_confusion_add(&c, KN_CELL_FP), kn_confusion_add(&c, KN_CELL_TN);
	assert_true(c.tp == 2 && c.fp == 1 && c.tn == 1 && c.fn == 1);
	assert_string_equal(kn_agree_names[KN_AGREE_KAPPA], "kappa");
	assert_string_equal(kn_agree_names[KN_AGREE_FPR], "false_positive_rate");
}

/* Labels yes 25 of 50, verdicts yes 30 of 50, agreeing on 20 yes and 15 no:
 * p_o = 35/50 = 0.7; p_e = 0.5 × 0.6 + 0.5 × 0.4 = 0.5; κ = (0.7 − 0.5) / (1 − 0.5) = 0.4. */
static void test_kappa_hand_worked(void **state)
{
	(void)state;
	kn_confusion c = {.tp = 20, .fn = 5, .fp = 10, .tn = 15};
	assert_metric(c, KN_AGREE_AGREEMENT, 0.7);
	assert_metric(c, KN_AGREE_KAPPA, 0.4);
	assert_metric(c, KN_AGREE_FPR, 10.0 / 25);
	assert_metric(c, KN_AGREE_FNR, 5.0 / 25);
	/* 45 yes-yes, 15 label no/verdict yes, 25 label yes/verdict no, 15 no-no (n 100): p_o = 0.6,
	 * labels yes 0.7, verdicts yes 0.6, p_e = 0.7 × 0.6 + 0.3 × 0.4 = 0.54, κ = 0.06 / 0.46 */
	kn_confusion d = {.tp = 45, .fp = 15, .fn = 25, .tn = 15};
	assert_metric(d, KN_AGREE_AGREEMENT, 0.6);
	assert_metric(d, KN_AGREE_KAPPA, 0.06 / 0.46);
	assert_metric(d, KN_AGREE_FPR, 0.5);
	assert_metric(d, KN_AGREE_FNR, 25.0 / 70);
	/* κ is symmetric: swapping which side is the reference swaps FP and FN only */
	kn_confusion e = {.tp = 45, .fp = 25, .fn = 15, .tn = 15};
	assert_metric(e, KN_AGREE_KAPPA, 0.06 / 0.46);
}

static void test_kappa_extremes(void **state)
{
	(void)state;
	assert_metric((kn_confusion){.tp = 3, .tn = 2}, KN_AGREE_KAPPA, 1);
	/* always wrong, both classes used equally: p_o 0, p_e 0.5, κ = −1 */
	assert_metric((kn_confusion){.fp = 2, .fn = 2}, KN_AGREE_KAPPA, -1);
	/* labels all true, verdicts mixed: p_e = p_o, κ = 0 (defined, if telling little) */
	assert_metric((kn_confusion){.tp = 3, .fn = 2}, KN_AGREE_KAPPA, 0);
	/* labels all true, verdicts all false: p_o = p_e = 0, κ = 0 */
	assert_metric((kn_confusion){.fn = 4}, KN_AGREE_KAPPA, 0);
	/* the judge says yes to everything on a balanced set: κ 0, FPR 1, FNR 0 */
	kn_confusion yes = {.tp = 5, .fp = 5};
	assert_metric(yes, KN_AGREE_KAPPA, 0);
	assert_metric(yes, KN_AGREE_FPR, 1);
	assert_metric(yes, KN_AGREE_FNR, 0);
}

static void test_undefined(void **state)
{
	(void)state;
	for (int m = 0; m < KN_AGREE_N; m++)
		assert_undefined((kn_confusion){0}, m, "no item was judged");
	/* every item labelled true and judged true: p_e = 1, κ = 0/0 */
	assert_undefined((kn_confusion){.tp = 10}, KN_AGREE_KAPPA, "all true");
	assert_undefined((kn_confusion){.tn = 7}, KN_AGREE_KAPPA, "all false");
	assert_undefined((kn_confusion){.tp = 3, .fn = 2}, KN_AGREE_FPR, "no judged item is labelled false");
	assert_undefined((kn_confusion){.tn = 3, .fp = 2}, KN_AGREE_FNR, "no judged item is labelled true");
	assert_metric((kn_confusion){.tp = 10}, KN_AGREE_AGREEMENT, 1);
	assert_undefined((kn_confusion){.tp = 1}, KN_AGREE_N, "no such metric");
}

static kn_cell *cells_of(kn_confusion c, size_t *n)
{
	*n = c.tp + c.fp + c.tn + c.fn;
	kn_cell *v = malloc((*n + 1) * sizeof *v), *p = v;
	assert_non_null(v);
	for (size_t i = 0; i < c.tp; i++) *p++ = KN_CELL_TP;
	for (size_t i = 0; i < c.fp; i++) *p++ = KN_CELL_FP;
	for (size_t i = 0; i < c.tn; i++) *p++ = KN_CELL_TN;
	for (size_t i = 0; i < c.fn; i++) *p++ = KN_CELL_FN;
	return v;
}

static void test_bootstrap(void **state)
{
	(void)state;
	kn_confusion c = {.tp = 20, .fn = 5, .fp = 10, .tn = 15};
	size_t n;
	kn_cell *cells = cells_of(c, &n);
	kn_agree_ci a[KN_AGREE_N], b[KN_AGREE_N], other[KN_AGREE_N];
	assert_int_equal(kn_agree_bootstrap(a, cells, n, 2000, 7), 0);
	assert_int_equal(kn_agree_bootstrap(b, cells, n, 2000, 7), 0);
	assert_int_equal(kn_agree_bootstrap(other, cells, n, 2000, 8), 0);
	assert_memory_equal(a, b, sizeof a); /* seeded: the same every time */
	int differs = 0;
	for (int m = 0; m < KN_AGREE_N; m++) {
		double v;
		kn_agree_metric(&v, NULL, &c, m);
		assert_int_equal(a[m].ok, 1);
		assert_int_equal(a[m].defined, 2000);
		if (!(a[m].lo <= v && v <= a[m].hi && a[m].lo < a[m].hi))
			fail_msg("%s = %g not inside [%g, %g]", kn_agree_names[m], v, a[m].lo, a[m].hi);
		differs |= a[m].lo != other[m].lo || a[m].hi != other[m].hi;
	}
	assert_true(differs); /* another seed, other draws */
	/* agreement 0.7 over 50 items: the normal approximation is 0.7 ± 1.96 × 0.0648 = [0.573, 0.827];
	 * the percentile bootstrap on a proportion lands within a few hundredths of it */
	assert_double_equal(a[KN_AGREE_AGREEMENT].lo, 0.573, 0.03);
	assert_double_equal(a[KN_AGREE_AGREEMENT].hi, 0.827, 0.03);
	/* the resampled values are proportions of 50: the bounds are multiples of 1/50 */
	assert_double_equal(a[KN_AGREE_AGREEMENT].lo * 50, floor(a[KN_AGREE_AGREEMENT].lo * 50 + 0.5), 1e-9);
	free(cells);
}

static void test_bootstrap_degenerate(void **state)
{
	(void)state;
	size_t n;
	kn_cell *cells = cells_of((kn_confusion){.tp = 12}, &n);
	kn_agree_ci ci[KN_AGREE_N];
	assert_int_equal(kn_agree_bootstrap(ci, cells, n, 500, 1), 0);
	assert_int_equal(ci[KN_AGREE_AGREEMENT].ok, 1);
	assert_double_equal(ci[KN_AGREE_AGREEMENT].lo, 1, 0);
	assert_double_equal(ci[KN_AGREE_AGREEMENT].hi, 1, 0);
	assert_double_equal(ci[KN_AGREE_FNR].hi, 0, 0);
	/* never defined in any replicate: no interval */
	assert_int_equal(ci[KN_AGREE_KAPPA].ok, 0);
	assert_int_equal(ci[KN_AGREE_KAPPA].defined, 0);
	assert_int_equal(ci[KN_AGREE_FPR].ok, 0);
	free(cells);

	/* one labelled-false item among 30: FPR is undefined in the replicates that miss it, the
	 * interval is over those where it is defined */
	cells = cells_of((kn_confusion){.tp = 29, .tn = 1}, &n);
	assert_int_equal(kn_agree_bootstrap(ci, cells, n, 1000, 3), 0);
	assert_int_equal(ci[KN_AGREE_FPR].ok, 1);
	assert_true(ci[KN_AGREE_FPR].defined > 500 && ci[KN_AGREE_FPR].defined < 1000);
	free(cells);

	assert_int_equal(kn_agree_bootstrap(ci, NULL, 0, 1000, 1), 0); /* nothing judged */
	for (int m = 0; m < KN_AGREE_N; m++)
		assert_int_equal(ci[m].ok, 0);
	kn_cell one = KN_CELL_FP;
	assert_int_equal(kn_agree_bootstrap(ci, &one, 1, 0, 1), 0); /* --bootstrap 0 */
	assert_int_equal(ci[KN_AGREE_AGREEMENT].ok, 0);
}

/* The summaries judge-audit prints: unjudged items left out, pairs over the items both judged. */
static void test_summaries(void **state)
{
	(void)state;
	kn_label_item items[4] = {{.label = 1}, {.label = 0}, {.label = 1}, {.label = 0}};
	kn_labels l = {.items = items, .n = 4};
	kn_audit_verdict a[4] = {{.verdict = 1}, {.verdict = 1}, {.verdict = KN_AUDIT_UNJUDGED}, {.verdict = 0}};
	kn_audit_verdict b[4] = {{.verdict = 1}, {.verdict = 0}, {.verdict = 0}, {.verdict = KN_AUDIT_UNJUDGED}};
	kn_audit_summary s;
	assert_int_equal(kn_audit_summarise(&s, &l, a, 100, 1), 0);
	assert_true(s.judged == 3 && s.unjudged == 1);
	assert_true(s.c.tp == 1 && s.c.fp == 1 && s.c.tn == 1 && s.c.fn == 0);
	assert_double_equal(s.v[KN_AGREE_AGREEMENT], 2.0 / 3, 1e-12);
	assert_int_equal(kn_audit_pair(&s, a, b, 4, 100, 1), 0);
	assert_true(s.judged == 2 && s.unjudged == 2);
	assert_true(s.c.tp == 1 && s.c.fn == 1); /* item 2: a yes, b no */
	assert_double_equal(s.v[KN_AGREE_AGREEMENT], 0.5, 1e-12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cells),
		cmocka_unit_test(test_kappa_hand_worked),
		cmocka_unit_test(test_kappa_extremes),
		cmocka_unit_test(test_undefined),
		cmocka_unit_test(test_bootstrap),
		cmocka_unit_test(test_bootstrap_degenerate),
		cmocka_unit_test(test_summaries),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
