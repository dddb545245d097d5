/* judge_queue.h — an asynchronous front for a semantic judge: judgements run on worker threads of
 * their own, never on the thread that asked, and their verdicts are handed back for that thread to
 * take when it is told they came.
 *
 * This is how `keynode serve` and `keynode watch`/`run` use the LLM judge without stalling the
 * runs thread or a monitor's CDP loop: the evaluator defers a judgement (kn_eval_opts.defer), the
 * owner submits it here with a tag saying whose it is, a worker calls the (blocking, thread-safe)
 * kn_semantic judge, appends the verdict to the done list and calls notify; the owner's thread
 * takes the list and gives each verdict to its evaluator (kn_eval_verdict). */
#ifndef KEYNODE_JUDGE_QUEUE_H
#define KEYNODE_JUDGE_QUEUE_H

#include <stddef.h>

#include "keynode/error.h"
#include "keynode/match.h"

typedef struct kn_judge_queue_opts {
	const kn_semantic *judge;      /* required, borrowed; must be thread-safe (kn_llm is) */
	int threads;                   /* workers, judgements in flight at once; 0 → 4 */
	/* called on a worker thread after a verdict joined the done list (take it on your thread) */
	void (*notify)(void *ud);
	void *notify_ud;
	/* called by kn_judge_queue_close: make judgements in flight return soon (kn_llm_cancel) */
	void (*cancel)(void *ud);
	void *cancel_ud;
} kn_judge_queue_opts;

/* A verdict that came back, in the order they came. rc 0 and score in [0, 1], or the judge's
 * error (detail says why; KN_EIO "judge stopped" for judgements kn_judge_queue_close dropped
 * before they started). */
typedef struct kn_judge_done {
	struct kn_judge_done *next;
	char *rule, *input;
	void *tag;
	int rc;
	double score;
	char detail[KN_ERR_MAX];
} kn_judge_done;

typedef struct kn_judge_queue kn_judge_queue;

/* Start the workers. *out the caller's (kn_judge_queue_free). */
int kn_judge_queue_new(kn_judge_queue **out, const kn_judge_queue_opts *opts, kn_err *err);

/* Queue a judgement (strings copied; phrase may be NULL) for tag (opaque, given back with its
 * verdict). 0, KN_ENOMEM, or KN_EINVAL after close. Any thread. */
int kn_judge_queue_submit(kn_judge_queue *q, const char *rule, const char *phrase,
                          const char *input, void *tag);

/* The verdicts that came since the last take, oldest first (NULL: none); the list is the
 * caller's (kn_judge_done_free). Any thread. */
kn_judge_done *kn_judge_queue_take(kn_judge_queue *q);
void kn_judge_done_free(kn_judge_done *d);

/* Judgements submitted and not yet taken (queued, running or done). */
size_t kn_judge_queue_outstanding(kn_judge_queue *q);

/* Stop taking work: queued judgements are moved to the done list as failed ("judge stopped"),
 * the cancel hook is called, and the workers are joined once their judgement returned. What
 * came is still there to take. Idempotent. */
void kn_judge_queue_close(kn_judge_queue *q);

/* Close, then free (verdicts not taken are dropped: take them first when their tags hold
 * resources). NULL is a no-op. */
void kn_judge_queue_free(kn_judge_queue *q);

#endif
