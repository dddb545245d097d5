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

/* ---- replay validation (issue "Replay validation"; used by `keynode replay` and `keynode worker`)
 * Replay a task's reference workflow in a fresh browser context on the browser at ws_url, watched
 * and scored by the monitor (services/monitor) exactly like an agent run, and judge it: per step
 * ok / ok-by-fallback / element not found / action failed / navigation timeout, with the locator
 * that worked and its score (a fallback or healed locator is a drift warning with the proposed
 * new selector); per key node reached / not reached. "passed" only when every step succeeded and
 * every key node was reached; "broken" otherwise; "error" when the site or browser was
 * unreachable (connection refused, DNS). A failure carries a screenshot, the URL and a DOM
 * excerpt around where the element was expected. */
typedef enum kn_replay_status { KN_REPLAY_PASSED, KN_REPLAY_BROKEN, KN_REPLAY_ERROR } kn_replay_status;

typedef struct kn_replay_report kn_replay_report;

typedef struct kn_validate_opts {
	kn_replay_opts replay;
	int fresh_context;      /* new browser context per replay (default behaviour: 1) */
	const char *run_id;     /* run id of the watched run; NULL: generated */
	FILE *trajectory;       /* the watched run's events (JSONL); NULL: none */
} kn_validate_opts;

/* Run the validation; *out is the caller's (kn_replay_report_free) whenever 0 is returned,
 * including for a broken or error verdict. A negative code only when nothing could be judged. */
int kn_replay_validate(kn_cdp_loop *loop, const char *ws_url, const kn_task *task,
                       const kn_validate_opts *opts, kn_replay_report **out, kn_err *err);
kn_replay_status kn_replay_report_status(const kn_replay_report *r);
const char *kn_replay_status_name(kn_replay_status s);   /* "passed", "broken", "error" */
/* The report as JSON text (borrowed): the run result (INTERFACES.md §3, status "finished" etc.
 * replaced by passed/broken/error and "broken": {step, reason, selector, url, dom_excerpt}) plus
 * "replay": {"steps": [{step, verb, outcome, locator, locator_score, selector, proposed_selector}],
 * "drift": [...], "key_nodes": [...]} */
const char *kn_replay_report_json(const kn_replay_report *r);
/* The failure screenshot (PNG, borrowed), NULL/0 when none. */
const unsigned char *kn_replay_report_screenshot(const kn_replay_report *r, size_t *len);
const char *kn_replay_report_run_id(const kn_replay_report *r);
void kn_replay_report_free(kn_replay_report *r);

#endif
