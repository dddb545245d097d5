/* monitor_canary.c — the monitor's side of the guard's canary (canary.h): a run with guard rules
 * (the task's, its set's, keynode.yaml's) gets one; its tab is set up for requests as the run's
 * tabs are; held, it lets on_ready come; not held, the run ends before it began: status error,
 * reason "guard not active", the canary's words as the detail (result, log, end reason), and the
 * owner never starts its agent. */
#include <stdlib.h>
#include <string.h>

#include "keynode/clock.h"
#include "log.h"
#include "monitor_internal.h"

/* 1 when the run has guard rules (websocket 0) or websocket rules (1). */
static int has_rules(const kn_monitor_opts *o, int websocket)
{
	const kn_guard *g[] = {o->task->guard, o->task->set_guard, o->guard};
	for (size_t i = 0; i < sizeof g / sizeof g[0]; i++)
		if (websocket ? kn_guard_has(g[i], 1) : g[i] && g[i]->n > 0)
			return 1;
	return 0;
}

/* The canary's tab gets what every tab of the run gets for requests and WebSocket messages
 * (monitor.c attach_page: Fetch, the hook of WebSocket.prototype.send and its binding, whose calls
 * come with Runtime enabled); not Network (the canary's frames are no event of the run). */
static void setup(void *ud, kn_cdp *c, const char *session)
{
	kn_monitor *m = ud;
	kn_requests_attach(m->requests, c, session, 0);
	kn_websockets_attach_page(m->websockets, c, session, 0);
	kn_cdp_send(c, session, "Runtime.enable", NULL, NULL, NULL);
}

/* The canary's tab runs: its first document (the initial about:blank of a tab a `keynode run`
 * browser reports at "": neither the binding added while it waited nor a new-document script
 * reaches it) gets the binding and the hook now, before the probes are evaluated in it. The hook is
 * idempotent: a document that has it keeps it. */
static void running(void *ud, kn_cdp *c, const char *session)
{
	kn_monitor *m = ud;
	kn_websockets_hook_now(m->websockets, c, session);
}

/* A page the canary held back while its tab was being created, not its tab after all. */
static void release(void *ud, const char *session, json_t *info)
{
	kn_monitor_attach_page(ud, session, info);
}

int kn_monitor_canary_new(kn_monitor *m, kn_err *err)
{
	if (!has_rules(&m->o, 0))
		return 0;
	kn_canary_opts co = {.loop = m->loop, .timeout_ms = m->o.canary_timeout_ms,
	                     .websocket = has_rules(&m->o, 1), .browser_context = m->o.browser_context,
	                     .setup = setup, .running = running, .release = release,
	                     .done = kn_monitor_canary_done, .ud = m};
	return kn_canary_new(&m->canary, &co, err);
}

void kn_monitor_canary_done(void *ud, int held, const char *detail)
{
	kn_monitor *m = ud;
	char q[600];
	if (m->end.phase != KN_RUN_WATCHING)
		return; /* the browser went away first: that is the end */
	if (held) {
		kn_log_msg("info", "monitor", "guard canary held", "since_start_ms=%.0f",
		           (kn_time_mono_s() - m->start) * 1000.0);
		m->canary_held = 1;
		kn_monitor_check_ready(m);
		return;
	}
	kn_log_msg("error", "monitor", "guard not active", "detail=\"%s\"", kn_log_quote(q, sizeof q, detail));
	free(m->end_detail);
	m->end_detail = detail ? strdup(detail) : NULL;
	if (kn_eval_set_error_reason(m->eval, kn_end_name(KN_END_GUARD_INACTIVE), detail) != 0)
		kn_eval_set_error(m->eval);
	kn_monitor_end(m, KN_END_GUARD_INACTIVE);
}
