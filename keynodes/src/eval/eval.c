/* eval.c — the key-node evaluator (docs/scoring.md) and the dataset metrics.
 *
 * Events are fed in order. Each key node's score only ever rises (max(old, new)); URL nodes are
 * re-checked only when the URL they look at changes, so a long run costs one URL parse per
 * navigation, not per event. The two modes differ in when a node is checked, how semantic scores
 * count and where the run ends; webcanvas mode also reads a few inputs as upstream's step_score.py
 * does (eval.h; every rule with upstream's file and line in keynodes/README.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "keynode/eval.h"
#include "keynode/evidence.h"
#include "keynode/functional.h"
#include "keynode/grow.h"
#include "keynode/purchase.h"
#include "keynode/request.h"
#include "keynode/url.h"

#include "eval_internal.h"

const char *kn_status_name(kn_status s)
{
	static const char *const names[] = {"incomplete", "finished", "step_limit", "error", "broken",
	                                    "blocked", "unjudged"};
	return (unsigned)s <= KN_STATUS_UNJUDGED ? names[s] : "?";
}

static void url_cache_reset(struct url_cache *c)
{
	free(c->url);
	free(c->exact);
	free(c->include);
	free(c->site);
	free(c->include_py);
	memset(c, 0, sizeof *c);
}

/* Point the cache at url; a new version only when the text changed. */
static int url_cache_set(kn_eval *ev, struct url_cache *c, const char *url)
{
	if (c->url && strcmp(c->url, url) == 0)
		return 0;
	url_cache_reset(c);
	if (!(c->url = strdup(url)))
		return KN_ENOMEM;
	c->ver = ++ev->next_ver;
	return 0;
}

enum { FORM_EXACT, FORM_INCLUDE, FORM_SITE, FORM_INCLUDE_PY };

static const char *url_form(struct url_cache *c, int which)
{
	char **slot = which == FORM_EXACT     ? &c->exact
	              : which == FORM_INCLUDE ? &c->include
	              : which == FORM_SITE    ? &c->site
	                                      : &c->include_py;
	int *have = which == FORM_EXACT     ? &c->have_exact
	            : which == FORM_INCLUDE ? &c->have_include
	            : which == FORM_SITE    ? &c->have_site
	                                    : &c->have_include_py;
	if (!*have) {
		int rc = which == FORM_EXACT     ? kn_url_exact_form(slot, c->url)
		         : which == FORM_INCLUDE ? kn_url_include_form(slot, c->url)
		         : which == FORM_SITE    ? kn_url_site_token(slot, c->url)
		                                 : kn_url_include_form_urlparse(slot, c->url);
		if (rc)
			*slot = NULL;
		*have = 1;
	}
	return *slot;
}

int kn_eval_new(kn_eval **out, const kn_task *task, const kn_eval_opts *opts)
{
	*out = NULL;
	kn_eval *ev = calloc(1, sizeof *ev);
	if (!ev)
		return KN_ENOMEM;
	ev->task = task;
	if (opts)
		ev->opts = *opts;
	if (!ev->opts.semantic)
		ev->opts.semantic = kn_semantic_offline();
	if (ev->opts.threshold <= 0)
		ev->opts.threshold = KN_SEMANTIC_THRESHOLD;
	ev->sem = ev->opts.func_sem > 0 ? (kn_func_sem)(ev->opts.func_sem - 1)
	                                : (kn_func_sem)task->func_sem;
	if (task->purchase && task->purchase->buy &&
	    kn_selector_normalise(&ev->buy_norm, task->purchase->buy) != 0) {
		free(ev);
		return KN_ENOMEM;
	}
	ev->n = task->n_keynodes;
	if (ev->n && !(ev->nodes = calloc(ev->n, sizeof *ev->nodes))) {
		free(ev);
		return KN_ENOMEM;
	}
	for (size_t i = 0; i < ev->n; i++)
		ev->nodes[i].pub.reached_at_step = -1;
	if (ev->opts.step_limit > 0) {
		ev->limit = ev->opts.step_limit;
	} else if (ev->opts.step_limit == 0) {
		/* upstream: max(10, 1.5 × reference length); default mode caps it at 25, webcanvas mode
		 * applies upstream's loop instead (wc_budget) */
		int l = (int)(1.5 * task->reference_length);
		ev->wc_budget_rules = ev->opts.mode == KN_MODE_WEBCANVAS;
		ev->limit = l < 10 ? 10 : l > 25 && !ev->wc_budget_rules ? 25 : l;
	}
	/* upstream's run_task starts every task on about:blank (env.reset): its first step is
	 * checked there */
	if (ev->opts.mode == KN_MODE_WEBCANVAS && url_cache_set(ev, &ev->cur, "about:blank")) {
		kn_eval_free(ev);
		return KN_ENOMEM;
	}
	*out = ev;
	return 0;
}

void kn_eval_free(kn_eval *ev)
{
	if (!ev)
		return;
	for (size_t i = 0; i < ev->n; i++) {
		free(ev->nodes[i].last_input);
		free(ev->nodes[i].read);
		free(ev->nodes[i].read_error);
		free(ev->nodes[i].hist);
		for (size_t k = 0; k < ev->nodes[i].n_failed; k++)
			free(ev->nodes[i].failed[k].input), free(ev->nodes[i].failed[k].error);
		free(ev->nodes[i].failed);
	}
	kn_eval_defer_free(ev);
	free(ev->nodes);
	free(ev->step_scores);
	free(ev->typing);
	json_decref(ev->blocked);
	json_decref(ev->unreachable);
	free(ev->error_reason);
	free(ev->error_detail);
	free(ev->buy_norm);
	free(ev->purchase_error);
	for (size_t i = 0; i < ev->n_touched; i++)
		free(ev->touched[i]);
	free(ev->touched);
	url_cache_reset(&ev->cur);
	free(ev);
}

static int in_list(const char *id, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (list[i] && strcmp(list[i], id) == 0)
			return 1;
	return 0;
}

/* Does the acted-on element satisfy the node's selector (element_path's expect or element_value's
 * path)? Live events say so in `matched`; offline we compare normalised selector strings. A plain
 * CSS reference names an element in whichever tree it is (the light DOM first, then open shadow
 * roots: services/recorder/query.js), so against a recorded chain `host >> inner` it is compared
 * with the chain's last part, the element's selector in its own shadow root (keynodes/README.md). */
static int selector_matches(kn_eval *ev, const kn_keynode *kn, const kn_event *e, int include)
{
	if (e->matched)
		return in_list(kn->id, e->matched, e->n_matched);
	if (!e->selector || !kn->norm_selector)
		return 0;
	if (!ev->sel_done) { /* once per event, however many element nodes ask */
		ev->sel_done = 1;
		if (kn_selector_normalise(&ev->sel_norm, e->selector) != 0)
			ev->sel_norm = NULL;
	}
	if (!ev->sel_norm)
		return 0;
	if (include)
		return strstr(ev->sel_norm, kn->norm_selector) != NULL;
	if (strcmp(ev->sel_norm, kn->norm_selector) == 0)
		return 1;
	const char *inner = kn->xpath || kn_selector_last_part(kn->norm_selector)
	                        ? NULL : kn_selector_last_part(ev->sel_norm);
	return inner && strcmp(inner, kn->norm_selector) == 0;
}

/* A semantic judgement of input against (rule, phrase) in [0, 1]. */
static int judge(kn_eval *ev, const char *rule, const char *phrase, const char *input,
                 double *score, kn_err *err)
{
	const kn_semantic *sem = ev->opts.semantic;
	int rc = ev->opts.defer ? kn_eval_defer_lookup(ev, rule, phrase, input, score, err)
	                        : sem->judge(sem->ud, rule, phrase, input, score, err);
	if (rc)
		return rc; /* an error, or KN_EVAL_PENDING: deferred, the verdict comes later */
	rc = kn_eval_judge_range(*score, err);
	ev->judge_used |= rc == 0;
	return rc;
}

/* A fuzzy (WebArena fuzzy_match) list: every reference judged equivalent by the semantic backend
 * at the threshold; a reference "N/A" accepts "N/A" itself or an answer that says the task cannot
 * be done. Functional checks are pass/fail in both modes. */
static int score_fuzzy(kn_eval *ev, const kn_keynode *kn, const char *input, double *score,
                       kn_err *err)
{
	*score = 1;
	for (size_t i = 0; i < kn->n_items && *score > 0; i++) {
		const char *ref = kn->items[i];
		double s = 0;
		int rc;
		int wa = ev->sem == KN_FUNC_SEM_WEBARENA;
		if (wa ? kn_func_wa_answer_exact(ref, input) : 0) {
			continue; /* WebArena: exact_match first, the judge only when it fails */
		} else if (kn_func_is_na(ref)) {
			if (!wa && kn_func_is_na(input))
				continue;
			rc = judge(ev, KN_FUNC_NA_RULE, KN_FUNC_NA_PHRASE, input, &s, err);
		} else if (!wa && kn_func_exact(ref, input)) {
			continue;
		} else {
			char rule[512];
			snprintf(rule, sizeof rule, "Decide whether the answer is %.400s", ref);
			rc = judge(ev, rule, ref, input, &s, err);
		}
		if (rc)
			return *score = 0, rc;
		if (s < ev->opts.threshold)
			*score = 0;
	}
	return 0;
}

/* The functional matchers (functional.h): 1 or 0. */
static int score_functional(kn_eval *ev, const kn_keynode *kn, const char *input, double *score,
                            kn_err *err)
{
	*score = 0;
	if (ev->sem == KN_FUNC_SEM_WEBARENA) {
		int page = kn->target == KN_TARGET_PAGE;
		char *const one[1] = {kn->expect};
		char *const *items = kn->n_items ? kn->items : one;
		size_t n = kn->n_items ? kn->n_items : 1;
		switch (kn->matcher) {
		case KN_MATCH_EXACT:
			*score = page ? kn_func_wa_page_exact(kn->expect, input)
			              : kn_func_wa_answer_exact(kn->expect, input);
			return 0;
		case KN_MATCH_INCLUDE:
		case KN_MATCH_MUST_INCLUDE:
			*score = page ? kn_func_wa_page_must_include(items, n, input)
			              : kn_func_wa_answer_must_include(items, n, input);
			return 0;
		case KN_MATCH_GOLD_IN_PRED:
			*score = kn_func_gold_in_pred_sem(kn->expect, input, ev->sem);
			return 0;
		default:
			break; /* fuzzy and regex as below */
		}
	}
	switch (kn->matcher) {
	case KN_MATCH_EXACT:
		*score = kn_func_exact(kn->expect, input) ||
		         (kn_func_is_na(kn->expect) && kn_func_is_na(input));
		return 0;
	case KN_MATCH_INCLUDE:
	case KN_MATCH_MUST_INCLUDE:
		/* the one-character token rule is for answers; page text is matched as WebArena's
		 * program_html does, without it */
		*score = kn->n_items ? kn_func_must_include_all(kn->items, kn->n_items, input,
		                                                 kn->target != KN_TARGET_PAGE)
		                     : kn_func_must_include(kn->expect, input, kn->target != KN_TARGET_PAGE);
		return 0;
	case KN_MATCH_FUZZY:
		return score_fuzzy(ev, kn, input, score, err);
	case KN_MATCH_GOLD_IN_PRED:
		*score = kn_func_gold_in_pred(kn->expect, input);
		return 0;
	case KN_MATCH_REGEX:
		*score = kn_match_text(kn->matcher, kn->expect, input, 0, kn->regex);
		return 0;
	case KN_MATCH_SEMANTIC:
		break;
	}
	return 0;
}

/* Upstream's semantic_match returns a score other than 0 and 1 as Python's round(score, 2): the
 * exact binary value rounded to two decimals (ties to even), then read back as the nearest double.
 * printf's %.2f rounds the exact value the same way (glibc; the core never sets a locale). */
static double round_cents(double x)
{
	if (x == 0 || x == 1)
		return x;
	char buf[32];
	snprintf(buf, sizeof buf, "%.2f", x);
	return strtod(buf, NULL);
}

/* Score a matcher on input; semantic scores go through the judge, remembered per node (deferred:
 * through the verdicts, eval_defer.c; a check that must wait is remembered there). */
int kn_eval_score_text(kn_eval *ev, struct node *st, const kn_keynode *kn, const char *input,
                       int fold, double *score, kn_err *err)
{
	*score = 0;
	ev->seen = input, ev->checked = 1;
	if (!input)
		return 0;
	if (kn->functional && kn->matcher != KN_MATCH_SEMANTIC) {
		int rc = score_functional(ev, kn, input, score, err);
		if (rc == KN_EVAL_PENDING)
			kn_eval_defer_wait(ev, (size_t)(st - ev->nodes), input, fold);
		return rc;
	}
	if (kn->matcher != KN_MATCH_SEMANTIC) {
		*score = kn_match_text(kn->matcher, kn->expect, input, fold, kn->regex);
		return 0;
	}
	if (ev->opts.defer) {
		int rc = judge(ev, kn->expect, kn->semantic_phrase, input, score, err);
		if (rc == KN_EVAL_PENDING)
			kn_eval_defer_wait(ev, (size_t)(st - ev->nodes), input, fold);
		if (rc)
			return rc;
	} else if (st->last_input && strcmp(st->last_input, input) == 0) {
		*score = st->last_score; /* the judge's verdict, remembered */
		ev->judge_used = 1;
	} else {
		int rc = judge(ev, kn->expect, kn->semantic_phrase, input, score, err);
		if (rc)
			return rc;
		free(st->last_input);
		st->last_input = strdup(input);
		st->last_score = *score;
	}
	if (ev->opts.mode == KN_MODE_DEFAULT)
		*score = *score >= ev->opts.threshold ? 1.0 : 0.0;
	else
		*score = round_cents(*score);
	return 0;
}

static int site_gate(kn_eval *ev, const kn_keynode *kn)
{
	if (!kn->netloc)
		return 1;
	const char *site = ev->cur.url ? url_form(&ev->cur, FORM_SITE) : NULL;
	return site && strcmp(site, kn->netloc) == 0;
}

/* Evaluate one node against event e with the page URL in `page`. */
static int eval_node(kn_eval *ev, size_t i, const kn_event *e, struct url_cache *page,
                     double *score, kn_err *err)
{
	struct node *st = &ev->nodes[i];
	const kn_keynode *kn = &ev->task->keynodes[i];
	*score = 0;
	switch (kn->target) {
	case KN_TARGET_URL: {
		if (!page->url || st->url_ver == page->ver)
			return 0;
		st->url_ver = page->ver;
		ev->checked = 1;
		if (kn->matcher == KN_MATCH_GOLD_IN_PRED)
			return kn_eval_score_text(ev, st, kn, page->url, 0, score, err);
		int wc = ev->opts.mode == KN_MODE_WEBCANVAS;
		if (kn->key) {
			char *v = NULL;
			if (kn_url_query_param(&v, page->url, kn->key) != 0)
				return 0; /* a missing parameter scores 0 */
			if (wc) { /* upstream unquotes the value parse_qs already decoded: %2520 is a space */
				char *twice = NULL;
				int urc = kn_url_unquote(&twice, v, strlen(v), 0);
				free(v);
				if (urc)
					return urc;
				v = twice;
			}
			int rc = kn_eval_score_text(ev, st, kn, v, 0, score, err);
			ev->seen_own = v; /* evidence reads it after this returns; freed there */
			return rc;
		}
		/* webcanvas: url_semantic_match without a key judges the whole URL, and the include form
		 * comes from urlparse (";params" dropped) */
		int form = kn->matcher == KN_MATCH_EXACT || (wc && kn->matcher == KN_MATCH_SEMANTIC)
		               ? FORM_EXACT
		               : wc ? FORM_INCLUDE_PY : FORM_INCLUDE;
		const char *in = url_form(page, form);
		if (kn->matcher == KN_MATCH_REGEX)
			in = page->url; /* a regex sees the URL as it is */
		return kn_eval_score_text(ev, st, kn, in, 0, score, err);
	}
	case KN_TARGET_ELEMENT_PATH:
		if (kn_event_is_action(e) && site_gate(ev, kn)) {
			if (kn->matcher == KN_MATCH_REGEX)
				return kn_eval_score_text(ev, st, kn, e->selector, 0, score, err);
			*score = selector_matches(ev, kn, e, kn->matcher == KN_MATCH_INCLUDE);
			ev->checked = 1, ev->seen = e->selector;
		}
		return 0;
	case KN_TARGET_ELEMENT_VALUE: {
		if (!kn_event_is_action(e) || !site_gate(ev, kn) || (kn->path && !selector_matches(ev, kn, e, 0)))
			return 0;
		/* upstream's value of a select is the <select> element's own text (its DOM tree's text,
		 * title, aria-label…), never the chosen option; a trajectory does not carry it, so webcanvas
		 * mode compares nothing (keynodes/README.md, limits of offline scoring) */
		if (e->type == KN_EV_SELECT && ev->opts.mode == KN_MODE_WEBCANVAS)
			return 0;
		/* typed value, clicked element's visible text, selected option's value or text */
		const char *first = e->type == KN_EV_CLICK || e->type == KN_EV_DRAG ? e->text : e->value;
		int rc = kn_eval_score_text(ev, st, kn, first, 0, score, err);
		if ((rc == KN_EVAL_PENDING || (!rc && *score < 1)) && e->type == KN_EV_SELECT && e->text) {
			double s2 = 0;
			int rc2 = kn_eval_score_text(ev, st, kn, e->text, 0, &s2, err);
			if (rc == KN_EVAL_PENDING) /* the value's verdict comes later; the text counts now */
				return *score = s2, rc2;
			*score = s2 > *score ? s2 : *score;
			rc = rc2;
		}
		return rc;
	}
	case KN_TARGET_ANSWER:
	case KN_TARGET_CACHE_DATA:
		if (e->type == KN_EV_ANSWER)
			return kn_eval_score_text(ev, st, kn, e->text, 1, score, err);
		return 0;
	case KN_TARGET_PAGE: /* read from the browser when the run ends: kn_eval_page_result */
		return 0;
	case KN_TARGET_REQUEST:
	case KN_TARGET_WEBSOCKET: {
		if ((e->type != KN_EV_REQUEST && e->type != KN_EV_WEBSOCKET) || !e->request)
			return 0;
		/* semantic body matchers are judged at once, by the synchronous judge (README) */
		ev->checked = 1, ev->seen = e->request->url;
		int r = kn_request_match(kn->request, e->request, ev->opts.semantic, ev->opts.threshold, err);
		*score = r == 1;
		return r < 0 ? r : 0;
	}
	}
	return 0;
}

static int push_step_score(kn_eval *ev)
{
	if (kn_grow(&ev->step_scores, ev->n_scores, &ev->cap_scores, sizeof *ev->step_scores, 16))
		return KN_ENOMEM;
	ev->step_scores[ev->n_scores++] = ev->n ? ev->reached / (double)ev->n : 0;
	return 0;
}

/* Node i scored s at the current step: when that is a rise, count it (reached, the node's score,
 * its reached_at_step when it reaches 1) and keep it for late verdicts. 1 when it rose. */
static int rise(kn_eval *ev, size_t i, double s)
{
	struct node *st = &ev->nodes[i];
	if (!(s > st->pub.score))
		return 0;
	ev->reached += s - st->pub.score;
	st->pub.score = s;
	if (ev->opts.mode == KN_MODE_WEBCANVAS)
		ev->reached = kn_eval_sum(ev);
	if (s >= 1.0)
		st->pub.reached_at_step = ev->steps;
	kn_eval_defer_rise(ev, i, ev->steps, s);
	return 1;
}

static int touch(kn_eval *ev, const char *sel);

/* Check every node below 1 against e (page = the URL the check sees); returns rises or error. */
static int evaluate(kn_eval *ev, const kn_event *e, struct url_cache *page, kn_err *err)
{
	int rises = 0, rc = 0;
	for (size_t i = 0; i < ev->n; i++) {
		struct node *st = &ev->nodes[i];
		const kn_keynode *kn = &ev->task->keynodes[i];
		/* webarena: a functional answer check follows the last answer, latched or not */
		int last = ev->sem == KN_FUNC_SEM_WEBARENA && kn->functional &&
		           e->type == KN_EV_ANSWER &&
		           (kn->target == KN_TARGET_ANSWER || kn->target == KN_TARGET_CACHE_DATA);
		if ((st->pub.score >= 1.0 && !last) ||
		    (e->type == KN_EV_REQUEST || e->type == KN_EV_WEBSOCKET) !=
		            (kn->target == KN_TARGET_REQUEST || kn->target == KN_TARGET_WEBSOCKET))
			continue; /* a request or WebSocket message checks request and websocket nodes only
			           * (kn_request_match tells the two apart), and only it does */
		double s;
		st->final_gen += (unsigned)last;
		ev->seen = NULL, ev->checked = 0, ev->judge_used = 0;
		int r = eval_node(ev, i, e, page, &s, err);
		if (ev->evid)
			kn_evidence_report(ev, ev->evid, ev->evid_ud, i, e, ev->checked, ev->seen, r ? -1 : s);
		kn_eval_judged(ev, i, r, ev->seen, err ? err->msg : NULL);
		free(ev->seen_own), ev->seen_own = NULL;
		if (last)
			st->final = r ? 0 : s;
		if (r == KN_EVAL_PENDING)
			continue; /* kn_eval_verdict scores it */
		if (r) {
			rc = r;
			continue;
		}
		if (rise(ev, i, s)) {
			rises++;
			st->judged = ev->judge_used;
		}
	}
	if (ev->task->purchase && !ev->bought && e->selector && *e->selector &&
	    (e->type == KN_EV_CLICK || e->type == KN_EV_SELECT) && touch(ev, e->selector) != 0)
		rc = rc ? rc : KN_ENOMEM;
	if (ev->buy_norm && !ev->bought && e->type == KN_EV_CLICK && e->selector) {
		/* the purchase action: the first click on the buy element (WebShop ends at buy) */
		if (!ev->sel_done && kn_selector_normalise(&ev->sel_norm, e->selector) != 0)
			ev->sel_norm = NULL;
		ev->sel_done = 1;
		ev->bought = ev->sel_norm && strcmp(ev->sel_norm, ev->buy_norm) == 0;
	}
	free(ev->sel_norm);
	ev->sel_norm = NULL;
	ev->sel_done = 0;
	return rc ? rc : rises;
}

/* Consecutive input into one field is one `type` step (docs/formats.md §2): a `type` right after a
 * `type` into the same field of the same tab continues that step. Remembers e for the next call. */
static int continues_typing(kn_eval *ev, const kn_event *e)
{
	char *key = NULL;
	if (e->type == KN_EV_TYPE) {
		const char *tab = e->tab ? e->tab : "", *sel = e->selector ? e->selector : "";
		if ((key = malloc(strlen(tab) + strlen(sel) + 2)) != NULL)
			sprintf(key, "%s\x1f%s", tab, sel);
	}
	int same = key && ev->typing && strcmp(key, ev->typing) == 0;
	free(ev->typing);
	ev->typing = key;
	return same;
}

double kn_eval_sum(const kn_eval *ev)
{
	double sum = 0;
	for (size_t i = 0; i < ev->n; i++)
		sum += ev->nodes[i].pub.score;
	return sum;
}

/* Upstream's step budget (evaluate/evaluate_utils.py run_task): the loop runs while the step
 * index is below max(10, 1.5 × reference length) plus 5 once a step's action ended on a URL
 * containing "error" ([conditions] URL of configs/setting.toml), and breaks after appending the
 * step whose index is 25 — so at most 26 steps. after: the URL the last step's action left, when
 * it was not looked at yet. Without upstream's rules (an explicit step limit) the limit itself. */
static int wc_budget(const kn_eval *ev, const char *after)
{
	if (!ev->wc_budget_rules)
		return ev->limit;
	int err = ev->wc_error || (after && strstr(after, "error"));
	int b = ev->limit + (err ? 5 : 0);
	return b < 26 ? b : 26;
}

/* webcanvas mode: upstream checks a step before its action runs, so the URL is the page the action
 * starts from (for a goto/back, the page before it); navigations alone are not checked. Its loop
 * stops at the step that completes the task and at the budget: what follows is never run. */
static int feed_webcanvas(kn_eval *ev, const kn_event *e, int step, kn_err *err)
{
	if (ev->wc_done || ev->limit_hit) {
		ev->ignored += step;
		return 0;
	}
	if (step && ev->steps > 0) {
		/* the page the previous step's action left is the one this step starts from */
		const char *after = e->type != KN_EV_NAVIGATE && e->url ? e->url : ev->cur.url;
		if (ev->wc_budget_rules && !ev->wc_error && after && strstr(after, "error"))
			ev->wc_error = 1;
		if (ev->limit > 0 && ev->steps >= wc_budget(ev, NULL)) {
			ev->limit_hit = 1;
			ev->ignored++;
			return 0;
		}
	}
	int rc = 0;
	/* a continued `type` is checked with its step; a request or WebSocket message credits the step
	 * that sent it */
	if (step || e->type == KN_EV_TYPE || e->type == KN_EV_REQUEST || e->type == KN_EV_WEBSOCKET) {
		ev->steps += step;
		if (e->type != KN_EV_NAVIGATE && e->url && url_cache_set(ev, &ev->cur, e->url))
			return KN_ENOMEM;
		rc = evaluate(ev, e, &ev->cur, err);
		if (step && push_step_score(ev))
			return KN_ENOMEM;
		if (!step && ev->n_scores)
			ev->step_scores[ev->n_scores - 1] = ev->reached / (double)ev->n;
		ev->wc_done = kn_eval_completed(ev);
	}
	if (e->url && url_cache_set(ev, &ev->cur, e->url))
		return KN_ENOMEM;
	return rc;
}

int kn_eval_feed(kn_eval *ev, const kn_event *e, kn_err *err)
{
	if (e->human) { /* a person's, in a takeover: not a step, credits nothing, and the
	                 * page it leaves is not the agent's current page either */
		(void)err;
		free(ev->typing);
		ev->typing = NULL;
		ev->human++;
		return 0;
	}
	int cont = continues_typing(ev, e);
	int step = kn_event_is_step(e) && !cont;
	if (ev->opts.mode == KN_MODE_WEBCANVAS)
		return feed_webcanvas(ev, e, step, err);
	if (step && ev->limit > 0 && ev->steps >= ev->limit)
		ev->limit_hit = 1;
	if (ev->limit_hit) { /* past the budget nothing is evaluated, as upstream stops the agent */
		ev->ignored += step;
		return 0;
	}
	if (e->url && url_cache_set(ev, &ev->cur, e->url))
		return KN_ENOMEM;
	if (step)
		ev->steps++;
	int rc = evaluate(ev, e, &ev->cur, err);
	if (step) {
		if (push_step_score(ev))
			return KN_ENOMEM;
	} else if (rc > 0 && ev->n_scores) {
		/* a consequence (a navigation a click caused) credits the step that caused it */
		ev->step_scores[ev->n_scores - 1] = ev->reached / (double)ev->n;
	}
	return rc;
}

int kn_eval_page_result(kn_eval *ev, size_t i, const char *text, const char *error, kn_err *err)
{
	if (i >= ev->n || ev->task->keynodes[i].target != KN_TARGET_PAGE)
		return kn_err_set(err, KN_EINVAL, "key node %zu is not a page check", i);
	struct node *st = &ev->nodes[i];
	free(st->read);
	free(st->read_error);
	st->read = text ? strdup(text) : NULL;
	st->read_error = !text && error ? strdup(error) : NULL;
	st->page_done = 1;
	if ((text && !st->read) || (!text && error && !st->read_error))
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	double s = 0;
	ev->judge_used = 0;
	int rc = text ? kn_eval_score_text(ev, st, &ev->task->keynodes[i], text, 1, &s, err) : 0;
	st->final = rc ? 0 : s; /* the page as read at the end */
	kn_eval_judged(ev, i, rc, text, err ? err->msg : NULL);
	if (rc)
		return rc == KN_EVAL_PENDING ? 0 : rc; /* pending: kn_eval_verdict scores it */
	if (rise(ev, i, s)) {
		st->judged = ev->judge_used;
		if (ev->n_scores)
			ev->step_scores[ev->n_scores - 1] = ev->reached / (double)ev->n;
	}
	return 0;
}

const char *kn_eval_page_read(const kn_eval *ev, size_t i, const char **error)
{
	if (error)
		*error = i < ev->n ? ev->nodes[i].read_error : NULL;
	return i < ev->n ? ev->nodes[i].read : NULL;
}

/* A functional check's score on the final state (webarena semantics). */
static double final_score(const kn_eval *ev, size_t i)
{
	const kn_keynode *kn = &ev->task->keynodes[i];
	if (kn->target == KN_TARGET_URL && kn->matcher == KN_MATCH_GOLD_IN_PRED)
		return ev->cur.url ? kn_func_gold_in_pred_sem(kn->expect, ev->cur.url, ev->sem) : 0;
	if (kn->target == KN_TARGET_ANSWER || kn->target == KN_TARGET_CACHE_DATA ||
	    kn->target == KN_TARGET_PAGE)
		return ev->nodes[i].final;
	return ev->nodes[i].pub.score; /* other URL checks: as latched */
}

int kn_eval_functional(const kn_eval *ev)
{
	int any = ev->task->n_unmapped > 0, ok = ev->task->n_unmapped == 0;
	for (size_t i = 0; i < ev->n; i++)
		if (ev->task->keynodes[i].functional) {
			any = 1;
			ok &= (ev->sem == KN_FUNC_SEM_WEBARENA ? final_score(ev, i) : ev->nodes[i].pub.score) >=
			      1.0;
		}
	return any ? ok : -1;
}

/* Remember sel among the elements the agent acted on (the options it chose: purchase.h). */
static int touch(kn_eval *ev, const char *sel)
{
	for (size_t i = 0; i < ev->n_touched; i++)
		if (strcmp(ev->touched[i], sel) == 0)
			return 0;
	if (!ev->touched && !(ev->touched = calloc(KN_EVAL_MAX_TOUCHED, sizeof *ev->touched)))
		return KN_ENOMEM;
	char *s = strdup(sel);
	if (!s)
		return KN_ENOMEM;
	if (ev->n_touched == KN_EVAL_MAX_TOUCHED) { /* the oldest goes */
		free(ev->touched[0]);
		memmove(ev->touched, ev->touched + 1, (KN_EVAL_MAX_TOUCHED - 1) * sizeof *ev->touched);
		ev->n_touched--;
	}
	ev->touched[ev->n_touched++] = s;
	return 0;
}

const char *const *kn_eval_purchase_touched(const kn_eval *ev, size_t *n)
{
	*n = ev->n_touched;
	return (const char *const *)ev->touched;
}

int kn_eval_purchase_wanted(const kn_eval *ev)
{
	const kn_purchase *p = ev->task->purchase;
	return p && !ev->purchase_read && (!p->buy || ev->bought);
}

int kn_eval_purchase_bought(const kn_eval *ev)
{
	return ev->bought && !ev->purchase_read;
}

int kn_eval_purchase_result(kn_eval *ev, const char *json, const char *error, kn_err *err)
{
	const kn_purchase *p = ev->task->purchase;
	if (!p)
		return kn_err_set(err, KN_EINVAL, "the task has no purchase");
	if (!kn_eval_purchase_wanted(ev))
		return 0; /* the first read counts; none without the purchase action */
	void *h = NULL;
	kn_purchase_read rd;
	if (!json || kn_purchase_read_parse(&h, &rd, json) != 0) {
		free(ev->purchase_error);
		ev->purchase_error = strdup(error ? error : "the purchase read gave no JSON object");
		return 0;
	}
	kn_err rerr = {0};
	int rc = kn_purchase_reward(p, &rd, &ev->reward, &rerr);
	kn_purchase_read_free(h);
	if (rc) { /* not scored: the run result says why (reward_error) */
		free(ev->purchase_error);
		ev->purchase_error = strdup(rerr.msg);
		return 0;
	}
	ev->purchase_read = 1;
	return 0;
}

double kn_eval_reward(const kn_eval *ev)
{
	return ev->task->purchase ? (ev->purchase_read ? ev->reward.reward : 0) : -1;
}

int kn_eval_func_sem(const kn_eval *ev)
{
	return (int)ev->sem;
}

const char *kn_eval_url(const kn_eval *ev)
{
	return ev->cur.url;
}

void kn_eval_set_evidence(kn_eval *ev, kn_evidence_fn fn, void *ud) { ev->evid = fn, ev->evid_ud = ud; }

void kn_eval_set_error(kn_eval *ev)
{
	ev->error = 1;
}

int kn_eval_set_error_reason(kn_eval *ev, const char *reason, const char *detail)
{
	char *r = strdup(reason), *d = detail ? strdup(detail) : NULL;
	if (!r || (detail && !d)) {
		free(r);
		free(d);
		return KN_ENOMEM;
	}
	free(ev->error_reason);
	free(ev->error_detail);
	ev->error_reason = r;
	ev->error_detail = d;
	ev->error = 1;
	return 0;
}

const kn_task *kn_eval_task(const kn_eval *ev) { return ev->task; }
int kn_eval_steps(const kn_eval *ev) { return ev->steps; }
double kn_eval_reached(const kn_eval *ev) { return ev->reached; }
size_t kn_eval_total(const kn_eval *ev) { return ev->n; }
int kn_eval_ignored(const kn_eval *ev) { return ev->ignored; }

double kn_eval_score(const kn_eval *ev)
{
	return ev->n ? ev->reached / (double)ev->n : 0;
}

int kn_eval_completed(const kn_eval *ev)
{
	for (size_t i = 0; i < ev->n; i++)
		if (ev->nodes[i].pub.score < 1.0)
			return 0;
	return ev->n > 0;
}

double kn_eval_efficiency(const kn_eval *ev)
{
	return ev->reached > 0 ? ev->steps / ev->reached : 0;
}

int kn_eval_set_blocked(kn_eval *ev, const char *evidence_json)
{
	/* parsed before the check: json_is_object is a macro that evaluates its argument twice */
	json_t *b = evidence_json ? json_loads(evidence_json, 0, NULL) : NULL;
	if (evidence_json && !json_is_object(b)) {
		json_decref(b);
		return KN_EINVAL;
	}
	json_decref(ev->blocked);
	ev->blocked = b;
	return 0;
}

int kn_eval_set_unreachable(kn_eval *ev, const char *evidence_json)
{
	json_t *u = evidence_json ? json_loads(evidence_json, 0, NULL) : NULL;
	if (!json_is_object(u)) {
		json_decref(u);
		return KN_EINVAL;
	}
	json_decref(ev->unreachable);
	ev->unreachable = u;
	return 0;
}

const struct json_t *kn_eval_unreachable(const kn_eval *ev)
{
	return kn_eval_completed(ev) ? NULL : ev->unreachable;
}

int kn_eval_judge_range(double score, kn_err *err)
{
	if (score >= 0 && score <= 1)
		return 0;
	return kn_err_set(err, KN_EPROTO, "the judge's score %g is outside [0, 1]", score);
}

void kn_eval_judged(kn_eval *ev, size_t i, int rc, const char *input, const char *msg)
{
	struct node *st = &ev->nodes[i];
	const char *in = input ? input : "";
	size_t k = 0;
	while (k < st->n_failed && strcmp(st->failed[k].input, in) != 0)
		k++;
	if (rc >= 0 && k == st->n_failed)
		return; /* judged, or waiting for its verdict */
	if (k < st->n_failed) { /* judged after all, or failed again: the old failure goes */
		free(st->failed[k].input), free(st->failed[k].error);
		memmove(st->failed + k, st->failed + k + 1, (st->n_failed - k - 1) * sizeof *st->failed);
		st->n_failed--;
	}
	if (rc >= 0)
		return;
	struct judge_failure *nf = realloc(st->failed, (st->n_failed + 1) * sizeof *nf);
	struct judge_failure f = {strdup(in), strdup(msg && *msg ? msg : kn_strerror(rc))};
	if (nf)
		st->failed = nf;
	if (!nf || !f.input || !f.error) { /* out of memory: unjudged all the same, for good */
		free(f.input), free(f.error);
		st->verdict = "failed";
		return;
	}
	st->failed[st->n_failed++] = f; /* the latest last: its words are the evidence */
}

size_t kn_eval_unjudged(const kn_eval *ev)
{
	size_t n = 0;
	for (size_t i = 0; i < ev->n; i++)
		n += ev->nodes[i].pub.score < 1.0 && (ev->nodes[i].n_failed || ev->nodes[i].verdict);
	return n;
}

/* A finished run never depends on the judge; a run that errored or was blocked is the
 * infrastructure's or the site's whatever the judge said; otherwise a key node left below 1 with a
 * failed judgement decides — even beside a deterministic node that failed, since its key-node
 * score still depends on the judged one (docs/scoring.md "Unjudged"). */
kn_status kn_eval_status(const kn_eval *ev)
{
	if (kn_eval_completed(ev))
		return KN_STATUS_FINISHED;
	if (ev->error || ev->unreachable)
		return KN_STATUS_ERROR;
	if (ev->blocked)
		return KN_STATUS_BLOCKED;
	if (kn_eval_unjudged(ev))
		return KN_STATUS_UNJUDGED;
	/* webcanvas: upstream's loop ended at the budget when the run took all its steps */
	if (ev->opts.mode == KN_MODE_WEBCANVAS && ev->limit > 0 && ev->steps > 0 &&
	    ev->steps >= wc_budget(ev, ev->cur.url))
		return KN_STATUS_STEP_LIMIT;
	return ev->limit_hit ? KN_STATUS_STEP_LIMIT : KN_STATUS_INCOMPLETE;
}

const char *kn_status_fault(kn_status s)
{
	switch (s) {
	case KN_STATUS_FINISHED: return NULL;
	case KN_STATUS_INCOMPLETE:
	case KN_STATUS_STEP_LIMIT: return "agent";
	case KN_STATUS_BLOCKED:
	case KN_STATUS_BROKEN: return "site";
	case KN_STATUS_ERROR: return "infrastructure";
	case KN_STATUS_UNJUDGED: return "judge";
	}
	return NULL;
}

const char *kn_eval_fault(const kn_eval *ev)
{
	return kn_eval_unreachable(ev) ? "site" : kn_status_fault(kn_eval_status(ev));
}

int kn_status_excluded(kn_status s)
{
	return s == KN_STATUS_ERROR || s == KN_STATUS_BROKEN || s == KN_STATUS_BLOCKED ||
	       s == KN_STATUS_UNJUDGED;
}

const kn_node_state *kn_eval_node(const kn_eval *ev, size_t i)
{
	return i < ev->n ? &ev->nodes[i].pub : NULL;
}

int kn_eval_node_judged(const kn_eval *ev, size_t i)
{
	return i < ev->n && ev->nodes[i].judged && ev->nodes[i].pub.score > 0;
}

size_t kn_eval_judged_count(const kn_eval *ev)
{
	size_t n = 0;
	for (size_t i = 0; i < ev->n; i++)
		n += (size_t)kn_eval_node_judged(ev, i);
	return n;
}

const double *kn_eval_step_scores(const kn_eval *ev, size_t *n)
{
	*n = ev->n_scores;
	return ev->step_scores;
}

void kn_summary_init(kn_summary *s)
{
	memset(s, 0, sizeof *s);
}

void kn_summary_add(kn_summary *s, const kn_eval *ev)
{
	kn_status st = kn_eval_status(ev);
	if (kn_status_excluded(st)) { /* not the agent's result: counted apart, as keynode run does */
		s->n_unjudged += st == KN_STATUS_UNJUDGED;
		s->n_blocked += st == KN_STATUS_BLOCKED;
		s->n_error += st == KN_STATUS_ERROR || st == KN_STATUS_BROKEN;
		return;
	}
	size_t missing = 0;
	for (size_t i = 0; i < ev->n; i++)
		missing += ev->nodes[i].pub.score < 1.0;
	s->tasks++;
	s->sum_reached += ev->reached;
	s->sum_total += (double)ev->n;
	s->sum_score += kn_eval_score(ev);
	s->sum_eff += kn_eval_efficiency(ev);
	s->n_success += kn_eval_completed(ev);
	size_t judged = kn_eval_judged_count(ev);
	s->n_judged_nodes += judged;
	s->n_judged_success += kn_eval_completed(ev) && judged;
	/* webcanvas: upstream's N − Σ scores == 1.0 (experiment_results.py), fractions as they are */
	s->n_near += ev->opts.mode == KN_MODE_WEBCANVAS ? (double)ev->n - ev->reached == 1.0
	                                                : missing == 1;
	int fn = kn_eval_functional(ev);
	if (fn >= 0) {
		s->n_functional_tasks++;
		s->n_functional_ok += (size_t)fn;
	}
	double r = kn_eval_reward(ev);
	if (r >= 0) {
		s->n_reward_tasks++;
		s->sum_reward += r;
		s->n_reward_full += r >= 1.0;
	}
}

void kn_summary_finish(kn_summary *s)
{
	double t = (double)s->tasks;
	s->key_node_completion_rate = s->sum_total > 0 ? s->sum_reached / s->sum_total : 0;
	s->average_step_score_rate = t > 0 ? s->sum_score / t : 0;
	s->task_success_rate = t > 0 ? (double)s->n_success / t : 0;
	s->task_near_success_rate = t > 0 ? (double)s->n_near / t : 0;
	s->efficiency_score = t > 0 ? s->sum_eff / t : 0;
	kn_summary_floor(s);
	s->functional_success_rate =
		s->n_functional_tasks ? (double)s->n_functional_ok / (double)s->n_functional_tasks : 0;
	double nr = (double)s->n_reward_tasks;
	s->task_score = nr > 0 ? 100.0 * s->sum_reward / nr : 0;
	s->reward_success_rate = nr > 0 ? (double)s->n_reward_full / nr : 0;
}

void kn_summary_floor(kn_summary *s)
{
	double t = (double)s->tasks;
	size_t judged = s->n_judged_success < s->n_success ? s->n_judged_success : s->n_success;
	s->judged_success_share = s->n_success ? (double)judged / (double)s->n_success : 0;
	s->deterministic_floor = t > 0 ? (double)(s->n_success - judged) / t : 0;
}

int kn_eval_run(kn_eval **out, const kn_task *task, const kn_eval_opts *opts, const kn_event *events,
                size_t n, size_t *judge_failures, kn_err *err)
{
	if (kn_eval_new(out, task, opts) != 0)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		kn_err e = {0};
		if (kn_eval_feed(*out, &events[i], &e) >= 0)
			continue;
		if (judge_failures)
			(*judge_failures)++;
		kn_err_set(err, e.code, "event %zu: %s", i + 1, e.msg); /* which one, as a file's line count */
	}
	return 0;
}
