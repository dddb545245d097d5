/* wait.c — what the replayer waits for between steps, driven by the browser's events instead of
 * fixed pauses. The connection the replay acts on is made with kn_replay_link_handlers;
 * while a replay runs, its waiter sees the events of its tab's session: the main frame's
 * navigation requested / started / committed / stopped loading (Page.frameRequestedNavigation,
 * frameStartedLoading, frameNavigated, navigatedWithinDocument, frameStoppedLoading,
 * loadEventFired), the network requests in flight (Network.requestWillBeSent, loadingFinished,
 * loadingFailed), a window the page opened (Page.windowOpen, Target.targetCreated with our tab as
 * opener) and the tab going away. After an action, kn_replay_settle waits for exactly what the
 * action started: nothing when it started nothing, the navigation it requested until the document
 * is ready, the requests it triggered until the network was quiet for a short window — each bounded,
 * and the page's own readyState the final word, as before. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keynode/clock.h"
#include "keynode/grow.h"
#include "replay.h"
#include "replay_internal.h"

#define NET_QUIET_MS 50      /* no request in flight for this long: the network is quiet */
#define NAV_START_MS 2000    /* a requested navigation that has not started by then was cancelled */
#define RECHECK_MS 250       /* without any event for this long, ask the page itself */
#define POPUP_MS 2000        /* a window the page opened shows up as a target within this */
#define MAX_REQUESTS 512     /* requests tracked in flight; more count as activity only */

static void on_event(void *ud, kn_cdp *c, const char *method, const char *session, json_t *params)
{
	(void)c;
	kn_replay_link *l = ud;
	if (l->waiter)
		kn_replay_wait_event(l->waiter, method, session, params);
}

static void link_open(void *ud, kn_cdp *c)
{
	kn_replay_link *l = ud;
	kn_cdp_handlers h = kn_cdp_link_handlers(&l->link);
	h.on_open(h.ud, c);
}

static void link_close(void *ud, kn_cdp *c, const char *reason)
{
	kn_replay_link *l = ud;
	kn_cdp_handlers h = kn_cdp_link_handlers(&l->link);
	h.on_close(h.ud, c, reason);
	if (l->waiter)
		l->waiter->detached = 1;
}

kn_cdp_handlers kn_replay_link_handlers(kn_replay_link *l)
{
	return (kn_cdp_handlers){.on_open = link_open, .on_event = on_event, .on_close = link_close, .ud = l};
}

static int link_settled(void *ud)
{
	const kn_replay_link *l = ud;
	return l->link.open || l->link.closed;
}

int kn_replay_link_wait_open(kn_replay_link *l, kn_cdp_loop *loop, int timeout_ms)
{
	kn_cdp_loop_run_until(loop, timeout_ms, link_settled, l);
	return l->link.open && !l->link.closed;
}

static void requests_clear(kn_replay_waiter *w)
{
	for (size_t i = 0; i < w->n_req; i++)
		free(w->req[i]);
	w->n_req = 0;
}

/* The table holds each id after one character: 'x' a script's request (fetch, XHR), else 'o'. */
static void request_add(kn_replay_waiter *w, const char *id, int script)
{
	for (size_t i = 0; i < w->n_req; i++)
		if (strcmp(w->req[i] + 1, id) == 0)
			return; /* a redirect keeps its request id */
	if (w->n_req == MAX_REQUESTS || kn_grow(&w->req, w->n_req, &w->cap_req, sizeof *w->req, 16))
		return;
	size_t n = strlen(id) + 2;
	if ((w->req[w->n_req] = malloc(n)) != NULL) {
		snprintf(w->req[w->n_req], n, "%c%s", script ? 'x' : 'o', id);
		w->n_req++;
	}
}

/* 1 when id was a script's request in flight. */
static int request_done(kn_replay_waiter *w, const char *id)
{
	for (size_t i = 0; i < w->n_req; i++)
		if (strcmp(w->req[i] + 1, id) == 0) {
			int script = w->req[i][0] == 'x';
			free(w->req[i]);
			w->req[i] = w->req[--w->n_req];
			return script;
		}
	return 0;
}

size_t kn_replay_wait_scripts_out(const kn_replay_waiter *w)
{
	size_t n = 0;
	for (size_t i = 0; i < w->n_req; i++)
		n += w->req[i][0] == 'x';
	return n;
}

/* Requests that never end by design (a stream, a media element) or that nobody waits for. */
static int long_lived(const char *type)
{
	static const char *const types[] = {"EventSource", "Media", "Ping", "Prefetch", "WebSocket"};
	for (size_t i = 0; type && i < sizeof types / sizeof types[0]; i++)
		if (strcmp(type, types[i]) == 0)
			return 1;
	return 0;
}

static int main_frame(const kn_replay_waiter *w, const char *frame)
{
	return frame && (strcmp(frame, w->frame) == 0 || strcmp(frame, w->target) == 0);
}

void kn_replay_wait_event(kn_replay_waiter *w, const char *method, const char *session, json_t *params)
{
	if (!session) { /* the browser session: targets */
		if (strcmp(method, "Target.targetCreated") == 0) {
			json_t *ti = json_object_get(params, "targetInfo");
			const char *type = kn_json_str(ti, "type"), *opener = kn_json_str(ti, "openerId");
			const char *id = kn_json_str(ti, "targetId");
			if (type && strcmp(type, "page") == 0 && opener && strcmp(opener, w->target) == 0 && id) {
				snprintf(w->popup, sizeof w->popup, "%s", id);
				w->gen++;
			}
		} else if (strcmp(method, "Target.detachedFromTarget") == 0) {
			const char *s = kn_json_str(params, "sessionId");
			if (s && strcmp(s, w->session) == 0) {
				w->detached = 1;
				w->gen++;
			}
		}
		return;
	}
	if (strcmp(session, w->session) != 0)
		return;
	double now = kn_time_mono_ms();
	if (strncmp(method, "Network.", 8) == 0) {
		const char *id = kn_json_str(params, "requestId");
		if (!id)
			return;
		kn_softpage_failed_note(&w->fails, method, params);
		if (strcmp(method, "Network.requestWillBeSent") == 0) {
			const char *type = kn_json_str(params, "type");
			if (long_lived(type))
				return;
			int script = type && (strcmp(type, "Fetch") == 0 || strcmp(type, "XHR") == 0);
			request_add(w, id, script);
			w->net_started++;
			w->xhr_started += (unsigned)script;
		} else if (strcmp(method, "Network.loadingFinished") == 0 ||
		           strcmp(method, "Network.loadingFailed") == 0) {
			if (request_done(w, id))
				w->xhr_at = now; /* a script's request ended: what it does with the answer comes next */
		} else {
			return;
		}
		w->net_at = now;
		w->gen++;
		return;
	}
	if (strcmp(method, "Page.frameRequestedNavigation") == 0) {
		const char *d = kn_json_str(params, "disposition");
		if (!main_frame(w, kn_json_str(params, "frameId")) || (d && strcmp(d, "currentTab") != 0))
			return;
		w->nav_requested++;
		w->nav_pending = 1;
		w->nav_requested_at = now;
	} else if (strcmp(method, "Page.frameStartedLoading") == 0) {
		if (!main_frame(w, kn_json_str(params, "frameId")))
			return;
		w->nav_started++;
		w->loading = 1;
		w->nav_pending = 0;
		w->uncommitted = 1;
	} else if (strcmp(method, "Page.frameStoppedLoading") == 0) {
		if (!main_frame(w, kn_json_str(params, "frameId")))
			return;
		w->loading = 0;
		w->nav_pending = 0;
		w->uncommitted = 0;
		w->nav_stopped++;
	} else if (strcmp(method, "Page.frameNavigated") == 0) {
		json_t *f = json_object_get(params, "frame");
		if (json_object_get(f, "parentId"))
			return;
		const char *id = kn_json_str(f, "id"), *url = kn_json_str(f, "url");
		if (id)
			snprintf(w->frame, sizeof w->frame, "%s", id);
		if (url)
			snprintf(w->url, sizeof w->url, "%s", url);
		w->nav_committed++;
		w->nav_pending = 0;
		w->uncommitted = 0;
	} else if (strcmp(method, "Page.navigatedWithinDocument") == 0) {
		if (!main_frame(w, kn_json_str(params, "frameId")))
			return;
		const char *url = kn_json_str(params, "url");
		if (url)
			snprintf(w->url, sizeof w->url, "%s", url);
		w->nav_committed++;
		w->nav_pending = 0;
	} else if (strcmp(method, "Page.loadEventFired") == 0) {
		w->loads++;
	} else if (strcmp(method, "Page.windowOpen") == 0) {
		w->window_opens++;
	} else if (strcmp(method, "Inspector.targetCrashed") == 0 || strcmp(method, "Inspector.detached") == 0) {
		w->detached = 1;
	} else {
		return;
	}
	w->gen++;
}

int kn_replay_wait_attach(kn_replay_waiter *w, kn_cdp_loop *loop, kn_cdp *c, const char *session,
                          const char *target, kn_err *err)
{
	requests_clear(w);
	char **req = w->req;
	size_t cap = w->cap_req;
	memset(w, 0, sizeof *w);
	w->req = req;
	w->cap_req = cap;
	w->loop = loop;
	w->c = c;
	snprintf(w->session, sizeof w->session, "%s", session);
	snprintf(w->target, sizeof w->target, "%s", target);
	snprintf(w->frame, sizeof w->frame, "%s", target); /* Chromium: the main frame's id is the tab's */
	static const char *const enable[] = {"Page.enable", "Network.enable"};
	for (size_t i = 0; i < sizeof enable / sizeof enable[0]; i++) {
		json_t *r = NULL;
		int rc = kn_cdp_call(c, session, enable[i], NULL, &r, err);
		json_decref(r);
		if (rc)
			return rc;
	}
	json_t *r = NULL; /* the page's own work, tracked from before its first script (page_js.c) */
	int rc = kn_cdp_call(c, session, "Page.addScriptToEvaluateOnNewDocument",
	                     json_pack("{s:s, s:b}", "source", kn_replay_tracker_js, "runImmediately", 1), &r, err);
	json_decref(r);
	if (rc)
		return rc;
	json_t *tree = NULL;
	kn_err e;
	if (kn_cdp_call(c, session, "Page.getFrameTree", NULL, &tree, &e) == 0) {
		const char *id = kn_json_str(json_object_get(json_object_get(tree, "frameTree"), "frame"), "id");
		if (id)
			snprintf(w->frame, sizeof w->frame, "%s", id);
	}
	json_decref(tree);
	return 0;
}

void kn_replay_wait_clear(kn_replay_waiter *w)
{
	requests_clear(w);
	free(w->req);
	memset(w, 0, sizeof *w);
}

void kn_replay_wait_mark(const kn_replay_waiter *w, kn_replay_mark *m)
{
	m->nav_requested = w->nav_requested;
	m->nav_started = w->nav_started;
	m->nav_committed = w->nav_committed;
	m->nav_stopped = w->nav_stopped;
	m->net_started = w->net_started;
	m->xhr_started = w->xhr_started;
	m->n_failed = w->fails.n_failed;
	m->window_opens = w->window_opens;
	snprintf(m->popup, sizeof m->popup, "%s", w->popup);
}

struct gen_wait {
	const kn_replay_waiter *w;
	unsigned long gen;
};

static int gen_moved(void *ud)
{
	const struct gen_wait *g = ud;
	return g->w->gen != g->gen || g->w->detached;
}

int kn_replay_wait_any(kn_replay_waiter *w, int ms)
{
	struct gen_wait g = {w, w->gen};
	return ms > 0 ? kn_cdp_loop_run_until(w->loop, ms, gen_moved, &g) : 0;
}

/* One round trip through the page's renderer: what the action made it report (a navigation it
 * requested, a window it opened) has arrived when this returns. A page that is being replaced
 * answers with an error: that is an answer too. */
static void epilogue(kn_replay_waiter *w)
{
	json_t *r = NULL;
	kn_err e;
	kn_cdp_call(w->c, w->session, "Runtime.evaluate", json_pack("{s:s}", "expression", "0"), &r, &e);
	json_decref(r);
}

/* The page's own view: 1 when its document is complete (url into url), 0 not yet, -1 no answer. */
/* The page's document.readyState: 3 complete, 2 interactive, 1 loading or unknown, -1 no answer;
 * its URL into url ("" unknown). */
static int ready_state(kn_replay_waiter *w, char *url, size_t n)
{
	json_t *v = NULL;
	kn_err e;
	int ready = -1;
	url[0] = '\0';
	if (kn_replay_page_call(w->c, w->session, "state", NULL, &v, &e) == 0) {
		const char *r = json_string_value(json_object_get(v, "ready"));
		const char *u = json_string_value(json_object_get(v, "url"));
		ready = !r || !u ? 1 : strcmp(r, "complete") == 0 ? 3 : strcmp(r, "interactive") == 0 ? 2 : 1;
		snprintf(url, n, "%s", u ? u : "");
	}
	json_decref(v);
	return ready;
}

static int page_ready(kn_replay_waiter *w, char *url, size_t n)
{
	int r = ready_state(w, url, n);
	return r < 0 ? -1 : r == 3;
}

int kn_replay_wait_in_place(kn_replay_waiter *w)
{
	char url[2048];
	return !w->detached && !w->nav_pending && !w->uncommitted && ready_state(w, url, sizeof url) >= 2;
}

int kn_replay_wait_popup(kn_replay_waiter *w, const kn_replay_mark *m, char *out, size_t n)
{
	double end = kn_time_mono_ms() + POPUP_MS;
	if (w->window_opens != m->window_opens || strcmp(w->popup, m->popup) != 0)
		while (strcmp(w->popup, m->popup) == 0 && !w->detached && kn_time_mono_ms() < end)
			kn_replay_wait_any(w, (int)(end - kn_time_mono_ms()) + 1);
	if (strcmp(w->popup, m->popup) == 0 || !w->popup[0])
		return 0;
	snprintf(out, n, "%s", w->popup);
	return 1;
}

/* Nothing the action could have caused has shown yet: no navigation, request or window. */
int kn_replay_wait_nothing_moved(const kn_replay_waiter *w, const kn_replay_mark *m)
{
	return w->nav_requested == m->nav_requested && w->nav_started == m->nav_started &&
	       w->nav_committed == m->nav_committed && w->net_started == m->net_started &&
	       w->window_opens == m->window_opens && strcmp(w->popup, m->popup) == 0;
}

void kn_replay_wait_dom_mark(kn_replay_waiter *w, int early)
{
	json_t *v = NULL, *p = json_pack("{s:b}", "early", early);
	kn_err e;
	kn_replay_page_call(w->c, w->session, "mark", p, &v, &e); /* p is borrowed */
	json_decref(p);
	json_decref(v);
}

/* The page's DOM held still for s->quiet_ms (first: when nothing changed since the mark, up to
 * first ms for a first change). 1 when a change was seen since the mark, 0 none, -1 no answer (the
 * document went away: a navigation, which the caller sees in the events). */
static int dom_quiet(kn_replay_waiter *w, const kn_replay_waits *s, int first, int left)
{
	json_t *v = NULL;
	kn_err e;
	int max = s->quiet_max_ms < left ? s->quiet_max_ms : left;
	json_t *p = json_pack("{s:i, s:i, s:i}", "q", s->quiet_ms, "first", first, "max", max);
	int rc = kn_replay_page_call(w->c, w->session, "quiet", p, &v, &e); /* p is borrowed */
	int changed = rc ? -1 : json_integer_value(json_object_get(v, "n")) > 0;
	json_decref(p);
	json_decref(v);
	return changed;
}

int kn_replay_settle(kn_replay_waiter *w, const kn_replay_mark *m, int flags, const kn_replay_waits *s)
{
	double start = kn_time_mono_ms(), end = start + s->settle_ms;
	int expect_nav = flags & KN_SETTLE_NAV;
	if (!expect_nav)
		epilogue(w);
	char url[2048], last[2048] = "";
	double net_end = 0, dom_end = 0;
	int dom_waited = 0;
	for (;;) {
		double now = kn_time_mono_ms();
		if (now >= end || w->detached) /* a tab that went away never loads */
			return KN_ETIMEOUT;
		int left = (int)(end - now) + 1;
		/* a navigation the step asked for (goto, back, forward) or the page requested */
		int moved = w->nav_started != m->nav_started || w->nav_committed != m->nav_committed ||
		            w->nav_stopped != m->nav_stopped;
		int requested = w->nav_pending && now - w->nav_requested_at < NAV_START_MS;
		int expected = expect_nav && !moved && now - start < NAV_START_MS;
		if (w->loading || requested || expected) {
			if (kn_replay_wait_any(w, left < RECHECK_MS ? left : RECHECK_MS) == 0 && w->loading) {
				/* no event for a while although loading: believe a complete document whose URL
				 * held still (an event we were not sent must not hang the step) */
				int r = page_ready(w, url, sizeof url);
				if (r == 1 && strcmp(url, last) == 0)
					return 0;
				snprintf(last, sizeof last, "%s", r == 1 ? url : "");
			}
			continue;
		}
		/* requests the step triggered: until none is in flight and none ended for a short window */
		if (w->net_started != m->net_started) {
			if (!net_end)
				net_end = now + s->network_max_ms;
			double quiet_at = w->net_at + NET_QUIET_MS;
			if ((w->n_req > 0 || now < quiet_at) && now < net_end) {
				double until = w->n_req > 0 ? net_end : quiet_at;
				int ms = (int)(until - now) + 1;
				kn_replay_wait_any(w, ms < left ? ms : left);
				continue;
			}
		}
		/* a script's request ended: what the script does with the answer (a timer, then a
		 * navigation) is given a short window to be requested */
		if (w->xhr_started != m->xhr_started && now < w->xhr_at + s->script_quiet_ms &&
		    now < net_end + s->script_quiet_ms) { /* a page that polls does not hold the step */
			int ms = (int)(w->xhr_at + s->script_quiet_ms - now) + 1;
			kn_replay_wait_any(w, ms < left ? ms : left);
			continue;
		}
		/* the page's own word: its document is complete */
		unsigned long gen = w->gen;
		int r = page_ready(w, url, sizeof url);
		if (r == 1 && (flags & KN_SETTLE_NEW_TAB) && strcmp(url, "about:blank") == 0 &&
		    kn_time_mono_ms() - start < NAV_START_MS)
			r = 0; /* a new tab's initial empty document: its page is on the way */
		if (r != 1 || (w->gen != gen && (w->loading || w->nav_pending))) {
			kn_replay_wait_any(w, left < RECHECK_MS ? left : RECHECK_MS);
			continue;
		}
		if (dom_waited || s->quiet_ms <= 0 || (flags & KN_SETTLE_NEW_TAB) || (dom_end && now >= dom_end))
			return 0;
		if (!dom_end) /* rounds of "something happened meanwhile" end there: a busy page */
			dom_end = now + s->consequence_ms + s->quiet_max_ms;
		/* the DOM held still (a transition's end, a list rendered, a control enabled); an action
		 * that showed no consequence yet is given a window to show one (a timer, a debounce) */
		int first = !(flags & KN_SETTLE_NO_WAIT_FIRST) && kn_replay_wait_nothing_moved(w, m) ? s->consequence_ms : 0;
		gen = w->gen;
		int changed = dom_quiet(w, s, first, left);
		dom_waited = 1;
		if (changed < 0 || w->gen != gen) { /* something happened meanwhile: settle that too */
			dom_waited = 0;
			continue;
		}
		return 0;
	}
}
