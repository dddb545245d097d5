/* alerts.h — raise alerts and deliver them: recorded in PostgreSQL (which also NOTIFYs
 * keynode_alerts and feeds the dashboard), then posted to every configured channel — a generic
 * JSON webhook or a Slack-compatible webhook — via libcurl with a timeout and retries with
 * backoff. An alert whose dedupe key is still open (not acknowledged) is not raised again.
 *
 * Rules: a run that finished below its threshold (kn_alerts_run_finished) and task health
 * transitions (kn_alerts_health). Delivery runs on the alerts' own thread, so callers never wait
 * on a slow receiver. */
#ifndef KEYNODE_ALERTS_H
#define KEYNODE_ALERTS_H

#include "config.h"
#include "keynode/error.h"
#include "store.h"

typedef struct kn_alerts kn_alerts;

typedef struct kn_alerts_opts {
	const kn_config *config;     /* alerts: channels (borrowed for the life of kn_alerts) */
	const char *conninfo;        /* the database the alerts are recorded in */
	double run_score_below;      /* alert when a finished run's score is below; 0: rule off */
	int timeout_ms;              /* per delivery attempt; 0 → 5000 */
	int retries;                 /* attempts after the first; -1 → 0, 0 → 3 */
	int backoff_ms;              /* first retry delay, doubling; 0 → 500 */
	/* called on the alerts thread for each alert recorded (the service pushes it to
	 * /api/stream); alert_json is borrowed for the call */
	void (*on_alert)(void *ud, const char *alert_json);
	void *ud;
} kn_alerts_opts;

int kn_alerts_new(kn_alerts **out, const kn_alerts_opts *opts, kn_err *err);
/* Deliver what is queued (bounded wait), then stop. */
void kn_alerts_free(kn_alerts *a);

/* A run ended: alert when the rule says so. result_json is the run result (§3). Thread-safe. */
int kn_alerts_run_finished(kn_alerts *a, const char *task_ref, const char *run_id,
                           const char *result_json, kn_err *err);
/* A run was ended by something other than its own course (reason, e.g. "service restarted":
 * the serve process running it died). Always alerts (warning, key "run-interrupted:RUN"). */
int kn_alerts_run_interrupted(kn_alerts *a, const char *task_ref, const char *run_id,
                              const char *reason, kn_err *err);
/* A task's health changed from → to; evidence_json names the replay results behind it.
 * Thread-safe. */
int kn_alerts_health(kn_alerts *a, const char *task_ref, kn_health from, kn_health to,
                     const char *evidence_json, kn_err *err);

/* Block until every queued delivery finished (for tests and shutdown); KN_ETIMEOUT. */
int kn_alerts_drain(kn_alerts *a, int timeout_ms, kn_err *err);

#endif
