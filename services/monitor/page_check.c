/* page_check.c — reads what a task's page checks look at from the live browser when a run ends
 * (and, for a task with `purchase:`, what was bought: purchase.h, read on the agent's page)
 * (keynodes/README.md "Functional checks"). One check at a time, as a chain of CDP replies: for
 * `url: last`, a fresh isolated world in the agent's tab (the page's own scripts never see us);
 * for a URL, a background tab of our own (Target.createTarget), navigated, read in an isolated
 * world once loaded, then closed — the agent's tabs are never touched (WebArena's
 * reddit_get_post_url('__last_url__') opens the rewritten agent's last URL that way). The text
 * read (or why nothing could be read) goes to the evaluator with kn_eval_page_result. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "keynode/functional.h"
#include "keynode/purchase.h"
#include "log.h"
#include "page_check.h"
#include "query_js.h"

#define PAGE_LOAD_WAIT_MS 10000
#define PAGE_TEXT_MAX (256 * 1024) /* characters of text kept per check */

struct kn_page_checks {
	kn_cdp *cdp;
	kn_eval *ev;
	const kn_task *task;
	char *last_session, *last_frame;
	size_t i;            /* the node being checked */
	char *session;       /* session of our own tab, or the agent's for `last` */
	char *target;        /* our tab's target id, NULL for `last` */
	char *url;           /* the URL our tab opens */
	int purchase;        /* the purchase read (after the key nodes, i == n_keynodes) is running */
	int running;
	void (*done)(void *ud);
	void *ud;
};

static void next_check(kn_page_checks *pc);

static void record(kn_page_checks *pc, const char *text, const char *error)
{
	kn_err err = {0};
	char d[201]; /* a log line's detail */
	if (pc->purchase) { /* the purchase read ends the chain */
		if (kn_eval_purchase_result(pc->ev, text, error, &err) != 0 || !text)
			kn_log_msg("warn", "monitor", "purchase not read", "key_node=purchase detail=\"%s\"",
			           kn_log_quote(d, sizeof d, text ? err.msg : error));
		free(pc->session);
		pc->session = NULL;
		pc->i++;
		next_check(pc);
		return;
	}
	const kn_keynode *kn = &pc->task->keynodes[pc->i];
	if (kn_eval_page_result(pc->ev, pc->i, text, error, &err) != 0)
		kn_log_msg("warn", "monitor", "page check not scored", "key_node=%s detail=\"%s\"", kn->id,
		           kn_log_quote(d, sizeof d, err.msg));
	if (!text)
		kn_log_msg("warn", "monitor", "page check could not read", "key_node=%s detail=\"%s\"", kn->id,
		           kn_log_quote(d, sizeof d, error));
	if (pc->target && pc->cdp) /* close our tab; nobody waits for the reply */
		kn_cdp_send(pc->cdp, NULL, "Target.closeTarget", json_pack("{s:s}", "targetId", pc->target),
		            NULL, NULL);
	free(pc->target);
	free(pc->session);
	free(pc->url);
	pc->target = pc->session = pc->url = NULL;
	pc->i++;
	next_check(pc);
}

/* The script that waits for the document to load, then reads the locator: a CSS selector's
 * element text (query.js: the light DOM first, then open shadow roots; `host >> inner` chains), or a
 * "js:" expression's value as a string. Returns {text} or {error}. */
static char *build_script(const char *loc)
{
	int js = strncmp(loc, "js:", 3) == 0;
	json_t *s = js ? NULL : json_string(loc);
	char *lit = js ? strdup(loc + 3) : s ? json_dumps(s, JSON_ENCODE_ANY) : NULL;
	json_decref(s);
	if (!lit)
		return NULL;
	size_t n = 2 * strlen(lit) + 1024;
	char *body = malloc(n), *out = malloc(n + kn_query_js_len + 512);
	if (body && out) {
		if (js)
			snprintf(body, n,
			         "const v = await (\n%s\n);"
			         "return {text: v == null ? '' : (typeof v === 'object' ? JSON.stringify(v) "
			         ": String(v))};", lit);
		else
			snprintf(body, n,
			         "const bad = knSelectorError(%s);"
			         "if (bad) return {error: 'invalid locator: ' + bad};"
			         "const e = knQuery(%s);"
			         "if (!e) return {error: 'no element matches the locator'};"
			         "const t = e.innerText !== undefined ? e.innerText : e.textContent;"
			         "return {text: String(t == null ? '' : t)};", lit, lit);
		snprintf(out, n + kn_query_js_len + 512,
		         "(async () => { %s\n; try {"
		         "const until = Date.now() + %d;"
		         "while (document.readyState !== 'complete' && Date.now() < until)"
		         " await new Promise(r => setTimeout(r, 50));"
		         "%s"
		         "} catch (x) { return {error: String(x && x.message || x)}; } })()",
		         kn_query_js, PAGE_LOAD_WAIT_MS, body);
	} else {
		free(out);
		out = NULL;
	}
	free(body);
	free(lit);
	return out;
}

static void on_value(void *ud, kn_cdp *c, json_t *result, const char *error)
{
	(void)c;
	kn_page_checks *pc = ud;
	if (error)
		{ record(pc, NULL, error); return; }
	json_t *exc = json_object_get(result, "exceptionDetails");
	if (exc) {
		json_t *d = json_object_get(json_object_get(exc, "exception"), "description");
		{ record(pc, NULL, json_is_string(d) ? json_string_value(d) : "the locator threw"); return; }
	}
	json_t *v = json_object_get(json_object_get(result, "result"), "value");
	json_t *text = json_object_get(v, "text"), *err = json_object_get(v, "error");
	if (json_is_string(text)) {
		const char *t = json_string_value(text);
		if (strlen(t) > PAGE_TEXT_MAX) {
			char *cut = strndup(t, PAGE_TEXT_MAX);
			record(pc, cut ? cut : t, NULL);
			free(cut);
			return;
		}
		{ record(pc, t, NULL); return; }
	}
	record(pc, NULL, json_is_string(err) ? json_string_value(err) : "the locator gave no value");
}

static void on_world(void *ud, kn_cdp *c, json_t *result, const char *error)
{
	kn_page_checks *pc = ud;
	if (error)
		{ record(pc, NULL, error); return; }
	json_t *ctx = json_object_get(result, "executionContextId");
	char *script = NULL, *loc = NULL;
	if (pc->purchase) { /* purchase.h: the page's title, attributes, options and price */
		size_t nt;
		const char *const *touched = kn_eval_purchase_touched(pc->ev, &nt);
		if (kn_purchase_script(&loc, pc->task->purchase, touched, nt) == 0 &&
		    (script = malloc(strlen(loc) + 4)))
			sprintf(script, "js:%s", loc);
		free(loc);
		loc = script;
		script = loc ? build_script(loc) : NULL;
		free(loc);
	} else {
		script = build_script(pc->task->keynodes[pc->i].locator);
	}
	if (!json_is_integer(ctx) || !script) {
		free(script);
		{ record(pc, NULL, !script ? "out of memory" : "no isolated world"); return; }
	}
	long long id = kn_cdp_send(c, pc->session, "Runtime.evaluate",
	                           json_pack("{s:s, s:I, s:b, s:b}", "expression", script, "contextId",
	                                     json_integer_value(ctx), "awaitPromise", 1,
	                                     "returnByValue", 1),
	                           on_value, pc);
	free(script);
	if (id < 0)
		record(pc, NULL, "cannot send Runtime.evaluate");
}

static void make_world(kn_page_checks *pc, const char *frame_id)
{
	char name[48];
	snprintf(name, sizeof name, "kn_check_%zu_%ld", pc->i, (long)rand());
	if (kn_cdp_send(pc->cdp, pc->session, "Page.createIsolatedWorld",
	                json_pack("{s:s, s:s, s:b}", "frameId", frame_id, "worldName", name,
	                          "grantUniveralAccess", 0),
	                on_world, pc) < 0)
		record(pc, NULL, "cannot send Page.createIsolatedWorld");
}

static void on_navigated(void *ud, kn_cdp *c, json_t *result, const char *error)
{
	(void)c;
	kn_page_checks *pc = ud;
	if (error)
		{ record(pc, NULL, error); return; }
	const char *et = json_string_value(json_object_get(result, "errorText"));
	if (et && *et)
		{ record(pc, NULL, et); return; }
	const char *fid = json_string_value(json_object_get(result, "frameId"));
	make_world(pc, fid ? fid : pc->target);
}

static void on_attached(void *ud, kn_cdp *c, json_t *result, const char *error)
{
	kn_page_checks *pc = ud;
	if (error)
		{ record(pc, NULL, error); return; }
	const char *sid = json_string_value(json_object_get(result, "sessionId"));
	if (!sid || !(pc->session = strdup(sid)))
		{ record(pc, NULL, "no session for the check's tab"); return; }
	if (kn_cdp_send(c, pc->session, "Page.navigate", json_pack("{s:s}", "url", pc->url),
	                on_navigated, pc) < 0)
		record(pc, NULL, "cannot send Page.navigate");
}

static void on_created(void *ud, kn_cdp *c, json_t *result, const char *error)
{
	kn_page_checks *pc = ud;
	if (error)
		{ record(pc, NULL, error); return; }
	const char *tid = json_string_value(json_object_get(result, "targetId"));
	if (!tid || !(pc->target = strdup(tid)))
		{ record(pc, NULL, "no target for the check's tab"); return; }
	if (kn_cdp_send(c, NULL, "Target.attachToTarget",
	                json_pack("{s:s, s:b}", "targetId", pc->target, "flatten", 1), on_attached,
	                pc) < 0)
		record(pc, NULL, "cannot send Target.attachToTarget");
}

static void next_check(kn_page_checks *pc)
{
	while (pc->i < pc->task->n_keynodes && pc->task->keynodes[pc->i].target != KN_TARGET_PAGE)
		pc->i++;
	if (pc->i == pc->task->n_keynodes && !pc->purchase && kn_eval_purchase_wanted(pc->ev)) {
		/* the purchase: read on the agent's page */
		pc->purchase = 1;
		if (!pc->cdp)
			{ record(pc, NULL, "browser disconnected"); return; }
		if (!pc->last_session || !pc->last_frame || !(pc->session = strdup(pc->last_session)))
			{ record(pc, NULL, "no page of the agent to read"); return; }
		make_world(pc, pc->last_frame);
		return;
	}
	if (pc->i >= pc->task->n_keynodes) {
		if (pc->running) {
			pc->running = 0;
			pc->done(pc->ud);
		}
		return;
	}
	const kn_keynode *kn = &pc->task->keynodes[pc->i];
	if (!pc->cdp)
		{ record(pc, NULL, "browser disconnected"); return; }
	if (kn->page_from_last == KN_PAGE_REDDIT_POST) { /* WebArena's reddit_get_post_url(last) */
		const char *last = kn_eval_url(pc->ev);
		if (!last)
			{ record(pc, NULL, "no last URL to rewrite"); return; }
		if (kn_func_reddit_post_url(&pc->url, last) != 0)
			{ record(pc, NULL, "out of memory"); return; }
	} else if (kn->page_url && !(pc->url = strdup(kn->page_url))) {
		record(pc, NULL, "out of memory");
		return;
	}
	if (!pc->url) {
		if (!pc->last_session || !pc->last_frame)
			{ record(pc, NULL, "no page of the agent to read"); return; }
		if (!(pc->session = strdup(pc->last_session)))
			{ record(pc, NULL, "out of memory"); return; }
		{ make_world(pc, pc->last_frame); return; }
	}
	if (kn_cdp_send(pc->cdp, NULL, "Target.createTarget",
	                json_pack("{s:s, s:b}", "url", "about:blank", "background", 1), on_created,
	                pc) < 0)
		record(pc, NULL, "cannot send Target.createTarget");
}

int kn_page_checks_needed(const kn_task *task)
{
	if (task->purchase)
		return 1;
	for (size_t i = 0; i < task->n_keynodes; i++)
		if (task->keynodes[i].target == KN_TARGET_PAGE)
			return 1;
	return 0;
}

static int start(kn_page_checks **out, kn_cdp *cdp, kn_eval *ev, const kn_page_last *last,
                 void (*done)(void *ud), void *ud, int purchase_only)
{
	*out = NULL;
	kn_page_checks *pc = calloc(1, sizeof *pc);
	if (!pc)
		return KN_ENOMEM;
	pc->cdp = cdp;
	pc->ev = ev;
	pc->task = kn_eval_task(ev);
	pc->done = done;
	pc->ud = ud;
	if (last && last->session && last->frame_id) {
		pc->last_session = strdup(last->session);
		pc->last_frame = strdup(last->frame_id);
	}
	pc->running = 1;
	if (purchase_only)
		pc->i = pc->task->n_keynodes;
	*out = pc;
	next_check(pc);
	return 0;
}

int kn_page_checks_start(kn_page_checks **out, kn_cdp *cdp, kn_eval *ev, const kn_page_last *last,
                         void (*done)(void *ud), void *ud)
{
	return start(out, cdp, ev, last, done, ud, 0);
}

int kn_page_checks_start_purchase(kn_page_checks **out, kn_cdp *cdp, kn_eval *ev,
                                  const kn_page_last *last, void (*done)(void *ud), void *ud)
{
	return start(out, cdp, ev, last, done, ud, 1);
}

int kn_page_checks_running(const kn_page_checks *pc)
{
	return pc && pc->running;
}

void kn_page_checks_disconnect(kn_page_checks *pc)
{
	if (pc)
		pc->cdp = NULL;
}

void kn_page_checks_free(kn_page_checks *pc)
{
	if (!pc)
		return;
	free(pc->last_session);
	free(pc->last_frame);
	free(pc->session);
	free(pc->target);
	free(pc->url);
	free(pc);
}
