/* repair.c — repair proposals for a validated replay (repair.h): for a step that
 * passed only through a fallback, healing or a drift (its recorded selector no longer finds the
 * element, or finds one its hints contradict), the stable selector that finds that element alone
 * now (id, name, test-id, aria-label, role + name, href, text, then a path: page_js.c alts) and the
 * hints as they read now, in workflow-file syntax; for a URL key node not reached, the same value
 * under a renamed query parameter or a path whose segments changed, as seen on a page a step
 * visited; for an element key node, the selector its step's element moved to. Each is proven by
 * replaying the task again with every proposal applied in memory: only a proposal whose step then
 * passes without drift (and whose key node is then reached) is `verified`. Nothing is written to
 * the user's files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "heal.h"
#include "keynode/clock.h"
#include "keynode/grow.h"
#include "keynode/match.h"
#include "keynode/selector.h"
#include "keynode/workflow.h"
#include "repair.h"

/* Strings and regexes the patched task owns (the rest is borrowed from the task). */
struct own {
	char **s;
	size_t n, cap;
	void *re[64];
	size_t nre;
};

/* Keep s (owned from now on); NULL when s is NULL or cannot be kept (then freed). */
static char *keep(struct own *o, char *s)
{
	if (!s)
		return NULL;
	if (kn_grow(&o->s, o->n, &o->cap, sizeof *o->s, 32)) {
		free(s);
		return NULL;
	}
	return o->s[o->n++] = s;
}

static char *keepdup(struct own *o, const char *s) { return s ? keep(o, strdup(s)) : NULL; }

static void own_free(struct own *o)
{
	for (size_t i = 0; i < o->n; i++)
		free(o->s[i]);
	free(o->s);
	for (size_t i = 0; i < o->nre; i++)
		kn_regex_free(o->re[i]);
}

/* One proposal. */
struct prop {
	int step;          /* 1-based step it is seen at */
	const char *kind;  /* "selector", "url_key_node", "element_key_node" */
	int node;          /* key node index; -1 for a selector */
	char *was, *proposed; /* owned by struct own */
	kn_step st;        /* selector: the step proposed */
	kn_keynode kn;     /* key node kinds: the key node proposed */
};

static const char *jstr(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : "";
}

static int differs(const char *was, const char *now) { return was && strcmp(was, now) != 0; }

/* A hint: the value the element has now when it was recorded and differs (an empty value drops
 * the hint). *first gets the first hint changed, as `name: "value"`. */
static char *hint(struct own *o, char *was, const char *now, const char *name, char **first_was,
                  char **first_now)
{
	if (!differs(was, now))
		return was;
	if (!*first_was) {
		size_t n = strlen(name) + strlen(was) + strlen(now) + 8;
		char *a = malloc(n), *b = malloc(n);
		if (a)
			snprintf(a, n, "%s: \"%s\"", name, was);
		if (b)
			snprintf(b, n, "%s: \"%s\"", name, now);
		*first_was = keep(o, a);
		*first_now = keep(o, b);
	}
	return *now ? keepdup(o, now) : NULL;
}

/* The step's proposal from what the page said of its element (found_now: {alts, sig}). */
static int step_prop(struct own *o, const kn_step *st, const kn_step_report *s, json_t *rstep,
                     struct prop *p)
{
	json_t *fn = s->found_now ? json_loads(s->found_now, 0, NULL) : NULL;
	json_t *sig = json_object_get(fn, "sig"), *alts = json_object_get(fn, "alts");
	const char *sel = st->selector;
	if (sig && s->locator && strcmp(s->locator, "selector") != 0) /* the best stable selector now */
		sel = json_array_size(alts) ? jstr(json_array_get(alts, 0), "sel") : s->proposed;
	p->st = *st;
	p->st.selector = sel && *sel ? keepdup(o, sel) : st->selector;
	char *hw = NULL, *hn = NULL;
	if (json_is_object(sig)) { /* the hints as the element has them now */
		p->st.hint_id = hint(o, st->hint_id, jstr(sig, "id"), "id", &hw, &hn);
		p->st.hint_name = hint(o, st->hint_name, jstr(sig, "name"), "name", &hw, &hn);
		p->st.hint_test_id = hint(o, st->hint_test_id, jstr(sig, "testid"), "test_id", &hw, &hn);
		p->st.hint_aria_label = hint(o, st->hint_aria_label, jstr(sig, "aria"), "aria_label", &hw, &hn);
		if (st->hint_href && !kn_heal_hrefs_agree(st->hint_href, jstr(sig, "href")))
			p->st.hint_href = hint(o, st->hint_href, jstr(sig, "href"), "href", &hw, &hn);
		if (st->verb == KN_STEP_CLICK)
			p->st.text = hint(o, st->text, jstr(sig, "text"), "text", &hw, &hn);
		p->st.tag = hint(o, st->tag, jstr(sig, "tag"), "tag", &hw, &hn);
	}
	/* the postcondition as it reads now, when it no longer held */
	const char *url = json_string_value(json_object_get(rstep, "url"));
	if (json_is_false(json_object_get(rstep, "postcondition")) && url)
		p->st.expect_url = hint(o, st->expect_url, url, "after.url", &hw, &hn);
	json_decref(fn);
	int moved = p->st.selector && st->selector && strcmp(p->st.selector, st->selector) != 0;
	if (!moved && !hw)
		return 0;
	p->was = moved ? keepdup(o, st->selector) : hw;
	p->proposed = moved ? p->st.selector : hn;
	p->kind = "selector";
	p->node = -1;
	return p->was && p->proposed;
}

/* A URL key node not reached: a proposal from the URLs the steps reached. */
static int url_prop(struct own *o, const kn_task *task, const kn_replay_result *res, size_t j, struct prop *p)
{
	const kn_keynode *kn = &task->keynodes[j];
	for (size_t i = 0; i < res->n_steps; i++) {
		const char *url = res->steps[i].url_after;
		const kn_step *st = &task->steps[i];
		const char *was = st->expect_url ? st->expect_url : st->verb == KN_STEP_CLICK ? st->hint_href : NULL;
		char *key = NULL, *expect = NULL;
		if (!url || kn_repair_url(kn, url, was, &key, &expect) != 1)
			continue;
		int had = key || expect;
		key = keep(o, key);
		expect = keep(o, expect);
		if (had && !key && !expect)
			return 0; /* out of memory */
		p->kn = *kn;
		p->kn.key = key ? key : kn->key;
		p->kn.expect = expect ? expect : kn->expect;
		p->kn.ref_url = kn->ref_url ? keepdup(o, url) : NULL; /* where it is seen now */
		size_t n = strlen(kn->key ? kn->key : "") + strlen(key ? key : "") + 16;
		char *w = key ? malloc(n) : NULL, *q = key ? malloc(n) : NULL;
		if (w)
			snprintf(w, n, "key: %s", kn->key);
		if (q)
			snprintf(q, n, "key: %s", key);
		p->was = key ? keep(o, w) : keepdup(o, kn->expect);
		p->proposed = key ? keep(o, q) : expect;
		p->step = (int)i + 1;
		p->kind = "url_key_node";
		p->node = (int)j;
		return p->was && p->proposed;
	}
	return 0;
}

/* An element key node not reached whose selector is a step's whose element moved: that step's
 * new selector. */
static int element_prop(struct own *o, const kn_task *task, const struct prop *props, size_t np, size_t j,
                        struct prop *p)
{
	const kn_keynode *kn = &task->keynodes[j];
	const char *sel = kn->target == KN_TARGET_ELEMENT_PATH && kn->matcher == KN_MATCH_EXACT ? kn->expect
	                  : kn->target == KN_TARGET_ELEMENT_VALUE ? kn->path : NULL;
	if (!sel || !kn->norm_selector)
		return 0;
	for (size_t i = 0; i < np; i++) {
		const kn_step *st = &task->steps[props[i].step - 1];
		char *ns = NULL;
		if (props[i].node >= 0 || !st->selector || strcmp(st->selector, props[i].st.selector) == 0 ||
		    kn_selector_normalise(&ns, st->selector) != 0)
			continue;
		int same = strcmp(ns, kn->norm_selector) == 0;
		free(ns);
		if (!same)
			continue;
		p->kn = *kn;
		if (kn->target == KN_TARGET_ELEMENT_PATH)
			p->kn.expect = props[i].st.selector;
		else
			p->kn.path = props[i].st.selector;
		p->kn.xpath = props[i].st.selector[0] == '/' || props[i].st.selector[0] == '(';
		p->was = keepdup(o, sel);
		p->proposed = props[i].st.selector;
		p->step = props[i].step;
		p->kind = "element_key_node";
		p->node = (int)j;
		return p->was != NULL;
	}
	return 0;
}

/* The key node proposed in the task file's syntax: a YAML list item, or a Mind2Web-Live
 * evaluation object. Caller frees. */
static char *keynode_text(const kn_keynode *kn, kn_format fmt)
{
	if (fmt == KN_FORMAT_MIND2WEB) {
		json_t *c = json_pack("{s:s, s:s, s:s}", "key", kn->key ? kn->key : "", "reference_answer", kn->expect,
		                      "url", kn->ref_url ? kn->ref_url : "");
		if (c && kn->netloc)
			json_object_set_new(c, "netloc", json_string(kn->netloc));
		if (c && kn->path)
			json_object_set_new(c, "path", json_string(kn->path));
		json_t *e = json_pack("{s:s, s:o}", "match_function_name", kn->function ? kn->function : "", "content", c);
		if (e && kn->xpath)
			json_object_set_new(e, "method", json_string("xpath"));
		char *s = e ? json_dumps(e, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
		json_decref(e);
		return s;
	}
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	if (!f)
		return NULL;
	fputs("- id: ", f);
	kn_workflow_put_str(f, kn->id);
	fprintf(f, "\n  %s: {", kn_target_name(kn->target));
	const char *keys[] = {"key", "path", "netloc"}, *vals[] = {kn->key, kn->path, kn->netloc};
	for (int i = 0; i < 3; i++)
		if (vals[i]) {
			fprintf(f, " %s: ", keys[i]);
			kn_workflow_put_str(f, vals[i]);
			fputc(',', f);
		}
	fprintf(f, " %s: ", kn_matcher_name(kn->matcher));
	kn_workflow_put_str(f, kn->expect);
	fputs(" }\n", f);
	fclose(f);
	return buf;
}

/* The step proposed in workflow-file syntax, a list item at column 0. Caller frees. */
static char *step_text(const kn_step *st)
{
	char *buf = NULL, *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	if (!f)
		return NULL;
	kn_workflow_write_step(f, st);
	fclose(f);
	if (buf && (out = malloc(n + 1))) { /* written indented by two: take them off each line */
		size_t w = 0;
		for (const char *l = buf; *l;) {
			const char *e = strchr(l, '\n');
			size_t len = e ? (size_t)(e - l) + 1 : strlen(l);
			size_t skip = len > 2 && l[0] == ' ' && l[1] == ' ' ? 2 : 0;
			memcpy(out + w, l + skip, len - skip);
			w += len - skip;
			l += len;
		}
		out[w] = '\0';
	}
	free(buf);
	return out;
}

/* Apply every proposal to a copy of task (borrowing the rest) and prepare the key nodes changed. */
static int patch(struct own *o, const kn_task *task, struct prop *props, size_t np, kn_task *t)
{
	*t = *task;
	t->steps = malloc(task->n_steps * sizeof *t->steps);
	t->keynodes = task->n_keynodes ? malloc(task->n_keynodes * sizeof *t->keynodes) : NULL;
	if (!t->steps || (task->n_keynodes && !t->keynodes))
		return KN_ENOMEM;
	memcpy(t->steps, task->steps, task->n_steps * sizeof *t->steps);
	if (task->n_keynodes)
		memcpy(t->keynodes, task->keynodes, task->n_keynodes * sizeof *t->keynodes);
	for (size_t i = 0; i < np; i++) {
		if (props[i].node < 0) {
			t->steps[props[i].step - 1] = props[i].st;
			continue;
		}
		kn_keynode *kn = &props[i].kn;
		kn->norm_selector = kn->semantic_phrase = NULL;
		kn->regex = NULL;
		kn_err err;
		int rc = kn_keynode_prepare(kn, &err);
		kn->norm_selector = keep(o, kn->norm_selector);
		kn->semantic_phrase = keep(o, kn->semantic_phrase);
		if (kn->regex && o->nre < sizeof o->re / sizeof o->re[0]) {
			o->re[o->nre++] = kn->regex;
		} else if (kn->regex) { /* more regex key nodes proposed than kept: not verified */
			kn_regex_free(kn->regex);
			kn->regex = NULL;
			rc = KN_ELIMIT;
		}
		if (rc)
			return rc;
		t->keynodes[props[i].node] = *kn;
	}
	return 0;
}

/* Whether the verification report reached key node i. */
static int reached(json_t *doc, size_t i)
{
	return json_is_true(json_object_get(json_array_get(json_object_get(json_object_get(doc, "replay"), "key_nodes"), i),
	                                    "reached"));
}

json_t *kn_replay_repairs(kn_cdp_loop *loop, const char *ws, const kn_task *task,
                          const kn_validate_opts *o, const kn_replay_result *res, json_t *doc)
{
	json_t *out = json_array();
	struct own own = {0};
	struct prop *props = calloc(task->n_steps + task->n_keynodes + 1, sizeof *props);
	size_t np = 0;
	json_t *rsteps = json_object_get(json_object_get(doc, "replay"), "steps");
	for (size_t i = 0; props && res && i < res->n_steps && i < task->n_steps; i++) {
		const kn_step_report *s = &res->steps[i];
		const kn_step *st = &task->steps[i];
		json_t *rs = json_array_get(rsteps, i);
		if (!(s->outcome == KN_STEP_OK_FALLBACK && s->found_now) &&
		    !(kn_step_outcome_ok(s->outcome) && json_is_false(json_object_get(rs, "postcondition"))))
			continue; /* neither drifted nor, working, ended elsewhere than recorded */
		if (kn_selector_chain_sep(st->selector, 0) >= 0)
			continue; /* a selector into frames: not proposed (the page saw the part in the frame) */
		props[np].step = (int)i + 1;
		np += step_prop(&own, st, s, rs, &props[np]);
	}
	size_t nsteps = np;
	for (size_t j = 0; props && res && j < task->n_keynodes; j++) {
		if (reached(doc, j))
			continue;
		const kn_keynode *kn = &task->keynodes[j];
		if (kn->target == KN_TARGET_URL)
			np += url_prop(&own, task, res, j, &props[np]);
		else if (kn->target == KN_TARGET_ELEMENT_PATH || kn->target == KN_TARGET_ELEMENT_VALUE)
			np += element_prop(&own, task, props, nsteps, j, &props[np]);
	}
	kn_task t = {0};
	kn_replay_report *vrep = NULL;
	json_t *vdoc = NULL, *drift = json_array();
	char when[KN_TIME_MAX] = "";
	const char *vstatus = "error";
	if (np && out && drift && patch(&own, task, props, np, &t) == 0) {
		kn_validate_opts vo = *o; /* the same replay, nothing recorded, nothing proposed */
		vo.repairs = 0;
		vo.trace = NULL;
		vo.trajectory = NULL;
		vo.run_id = NULL;
		vo.watch = NULL; /* a proof is nobody's to watch or take over */
		vo.replay.progress = NULL;
		vo.replay.answers = NULL;
		kn_err err = {0};
		if (kn_replay_validate(loop, ws, &t, &vo, &vrep, &err) == 0) {
			vdoc = json_loads(kn_replay_report_json(vrep), 0, NULL);
			vstatus = kn_replay_status_name(kn_replay_report_status(vrep));
			kn_time_rfc3339(when, time(NULL));
		}
		size_t i;
		json_t *d;
		json_array_foreach(json_object_get(json_object_get(vdoc, "replay"), "drift"), i, d)
			json_array_append(drift, json_object_get(d, "step"));
	}
	for (size_t i = 0; out && i < np; i++) {
		const struct prop *p = &props[i];
		int ok = vdoc && strcmp(vstatus, "passed") == 0 && (p->node < 0 || reached(vdoc, (size_t)p->node));
		size_t k;
		json_t *d;
		json_array_foreach(drift, k, d)
			ok = ok && json_integer_value(d) != p->step;
		char *text = p->node < 0 ? step_text(&p->st) : keynode_text(&p->kn, o->task_format);
		json_array_append_new(out, json_pack("{s:i, s:s, s:o, s:s, s:s, s:s?, s:b, s:o, s:{s:s, s:O}}", "step", p->step,
		                                     "kind", p->kind, "key_node",
		                                     p->node >= 0 ? json_string(task->keynodes[p->node].id) : json_null(),
		                                     "was", p->was, "proposed", p->proposed, "yaml", text, "verified", ok,
		                                     "verified_at", ok ? json_string(when) : json_null(), "verify_report",
		                                     "status", vdoc ? vstatus : "not run", "drift_steps", drift));
		free(text);
	}
	json_decref(vdoc);
	json_decref(drift);
	kn_replay_report_free(vrep);
	free(t.steps);
	free(t.keynodes);
	free(props);
	own_free(&own);
	return out;
}

void kn_replay_report_print_repairs(const kn_replay_report *r, FILE *f)
{
	json_t *doc = json_loads(kn_replay_report_json(r), 0, NULL), *p;
	size_t i;
	json_array_foreach(json_object_get(doc, "repairs"), i, p) {
		const char *node = json_string_value(json_object_get(p, "key_node"));
		json_t *vr = json_object_get(p, "verify_report");
		fprintf(f, "  repair: step %lld %s%s: %s -> %s\n", (long long)json_integer_value(json_object_get(p, "step")),
		        node ? "key node " : "selector", node ? node : "", jstr(p, "was"), jstr(p, "proposed"));
		if (json_is_true(json_object_get(p, "verified"))) {
			fprintf(f, "    proposal verified by replay at %s (not applied: edit the %s yourself)\n",
			        jstr(p, "verified_at"), node ? "task file" : "workflow");
			for (const char *l = jstr(p, "yaml"); *l;) {
				size_t len = strcspn(l, "\n");
				fprintf(f, "      %.*s\n", (int)len, l);
				l += len + (l[len] == '\n');
			}
		} else {
			fprintf(f, "    NOT verified: the replay with it applied was %s", jstr(vr, "status"));
			json_t *ds = json_object_get(vr, "drift_steps"), *d;
			size_t k;
			json_array_foreach(ds, k, d)
				fprintf(f, "%s%lld", k ? ", " : ", drift at step ", (long long)json_integer_value(d));
			fputs(" — not a fix\n", f);
		}
	}
	json_decref(doc);
}
