/* page_error.c — what the page shows is evidence, the browser half (softpage.h is the pure half):
 * after a step the page asked what it shows (page_js.c `shows`); a not-found or error state, or an own-site data request
 * failing, that the step's recording did not have makes the step "page shows an error". */
#include <stdio.h>
#include <string.h>

#include "keynode/clock.h"
#include "replay_internal.h"
#include "softpage.h"

/* How long a step may wait before it is judged: an SPA's data requests may start only after a
 * lazily loaded route chunk (Verdaccio: up to ~300 ms after the load, later than the step's settling
 * notices) and it shows its not-found words some time after the 404 (softpage.h
 * kn_softpage_undecided). Every step is judged once no script request is out and the tab's network
 * has been quiet for JUDGE_QUIET_MS since the judgement began or its last request, whichever is
 * later; at once when the judgement says broken with the failed request that shows it (on the page's
 * words alone, once settled: the request's report may still be on its way); never after
 * UNDECIDED_MS. A step with a baseline waits too: judged at once, a removed item's 404 was still on
 * its way, the step passed and the next one broke on the item's button. The wait also lets a page's
 * own late work land (a router's scroll back to the top after a route change) before the next step.
 * A step whose action started nothing (no navigation, request or window since its mark) on a page
 * whose own scripts have nothing to come within JUDGE_QUIET_MS (no timer due, no fetch or XHR out)
 * is judged at once: its settling already gave the action its window for a consequence (wait.c). */
#define UNDECIDED_MS 2500
#define JUDGE_QUIET_MS 500
#define RECHECK_MS 100

/* Whether the page shows an error state (its words in phrase); *work: its own scripts have work to
 * come within JUDGE_QUIET_MS (1 when it cannot say). */
static int page_shows(kn_replay_waiter *w, char *phrase, size_t cap, int *work)
{
	json_t *v = NULL, *p = json_pack("{s:i}", "within", JUDGE_QUIET_MS);
	kn_err e;
	int shows = 0;
	*work = 1;
	if (kn_replay_page_call(w->c, w->session, "shows", p, &v, &e) == 0) { /* p is borrowed */
		*work = !json_is_false(json_object_get(v, "work"));
		shows = kn_softpage_shows_error_json(v, phrase, cap);
	}
	json_decref(v);
	json_decref(p);
	return shows;
}

int kn_replay_page_error(kn_replay_waiter *w, const kn_task *task, const kn_step *st, const kn_replay_mark *m,
                         kn_replay_page_verdict *out)
{
	double start = kn_time_mono_ms(), end = start + UNDECIDED_MS;
	kn_softpage_request reqs[KN_SOFTPAGE_FAILED_KEEP];
	int culprit, work;
	for (;;) {
		memset(out, 0, sizeof *out);
		size_t n = kn_softpage_failed_since(&w->fails, m->n_failed, task, reqs);
		out->shows_error = page_shows(w, out->phrase, sizeof out->phrase, &work);
		int hit = kn_softpage_judge(st, out->shows_error, reqs, n, &culprit);
		/* its data requests may not have started or answered yet, or the page may still be
		 * rendering the answer; ask again as the tab's events come — unless the action started
		 * nothing (no navigation, request or window) and the page has nothing of its own to come:
		 * its settling already gave it the window for a consequence (wait.c) */
		double now = kn_time_mono_ms(), left = end - now;
		double quiet_at = (w->net_at > start ? w->net_at : start) + JUDGE_QUIET_MS;
		size_t out_now = kn_replay_wait_scripts_out(w);
		int still = !work && w->n_req == 0 && kn_replay_wait_nothing_moved(w, m);
		int settled = out_now == 0 && (now >= quiet_at || still);
		/* broken on the page's words alone: the failed request that brought them is reported by the
		 * browser process, which may come after the page drew them; wait for it while requests are
		 * under way, so the evidence names it */
		if (hit && (culprit >= 0 || settled || w->detached || left <= 0))
			break;
		if (!hit && (w->detached || left <= 0))
			return 0;
		if (!hit && !kn_softpage_undecided(st, out->shows_error, reqs, n, out_now) && settled)
			return 0;
		kn_replay_wait_any(w, left < RECHECK_MS ? (int)left + 1 : RECHECK_MS);
	}
	if (culprit >= 0) {
		snprintf(out->url, sizeof out->url, "%s", reqs[culprit].url);
		out->status = reqs[culprit].status;
	}
	return 1;
}
