/* replay.c — the replayer (replay.h): one tab, each reference step's element located with a
 * bounded wait in the page until it is actionable — the recorded selector, then fallback locators,
 * then healing (heal.h) — and acted on with trusted Input.* events, then waited for until what the
 * action started is over (wait.c: browser events, not pauses), each step given a verdict. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dialog_answer.h"
#include "frames.h"
#include "heal.h"
#include "keynode/clock.h"
#include "keynode/selector.h"
#include "keynode/site.h"
#include "keynode/workflow.h"
#include "replay.h"
#include "replay_internal.h"

struct rp {
	kn_cdp_loop *loop;
	kn_cdp *c;
	char *session;
	char *target_id;
	kn_replay_opts o;
	const kn_task *task;
	kn_replay_frame fr; /* the step's frame when its selector crosses into an iframe (frames.c) */
	const kn_step *dialog; /* the next step answers the dialog this one opens (dialog_answer.h) */
	int dialog_answered;
	kn_replay_waiter w; /* what the tab's session reported (wait.c) */
	kn_replay_waits wt; /* o.wait resolved */
	int framed;         /* the step runs in a frame (its selector crossed one) */
	int nav_unanswered; /* the step's Page.navigate timed out: it waits for the site (the commit) */
};

static int page_shows_error(struct rp *r, const kn_step *st, const kn_replay_mark *mark,
                            kn_replay_result *res, kn_err *err);

/* Where a step's element was found. */
struct found {
	double x, y;
	const char *how;  /* static: "selector", "id", …, "healed" */
	double score;
	char *sel;        /* a unique selector for it now (owned) */
	int drift;        /* found, but a recorded hint (href) disagrees: a drift warning */
	char why[256];    /* what disagreed (drift), or why the last element found was refused */
};

const char *kn_step_outcome_name(kn_step_outcome o)
{
	static const char *const names[] = {"ok", "ok-by-fallback", "element not found", "action failed",
	                                    "navigation timeout", "http error", "site unreachable", "blocked",
	                                    "browser timeout", "page shows an error"};
	return (unsigned)o <= KN_STEP_PAGE_ERROR ? names[o] : "?";
}

int kn_step_outcome_ok(kn_step_outcome o) { return o == KN_STEP_OK || o == KN_STEP_OK_FALLBACK; }

void kn_replay_result_clear(kn_replay_result *res)
{
	for (size_t i = 0; res->steps && i < res->n_steps; i++) {
		free(res->steps[i].proposed);
		free(res->steps[i].url_after);
		free(res->steps[i].found_now);
	}
	free(res->steps);
	free(res->target_id);
	free(res->error_request);
	kn_replay_evidence_clear(&res->evidence);
	memset(res, 0, sizeof *res);
}

static int call(struct rp *r, const char *method, json_t *params, json_t **result, kn_err *err)
{
	json_t *res = NULL;
	int rc = kn_cdp_call(r->c, r->session, method, params, &res, err);
	if (result)
		*result = res;
	else
		json_decref(res);
	return rc;
}

static int page(struct rp *r, const char *fn, json_t *params, json_t **value, kn_err *err)
{
	if (r->fr.rest)
		return kn_replay_frame_page_call(&r->fr, r->c, fn, params, value, err);
	return kn_replay_page_call(r->c, r->session, fn, params, value, err);
}

static void pause_ms(struct rp *r, int ms)
{
	kn_cdp_loop_run_for(r->loop, ms);
}

/* The field of w that wait setting id sets; NULL for the two that are not waits after a step. */
static int *waits_field(kn_replay_waits *w, kn_replay_wait_id id)
{
	switch (id) {
	case KN_RWAIT_SETTLE: return &w->settle_ms;
	case KN_RWAIT_QUIET: return &w->quiet_ms;
	case KN_RWAIT_QUIET_MAX: return &w->quiet_max_ms;
	case KN_RWAIT_CONSEQUENCE: return &w->consequence_ms;
	case KN_RWAIT_SCRIPT_QUIET: return &w->script_quiet_ms;
	case KN_RWAIT_NETWORK_MAX: return &w->network_max_ms;
	case KN_RWAIT_POSTCONDITION: return &w->postcondition_ms;
	case KN_RWAIT_GRACE: return &w->grace_ms;
	case KN_RWAIT_ELEMENT:
	case KN_RWAIT_COMMAND:
	case KN_RWAIT__COUNT: break;
	}
	return NULL;
}

int *kn_replay_opts_wait(kn_replay_opts *o, kn_replay_wait_id id)
{
	if (id == KN_RWAIT_ELEMENT)
		return &o->element_timeout_ms;
	if (id == KN_RWAIT_COMMAND)
		return &o->command_timeout_ms;
	return waits_field(&o->wait, id);
}

int kn_replay_element_timeout(const kn_replay_opts *o)
{
	return o->element_timeout_ms ? o->element_timeout_ms : kn_replay_wait_table[KN_RWAIT_ELEMENT].def_ms;
}

kn_replay_waits kn_replay_waits_resolve(const kn_replay_waits *wait)
{
	kn_replay_waits o = wait ? *wait : (kn_replay_waits){0};
	for (int i = 0; i < KN_RWAIT__COUNT; i++) {
		int *f = waits_field(&o, (kn_replay_wait_id)i);
		if (f)
			*f = *f == 0 ? kn_replay_wait_table[i].def_ms : *f < 0 ? 0 : *f;
	}
	return o;
}

/* Wait until what the action taken at mark m started is over (wait.c), bounded by the settle
 * timeout. */
static int settle(struct rp *r, const kn_replay_mark *m, int flags)
{
	return kn_replay_settle(&r->w, m, flags, &r->wt);
}

/* The HTTP status of the current document (0 unknown) and its URL (into url). */
static int page_status(struct rp *r, char *url, size_t n)
{
	json_t *v = NULL;
	kn_err e;
	int status = 0;
	if (page(r, "state", NULL, &v, &e) == 0) {
		status = (int)json_integer_value(json_object_get(v, "status"));
		snprintf(url, n, "%s", json_string_value(json_object_get(v, "url")) ? json_string_value(json_object_get(v, "url")) : "");
	}
	json_decref(v);
	return status;
}

/* The field of step st holds its recorded value (after.value) now. */
static int value_holds(struct rp *r, const kn_step *st)
{
	json_t *v = NULL, *p = json_pack("{s:s}", "sel", st->selector);
	kn_err e;
	const char *got = page(r, "value", p, &v, &e) == 0 ? json_string_value(json_object_get(v, "value")) : NULL;
	int same = got && strcmp(got, st->expect_value) == 0;
	json_decref(p);
	json_decref(v);
	return same;
}

/* After the step settled: its recorded postcondition (after.url, after.navigated, after.value),
 * waited for until it holds (bounded), then what that brought settled too. A step whose
 * postcondition never comes is judged by validation (validate.c), not here. */
static int wait_postcondition(struct rp *r, const kn_step *st, const kn_replay_mark *m)
{
	kn_replay_mark now;
	kn_replay_wait_mark(&r->w, &now);
	if (!r->w.url[0]) { /* no navigation event yet in this tab: the page says where it is */
		char url[1024];
		page_status(r, url, sizeof url);
		snprintf(r->w.url, sizeof r->w.url, "%s", url);
	}
	int held = kn_replay_wait_postcondition(&r->w, m, st, r->wt.postcondition_ms);
	/* a field's value, in the tab's document (a step in a frame is not looked up again) */
	if (st->expect_value && st->selector && !r->framed && (st->verb == KN_STEP_TYPE || st->verb == KN_STEP_SELECT))
		for (double end = kn_time_mono_ms() + r->wt.postcondition_ms;
		     !value_holds(r, st) && kn_time_mono_ms() < end && !r->w.detached;)
			kn_replay_wait_any(&r->w, 50);
	if (held < 0 || (r->w.nav_started == now.nav_started && r->w.nav_committed == now.nav_committed &&
	                 r->w.net_started == now.net_started))
		return 0;
	return settle(r, &now, KN_SETTLE_NO_WAIT_FIRST);
}

static json_t *find_params(const kn_step *st, const kn_heal_sig *e)
{
	return json_pack("{s:s?, s:s?, s:s?, s:s?, s:s?, s:s?, s:s?, s:s}", "sel", st->selector, "id", e->id,
	                 "name", e->name, "aria", e->aria, "role", e->role, "href", e->href, "text",
	                 e->text, "verb", kn_step_verb_name(st->verb));
}

static int take_found(struct found *f, json_t *v, const char *how, double score)
{
	const char *sel = json_string_value(json_object_get(v, "sel"));
	const char *h = json_string_value(json_object_get(v, "how"));
	if (!json_is_number(json_object_get(v, "x")) || !h)
		return 0;
	static const char *const hows[] = {"selector", "id", "name", "aria-label", "role+text", "href", "text", "healed"};
	f->how = how;
	for (size_t i = 0; !f->how && i < sizeof hows / sizeof hows[0]; i++)
		if (strcmp(h, hows[i]) == 0)
			f->how = hows[i];
	if (!f->how)
		return 0;
	f->x = json_number_value(json_object_get(v, "x"));
	f->y = json_number_value(json_object_get(v, "y"));
	f->score = score;
	free(f->sel);
	f->sel = sel ? strdup(sel) : NULL;
	return 1;
}

/* Try to heal from a candidate list v: the best candidate at or above the threshold, among those
 * whose name does not contradict the step's (a relabelled one, kn_heal_agree, is a drift). */
static int heal(struct rp *r, const kn_step *st, const kn_heal_sig *e, json_t *v, struct found *f)
{
	json_t *list = json_object_get(v, "candidates");
	char *text = list ? json_dumps(list, JSON_COMPACT) : NULL;
	kn_heal_sig *c = NULL;
	size_t n = 0;
	kn_err err;
	int ok = 0;
	if (text && kn_heal_parse_candidates(&c, &n, text, strlen(text), &err) == 0) {
		double score = -1;
		int best = -1;
		for (size_t i = 0; i < n; i++) { /* a candidate whose name contradicts the step's is another item */
			if (kn_heal_agree(st, e, &c[i], NULL, 0) == KN_AGREE_NO)
				continue;
			double s = kn_heal_score(e, &c[i], NULL);
			if (s > score) {
				score = s;
				best = (int)i;
			}
		}
		if (best >= 0 && score >= KN_HEAL_THRESHOLD) {
			json_t *p = json_pack("{s:i, s:s, s:i, s:i}", "index", c[best].index, "verb",
			                      kn_step_verb_name(st->verb), "stable", KN_REPLAY_STABLE_MS, "act",
			                      KN_REPLAY_STABLE_MS);
			json_t *pv = NULL;
			if (page(r, "pick", p, &pv, &err) == 0)
				ok = take_found(f, pv, "healed", score);
			f->drift = ok && kn_heal_agree(st, e, &c[best], f->why, sizeof f->why) == KN_AGREE_RELABEL;
			json_decref(pv);
			json_decref(p);
		}
	}
	kn_heal_sigs_free(c, n);
	free(text);
	return ok;
}

/* Whether the element found (v's "sig") is the recorded one (kn_heal_agree): NO refuses it,
 * REWORDED, DRIFT and RELABEL are drifts (f->drift, f->why says why). */
static kn_heal_agreement agreement(const kn_step *st, const kn_heal_sig *e, json_t *v, struct found *f)
{
	json_t *one = json_pack("[O]", json_object_get(v, "sig") ? json_object_get(v, "sig") : json_null());
	char *text = one ? json_dumps(one, JSON_COMPACT) : NULL;
	kn_heal_sig *c = NULL;
	size_t n = 0;
	kn_err err;
	kn_heal_agreement a = KN_AGREE_YES;
	if (text && kn_heal_parse_candidates(&c, &n, text, strlen(text), &err) == 0 && n == 1)
		a = kn_heal_agree(st, e, &c[0], f->why, sizeof f->why);
	f->drift = a != KN_AGREE_YES && a != KN_AGREE_NO;
	kn_heal_sigs_free(c, n);
	free(text);
	json_decref(one);
	return a;
}

/* Two finds are one element: the same unique selector (uniq() in page_js.c), else the same point. */
static int same_element(const struct found *a, const struct found *b)
{
	if (a->sel && b->sel && *a->sel && *b->sel)
		return strcmp(a->sel, b->sel) == 0;
	return a->x == b->x && a->y == b->y;
}

/* The centre of found element f again, by its unique selector (the page may have scrolled to
 * another element since): 1, or 0 when it is gone. */
static int ready_again(struct rp *r, const kn_step *st, struct found *f, double left)
{
	if (!f->sel || !*f->sel)
		return 1;
	json_t *v = NULL, *p = json_pack("{s:s, s:s, s:b, s:b, s:i, s:b, s:i, s:i}", "sel", f->sel, "verb",
	                                 kn_step_verb_name(st->verb), "fb", 0, "collect", 0, "until", 0,
	                                 "changed", 0, "stable", KN_REPLAY_STABLE_MS, "act",
	                                 left > 0 ? (int)left : 0);
	kn_err err;
	int ok = p && page(r, "wait", p, &v, &err) == 0 && json_is_number(json_object_get(v, "x"));
	if (ok) {
		f->x = json_number_value(json_object_get(v, "x"));
		f->y = json_number_value(json_object_get(v, "y"));
	}
	json_decref(v);
	json_decref(p);
	return ok;
}

/* Find the step's element and give its centre (scrolled into view, actionable). The page waits
 * for it (page_js.c "wait": each animation frame, or each DOM change once fallbacks are on): the
 * selector from the start, the fallbacks after fallback_after_ms, healing after heal_after_ms; all
 * within the element timeout. An element whose name contradicts the recorded one is refused and the
 * next locator tried at once (in the same round; the next round starts afresh once the DOM changed:
 * the page may have moved on). An element whose name and href agree is taken at once (YES, or
 * REWORDED: a drift). One that agrees with a drift of another kind (kn_heal_agree DRIFT: the
 * recorded name, another href; RELABEL: the recorded href, place and role, the name's words
 * dropped or added) is held while the other locators are tried (the fallbacks must be on): an
 * element that agrees wins, a drift of the other kind on another element contradicts it (neither
 * is taken: not found), otherwise the held element is taken. */
static int locate(struct rp *r, const kn_step *st, struct found *f)
{
	kn_heal_sig e;
	if (kn_heal_expected(&e, st))
		return KN_ENOMEM;
	json_t *p = find_params(st, &e);
	if (!p) {
		kn_heal_sig_clear(&e);
		return KN_ENOMEM;
	}
	int timeout = kn_replay_element_timeout(&r->o);
	int fb_after = r->o.fallback_after_ms ? r->o.fallback_after_ms : 300;
	int heal_after = r->o.heal_after_ms ? r->o.heal_after_ms : 1500;
	if (heal_after > timeout)
		heal_after = timeout;
	if (fb_after > heal_after)
		fb_after = heal_after;
	int rc = KN_ENOTFOUND, changed = 0;
	char refused[300] = "";
	struct found held = {0}; /* a drifted or relabelled element found this round */
	double start = kn_time_mono_ms();
	for (;;) {
		double spent = kn_time_mono_ms() - start;
		int fb = spent >= fb_after, collect = spent >= heal_after;
		double until = (!fb ? fb_after : !collect ? heal_after : timeout) - spent;
		json_object_set_new(p, "fb", json_boolean(fb));
		json_object_set_new(p, "collect", json_boolean(collect));
		json_object_set_new(p, "until", json_integer(until > 0 ? (json_int_t)until : 0));
		json_object_set_new(p, "changed", json_boolean(changed));
		json_object_set_new(p, "stable", json_integer(KN_REPLAY_STABLE_MS));
		json_object_set_new(p, "act", json_integer(timeout - spent > 0 ? (json_int_t)(timeout - spent) : 0));
		json_t *v = NULL, *skip = json_array();
		kn_err err;
		json_object_set_new(p, "skip", skip);
		int done = 0, answered = 0, contradicted = 0;
		kn_heal_agreement held_a = KN_AGREE_NO; /* NO: nothing held */
		for (int tries = 0; !done && tries < 10 && page(r, "wait", p, &v, &err) == 0; tries++) {
			answered = 1;
			if (take_found(f, v, NULL, 1.0)) {
				kn_heal_agreement a = agreement(st, &e, v, f);
				if (a == KN_AGREE_YES || a == KN_AGREE_REWORDED) { /* name and href agree: nothing weighs more */
					done = 1;
					break;
				}
				if (a == KN_AGREE_NO) {
					snprintf(refused, sizeof refused, "the %s locator found another element: %.200s", f->how,
					         f->why);
				} else if (held_a == KN_AGREE_NO) { /* a drift: held while the other locators look */
					free(held.sel);
					held = *f;
					f->sel = NULL;
					held_a = a;
				} else if (!same_element(&held, f) && (a == KN_AGREE_RELABEL) != (held_a == KN_AGREE_RELABEL)) {
					/* one element has the recorded name, another the recorded href, place and role */
					const struct found *named = a == KN_AGREE_RELABEL ? &held : f, *relabelled = a == KN_AGREE_RELABEL ? f : &held;
					snprintf(refused, sizeof refused,
					         "two elements contradict (%s locator: the recorded name, another href; %s locator: %.150s)",
					         named->how, relabelled->how, relabelled->why);
					contradicted = 1;
				}
				json_array_append_new(skip, json_string(f->how));
				json_object_set_new(p, "until", json_integer(0)); /* the rest of this round: at once */
				json_object_set_new(p, "changed", json_false());
				json_decref(v);
				v = NULL;
				if (contradicted)
					break;
				continue;
			} else if (held_a == KN_AGREE_NO && json_object_get(v, "candidates") && heal(r, st, &e, v, f)) {
				done = 1;
			}
			break;
		}
		json_decref(v);
		if (!done && held_a != KN_AGREE_NO && !contradicted && fb) { /* no locator found a contradiction */
			free(f->sel);
			*f = held;
			held.sel = NULL;
			done = ready_again(r, st, f, timeout - (kn_time_mono_ms() - start));
		}
		if (done) {
			rc = 0;
			break;
		}
		spent = kn_time_mono_ms() - start;
		if (spent > timeout || r->w.detached)
			break;
		/* something was found and refused, or no candidate healed: look again once the DOM changed */
		changed = answered && (json_array_size(skip) > 0 || collect);
		if (!answered) /* the document went away under the call: wait for the next one to come */
			kn_replay_wait_any(&r->w, timeout - spent < 100 ? (int)(timeout - spent) + 1 : 100);
	}
	free(held.sel);
	json_decref(p);
	kn_heal_sig_clear(&e);
	if (rc)
		snprintf(f->why, sizeof f->why, "%.250s", refused);
	return rc;
}

static int mouse(struct rp *r, const char *type, double x, double y, kn_err *err)
{
	return call(r, "Input.dispatchMouseEvent",
	            json_pack("{s:s, s:f, s:f, s:s, s:i, s:i}", "type", type, "x", x, "y", y,
	                      "button", strcmp(type, "mouseMoved") ? "left" : "none", "clickCount",
	                      strcmp(type, "mouseMoved") ? 1 : 0, "buttons",
	                      strcmp(type, "mousePressed") == 0 ? 1 : 0),
	            NULL, err);
}

/* The pointer's arrival may put something over the element (a backdrop, a ripple, a menu closing):
 * like Playwright, the press waits (at most HIT_WAIT_MS) until the element sel names is what the
 * point hits again; past that it presses anyway, as before. */
#define HIT_WAIT_MS 1000
static void wait_hit(struct rp *r, const char *sel)
{
	if (!sel)
		return;
	json_t *v = NULL, *p = json_pack("{s:s, s:i}", "sel", sel, "ms", HIT_WAIT_MS);
	if (p && page(r, "hit", p, &v, NULL) == 0)
		json_decref(v);
	json_decref(p); /* page() borrows its parameters */
}

static int click_at(struct rp *r, double x, double y, const char *sel, kn_err *err)
{
	int rc = mouse(r, "mouseMoved", x, y, err);
	if (!rc)
		wait_hit(r, sel);
	if (!rc)
		rc = mouse(r, "mousePressed", x, y, err);
	if (!rc && r->dialog) /* the release opens a dialog: answer it while the command waits */
		return kn_replay_dialog_answer(r->loop, r->c, r->session, "Input.dispatchMouseEvent",
		                               json_pack("{s:s, s:f, s:f, s:s, s:i, s:i}", "type", "mouseReleased", "x", x,
		                                         "y", y, "button", "left", "clickCount", 1, "buttons", 0),
		                               r->dialog, &r->dialog_answered, err);
	if (!rc)
		rc = mouse(r, "mouseReleased", x, y, err);
	return rc;
}

/* A key press with the fields Chromium needs to run default actions (Enter submits). */
static int press_key(struct rp *r, const char *key, kn_err *err)
{
	static const struct { const char *key, *code, *text; int vk; } keys[] = {
		{"Enter", "Enter", "\r", 13},   {"Tab", "Tab", "", 9},         {"Escape", "Escape", "", 27},
		{"Backspace", "Backspace", "", 8}, {"ArrowDown", "ArrowDown", "", 40},
		{"ArrowUp", "ArrowUp", "", 38}, {"ArrowLeft", "ArrowLeft", "", 37},
		{"ArrowRight", "ArrowRight", "", 39}, {"Space", "Space", " ", 32}};
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		if (strcmp(keys[i].key, key) != 0)
			continue;
		const char *k = strcmp(key, "Space") == 0 ? " " : key;
		int rc = call(r, "Input.dispatchKeyEvent",
		              json_pack("{s:s, s:s, s:s, s:i, s:i, s:s, s:s}", "type",
		                        *keys[i].text ? "keyDown" : "rawKeyDown", "key", k, "code",
		                        keys[i].code, "windowsVirtualKeyCode", keys[i].vk,
		                        "nativeVirtualKeyCode", keys[i].vk, "text", keys[i].text,
		                        "unmodifiedText", keys[i].text),
		              NULL, err);
		if (!rc)
			rc = call(r, "Input.dispatchKeyEvent",
			          json_pack("{s:s, s:s, s:s, s:i}", "type", "keyUp", "key", k, "code",
			                    keys[i].code, "windowsVirtualKeyCode", keys[i].vk),
			          NULL, err);
		return rc;
	}
	return kn_err_set(err, KN_EINVAL, "unknown key '%s'", key);
}

static int history_go(struct rp *r, int delta, kn_err *err)
{
	json_t *h = NULL;
	int rc = call(r, "Page.getNavigationHistory", NULL, &h, err);
	if (rc)
		return rc;
	json_int_t at = json_integer_value(json_object_get(h, "currentIndex")) + delta;
	json_t *entry = json_array_get(json_object_get(h, "entries"), (size_t)at);
	if (at < 0 || !entry)
		rc = kn_err_set(err, KN_EINVAL, "no history entry to go %s to", delta < 0 ? "back" : "forward");
	else
		rc = call(r, "Page.navigateToHistoryEntry",
		          json_pack("{s:I}", "entryId", json_integer_value(json_object_get(entry, "id"))),
		          NULL, err);
	json_decref(h);
	return rc;
}

/* Attach to target_id and make it the tab the next steps act in. */
static int switch_to(struct rp *r, const char *target_id, kn_err *err)
{
	json_t *a = NULL;
	int rc = kn_cdp_call(r->c, NULL, "Target.attachToTarget",
	                     json_pack("{s:s, s:b}", "targetId", target_id, "flatten", 1), &a, err);
	const char *sid = json_string_value(json_object_get(a, "sessionId"));
	char *s = sid ? strdup(sid) : NULL, *t = strdup(target_id);
	if (!rc && (!s || !t))
		rc = kn_err_set(err, KN_EPROTO, "no session for tab %s", target_id);
	json_decref(a);
	if (rc) {
		free(s);
		free(t);
		return rc;
	}
	free(r->session);
	free(r->target_id);
	r->session = s;
	r->target_id = t;
	return kn_replay_wait_attach(&r->w, r->loop, r->c, s, t, err);
}

/* Follow a popup or new tab the step taken at mark m opened from our tab, as an agent would, and
 * wait for its document. 0 also when there is none (not fatal: stay in the tab we have). */
static int follow_popup(struct rp *r, const kn_replay_mark *m, kn_err *err)
{
	char popup[128];
	if (!kn_replay_wait_popup(&r->w, m, popup, sizeof popup))
		return 0;
	int rc = switch_to(r, popup, err);
	if (!rc && r->o.progress)
		fprintf(r->o.progress, "  replay follows the new tab %s\n", popup);
	return rc;
}

static kn_step_outcome not_found(const kn_step *st, const struct found *f, kn_err *err)
{
	kn_err_set(err, KN_ENOTFOUND, "no element for %s%s%s", st->selector ? st->selector : st->text ? st->text : "?",
	           f->why[0] ? " (" : "", f->why[0] ? f->why : "");
	if (f->why[0]) {
		size_t n = strlen(err->msg);
		if (n + 1 < sizeof err->msg)
			strcat(err->msg, ")");
	}
	free(f->sel);
	return KN_STEP_NOT_FOUND;
}

const char *kn_replay_secret(const kn_step *st, char *var, size_t cap)
{
	snprintf(var, cap, "KN_SECRET_%s", st->secret ? st->secret : "");
	return st->secret ? getenv(var) : st->value ? st->value : "";
}

/* type: focus the located element (as fill() does: no click, which would be a step of its own),
 * clear it (select all + a trusted Backspace when it holds text), insert the value. */
static int type_into(struct rp *r, const kn_step *st, const struct found *f, kn_err *err)
{
	char var[96];
	const char *text = kn_replay_secret(st, var, sizeof var);
	if (!text)
		return kn_err_set(err, KN_EINVAL, "%s is not set (the step types the secret %s)", var, st->secret);
	json_t *v = NULL, *p = json_pack("{s:s}", "sel", f->sel ? f->sel : st->selector);
	int rc = p ? page(r, "focus", p, &v, err) : KN_ENOMEM;
	json_decref(p);
	if (!rc && !json_is_object(v))
		rc = kn_err_set(err, KN_ENOTFOUND, "cannot focus %s", st->selector);
	if (!rc && json_is_true(json_object_get(v, "ro")))
		rc = kn_err_set(err, KN_EINVAL, "the field %s is read-only or disabled", st->selector);
	char *before = json_string_value(json_object_get(v, "before")) ? strdup(json_string_value(json_object_get(v, "before"))) : NULL;
	if (!rc && json_integer_value(json_object_get(v, "had")) > 0)
		rc = press_key(r, "Backspace", err);
	json_decref(v);
	if (!rc && *text)
		rc = call(r, "Input.insertText", json_pack("{s:s}", "text", text), NULL, err);
	if (!rc && *text && before) {
		/* a field that ignored the typing (a script resetting it, an inert overlay) fails here,
		 * not at a key node three steps on */
		v = NULL;
		p = json_pack("{s:s}", "sel", f->sel ? f->sel : st->selector);
		if (p && page(r, "value", p, &v, err) == 0) {
			const char *after = json_string_value(json_object_get(v, "value"));
			if (after && strcmp(after, text) != 0 && strcmp(after, before) == 0)
				rc = kn_err_set(err, KN_EINVAL, "the value of %s did not change (still '%.60s')",
				                st->selector, after);
		}
		json_decref(p);
		json_decref(v);
	}
	free(before);
	if (!rc && st->enter)
		rc = press_key(r, "Enter", err);
	return rc;
}

/* select: as Playwright's selectOption: set the option, fire input and change. */
static int select_in(struct rp *r, const kn_step *st, const struct found *f, kn_err *err)
{
	json_t *v = NULL, *p = json_pack("{s:s, s:s}", "sel", f->sel ? f->sel : st->selector, "value",
	                                 st->value ? st->value : "");
	int rc = p ? page(r, "select", p, &v, err) : KN_ENOMEM;
	json_decref(p);
	if (!rc && !json_is_true(v))
		rc = kn_err_set(err, KN_EINVAL, "no option '%s' in %s", st->value, st->selector);
	json_decref(v);
	return rc;
}

/* What a located element says in the step's report: how it was found and its score, the selector
 * proposed when it is not the recorded one, a drift's words, and what the element is now (repair.c),
 * read before the action changes the page. rep->proposed and rep->found_now are rep's. */
static void report_located(struct rp *r, const kn_step *st, const struct found *f, kn_step_report *rep)
{
	rep->locator = f->how;
	rep->score = f->score;
	if (strcmp(f->how, "selector") != 0 && f->sel) /* a selector drift keeps its selector; the */
		rep->proposed = strdup(f->sel);           /* action (type, select) still needs f->sel */
	if (f->drift)
		snprintf(rep->detail, sizeof rep->detail, "drift: %.240s", f->why);
	json_t *v = NULL, *p = rep->proposed || f->drift ? json_pack("{s:s}", "sel", rep->proposed ? rep->proposed : st->selector) : NULL;
	kn_err pe; /* what the element is now, before the action changes the page (repair.c) */
	if (p && page(r, "alts", p, &v, &pe) == 0 && json_is_object(v))
		rep->found_now = json_dumps(v, JSON_COMPACT);
	json_decref(p);
	json_decref(v);
}

/* A goto step's navigation. KN_STEP_OK when Page.navigate answered without an error text (*rc:
 * its code, nonzero when the call itself failed); KN_STEP_NAV_TIMEOUT when it went unanswered (no
 * document committed); KN_STEP_UNREACHABLE, KN_STEP_HTTP_ERROR or KN_STEP_ACTION_FAILED for the
 * error text it answered with. err says why whenever the outcome is not KN_STEP_OK. */
static kn_step_outcome navigate(struct rp *r, const kn_step *st, int *rc, kn_err *err)
{
	json_t *nav = NULL;
	*rc = call(r, "Page.navigate", json_pack("{s:s}", "url", st->value), &nav, err);
	if (*rc == KN_ETIMEOUT) { /* Page.navigate answers once the document committed */
		r->nav_unanswered = 1;
		kn_err_set(err, KN_ETIMEOUT, "the page did not load (Page.navigate unanswered: no document committed)");
		json_decref(nav);
		return KN_STEP_NAV_TIMEOUT;
	}
	const char *fail = json_string_value(json_object_get(nav, "errorText"));
	kn_step_outcome o = KN_STEP_OK;
	if (!*rc && fail && *fail) {
		kn_err_set(err, KN_EIO, "navigation to %s failed: %s", st->value, fail);
		o = kn_net_error_unreachable(fail) ? KN_STEP_UNREACHABLE
		    : strstr(fail, "ERR_HTTP_RESPONSE_CODE_FAILURE") ? KN_STEP_HTTP_ERROR
		                                                      : KN_STEP_ACTION_FAILED;
	}
	json_decref(nav);
	return o;
}

static kn_step_outcome run_step_in(struct rp *r, const kn_step *st, kn_replay_result *res,
                                   kn_step_report *rep, kn_err *err)
{
	struct found f = {0};
	int rc = 0, located = 0, flags = 0;
	kn_replay_mark mark;
	switch (st->verb) {
	case KN_STEP_CLICK:
	case KN_STEP_TYPE:
	case KN_STEP_SELECT:
		if (locate(r, st, &f))
			return not_found(st, &f, err);
		located = 1;
		break;
	case KN_STEP_WAIT:
		if (st->selector) {
			if (locate(r, st, &f))
				return not_found(st, &f, err);
			located = 1;
		}
		break;
	default:
		break;
	}
	if (located)
		report_located(r, st, &f, rep);
	if (st->verb == KN_STEP_CLICK || st->verb == KN_STEP_TYPE || st->verb == KN_STEP_SELECT ||
	    st->verb == KN_STEP_PRESS || st->verb == KN_STEP_SCROLL)
		kn_replay_wait_dom_mark(&r->w, kn_selector_chain_sep(st->selector, 0) < 0); /* settling asks
		   whether the action changed the DOM (in a frame: its work is not the top document's) */
	kn_replay_wait_mark(&r->w, &mark); /* what the action starts is what comes after this */
	switch (st->verb) {
	case KN_STEP_GOTO: {
		flags = KN_SETTLE_NAV;
		kn_step_outcome o = navigate(r, st, &rc, err);
		if (o != KN_STEP_OK) {
			free(f.sel);
			return o;
		}
		break;
	}
	case KN_STEP_CLICK: {
		double dx = 0, dy = 0; /* a point in a frame: add the frame's origin */
		if (r->fr.depth)
			rc = kn_replay_frame_offset(&r->fr, r->c, &dx, &dy, err);
		if (!rc)
			rc = click_at(r, f.x + dx, f.y + dy, f.sel, err);
		break;
	}
	case KN_STEP_TYPE:
		rc = type_into(r, st, &f, err);
		break;
	case KN_STEP_SELECT:
		rc = select_in(r, st, &f, err);
		break;
	case KN_STEP_PRESS:
		rc = press_key(r, st->value ? st->value : "", err);
		break;
	case KN_STEP_SCROLL:
		rc = call(r, "Input.dispatchMouseEvent",
		          json_pack("{s:s, s:i, s:i, s:i, s:i}", "type", "mouseWheel", "x", 100, "y", 100,
		                    "deltaX", 0, "deltaY",
		                    (st->value && strcmp(st->value, "up") == 0 ? -1 : 1) * (st->scroll_px > 0 ? (int)st->scroll_px : 500)),
		          NULL, err);
		pause_ms(r, 600); /* a scroll burst ends after the recorder's debounce */
		break;
	case KN_STEP_WAIT:
		if (!st->selector)
			pause_ms(r, (int)st->wait_ms);
		break;
	case KN_STEP_BACK:
	case KN_STEP_FORWARD:
		flags = KN_SETTLE_NAV;
		rc = history_go(r, st->verb == KN_STEP_BACK ? -1 : 1, err);
		break;
	case KN_STEP_DIALOG: /* answered during the step before (click_at) */
		if (!r->dialog_answered)
			rc = kn_err_set(err, KN_ENOTFOUND, "no dialog opened to %s", st->value);
		r->dialog_answered = 0;
		break;
	case KN_STEP_ANSWER:
		res->answer = st->value;
		if (r->o.answers && st->value) {
			fprintf(r->o.answers, "%s\n", st->value);
			fflush(r->o.answers);
		}
		if (r->o.on_answer && st->value)
			r->o.on_answer(r->o.ud, st->value);
		break;
	}
	free(f.sel);
	f.sel = NULL;
	kn_replay_frame_clear(&r->fr, r->c); /* settling and status are the tab's */
	if (rc)
		return KN_STEP_ACTION_FAILED;
	if (st->verb == KN_STEP_ANSWER)
		return KN_STEP_OK;
	/* a recorded postcondition is waited for itself; without one, an action that changed nothing
	 * yet is given a window to (wait.c) */
	int post = st->expect_url || st->navigated == 1 || st->expect_value;
	/* timed_out: settling ran past settle_ms (KN_ETIMEOUT), 0 when the page settled */
	int timed_out = settle(r, &mark, flags | (post ? KN_SETTLE_NO_WAIT_FIRST : 0)), switched = 0;
	if (st->verb == KN_STEP_CLICK || st->verb == KN_STEP_PRESS) { /* a popup or new tab it opened */
		char was[128];
		snprintf(was, sizeof was, "%s", r->target_id);
		if (follow_popup(r, &mark, err))
			return KN_STEP_ACTION_FAILED;
		if ((switched = strcmp(was, r->target_id) != 0) != 0) {
			kn_replay_wait_mark(&r->w, &mark);
			timed_out = settle(r, &mark, KN_SETTLE_NEW_TAB);
		}
	}
	if (!timed_out && post && !switched)
		timed_out = wait_postcondition(r, st, &mark);
	if (timed_out && kn_replay_wait_in_place(&r->w) == 1) {
		/* slow is not changed: the document is there and parsed, only its `load` (an ad, a
		 * tracker, a slow image) or its network is late; the next step's locate wait and the
		 * key nodes judge the page */
		rep->unsettled = 1;
		timed_out = 0;
	}
	if (timed_out) {
		kn_err_set(err, KN_ETIMEOUT, "the page did not load within %d ms (%s)", r->wt.settle_ms,
		           r->w.detached ? "the tab went away" : r->w.uncommitted || r->w.nav_pending
		                                                        ? "no document committed"
		                                                        : "its document not parsed");
		return KN_STEP_NAV_TIMEOUT;
	}
	/* a site refusing service is not a broken workflow (blocked.h) */
	if (kn_blocked_probe(&res->blocked, r->loop, r->c, r->session, r->o.blocked,
	                     st->verb == KN_STEP_GOTO ? st->value : NULL) == 1) {
		kn_err_set(err, KN_EIO, "blocked (%s) at %s", res->blocked.signature, res->blocked.url);
		return KN_STEP_BLOCKED;
	}
	char url[1024];
	int status = page_status(r, url, sizeof url);
	if (url[0])
		rep->url_after = strdup(url);
	if (status >= 400) {
		kn_err_set(err, KN_EIO, "HTTP %d at %s", status, url);
		return KN_STEP_HTTP_ERROR;
	}
	/* a page not settled may still be rendering what its data brings: not judged on what it shows */
	if (!rep->unsettled && page_shows_error(r, st, &mark, res, err))
		return KN_STEP_PAGE_ERROR;
	return located && (strcmp(rep->locator, "selector") != 0 || f.drift) ? KN_STEP_OK_FALLBACK : KN_STEP_OK;
}

/* The page shows an error the step's recording did not have (page_error.c): its words in err, the
 * request that counts in res (the broken evidence). */
static int page_shows_error(struct rp *r, const kn_step *st, const kn_replay_mark *mark,
                            kn_replay_result *res, kn_err *err)
{
	kn_replay_page_verdict v;
	if (!kn_replay_page_error(&r->w, r->task, st, mark, &v))
		return 0;
	char said[96] = "";
	if (v.shows_error)
		snprintf(said, sizeof said, "%sthe page says '%s'", v.url[0] ? "; " : "", v.phrase);
	if (v.url[0] && v.status)
		kn_err_set(err, KN_EIO, "data request %.160s answered %d%s", v.url, v.status, said);
	else if (v.url[0])
		kn_err_set(err, KN_EIO, "data request %.160s failed (network)%s", v.url, said);
	else
		kn_err_set(err, KN_EIO, "%s, which the recording's page did not", said);
	free(res->error_request);
	res->error_request = v.url[0] ? strdup(v.url) : NULL;
	res->error_status = v.status;
	return 1;
}

/* The viewport the replay runs at: --viewport, else the workflow's recorded one, else the default
 * (a responsive site must not fold its search box into an icon at another width). */
static int set_viewport(struct rp *r, const kn_task *task, kn_err *err)
{
	int w = r->o.viewport_w ? r->o.viewport_w : task->viewport_w ? task->viewport_w : KN_VIEWPORT_DEFAULT_W;
	int h = r->o.viewport_h ? r->o.viewport_h : task->viewport_h ? task->viewport_h : KN_VIEWPORT_DEFAULT_H;
	return call(r, "Emulation.setDeviceMetricsOverride",
	            json_pack("{s:i, s:i, s:f, s:b}", "width", w, "height", h, "deviceScaleFactor", 1.0,
	                      "mobile", 0),
	            NULL, err);
}

/* A step whose selector crosses into frames (`#card-frame >> #pay-now`) runs with the part inside
 * the innermost frame as its selector, located and acted on there; shadow hops (`#host >> #inner`)
 * are resolved by the page calls (frames.c). */
static kn_step_outcome run_step(struct rp *r, const kn_step *st, kn_replay_result *res,
                                kn_step_report *rep, kn_err *err)
{
	kn_step in_frame;
	if (st->selector && kn_replay_frame_enter_wait(&r->fr, r->loop, r->c, r->session, st->selector,
	                                               kn_replay_element_timeout(&r->o),
	                                               err) != 0) {
		struct found none = {0};
		return not_found(st, &none, err);
	}
	r->framed = r->fr.rest != NULL;
	if (r->fr.rest) {
		in_frame = *st;
		in_frame.selector = r->fr.rest;
		st = &in_frame;
	}
	kn_step_outcome o = run_step_in(r, st, res, rep, err);
	kn_replay_frame_clear(&r->fr, r->c);
	return o;
}

/* run_step, and a failure that would say the site changed (an element not found, an action that
 * failed, an error page) while the browser left a DevTools command unanswered — other than a goto's
 * Page.navigate, which waits for the site — is the browser's (an overloaded or frozen browser, its
 * host lost), not the site's. A navigation timeout stays one: a page call into a tab whose document
 * has not come may wait for it (the site's slowness, already an error). */
static kn_step_outcome run_step_judged(struct rp *r, const kn_step *st, kn_replay_result *res,
                                       kn_step_report *rep, kn_err *err)
{
	kn_cdp_stats before, after;
	kn_cdp_get_stats(r->c, &before);
	r->nav_unanswered = 0;
	kn_step_outcome o = run_step(r, st, res, rep, err);
	kn_cdp_get_stats(r->c, &after);
	if ((o != KN_STEP_NOT_FOUND && o != KN_STEP_ACTION_FAILED && o != KN_STEP_HTTP_ERROR &&
	     o != KN_STEP_PAGE_ERROR) ||
	    after.timeouts - before.timeouts <= (unsigned long long)r->nav_unanswered)
		return o;
	char was[sizeof err->msg];
	snprintf(was, sizeof was, "%s", err->msg);
	kn_err_set(err, KN_ETIMEOUT, "the browser did not answer %llu command(s) in time (%s: %.180s)",
	           after.timeouts - before.timeouts - (unsigned long long)r->nav_unanswered,
	           kn_step_outcome_name(o), was);
	return KN_STEP_BROWSER_TIMEOUT;
}

/* While opts.before_step holds the replay (a person took over its page), serve the loop. */
static void hold(struct rp *r, size_t i, const kn_step *st)
{
	while (r->o.before_step && r->o.before_step(r->o.step_ud, i, st) && !kn_cdp_loop_stopped(r->loop))
		kn_cdp_loop_run_for(r->loop, 100);
}

/* kn_replay_task once the waiter listens: the tab, the viewport, each step. */
static int replay_steps(struct rp *r, const kn_task *task, kn_replay_result *res, kn_err *err)
{
	int rc = 0;
	if (r->o.target_id) {
		rc = switch_to(r, r->o.target_id, err);
	} else {
		json_t *t = NULL;
		rc = kn_cdp_call(r->c, NULL, "Target.createTarget", json_pack("{s:s}", "url", "about:blank"), &t, err);
		const char *tid = json_string_value(json_object_get(t, "targetId"));
		if (!rc)
			rc = tid ? switch_to(r, tid, err) : kn_err_set(err, KN_EPROTO, "no target for the replay tab");
		json_decref(t);
	}
	if (rc)
		return rc;
	if ((rc = set_viewport(r, task, err)) != 0)
		return rc;
	for (size_t i = 0; i < task->n_steps; i++) {
		const kn_step *st = &task->steps[i];
		kn_step_report *rep = &res->steps[i];
		kn_err e = {0};
		hold(r, i, st);
		r->dialog = i + 1 < task->n_steps && task->steps[i + 1].verb == KN_STEP_DIALOG ? &task->steps[i + 1] : NULL;
		kn_step_outcome o = run_step_judged(r, st, res, rep, &e);
		rep->outcome = o;
		res->n_steps = i + 1;
		if (!kn_step_outcome_ok(o))
			snprintf(rep->detail, sizeof rep->detail, "%.255s", e.msg);
		if (r->o.progress) {
			fprintf(r->o.progress, "  replay %s step %zu/%zu %-7s %s: %s", task->id, i + 1, task->n_steps,
			        kn_step_verb_name(st->verb), st->selector ? st->selector : st->value ? st->value : "",
			        kn_step_outcome_name(o));
			if (o == KN_STEP_OK_FALLBACK)
				fprintf(r->o.progress, " (by %s, score %.2f) — drift: propose %s", rep->locator, rep->score,
				        rep->proposed ? rep->proposed : "?");
			else if (!kn_step_outcome_ok(o))
				fprintf(r->o.progress, " — %s", e.msg);
			if (rep->unsettled)
				fprintf(r->o.progress, " (not settled within %d ms: went on, its document in place)",
				        r->wt.settle_ms);
			fputc('\n', r->o.progress);
			fflush(r->o.progress);
		}
		if (!kn_step_outcome_ok(o)) {
			res->failed_step = (int)i + 1;
			snprintf(res->detail, sizeof res->detail, "%.255s", e.msg);
			rc = kn_err_set(err, KN_EINVAL, "step %zu (%s): %s", i + 1, kn_step_verb_name(st->verb), e.msg);
			if (r->o.evidence && o != KN_STEP_UNREACHABLE)
				kn_replay_capture(r->c, r->session, st->selector, &res->evidence);
			break;
		}
		if (r->o.step_delay_ms)
			pause_ms(r, r->o.step_delay_ms);
	}
	if (!rc)
		hold(r, task->n_steps, NULL);
	return rc;
}

int kn_replay_task(kn_cdp_loop *loop, kn_cdp *c, kn_replay_link *link, const kn_task *task,
                   const kn_replay_opts *opts, kn_replay_result *res, kn_err *err)
{
	memset(res, 0, sizeof *res);
	struct rp r = {.loop = loop, .c = c, .task = task};
	if (opts)
		r.o = *opts;
	if (task->n_steps == 0)
		return kn_err_set(err, KN_EINVAL, "task '%s' has no steps to replay", task->id);
	if (!(res->steps = calloc(task->n_steps, sizeof *res->steps)))
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	r.w.loop = loop;
	r.w.c = c;
	link->waiter = &r.w;
	kn_err e;
	json_t *v = NULL; /* new tabs (popups) are reported to the waiter */
	int rc = kn_cdp_call(c, NULL, "Target.setDiscoverTargets", json_pack("{s:b}", "discover", 1), &v, &e);
	json_decref(v);
	r.wt = kn_replay_waits_resolve(&r.o.wait);
	if (rc)
		rc = kn_err_set(err, rc, "%s", e.msg);
	else
		rc = replay_steps(&r, task, res, err);
	/* before "key node not reached": what the page was still doing (a timer, a script) finishes */
	if (!rc && r.o.reached_all && r.wt.grace_ms > 0 && !r.o.reached_all(r.o.ud))
		kn_cdp_loop_run_until(loop, r.wt.grace_ms, r.o.reached_all, r.o.ud);
	link->waiter = NULL;
	kn_replay_wait_clear(&r.w);
	res->target_id = r.target_id;
	free(r.session);
	return rc;
}
