/* taskset_health.h — a task set's health over time, computed from its history of scheduled
 * replays as pure functions: no database, no clock (docs/maintain.md "Task-set health over time"
 * works an example by hand). The caller (GET /api/tasksets/{name}/health) reads the history from
 * the store and passes `now`.
 *
 * A history is a list of events per task, each a passing replay (PASS) or the task's health
 * turning broken (BREAK: a transition into "broken", the moment the broken alert is raised).
 * Other replays (failed ones before the threshold, errors, blocked) do not enter: they are the
 * state machine's business (health.h). Times are milliseconds since the epoch.
 *
 *   validated share  tasks with a PASS in (now - days, now], of all the set's tasks.
 *   breaks           every BREAK; counted per UTC calendar month.
 *   detection time   per BREAK, BREAK - the task's last PASS before it, when the task passed since
 *                    its previous BREAK (or ever, for its first); otherwise the break has none
 *                    (the task never came back in between, or never passed at all).
 *   survival         one validity interval per task that ever passed: from its first PASS to its
 *                    first BREAK after that (an event), or to now when none (censored). The
 *                    curve is the Kaplan-Meier estimate over those intervals: at each distinct
 *                    duration t with d ends among n intervals still at risk (duration >= t),
 *                    S(t) = S(t-) * (1 - d / n); a censored interval of duration t counts as at
 *                    risk at t. A re-fixed task keeps its first interval only. */
#ifndef KEYNODE_TASKSET_HEALTH_H
#define KEYNODE_TASKSET_HEALTH_H

#include <stddef.h>
#include <stdint.h>

#include "keynode/error.h"

#define KN_TH_MAX_EVENTS 10000000 /* events of one computation */
#define KN_TH_MAX_MONTHS 120      /* breaks per month: at most the last ten years */
#define KN_TH_MAX_DAYS 3650

typedef enum kn_th_kind { KN_TH_PASS = 1, KN_TH_BREAK = 2 } kn_th_kind;

typedef struct kn_th_event {
	size_t task;     /* index in [0, ntasks) */
	int64_t at;      /* ms since the epoch */
	kn_th_kind kind;
} kn_th_event;

typedef struct kn_th_break {
	size_t task;
	int64_t at;
	int64_t last_pass;      /* the PASS detection is measured from; -1: none */
	int64_t detection_ms;   /* at - last_pass; -1: none */
} kn_th_break;

typedef struct kn_th_month {
	int year, month;        /* month 1..12 */
	long breaks;
} kn_th_month;

typedef struct kn_th_step {
	int64_t t_ms;           /* duration since the interval's start */
	long at_risk, ended, censored;
	double survival;        /* S(t) just after t */
} kn_th_step;

typedef struct kn_th_summary {
	size_t tasks, validated;       /* validated share = validated / tasks */
	int days;
	kn_th_break *breaks;           /* in time order */
	size_t nbreaks;
	kn_th_month *months;           /* every month from the first event's to now's, oldest first */
	size_t nmonths;
	kn_th_step *curve;             /* one step per distinct duration, shortest first */
	size_t ncurve;
	size_t intervals, ended;       /* intervals in the curve, and how many ended in a break */
	int64_t median_ms;             /* first t with S(t) <= 0.5; -1: not reached */
} kn_th_summary;

/* Compute the summary of ntasks tasks from n events (any order) as of now, validated share over
 * the last `days` days ([1, KN_TH_MAX_DAYS]). *out is the caller's (kn_th_summary_free).
 * KN_EINVAL for a task index out of range, an unknown kind or days out of range; KN_ELIMIT past
 * KN_TH_MAX_EVENTS; KN_ENOMEM. Events after now are ignored. */
int kn_th_compute(kn_th_summary **out, size_t ntasks, const kn_th_event *events, size_t n, int64_t now,
                  int days, kn_err *err);
void kn_th_summary_free(kn_th_summary *s);

#endif
