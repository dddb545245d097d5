/* test_audit_judge.c — kn_audit_judge (services/audit/audit_judge.c): every item judged through
 * kn_match_one, a failed judgement kept as unjudged with the judge's words (never a verdict), the
 * verdicts in file order and the same whether items are judged one at a time or eight at once, and
 * progress reported once per item, counting up, from one thread at a time. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "audit.h"
#include "kn_test.h"

/* A thread-safe judge: "yes…" scores 1, "fail…" fails, anything else 0. */
static int judge(void *ud, const char *rule, const char *phrase, const char *input, double *score,
                 kn_err *err)
{
	(void)ud, (void)rule, (void)phrase;
	if (strncmp(input, "fail", 4) == 0)
		return kn_err_set(err, KN_EIO, "llm m: answered HTTP 402: quota");
	*score = strncmp(input, "yes", 3) == 0;
	return 0;
}

typedef struct seen {
	pthread_mutex_t mu;
	int inside, overlap;
	size_t calls, last;
} seen;

static void progress(void *ud, size_t done, size_t n)
{
	seen *s = ud;
	if (pthread_mutex_trylock(&s->mu) != 0) { /* the caller serialises: never busy here */
		s->overlap = 1;
		return;
	}
	s->calls++;
	if (done != s->last + 1 || done > n)
		s->overlap = 1;
	s->last = done;
	pthread_mutex_unlock(&s->mu);
}

static kn_labels *make(size_t n)
{
	kn_labels *l = calloc(1, sizeof *l);
	l->items = calloc(n, sizeof *l->items);
	l->n = n;
	for (size_t i = 0; i < n; i++) {
		char v[32];
		snprintf(v, sizeof v, "%s %zu", i % 7 == 3 ? "fail" : i % 3 ? "yes" : "no", i);
		l->items[i] = (kn_label_item){.line = (int)i + 1, .target = KN_TARGET_ANSWER,
		                              .rule = strdup("the answer is yes"), .value = strdup(v),
		                              .label = i % 2};
	}
	return l;
}

static void test_judge(void **state)
{
	(void)state;
	kn_semantic sem = {judge, NULL, "fake"};
	kn_eval_opts eo = {.step_limit = -1, .semantic = &sem};
	kn_labels *l = make(100);
	kn_audit_verdict *one = NULL, *many = NULL;
	seen s1 = {.mu = PTHREAD_MUTEX_INITIALIZER}, s8 = {.mu = PTHREAD_MUTEX_INITIALIZER};
	kn_err err = {0};
	assert_int_equal(kn_audit_judge(&one, l, &eo, 1, progress, &s1, &err), 0);
	assert_int_equal(kn_audit_judge(&many, l, &eo, 8, progress, &s8, &err), 0);
	size_t unjudged = 0;
	for (size_t i = 0; i < l->n; i++) {
		const char *v = l->items[i].value;
		int want = strncmp(v, "fail", 4) == 0 ? KN_AUDIT_UNJUDGED : strncmp(v, "yes", 3) == 0;
		assert_int_equal(one[i].verdict, want);
		assert_int_equal(many[i].verdict, want);
		if (want == KN_AUDIT_UNJUDGED) {
			unjudged++;
			assert_non_null(strstr(one[i].error, "HTTP 402: quota"));
			assert_string_equal(one[i].error, many[i].error);
			assert_double_equal(many[i].score, 0, 0);
		} else {
			assert_null(many[i].error);
			assert_double_equal(many[i].score, want, 0);
		}
	}
	assert_int_equal(unjudged, 14); /* i % 7 == 3 below 100 */
	/* progress: once per item with a verdict (or unjudged), counting up, never two at once */
	assert_int_equal(s1.calls, 100);
	assert_int_equal(s8.calls, 100);
	assert_false(s1.overlap);
	assert_false(s8.overlap);

	kn_audit_summary a, b;
	assert_int_equal(kn_audit_summarise(&a, l, one, 200, 5), 0);
	assert_int_equal(kn_audit_summarise(&b, l, many, 200, 5), 0);
	assert_memory_equal(&a.c, &b.c, sizeof a.c);
	assert_true(a.judged == 86 && a.unjudged == 14);
	assert_double_equal(a.ci[KN_AGREE_KAPPA].lo, b.ci[KN_AGREE_KAPPA].lo, 0);

	kn_audit_verdicts_free(one, l->n);
	kn_audit_verdicts_free(many, l->n);
	kn_labels_free(l);
}

static void test_more_threads_than_items(void **state)
{
	(void)state;
	kn_eval_opts eo = {.step_limit = -1}; /* the offline judge */
	kn_labels *l = make(2);
	kn_audit_verdict *v = NULL;
	kn_err err = {0};
	assert_int_equal(kn_audit_judge(&v, l, &eo, 1000, NULL, NULL, &err), 0); /* capped, no progress */
	assert_non_null(v);
	kn_audit_verdicts_free(v, l->n);
	kn_audit_verdicts_free(NULL, 0);
	kn_labels_free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_judge),
		cmocka_unit_test(test_more_threads_than_items),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
