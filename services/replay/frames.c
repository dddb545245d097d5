/* frames.c — replay steps inside iframes (frames.h).
 *
 * A step's selector is split at its `>>` chain separators (kn_selector_chain_sep). From the top document, a small walker (evaluated in the page)
 * follows the parts — into open shadow roots — until a part names an <iframe> with parts left after
 * it: a frame hop. The hop's element is described (DOM.describeNode: its frameId); a same-process
 * frame gets an isolated world of ours (Page.createIsolatedWorld), an out-of-process one (another
 * site: its own renderer) is attached as its own flattened session (Target.attachToTarget). The rest
 * of the selector is located there by the replayer's page functions; Input events still go to the
 * tab, at the point found plus the frames' content-box origins, which Chromium routes to the frame. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frames.h"
#include "keynode/selector.h"
#include "query_js.h"
#include "replay_internal.h"

/* mode "hop": index of the first part naming a frame with parts after it (-1 none, -2 not found);
 * "el": the element the parts name; "box": its content box origin in this frame's viewport. Each CSS
 * part is looked for with query.js (knQuery: light DOM first, then open shadow roots), in the open
 * shadow root of the element before it; an XPath part in the document. The %s is kn_query_js. */
static const char walker[] =
	"(function(P,mode){%s\n;var s=document,el=null;for(var i=0;i<P.length;i++){if(i>0){if(el.shadowRoot)"
	"s=el.shadowRoot;else if(mode!=='hop'||!/^i?frame$/.test(el.localName))return mode==='hop'?-2:null;}"
	"try{el=P[i].charAt(0)==='/'?document.evaluate(P[i],document,null,9,null).singleNodeValue:"
	"knQuery(P[i],s);}catch(e){el=null;}if(!el)return mode==='hop'?-2:null;"
	"if(mode==='hop'&&/^i?frame$/.test(el.localName)&&i<P.length-1)return i;}"
	"if(mode==='hop')return -1;if(mode==='el')return el;var r=el.getBoundingClientRect(),"
	"c=getComputedStyle(el);return{x:r.left+el.clientLeft+parseFloat(c.paddingLeft),"
	"y:r.top+el.clientTop+parseFloat(c.paddingTop)};})";

/* Evaluate walker(parts, mode) in (session, ctx); *out is the reply's result object (caller's). */
static int walk(json_t **out, kn_cdp *c, const char *session, long long ctx, json_t *parts,
                const char *mode, kn_err *err)
{
	*out = NULL;
	char *p = json_dumps(parts, JSON_COMPACT);
	size_t n = p ? sizeof walker + kn_query_js_len + strlen(p) + strlen(mode) + 8 : 0;
	char *expr = n ? malloc(n) : NULL;
	if (!expr) {
		free(p);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	int w = snprintf(expr, n, walker, kn_query_js);
	snprintf(expr + w, n - (size_t)w, "(%s,'%s')", p, mode);
	free(p);
	json_t *params = json_pack("{s:s, s:b}", "expression", expr, "returnByValue", strcmp(mode, "el") != 0);
	if (params && ctx)
		json_object_set_new(params, "contextId", json_integer(ctx));
	json_t *res = NULL;
	int rc = kn_cdp_call(c, session, "Runtime.evaluate", params, &res, err);
	free(expr);
	if (!rc && json_object_get(res, "exceptionDetails"))
		rc = kn_err_set(err, KN_EPROTO, "frame walker: script exception");
	if (!rc)
		*out = json_incref(json_object_get(res, "result"));
	json_decref(res);
	return rc;
}

/* The parts of selector between its chain separators (kn_selector_chain_sep, as the page splits it),
 * the blanks around each separator dropped, as a JSON array. */
static json_t *split_parts(const char *selector)
{
	json_t *a = json_array();
	const char *s = selector;
	for (long at; a && (at = kn_selector_chain_sep(selector, (size_t)(s - selector))) >= 0;) {
		const char *e = selector + at;
		while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		json_array_append_new(a, json_stringn(s, (size_t)(e - s)));
		s = selector + at + 2;
		while (*s == ' ' || *s == '\t')
			s++;
	}
	if (a)
		json_array_append_new(a, json_string(s));
	return a;
}

static json_t *slice(json_t *a, size_t from, size_t to)
{
	json_t *s = json_array();
	for (size_t i = from; s && i < to && i < json_array_size(a); i++)
		json_array_append(s, json_array_get(a, i));
	return s;
}

/* The frame the element at parts (in session/ctx) holds: our context in it, or a session of its own. */
static int enter_hop(kn_replay_frame *f, kn_cdp *c, const char *session, long long ctx,
                     json_t *parts, char **next_session, long long *next_ctx, kn_err *err)
{
	json_t *el = NULL, *node = NULL, *world = NULL;
	int rc = walk(&el, c, session, ctx, parts, "el", err);
	const char *obj = json_string_value(json_object_get(el, "objectId"));
	if (!rc && !obj)
		rc = kn_err_set(err, KN_ENOTFOUND, "no frame element");
	if (!rc)
		rc = kn_cdp_call(c, session, "DOM.describeNode", json_pack("{s:s}", "objectId", obj), &node, err);
	if (obj)
		kn_cdp_send(c, session, "Runtime.releaseObject", json_pack("{s:s}", "objectId", obj), NULL, NULL);
	const char *frame = json_string_value(json_object_get(json_object_get(node, "node"), "frameId"));
	if (!rc && !frame)
		rc = kn_err_set(err, KN_ENOTFOUND, "the frame element holds no frame");
	if (!rc) {
		kn_err e2;
		if (kn_cdp_call(c, session, "Page.createIsolatedWorld",
		                json_pack("{s:s, s:s}", "frameId", frame, "worldName", "kn_replay"), &world,
		                &e2) == 0) {
			*next_session = strdup(session);
			*next_ctx = json_integer_value(json_object_get(world, "executionContextId"));
		} else { /* another process: the frame is a target of its own */
			json_t *att = NULL;
			rc = kn_cdp_call(c, NULL, "Target.attachToTarget",
			                 json_pack("{s:s, s:b}", "targetId", frame, "flatten", 1), &att, err);
			const char *sid = json_string_value(json_object_get(att, "sessionId"));
			if (!rc && sid) {
				*next_session = strdup(sid);
				f->attached[f->depth] = strdup(sid);
				*next_ctx = 0;
			} else if (!rc) {
				rc = kn_err_set(err, KN_EPROTO, "attaching to the frame gave no session");
			}
			json_decref(att);
		}
		if (!rc && !*next_session)
			rc = kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	json_decref(world);
	json_decref(node);
	json_decref(el);
	return rc;
}

int kn_replay_frame_enter(kn_replay_frame *out, kn_cdp *c, const char *session,
                          const char *selector, kn_err *err)
{
	memset(out, 0, sizeof *out);
	if (kn_selector_chain_sep(selector, 0) < 0)
		return 0;
	json_t *parts = split_parts(selector);
	if (!parts || json_array_size(parts) < 2) {
		json_decref(parts);
		return 0;
	}
	char *cur = strdup(session);
	long long ctx = 0;
	size_t start = 0;
	int rc = cur ? 0 : KN_ENOMEM;
	while (!rc && out->depth < KN_REPLAY_FRAME_DEPTH) {
		json_t *rest = slice(parts, start, json_array_size(parts)), *k = NULL;
		rc = walk(&k, c, cur, ctx, rest, "hop", err);
		json_int_t hop = json_integer_value(json_object_get(k, "value"));
		json_decref(k);
		json_decref(rest);
		if (rc || hop == -1)
			break;
		if (hop < 0) {
			rc = kn_err_set(err, KN_ENOTFOUND, "no frame for %s", selector);
			break;
		}
		json_t *to = slice(parts, start, start + (size_t)hop + 1);
		char *next = NULL;
		long long nctx = 0;
		rc = to ? enter_hop(out, c, cur, ctx, to, &next, &nctx, err) : KN_ENOMEM;
		out->hop[out->depth].session = cur;
		out->hop[out->depth].ctx = ctx;
		out->hop[out->depth].parts = to;
		out->depth++;
		cur = next;
		ctx = nctx;
		start += (size_t)hop + 1;
	}
	if (!rc && out->depth == 0) { /* shadow hops only: the page functions resolve the chain */
		out->session = cur;
		cur = NULL;
		if (!(out->rest = strdup(selector)))
			rc = kn_err_set(err, KN_ENOMEM, "out of memory");
	} else if (!rc) {
		size_t len = 1;
		for (size_t i = start; i < json_array_size(parts); i++)
			len += strlen(json_string_value(json_array_get(parts, i))) + 4;
		if ((out->rest = malloc(len)) != NULL) {
			out->rest[0] = '\0';
			for (size_t i = start; i < json_array_size(parts); i++)
				strcat(strcat(out->rest, i > start ? " >> " : ""),
				       json_string_value(json_array_get(parts, i)));
		}
		out->session = cur;
		out->ctx = ctx;
		cur = NULL;
		if (!out->rest)
			rc = kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	free(cur);
	json_decref(parts);
	if (rc)
		kn_replay_frame_clear(out, c);
	return rc;
}

int kn_replay_frame_enter_wait(kn_replay_frame *out, kn_cdp_loop *loop, kn_cdp *c,
                               const char *session, const char *selector, int timeout_ms,
                               kn_err *err)
{
	for (int waited = 0;; waited += 100) {
		int rc = kn_replay_frame_enter(out, c, session, selector, err);
		if (rc != KN_ENOTFOUND || waited >= timeout_ms)
			return rc;
		kn_cdp_loop_run_for(loop, 100);
	}
}

int kn_replay_frame_page_call(const kn_replay_frame *f, kn_cdp *c, const char *fn, json_t *params,
                              json_t **value, kn_err *err)
{
	if (!f->ctx)
		return kn_replay_page_call(c, f->session, fn, params, value, err);
	*value = NULL;
	char *expr = kn_replay_page_expr(fn, params);
	if (!expr)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	json_t *res = NULL;
	json_t *ep = json_pack("{s:s, s:b, s:b}", "expression", expr, "returnByValue", 1, "awaitPromise", 1);
	if (ep && f->ctx)
		json_object_set_new(ep, "contextId", json_integer(f->ctx));
	int rc = kn_cdp_call(c, f->session, "Runtime.evaluate", ep, &res, err);
	free(expr);
	if (!rc && json_object_get(res, "exceptionDetails"))
		rc = kn_err_set(err, KN_EPROTO, "script exception in %s (in a frame)", fn);
	if (!rc) {
		json_t *v = json_object_get(json_object_get(res, "result"), "value");
		*value = v ? json_incref(v) : json_null();
	}
	json_decref(res);
	return rc;
}

int kn_replay_frame_offset(const kn_replay_frame *f, kn_cdp *c, double *dx, double *dy, kn_err *err)
{
	*dx = *dy = 0;
	for (int i = 0; i < f->depth; i++) {
		json_t *box = NULL;
		int rc = walk(&box, c, f->hop[i].session, f->hop[i].ctx, f->hop[i].parts, "box", err);
		json_t *v = json_object_get(box, "value");
		if (!rc && !json_is_number(json_object_get(v, "x")))
			rc = kn_err_set(err, KN_ENOTFOUND, "the frame element is gone");
		if (!rc) {
			*dx += json_number_value(json_object_get(v, "x"));
			*dy += json_number_value(json_object_get(v, "y"));
		}
		json_decref(box);
		if (rc)
			return rc;
	}
	return 0;
}

void kn_replay_frame_clear(kn_replay_frame *f, kn_cdp *c)
{
	for (int i = 0; i < KN_REPLAY_FRAME_DEPTH; i++) {
		if (f->attached[i] && c)
			kn_cdp_send(c, NULL, "Target.detachFromTarget", json_pack("{s:s}", "sessionId", f->attached[i]),
			            NULL, NULL);
		free(f->attached[i]);
		free(f->hop[i].session);
		json_decref(f->hop[i].parts);
	}
	free(f->rest);
	free(f->session);
	memset(f, 0, sizeof *f);
}
