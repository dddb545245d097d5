/* evidence.c — calling the in-page library, and what a failed step leaves behind: the page's URL,
 * a DOM excerpt around where the element was expected and a screenshot (base64-decoded here). */
#include <stdlib.h>
#include <string.h>

#include "keynode/base64.h"
#include "replay.h"
#include "replay_internal.h"

#define KN_EVIDENCE_MAX_PNG (32u * 1024u * 1024u)

int kn_replay_page_call(kn_cdp *c, const char *session, const char *fn, json_t *params,
                        json_t **value, kn_err *err)
{
	*value = NULL;
	char *expr = kn_replay_page_expr(fn, params);
	if (!expr)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	json_t *res = NULL;
	int rc = kn_cdp_call(c, session, "Runtime.evaluate",
	                     json_pack("{s:s, s:b, s:b}", "expression", expr, "returnByValue", 1,
	                               "awaitPromise", 1), /* "wait" returns a promise */
	                     &res, err);
	free(expr);
	if (rc)
		return rc;
	json_t *ex = json_object_get(res, "exceptionDetails");
	if (ex) {
		const char *d = json_string_value(json_object_get(json_object_get(ex, "exception"), "description"));
		rc = kn_err_set(err, KN_EPROTO, "script exception in %s: %.200s", fn, d ? d : "?");
		json_decref(res);
		return rc;
	}
	json_t *v = json_object_get(json_object_get(res, "result"), "value");
	*value = v ? json_incref(v) : json_null();
	json_decref(res);
	return 0;
}

void kn_replay_evidence_clear(kn_replay_evidence *ev)
{
	free(ev->url);
	free(ev->dom_excerpt);
	free(ev->png);
	memset(ev, 0, sizeof *ev);
}

void kn_replay_capture(kn_cdp *c, const char *session, const char *selector, kn_replay_evidence *ev)
{
	kn_err e;
	json_t *v = NULL, *p = json_pack("{s:s?}", "sel", selector);
	if (kn_replay_page_call(c, session, "state", p, &v, &e) == 0) {
		const char *u = json_string_value(json_object_get(v, "url"));
		if (u && !ev->url)
			ev->url = strdup(u);
	}
	json_decref(v);
	v = NULL;
	if (kn_replay_page_call(c, session, "excerpt", p, &v, &e) == 0) {
		const char *h = json_string_value(json_object_get(v, "html"));
		if (h && !ev->dom_excerpt)
			ev->dom_excerpt = strdup(h);
	}
	json_decref(v);
	json_decref(p);
	json_t *shot = NULL;
	if (!ev->png && kn_cdp_call(c, session, "Page.captureScreenshot",
	                            json_pack("{s:s}", "format", "png"), &shot, &e) == 0) {
		json_t *d = json_object_get(shot, "data");
		if (json_is_string(d) && json_string_length(d) < KN_EVIDENCE_MAX_PNG / 3 * 4)
			kn_base64_decode(&ev->png, &ev->png_len, json_string_value(d), json_string_length(d));
	}
	json_decref(shot);
}
