/* start_page.c — the task's start page, opened by keynode in the attempt's fresh browser before
 * the monitor attaches and the agent starts (runner.h). Opening it here is what tells
 * infrastructure from the agent: a site that refuses the connection, does not resolve, answers
 * 5xx or does not load in time makes the attempt an `error`, never a failure of the agent. The
 * agent finds the page already open in the browser's first tab. */
#include "runner.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keynode/clock.h"

/* The first page target of the context (NULL: any), or a new one. *out is the caller's. */
static int first_tab(char **out, kn_cdp *c, const char *context_id, kn_err *err)
{
	json_t *res = NULL;
	int rc = kn_cdp_call(c, NULL, "Target.getTargets", NULL, &res, err);
	if (rc)
		return rc;
	size_t i;
	json_t *t;
	*out = NULL;
	json_array_foreach(json_object_get(res, "targetInfos"), i, t) {
		const char *type = json_string_value(json_object_get(t, "type"));
		const char *ctx = json_string_value(json_object_get(t, "browserContextId"));
		if (type && strcmp(type, "page") == 0 && (!context_id || (ctx && strcmp(ctx, context_id) == 0))) {
			*out = strdup(json_string_value(json_object_get(t, "targetId")));
			break;
		}
	}
	json_decref(res);
	if (*out)
		return 0;
	json_t *p = json_pack("{s:s}", "url", "about:blank");
	if (context_id)
		json_object_set_new(p, "browserContextId", json_string(context_id));
	if ((rc = kn_cdp_call(c, NULL, "Target.createTarget", p, &res, err)) != 0)
		return rc;
	const char *id = json_string_value(json_object_get(res, "targetId"));
	*out = id ? strdup(id) : NULL;
	json_decref(res);
	return *out ? 0 : kn_err_set(err, KN_EPROTO, "Target.createTarget: no targetId");
}

static void size_window(kn_cdp *c, const char *target, int vw, int vh)
{
	json_t *res = NULL;
	if (kn_cdp_call(c, NULL, "Browser.getWindowForTarget", json_pack("{s:s}", "targetId", target),
	                &res, NULL) != 0)
		return;
	json_t *wid = json_object_get(res, "windowId");
	if (json_is_integer(wid))
		kn_cdp_send(c, NULL, "Browser.setWindowBounds",
		            json_pack("{s:I, s:{s:i, s:i, s:s}}", "windowId", json_integer_value(wid),
		                      "bounds", "width", vw, "height", vh, "windowState", "normal"),
		            NULL, NULL);
	json_decref(res);
}

/* Navigate the tab of session to url and wait for the load; classify what went wrong. */
static int load(kn_cdp_loop *loop, kn_cdp *c, const kn_cdp_link *k, const char *session,
                const char *url, int preloaded, int timeout_ms, const atomic_int *stop, char **net_error,
                kn_err *err)
{
	json_t *res = NULL;
	int rc = preloaded ? 0 : kn_cdp_call(c, session, "Page.navigate", json_pack("{s:s}", "url", url), &res, err);
	if (rc)
		return rc;
	const char *fail = json_string_value(json_object_get(res, "errorText"));
	if (fail && *fail) {
		rc = kn_err_set(err, KN_EIO, "start page %s: %s", url, fail);
		if (net_error)
			*net_error = strdup(fail);
		json_decref(res);
		return rc;
	}
	json_decref(res);
	double until = kn_time_mono_ms() + timeout_ms;
	while (kn_time_mono_ms() < until && !k->closed) {
		res = NULL;
		kn_err e2 = {0};
		/* the old document may still answer first: ask until the new one says complete */
		if (kn_cdp_call(c, session, "Runtime.evaluate",
		                json_pack("{s:s, s:b}", "expression",
		                          "[document.readyState, location.href,"
		                          " (performance.getEntriesByType('navigation')[0] || {}).responseStatus || 0]",
		                          "returnByValue", 1),
		                &res, &e2) == 0) {
			json_t *v = json_object_get(json_object_get(res, "result"), "value");
			const char *state = json_string_value(json_array_get(v, 0));
			const char *href = json_string_value(json_array_get(v, 1));
			long long status = json_integer_value(json_array_get(v, 2));
			int done = state && strcmp(state, "complete") == 0 && href && strcmp(href, "about:blank") != 0;
			/* the launch's own load failed: navigate again, which names the reason */
			int failed = preloaded && href && strncmp(href, "chrome-error:", 13) == 0;
			json_decref(res);
			if (failed)
				return load(loop, c, k, session, url, 0, timeout_ms, stop, net_error, err);
			if (done && status >= 500)
				return kn_err_set(err, KN_EIO, "start page %s: HTTP %lld", url, status);
			if (done)
				return 0;
		}
		if (k->closed)
			return kn_err_set(err, KN_EIO, "browser gone: %s", k->reason);
		if (stop && atomic_load(stop))
			return kn_err_set(err, KN_EINVAL, "interrupted");
		kn_cdp_loop_run_for(loop, 15);
	}
	return kn_err_set(err, KN_ETIMEOUT, "start page %s did not load in %d s", url, timeout_ms / 1000);
}

/* A control connection to the browser, open (or an error). k must outlive c. */
static int connect_to(kn_cdp **c, kn_cdp_link *k, kn_cdp_loop *loop, const char *ws, kn_err *err)
{
	kn_cdp_handlers h = kn_cdp_link_handlers(k);
	int rc = kn_cdp_connect(c, loop, ws, NULL, &h, err);
	if (rc)
		return rc;
	for (double until = kn_time_mono_ms() + 10000; !k->open && !k->closed && kn_time_mono_ms() < until;)
		kn_cdp_loop_run_for(loop, 20);
	if (!k->open) {
		rc = kn_err_set(err, KN_EIO, "browser unreachable: %s", k->closed ? k->reason : "timed out");
		if (!k->closed)
			kn_cdp_close(*c);
		return rc;
	}
	return 0;
}

static void disconnect(kn_cdp_loop *loop, kn_cdp *c, const kn_cdp_link *k)
{
	if (!k->closed) {
		kn_cdp_loop_run_for(loop, 0); /* what was queued goes out before the socket is dropped */
		kn_cdp_close(c);
	}
}

int kn_browser_context_new(kn_cdp_loop *loop, const char *ws, char **out, kn_err *err)
{
	*out = NULL;
	kn_cdp_link k = {0};
	kn_cdp *c = NULL;
	json_t *res = NULL;
	int rc = connect_to(&c, &k, loop, ws, err);
	if (rc == 0)
		rc = kn_cdp_call(c, NULL, "Target.createBrowserContext", json_pack("{s:b}", "disposeOnDetach", 0),
		                 &res, err);
	const char *id = rc == 0 ? json_string_value(json_object_get(res, "browserContextId")) : NULL;
	if (rc == 0 && !(id && (*out = strdup(id))))
		rc = kn_err_set(err, KN_EPROTO, "Target.createBrowserContext: no browserContextId");
	json_decref(res);
	if (c)
		disconnect(loop, c, &k);
	return rc;
}

void kn_browser_context_dispose(kn_cdp_loop *loop, const char *ws, const char *id)
{
	kn_cdp_link k = {0};
	kn_cdp *c = NULL;
	json_t *res = NULL;
	if (connect_to(&c, &k, loop, ws, NULL) != 0)
		return;
	if (kn_cdp_call(c, NULL, "Target.disposeBrowserContext", json_pack("{s:s}", "browserContextId", id),
	                &res, NULL) == 0)
		json_decref(res);
	disconnect(loop, c, &k);
}

int kn_start_page_open(kn_cdp_loop *loop, const char *ws, const char *context_id, const char *url,
                       int preloaded, int vw, int vh, int timeout_ms, const atomic_int *stop,
                       char **target_out, char **net_error, kn_err *err)
{
	if (target_out)
		*target_out = NULL;
	if (net_error)
		*net_error = NULL;
	kn_cdp_link k = {0};
	kn_cdp *c = NULL;
	int rc = connect_to(&c, &k, loop, ws, err);
	if (rc)
		return rc;
	char *target = NULL;
	rc = first_tab(&target, c, context_id, err);
	if (rc == 0 && !k.closed && vw > 0 && vh > 0)
		size_window(c, target, vw, vh);
	if (rc == 0 && url && !k.closed) {
		json_t *res = NULL;
		rc = kn_cdp_call(c, NULL, "Target.attachToTarget",
		                 json_pack("{s:s, s:b}", "targetId", target, "flatten", 1), &res, err);
		const char *sid = rc == 0 ? json_string_value(json_object_get(res, "sessionId")) : NULL;
		if (rc == 0 && !sid)
			rc = kn_err_set(err, KN_EPROTO, "Target.attachToTarget: no sessionId");
		if (rc == 0) {
			rc = load(loop, c, &k, sid, url, preloaded, timeout_ms, stop, net_error, err);
			if (!k.closed)
				kn_cdp_send(c, NULL, "Target.detachFromTarget", json_pack("{s:s}", "sessionId", sid),
			            NULL, NULL);
		}
		json_decref(res);
	}
	disconnect(loop, c, &k);
	if (rc == 0 && target_out)
		*target_out = target, target = NULL;
	free(target);
	return rc;
}
