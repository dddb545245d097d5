/* trace_frames.c — a screenshot for every step from the tab's screencast (trace_internal.h).
 *
 * Each attached tab runs Page.startScreencast (JPEG, the trace's quality, scaled to the trace's
 * scale of the viewport); every frame is acknowledged at once and only the latest is kept, as a
 * reference to the event's base64 string. A step does not ask the browser for anything: it waits,
 * on its tab, for the page it led to, and takes the latest frame
 *   - when the next step on the tab comes, once a frame painted after the step has arrived
 *     ("before the next step"; when none has yet, the first one that comes: "just after the step");
 *   - else 1 s after the step ("1 s after the step") — or, while the tab's main frame is loading,
 *     once the load ended and a frame of the loaded page came ("after load"), at most 5 s after the
 *     step;
 *   - else when the run ends ("at the end of the run").
 * After a new document Chromium may send no frame until the page changes again: at the end of
 * each main-frame load the screencast is started anew, which sends the page as it is.
 * Deadlines are checked when something happens on the tab (a frame, a step, a load starting or
 * ending) and at the end, so no timer is needed: the frame taken is the latest that had arrived by
 * the deadline. A tab whose browser never painted a frame gives its steps a stated reason. Nothing
 * here waits for the browser, so the agent is never slowed. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "keynode/base64.h"
#include "keynode/clock.h"
#include "trace_internal.h"

/* A step's screenshot is the page this long after it, unless the next step comes first. */
#define KN_TRACE_SHOT_AFTER_S 1.0
/* While the tab's main frame loads, a step waits for the load to end, at most this long... */
#define KN_TRACE_SHOT_LOAD_S 5.0
/* ...and then for the paint that follows it. */
#define KN_TRACE_SHOT_PAINT_S 0.25

/* A step waiting for its screenshot. */
struct kn_trace_wait {
	struct kn_trace_wait *next;
	int step;
	double t;            /* when the step came (monotonic seconds) */
	unsigned doc;        /* the tab's document count then */
	int cut;             /* a later step on the tab came */
};

/* Ask for frames of tab at the trace's scale of a w × h viewport (0: unscaled until the first frame
 * says the viewport's size). */
static void cast_start(kn_trace *t, kn_cdp *c, struct kn_trace_tab *tab, int w, int h)
{
	json_t *p = json_pack("{s:s, s:i}", "format", "jpeg", "quality", t->o.jpeg_quality);
	if (p && w > 0 && h > 0) {
		json_object_set_new(p, "maxWidth", json_integer((json_int_t)ceil(w * t->o.scale)));
		json_object_set_new(p, "maxHeight", json_integer((json_int_t)ceil(h * t->o.scale)));
	}
	tab->cast_w = w, tab->cast_h = h;
	kn_cdp_send(c, tab->session, "Page.startScreencast", p, NULL, NULL);
}

void kn_trace_frames_start(kn_trace *t, kn_cdp *c, struct kn_trace_tab *tab)
{
	cast_start(t, c, tab, 0, 0);
}

/* Give step w of tab its screenshot: frame (base64 JPEG, NULL none) that arrived at `at` in the
 * tab's document number doc; when says which moment it is. w is unlinked and freed. */
static void take(kn_trace *t, struct kn_trace_tab *tab, struct kn_trace_wait *w, json_t *frame,
                 double at, unsigned doc, const char *when)
{
	for (struct kn_trace_wait **pp = &tab->waits; *pp; pp = &(*pp)->next)
		if (*pp == w) {
			*pp = w->next;
			break;
		}
	json_t *s = kn_trace_step(t, w->step);
	const char *why = NULL;
	unsigned char *jpg = NULL;
	size_t len = 0;
	if (!frame)
		why = "the browser painted no frame of the tab";
	else if (t->o.max_bytes > 0 && t->bytes >= t->o.max_bytes)
		why = "the trace reached its size limit";
	else if (kn_base64_decode(&jpg, &len, json_string_value(frame), json_string_length(frame)) != 0)
		why = "the browser's frame is not base64";
	if (s && !why) {
		char name[32], path[4200];
		snprintf(name, sizeof name, "shots/%04d.jpg", w->step);
		snprintf(path, sizeof path, "%s/%s", t->dir, name);
		FILE *f = fopen(path, "wb");
		int ok = f && fwrite(jpg, 1, len, f) == len;
		ok = f && fclose(f) == 0 && ok;
		if (ok) {
			json_object_set_new(s, "screenshot", json_string(name));
			json_object_set_new(s, "screenshot_bytes", json_integer((json_int_t)len));
			json_object_set_new(s, "screenshot_when", json_string(when));
			json_object_set_new(s, "screenshot_t", json_real(at - t->t0));
			if (doc != w->doc) /* the element's box (of the page at the step) is not on it */
				json_object_set_new(s, "screenshot_new_page", json_true());
			t->shots++;
			t->bytes += (long long)len;
		} else {
			why = "cannot write the screenshot";
		}
	}
	if (s && why) {
		json_object_set_new(s, strcmp(why, "the trace reached its size limit") == 0 ? "screenshot_skipped"
		                                                                              : "screenshot_error",
		                    json_string(why));
		t->skipped++;
	}
	free(jpg);
	free(w);
}

/* When step w of tab takes the latest frame: 1 s after it, or once a load under way ended and a
 * frame of the loaded page came (0.25 s after the load at the earliest). */
static double deadline(const struct kn_trace_tab *tab, const struct kn_trace_wait *w)
{
	double d = w->t + KN_TRACE_SHOT_AFTER_S, cap = w->t + KN_TRACE_SHOT_LOAD_S;
	if (tab->loading)
		return cap;
	if (tab->loaded_at > w->t) {
		if (tab->frame_at < tab->loaded_at) /* no frame of the loaded page yet: wait for one */
			return cap;
		if (tab->loaded_at + KN_TRACE_SHOT_PAINT_S > d)
			d = tab->loaded_at + KN_TRACE_SHOT_PAINT_S;
	}
	return d < cap ? d : cap;
}

/* Steps of tab whose deadline passed before now take the frame the tab had then (the latest: any
 * later one would have come through here first). */
static void take_due(kn_trace *t, struct kn_trace_tab *tab, double now)
{
	for (struct kn_trace_wait *w = tab->waits, *next; w; w = next) {
		next = w->next;
		double d = deadline(tab, w);
		if (now > d)
			take(t, tab, w, tab->frame, tab->frame_at, tab->frame_doc,
			     tab->loading ? "5 s after the step, still loading"
			     : tab->loaded_at > w->t ? "after load" : "1 s after the step");
	}
}

void kn_trace_frames_step(kn_trace *t, struct kn_trace_tab *tab, int n)
{
	double now = kn_time_mono_s();
	take_due(t, tab, now);
	for (struct kn_trace_wait *w = tab->waits, *next; w; w = next) {
		next = w->next;
		w->cut = 1;
		if (tab->frame && tab->frame_at > w->t)
			take(t, tab, w, tab->frame, tab->frame_at, tab->frame_doc, "before the next step");
	}
	struct kn_trace_wait *w = calloc(1, sizeof *w), **pp = &tab->waits;
	json_t *s = kn_trace_step(t, n);
	if (!w) {
		json_object_set_new(s, "screenshot_error", json_string("out of memory"));
		t->skipped++;
		return;
	}
	*w = (struct kn_trace_wait){NULL, n, now, tab->doc, 0};
	while (*pp)
		pp = &(*pp)->next;
	*pp = w;
}

void kn_trace_frames_event(kn_trace *t, kn_cdp *c, struct kn_trace_tab *tab, const char *method,
                           json_t *params)
{
	double now = kn_time_mono_s();
	if (strcmp(method, "Page.screencastFrame") == 0) {
		json_t *sid = json_object_get(params, "sessionId"), *data = json_object_get(params, "data");
		json_t *meta = json_object_get(params, "metadata");
		if (json_is_integer(sid)) /* at once: the browser sends no more until it is acknowledged */
			kn_cdp_send(c, tab->session, "Page.screencastFrameAck",
			            json_pack("{s:O}", "sessionId", sid), NULL, NULL);
		if (!json_is_string(data) || json_string_length(data) > KN_TRACE_MAX_SHOT)
			return;
		take_due(t, tab, now);
		json_decref(tab->frame);
		tab->frame = json_incref(data);
		tab->frame_at = now;
		tab->frame_doc = tab->doc;
		for (struct kn_trace_wait *w = tab->waits, *next; w; w = next) {
			next = w->next;
			if (w->cut)
				take(t, tab, w, tab->frame, now, tab->doc, "just after the step");
		}
		int dw = (int)json_integer_value(json_object_get(meta, "deviceWidth"));
		int dh = (int)json_integer_value(json_object_get(meta, "deviceHeight"));
		if (dw > 0 && dh > 0 && (dw != tab->cast_w || dh != tab->cast_h)) {
			/* the viewport's size is known (or changed): frames at the trace's scale of it */
			kn_cdp_send(c, tab->session, "Page.stopScreencast", NULL, NULL, NULL);
			cast_start(t, c, tab, dw, dh);
		}
		return;
	}
	const char *fid = kn_json_str(params, "frameId");
	if (strcmp(method, "Page.frameStartedLoading") == 0 && fid && strcmp(fid, tab->frame_id) == 0) {
		take_due(t, tab, now);
		tab->loading = 1;
	} else if (strcmp(method, "Page.frameStoppedLoading") == 0 && fid && strcmp(fid, tab->frame_id) == 0) {
		take_due(t, tab, now);
		tab->loading = 0;
		tab->loaded_at = now;
		/* after a new document Chromium may send no frame until the page changes again, although
		 * it painted: a screencast started anew sends the page as it is now */
		kn_cdp_send(c, tab->session, "Page.stopScreencast", NULL, NULL, NULL);
		cast_start(t, c, tab, tab->cast_w, tab->cast_h);
	} else if (strcmp(method, "Page.frameNavigated") == 0) {
		json_t *f = json_object_get(params, "frame");
		const char *id = kn_json_str(f, "id");
		if (id && strcmp(id, tab->frame_id) == 0 && !json_object_get(f, "parentId"))
			tab->doc++;
	}
}

int kn_trace_frames_waiting(const kn_trace *t)
{
	double now = kn_time_mono_s();
	for (const struct kn_trace_tab *tab = t->tabs; tab; tab = tab->next)
		for (const struct kn_trace_wait *w = tab->waits; w; w = w->next)
			if (now <= deadline(tab, w))
				return 1;
	return 0;
}

void kn_trace_frames_finish(kn_trace *t)
{
	for (struct kn_trace_tab *tab = t->tabs; tab; tab = tab->next) {
		take_due(t, tab, kn_time_mono_s());
		while (tab->waits)
			take(t, tab, tab->waits, tab->frame, tab->frame_at, tab->frame_doc, "at the end of the run");
	}
}

void kn_trace_frames_free_tab(struct kn_trace_tab *tab)
{
	while (tab->waits) {
		struct kn_trace_wait *w = tab->waits;
		tab->waits = w->next;
		free(w);
	}
	json_decref(tab->frame);
}
