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

static int has_rules(const kn_monitor_opts *o)
{
	const kn_guard *g[] = {o->task->guard, o->task->set_guard, o->guard};
	for (size_t i = 0; i < sizeof g / sizeof g[0]; i++)
		if (g[i] && g[i]->n > 0)
			return 1;
	return 0;
}

/* The canary's tab gets what every tab of the run gets for requests (monitor.c attach_page). */
static void setup(void *ud, kn_cdp *c, const char *session)
{
	kn_monitor *m = ud;
	kn_requests_attach(m->requests, c, session, 0);
}

/* A page the canary held back while its tab was being created, not its tab after all. */
static void release(void *ud, const char *session, json_t *info)
{
	kn_monitor_attach_page(ud, session, info);
}

int kn_monitor_canary_new(kn_monitor *m, kn_err *err)
{
	if (!has_rules(&m->o))
		return 0;
	kn_canary_opts co = {.loop = m->loop, .timeout_ms = m->o.canary_timeout_ms,
	                     .browser_context = m->o.browser_context, .setup = setup, .release = release,
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
