/* monitor.c — the live monitor (monitor.h): CDP target bookkeeping, recorder injection,
 * navigation classification, and the event pipeline trajectory → evaluator → progress.
 *
 * Navigation causes (the `how` of a navigate event) come from what the browser says about the
 * main frame of each tab: Page.frameRequestedNavigation fires only for navigations the page
 * itself started (link, form, script), Page.frameStartedNavigating says reload / history /
 * same-document, and a navigation with neither is one the agent's own client asked for (goto).
 * Back and forward are told apart with a per-tab history list. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "keynode/clock.h"
#include "keynode/guard.h"
#include "keynode/randid.h"
#include "log.h"
#include "monitor.h"
#include "frames.h"
#include "dialog.h"
#include "download.h"
#include "history.h"
#include "page_check.h"
#include "monitor_internal.h"
#include "progress.h"

static void set_str(char **slot, const char *v)
{
	free(*slot);
	*slot = v ? strdup(v) : NULL;
}

static void tab_free(struct tab *t)
{
	kn_cdp_timer_cancel(t->info_timer);
	free(t->info_url);
	free(t->session);
	free(t->target_id);
	free(t->url);
	free(t->req_reason);
	free(t->started_type);
	kn_history_clear(&t->history);
	kn_dialog_clear(&t->dialog);
	kn_doc_failure_clear(&t->doc_failure);
	free(t);
}

static struct tab *tab_by_session(kn_monitor *m, const char *session)
{
	for (struct tab *t = m->tabs; t && session; t = t->next)
		if (strcmp(t->session, session) == 0)
			return t;
	return NULL;
}


static struct tab *tab_by_target(kn_monitor *m, const char *target_id)
{
	for (struct tab *t = m->tabs; t && target_id; t = t->next)
		if (strcmp(t->target_id, target_id) == 0)
			return t;
	return NULL;
}

static void finish_run(kn_monitor *m);

static void buy_read_done(void *ud)
{
	kn_monitor *m = ud;
	if (m->end.phase == KN_RUN_PURCHASE) /* the end was waiting for it */
		finish_run(m);
}

/* The purchase action (keynodes/README.md "Purchase reward"): read what is bought in its tab. */
static void buy_read_start(kn_monitor *m, const char *tab)
{
	for (struct tab *t = m->tabs; t && tab && m->cdp; t = t->next)
		if (strcmp(t->id, tab) == 0 &&
		    kn_page_checks_start_purchase(&m->buy_read, m->cdp, m->eval,
		                                  &(kn_page_last){t->session, t->target_id}, buy_read_done,
		                                  m) != 0)
			kn_log_msg("error", "monitor", "cannot read the purchase", NULL);
}

static void emit_pair(kn_monitor *m, kn_event *ev, kn_event *clear);

/* The pipeline: every event gets its time, goes to the trajectory, the evaluator, the person. */
static void emit(kn_monitor *m, kn_event *ev)
{
	emit_pair(m, ev, NULL);
}

/* emit, with the evaluator fed clear (the same event before redaction, requests.h) when not NULL. */
static void emit_pair(kn_monitor *m, kn_event *ev, kn_event *clear)
{
	if (m->end.phase == KN_RUN_VERDICTS || m->end.phase == KN_RUN_ENDED)
		return; /* no event once the end waits for the judge's verdicts, or is over */
	/* an event's time is when the action happened (the recorder's clock: the same machine's), never
	 * before the previous event's nor in the future */
	double now_t = kn_time_mono_s() - m->start, at = ev->t > 0 ? ev->t / 1000.0 - m->wall_start : now_t;
	ev->t = m->last_t = at > now_t ? now_t : at < m->last_t ? m->last_t : at;
	m->last_event = kn_time_mono_s();
	if (ev->tab && ev->tab != m->last_tab) /* a worker's request names the last tab itself (on_request) */
		snprintf(m->last_tab, sizeof m->last_tab, "%s", ev->tab);
	if (m->o.human && m->o.human(m->o.human_ud))
		ev->human = 1; /* a person's, in a takeover (the evaluator skips it) */
	if (clear)
		clear->human = ev->human;
	m->events++;
	if (m->o.trajectory && kn_traj_write_event(m->o.trajectory, ev) != 0)
		kn_log_msg("error", "monitor", "cannot write trajectory event", NULL);
	int before = kn_eval_steps(m->eval);
	kn_err err = {0};
	if (clear)
		clear->t = ev->t;
	int rises = kn_eval_feed(m->eval, clear ? clear : ev, &err);
	kn_trace_event(m->o.trace, m->cdp, ev); /* after the evaluator: the checks' evidence is in */
	char q[512];
	if (rises < 0)
		kn_log_msg("warn", "monitor", "evaluation failed", "detail=\"%s\"", kn_log_quote(q, sizeof q, err.msg));
	if (ev->type == KN_EV_CLICK && !m->buy_read && kn_eval_purchase_bought(m->eval))
		buy_read_start(m, ev->tab);
	if (m->o.progress)
		kn_progress_event(m->o.progress, m->o.task, m->eval, ev, kn_eval_steps(m->eval) > before, rises);
	if (m->o.on_event)
		m->o.on_event(m->o.ud, m, m->o.on_event_clear && clear ? clear : ev, rises);
	if (m->o.until_finished && kn_eval_completed(m->eval))
		kn_monitor_stop(m, KN_END_FINISHED);
	else if (m->o.until_steps > 0 && kn_eval_steps(m->eval) >= m->o.until_steps)
		kn_monitor_stop(m, KN_END_STEPS);
	else if (kn_eval_status(m->eval) == KN_STATUS_STEP_LIMIT)
		kn_monitor_stop(m, KN_END_STEP_LIMIT); /* past the budget nothing more can count */
}

/* Classify and emit a main-frame navigation of tab t to url. */
static void navigated(kn_monitor *m, struct tab *t, const char *url, int same_document,
                      const char *same_doc_type)
{
	const char *how;
	int history = 0;
	kn_cdp_timer_cancel(t->info_timer); /* a navigation arrived: the safety net is not needed */
	t->info_timer = NULL;
	set_str(&t->info_url, NULL);
	if (t->synthetic && t->url && strcmp(t->url, url) == 0) {
		/* the late event of a navigation already emitted from other evidence */
		t->synthetic = 0;
		set_str(&t->req_reason, NULL);
		set_str(&t->started_type, NULL);
		return;
	}
	t->synthetic = 0;
	if (t->popup_first) {
		how = kn_nav_name(KN_NAV_POPUP);
		t->popup_first = 0;
	} else if (t->started_type && strncmp(t->started_type, "history", 7) == 0) {
		how = kn_history_move(&t->history, url);
		history = 1;
	} else if (t->started_type && strncmp(t->started_type, "reload", 6) == 0) {
		how = kn_nav_name(KN_NAV_RELOAD);
		history = 1; /* same entry */
	} else if (t->req_reason) {
		how = same_document ? kn_nav_name(strcmp(same_doc_type, "fragment") == 0 ? KN_NAV_HASH : KN_NAV_HISTORY)
		                    : kn_history_reason_how(t->req_reason);
	} else if (same_document) {
		/* pushState / hash changes from page script, or a goto to the same document */
		how = kn_nav_name(t->started_type && strcmp(t->started_type, "sameDocument") == 0 ? KN_NAV_GOTO
		                  : strcmp(same_doc_type, "fragment") == 0                       ? KN_NAV_HASH
		                                                                                  : KN_NAV_HISTORY);
	} else {
		how = kn_nav_name(KN_NAV_GOTO);
	}
	if (!history)
		kn_history_push(&t->history, url);
	set_str(&t->req_reason, NULL);
	set_str(&t->started_type, NULL);
	set_str(&t->url, url);
	kn_event ev = {.type = KN_EV_NAVIGATE, .tab = t->id, .url = url, .how = how, .trusted = -1};
	emit(m, &ev);
}

struct pending_history {
	kn_monitor *m;
	char *session;
};

static void on_blocked(void *ud, const kn_blocked_hit *hit);

/* The tab's committed URL right after we enabled its events: emit the navigation we missed. */
static void history_reply(void *ud, kn_cdp *c, json_t *result, const char *error)
{
	(void)c;
	struct pending_history *ph = ud;
	struct tab *t = result && !error ? tab_by_session(ph->m, ph->session) : NULL;
	json_t *cur = json_array_get(json_object_get(result, "entries"),
	                             (size_t)json_integer_value(json_object_get(result, "currentIndex")));
	const char *url = kn_json_str(cur, "url");
	if (t && url && *url && strcmp(url, "about:blank") != 0) {
		if (!t->url || strcmp(url, t->url) != 0)
			navigated(ph->m, t, url, 0, NULL);
		if (!ph->m->o.blocked_off) /* a page blocked before we attached fires no load event for us */
			kn_blocked_probe_send(ph->m->cdp, t->session, t->ctx_id, ph->m->o.blocked, on_blocked, ph->m);
	}
	free(ph->session);
	free(ph);
}

/* Tell the owner once the monitor is ready (monitor.h on_ready): every tab attached, and with guard
 * rules the canary held (monitor_canary.c). */
void kn_monitor_check_ready(kn_monitor *m)
{
	if (m->ready || !m->autoattach_done || m->setup_pending > 0)
		return;
	if (m->canary && !m->canary_held) { /* the guard proves itself first (canary.h) */
		if (!kn_canary_done(m->canary) && m->cdp && !m->canary_started) {
			m->canary_started = 1;
			if (kn_canary_start(m->canary, m->cdp) != 0)
				kn_monitor_canary_done(m, 0, "the canary's tab could not be opened");
		}
		return;
	}
	m->ready = 1;
	if (m->o.on_ready)
		m->o.on_ready(m->o.ud, m);
}

/* A tab's recorder script was installed (or failed to be: the tab is gone; nothing to wait for). */
static void setup_reply(void *ud, kn_cdp *c, json_t *result, const char *error)
{
	(void)c, (void)result, (void)error;
	kn_monitor *m = ud;
	m->setup_pending--;
	kn_monitor_check_ready(m);
}

static void autoattach_reply(void *ud, kn_cdp *c, json_t *result, const char *error)
{
	(void)c, (void)result;
	kn_monitor *m = ud;
	char q[512];
	if (error)
		kn_log_msg("warn", "monitor", "auto-attach failed", "error=\"%s\"", kn_log_quote(q, sizeof q, error));
	m->autoattach_done = 1;
	kn_monitor_check_ready(m);
}

static void attach_page(kn_monitor *m, const char *session, json_t *info)
{
	struct tab *t = calloc(1, sizeof *t);
	if (!t) {
		kn_cdp_send(m->cdp, session, "Runtime.runIfWaitingForDebugger", NULL, NULL, NULL);
		return;
	}
	t->session = strdup(session);
	t->target_id = strdup(kn_json_str(info, "targetId") ? kn_json_str(info, "targetId") : "");
	kn_requests_frame(m->requests, t->target_id); /* its requests as it closes pause at the browser */
	snprintf(t->id, sizeof t->id, "T%d", ++m->next_tab);
	kn_random_id(t->world, sizeof t->world, "kn_w_", 12);
	kn_random_id(t->binding, sizeof t->binding, "kn_b_", 12);
	const char *opener = kn_json_str(info, "openerId"), *url = kn_json_str(info, "url");
	t->popup_first = opener && *opener;
	int newtab = 0;
	if (!t->popup_first && m->newtab_href && kn_time_mono_s() - m->newtab_at < 5.0 &&
	    (!url || !*url || strcmp(url, "about:blank") == 0 || strcmp(url, m->newtab_href) == 0)) {
		t->popup_first = newtab = 1; /* Chromium gives a Ctrl+clicked link's tab no opener */
		set_str(&m->newtab_href, NULL);
	}
	t->m = m;
	t->next = m->tabs;
	m->tabs = t;
	if (!t->session || !t->target_id) {
		kn_log_msg("error", "monitor", "out of memory", NULL);
		return;
	}

	char *src = NULL;
	if (kn_monitor_recorder_source(&src, m->o.task, t->binding, m->o.page_views) != 0)
		kn_log_msg("error", "monitor", "cannot build the recorder", NULL);
	kn_cdp_send(m->cdp, session, "Runtime.addBinding",
	            json_pack("{s:s, s:s}", "name", t->binding, "executionContextName", t->world), NULL,
	            NULL);
	kn_cdp_send(m->cdp, session, "Page.enable", NULL, NULL, NULL);
	kn_cdp_send(m->cdp, session, "Runtime.enable", NULL, NULL, NULL);
	/* only for failed main documents (unreachable.h): no bodies kept */
	kn_cdp_send(m->cdp, session, "Network.enable",
	            json_pack("{s:i, s:i}", "maxTotalBufferSize", 0, "maxResourceBufferSize", 0), NULL, NULL);
	kn_requests_attach(m->requests, m->cdp, session, 0); /* requests sent, the guard (requests.h) */
	kn_websockets_attach_page(m->websockets, m->cdp, session, 0); /* WebSocket messages (websockets.h) */
	if (m->o.viewport_w > 0 && m->o.viewport_h > 0) /* monitor.h: before the tab runs on */
		kn_cdp_send(m->cdp, session, "Emulation.setDeviceMetricsOverride",
		            json_pack("{s:i, s:i, s:f, s:b}", "width", m->o.viewport_w, "height", m->o.viewport_h,
		                      "deviceScaleFactor", 1.0, "mobile", 0), NULL, NULL);
	kn_trace_attach(m->o.trace, m->cdp, session, t->id, t->target_id, t->world);
	if (src) {
		int counted = !m->ready;
		if (kn_cdp_send(m->cdp, session, "Page.addScriptToEvaluateOnNewDocument",
		                json_pack("{s:s, s:b, s:s}", "source", src, "runImmediately", 1, "worldName",
		                          t->world),
		                counted ? setup_reply : NULL, counted ? m : NULL) > 0 && counted)
			m->setup_pending++;
	}
	free(src);
	kn_frames_autoattach(m->cdp, session); /* out-of-process iframes (frames.c) */
	kn_frames_scan(m->frames, m->cdp, session);
	kn_cdp_send(m->cdp, session, "Runtime.runIfWaitingForDebugger", NULL, NULL, NULL);
	/* a navigation that committed before Page.enable took effect sent us no event: ask */
	struct pending_history *ph = malloc(sizeof *ph);
	if (ph && (ph->session = strdup(session)) != NULL) {
		ph->m = m;
		if (kn_cdp_send(m->cdp, session, "Page.getNavigationHistory", NULL, history_reply, ph) < 0) {
			free(ph->session);
			free(ph);
		}
	} else {
		free(ph);
	}

	/* a tab that was loaded before we attached sends no frameNavigated: its URL is here */
	kn_event ev = {.type = KN_EV_TAB_OPEN, .tab = t->id, .trusted = -1};
	if (url && *url && strcmp(url, "about:blank") != 0 && !newtab) {
		ev.url = url;
		set_str(&t->url, url);
		kn_history_push(&t->history, url);
		t->popup_first = 0;
	}
	emit(m, &ev);
}

static void detach_tab(kn_monitor *m, const char *session)
{
	for (struct tab **pp = &m->tabs; *pp; pp = &(*pp)->next)
		if (strcmp((*pp)->session, session) == 0) {
			struct tab *t = *pp;
			*pp = t->next;
			kn_event ev = {.type = KN_EV_TAB_CLOSE, .tab = t->id, .trusted = -1};
			emit(m, &ev);
			tab_free(t);
			return;
		}
}

/* A navigation the page session did not report (one that committed while we were still enabling
 * its events) found out later: emit it now, before anything that happened on that page. */
static void missed_navigation(kn_monitor *m, struct tab *t, const char *url)
{
	size_t base = strcspn(url, "#");
	int same_doc = t->url && strncmp(t->url, url, base) == 0 && strcspn(t->url, "#") == base;
	char *copy = strdup(url); /* url may be t->info_url, which navigated() releases */
	if (!copy)
		return;
	/* Only a tab's first navigation can be missed for good (it may commit before our Page.enable):
	 * that is the agent's goto. Later mismatches are page events overtaking the browser's report
	 * of a navigation the page caused; never count those as the agent's steps. */
	if (t->history.n > 0 && !t->req_reason && !t->started_type && !t->popup_first)
		t->req_reason = strdup("scriptInitiated");
	navigated(m, t, copy, same_doc, "fragment");
	t->synthetic = 1;
	free(copy);
}

/* A password input was typed into: its name (the payload's hints) is a secret in every request
 * body and query from now on, whatever it is called (redact.h names). */
static void learn_password_name(kn_monitor *m, const char *payload, size_t len)
{
	json_t *p = json_loadb(payload, len, 0, NULL);
	const char *name = json_string_value(json_object_get(json_object_get(p, "hints"), "name"));
	if (name && *name && !kn_redact_field(&m->redact, name, NULL) && m->redact.n_names < 64) {
		char **grown = realloc(m->password_names, (m->redact.n_names + 1) * sizeof *grown);
		if (grown) {
			m->password_names = grown;
			if ((grown[m->redact.n_names] = strdup(name)) != NULL)
				m->redact.n_names++;
			m->redact.names = (const char *const *)grown;
		}
	}
	json_decref(p);
}

static void on_binding(kn_monitor *m, struct tab *t, const char *session, json_t *params)
{
	const char *name = kn_json_str(params, "name");
	json_t *payload = json_object_get(params, "payload");
	if (!name || strcmp(name, t->binding) != 0 || !json_is_string(payload)) {
		kn_log_msg("warn", "monitor", "binding call ignored", "tab=%s", t->id);
		return;
	}
	kn_event ev;
	kn_err err = {0};
	if (kn_monitor_decode_payload(&ev, json_string_value(payload), json_string_length(payload),
	                              &err) != 0) {
		char q[512];
		kn_log_msg("warn", "monitor", "bad recorder payload skipped", "tab=%s detail=\"%s\"", t->id,
		           kn_log_quote(q, sizeof q, err.msg));
		return;
	}
	char *href = NULL;
	kn_monitor_payload_meta(json_string_value(payload), json_string_length(payload), &ev.t, &href);
	if (href && ev.trusted == 1) { /* the next tab without an opener is this link's (attach_page) */
		set_str(&m->newtab_href, href);
		m->newtab_at = kn_time_mono_s();
	}
	free(href);
	ev.tab = t->id;
	const char *path[KN_FRAMES_MAX_DEPTH];
	kn_frames_path(m->frames, session, json_integer_value(json_object_get(params, "executionContextId")),
	               path, &ev.n_frame_path);
	ev.frame_path = ev.n_frame_path ? path : NULL;
	if (ev.frame || ev.n_frame_path) { /* url stays the tab's top-level page (keynodes/README.md) */
		ev.frame = 1;
		ev.frame_url = ev.url;
		ev.url = t->url;
	}
	if (!ev.url)
		ev.url = t->url;
	else if (!ev.frame && (!t->url || strcmp(ev.url, t->url) != 0))
		missed_navigation(m, t, ev.url); /* the page is somewhere we were not told of: say so first */
	if (m->o.on_payload)
		m->o.on_payload(m->o.ud, m, t->id, json_string_value(payload), json_string_length(payload));
	/* a card number, a CVC, a token typed into a field is written [redacted]; the evaluator sees it
	 * (redact.h; the recorder itself masks password fields) */
	kn_event clear = ev;
	if (ev.type == KN_EV_TYPE && ev.value && strcmp(ev.value, KN_RECORDER_PASSWORD_MASK) == 0)
		learn_password_name(m, json_string_value(payload), json_string_length(payload));
	int secret = (ev.type == KN_EV_TYPE || ev.type == KN_EV_SELECT) && ev.value &&
	             kn_redact_field(&m->redact, ev.selector, ev.value);
	if (secret)
		ev.value = KN_REDACTED;
	emit_pair(m, &ev, secret ? &clear : NULL);
	kn_event_clear(&ev);
}

/* 1 when url is the one whose error page the tab shows: Chromium gives it as the target's URL, but
 * it never loaded (unreachable.h). */
static int failed_url(const struct tab *t, const char *url)
{
	return t->doc_failure.error_url && strcmp(url, t->doc_failure.error_url) == 0;
}

/* The safety net: the browser's target URL changed and, a moment later, no navigation event has
 * brought the tab there. */
static void info_url_check(void *ud)
{
	struct tab *t = ud;
	t->info_timer = NULL;
	if (t->info_url && (!t->url || strcmp(t->url, t->info_url) != 0) && !failed_url(t, t->info_url) &&
	    t->m->end.phase != KN_RUN_ENDED)
		missed_navigation(t->m, t, t->info_url);
	set_str(&t->info_url, NULL);
}

static void target_url_changed(kn_monitor *m, struct tab *t, const char *url)
{
	if (!t || !url || !*url || strcmp(url, "about:blank") == 0 || (t->url && strcmp(t->url, url) == 0))
		return;
	if (kn_history_has(&t->history, url)) /* a late report of where the tab has been */
		return;
	if (failed_url(t, url))
		return;
	set_str(&t->info_url, url);
	kn_cdp_timer_cancel(t->info_timer);
	t->info_timer = kn_cdp_timer_start(m->loop, 400, info_url_check, t);
}

/* After a failed Document load or a top-level commit of tab t: a main document of the task's own
 * site that did not answer ends the run as unreachable (unreachable.h), unless it is finished or
 * ended. While the run is stopping (the agent exited, say) it is still recorded. */
static void check_unreachable(kn_monitor *m, struct tab *t)
{
	char *evidence = NULL;
	if (m->end.phase == KN_RUN_ENDED || kn_eval_completed(m->eval) || kn_eval_unreachable(m->eval) ||
	    !kn_doc_failure_unreachable(&evidence, &t->doc_failure, m->o.task, kn_eval_steps(m->eval)))
		return;
	char q[600];
	kn_log_msg("warn", "monitor", "site unreachable", "tab=%s evidence=\"%s\"", t->id,
	           kn_log_quote(q, sizeof q, evidence));
	if (kn_eval_set_unreachable(m->eval, evidence) == 0 && m->end.phase == KN_RUN_WATCHING)
		kn_monitor_stop(m, KN_END_UNREACHABLE);
	free(evidence);
}

/* A loaded page's blocked verdict (blocked.h): the last loaded page decides (the agent may get past). */
static void on_blocked(void *ud, const kn_blocked_hit *hit)
{
	kn_monitor *m = ud;
	int ended = m->end.phase == KN_RUN_ENDED;
	json_t *j = hit && hit->kind && !ended ? kn_blocked_hit_json(hit, 0) : NULL;
	char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
	char q[512];
	if (hit && !ended && kn_eval_set_blocked(m->eval, text) == 0 && text)
		kn_log_msg("info", "monitor", "blocked page", "signature=\"%s\"",
		           kn_log_quote(q, sizeof q, hit->signature));
	json_decref(j);
	free(text);
}

/* A target of the browser context the run watches (kn_monitor_opts.browser_context), or any when
 * none is set. */
static int own_context(const kn_monitor *m, json_t *info)
{
	const char *ctx = kn_json_str(info, "browserContextId");
	return !m->o.browser_context || (ctx && strcmp(ctx, m->o.browser_context) == 0);
}

/* A service worker of the run that was running before the watch began: its loaders were made
 * before the browser session's Fetch.enable and no later Fetch.enable reaches them (requests.h).
 * It is stopped once; its next event (the page's next request or navigation) starts it again, under
 * interception. */
static void restart_worker(kn_monitor *m, json_t *info)
{
	const char *id = kn_json_str(info, "targetId");
	char q[512];
	if (!id)
		return;
	kn_log_msg("info", "monitor", "service worker restarted under interception", "url=\"%s\"",
	           kn_log_quote(q, sizeof q, kn_json_str(info, "url")));
	kn_cdp_send(m->cdp, NULL, "Target.closeTarget", json_pack("{s:s}", "targetId", id), NULL, NULL);
}

void kn_monitor_attach_page(kn_monitor *m, const char *sid, json_t *info)
{
	if (m->end.phase == KN_RUN_ENDED || !m->cdp) {
		if (m->cdp) { /* as on_event's end: nothing may stay paused for us */
			kn_cdp_send(m->cdp, sid, "Runtime.runIfWaitingForDebugger", NULL, NULL, NULL);
			kn_cdp_send(m->cdp, NULL, "Target.detachFromTarget", json_pack("{s:s}", "sessionId", sid), NULL, NULL);
		}
	} else if (kn_page_checks_running(m->checks)) {
		kn_cdp_send(m->cdp, sid, "Runtime.runIfWaitingForDebugger", NULL, NULL, NULL);
	} else if (!own_context(m, info)) {
		kn_cdp_send(m->cdp, sid, "Runtime.runIfWaitingForDebugger", NULL, NULL, NULL);
		kn_cdp_send(m->cdp, NULL, "Target.detachFromTarget", json_pack("{s:s}", "sessionId", sid), NULL, NULL);
	} else {
		attach_page(m, sid, info);
	}
}

/* A target attached under our auto-attach (session: the parent's, NULL for the browser's): the canary's
 * tab, the page checks' tab, a tab of another context, the agent's tab, an iframe or a worker — each set
 * up before it runs. */
static void on_attached(kn_monitor *m, const char *session, json_t *params)
{
	json_t *info = json_object_get(params, "targetInfo");
	const char *sid = kn_json_str(params, "sessionId"), *type = kn_json_str(info, "type");
	if (!sid)
		return;
	if (kn_canary_claim(m->canary, m->cdp, sid, info)) /* the guard's canary: never a tab */
		return;
	const char *ts = kn_frames_tab_of(m->frames, session);
	struct tab *owner = tab_by_session(m, ts ? ts : session);
	if (kn_page_checks_running(m->checks)) /* the checks' own tab, not the agent's */
		kn_cdp_send(m->cdp, sid, "Runtime.runIfWaitingForDebugger", NULL, NULL, NULL);
	else if (type && strcmp(type, "page") == 0 && !own_context(m, info)) {
		kn_cdp_send(m->cdp, sid, "Runtime.runIfWaitingForDebugger", NULL, NULL, NULL);
		kn_cdp_send(m->cdp, NULL, "Target.detachFromTarget", json_pack("{s:s}", "sessionId", sid), NULL, NULL);
	} else if (type && strcmp(type, "page") == 0)
		attach_page(m, sid, info);
	else if (type && strcmp(type, "iframe") == 0 && owner) {
		kn_requests_attach(m->requests, m->cdp, sid, 1); /* before the frame runs */
		kn_websockets_attach_page(m->websockets, m->cdp, sid, 0);
		char *src = NULL;
		if (kn_monitor_recorder_source(&src, m->o.task, owner->binding, m->o.page_views) != 0)
			kn_log_msg("error", "monitor", "cannot build the recorder", NULL);
		kn_frames_attach(m->frames, m->cdp, sid, session, owner->session, info, owner->world,
		                 owner->binding, src);
		char q[512];
		kn_log_msg("info", "monitor", "frame target attached", "tab=%s type=iframe url=\"%s\"", owner->id,
		           kn_log_quote(q, sizeof q, kn_json_str(info, "url")));
		free(src);
	} else {
		/* workers; a service worker's requests are decided at the browser session (requests.h) */
		int sw = type && strcmp(type, "service_worker") == 0;
		int mine = own_context(m, info) && kn_requests_intercepting(m->requests);
		if (mine && !sw)
			kn_requests_attach(m->requests, m->cdp, sid, 0);
		if (own_context(m, info) && type && strstr(type, "worker")) /* before its script runs */
			kn_websockets_attach_worker(m->websockets, m->cdp, sid, sw);
		kn_cdp_send(m->cdp, sid, "Runtime.runIfWaitingForDebugger", NULL, NULL, NULL);
		if (mine && sw && !session && !m->autoattach_done &&
		    !json_is_true(json_object_get(params, "waitingForDebugger")))
			restart_worker(m, info);
	}
}

static void on_event(void *ud, kn_cdp *c, const char *method, const char *session, json_t *params)
{
	(void)c;
	kn_monitor *m = ud;
	/* a message the hook holds back is answered in every case, after the end too; a worker's Network
	 * events, enabled for its WebSocket frames only, stop here (websockets.h) */
	if (kn_websockets_event(m->websockets, m->cdp, session, method, params, m->end.phase == KN_RUN_ENDED))
		return;
	/* a paused request is answered in every case, after the end too (held ones stay held) */
	if (kn_requests_event(m->requests, m->cdp, session, method, params, m->end.phase == KN_RUN_ENDED) &&
	    strcmp(method, "Fetch.requestPaused") == 0)
		return;
	/* the run's service workers, whose requests are decided at the browser session (requests.h) */
	if (strcmp(method, "Target.attachedToTarget") == 0 || strcmp(method, "Target.targetCreated") == 0) {
		json_t *info = json_object_get(params, "targetInfo");
		const char *type = kn_json_str(info, "type");
		if (type && strcmp(type, "service_worker") == 0 && own_context(m, info))
			kn_requests_worker(m->requests, kn_json_str(info, "targetId"), 1);
	} else if (strcmp(method, "Target.targetDestroyed") == 0) {
		kn_requests_worker(m->requests, kn_json_str(params, "targetId"), 0);
	}
	/* a worker restarted while one of our sessions stayed attached to it (the same target) waits
	 * for a debugger again: nobody else may be there to let it run */
	if (strcmp(method, "Inspector.targetReloadedAfterCrash") == 0 && session) {
		kn_cdp_send(m->cdp, session, "Runtime.runIfWaitingForDebugger", NULL, NULL, NULL);
		return;
	}
	if (m->end.phase == KN_RUN_ENDED) { /* over; the trace's last steps still take their screenshots (services/trace) */
		const char *sid = strcmp(method, "Target.attachedToTarget") == 0 ? kn_json_str(params, "sessionId") : NULL;
		if (sid) { /* auto-attach waits for us: a tab opened now (another run's, another worker's on a
		            * shared browser) must not stay paused while this connection lingers */
			kn_cdp_send(m->cdp, sid, "Runtime.runIfWaitingForDebugger", NULL, NULL, NULL);
			kn_cdp_send(m->cdp, NULL, "Target.detachFromTarget", json_pack("{s:s}", "sessionId", sid), NULL, NULL);
			return;
		}
		struct tab *t = strncmp(method, "Page.", 5) == 0 ? tab_by_session(m, session) : NULL;
		if (t)
			kn_trace_cdp_event(m->o.trace, m->cdp, t->id, method, params);
		return;
	}
	if (strcmp(method, "Target.attachedToTarget") == 0) {
		on_attached(m, session, params);
		return;
	}
	if (strcmp(method, "Target.detachedFromTarget") == 0) {
		const char *sid = kn_json_str(params, "sessionId");
		if (sid) {
			kn_websockets_detach(m->websockets, sid);
			kn_frames_detach(m->frames, sid);
			detach_tab(m, sid);
		}
		return;
	}
	if (strcmp(method, "Target.targetInfoChanged") == 0) {
		json_t *info = json_object_get(params, "targetInfo");
		target_url_changed(m, tab_by_target(m, kn_json_str(info, "targetId")), kn_json_str(info, "url"));
		return;
	}
	const char *tab_session = kn_frames_tab_of(m->frames, session);
	struct tab *t = tab_by_session(m, tab_session ? tab_session : session);
	if (!t)
		return;
	kn_frames_event(m->frames, m->cdp, session, method, params, t->world, t->binding);
	kn_trace_cdp_event(m->o.trace, m->cdp, tab_session ? NULL : t->id, method, params);
	if (m->o.on_network && !tab_session && strncmp(method, "Network.", 8) == 0)
		m->o.on_network(m->o.ud, m, t->id, method, params);
	if (strcmp(method, "Runtime.bindingCalled") == 0) {
		on_binding(m, t, session, params);
	} else if (tab_session) {
		return; /* an iframe target's own navigations are no tab's */
	} else if (strncmp(method, "Page.javascriptDialog", 21) == 0) {
		kn_event ev;
		if (kn_dialog_feed(&t->dialog, method, params, &ev)) {
			ev.tab = t->id;
			emit(m, &ev);
		}
	} else if (strcmp(method, "Page.downloadWillBegin") == 0) {
		kn_event dl; /* download.h: not a navigation; the link's pending cause is spent */
		set_str(&t->req_reason, NULL);
		if (kn_download_event(&dl, params, t->id, t->url))
			emit(m, &dl);
	} else if (strcmp(method, "Page.frameRequestedNavigation") == 0) {
		const char *fid = kn_json_str(params, "frameId"), *disp = kn_json_str(params, "disposition");
		if (fid && strcmp(fid, t->target_id) == 0 && (!disp || strcmp(disp, "currentTab") == 0))
			set_str(&t->req_reason, kn_json_str(params, "reason"));
	} else if (strcmp(method, "Page.frameStartedNavigating") == 0) {
		const char *fid = kn_json_str(params, "frameId");
		if (fid && strcmp(fid, t->target_id) == 0)
			set_str(&t->started_type, kn_json_str(params, "navigationType"));
	} else if (strcmp(method, "Page.frameNavigated") == 0) {
		json_t *frame = json_object_get(params, "frame");
		const char *url = kn_json_str(frame, "url"), *frag = kn_json_str(frame, "urlFragment");
		if (!url || json_object_get(frame, "parentId"))
			return;
		char *full = NULL;
		if (frag && *frag && (full = malloc(strlen(url) + strlen(frag) + 1)))
			strcat(strcpy(full, url), frag);
		kn_doc_failure_commit(&t->doc_failure, frame);
		navigated(m, t, full ? full : url, 0, NULL);
		free(full);
		check_unreachable(m, t);
	} else if (strcmp(method, "Network.requestWillBeSent") == 0) {
		kn_doc_failure_request(&t->doc_failure, params, t->target_id);
	} else if (strcmp(method, "Network.loadingFailed") == 0) {
		kn_doc_failure_note(&t->doc_failure, params);
		check_unreachable(m, t);
	} else if (strcmp(method, "Page.navigatedWithinDocument") == 0) {
		const char *fid = kn_json_str(params, "frameId"), *url = kn_json_str(params, "url");
		const char *type = kn_json_str(params, "navigationType");
		if (fid && url && strcmp(fid, t->target_id) == 0)
			navigated(m, t, url, 1, type ? type : "other");
	} else if (strcmp(method, "Runtime.executionContextCreated") == 0) {
		json_t *ctx = json_object_get(params, "context");
		json_t *aux = json_object_get(ctx, "auxData");
		const char *name = kn_json_str(ctx, "name"), *fid = kn_json_str(aux, "frameId");
		if (name && fid && strcmp(name, t->world) == 0 && strcmp(fid, t->target_id) == 0)
			t->ctx_id = (int)json_integer_value(json_object_get(ctx, "id"));
	} else if (strcmp(method, "Runtime.executionContextsCleared") == 0) {
		t->ctx_id = 0;
	} else if (strcmp(method, "Page.loadEventFired") == 0 && !m->o.blocked_off) {
		kn_blocked_probe_send(m->cdp, t->session, t->ctx_id, m->o.blocked, on_blocked, m);
	}
}

static void write_header(kn_monitor *m)
{
	if (!m->o.trajectory)
		return;
	char started[KN_TIME_MAX];
	kn_time_rfc3339(started, time(NULL));
	if (kn_traj_write_header(m->o.trajectory, m->o.run_id ? m->o.run_id : "run", m->o.task->id,
	                         started) != 0)
		kn_log_msg("error", "monitor", "cannot write trajectory header", NULL);
}

static void on_open(void *ud, kn_cdp *c)
{
	kn_monitor *m = ud;
	kn_cdp_send(c, NULL, "Target.setDiscoverTargets", json_pack("{s:b}", "discover", 1), NULL, NULL);
	kn_requests_attach_browser(m->requests, c); /* before any worker the run may see starts */
	/* the browser attaches the existing tabs (attachedToTarget) before it answers this */
	if (kn_cdp_send(c, NULL, "Target.setAutoAttach",
	                json_pack("{s:b, s:b, s:b}", "autoAttach", 1, "waitForDebuggerOnStart", 1,
	                          "flatten", 1),
	                autoattach_reply, m) < 0)
		autoattach_reply(m, c, NULL, "not sent");
}

static void on_close(void *ud, kn_cdp *c, const char *reason)
{
	(void)c;
	kn_monitor *m = ud;
	m->cdp = NULL;
	kn_canary_abandon(m->canary, NULL);
	kn_page_checks_disconnect(m->checks);
	kn_page_checks_disconnect(m->buy_read);
	if (m->end.phase == KN_RUN_ENDED)
		return;
	kn_log_msg("error", "monitor", reason, NULL);
	kn_eval_set_error(m->eval);
	kn_monitor_end(m, KN_END_BROWSER_GONE);
}

void kn_monitor_set_error(kn_monitor *m)
{
	kn_eval_set_error(m->eval);
}

static void on_warning(void *ud, kn_cdp *c, const char *what)
{
	(void)ud;
	(void)c;
	char q[512];
	kn_log_msg("warn", "monitor", "cdp message skipped", "detail=\"%s\"", kn_log_quote(q, sizeof q, what));
}

static void tick(void *ud)
{
	kn_monitor *m = ud;
	m->tick = NULL;
	if (m->end.phase == KN_RUN_ENDED)
		return;
	if (m->o.until_idle_s > 0 && kn_time_mono_s() - m->last_event >= m->o.until_idle_s &&
	    m->end.phase == KN_RUN_WATCHING)
		kn_monitor_stop(m, KN_END_IDLE);
	if (m->end.phase != KN_RUN_ENDED)
		m->tick = kn_cdp_timer_start(m->loop, 100, tick, m);
}

void kn_monitor_end(kn_monitor *m, kn_end why)
{
	if (m->end.phase == KN_RUN_ENDED || kn_monitor_verdicts_wait(m, why))
		return; /* ended, or waiting for the judge's verdicts (monitor_verdict.c) */
	if (m->end.phase == KN_RUN_VERDICTS)
		why = m->end.why; /* the wait is over: the reason it began with stands */
	kn_run_end_set(&m->end, KN_RUN_ENDED, why);
	kn_canary_abandon(m->canary, m->cdp); /* ended before the canary was decided: its tab goes */
	const char *reason = kn_end_name(why);
	kn_cdp_timer_cancel(m->tick);
	kn_cdp_timer_cancel(m->flush_deadline);
	m->tick = m->flush_deadline = NULL;
	if (m->o.progress)
		kn_progress_end(m->o.progress, m->eval, reason);
	if (m->o.on_end)
		m->o.on_end(m->o.ud, m, reason);
}

static void checks_done(void *ud)
{
	kn_monitor *m = ud;
	kn_monitor_end(m, m->end.why);
}

/* The recorders have flushed (FLUSHING) or the purchase read is done (PURCHASE): before the run
 * ends, the purchase read and then the task's page checks read the live browser (page_check.c). */
static void finish_run(kn_monitor *m)
{
	kn_end why = m->end.why;
	if (m->end.phase != KN_RUN_FLUSHING && m->end.phase != KN_RUN_PURCHASE)
		return;
	if (kn_page_checks_running(m->buy_read)) { /* the purchase read first */
		kn_run_end_set(&m->end, KN_RUN_PURCHASE, why);
		return;
	}
	if (m->cdp && kn_page_checks_needed(m->o.task)) {
		struct tab *t = m->tabs;
		for (struct tab *x = m->tabs; x; x = x->next)
			if (strcmp(x->id, m->last_tab) == 0)
				t = x;
		kn_page_last last = {t ? t->session : NULL, t ? t->target_id : NULL};
		kn_run_end_set(&m->end, KN_RUN_CHECKS, why); /* before: checks_done may be called at once */
		if (kn_page_checks_start(&m->checks, m->cdp, m->eval, &last, checks_done, m) == 0)
			return;
		kn_log_msg("error", "monitor", "cannot run the page checks", NULL);
	}
	kn_monitor_end(m, why);
}

static void flush_done(void *ud, kn_cdp *c, json_t *result, const char *error)
{
	(void)c;
	(void)result;
	(void)error;
	kn_monitor *m = ud;
	if (--m->flush_pending == 0 && m->end.phase == KN_RUN_FLUSHING) {
		/* the binding events of the flush precede its reply on the same socket */
		kn_cdp_timer_cancel(m->flush_deadline);
		m->flush_deadline = NULL;
		finish_run(m);
	}
}

static void flush_timeout(void *ud)
{
	kn_monitor *m = ud;
	m->flush_deadline = NULL;
	finish_run(m);
}

void kn_monitor_stop(kn_monitor *m, kn_end why)
{
	if (m->end.phase != KN_RUN_WATCHING)
		return;
	kn_run_end_set(&m->end, KN_RUN_FLUSHING, why);
	/* no page's WebSocket send may wait for a monitor that is leaving (websockets.h): the run ends
	 * once the hooks were told (flush_done), not before — a connection closed first may drop the
	 * release, and a shared worker that outlives the run would hold every later send */
	m->flush_pending += kn_websockets_release(m->websockets, m->cdp, flush_done, m);
	/* ask every recorder to hand over a pending `type` before the run ends */
	for (struct tab *t = m->tabs; t && m->cdp; t = t->next) {
		if (!t->ctx_id)
			continue;
		char expr[160];
		snprintf(expr, sizeof expr, "typeof __kn_flush_%s === 'function' && __kn_flush_%s()",
		         t->binding, t->binding);
		long long id = kn_cdp_send(m->cdp, t->session, "Runtime.evaluate",
		                           json_pack("{s:s, s:i}", "expression", expr, "contextId", t->ctx_id),
		                           flush_done, m);
		if (id > 0)
			m->flush_pending++;
	}
	if (m->cdp)
		m->flush_pending += kn_frames_flush(m->frames, m->cdp, flush_done, m);
	if (m->flush_pending == 0)
		finish_run(m);
	else
		m->flush_deadline = kn_cdp_timer_start(m->loop, 2000, flush_timeout, m);
}

int kn_monitor_eval_in_tab(kn_monitor *m, const char *tab, const char *expression,
                           kn_cdp_reply_fn cb, void *ud)
{
	for (struct tab *t = m->tabs; t; t = t->next)
		if (strcmp(t->id, tab) == 0) {
			long long id = kn_cdp_send(m->cdp, t->session, "Runtime.evaluate",
			                           json_pack("{s:s, s:b}", "expression", expression, "returnByValue", 1),
			                           cb, ud);
			return id > 0 ? 0 : (int)id;
		}
	return KN_ENOTFOUND;
}

int kn_monitor_answer(kn_monitor *m, const char *text)
{
	if (m->end.phase == KN_RUN_ENDED)
		return KN_EINVAL;
	kn_event ev = {.type = KN_EV_ANSWER, .text = text, .trusted = -1};
	emit(m, &ev);
	return 0;
}

/* The key nodes of target (request or websocket) that clear (the request or message in clear) meets,
 * reached before or not: what the trace, the run page and the drift diff show beside it, set on pub.
 * Returns the array for the caller to free (NULL when none or out of memory). */
static const char **matched_keynodes(kn_monitor *m, kn_target target, const kn_request *clear, kn_event *pub)
{
	const kn_task *task = m->o.task;
	const char **ids = task->n_keynodes ? calloc(task->n_keynodes, sizeof *ids) : NULL;
	size_t n_ids = 0;
	for (size_t i = 0; ids && i < task->n_keynodes; i++) {
		const kn_keynode *kn = &task->keynodes[i];
		kn_err err = {0};
		if (kn->target == target && kn->request &&
		    kn_request_match(kn->request, clear, m->o.eval.semantic, m->o.eval.threshold, &err) == 1)
			ids[n_ids++] = kn->id;
	}
	if (n_ids)
		pub->matched = ids, pub->n_matched = n_ids;
	return ids;
}

/* A request a page sent, or the guard held (requests.h): an event (redacted; the evaluator gets it
 * in clear), and a held one may end the run. */
static void on_request(void *ud, const kn_request_seen *r)
{
	kn_monitor *m = ud;
	if (kn_canary_request(m->canary, r->clear, r->held_by)) /* never an event of the run */
		return;
	const char *ts = kn_frames_tab_of(m->frames, r->session);
	struct tab *t = tab_by_session(m, ts ? ts : r->session);
	kn_event pub = {.type = KN_EV_REQUEST, .tab = t ? t->id : m->last_tab[0] ? m->last_tab : NULL,
	                .url = t ? t->url : NULL, .trusted = -1, .frame = ts != NULL, .t = r->wall_ms,
	                .request = r->redacted};
	const char **ids = matched_keynodes(m, KN_TARGET_REQUEST, r->clear, &pub);
	kn_event clear = pub;
	clear.request = r->clear;
	if (r->held_by) {
		char q[600];
		kn_log_msg("info", "monitor", "request held", "method=%s url=\"%s\" rule_line=%d",
		           r->redacted->method, kn_log_quote(q, sizeof q, r->redacted->url), r->held_by->line);
	}
	emit_pair(m, &pub, &clear);
	free(ids);
	if (r->held_by && m->end_on_guard && m->end.phase == KN_RUN_WATCHING)
		kn_monitor_stop(m, KN_END_GUARD);
}

/* A WebSocket message a page or worker sent (or received), or the guard held (websockets.h): an event
 * like a request's, matched against the websocket key nodes. */
static void on_ws_message(void *ud, const kn_ws_seen *w)
{
	kn_monitor *m = ud;
	if (kn_canary_request(m->canary, w->clear, w->held_by)) /* never an event of the run */
		return;
	const char *ts = kn_frames_tab_of(m->frames, w->session);
	struct tab *t = tab_by_session(m, ts ? ts : w->session);
	kn_event pub = {.type = KN_EV_WEBSOCKET, .tab = t ? t->id : m->last_tab[0] ? m->last_tab : NULL,
	                .url = t ? t->url : NULL, .trusted = -1, .frame = ts != NULL, .request = w->redacted};
	const char **ids = matched_keynodes(m, KN_TARGET_WEBSOCKET, w->clear, &pub);
	kn_event clear = pub;
	clear.request = w->clear;
	if (w->held_by) {
		char q[600];
		kn_log_msg("info", "monitor", "WebSocket message held", "url=\"%s\" size=%zu rule_line=%d",
		           kn_log_quote(q, sizeof q, w->redacted->url), w->redacted->size, w->held_by->line);
	}
	emit_pair(m, &pub, &clear);
	free(ids);
	if (w->held_by && m->end_on_guard && m->end.phase == KN_RUN_WATCHING)
		kn_monitor_stop(m, KN_END_GUARD);
}

/* The barrier before a request or message is recorded (requests.h, websockets.h): one round trip
 * to a tab's page. The renderer sends a session's queued events before its answer, so the binding
 * call of the click that sent the request (or made the page ask its worker) is in first. A service
 * worker's waits for every tab; a request seen at a session waits for that session only, and at most
 * BARRIER_MS: a page that does not answer (a dialog open, a script that loops) is not waited for
 * past it, so its request is never held back behind the agent's next actions in another tab. The
 * round trip is an evaluation in our world's context, and only where one exists: a page that has
 * no context yet ran no script, so no click of it can be on its way — and an evaluation without a
 * context would wait for the page's first one, which a new popup paused at its start never makes
 * until it is let run (a deadlock behind the runIfWaitingForDebugger queued after it). */
#define BARRIER_MS 1000

struct barrier {
	void (*done)(void *arg, kn_cdp *c);
	void *arg;
	kn_cdp *c;
	int left;            /* replies not in yet */
	int fired;           /* done was called */
	kn_cdp_timer *timer; /* the deadline, NULL when none or over */
};

static void barrier_over(struct barrier *b)
{
	if (!b->fired) {
		b->fired = 1;
		b->done(b->arg, b->c);
	}
}

static void barrier_reply(void *ud, kn_cdp *c, json_t *result, const char *error)
{
	(void)c, (void)result, (void)error; /* a context gone, or a tab busy past the CDP timeout */
	struct barrier *b = ud;
	if (--b->left > 0)
		return;
	kn_cdp_timer_cancel(b->timer);
	b->timer = NULL;
	barrier_over(b);
	free(b);
}

static void barrier_deadline(void *ud)
{
	struct barrier *b = ud;
	b->timer = NULL;
	barrier_over(b); /* freed by the last reply, which the connection's close brings at the latest */
}

static void barrier_send(struct barrier *b, const char *session, long long ctx)
{
	if (!ctx)
		return;
	b->left++;
	if (kn_cdp_send(b->c, session, "Runtime.evaluate",
	                json_pack("{s:s, s:I}", "expression", "0", "contextId", (json_int_t)ctx), barrier_reply,
	                b) < 0)
		b->left--;
}

static void request_barrier(void *ud, kn_cdp *c, const char *session, void (*done)(void *arg, kn_cdp *c),
                            void *arg)
{
	kn_monitor *m = ud;
	struct barrier *b = c ? calloc(1, sizeof *b) : NULL;
	if (!b) { /* out of memory, or the connection is closing: nothing to wait for */
		done(arg, c);
		return;
	}
	b->done = done;
	b->arg = arg;
	b->c = c;
	b->left = 1;
	if (session) {
		struct tab *own = tab_by_session(m, session);
		barrier_send(b, session, own ? own->ctx_id : kn_frames_ctx_of(m->frames, session));
		if (b->left > 1)
			b->timer = kn_cdp_timer_start(m->loop, BARRIER_MS, barrier_deadline, b);
	} else {
		for (struct tab *t = m->tabs; t; t = t->next)
			barrier_send(b, t->session, t->ctx_id);
	}
	barrier_reply(b, c, NULL, NULL);
}

/* end_on_guard: the task's, else its set's, else keynode.yaml's; on when nobody said. */
static int ends_on_guard(const kn_monitor_opts *o)
{
	const kn_guard *g[] = {o->task->guard, o->task->set_guard, o->guard};
	for (size_t i = 0; i < 3; i++)
		if (g[i] && g[i]->end_on_guard >= 0)
			return g[i]->end_on_guard;
	return 1;
}

static int has_request_nodes(const kn_task *t)
{
	for (size_t i = 0; i < t->n_keynodes; i++)
		if (t->keynodes[i].target == KN_TARGET_REQUEST)
			return 1;
	return 0;
}

int kn_monitor_start(kn_monitor **out, kn_cdp_loop *loop, const char *ws_url,
                     const kn_monitor_opts *opts, kn_err *err)
{
	*out = NULL;
	kn_monitor *m = calloc(1, sizeof *m);
	if (!m)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	m->loop = loop;
	m->o = *opts;
	if (opts->redact)
		m->redact = *opts->redact;
	m->start = m->last_event = kn_time_mono_s();
	m->wall_start = kn_time_wall_s();
	int rc = kn_monitor_canary_new(m, err);
	if (rc) {
		free(m);
		return rc;
	}
	/* the canary's rule first: nothing else may take its requests for the run's */
	kn_requests_opts ro = {.guards = {kn_canary_guard(m->canary), opts->task->guard, opts->task->set_guard,
	                                  opts->guard},
	                       .redact = &m->redact, .request_nodes = has_request_nodes(opts->task),
	                       .on_request = on_request, .barrier = request_barrier, .ud = m,
	                       .skip_fetch = kn_canary_test_skip_fetch()};
	kn_websockets_opts wo = {.guards = {kn_canary_guard(m->canary), opts->task->guard, opts->task->set_guard,
	                                    opts->guard},
	                         .redact = &m->redact, .received = opts->ws_received,
	                         .on_message = on_ws_message, .barrier = request_barrier, .ud = m,
	                         .skip_hook = kn_canary_test_skip_ws_hook()};
	m->end_on_guard = ends_on_guard(opts);
	if (ro.skip_fetch)
		kn_log_msg("warn", "monitor", "KEYNODE_TEST_SKIP_FETCH is set: no request is intercepted (a "
		           "test knob; the guard holds nothing)", NULL);
	if (wo.skip_hook)
		kn_log_msg("warn", "monitor", "KEYNODE_TEST_SKIP_WS_HOOK is set: no WebSocket message is held (a "
		           "test knob; websocket rules hold nothing)", NULL);
	rc = kn_frames_new(&m->frames);
	if (rc || (rc = kn_requests_new(&m->requests, &ro)) != 0 ||
	    (rc = kn_websockets_new(&m->websockets, &wo)) != 0 ||
	    (rc = kn_eval_new(&m->eval, opts->task, &opts->eval)) != 0) {
		kn_frames_free(m->frames);
		kn_requests_free(m->requests);
		kn_websockets_free(m->websockets);
		kn_canary_free(m->canary);
		free(m);
		return kn_err_set(err, rc, "out of memory");
	}
	write_header(m);
	kn_trace_bind_eval(opts->trace, m->eval);
	kn_cdp_handlers h = {.on_open = on_open, .on_event = on_event, .on_close = on_close,
	                     .on_warning = on_warning, .ud = m};
	kn_cdp_opts co = {.timeout_ms = opts->cdp_timeout_ms};
	if ((rc = kn_cdp_connect(&m->cdp, loop, ws_url, &co, &h, err)) != 0) {
		kn_frames_free(m->frames);
		kn_requests_free(m->requests);
		kn_websockets_free(m->websockets);
		kn_eval_free(m->eval);
		kn_canary_free(m->canary);
		free(m);
		return rc;
	}
	if (opts->until_idle_s > 0) /* the tick only watches for idleness: no wakeups otherwise */
		m->tick = kn_cdp_timer_start(loop, 100, tick, m);
	*out = m;
	return 0;
}

int kn_monitor_ended(const kn_monitor *m) { return m->end.phase == KN_RUN_ENDED; }
const char *kn_monitor_end_detail(const kn_monitor *m) { return m->end_detail; }
const char *kn_monitor_end_reason(const kn_monitor *m)
{
	return m->end.phase == KN_RUN_ENDED ? kn_end_name(m->end.why) : NULL;
}
const kn_eval *kn_monitor_eval(const kn_monitor *m) { return m->eval; }
unsigned long long kn_monitor_events(const kn_monitor *m) { return m->events; }

void kn_monitor_free(kn_monitor *m)
{
	if (!m)
		return;
	kn_cdp_timer_cancel(m->tick);
	kn_cdp_timer_cancel(m->flush_deadline);
	kn_cdp_timer_cancel(m->verdict_timer);
	if (m->cdp) {
		kn_cdp *c = m->cdp;
		if (m->end.phase != KN_RUN_ENDED) /* ended without on_end: the owner is gone */
			kn_run_end_set(&m->end, KN_RUN_ENDED, KN_END_STOPPED);
		kn_cdp_close(c); /* on_close sees the run ended and does nothing more */
	}
	kn_page_checks_free(m->checks); /* its pending replies failed with the connection */
	kn_page_checks_free(m->buy_read);
	while (m->tabs) {
		struct tab *t = m->tabs;
		m->tabs = t->next;
		tab_free(t);
	}
	kn_frames_free(m->frames);
	kn_requests_free(m->requests); /* its pending replies failed with the connection */
	kn_websockets_free(m->websockets);
	kn_canary_free(m->canary);
	free(m->end_detail);
	kn_eval_free(m->eval);
	free(m->newtab_href);
	for (size_t i = 0; i < m->redact.n_names; i++)
		free(m->password_names[i]);
	free(m->password_names);
	free(m);
}
