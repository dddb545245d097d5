/* trace_capture.c — what a trace asks the browser (trace.h), never waiting for an answer.
 *
 * Per step, one Runtime.evaluate in the monitor's isolated world (the page cannot see or fake it)
 * reads the title, the acted-on element's box and a DOM excerpt around it, the viewport, and how
 * many elements each element key node's selector resolves to. The step's screenshot comes from the
 * tab's screencast (trace_frames.c), which this file hands the tab's events to. Console errors,
 * exceptions, failed requests and HTTP errors arrive as CDP events of the tab and go to the current
 * step. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "keynode/clock.h"
#include "query_js.h"
#include "trace_internal.h"

/* Selectors go through query.js (the %s: kn_query_js): the light DOM first, then open shadow
 * roots, `host >> inner` chains — as the recorder resolved them. */
static const char probe_js[] =
	"(function(sel,nodes,max){%s\n;var r={url:location.href,title:document.title,vw:innerWidth,"
	"vh:innerHeight,selectors:[]};var el=null;"
	"if(sel){var se=knSelectorError(sel);if(se)r.selector_error=se;else{el=knQuery(sel);r.found=!!el;}}"
	"if(el){var b=el.getBoundingClientRect();r.box={x:b.x,y:b.y,width:b.width,height:b.height};"
	"var p=el.parentElement,h=p?p.outerHTML:'';if(!p||h.length>max)h=el.outerHTML;"
	"r.dom=h.length>max?h.slice(0,max):h;}"
	"for(var i=0;i<nodes.length;i++){var c=knSelectorError(nodes[i][1])?-1:knQueryAll(nodes[i][1]).length;"
	"r.selectors.push({node:nodes[i][0],selector:nodes[i][1],count:c});}"
	"return r;})";

static struct kn_trace_tab *tab_by_id(kn_trace *t, const char *id)
{
	for (struct kn_trace_tab *x = t->tabs; id && x; x = x->next)
		if (strcmp(x->id, id) == 0)
			return x;
	return NULL;
}

void kn_trace_attach(kn_trace *t, kn_cdp *c, const char *session, const char *tab,
                     const char *frame_id, const char *world)
{
	if (!t || !session || !tab)
		return;
	struct kn_trace_tab *x = calloc(1, sizeof *x);
	if (!x || !(x->id = strdup(tab)) || !(x->session = strdup(session)) ||
	    !(x->frame_id = strdup(frame_id ? frame_id : "")) || !(x->world = strdup(world ? world : ""))) {
		if (x) {
			free(x->id);
			free(x->session);
			free(x->frame_id);
			free(x);
		}
		return;
	}
	x->next = t->tabs;
	t->tabs = x;
	/* console messages arrive through Runtime (the monitor enables it); Log and Network are ours */
	kn_cdp_send(c, session, "Log.enable", NULL, NULL, NULL);
	kn_cdp_send(c, session, "Network.enable",
	            json_pack("{s:i, s:i}", "maxTotalBufferSize", 0, "maxResourceBufferSize", 0), NULL, NULL);
	kn_trace_frames_start(t, c, x);
}

static void add_to_step(kn_trace *t, const char *list, json_t *entry)
{
	json_t *s = json_array_size(t->steps) ? json_array_get(t->steps, json_array_size(t->steps) - 1)
	                                      : NULL;
	json_t *a = json_object_get(s, list);
	if (!entry || !json_is_array(a) || json_array_size(a) >= KN_TRACE_MAX_LIST) {
		json_decref(entry);
		return;
	}
	json_array_append_new(a, entry);
}

/* The text of a console call: its arguments' values or descriptions, space-separated. */
static json_t *console_text(json_t *args)
{
	char buf[600];
	size_t n = 0;
	buf[0] = '\0';
	size_t i;
	json_t *a;
	json_array_foreach(args, i, a) {
		json_t *v = json_object_get(a, "value");
		const char *s = json_is_string(v) ? json_string_value(v) : kn_json_str(a, "description");
		if (s && n < sizeof buf - 1)
			n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", n ? " " : "", s);
		if (n >= sizeof buf)
			n = sizeof buf - 1;
	}
	return kn_trace_text(buf, 500);
}

static struct kn_trace_pending *pending_new(kn_trace *t, int step, struct kn_trace_tab *tab)
{
	struct kn_trace_pending *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->t = t, p->step = step, p->tab = tab;
	p->next = t->pending;
	if (t->pending)
		t->pending->prev = p;
	t->pending = p;
	return p;
}

/* The reply arrived: unlink p; its trace (NULL when gone). */
static kn_trace *pending_done(struct kn_trace_pending *p)
{
	kn_trace *t = p->t;
	if (t) {
		if (p->prev)
			p->prev->next = p->next;
		else
			t->pending = p->next;
		if (p->next)
			p->next->prev = p->prev;
	}
	return t;
}

static void start_probe(kn_trace *t, kn_cdp *c, struct kn_trace_tab *tab, const char *selector, int n);

static void probe_reply(void *ud, kn_cdp *c, json_t *result, const char *error)
{
	struct kn_trace_pending *p = ud;
	kn_trace *t = pending_done(p);
	json_t *s = t ? kn_trace_step(t, p->step) : NULL;
	json_t *v = json_object_get(json_object_get(result, "result"), "value");
	if (s && json_is_object(v)) {
		json_object_del(s, "probe_error"); /* an earlier try's: this one answered */
		json_object_set_new(s, "page_url", kn_trace_text(kn_json_str(v, "url"), 2000));
		json_object_set_new(s, "title", kn_trace_text(kn_json_str(v, "title"), 500));
		json_t *box = json_object_get(v, "box"), *found = json_object_get(v, "found");
		/* the page's answer replaces the box seen at the action, unless it no longer finds the element */
		if ((json_is_boolean(found) || json_object_get(v, "selector_error")) &&
		    (json_is_true(found) || !json_object_get(s, "element")))
			json_object_set_new(
				s, "element",
				json_pack("{s:b, s:O?, s:o, s:o, s:s}", "found", json_is_true(found), "box",
				          json_is_object(box) ? box : NULL, "dom",
				          kn_trace_text(kn_json_str(v, "dom"), 2000), "error",
				          kn_trace_text(kn_json_str(v, "selector_error"), 200), "source", "page"));
		json_t *sel = json_object_get(v, "selectors");
		if (json_is_array(sel))
			json_object_set(s, "selectors", sel);
		json_object_set_new(s, "viewport", json_pack("{s:O?, s:O?}", "width", json_object_get(v, "vw"),
		                                             "height", json_object_get(v, "vh")));
		if (p->tab->status)
			json_object_set_new(s, "status", json_integer(p->tab->status));
	} else if (s && p->ctx_id && error && strstr(error, "Cannot find context")) {
		/* the isolated world's context went with its document before the probe reached it: probe
		 * again in the world's newer context if one is known by now, else in the page's main
		 * world (as before the world is known), which needs no context id */
		if (p->tab->ctx_id == p->ctx_id)
			p->tab->ctx_id = 0;
		start_probe(t, c, p->tab, NULL, p->step);
	} else if (s) {
		json_object_set_new(s, "probe_error",
		                    kn_trace_text(error ? error : "the page gave no answer", 200));
	}
	free(p);
}

/* Send the probe of step n (with the acted-on element's selector, or NULL). */
static void start_probe(kn_trace *t, kn_cdp *c, struct kn_trace_tab *tab, const char *selector, int n)
{
	json_t *a = json_pack("[s?, O, i]", selector, t->selectors, 2000);
	char *args = a ? json_dumps(a, JSON_COMPACT) : NULL;
	json_decref(a);
	size_t len = args ? strlen(probe_js) + kn_query_js_len + strlen(args) + 4 : 0;
	char *expr = len ? malloc(len) : NULL;
	struct kn_trace_pending *p = expr ? pending_new(t, n, tab) : NULL;
	if (p) {
		/* the arguments are a JSON array: "(fn)(" + its inside + ")" */
		args[strlen(args) - 1] = '\0';
		int w = snprintf(expr, len, probe_js, kn_query_js);
		snprintf(expr + w, len - (size_t)w, "(%s)", args + 1);
		json_t *params = json_pack("{s:s, s:b, s:b}", "expression", expr, "returnByValue", 1, "silent", 1);
		if (params && tab->ctx_id)
			json_object_set_new(params, "contextId", json_integer(tab->ctx_id));
		p->ctx_id = tab->ctx_id;
		if (kn_cdp_send(c, tab->session, "Runtime.evaluate", params, probe_reply, p) < 0) {
			pending_done(p);
			free(p);
		}
	}
	free(expr);
	free(args);
}

void kn_trace_capture_step(kn_trace *t, kn_cdp *c, const kn_event *ev, json_t *step, int n)
{
	struct kn_trace_tab *tab = tab_by_id(t, ev->tab);
	if (!c || !tab) {
		json_object_set_new(step, "screenshot_skipped",
		                    json_string(ev->tab ? "the tab is not known" : "no page (not a page action)"));
		return;
	}
	if (tab->status)
		json_object_set_new(step, "status", json_integer(tab->status));
	/* Until the probe answers (it may lose the page to a navigation the action started): the title the
	 * last probe of this same document read, and the element's box as the recorder saw it acting. */
	json_t *prev = tab->probe_step >= 1 && tab->probe_doc == tab->doc ? kn_trace_step(t, tab->probe_step) : NULL;
	json_t *title = json_object_get(prev, "title");
	if (json_is_string(title))
		json_object_set(step, "title", title);
	if (ev->has_box && !ev->frame)
		json_object_set_new(step, "element",
		                    json_pack("{s:b, s:{s:f, s:f, s:f, s:f}, s:n, s:n, s:s}", "found", 1, "box", "x",
		                              ev->box[0], "y", ev->box[1], "width", ev->box[2], "height", ev->box[3],
		                              "dom", "error", "source", "action"));
	kn_trace_frames_step(t, tab, n);
	tab->probe_step = n, tab->probe_doc = tab->doc, tab->probe_loading = tab->loading;
	start_probe(t, c, tab, ev->frame ? NULL : ev->selector, n);
}

/* The tab finished loading: the last step, when it was probed on the document this load replaced
 * (a click that navigated), before the page had a title or while it was still loading (a goto probed
 * at commit, before the page's scripts built it; a probe the navigation lost), is probed again, of
 * the page it led to (its element stays the one found just after the action). */
static void on_load(kn_trace *t, kn_cdp *c, struct kn_trace_tab *tab)
{
	size_t ns = json_array_size(t->steps);
	json_t *s = ns ? json_array_get(t->steps, ns - 1) : NULL;
	int n = (int)json_integer_value(json_object_get(s, "step"));
	const char *title = json_string_value(json_object_get(s, "title"));
	if (c && n >= 1 && n == tab->probe_step &&
	    (tab->doc != tab->probe_doc || !title || !*title || tab->probe_loading)) {
		tab->probe_doc = tab->doc, tab->probe_loading = 0;
		start_probe(t, c, tab, NULL, n);
	}
}

void kn_trace_cdp_event(kn_trace *t, kn_cdp *c, const char *tab, const char *method, json_t *params)
{
	if (!t || t->finished || !method)
		return;
	struct kn_trace_tab *x = tab_by_id(t, tab);
	if (strcmp(method, "Runtime.exceptionThrown") == 0) {
		json_t *d = json_object_get(params, "exceptionDetails");
		const char *desc = kn_json_str(json_object_get(d, "exception"), "description");
		add_to_step(t, "console", json_pack("{s:s, s:s, s:o}", "source", "exception", "level", "error",
		                                    "text", kn_trace_text(desc ? desc : kn_json_str(d, "text"), 500)));
	} else if (strcmp(method, "Runtime.consoleAPICalled") == 0) {
		const char *type = kn_json_str(params, "type");
		if (type && (strcmp(type, "error") == 0 || strcmp(type, "assert") == 0))
			add_to_step(t, "console", json_pack("{s:s, s:s, s:o}", "source", "console", "level", "error",
			                                    "text", console_text(json_object_get(params, "args"))));
	} else if (strcmp(method, "Log.entryAdded") == 0) {
		json_t *e = json_object_get(params, "entry");
		const char *level = kn_json_str(e, "level");
		if (level && strcmp(level, "error") == 0)
			add_to_step(t, "console", json_pack("{s:s, s:s, s:o, s:o}", "source", "log", "level", "error",
			                                    "text", kn_trace_text(kn_json_str(e, "text"), 500), "url",
			                                    kn_trace_text(kn_json_str(e, "url"), 1000)));
	} else if (strcmp(method, "Network.requestWillBeSent") == 0) {
		const char *id = kn_json_str(params, "requestId");
		const char *url = kn_json_str(json_object_get(params, "request"), "url");
		if (id && url && json_object_size(t->requests) < KN_TRACE_MAX_REQUESTS)
			json_object_set_new(t->requests, id, kn_trace_text(url, 1000));
	} else if (strcmp(method, "Network.loadingFinished") == 0) {
		const char *id = kn_json_str(params, "requestId");
		if (id)
			json_object_del(t->requests, id);
	} else if (strcmp(method, "Network.loadingFailed") == 0) {
		const char *id = kn_json_str(params, "requestId");
		json_t *url = id ? json_object_get(t->requests, id) : NULL;
		if (!json_is_true(json_object_get(params, "canceled"))) /* aborted by a navigation: normal */
			add_to_step(t, "network",
			            json_pack("{s:O?, s:n, s:o, s:o}", "url", url, "status", "error",
			                      kn_trace_text(kn_json_str(params, "errorText"), 200), "type",
			                      kn_trace_text(kn_json_str(params, "type"), 40)));
		if (id)
			json_object_del(t->requests, id);
	} else if (strcmp(method, "Network.responseReceived") == 0) {
		json_t *r = json_object_get(params, "response");
		int status = (int)json_integer_value(json_object_get(r, "status"));
		const char *type = kn_json_str(params, "type"), *frame = kn_json_str(params, "frameId");
		if (x && type && strcmp(type, "Document") == 0 && frame && strcmp(frame, x->frame_id) == 0)
			x->status = status;
		if (status >= 400)
			add_to_step(t, "network",
			            json_pack("{s:o, s:i, s:n, s:o}", "url", kn_trace_text(kn_json_str(r, "url"), 1000),
			                      "status", status, "error", "type", kn_trace_text(type, 40)));
	} else if (x && strcmp(method, "Runtime.executionContextCreated") == 0) {
		json_t *ctx = json_object_get(params, "context");
		const char *name = kn_json_str(ctx, "name");
		const char *fid = kn_json_str(json_object_get(ctx, "auxData"), "frameId");
		if (name && fid && strcmp(name, x->world) == 0 && strcmp(fid, x->frame_id) == 0)
			x->ctx_id = (int)json_integer_value(json_object_get(ctx, "id"));
	} else if (x && strcmp(method, "Runtime.executionContextsCleared") == 0) {
		x->ctx_id = 0;
	} else if (x && strcmp(method, "Runtime.executionContextDestroyed") == 0) {
		if (json_integer_value(json_object_get(params, "executionContextId")) == x->ctx_id)
			x->ctx_id = 0;
	} else if (x && strcmp(method, "Page.loadEventFired") == 0) {
		on_load(t, c, x);
	} else if (x && strncmp(method, "Page.", 5) == 0) {
		kn_trace_frames_event(t, c, x, method, params);
	}
}

struct settle {
	kn_trace *t;
	kn_cdp_loop *loop;
	double until;
	void (*done)(void *ud);
	void *ud;
};

static void settle_tick(void *ud)
{
	struct settle *s = ud;
	if (kn_trace_busy(s->t) && kn_time_mono_s() < s->until &&
	    kn_cdp_timer_start(s->loop, 20, settle_tick, s)) /* 20 ms: the loop serves replies meanwhile */
		return;
	s->done(s->ud);
	free(s);
}

void kn_trace_settle(kn_trace *t, kn_cdp_loop *loop, int max_ms, void (*done)(void *ud), void *ud)
{
	struct settle *s = kn_trace_busy(t) ? malloc(sizeof *s) : NULL;
	if (!s) {
		done(ud);
		return;
	}
	*s = (struct settle){t, loop, kn_time_mono_s() + max_ms / 1000.0, done, ud};
	settle_tick(s);
}
