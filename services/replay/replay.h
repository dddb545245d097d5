/* replay.h — drive a browser through a task's reference steps over CDP (a basic, scripted agent).
 *
 * The replayer opens its own tab on its own connection and acts through trusted Input.* events
 * (mouse clicks at the element's centre, inserted text, key presses), so a monitor watching the
 * same browser sees what it would see of any agent. Each step waits for its element (bounded) and
 * for the page to settle after it. Issue "Replay validation" makes locating robust. */
#ifndef KEYNODE_REPLAY_H
#define KEYNODE_REPLAY_H

#include <stdio.h>

#include "cdp.h"
#include "keynode/task.h"

typedef enum kn_step_outcome {
	KN_STEP_OK, KN_STEP_NOT_FOUND, KN_STEP_ACTION_FAILED, KN_STEP_NAV_TIMEOUT
} kn_step_outcome;

typedef struct kn_replay_opts {
	int element_timeout_ms; /* wait for a step's element; 0 → 5000 */
	int settle_timeout_ms;  /* wait for the page to load after a step; 0 → 10000 */
	int step_delay_ms;      /* pause between steps (lets watchers see distinct steps); 0 → none */
	FILE *progress;         /* per-step lines for a person; NULL quiet */
	FILE *answers;          /* `answer` steps are appended here as lines (flushed); NULL: none */
} kn_replay_opts;

typedef struct kn_replay_result {
	size_t n_steps;             /* steps attempted */
	kn_step_outcome *outcomes;  /* one per attempted step */
	int failed_step;            /* 1-based index of the first failed step, 0 when all passed */
	char detail[256];           /* why it failed */
	char *answer;               /* the task's answer step text, if any (borrowed from the task) */
} kn_replay_result;

/* Replay task's steps in a new tab of the browser on connection c. Returns 0 when every step
 * succeeded, KN_EINVAL when a step failed (see res), other codes when the browser failed.
 * res->outcomes is the caller's (kn_replay_result_clear). */
int kn_replay_task(kn_cdp_loop *loop, kn_cdp *c, const kn_task *task, const kn_replay_opts *opts,
                   kn_replay_result *res, kn_err *err);
void kn_replay_result_clear(kn_replay_result *res);

const char *kn_step_outcome_name(kn_step_outcome o);

#endif
