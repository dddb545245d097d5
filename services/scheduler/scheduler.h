/* scheduler.h — scheduled replay validation inside `serve`: a thread that, at each schedule's fire
 * time (keynode.yaml schedules[], cron in UTC), enqueues one replay job per selected task in
 * PostgreSQL for the workers to claim.
 *
 * Selection (schedules[].tasks): "all" — every active task's current version; a task set name — that
 * set's; a list of task references ("TASK" or "TASKSET:TASK") — those, resolved at each fire.
 * Exactly once across instances: every fire is claimed as (schedule, fire_time) together with its
 * jobs in one transaction (kn_store_schedule_fire), so any number of `serve` processes may run
 * the scheduler; each fire's jobs are enqueued by exactly one of them.
 * Missed fires: fires that passed while no scheduler ran are not replayed one by one — on start a
 * schedule that has fired before and missed at least one fire gets one catch-up fire (for the
 * latest missed time); a new schedule waits for its next fire. Likewise a process that was
 * suspended across several fires enqueues only the latest. */
#ifndef KEYNODE_SCHEDULER_H
#define KEYNODE_SCHEDULER_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "keynode/error.h"

typedef struct kn_scheduler kn_scheduler;

/* Check every schedule of cfg (copied: cfg need not outlive the scheduler) and start the thread,
 * which connects to conninfo itself (and reconnects after errors, logging them). *out is the
 * caller's (kn_scheduler_free). KN_EINVAL for a bad schedule. With no schedules the thread is not
 * started and kn_scheduler_free is all there is to do. */
int kn_scheduler_start(kn_scheduler **out, const kn_config *cfg, const char *conninfo, kn_err *err);

/* The same without the thread: the caller drives kn_scheduler_tick with its own clock (tests). */
int kn_scheduler_open(kn_scheduler **out, const kn_config *cfg, const char *conninfo, kn_err *err);

/* Do what is due at `now` (Unix seconds, UTC): the first tick of a schedule sets its next fire
 * (and makes the one catch-up fire, see above); later ticks fire each schedule whose next fire is
 * <= now. *fired (may be NULL) = fires this call enqueued, *enqueued (may be NULL) = jobs. A fire
 * that failed (database error) is retried on the next tick; the error of the last failure is
 * returned after every schedule was tried. Not thread-safe with the scheduler's own thread: use
 * kn_scheduler_open for manual ticks. */
int kn_scheduler_tick(kn_scheduler *s, int64_t now, size_t *fired, size_t *enqueued, kn_err *err);

/* Stop the thread (if any), close the connection, free. NULL is a no-op. */
void kn_scheduler_free(kn_scheduler *s);

#endif
