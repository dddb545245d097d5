/* held.h — replay validation of a guarded workflow: a recorded step's `held:` request
 * (workflow.h) must be held again, as recorded, when the step is replayed. The guard rules (the
 * task's, its set's, keynode.yaml's) hold it, so it never reaches the site; this checks that what the
 * replay's page sent is what the reference run sent: a checkout that now orders another quantity, or
 * no longer sends the order, is broken at that step. Fed the requests the monitor sees (in clear). */
#ifndef KN_REPLAY_HELD_H
#define KN_REPLAY_HELD_H

#include <stddef.h>

#include "keynode/request.h"
#include "keynode/task.h"

typedef struct kn_held_check {
	const kn_task *task;   /* borrowed */
	unsigned char *met;    /* per step: its recorded held request was held again */
	size_t diff_step;      /* 1-based: the step whose recorded request a held one came closest to */
	char diff[256];        /* what differed there ("field 'qty' is '3', recorded '2'") */
} kn_held_check;

/* 0, or KN_ENOMEM. A task without recorded held requests checks nothing. */
int kn_held_check_init(kn_held_check *h, const kn_task *task);
/* A request the replay's page sent (ignored unless a guard rule held it). */
void kn_held_check_seen(kn_held_check *h, const kn_request *req);
/* The first step whose recorded held request was not held again (1-based; 0: none), with why. */
size_t kn_held_check_failed(const kn_held_check *h, char *why, size_t cap);
void kn_held_check_clear(kn_held_check *h);

#endif
