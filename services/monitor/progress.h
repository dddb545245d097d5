/* progress.h — the human progress lines of a watched run (kn_monitor_opts.progress): one line per
 * event, the key nodes an event reached with the score after it, and the run's last line. */
#ifndef KEYNODE_MONITOR_PROGRESS_H
#define KEYNODE_MONITOR_PROGRESS_H

#include <stdio.h>

#include "keynode/eval.h"
#include "keynode/event.h"
#include "keynode/task.h"

/* The line of event e (step: it counted as a new step; rises: the key nodes it raised, from
 * kn_eval_feed), then one line per key node reached at this step and the score when rises > 0. */
void kn_progress_event(FILE *p, const kn_task *task, const kn_eval *ev, const kn_event *e, int step,
                       int rises);
/* "run ended: REASON — STATUS, N steps, …". */
void kn_progress_end(FILE *p, const kn_eval *ev, const char *reason);

#endif
