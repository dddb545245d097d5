/* store_health.h — a task set's replay history as the health-over-time computation takes it
 * (services/scheduler/taskset_health.h): the set's active tasks, its passing replays and its
 * tasks' transitions into "broken" (health_transitions), and the database's clock. Read only. */
#ifndef KN_STORE_HEALTH_H
#define KN_STORE_HEALTH_H

#include <stddef.h>
#include <stdint.h>

#include "store.h"

typedef struct kn_store_history_event {
	size_t task;   /* index in tasks */
	int64_t at_ms; /* ms since the epoch, rounded down */
	int broke;     /* 0: a passing replay; 1: the task's health turned broken */
} kn_store_history_event;

typedef struct kn_store_history {
	char **tasks;  /* task keys of the set's active tasks, sorted */
	size_t ntasks;
	kn_store_history_event *events; /* by task, then time */
	size_t nevents;
	int64_t now_ms; /* the database's now() */
} kn_store_history;

/* The history of task set `taskset` into *out (the caller's: kn_store_history_clear). KN_ENOTFOUND
 * when there is no such set; KN_EDB / KN_EIO / KN_ENOMEM. */
int kn_store_taskset_history(kn_store *st, const char *taskset, kn_store_history *out, kn_err *err);
void kn_store_history_clear(kn_store_history *h);

#endif
