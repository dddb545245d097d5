/* replay.c — the basic replayer (replay.h): one new tab, each reference step located with a
 * bounded wait and performed with trusted Input.* events, the page left to settle after it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"

struct rp {
	kn_cdp_loop *loop;
	kn_cdp *c;
	char *session;
	char *target_id;
	kn_replay_opts o;
};

const char *kn_step_outcome_name(kn_step_outcome o)
{
	static const char *const names[] = {"ok", "element not found", "action failed",
	                                    "navigation timeout"};
	return (unsigned)o <= KN_STEP_NAV_TIMEOUT ? names[o] : "?";
}

void kn_replay_result_clear(kn_replay_result *res)
{
	free(res->outcomes);
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

/* Evaluate expr in the page; *value is the caller's (may be JSON null). An exception or a
 * destroyed context (the page is navigating) is KN_EPROTO. */
static int eval_js(struct rp *r, const char *expr, json_t **value, kn_err *err)
{
	json_t *res = NULL;
	*value = NULL;
	int rc = call(r, "Runtime.evaluate",
	              json_pack("{s:s, s:b, s:b}", "expression", expr, "returnByValue", 1,
	                        "awaitPromise", 0),
	              &res, err);
	if (rc)
		return rc;
	if (json_object_get(res, "exceptionDetails")) {
		json_decref(res);
		return kn_err_set(err, KN_EPROTO, "script exception");
	}
	json_t *v = json_object_get(json_object_get(res, "result"), "value");
	*value = v ? json_incref(v) : json_null();
	json_decref(res);
	return 0;
}

/* JSON-quote s for use inside a JavaScript expression. Caller frees. */
static char *js_quote(const char *s)
{
	json_t *j = json_string(s ? s : "");
	char *q = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
	json_decref(j);
	return q;
}

static void pause_ms(struct rp *r, int ms)
{
	kn_cdp_loop_run_for(r->loop, ms);
}

/* Wait until the document has loaded (bounded). */
static int settle(struct rp *r)
{
	int timeout = r->o.settle_timeout_ms ? r->o.settle_timeout_ms : 10000;
	pause_ms(r, 150); /* let a navigation the action caused begin */
	for (int waited = 0; waited < timeout; waited += 100) {
		json_t *v = NULL;
		kn_err e;
		if (eval_js(r, "document.readyState", &v, &e) == 0 && json_is_string(v) &&
		    strcmp(json_string_value(v), "complete") == 0) {
			json_decref(v);
			return 0;
		}
		json_decref(v);
		pause_ms(r, 100);
	}
	return KN_ETIMEOUT;
}

/* Find the step's element (selector, then exact visible text), scroll it into view, and give its
 * centre. Waits up to the element timeout. */
static int locate(struct rp *r, const kn_step *st, double *x, double *y)
{
	char *sel = js_quote(st->selector), *text = js_quote(st->text);
	size_t n = (sel ? strlen(sel) : 0) + (text ? strlen(text) : 0) + 1024;
	char *expr = malloc(n);
	int rc = KN_ENOTFOUND;
	if (!sel || !text || !expr)
		goto out;
	snprintf(expr, n,
	         "(() => { const sel = %s, text = %s; let el = null;"
	         " try { el = sel ? document.querySelector(sel) : null; } catch (e) {}"
	         " if (!el && text) for (const c of document.querySelectorAll("
	         "'a,button,input[type=submit],[role=button],[role=link],label,li,span,div')) {"
	         "  if ((c.innerText || c.value || '').trim() === text) { el = c; break; } }"
	         " if (!el) return null;"
	         " el.scrollIntoView({block: 'center', inline: 'center'});"
	         " const b = el.getBoundingClientRect();"
	         " if (b.width === 0 && b.height === 0) return null;"
	         " return [b.x + b.width / 2, b.y + b.height / 2]; })()",
	         sel, text);
	int timeout = r->o.element_timeout_ms ? r->o.element_timeout_ms : 5000;
	for (int waited = 0; waited <= timeout; waited += 100) {
		json_t *v = NULL;
		kn_err e;
		if (eval_js(r, expr, &v, &e) == 0 && json_is_array(v)) {
			*x = json_number_value(json_array_get(v, 0));
			*y = json_number_value(json_array_get(v, 1));
			json_decref(v);
			rc = 0;
			break;
		}
		json_decref(v);
		pause_ms(r, 100);
	}
out:
	free(sel);
	free(text);
	free(expr);
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

static int click_at(struct rp *r, double x, double y, kn_err *err)
{
	int rc = mouse(r, "mouseMoved", x, y, err);
	if (!rc)
		rc = mouse(r, "mousePressed", x, y, err);
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
	return 0;
}

/* Follow a popup or new tab the last step opened from our tab, as an agent would. */
static int follow_popup(struct rp *r, kn_err *err)
{
	json_t *res = NULL, *ti;
	size_t i;
	if (kn_cdp_call(r->c, NULL, "Target.getTargets", NULL, &res, err) != 0)
		return 0; /* not fatal: stay in the tab we have */
	const char *popup = NULL;
	json_array_foreach(json_object_get(res, "targetInfos"), i, ti) {
		const char *type = json_string_value(json_object_get(ti, "type"));
		const char *opener = json_string_value(json_object_get(ti, "openerId"));
		if (type && strcmp(type, "page") == 0 && opener && strcmp(opener, r->target_id) == 0)
			popup = json_string_value(json_object_get(ti, "targetId")); /* the newest is last */
	}
	int rc = 0;
	if (popup) {
		rc = switch_to(r, popup, err);
		if (!rc && r->o.progress)
			fprintf(r->o.progress, "  replay follows the new tab %s\n", popup);
	}
	json_decref(res);
	return rc;
}

static kn_step_outcome not_found(const kn_step *st, kn_err *err)
{
	kn_err_set(err, KN_ENOTFOUND, "no element for %s", st->selector ? st->selector : st->text ? st->text : "?");
	return KN_STEP_NOT_FOUND;
}

static kn_step_outcome run_step(struct rp *r, const kn_step *st, kn_replay_result *res, kn_err *err)
{
	double x = 0, y = 0;
	int rc = 0;
	switch (st->verb) {
	case KN_STEP_GOTO: {
		json_t *nav = NULL;
		rc = call(r, "Page.navigate", json_pack("{s:s}", "url", st->value), &nav, err);
		const char *fail = json_string_value(json_object_get(nav, "errorText"));
		if (!rc && fail && *fail)
			rc = kn_err_set(err, KN_EIO, "navigation failed: %s", fail);
		json_decref(nav);
		break;
	}
	case KN_STEP_CLICK:
		if (locate(r, st, &x, &y))
			return not_found(st, err);
		rc = click_at(r, x, y, err);
		break;
	case KN_STEP_TYPE: {
		if (locate(r, st, &x, &y))
			return not_found(st, err);
		/* focus the field (as fill() does: no click, which would be a step of its own) and
		 * select what it holds so the inserted text replaces it */
		char *sel = js_quote(st->selector);
		size_t n = (sel ? strlen(sel) : 0) + 256;
		char *expr = malloc(n);
		json_t *v = NULL;
		if (sel && expr) {
			snprintf(expr, n,
			         "(() => { const e = document.querySelector(%s); if (!e) return false;"
			         " e.focus(); if (e.select) e.select(); return true; })()",
			         sel);
			rc = eval_js(r, expr, &v, err);
			if (!rc && !json_is_true(v))
				rc = kn_err_set(err, KN_ENOTFOUND, "cannot focus %s", st->selector);
		} else {
			rc = KN_ENOMEM;
		}
		json_decref(v);
		free(sel);
		free(expr);
		if (!rc && st->value && *st->value)
			rc = call(r, "Input.insertText", json_pack("{s:s}", "text", st->value), NULL, err);
		if (!rc && st->enter)
			rc = press_key(r, "Enter", err);
		break;
	}
	case KN_STEP_SELECT: {
		if (locate(r, st, &x, &y))
			return not_found(st, err);
		char *sel = js_quote(st->selector), *val = js_quote(st->value);
		size_t n = (sel ? strlen(sel) : 0) + (val ? strlen(val) : 0) + 512;
		char *expr = malloc(n);
		json_t *v = NULL;
		if (sel && val && expr) {
			/* as Playwright's selectOption: set the option, fire input and change */
			snprintf(expr, n,
			         "(() => { const el = document.querySelector(%s), v = %s; if (!el) return false;"
			         " el.focus(); for (const o of el.options) if (o.value === v || o.text.trim() === v) {"
			         " el.value = o.value; el.dispatchEvent(new Event('input', {bubbles: true}));"
			         " el.dispatchEvent(new Event('change', {bubbles: true})); return true; } return false; })()",
			         sel, val);
			rc = eval_js(r, expr, &v, err);
			if (!rc && !json_is_true(v))
				rc = kn_err_set(err, KN_EINVAL, "no option '%s' in %s", st->value, st->selector);
		} else {
			rc = KN_ENOMEM;
		}
		json_decref(v);
		free(sel);
		free(val);
		free(expr);
		break;
	}
	case KN_STEP_PRESS:
		rc = press_key(r, st->value ? st->value : "", err);
		break;
	case KN_STEP_SCROLL:
		rc = call(r, "Input.dispatchMouseEvent",
		          json_pack("{s:s, s:i, s:i, s:i, s:i}", "type", "mouseWheel", "x", 100, "y", 100,
		                    "deltaX", 0, "deltaY", st->value && strcmp(st->value, "up") == 0 ? -500 : 500),
		          NULL, err);
		pause_ms(r, 600); /* a scroll burst ends after the recorder's debounce */
		break;
	case KN_STEP_WAIT:
		if (st->selector) {
			if (locate(r, st, &x, &y))
				return not_found(st, err);
		} else {
			pause_ms(r, (int)st->wait_ms);
		}
		break;
	case KN_STEP_BACK:
	case KN_STEP_FORWARD:
		rc = history_go(r, st->verb == KN_STEP_BACK ? -1 : 1, err);
		break;
	case KN_STEP_ANSWER:
		res->answer = st->value;
		if (r->o.answers && st->value) {
			fprintf(r->o.answers, "%s\n", st->value);
			fflush(r->o.answers);
		}
		break;
	}
	if (!rc && (st->verb == KN_STEP_CLICK || st->verb == KN_STEP_PRESS)) {
		pause_ms(r, 150); /* a popup opens asynchronously */
		rc = follow_popup(r, err);
	}
	if (rc)
		return KN_STEP_ACTION_FAILED;
	if (settle(r)) {
		kn_err_set(err, KN_ETIMEOUT, "page did not finish loading");
		return KN_STEP_NAV_TIMEOUT;
	}
	return KN_STEP_OK;
}

int kn_replay_task(kn_cdp_loop *loop, kn_cdp *c, const kn_task *task, const kn_replay_opts *opts,
                   kn_replay_result *res, kn_err *err)
{
	memset(res, 0, sizeof *res);
	struct rp r = {.loop = loop, .c = c};
	if (opts)
		r.o = *opts;
	if (task->n_steps == 0)
		return kn_err_set(err, KN_EINVAL, "task '%s' has no steps to replay", task->id);
	if (!(res->outcomes = calloc(task->n_steps, sizeof *res->outcomes)))
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	json_t *t = NULL;
	int rc = kn_cdp_call(c, NULL, "Target.createTarget", json_pack("{s:s}", "url", "about:blank"), &t, err);
	const char *tid = json_string_value(json_object_get(t, "targetId"));
	if (!rc)
		rc = tid ? switch_to(&r, tid, err) : kn_err_set(err, KN_EPROTO, "no target for the replay tab");
	json_decref(t);
	if (rc)
		return rc;
	for (size_t i = 0; i < task->n_steps; i++) {
		const kn_step *st = &task->steps[i];
		kn_err e = {0};
		kn_step_outcome o = run_step(&r, st, res, &e);
		res->outcomes[i] = o;
		res->n_steps = i + 1;
		if (r.o.progress)
			fprintf(r.o.progress, "  replay %s step %zu/%zu %-7s %s: %s%s%s\n", task->id, i + 1,
			        task->n_steps, kn_step_verb_name(st->verb),
			        st->selector ? st->selector : st->value ? st->value : "",
			        kn_step_outcome_name(o), o ? " — " : "", o ? e.msg : "");
		if (o != KN_STEP_OK) {
			res->failed_step = (int)i + 1;
			snprintf(res->detail, sizeof res->detail, "%.255s", e.msg);
			rc = kn_err_set(err, KN_EINVAL, "step %zu (%s): %s", i + 1,
			                kn_step_verb_name(st->verb), e.msg);
			break;
		}
		if (r.o.step_delay_ms)
			pause_ms(&r, r.o.step_delay_ms);
	}
	free(r.session);
	free(r.target_id);
	return rc;
}
