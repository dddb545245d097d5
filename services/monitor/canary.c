/* canary.c — the guard's canary (canary.h): its endpoint, its internal rules, its tab, its probes
 * and its clock. The tab is opened at `about:blank#<marker>` (no request) so the monitor can tell
 * it from the agent's tabs when it is attached; it is set up before it runs and only then sends
 * its probes, from its page — a tab created with a URL starts loading before any session on it
 * could enable Fetch, which is not how the agent's requests go out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keynode/clock.h"
#include "keynode/randid.h"
#include "canary.h"
#include "canary_listener.h"
#include "log.h"

#define KN_CANARY_POLL_MS 25
#define KN_CANARY_PARKED 8

/* A probe: one request the canary's tab sends to its URL, which the guard must hold. */
struct probe {
	const char *name; /* the last segment of its URL: /__keynode_canary/<id>/<name> */
	/* send it from the canary's tab (session); reply (with c) when its command is answered */
	int (*fire)(kn_cdp *cdp, const char *session, const char *url, kn_cdp_reply_fn reply, void *c);
};

/* A POST by fetch() from the tab's page (about:blank): the way an agent's order or comment leaves a
 * page. The page is never navigated, so the tab closes cleanly once the canary is decided. */
static int fire_http(kn_cdp *cdp, const char *session, const char *url, kn_cdp_reply_fn reply, void *c)
{
	char expr[400];
	snprintf(expr, sizeof expr, "fetch('%s', {method: 'POST', mode: 'no-cors', body: 'keynode guard "
	         "canary'}).catch(function () {}), 0", url);
	return kn_cdp_send(cdp, session, "Runtime.evaluate", json_pack("{s:s}", "expression", expr), reply, c) > 0
	           ? 0 : KN_EIO;
}

/* A WebSocket message from the tab's page: a socket to the endpoint's `ws` path (the upgrade is
 * answered and not an arrival) and, once open, one message — the way an agent's order leaves a page
 * that talks to its site over a socket. The hook of WebSocket.prototype.send (websockets.c) reports
 * it, and the canary's `websocket:` rule holds it; a message the endpoint receives was not held. */
static int fire_ws(kn_cdp *cdp, const char *session, const char *url, kn_cdp_reply_fn reply, void *c)
{
	char expr[500];
	snprintf(expr, sizeof expr, "(function () { var s = new WebSocket('ws%s'); s.onopen = function () "
	         "{ s.send('{\"keynode\":\"guard canary\"}'); }; })(), 0", url + 4 /* past "http" */);
	return kn_cdp_send(cdp, session, "Runtime.evaluate", json_pack("{s:s}", "expression", expr), reply, c) > 0
	           ? 0 : KN_EIO;
}

/* Every probe must be held. The WebSocket probe runs when the run has websocket rules
 * (kn_canary_opts.websocket): without them no message is ever held, so there is nothing to prove, and
 * its rule would make every page's sends wait for the monitor. A navigation probe (Page.navigate: a
 * form submission's way out) was tried and left out: a tab closed while its held page loads may
 * stay open. */
static const struct probe probes[] = {
	{"http", fire_http},
	{"ws", fire_ws},
};
enum { PROBE_HTTP, PROBE_WS };
#define N_PROBES (sizeof probes / sizeof probes[0])

struct kn_canary {
	kn_canary_opts o;
	kn_canary_listener *listener;
	kn_guard guard;
	char prefix[96];  /* /__keynode_canary/<id>/ */
	char marker[96];  /* the tab's first URL: about:blank#__keynode_canary_<id> */
	char base[160];   /* http://127.0.0.1:PORT/__keynode_canary/<id>/ */
	char *target_id;
	kn_cdp *cdp;
	kn_cdp_timer *timer;
	double started;
	int held[N_PROBES];
	int done, closing, reported, ok;
	char why[300];    /* finish's detail, for report */
	int in_flight;    /* probes' commands not answered yet */
	int creating;     /* Target.createTarget sent, not answered */
	/* pages attached while the canary's tab was being created, at no URL yet: which one is its tab
	 * is known from createTarget's answer (the attach may come first, at "" or about:blank) */
	struct parked { char *session; json_t *info; } parked[KN_CANARY_PARKED];
	size_t n_parked;
};

int kn_canary_test_skip_fetch(void)
{
	const char *v = getenv("KEYNODE_TEST_SKIP_FETCH");
	return v && strcmp(v, "1") == 0;
}

int kn_canary_test_skip_ws_hook(void)
{
	const char *v = getenv("KEYNODE_TEST_SKIP_WS_HOOK");
	return v && strcmp(v, "1") == 0;
}

int kn_canary_new(kn_canary **out, const kn_canary_opts *o, kn_err *err)
{
	*out = NULL;
	kn_canary *c = calloc(1, sizeof *c);
	if (!c)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	c->o = *o;
	if (c->o.timeout_ms <= 0)
		c->o.timeout_ms = KN_CANARY_TIMEOUT_MS;
	c->guard.end_on_guard = -1;
	char id[40];
	kn_random_id(id, sizeof id, "", 12);
	snprintf(c->prefix, sizeof c->prefix, "%s%s/", KN_CANARY_PATH, id);
	snprintf(c->marker, sizeof c->marker, "%s%s", KN_CANARY_MARKER, id);
	int rc = kn_canary_listener_new(&c->listener, c->prefix, err);
	/* a POST to the HTTP probe's URL: it holds no GET (the monitor pauses every resource type only
	 * for a rule that may), nor the WebSocket probe's upgrade */
	char http_path[120];
	snprintf(http_path, sizeof http_path, "%s%s", c->prefix, probes[PROBE_HTTP].name);
	json_t *rule = rc ? NULL : json_pack("{s:s, s:{s:s}}", "method", "POST", "url", "include", http_path);
	if (!rc && !rule)
		rc = kn_err_set(err, KN_ENOMEM, "out of memory");
	if (!rc)
		rc = kn_guard_add_json(&c->guard, rule, err);
	json_decref(rule);
	if (!rc && c->o.websocket) { /* the WebSocket probe's rule: websockets.c holds with it */
		rule = json_pack("{s:{s:{s:s}}}", "websocket", "url", "include", c->prefix);
		rc = rule ? kn_guard_add_json(&c->guard, rule, err) : kn_err_set(err, KN_ENOMEM, "out of memory");
		json_decref(rule);
	}
	if (!c->o.websocket)
		c->held[PROBE_WS] = 1; /* not sent: nothing to hold */
	if (rc) {
		kn_canary_free(c);
		return rc;
	}
	snprintf(c->base, sizeof c->base, "http://127.0.0.1:%d%s", kn_canary_listener_port(c->listener),
	         c->prefix);
	*out = c;
	return 0;
}

const kn_guard *kn_canary_guard(const kn_canary *c)
{
	return c ? &c->guard : NULL;
}

int kn_canary_done(const kn_canary *c)
{
	return c && c->done;
}

/* Tell the owner, once: after the tab's close was answered (or could not be sent, or a second
 * passed), so the canary's tab is gone before the agent starts or the run ends — a loop stopped
 * right after the run's end would never send it, and a tab left behind would be the next run's. */
static void report(kn_canary *c)
{
	if (c->reported)
		return;
	c->reported = 1;
	kn_cdp_timer_cancel(c->timer);
	c->timer = NULL;
	c->o.done(c->o.ud, c->ok, c->why[0] ? c->why : NULL);
}

static void report_late(void *ud)
{
	kn_canary *c = ud;
	c->timer = NULL;
	report(c);
}

static void close_reply(void *ud, kn_cdp *cdp, json_t *result, const char *error)
{
	(void)cdp, (void)result, (void)error;
	report(ud);
}

/* Close the canary's tab once it is decided and no probe's command is in flight (the tab's page
 * never navigates: Chromium keeps a tab closed while its page loads), then report. */
static void close_tab(kn_canary *c)
{
	if (!c->done || c->in_flight || c->closing)
		return;
	c->closing = 1;
	if (!c->cdp || !c->target_id ||
	    kn_cdp_send(c->cdp, NULL, "Target.closeTarget", json_pack("{s:s}", "targetId", c->target_id),
	                close_reply, c) <= 0)
		report(c); /* no tab yet (created() closes it) or no connection */
}

static void finish(kn_canary *c, int held, const char *detail)
{
	if (c->done)
		return;
	c->done = 1;
	c->ok = held;
	snprintf(c->why, sizeof c->why, "%s", detail ? detail : "");
	kn_cdp_timer_cancel(c->timer);
	c->timer = kn_cdp_timer_start(c->o.loop, 1000, report_late, c);
	/* the endpoint goes now: nothing it could still count changes the verdict */
	kn_canary_listener_free(c->listener);
	c->listener = NULL;
	close_tab(c);
}

/* The clock: an arrival at the endpoint fails the canary at once; every probe held passes it. */
static void tick(void *ud)
{
	kn_canary *c = ud;
	c->timer = NULL;
	int arrived = kn_canary_listener_poll(c->listener), all = 1;
	for (size_t i = 0; i < N_PROBES; i++)
		all &= c->held[i];
	size_t first = 0; /* the first probe not held, for the message */
	while (first + 1 < N_PROBES && c->held[first])
		first++;
	char why[300];
	if (arrived && kn_canary_listener_ws_messages(c->listener)) {
		snprintf(why, sizeof why, "a canary WebSocket message to %sws was not held: it reached keynode's "
		         "canary endpoint, so a guarded message would have reached its site", c->base);
		finish(c, 0, why);
	} else if (arrived) {
		snprintf(why, sizeof why, "a canary request under %s was not held: it reached keynode's canary "
		         "endpoint, so a guarded request would have reached its site", c->base);
		finish(c, 0, why);
	} else if (all) {
		finish(c, 1, NULL);
	} else if ((kn_time_mono_s() - c->started) * 1000.0 >= c->o.timeout_ms) {
		snprintf(why, sizeof why, first == PROBE_WS ? "the canary WebSocket message to %s%s was not held "
		         "within %d ms" : "the canary request to %s%s was not held within %d ms", c->base,
		         probes[first].name, c->o.timeout_ms);
		finish(c, 0, why);
	} else {
		c->timer = kn_cdp_timer_start(c->o.loop, KN_CANARY_POLL_MS, tick, c);
	}
}

static void unpark(kn_canary *c, kn_cdp *cdp, const char *id);

static void created(void *ud, kn_cdp *cdp, json_t *result, const char *error)
{
	kn_canary *c = ud;
	const char *id = json_string_value(json_object_get(result, "targetId"));
	char why[300];
	c->creating = 0;
	if (!id) {
		unpark(c, cdp, NULL);
		c->cdp = NULL; /* as in fired: nothing more on a connection that may be closing */
		snprintf(why, sizeof why, "the canary's tab could not be opened: %s", error ? error : "no target");
		finish(c, 0, why);
		return;
	}
	int known = c->target_id != NULL; /* its attach came first: closed with it (take_tab, close_tab) */
	if (!known)
		c->target_id = strdup(id);
	unpark(c, cdp, id);
	if (c->done && !known) /* decided before its tab was known: close it now */
		kn_cdp_send(cdp, NULL, "Target.closeTarget", json_pack("{s:s}", "targetId", id), NULL, NULL);
}

int kn_canary_start(kn_canary *c, kn_cdp *cdp)
{
	c->cdp = cdp;
	c->started = kn_time_mono_s();
	json_t *p = json_pack("{s:s, s:b}", "url", c->marker, "background", 1);
	if (p && c->o.browser_context)
		json_object_set_new(p, "browserContextId", json_string(c->o.browser_context));
	if (kn_cdp_send(cdp, NULL, "Target.createTarget", p, created, c) <= 0)
		return KN_EIO;
	c->creating = 1;
	c->timer = kn_cdp_timer_start(c->o.loop, KN_CANARY_POLL_MS, tick, c);
	return 0;
}

static void fired(void *ud, kn_cdp *cdp, json_t *result, const char *error)
{
	(void)cdp, (void)result;
	kn_canary *c = ud;
	c->in_flight--;
	if (error) /* the connection may be closing (its pending replies fail): send nothing more */
		c->cdp = NULL;
	close_tab(c);
}

/* Its tab attached (session): set it up as the run's tabs, let it run, send the probes. */
static void take_tab(kn_canary *c, kn_cdp *cdp, const char *session, const char *tid)
{
	int late = c->done; /* decided (timed out) before its tab was attached */
	if (tid && !c->target_id)
		c->target_id = strdup(tid);
	if (!c->done)
		c->o.setup(c->o.ud, cdp, session);
	kn_cdp_send(cdp, session, "Runtime.runIfWaitingForDebugger", NULL, NULL, NULL);
	if (!c->done && c->o.running)
		c->o.running(c->o.ud, cdp, session);
	char url_of[300];
	for (size_t i = 0; !c->done && i < N_PROBES; i++) {
		if (i == PROBE_WS && !c->o.websocket)
			continue;
		snprintf(url_of, sizeof url_of, "%s%s", c->base, probes[i].name);
		if (probes[i].fire(cdp, session, url_of, fired, c) == 0) {
			c->in_flight++;
		} else {
			snprintf(url_of, sizeof url_of, "the canary's %s probe could not be sent", probes[i].name);
			finish(c, 0, url_of);
		}
	}
	if (late && tid)
		kn_cdp_send(cdp, NULL, "Target.closeTarget", json_pack("{s:s}", "targetId", tid), NULL, NULL);
}

/* createTarget answered (id, or NULL: it failed): each parked page is the canary's tab or goes back
 * to the monitor. */
static void unpark(kn_canary *c, kn_cdp *cdp, const char *id)
{
	for (size_t i = 0; i < c->n_parked; i++) {
		struct parked *p = &c->parked[i];
		const char *tid = json_string_value(json_object_get(p->info, "targetId"));
		if (id && tid && strcmp(tid, id) == 0)
			take_tab(c, cdp, p->session, tid);
		else
			c->o.release(c->o.ud, p->session, p->info);
		free(p->session);
		json_decref(p->info);
	}
	c->n_parked = 0;
}

int kn_canary_claim(kn_canary *c, kn_cdp *cdp, const char *session, json_t *info)
{
	const char *url = json_string_value(json_object_get(info, "url"));
	const char *type = json_string_value(json_object_get(info, "type"));
	if (c && c->creating && url && (!*url || strcmp(url, "about:blank") == 0) && type &&
	    strcmp(type, "page") == 0 && c->n_parked < KN_CANARY_PARKED) {
		struct parked *p = &c->parked[c->n_parked];
		if ((p->session = strdup(session)) != NULL) {
			p->info = json_incref(info);
			c->n_parked++;
			return 1; /* decided when createTarget answers (unpark) */
		}
	}
	if (!url || strncmp(url, KN_CANARY_MARKER, strlen(KN_CANARY_MARKER)) != 0)
		return 0;
	if (!c || strcmp(url, c->marker) != 0) { /* another monitor's canary on this browser */
		kn_cdp_send(cdp, session, "Runtime.runIfWaitingForDebugger", NULL, NULL, NULL);
		return 1;
	}
	take_tab(c, cdp, session, json_string_value(json_object_get(info, "targetId")));
	return 1;
}

int kn_canary_request(kn_canary *c, const kn_request *req, const kn_guard_rule *held_by)
{
	const char *path = c && req && req->url ? strstr(req->url, c->prefix) : NULL;
	if (!path)
		return 0;
	/* a request (the HTTP probe, or the WebSocket probe's upgrade GET, which must go through) or a
	 * WebSocket message (the WebSocket probe) */
	size_t i = req->websocket ? PROBE_WS : PROBE_HTTP;
	const char *name = path + strlen(c->prefix);
	if (strncmp(name, probes[i].name, strlen(probes[i].name)) != 0 ||
	    (!req->websocket && strncmp(name, probes[PROBE_WS].name, strlen(probes[PROBE_WS].name)) == 0))
		return 1; /* the upgrade GET of the ws probe, or a stray URL under the prefix: not an event */
	if (held_by)
		c->held[i] = 1;
	char q[300];
	kn_log_msg(held_by ? "debug" : "warn", "monitor",
	           req->websocket ? (held_by ? "canary WebSocket message held" : "canary WebSocket message sent")
	                          : (held_by ? "canary request held" : "canary request sent"),
	           "url=\"%s\"", kn_log_quote(q, sizeof q, req->url));
	return 1;
}

void kn_canary_abandon(kn_canary *c, kn_cdp *cdp)
{
	if (!c)
		return;
	c->cdp = cdp;
	if (!cdp) { /* the connection is gone: no close is sent any more */
		kn_cdp_timer_cancel(c->timer);
		c->timer = NULL;
	}
	for (size_t i = 0; i < c->n_parked; i++) { /* over: let them run, as the monitor's end does */
		if (cdp) {
			kn_cdp_send(cdp, c->parked[i].session, "Runtime.runIfWaitingForDebugger", NULL, NULL, NULL);
			kn_cdp_send(cdp, NULL, "Target.detachFromTarget", json_pack("{s:s}", "sessionId",
			            c->parked[i].session), NULL, NULL);
		}
		free(c->parked[i].session);
		json_decref(c->parked[i].info);
	}
	c->n_parked = 0;
	if (c->done)
		return;
	c->done = 1;
	kn_cdp_timer_cancel(c->timer);
	c->timer = NULL;
	kn_canary_listener_free(c->listener);
	c->listener = NULL;
	if (cdp && c->target_id && !c->closing) {
		c->closing = 1;
		kn_cdp_send(cdp, NULL, "Target.closeTarget", json_pack("{s:s}", "targetId", c->target_id), NULL,
		            NULL);
	}
}

void kn_canary_free(kn_canary *c)
{
	if (!c)
		return;
	kn_cdp_timer_cancel(c->timer);
	kn_canary_listener_free(c->listener);
	for (size_t i = 0; i < c->n_parked; i++) {
		free(c->parked[i].session);
		json_decref(c->parked[i].info);
	}
	kn_guard_clear(&c->guard);
	free(c->target_id);
	free(c);
}
