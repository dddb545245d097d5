/* validate.c — replay validation (replay.h kn_replay_validate): a fresh browser context, the
 * monitor watching it and scoring the run with the evaluator, the replayer acting in it, and the
 * verdict — passed / broken / error — with per-step locators, drift warnings, per-key-node
 * reached flags and the evidence of a failure, as one JSON report. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "keynode/clock.h"
#include "heal.h"
#include "held.h"
#include "repair.h"
#include "keynode/workflow.h"
#include "log.h"
#include "canary.h"
#include "monitor.h"
#include "replay.h"
#include "replay_internal.h"

/* The report: its verdict and failure as fields (what callers read), and its one JSON form, built
 * once by build() (the run result tree with the replay's members) and written by redump(). */
struct kn_replay_report {
	json_t *doc;
	char *json;
	unsigned char *png;
	size_t png_len;
	char *run_id;
	kn_replay_status status;
	kn_replay_failure fail;   /* its strings are the report's: */
	char *fail_key_node, *fail_reason, *fail_detail;
	kn_blocked_hit blocked;
};

const char *kn_replay_status_name(kn_replay_status s)
{
	return s == KN_REPLAY_PASSED ? "passed" : s == KN_REPLAY_BROKEN ? "broken"
	       : s == KN_REPLAY_BLOCKED ? "blocked" : "error";
}

kn_replay_status kn_replay_report_status(const kn_replay_report *r) { return r->status; }
const char *kn_replay_report_json(const kn_replay_report *r) { return r->json; }
const char *kn_replay_report_run_id(const kn_replay_report *r) { return r->run_id; }

const kn_replay_failure *kn_replay_report_failure(const kn_replay_report *r)
{
	return r->status == KN_REPLAY_PASSED ? NULL : &r->fail;
}

/* Record the failure's fields (copied; NULL stays NULL). 0, or KN_ENOMEM. */
static int set_failure(kn_replay_report *r, int step, const char *key_node, const char *reason,
                       const char *detail)
{
	r->fail.step = step;
	r->fail.key_node = r->fail_key_node = key_node ? strdup(key_node) : NULL;
	r->fail.reason = r->fail_reason = reason ? strdup(reason) : NULL;
	r->fail.detail = r->fail_detail = detail ? strdup(detail) : NULL;
	return (key_node && !r->fail_key_node) || (reason && !r->fail_reason) ||
	       (detail && !r->fail_detail) ? KN_ENOMEM : 0;
}

const unsigned char *kn_replay_report_screenshot(const kn_replay_report *r, size_t *len)
{
	*len = r->png_len;
	return r->png;
}

static int redump(kn_replay_report *r)
{
	char *j = json_dumps(r->doc, JSON_COMPACT | JSON_REAL_PRECISION(15));
	if (!j)
		return KN_ENOMEM;
	free(r->json);
	r->json = j;
	return 0;
}

int kn_replay_report_set_screenshot_name(kn_replay_report *r, const char *name)
{
	json_t *b = json_object_get(r->doc, "broken");
	if (!b)
		b = json_object_get(r->doc, "blocked");
	if (!json_is_object(b))
		return KN_EINVAL;
	json_object_set_new(b, "screenshot", json_string(name));
	return redump(r);
}

int kn_replay_report_set_workflow(kn_replay_report *r, const char *workflow_json)
{
	json_t *w = json_loads(workflow_json, 0, NULL);
	if (!json_is_object(w)) {
		json_decref(w);
		return KN_EINVAL;
	}
	json_object_set_new(r->doc, "workflow", w);
	return redump(r);
}

size_t kn_replay_report_drift(const kn_replay_report *r, size_t i, int *step, const char **selector,
                              const char **proposed)
{
	json_t *d = json_object_get(json_object_get(r->doc, "replay"), "drift");
	json_t *o = json_array_get(d, i);
	if (o) {
		*step = (int)json_integer_value(json_object_get(o, "step"));
		*selector = json_string_value(json_object_get(o, "selector"));
		*proposed = json_string_value(json_object_get(o, "proposed_selector"));
	}
	return json_array_size(d);
}

void kn_replay_report_free(kn_replay_report *r)
{
	if (!r)
		return;
	json_decref(r->doc);
	free(r->json);
	free(r->png);
	free(r->run_id);
	free(r->fail_key_node);
	free(r->fail_reason);
	free(r->fail_detail);
	free(r);
}

struct attached {
	kn_monitor *m;
	int ready;
	size_t pages;
	kn_held_check held; /* a guarded workflow's recorded requests (held.h) */
};

static void monitor_ready(void *ud, kn_monitor *m)
{
	(void)m;
	((struct attached *)ud)->ready = 1;
}

/* Each request the page sent, in clear (on_event_clear): held ones against the workflow's. */
static void monitor_event(void *ud, kn_monitor *m, const kn_event *ev, int rises)
{
	(void)m;
	(void)rises;
	if (ev->type == KN_EV_REQUEST && ev->request)
		kn_held_check_seen(&((struct attached *)ud)->held, ev->request);
}

static int monitor_ended(void *ud) { return kn_monitor_ended(ud); }

/* The monitor watches every page that was open when it connected, its recorder installed. */
static int monitor_attached(void *ud)
{
	const struct attached *a = ud;
	return kn_monitor_ended(a->m) || (a->ready && kn_monitor_events(a->m) >= a->pages);
}

static void monitor_answer(void *ud, const char *text)
{
	if (ud)
		kn_monitor_answer(ud, text);
}

/* Every key node the page can reach (URL and element ones; answers and page checks are judged at
 * the end) reached, as the monitor has scored the run so far. */
static int monitor_reached_all(void *ud)
{
	const kn_eval *ev = ud ? kn_monitor_eval(ud) : NULL;
	const kn_task *t = ev ? kn_eval_task(ev) : NULL;
	for (size_t i = 0; t && i < t->n_keynodes; i++) {
		kn_target g = t->keynodes[i].target;
		if ((g == KN_TARGET_URL || g == KN_TARGET_ELEMENT_PATH || g == KN_TARGET_ELEMENT_VALUE) &&
		    kn_eval_node(ev, i)->score < 1.0)
			return 0;
	}
	return 1;
}

/* The run result of the watched run (docs/formats.md §3), or a bare one when there was no run. */
static json_t *run_result(const kn_task *task, const kn_monitor *m, const char *run_id)
{
	json_t *doc = m ? kn_eval_result_json(kn_monitor_eval(m), run_id) : NULL;
	if (!doc)
		doc = json_pack("{s:s, s:s, s:i, s:i, s:I, s:f, s:b, s:[], s:[]}", "task", task->id, "run",
		                run_id, "steps", 0, "reached", 0, "total", (json_int_t)task->n_keynodes,
		                "score", 0.0, "completion", 0, "step_scores", "key_nodes");
	return doc;
}

static int postcondition_holds(const kn_step *st, const kn_step_report *s)
{
	if (!st->expect_url || !s->url_after)
		return 1;
	return kn_replay_url_agrees(st->expect_url, s->url_after);
}

/* A key node was not reached although every step "worked": the first step that no longer does
 * what it did when recorded (its postcondition failed, or it drifted) is where the workflow
 * broke. 0 when none. *why says which. */
static int attribute_step(const kn_task *task, const kn_replay_result *res, char *why, size_t n)
{
	for (size_t i = 0; i < res->n_steps; i++) {
		const kn_step *st = &task->steps[i];
		const kn_step_report *s = &res->steps[i];
		if (!postcondition_holds(st, s)) {
			snprintf(why, n, "step %zu ended at %.200s, recorded %.200s", i + 1, s->url_after, st->expect_url);
			return (int)i + 1;
		}
		if (s->outcome == KN_STEP_OK_FALLBACK) {
			snprintf(why, n, "step %zu drifted (%s%s%.200s)", i + 1, s->locator ? s->locator : "?",
			         s->detail[0] ? "; " : "", s->detail);
			return (int)i + 1;
		}
	}
	return 0;
}

static kn_replay_report *build(const kn_task *task, const kn_monitor *m, const char *run_id,
                               const kn_replay_result *res, kn_replay_status status,
                               const char *error_reason, int broken_node)
{
	kn_replay_report *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	r->status = status;
	r->run_id = strdup(run_id);
	r->doc = run_result(task, m, run_id);
	if (!r->run_id || !r->doc) {
		kn_replay_report_free(r);
		return NULL;
	}
	json_object_set_new(r->doc, "status", json_string(kn_replay_status_name(status)));
	json_t *steps = json_array(), *drift = json_array(), *nodes = json_array();
	for (size_t i = 0; res && i < res->n_steps; i++) {
		const kn_step_report *s = &res->steps[i];
		const kn_step *st = &task->steps[i];
		json_t *o = json_pack("{s:I, s:s, s:s, s:s?, s:o, s:s?, s:s?}", "step", (json_int_t)(i + 1),
		                      "verb", kn_step_verb_name(st->verb), "outcome", kn_step_outcome_name(s->outcome),
		                      "locator", s->locator, "locator_score",
		                      s->locator ? json_real(s->score) : json_null(), "selector", st->selector,
		                      "proposed_selector", s->proposed);
		if (o && s->detail[0])
			json_object_set_new(o, "detail", json_string(s->detail));
		if (o && s->url_after)
			json_object_set_new(o, "url", json_string(s->url_after));
		if (o && s->unsettled)
			json_object_set_new(o, "settled", json_false());
		if (o && st->expect_url && s->url_after)
			json_object_set_new(o, "postcondition", json_boolean(postcondition_holds(st, s)));
		json_t *rec = o ? kn_replay_step_recorded(st) : NULL; /* for drift diffs */
		if (rec)
			json_object_set_new(o, "recorded", rec);
		json_array_append_new(steps, o);
		if (s->outcome == KN_STEP_OK_FALLBACK)
			json_array_append_new(drift, json_pack("{s:I, s:s?, s:s?, s:f, s:s?, s:s?}", "step", (json_int_t)(i + 1),
			                                       "selector", st->selector, "locator", s->locator,
			                                       "locator_score", s->score, "proposed_selector",
			                                       s->proposed, "detail", s->detail[0] ? s->detail : NULL));
	}
	for (size_t i = 0; i < task->n_keynodes; i++) {
		const kn_node_state *ns = m ? kn_eval_node(kn_monitor_eval(m), i) : NULL;
		json_array_append_new(nodes, json_pack("{s:s, s:b, s:o}", "id", task->keynodes[i].id, "reached",
		                                       ns && ns->score >= 1.0, "reached_at_step",
		                                       ns && ns->reached_at_step >= 0 ? json_integer(ns->reached_at_step)
		                                                                      : json_null()));
	}
	json_object_set_new(r->doc, "replay", json_pack("{s:o, s:o, s:o}", "steps", steps, "drift", drift,
	                                                "key_nodes", nodes));
	int failed = 0;
	if (status == KN_REPLAY_BLOCKED) {
		json_object_set_new(r->doc, "blocked", kn_blocked_hit_json(&res->blocked, res->failed_step));
		r->blocked = res->blocked;
		r->fail.blocked = &r->blocked;
		failed = set_failure(r, res->failed_step > 0 ? res->failed_step : 0, NULL,
		                     res->blocked.signature, res->blocked.detail);
	} else if (status != KN_REPLAY_PASSED) {
		const kn_step *fs = res && res->failed_step ? &task->steps[res->failed_step - 1] : NULL;
		const char *reason = error_reason ? error_reason
		                     : fs ? kn_step_outcome_name(res->steps[res->failed_step - 1].outcome)
		                     : broken_node >= 0 ? "key node not reached"
		                                        : "replay failed";
		/* a key node's failure names the key node; a step failure (or the step a key node's failure
		 * is attributed to) names the step */
		char why[600] = "";
		int at = !fs && res && broken_node >= 0 && !error_reason ? attribute_step(task, res, why, sizeof why) : 0;
		const kn_step *as = at ? &task->steps[at - 1] : fs;
		char detail[900] = "";
		if (at)
			snprintf(detail, sizeof detail, "%s; key node '%s' not reached", why, task->keynodes[broken_node].id);
		int step = fs ? res->failed_step : at;
		const char *node = broken_node >= 0 && !fs ? task->keynodes[broken_node].id : NULL;
		const char *d = at ? detail : res && res->detail[0] ? res->detail : NULL;
		json_t *b = json_pack("{s:o, s:o, s:s, s:s?, s:s?, s:s?, s:s?}", "step",
		                      step ? json_integer(step) : json_null(), "key_node",
		                      node ? json_string(node) : json_null(), "reason", reason, "detail", d,
		                      "selector", as ? as->selector : NULL, "url", res ? res->evidence.url : NULL,
		                      "dom_excerpt", res ? res->evidence.dom_excerpt : NULL);
		/* a page showing an error: the own-site data request that failed (softpage.h) */
		if (b && fs && res->error_request)
			json_object_set_new(b, "request", json_pack("{s:s, s:i}", "url", res->error_request, "status",
			                                            res->error_status));
		json_object_set_new(r->doc, "broken", b);
		failed = set_failure(r, step, node, reason, d);
	}
	if (failed || redump(r)) {
		kn_replay_report_free(r);
		return NULL;
	}
	return r;
}

static void make_run_id(char *out, size_t n, const kn_task *task)
{
	static unsigned seq;
	struct timespec ts = kn_time_wall();
	snprintf(out, n, "replay-%.64s-%lld%03ld-%u", task->id, (long long)ts.tv_sec, ts.tv_nsec / 1000000,
	         ++seq);
}

/* Create the replay's tab: in a new browser context (*ctx) when fresh_context, else in the
 * default one; *target is its id. *pages counts the page targets of that context (the tab
 * included) for the monitor's readiness. *ctx and *target are the caller's, set or not. 0, or a
 * negative code with err set. */
static int open_tab(kn_cdp *c, int fresh_context, char **ctx, char **target, size_t *pages, kn_err *err)
{
	json_t *v = NULL;
	int rc;
	if (fresh_context) {
		if ((rc = kn_cdp_call(c, NULL, "Target.createBrowserContext", json_object(), &v, err)) != 0)
			return rc;
		const char *id = json_string_value(json_object_get(v, "browserContextId"));
		*ctx = id ? strdup(id) : NULL;
		json_decref(v);
		if (!*ctx)
			return kn_err_set(err, KN_EPROTO, "no browser context");
	}
	if ((rc = kn_cdp_call(c, NULL, "Target.createTarget",
	                      json_pack("{s:s, s:s?}", "url", "about:blank", "browserContextId", *ctx), &v, err)) != 0)
		return rc;
	const char *tid = json_string_value(json_object_get(v, "targetId"));
	*target = tid ? strdup(tid) : NULL;
	json_decref(v);
	if (!*target)
		return kn_err_set(err, KN_EPROTO, "no target for the replay tab");
	*pages = 0;
	if (kn_cdp_call(c, NULL, "Target.getTargets", NULL, &v, err) == 0) {
		size_t i;
		json_t *ti;
		json_array_foreach(json_object_get(v, "targetInfos"), i, ti) {
			const char *type = json_string_value(json_object_get(ti, "type"));
			const char *in = json_string_value(json_object_get(ti, "browserContextId"));
			*pages += type && strcmp(type, "page") == 0 && (!*ctx || (in && strcmp(in, *ctx) == 0));
		}
		json_decref(v);
	}
	return 0;
}

/* The replay's verdict from how it went: the replay's own failure (rr, rerr), a failed step's
 * outcome in res, how the monitor ended and the key nodes it scored, then a guarded workflow's held
 * requests (held) compared. reason (cap bytes) gets the words an error or a held difference has;
 * *broken_node the first key node not reached (left as it is when all were); a differing held
 * request sets res->failed_step and res->detail. */
static kn_replay_status verdict(const kn_task *task, kn_monitor *m, kn_replay_result *res, int rr,
                                const kn_err *rerr, kn_held_check *held, char *reason, size_t cap,
                                int *broken_node)
{
	kn_replay_status status = KN_REPLAY_PASSED;
	kn_end end;
	if (rr && !res->failed_step) {
		snprintf(reason, cap, "browser failed: %.250s", rerr->msg);
		status = KN_REPLAY_ERROR;
	} else if ((res->failed_step && res->steps[res->failed_step - 1].outcome == KN_STEP_UNREACHABLE) ||
	           (kn_monitor_end_cause(m, &end) && end == KN_END_UNREACHABLE)) {
		/* a goto that failed, or a page of the task's own site that did not answer (the monitor's
		 * unreachable.h: a click or a script that led there) */
		snprintf(reason, cap, "site unreachable");
		status = KN_REPLAY_ERROR;
	} else if (kn_monitor_end_cause(m, &end) && end == KN_END_BROWSER_GONE) {
		snprintf(reason, cap, "browser disconnected");
		status = KN_REPLAY_ERROR;
	} else if (res->failed_step && res->steps[res->failed_step - 1].outcome == KN_STEP_BLOCKED) {
		status = KN_REPLAY_BLOCKED; /* the site refused service: not broken (blocked.h) */
	} else if (res->failed_step && (res->steps[res->failed_step - 1].outcome == KN_STEP_NAV_TIMEOUT ||
	                               res->steps[res->failed_step - 1].outcome == KN_STEP_BROWSER_TIMEOUT)) {
		/* a page that did not load in time, a browser that did not answer: slow or overloaded, which
		 * says nothing of a change — not judged (error), never a false "broken" */
		status = KN_REPLAY_ERROR;
	} else if (res->failed_step) {
		status = KN_REPLAY_BROKEN;
	}
	for (size_t i = 0; i < task->n_keynodes; i++)
		if (kn_eval_node(kn_monitor_eval(m), i)->score < 1.0) {
			if (*broken_node < 0)
				*broken_node = (int)i;
			if (status == KN_REPLAY_PASSED)
				status = KN_REPLAY_BROKEN;
		}
	size_t held_step;
	if ((status == KN_REPLAY_PASSED || (status == KN_REPLAY_BROKEN && !res->failed_step)) &&
	    (held_step = kn_held_check_failed(held, res->detail, sizeof res->detail)) > 0) {
		/* every step worked, but the request a step sent is not the one recorded (held.h) */
		status = KN_REPLAY_BROKEN;
		res->failed_step = (int)held_step;
		snprintf(reason, cap, "held request differs");
	}
	return status;
}

int kn_replay_validate(kn_cdp_loop *loop, const char *ws_url, const kn_task *task,
                       const kn_validate_opts *opts, kn_replay_report **out, kn_err *err)
{
	*out = NULL;
	kn_validate_opts o = opts ? *opts : (kn_validate_opts){.fresh_context = 1};
	char run_id[160];
	if (o.run_id)
		snprintf(run_id, sizeof run_id, "%s", o.run_id);
	else
		make_run_id(run_id, sizeof run_id, task);
	if (task->n_steps == 0)
		return kn_err_set(err, KN_EINVAL, "task '%s' has no steps to replay", task->id);

	kn_replay_link link = {0};
	kn_cdp_link *k = &link.link;
	kn_cdp *c = NULL;
	kn_monitor *m = NULL;
	kn_replay_result res = {0};
	char *ctx = NULL, *target = NULL;
	char reason[300] = "";
	kn_replay_status status = KN_REPLAY_PASSED;
	int broken_node = -1, rc = 0;
	json_t *takeovers = NULL;

	struct attached att = {0};
	if (kn_held_check_init(&att.held, task) != 0)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	for (size_t i = 0; i < task->n_steps; i++) {
		char var[96];
		if (task->steps[i].verb == KN_STEP_TYPE && !kn_replay_secret(&task->steps[i], var, sizeof var)) {
			/* the site is not at fault: the replay cannot type what it was not given */
			snprintf(reason, sizeof reason, "secret not set: step %zu types %s", i + 1, var);
			status = KN_REPLAY_ERROR;
			goto judge;
		}
	}
	kn_cdp_handlers h = kn_replay_link_handlers(&link);
	/* an in-page wait for an element answers after up to element_timeout_ms: never cut short */
	int element_ms = kn_replay_element_timeout(&o.replay);
	kn_cdp_opts co = {.timeout_ms = o.replay.command_timeout_ms};
	if (co.timeout_ms && co.timeout_ms < element_ms + 2000)
		co.timeout_ms = element_ms + 2000;
	if ((rc = kn_cdp_connect(&c, loop, ws_url, &co, &h, err)) != 0) {
		kn_held_check_clear(&att.held);
		return rc;
	}
	if (!kn_replay_link_wait_open(&link, loop, 10000)) {
		snprintf(reason, sizeof reason, "browser unreachable: %.200s", k->closed ? k->reason : "timed out");
		status = KN_REPLAY_ERROR;
		goto judge;
	}
	/* the replay's own context and tab, created before the monitor attaches so that its
	 * auto-attach finds the tab among the existing targets */
	if ((rc = open_tab(c, o.fresh_context, &ctx, &target, &att.pages, err)) != 0)
		goto fail;
	kn_monitor_opts mo = {.task = task, .eval = {.step_limit = -1}, .run_id = run_id,
	                      .trajectory = o.trajectory, .progress = NULL, .blocked_off = 1, .trace = o.trace,
	                      .on_ready = monitor_ready, .on_event = monitor_event, .on_event_clear = 1,
	                      .ud = &att, .browser_context = ctx,
	                      .guard = o.replay.guard, .redact = o.replay.redact,
	                      .canary_timeout_ms = o.replay.canary_timeout_ms,
	                      .human = o.watch ? o.watch->taken : NULL, .human_ud = o.watch ? o.watch->ud : NULL};
	if ((rc = kn_monitor_start(&m, loop, ws_url, &mo, err)) != 0)
		goto fail;
	/* ready: every tab attached and its recorder installed (Page.enable went before it on the same
	 * session), so the monitor sees our first goto */
	att.m = m;
	kn_cdp_loop_run_until(loop, 5000 + (o.replay.canary_timeout_ms > 0 ? o.replay.canary_timeout_ms
	                                                                    : KN_CANARY_TIMEOUT_MS),
	                      monitor_attached, &att);
	kn_end end0;
	if (!att.ready && kn_monitor_end_cause(m, &end0) && end0 == KN_END_GUARD_INACTIVE) {
		/* the guard's canary was not held (monitor.h): no step may run, its requests would be sent */
		snprintf(reason, sizeof reason, "guard not active: %.250s",
		         kn_monitor_end_detail(m) ? kn_monitor_end_detail(m) : "the canary was not held");
		status = KN_REPLAY_ERROR;
		goto judge;
	}

	if (o.watch && o.watch->begin) /* the live view: the tab to show */
		o.watch->begin(o.watch->ud, loop, ws_url, target, run_id, task);
	kn_replay_opts ro = o.replay;
	ro.target_id = target;
	if (o.watch) {
		ro.before_step = o.watch->step;
		ro.step_ud = o.watch->ud;
	}
	ro.evidence = 1;
	ro.on_answer = monitor_answer;
	ro.reached_all = monitor_reached_all;
	ro.ud = m;
	kn_err rerr = {0};
	int rr = kn_replay_task(loop, c, &link, task, &ro, &res, &rerr);
	/* the monitor asks every recorder to flush over its own connection: the events the page sent
	 * before precede those replies on that socket, so nothing is left behind */
	kn_monitor_stop(m, KN_END_STOPPED);
	kn_cdp_loop_run_until(loop, 3000, monitor_ended, m);
	if (o.watch && o.watch->end) /* what people did in the page: human steps, kept apart */
		takeovers = o.watch->end(o.watch->ud);

	status = verdict(task, m, &res, rr, &rerr, &att.held, reason, sizeof reason, &broken_node);
	if (status == KN_REPLAY_BROKEN && !res.failed_step && res.target_id && !k->closed) {
		/* every step worked but a key node was not reached: the page where the replay ended */
		json_t *a = NULL;
		if (kn_cdp_call(c, NULL, "Target.attachToTarget",
		                json_pack("{s:s, s:b}", "targetId", res.target_id, "flatten", 1), &a, err) == 0) {
			const char *sid = json_string_value(json_object_get(a, "sessionId"));
			if (sid)
				kn_replay_capture(c, sid, NULL, &res.evidence);
		}
		json_decref(a);
	}
	for (int waited = 0; kn_trace_busy(o.trace) && waited < 3000; waited += 20) /* the last shot */
		kn_cdp_loop_run_for(loop, 20);
	kn_trace_set_verdict(o.trace, kn_replay_status_name(status));
	kn_trace_finish(o.trace, kn_monitor_eval(m), reason[0] ? reason : "replayed", NULL,
	                status != KN_REPLAY_PASSED, NULL, NULL);
judge:
	*out = build(task, m, run_id, &res, status, reason[0] ? reason : NULL, broken_node);
	if (*out) { /* the viewport the replay ran at (replay.c set_viewport) */
		char vp[32];
		snprintf(vp, sizeof vp, "%dx%d",
		         o.replay.viewport_w ? o.replay.viewport_w : task->viewport_w ? task->viewport_w : KN_VIEWPORT_DEFAULT_W,
		         o.replay.viewport_h ? o.replay.viewport_h : task->viewport_h ? task->viewport_h : KN_VIEWPORT_DEFAULT_H);
		json_object_set_new(json_object_get((*out)->doc, "replay"), "viewport", json_string(vp));
		if (takeovers)
			json_object_set(json_object_get((*out)->doc, "replay"), "takeovers", takeovers);
		if (redump(*out)) {
			kn_replay_report_free(*out);
			*out = NULL;
		}
	}
	if (*out && res.evidence.png) {
		(*out)->png = res.evidence.png;
		(*out)->png_len = res.evidence.png_len;
		res.evidence.png = NULL;
	}
	rc = *out ? 0 : kn_err_set(err, KN_ENOMEM, "out of memory");
	if (*out && status != KN_REPLAY_PASSED) {
		char q[512];
		kn_log_quote(q, sizeof q, reason[0] ? reason : res.detail[0] ? res.detail : "key node not reached");
		kn_log_msg(status == KN_REPLAY_ERROR ? "warn" : "info", "replay",
		           status == KN_REPLAY_ERROR ? "replay error" : status == KN_REPLAY_BLOCKED ? "replay blocked"
		                                                                                  : "replay broken",
		           "task=%s detail=\"%s\"", task->id, q);
	}
	goto done;
fail: {
	char q[512];
	kn_log_msg("error", "replay", "replay validation failed", "task=%s detail=\"%s\"", task->id,
	           kn_log_quote(q, sizeof q, err ? err->msg : NULL));
}
done:
	kn_monitor_free(m);
	kn_held_check_clear(&att.held);
	if (c && !k->closed) {
		if (ctx) {
			json_t *d = NULL;
			kn_err e;
			kn_cdp_call(c, NULL, "Target.disposeBrowserContext", json_pack("{s:s}", "browserContextId", ctx),
			            &d, &e);
			json_decref(d);
		} else if (target) {
			json_t *d = NULL;
			kn_err e;
			kn_cdp_call(c, NULL, "Target.closeTarget", json_pack("{s:s}", "targetId", target), &d, &e);
			json_decref(d);
		}
		kn_cdp_close(c);
	}
	if (*out && o.repairs) { /* proposals, each proven by a second replay once this one's monitor is gone (repair.c) */
		json_t *rp = status == KN_REPLAY_PASSED || status == KN_REPLAY_BROKEN
		             ? kn_replay_repairs(loop, ws_url, task, &o, &res, (*out)->doc) : json_array();
		if (!rp || json_object_set_new((*out)->doc, "repairs", rp) || redump(*out)) {
			kn_replay_report_free(*out);
			*out = NULL;
			rc = kn_err_set(err, KN_ENOMEM, "out of memory");
		}
	}
	kn_replay_result_clear(&res);
	json_decref(takeovers);
	free(ctx);
	free(target);
	return rc;
}
