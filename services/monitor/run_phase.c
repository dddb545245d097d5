/* run_phase.c — the transition table of a run's end (run_phase.h) and its one setter. The monitor
 * (monitor.c, monitor_verdict.c) moves a run only through kn_run_end_set, so the table below is the
 * whole state machine:
 *
 *   WATCHING → FLUSHING → [PURCHASE] → [CHECKS] → [VERDICTS] → ENDED
 *
 * Each bracketed phase is skipped when there is nothing to wait for; the browser going away (or the
 * monitor being freed) ends a run from any phase. */
#include <assert.h>

#include "log.h"
#include "run_phase.h"

#define BIT(p) (1u << (p))

/* allowed[from]: the phases a run may move to from `from` */
static const unsigned allowed[] = {
	/* stop, or the browser gone (with verdicts awaited, or not) */
	[KN_RUN_WATCHING] = BIT(KN_RUN_FLUSHING) | BIT(KN_RUN_VERDICTS) | BIT(KN_RUN_ENDED),
	[KN_RUN_FLUSHING] = BIT(KN_RUN_PURCHASE) | BIT(KN_RUN_CHECKS) | BIT(KN_RUN_VERDICTS) | BIT(KN_RUN_ENDED),
	[KN_RUN_PURCHASE] = BIT(KN_RUN_CHECKS) | BIT(KN_RUN_VERDICTS) | BIT(KN_RUN_ENDED),
	[KN_RUN_CHECKS] = BIT(KN_RUN_VERDICTS) | BIT(KN_RUN_ENDED),
	[KN_RUN_VERDICTS] = BIT(KN_RUN_ENDED),
	[KN_RUN_ENDED] = 0,
};

static const char *const names[] = {
	[KN_RUN_WATCHING] = "watching", [KN_RUN_FLUSHING] = "flushing", [KN_RUN_PURCHASE] = "purchase",
	[KN_RUN_CHECKS] = "checks",     [KN_RUN_VERDICTS] = "verdicts", [KN_RUN_ENDED] = "ended",
};

#define N_PHASES (sizeof names / sizeof names[0])

const char *kn_run_phase_name(kn_run_phase p)
{
	return (unsigned)p < N_PHASES ? names[p] : "unknown";
}

int kn_run_phase_allowed(kn_run_phase from, kn_run_phase to)
{
	return (unsigned)from < N_PHASES && (unsigned)to < N_PHASES && (allowed[from] & BIT(to)) != 0;
}

int kn_run_end_set(kn_run_end *e, kn_run_phase to, kn_end why)
{
	if (!kn_run_phase_allowed(e->phase, to)) {
		kn_log_msg("error", "monitor", "invalid run phase transition", "from=%s to=%s reason=\"%s\"",
		           kn_run_phase_name(e->phase), kn_run_phase_name(to), kn_end_name(why));
		assert(!"invalid run phase transition");
		return KN_EINVAL;
	}
	e->phase = to;
	e->why = why;
	return 0;
}
