/* judge_queue.c — judgements on worker threads (judge_queue.h).
 *
 * One mutex guards a FIFO of jobs to run and a FIFO of verdicts done; workers wait on a condition
 * variable for jobs. A job's verdict goes to the done list and notify is called outside the lock,
 * so an owner's notify may post to its own loop. Closing moves the jobs not started to the done
 * list as failed, asks the judge to cancel what is in flight and joins the workers. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge_queue.h"

#define KN_JUDGE_QUEUE_MAX_THREADS 64

struct job {
	kn_judge_done d; /* first: a job becomes its verdict */
	char *phrase;
};

struct kn_judge_queue {
	kn_judge_queue_opts o;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct job *todo, *todo_tail;
	kn_judge_done *done, *done_tail;
	size_t outstanding;
	int closing, n_threads;
	pthread_t threads[KN_JUDGE_QUEUE_MAX_THREADS];
};

static void done_push(kn_judge_queue *q, kn_judge_done *d)
{
	d->next = NULL;
	if (q->done_tail)
		q->done_tail->next = d;
	else
		q->done = d;
	q->done_tail = d;
}

static void *worker(void *ud)
{
	kn_judge_queue *q = ud;
	for (;;) {
		pthread_mutex_lock(&q->mu);
		while (!q->todo && !q->closing)
			pthread_cond_wait(&q->cv, &q->mu);
		struct job *j = q->todo;
		if (!j) { /* closing and nothing left */
			pthread_mutex_unlock(&q->mu);
			return NULL;
		}
		q->todo = (struct job *)j->d.next;
		if (!q->todo)
			q->todo_tail = NULL;
		pthread_mutex_unlock(&q->mu);

		kn_err err = {0};
		double score = 0;
		const kn_semantic *s = q->o.judge;
		j->d.rc = s->judge(s->ud, j->d.rule, j->phrase, j->d.input, &score, &err);
		j->d.score = j->d.rc ? 0 : score < 0 ? 0 : score > 1 ? 1 : score;
		snprintf(j->d.detail, sizeof j->d.detail, "%s", j->d.rc ? err.msg : "");
		free(j->phrase);
		j->phrase = NULL;

		pthread_mutex_lock(&q->mu);
		done_push(q, &j->d);
		pthread_mutex_unlock(&q->mu);
		if (q->o.notify)
			q->o.notify(q->o.notify_ud);
	}
}

int kn_judge_queue_new(kn_judge_queue **out, const kn_judge_queue_opts *opts, kn_err *err)
{
	*out = NULL;
	if (!opts || !opts->judge || !opts->judge->judge)
		return kn_err_set(err, KN_EINVAL, "judge queue: no judge");
	kn_judge_queue *q = calloc(1, sizeof *q);
	if (!q)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	q->o = *opts;
	int n = opts->threads > 0 ? opts->threads : 4;
	n = n > KN_JUDGE_QUEUE_MAX_THREADS ? KN_JUDGE_QUEUE_MAX_THREADS : n;
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->cv, NULL);
	for (int i = 0; i < n; i++) {
		if (pthread_create(&q->threads[i], NULL, worker, q) != 0) {
			kn_judge_queue_free(q);
			return kn_err_set(err, KN_EIO, "judge queue: cannot start a worker thread");
		}
		q->n_threads++;
	}
	*out = q;
	return 0;
}

int kn_judge_queue_submit(kn_judge_queue *q, const char *rule, const char *phrase,
                          const char *input, void *tag)
{
	if (!q || !rule || !input)
		return KN_EINVAL;
	struct job *j = calloc(1, sizeof *j);
	if (!j || !(j->d.rule = strdup(rule)) || !(j->d.input = strdup(input)) ||
	    (phrase && !(j->phrase = strdup(phrase)))) {
		if (j) {
			free(j->d.rule);
			free(j->d.input);
		}
		free(j);
		return KN_ENOMEM;
	}
	j->d.tag = tag;
	pthread_mutex_lock(&q->mu);
	if (q->closing) {
		pthread_mutex_unlock(&q->mu);
		free(j->d.rule);
		free(j->d.input);
		free(j->phrase);
		free(j);
		return KN_EINVAL;
	}
	if (q->todo_tail)
		q->todo_tail->d.next = &j->d;
	else
		q->todo = j;
	q->todo_tail = j;
	q->outstanding++;
	pthread_cond_signal(&q->cv);
	pthread_mutex_unlock(&q->mu);
	return 0;
}

kn_judge_done *kn_judge_queue_take(kn_judge_queue *q)
{
	pthread_mutex_lock(&q->mu);
	kn_judge_done *d = q->done;
	q->done = q->done_tail = NULL;
	for (kn_judge_done *x = d; x; x = x->next)
		q->outstanding--;
	pthread_mutex_unlock(&q->mu);
	return d;
}

void kn_judge_done_free(kn_judge_done *d)
{
	while (d) {
		kn_judge_done *next = d->next;
		free(d->rule);
		free(d->input);
		free(d); /* the job it was part of: d is its first member */
		d = next;
	}
}

size_t kn_judge_queue_outstanding(kn_judge_queue *q)
{
	pthread_mutex_lock(&q->mu);
	size_t n = q->outstanding;
	pthread_mutex_unlock(&q->mu);
	return n;
}

void kn_judge_queue_close(kn_judge_queue *q)
{
	if (!q)
		return;
	pthread_mutex_lock(&q->mu);
	int first = !q->closing;
	q->closing = 1;
	struct job *j = q->todo;
	q->todo = q->todo_tail = NULL;
	while (j) { /* not started: failed, and handed back so their tags can be released */
		struct job *next = (struct job *)j->d.next;
		free(j->phrase);
		j->phrase = NULL;
		j->d.rc = KN_EIO;
		snprintf(j->d.detail, sizeof j->d.detail, "judge stopped");
		done_push(q, &j->d);
		j = next;
	}
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
	if (!first)
		return;
	if (q->o.cancel)
		q->o.cancel(q->o.cancel_ud);
	for (int i = 0; i < q->n_threads; i++)
		pthread_join(q->threads[i], NULL);
	q->n_threads = 0;
}

void kn_judge_queue_free(kn_judge_queue *q)
{
	if (!q)
		return;
	kn_judge_queue_close(q);
	kn_judge_done_free(q->done);
	pthread_cond_destroy(&q->cv);
	pthread_mutex_destroy(&q->mu);
	free(q);
}
