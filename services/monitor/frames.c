/* frames.c — the frames of the agent's tabs (frames.h).
 *
 * Chromium puts a cross-site iframe in its own renderer process (site isolation): its DOM events
 * never reach the tab's session. With Target.setAutoAttach on each tab session (and on each iframe
 * session, for nested ones) the browser attaches such a frame as an "iframe" target, paused, with
 * its own flattened session; here it gets the same binding, world and recorder as its tab before
 * it runs. Same-process child frames already run the recorder (addScriptToEvaluateOnNewDocument
 * reaches every frame of a target).
 *
 * A frame's path is found once, when the frame is attached (Page.frameAttached, in the session of
 * its parent document): DOM.getFrameOwner gives the <iframe> element, DOM.resolveNode makes it an
 * object of our isolated world in the parent frame, and the recorder's selector function there
 * (__kn_selector_<binding>) names it the way it names any acted-on element. Frame ids are unique
 * browser-wide, so the chain is followed across sessions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frames.h"
#include "log.h"

struct ftarget { /* an iframe target */
	struct ftarget *next;
	char *session, *tab_session, *target_id;
};

struct fctx { /* one of our world's execution contexts */
	struct fctx *next;
	char *session, *frame_id;
	long long id;
	char binding[48];
};

struct fframe { /* a child frame: its parent and the selector of its <iframe> element */
	struct fframe *next;
	char *id, *parent, *owner_session;
	char *selector;
	int resolving;
};

struct kn_frames {
	struct ftarget *targets;
	struct fctx *ctxs;
	struct fframe *frames;
};

struct owner_req { /* one frame's owner lookup in flight */
	kn_frames *f;
	char *frame_id, *session;
	long long ctx;
	char binding[48];
};

int kn_frames_new(kn_frames **out)
{
	*out = calloc(1, sizeof **out);
	return *out ? 0 : KN_ENOMEM;
}

static void target_free(struct ftarget *t)
{
	free(t->session);
	free(t->tab_session);
	free(t->target_id);
	free(t);
}

static void ctx_free(struct fctx *x)
{
	free(x->session);
	free(x->frame_id);
	free(x);
}

static void frame_free(struct fframe *fr)
{
	free(fr->id);
	free(fr->parent);
	free(fr->owner_session);
	free(fr->selector);
	free(fr);
}

void kn_frames_free(kn_frames *f)
{
	if (!f)
		return;
	while (f->targets) {
		struct ftarget *t = f->targets;
		f->targets = t->next;
		target_free(t);
	}
	while (f->ctxs) {
		struct fctx *x = f->ctxs;
		f->ctxs = x->next;
		ctx_free(x);
	}
	while (f->frames) {
		struct fframe *fr = f->frames;
		f->frames = fr->next;
		frame_free(fr);
	}
	free(f);
}

void kn_frames_autoattach(kn_cdp *c, const char *session)
{
	kn_cdp_send(c, session, "Target.setAutoAttach",
	            json_pack("{s:b, s:b, s:b}", "autoAttach", 1, "waitForDebuggerOnStart", 1, "flatten",
	                      1),
	            NULL, NULL);
}

static void frame_attached(kn_frames *f, kn_cdp *c, const char *session, json_t *params);

void kn_frames_attach(kn_frames *f, kn_cdp *c, const char *session, const char *parent_session,
                      const char *tab_session, json_t *info, const char *world,
                      const char *binding, const char *src)
{
	struct ftarget *t = calloc(1, sizeof *t);
	const char *tid = kn_json_str(info, "targetId");
	if (t && (t->session = strdup(session)) && (t->tab_session = strdup(tab_session)) &&
	    (t->target_id = strdup(tid ? tid : ""))) {
		t->next = f->targets;
		f->targets = t;
	} else if (t) {
		target_free(t);
	}
	kn_cdp_send(c, session, "Runtime.addBinding",
	            json_pack("{s:s, s:s}", "name", binding, "executionContextName", world), NULL, NULL);
	kn_cdp_send(c, session, "Page.enable", NULL, NULL, NULL);
	kn_cdp_send(c, session, "Runtime.enable", NULL, NULL, NULL);
	if (src)
		kn_cdp_send(c, session, "Page.addScriptToEvaluateOnNewDocument",
		            json_pack("{s:s, s:b, s:s}", "source", src, "runImmediately", 1, "worldName",
		                      world),
		            NULL, NULL);
	/* the frame itself, when its Page.frameAttached was before our time (attached to a loaded page) */
	const char *parent = kn_json_str(info, "parentFrameId");
	json_t *p = tid && parent ? json_pack("{s:s, s:s}", "frameId", tid, "parentFrameId", parent) : NULL;
	if (p && parent_session)
		frame_attached(f, c, parent_session, p);
	json_decref(p);
	kn_frames_autoattach(c, session);
	kn_frames_scan(f, c, session);
	kn_cdp_send(c, session, "Runtime.runIfWaitingForDebugger", NULL, NULL, NULL);
}

const char *kn_frames_tab_of(const kn_frames *f, const char *session)
{
	for (const struct ftarget *t = f->targets; t && session; t = t->next)
		if (strcmp(t->session, session) == 0)
			return t->tab_session;
	return NULL;
}

static void drop_ctxs(kn_frames *f, const char *session, long long id)
{
	for (struct fctx **pp = &f->ctxs; *pp;) {
		struct fctx *x = *pp;
		if (strcmp(x->session, session) == 0 && (id < 0 || x->id == id)) {
			*pp = x->next;
			ctx_free(x);
		} else {
			pp = &x->next;
		}
	}
}

void kn_frames_detach(kn_frames *f, const char *session)
{
	drop_ctxs(f, session, -1);
	for (struct ftarget **pp = &f->targets; *pp;) {
		struct ftarget *t = *pp;
		if (strcmp(t->session, session) == 0 || strcmp(t->tab_session, session) == 0) {
			*pp = t->next;
			if (strcmp(t->session, session) != 0)
				drop_ctxs(f, t->session, -1);
			target_free(t);
		} else {
			pp = &t->next;
		}
	}
}

static struct fframe *frame_find(const kn_frames *f, const char *id)
{
	for (struct fframe *fr = f->frames; fr && id; fr = fr->next)
		if (strcmp(fr->id, id) == 0)
			return fr;
	return NULL;
}

static const struct fctx *ctx_by_frame(const kn_frames *f, const char *session, const char *frame)
{
	for (const struct fctx *x = f->ctxs; x; x = x->next)
		if (strcmp(x->session, session) == 0 && strcmp(x->frame_id, frame) == 0)
			return x;
	return NULL;
}

static void req_free(struct owner_req *r)
{
	free(r->frame_id);
	free(r->session);
	free(r);
}

static void resolve_owner(kn_frames *f, kn_cdp *c, struct fframe *fr);

static void selector_reply(void *ud, kn_cdp *c, json_t *result, const char *error)
{
	(void)c;
	struct owner_req *r = ud;
	struct fframe *fr = frame_find(r->f, r->frame_id);
	const char *sel = error ? NULL : kn_json_str(json_object_get(result, "result"), "value");
	if (fr) {
		fr->resolving = 0;
		if (sel && *sel && !fr->selector)
			fr->selector = strdup(sel);
	}
	req_free(r);
}

static void resolve_reply(void *ud, kn_cdp *c, json_t *result, const char *error)
{
	struct owner_req *r = ud;
	const char *obj = error ? NULL : kn_json_str(json_object_get(result, "object"), "objectId");
	struct fframe *fr = frame_find(r->f, r->frame_id);
	if (!obj || !fr) {
		if (fr)
			fr->resolving = 0;
		req_free(r);
		return;
	}
	char fn[200];
	snprintf(fn, sizeof fn,
	         "function(){var f=globalThis['__kn_selector_%s'];return typeof f==='function'?f(this):''}",
	         r->binding);
	char *session = strdup(r->session);
	if (kn_cdp_send(c, r->session, "Runtime.callFunctionOn",
	                json_pack("{s:s, s:s, s:b}", "objectId", obj, "functionDeclaration", fn,
	                          "returnByValue", 1),
	                selector_reply, r) < 0) {
		fr->resolving = 0;
		req_free(r);
	}
	if (session)
		kn_cdp_send(c, session, "Runtime.releaseObject", json_pack("{s:s}", "objectId", obj),
		            NULL, NULL);
	free(session);
}

static void owner_reply(void *ud, kn_cdp *c, json_t *result, const char *error)
{
	struct owner_req *r = ud;
	json_t *node = error ? NULL : json_object_get(result, "backendNodeId");
	struct fframe *fr = frame_find(r->f, r->frame_id);
	if (!json_is_integer(node) || !fr ||
	    kn_cdp_send(c, r->session, "DOM.resolveNode",
	                json_pack("{s:I, s:I}", "backendNodeId", json_integer_value(node),
	                          "executionContextId", (json_int_t)r->ctx),
	                resolve_reply, r) < 0) {
		if (fr)
			fr->resolving = 0;
		req_free(r);
	}
}

/* Start finding fr's <iframe> selector, when our world runs in its parent document. */
static void resolve_owner(kn_frames *f, kn_cdp *c, struct fframe *fr)
{
	if (fr->selector || fr->resolving || !fr->parent)
		return;
	const struct fctx *x = ctx_by_frame(f, fr->owner_session, fr->parent);
	if (!x)
		return; /* retried when that context appears */
	struct owner_req *r = calloc(1, sizeof *r);
	if (!r || !(r->frame_id = strdup(fr->id)) || !(r->session = strdup(fr->owner_session))) {
		if (r)
			req_free(r);
		return;
	}
	r->f = f;
	r->ctx = x->id;
	snprintf(r->binding, sizeof r->binding, "%s", x->binding);
	fr->resolving = 1;
	if (kn_cdp_send(c, fr->owner_session, "DOM.getFrameOwner", json_pack("{s:s}", "frameId", fr->id),
	                owner_reply, r) < 0) {
		fr->resolving = 0;
		req_free(r);
	}
}

static void frame_attached(kn_frames *f, kn_cdp *c, const char *session, json_t *params)
{
	const char *id = kn_json_str(params, "frameId"), *parent = kn_json_str(params, "parentFrameId");
	if (!id || !parent)
		return;
	struct fframe *fr = frame_find(f, id);
	if (fr) { /* attached again (a cross-site swap): the same element, maybe another session */
		char *s = strdup(session);
		if (s) {
			free(fr->owner_session);
			fr->owner_session = s;
		}
		resolve_owner(f, c, fr);
		return;
	}
	fr = calloc(1, sizeof *fr);
	if (!fr || !(fr->id = strdup(id)) || !(fr->parent = strdup(parent)) ||
	    !(fr->owner_session = strdup(session))) {
		if (fr)
			frame_free(fr);
		return;
	}
	fr->next = f->frames;
	f->frames = fr;
	resolve_owner(f, c, fr);
}

static void frame_detached(kn_frames *f, json_t *params)
{
	const char *id = kn_json_str(params, "frameId"), *reason = kn_json_str(params, "reason");
	if (!id || (reason && strcmp(reason, "swap") == 0))
		return; /* a swap moves the frame to another process: it lives on */
	for (struct fframe **pp = &f->frames; *pp; pp = &(*pp)->next)
		if (strcmp((*pp)->id, id) == 0) {
			struct fframe *fr = *pp;
			*pp = fr->next;
			frame_free(fr);
			return;
		}
}

static void ctx_created(kn_frames *f, kn_cdp *c, const char *session, json_t *params,
                        const char *world, const char *binding)
{
	json_t *ctx = json_object_get(params, "context");
	const char *name = kn_json_str(ctx, "name"), *fid = kn_json_str(json_object_get(ctx, "auxData"), "frameId");
	json_t *id = json_object_get(ctx, "id");
	if (!name || !fid || !world || strcmp(name, world) != 0 || !json_is_integer(id))
		return;
	struct fctx *x = calloc(1, sizeof *x);
	if (!x || !(x->session = strdup(session)) || !(x->frame_id = strdup(fid))) {
		if (x)
			ctx_free(x);
		return;
	}
	x->id = json_integer_value(id);
	snprintf(x->binding, sizeof x->binding, "%s", binding ? binding : "");
	x->next = f->ctxs;
	f->ctxs = x;
	/* child frames of this document whose owner could not be named yet */
	for (struct fframe *fr = f->frames; fr; fr = fr->next)
		if (fr->parent && strcmp(fr->parent, fid) == 0 && strcmp(fr->owner_session, session) == 0)
			resolve_owner(f, c, fr);
}

static void rearm_reply(void *ud, kn_cdp *c, json_t *result, const char *error)
{
	(void)ud;
	(void)c;
	if (!error && json_is_true(json_object_get(json_object_get(result, "result"), "value")))
		kn_log_msg("info", "monitor", "recorder listeners added again: the document reused its window", NULL);
}

/* A document that committed into the Window of the frame's initial about:blank (a popup's or an
 * iframe's first navigation to a same-origin page: HTML reuses that Window) keeps our world's context,
 * so the recorder does not run again, and chromium-headless-shell stops calling the listeners it
 * added to that window: they are added again (recorder_install.js, __kn_rearm_). Our context of the
 * frame still there when the frame has navigated is the sign. */
static void frame_navigated(kn_frames *f, kn_cdp *c, const char *session, json_t *params)
{
	const char *fid = kn_json_str(json_object_get(params, "frame"), "id");
	for (const struct fctx *x = f->ctxs; fid && x; x = x->next) {
		if (strcmp(x->frame_id, fid) != 0 || strcmp(x->session, session) != 0)
			continue;
		char expr[160];
		snprintf(expr, sizeof expr, "typeof __kn_rearm_%s === 'function' && __kn_rearm_%s()", x->binding,
		         x->binding);
		kn_cdp_send(c, session, "Runtime.evaluate", json_pack("{s:s, s:I}", "expression", expr, "contextId",
		            (json_int_t)x->id), rearm_reply, NULL);
	}
}

void kn_frames_event(kn_frames *f, kn_cdp *c, const char *session, const char *method,
                     json_t *params, const char *world, const char *binding)
{
	if (!session)
		return;
	if (strcmp(method, "Page.frameNavigated") == 0)
		frame_navigated(f, c, session, params);
	else if (strcmp(method, "Page.frameAttached") == 0)
		frame_attached(f, c, session, params);
	else if (strcmp(method, "Page.frameDetached") == 0)
		frame_detached(f, params);
	else if (strcmp(method, "Runtime.executionContextCreated") == 0)
		ctx_created(f, c, session, params, world, binding);
	else if (strcmp(method, "Runtime.executionContextDestroyed") == 0) {
		json_t *id = json_object_get(params, "executionContextId");
		if (json_is_integer(id))
			drop_ctxs(f, session, json_integer_value(id));
	} else if (strcmp(method, "Runtime.executionContextsCleared") == 0)
		drop_ctxs(f, session, -1);
}

void kn_frames_path(const kn_frames *f, const char *session, long long ctx_id,
                    const char *out[KN_FRAMES_MAX_DEPTH], size_t *n)
{
	*n = 0;
	const char *frame = NULL;
	for (const struct fctx *x = f->ctxs; x && !frame; x = x->next)
		if (x->id == ctx_id && strcmp(x->session, session) == 0)
			frame = x->frame_id;
	const char *rev[KN_FRAMES_MAX_DEPTH];
	size_t k = 0;
	for (const struct fframe *fr = frame_find(f, frame); fr && k < KN_FRAMES_MAX_DEPTH;
	     fr = frame_find(f, fr->parent))
		rev[k++] = fr->selector ? fr->selector : "iframe";
	for (size_t i = 0; i < k; i++)
		out[i] = rev[k - 1 - i];
	*n = k;
}

struct scan_req {
	kn_frames *f;
	char *session;
};

static void scan_tree(kn_frames *f, kn_cdp *c, const char *session, json_t *tree)
{
	json_t *kids = json_object_get(tree, "childFrames");
	const char *parent = kn_json_str(json_object_get(tree, "frame"), "id");
	for (size_t i = 0; parent && i < json_array_size(kids); i++) {
		json_t *kid = json_array_get(kids, i);
		const char *id = kn_json_str(json_object_get(kid, "frame"), "id");
		if (id) {
			json_t *p = json_pack("{s:s, s:s}", "frameId", id, "parentFrameId", parent);
			if (p)
				frame_attached(f, c, session, p);
			json_decref(p);
		}
		scan_tree(f, c, session, kid);
	}
}

static void scan_reply(void *ud, kn_cdp *c, json_t *result, const char *error)
{
	struct scan_req *r = ud;
	if (!error)
		scan_tree(r->f, c, r->session, json_object_get(result, "frameTree"));
	free(r->session);
	free(r);
}

void kn_frames_scan(kn_frames *f, kn_cdp *c, const char *session)
{
	struct scan_req *r = calloc(1, sizeof *r);
	if (!r || !(r->session = strdup(session))) {
		free(r);
		return;
	}
	r->f = f;
	if (kn_cdp_send(c, session, "Page.getFrameTree", NULL, scan_reply, r) < 0) {
		free(r->session);
		free(r);
	}
}

long long kn_frames_ctx_of(const kn_frames *f, const char *session)
{
	for (const struct fctx *x = f->ctxs; x && session; x = x->next)
		if (x->session && strcmp(x->session, session) == 0)
			return x->id;
	return 0;
}

int kn_frames_flush(kn_frames *f, kn_cdp *c, kn_cdp_reply_fn cb, void *ud)
{
	int sent = 0;
	for (const struct fctx *x = f->ctxs; x; x = x->next) {
		if (!frame_find(f, x->frame_id))
			continue; /* a top-level document: the monitor flushes those */
		char expr[200];
		snprintf(expr, sizeof expr, "typeof __kn_flush_%s === 'function' && __kn_flush_%s()",
		         x->binding, x->binding);
		if (kn_cdp_send(c, x->session, "Runtime.evaluate",
		                json_pack("{s:s, s:I}", "expression", expr, "contextId", (json_int_t)x->id),
		                cb, ud) > 0)
			sent++;
	}
	return sent;
}
