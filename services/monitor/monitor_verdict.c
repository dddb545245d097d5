/* monitor_verdict.c — the monitor's side of an asynchronous judge (kn_eval_opts.defer).
 *
 * The CDP loop never waits for the judge: the evaluator hands its semantic judgements to whoever
 * set eval.defer (the service's runs, `keynode watch`/`run`), which judges them on threads of its
 * own and brings each verdict back to the loop thread with kn_monitor_verdict. A verdict is placed
 * at the step that asked for it; the person's progress gets a line; `until finished` may end the
 * run. When the run ends while verdicts are awaited, the end waits for them — at most
 * verdict_wait_ms, then they are recorded as missing (kn_eval_verdicts_abandon) — and new events
 * are not taken meanwhile, as after any end. */
#include <stdio.h>

#include "log.h"
#include "monitor_internal.h"

#define KN_MONITOR_VERDICT_WAIT_MS 30000

static void verdict_timeout(void *ud)
{
	kn_monitor *m = ud;
	m->verdict_timer = NULL;
	kn_log_msg("warn", "monitor", "verdicts did not come within the verdict wait: recorded as missing",
	           "pending=%zu", kn_eval_pending(m->eval));
	kn_eval_verdicts_abandon(m->eval); /* none pending now: the end goes on */
	kn_monitor_end(m, m->end.why);
}

int kn_monitor_verdicts_wait(kn_monitor *m, kn_end why)
{
	if (kn_eval_pending(m->eval) == 0) /* none awaited, or the wait is over */
		return 0;
	if (m->end.phase == KN_RUN_VERDICTS)
		return 1; /* already waiting; the first reason stands */
	kn_run_end_set(&m->end, KN_RUN_VERDICTS, why);
	int ms = m->o.verdict_wait_ms > 0 ? m->o.verdict_wait_ms : KN_MONITOR_VERDICT_WAIT_MS;
	m->verdict_timer = kn_cdp_timer_start(m->loop, ms, verdict_timeout, m);
	if (!m->verdict_timer) { /* cannot wait: end now, the verdicts missing */
		kn_eval_verdicts_abandon(m->eval);
		return 0;
	}
	if (m->o.progress)
		fprintf(m->o.progress, "             waiting for %zu verdict(s) of the judge\n",
		        kn_eval_pending(m->eval));
	if (m->o.on_verdict_wait)
		m->o.on_verdict_wait(m->o.ud, m, kn_eval_pending(m->eval));
	return 1;
}

int kn_monitor_verdict(kn_monitor *m, const char *rule, const char *input, int rc, double score,
                       const char *detail)
{
	if (m->end.phase == KN_RUN_ENDED)
		return 0;
	int rises = kn_eval_verdict_detail(m->eval, rule, input, rc, score, detail);
	if (m->o.progress) {
		if (rc)
			fprintf(m->o.progress, "             verdict failed for \"%.40s\"\n", input);
		if (rises > 0)
			fprintf(m->o.progress, "             verdict for \"%.40s\": score %.2f (%.2f of %zu "
			                       "key nodes)\n", input, kn_eval_score(m->eval),
			        kn_eval_reached(m->eval), kn_eval_total(m->eval));
		fflush(m->o.progress);
	}
	if (m->end.phase == KN_RUN_VERDICTS) {
		if (kn_eval_pending(m->eval) == 0) { /* the end was waiting for this one */
			kn_cdp_timer_cancel(m->verdict_timer);
			m->verdict_timer = NULL;
			kn_monitor_end(m, m->end.why);
		}
	} else if (rises > 0 && m->o.until_finished && kn_eval_completed(m->eval)) {
		kn_monitor_stop(m, KN_END_FINISHED);
	}
	return rises;
}
