/* record_session.h — record a task's reference workflow (keynode/workflow.h) from what a person or an
 * agent does in a browser: every step with the locator fingerprint taken when it was recorded and its
 * observed postcondition. One implementation for `keynode record` (cmd_record.c) and the worker's
 * recordings from the dashboard (worker_record.c). Loop thread only. */
#ifndef KEYNODE_RECORD_SESSION_H
#define KEYNODE_RECORD_SESSION_H

#include <stdio.h>

#include "monitor.h"

typedef struct kn_record kn_record;

typedef struct kn_record_opts {
	int viewport_w, viewport_h;  /* > 0: every tab is given it and it is written; -1: the page's own;
	                                0: KN_VIEWPORT_DEFAULT_W×H */
	int until_steps;             /* the monitor ends after this many steps; 0: off */
	FILE *progress;              /* step lines; NULL: quiet */
	const char *ready_note;      /* after "recording task 'ID'" once ready (borrowed) */
	const char *browser_context; /* only this context's tabs (borrowed); NULL: every tab */
} kn_record_opts;

/* Attach to the browser at ws_url and record task's steps from now on. *out the caller's. */
int kn_record_start(kn_record **out, kn_cdp_loop *loop, const char *ws_url, const kn_task *task,
                    const kn_record_opts *o, kn_err *err);
kn_monitor *kn_record_monitor(kn_record *r);
/* kn_time_mono_ms() of the last action or navigation recorded; 0 before the first. */
double kn_record_last_event(const kn_record *r);
size_t kn_record_steps(const kn_record *r);
/* 1 once every tab open is attached with its recorder: what happens from now on is recorded. */
int kn_record_ready(const kn_record *r);
/* End it (the monitor stopped, the describe replies awaited ≤ 3 s), add answer (NULL: none) as the
 * last step, close the last step's postcondition and set the viewport: the workflow, r's. */
const kn_task *kn_record_finish(kn_record *r, kn_cdp_loop *loop, const char *answer);
/* The viewport seen in the page (1 when one was). */
int kn_record_page_viewport(const kn_record *r, int *w, int *h);
/* Candidate key nodes in task-file syntax, most telling first (keynode record --propose). */
void kn_record_propose(const kn_record *r, FILE *f);
void kn_record_free(kn_record *r);

#endif
