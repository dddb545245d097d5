/* test_judge_queue.c — the judge queue (services/llm/judge_queue.h): judgements run on worker
 * threads while the asking thread goes on (a judge blocked on a gate does not block submit or take),
 * every verdict comes back once with its tag, errors are handed back, close fails the judgements not
 * started ("judge stopped"), calls the cancel hook and joins; submit after close is refused. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "kn_test.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "judge_queue.h"

struct gate {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int open, inside, cancelled, notified;
};

static int gated_judge(void *ud, const char *rule, const char *phrase, const char *input,
                       double *score, kn_err *err)
{
	(void)rule, (void)phrase;
	struct gate *g = ud;
	pthread_mutex_lock(&g->mu);
	g->inside++;
	pthread_cond_broadcast(&g->cv);
	while (!g->open && !g->cancelled)
		pthread_cond_wait(&g->cv, &g->mu);
	int cancelled = g->cancelled && !g->open;
	pthread_mutex_unlock(&g->mu);
	if (cancelled)
		return kn_err_set(err, KN_EIO, "cancelled");
	if (strcmp(input, "bad") == 0)
		return kn_err_set(err, KN_EPROTO, "malformed answer");
	*score = (double)strlen(input) / 10.0;
	return 0;
}

static void notify(void *ud)
{
	struct gate *g = ud;
	pthread_mutex_lock(&g->mu);
	g->notified++;
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
}

static void cancel(void *ud)
{
	struct gate *g = ud;
	pthread_mutex_lock(&g->mu);
	g->cancelled = 1;
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
}

static void wait_until(struct gate *g, int *field, int n)
{
	pthread_mutex_lock(&g->mu);
	while (*field < n)
		pthread_cond_wait(&g->cv, &g->mu);
	pthread_mutex_unlock(&g->mu);
}

static void test_async(void **state)
{
	(void)state;
	struct gate g = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0};
	kn_semantic sem = {gated_judge, &g, "gated", NULL};
	kn_judge_queue_opts o = {.judge = &sem, .threads = 2, .notify = notify, .notify_ud = &g,
	                         .cancel = cancel, .cancel_ud = &g};
	kn_judge_queue *q;
	kn_err err = {0};
	assert_int_equal(kn_judge_queue_new(&q, &o, &err), 0);
	int tags[4];
	assert_int_equal(kn_judge_queue_submit(q, "r", NULL, "abcd", &tags[0]), 0);
	assert_int_equal(kn_judge_queue_submit(q, "r", "p", "bad", &tags[1]), 0);
	assert_int_equal(kn_judge_queue_submit(q, "r", NULL, "abcdef", &tags[2]), 0);
	wait_until(&g, &g.inside, 2); /* both workers are held at the gate */
	assert_null(kn_judge_queue_take(q)); /* the asking thread is not: nothing came yet */
	assert_int_equal(kn_judge_queue_outstanding(q), 3);
	pthread_mutex_lock(&g.mu);
	g.open = 1;
	pthread_cond_broadcast(&g.cv);
	pthread_mutex_unlock(&g.mu);
	wait_until(&g, &g.notified, 3);
	int seen = 0;
	kn_judge_done *list = kn_judge_queue_take(q);
	for (kn_judge_done *d = list; d; d = d->next) {
		seen++;
		if (d->tag == &tags[1]) {
			assert_int_equal(d->rc, KN_EPROTO);
			assert_non_null(strstr(d->detail, "malformed"));
		} else {
			assert_int_equal(d->rc, 0);
			assert_double_equal(d->score, d->tag == &tags[0] ? 0.4 : 0.6, 1e-12);
			assert_string_equal(d->rule, "r");
		}
	}
	kn_judge_done_free(list);
	assert_int_equal(seen, 3);
	assert_int_equal(kn_judge_queue_outstanding(q), 0);
	kn_judge_queue_free(q);
}

static void test_close(void **state)
{
	(void)state;
	struct gate g = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0};
	kn_semantic sem = {gated_judge, &g, "gated", NULL};
	kn_judge_queue_opts o = {.judge = &sem, .threads = 1, .cancel = cancel, .cancel_ud = &g};
	kn_judge_queue *q;
	kn_err err = {0};
	assert_int_equal(kn_judge_queue_new(&q, &o, &err), 0);
	int a, b;
	assert_int_equal(kn_judge_queue_submit(q, "r", NULL, "x", &a), 0);
	assert_int_equal(kn_judge_queue_submit(q, "r", NULL, "y", &b), 0);
	wait_until(&g, &g.inside, 1); /* the first runs, the second waits for the one worker */
	kn_judge_queue_close(q);      /* cancels the first, fails the second, joins */
	assert_int_equal(g.cancelled, 1);
	assert_int_equal(kn_judge_queue_submit(q, "r", NULL, "z", &a), KN_EINVAL);
	kn_judge_done *list = kn_judge_queue_take(q);
	int n = 0, stopped = 0;
	for (kn_judge_done *d = list; d; d = d->next) {
		n++;
		assert_int_equal(d->rc, KN_EIO);
		stopped += strcmp(d->detail, "judge stopped") == 0 && d->tag == &b;
	}
	assert_int_equal(n, 2);
	assert_int_equal(stopped, 1);
	kn_judge_done_free(list);
	kn_judge_queue_free(q);
	kn_judge_queue_free(NULL);
	kn_judge_queue_opts none = {0};
	assert_int_equal(kn_judge_queue_new(&q, &none, &err), KN_EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_async),
		cmocka_unit_test(test_close),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
