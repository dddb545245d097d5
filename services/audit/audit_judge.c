/* audit_judge.c — a judge over every labelled item, each judged with kn_match_one exactly as
 * `keynode match` judges one. Items are independent, so several are judged at once (an LLM judge
 * spends most of its time waiting for the model); every verdict lands in its item's slot, so the
 * result does not depend on the order they finish in. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "keynode/match_one.h"

void kn_audit_verdicts_free(kn_audit_verdict *v, size_t n)
{
	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		free(v[i].error);
	free(v);
}

typedef struct job {
	const kn_labels *l;
	const kn_eval_opts *opts;
	kn_audit_verdict *v;
	kn_audit_progress_fn progress;
	void *ud;
	pthread_mutex_t mu; /* guards what follows, and serialises progress calls */
	size_t next, done;
	int rc;             /* the first item (by line) that could not be judged at all */
	int rc_line;
	kn_err err;
} job;

/* One item into *v: 0 (a verdict, or unjudged when the judge failed), or the error of an item that
 * cannot be a key node, or KN_ENOMEM. */
static int judge_item(kn_audit_verdict *v, const kn_label_item *it, const kn_eval_opts *opts,
                      kn_err *err)
{
	kn_match_input in = {.target = it->target, .matcher = KN_MATCH_SEMANTIC, .expect = it->rule,
	                     .key = it->key, .value = it->value};
	kn_match_result r;
	kn_err e = {0};
	int rc = kn_match_one(&r, &in, opts, &e);
	if (rc != 0 && !r.judge_failed)
		return kn_err_set(err, rc, "%d: %s", it->line, e.msg[0] ? e.msg : kn_strerror(rc));
	if (rc != 0) {
		v->verdict = KN_AUDIT_UNJUDGED;
		v->error = strdup(e.msg[0] ? e.msg : kn_strerror(rc));
		return v->error ? 0 : kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	v->verdict = r.match;
	v->score = r.score;
	return 0;
}

/* Take items in file order until none is left or one could not be judged at all: every item before
 * a failing one was taken already, so the error kept (the lowest line) is the file's first. */
static void *worker(void *arg)
{
	job *j = arg;
	for (;;) {
		pthread_mutex_lock(&j->mu);
		size_t i = j->rc ? j->l->n : j->next++;
		pthread_mutex_unlock(&j->mu);
		if (i >= j->l->n)
			return NULL;
		kn_err e = {0};
		int rc = judge_item(&j->v[i], &j->l->items[i], j->opts, &e);
		pthread_mutex_lock(&j->mu);
		if (rc && (!j->rc || j->l->items[i].line < j->rc_line)) {
			j->rc = rc;
			j->rc_line = j->l->items[i].line;
			j->err = e;
		} else if (!rc && j->progress) {
			j->progress(j->ud, ++j->done, j->l->n);
		}
		pthread_mutex_unlock(&j->mu);
	}
}

int kn_audit_judge(kn_audit_verdict **out, const kn_labels *l, const kn_eval_opts *opts,
                   size_t threads, kn_audit_progress_fn progress, void *ud, kn_err *err)
{
	*out = NULL;
	job j = {.l = l, .opts = opts, .progress = progress, .ud = ud};
	j.v = calloc(l->n + 1, sizeof *j.v);
	if (!j.v)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	if (threads > KN_AUDIT_MAX_THREADS)
		threads = KN_AUDIT_MAX_THREADS;
	pthread_mutex_init(&j.mu, NULL);
	pthread_t tid[KN_AUDIT_MAX_THREADS];
	size_t started = 0;
	/* the calling thread is one of the workers; a thread that cannot start is one fewer */
	while (started + 1 < threads && started + 1 < l->n &&
	       pthread_create(&tid[started], NULL, worker, &j) == 0)
		started++;
	worker(&j);
	for (size_t i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	pthread_mutex_destroy(&j.mu);
	if (j.rc) {
		kn_audit_verdicts_free(j.v, l->n);
		if (err)
			*err = j.err;
		return j.rc;
	}
	*out = j.v;
	return 0;
}
