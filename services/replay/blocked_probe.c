/* blocked_probe.c — the CDP half of blocked detection (blocked.h kn_blocked_probe): one in-page
 * function, evaluated with the rule lists as its parameter, reports the main document's HTTP
 * status (Navigation Timing), the title, and the index of the first challenge signature, visible
 * CAPTCHA frame and consent wall (visible, holding the element at the viewport's centre) that
 * match; with dismissing on, it clicks the first visible accept button of a wall it found. For a
 * 429 it reads Retry-After with a HEAD request to the same URL (bounded to 2 s). The answer is
 * judged in C (blocked.c kn_blocked_judge). A watcher's probe (kn_blocked_probe_send) is passive:
 * no click, no request, evaluated in the watcher's own isolated world. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "blocked.h"
#include "keynode/error.h"

static const char probe_js[] =
	"(async (P) => {\n"
	" const vis = e => { if (!e || !e.isConnected || !e.getClientRects().length) return false;"
	" const s = getComputedStyle(e); return s.visibility !== 'hidden' && s.display !== 'none'; };\n"
	" const q = s => { try { return Array.from(document.querySelectorAll(s)); } catch (x) { return []; } };\n"
	" const nav = performance.getEntriesByType('navigation')[0];\n"
	" const R = {url: location.href, title: (document.title || '').slice(0, 200),"
	" status: (nav && nav.responseStatus) || 0};\n"
	" const t = (document.title || '').toLowerCase();\n"
	" for (let i = 0; i < P.ch.length; i++) { const s = P.ch[i];\n"
	"  if (s.startsWith('title:') ? t.includes(s.slice(6).toLowerCase())"
	" : s.startsWith('css:') && q(s.slice(4)).some(vis)) { R.challenge = i; break; } }\n"
	" outer: for (const f of q('iframe')) { const src = f.src || '';\n"
	"  if (!vis(f) || !f.offsetWidth || !f.offsetHeight || src.includes('size=invisible')) continue;\n"
	"  for (let i = 0; i < P.fr.length; i++) if (src.includes(P.fr[i])) {"
	" R.frame = i; R.frame_src = src.slice(0, 250); break outer; } }\n"
	" const at = document.elementFromPoint(innerWidth / 2, innerHeight / 2);\n"
	" for (let i = 0; at && i < P.wa.length; i++) {"
	" if (!q(P.wa[i]).some(e => vis(e) && (e === at || e.contains(at)))) continue;\n"
	"  R.wall = i; if (P.dismiss) for (const d of P.di) { const b = q(d).find(vis);"
	" if (b) { b.click(); R.dismissed = 1; break; } } break; }\n"
	" if (R.status === 429 && !P.passive) try { const h = await Promise.race([fetch(location.href,"
	" {method: 'HEAD', cache: 'no-store'}), new Promise((_, no) => setTimeout(no, 2000))]);"
	" R.retry_after = (h.headers.get('retry-after') || '').slice(0, 60); } catch (x) {}\n"
	" return JSON.stringify(R);\n"
	"})";

static json_t *list_json(kn_blocked_list l)
{
	json_t *a = json_array();
	for (size_t i = 0; a && i < l.n; i++)
		json_array_append_new(a, json_string(l.v[i] ? l.v[i] : ""));
	return a;
}

/* The probe's expression with the rules' lists (caller frees); NULL out of memory. dismiss: click
 * an accept button of a wall; passive: neither that nor the Retry-After request. */
static char *probe_expr(const kn_blocked_rules *rules, int dismiss, int passive)
{
	const kn_blocked_rules none = {0};
	const kn_blocked_rules *r = rules ? rules : &none;
	json_t *params = json_pack("{s:o, s:o, s:o, s:o, s:b}", "ch",
	                           list_json(kn_blocked_effective(r, &r->challenge, &kn_blocked_default_challenge)),
	                           "fr",
	                           list_json(kn_blocked_effective(r, &r->captcha_frames,
	                                                          &kn_blocked_default_captcha_frames)),
	                           "wa",
	                           list_json(kn_blocked_effective(r, &r->consent_walls,
	                                                          &kn_blocked_default_consent_walls)),
	                           "di",
	                           list_json(kn_blocked_effective(r, &r->consent_dismiss,
	                                                          &kn_blocked_default_consent_dismiss)),
	                           "dismiss", dismiss && !passive);
	if (params)
		json_object_set_new(params, "passive", json_boolean(passive));
	char *p = params ? json_dumps(params, JSON_COMPACT) : NULL;
	json_decref(params);
	size_t n = p ? strlen(probe_js) + strlen(p) + 4 : 0;
	char *expr = p ? malloc(n) : NULL;
	if (expr)
		snprintf(expr, n, "%s(%s)", probe_js, p);
	free(p);
	return expr;
}

/* The page's answer in an evaluation result (borrowed), NULL when there is none. */
static const char *answer_of(json_t *res)
{
	const char *v = json_string_value(json_object_get(json_object_get(res, "result"), "value"));
	return json_object_get(res, "exceptionDetails") ? NULL : v;
}

/* One evaluation of the probe; *answer is the caller's (the JSON text the page returned). */
static int ask(kn_cdp *c, const char *session, const kn_blocked_rules *rules, int dismiss,
               char **answer)
{
	*answer = NULL;
	char *expr = probe_expr(rules, dismiss, 0);
	if (!expr)
		return KN_ENOMEM;
	json_t *res = NULL;
	kn_err err = {0};
	int rc = kn_cdp_call(c, session, "Runtime.evaluate",
	                     json_pack("{s:s, s:b, s:b}", "expression", expr, "returnByValue", 1, "awaitPromise", 1),
	                     &res, &err);
	free(expr);
	if (rc)
		return rc;
	const char *v = answer_of(res);
	rc = v ? 0 : KN_EPROTO;
	if (!rc && !(*answer = strdup(v)))
		rc = KN_ENOMEM;
	json_decref(res);
	return rc;
}

int kn_blocked_probe(kn_blocked_hit *out, kn_cdp_loop *loop, kn_cdp *c, const char *session,
                     const kn_blocked_rules *rules, const char *requested)
{
	memset(out, 0, sizeof *out);
	if (rules && rules->off)
		return 0;
	int dismissed = 0, rc = 0;
	for (int attempt = 0; attempt < 3; attempt++) {
		char *answer = NULL;
		if ((rc = ask(c, session, rules, attempt < 2, &answer)) != 0)
			break;
		rc = kn_blocked_judge(out, rules, requested, answer, strlen(answer));
		free(answer);
		if (rc == 1 && out->kind == KN_BLOCKED_CONSENT && out->dismissed) {
			dismissed++;
			kn_cdp_loop_run_for(loop, 500); /* the wall's own script hides it */
			continue;
		}
		break;
	}
	out->dismissed = dismissed;
	return rc;
}

struct sent {
	kn_blocked_rules rules;
	int has_rules;
	void (*done)(void *ud, const kn_blocked_hit *hit);
	void *ud;
	char *session, *expr; /* for the one retry in the main world */
};

static long long send_probe(kn_cdp *c, struct sent *s, int context_id);

static void probe_reply(void *ud, kn_cdp *c, json_t *result, const char *error)
{
	struct sent *s = ud;
	const char *v = error ? NULL : answer_of(result);
	if (!v && s->expr && error && strstr(error, "context")) {
		/* "Cannot find context with specified id": the watcher's world went with the document it
		 * belonged to; ask the main world (never after the connection closed: no such error then).
		 * send_probe uses the expression up (frees it, s->expr NULL): no second retry. */
		if (send_probe(c, s, 0) > 0)
			return;
	}
	kn_blocked_hit hit;
	int r = v ? kn_blocked_judge(&hit, s->has_rules ? &s->rules : NULL, NULL, v, strlen(v)) : KN_EPROTO;
	s->done(s->ud, r >= 0 ? &hit : NULL);
	free(s->session);
	free(s->expr);
	free(s);
}

/* Send the probe of s (its expression is used up: s->expr is NULL afterwards, the retry marker). */
static long long send_probe(kn_cdp *c, struct sent *s, int context_id)
{
	json_t *params = json_pack("{s:s, s:b, s:b}", "expression", s->expr, "returnByValue", 1, "awaitPromise", 1);
	if (params && context_id > 0)
		json_object_set_new(params, "contextId", json_integer(context_id));
	else
		free(s->expr), s->expr = NULL; /* no retry after the main world */
	return params ? kn_cdp_send(c, s->session, "Runtime.evaluate", params, probe_reply, s) : KN_ENOMEM;
}

int kn_blocked_probe_send(kn_cdp *c, const char *session, int context_id, const kn_blocked_rules *rules,
                          void (*done)(void *ud, const kn_blocked_hit *hit), void *ud)
{
	if (rules && rules->off)
		return 0;
	struct sent *s = calloc(1, sizeof *s);
	if (!s || !(s->expr = probe_expr(rules, 0, 1)) || !(s->session = strdup(session))) {
		if (s)
			free(s->expr), free(s);
		return KN_ENOMEM;
	}
	if (rules)
		s->rules = *rules, s->has_rules = 1; /* the lists themselves outlive the watcher */
	s->done = done, s->ud = ud;
	long long id = send_probe(c, s, context_id);
	if (id < 0) {
		free(s->session), free(s->expr), free(s);
		return (int)id;
	}
	return 0;
}
