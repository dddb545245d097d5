/* task_webarena.c — imports WebArena task configs (one config object, or a JSON array of them:
 * {task_id, intent, start_url, eval: {eval_types, reference_answers, reference_url, url_note,
 * program_html}}) as keynode tasks whose key nodes are functional checks (functional.h).
 * __NAME__ placeholders in URLs resolve from kn_load_opts.sites. Imported tasks follow the
 * `webarena` functional semantics (functional.h): page locators are wrapped so that prep_actions
 * run first, a throwing locator reads "", and the value read is Python's str() of it;
 * reddit_get_post_url('__last_url__') becomes a page check of the rewritten last URL; " |AND| "
 * start pages become one tab each. What keynode cannot map — another `func:` Python helper (site
 * API calls), an unknown eval type, a placeholder without a site — is added to the task's
 * `unmapped` list with its reason, never dropped silently. A malformed document is an error naming
 * its JSON path. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "keynode/functional.h"
#include "keynode/grow.h"
#include "keynode/task.h"

#define WA_MAX_TASKS 100000
#define WA_MAX_CHECKS 256   /* program_html entries of one task */

struct wa {
	const char *name;
	const kn_load_opts *opts;
	kn_err *err;
};

static int oom(struct wa *w)
{
	return kn_err_set(w->err, KN_ENOMEM, "out of memory");
}

static int note(struct wa *w, kn_task *t, const char *fmt, ...) KN_PRINTF(3, 4);
static int note(struct wa *w, kn_task *t, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return kn_task_add_unmapped(t, msg) ? oom(w) : 0;
}

/* Replace every __NAME__ whose NAME is a configured site. *out NULL with *missing set to the
 * first placeholder without a site (a static copy in missing_buf). */
static int resolve(struct wa *w, char **out, const char *s, char *missing, size_t mcap)
{
	*out = NULL;
	missing[0] = '\0';
	size_t cap = strlen(s) + 1, n = 0;
	char *r = malloc(cap);
	if (!r)
		return oom(w);
	for (const char *p = s; *p;) {
		const char *e = p[0] == '_' && p[1] == '_' ? strstr(p + 2, "__") : NULL;
		int name_ok = e && e > p + 2;
		for (const char *c = p + 2; name_ok && c < e; c++)
			name_ok = (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_';
		if (!name_ok) {
			r[n++] = *p++;
			continue;
		}
		const char *url = NULL;
		size_t nl = (size_t)(e - p - 2);
		for (size_t i = 0; w->opts && i < w->opts->n_sites && !url; i++)
			if (strlen(w->opts->sites[i].name) == nl && !memcmp(w->opts->sites[i].name, p + 2, nl))
				url = w->opts->sites[i].url;
		if (!url) {
			snprintf(missing, mcap, "%.*s", (int)(e + 2 - p), p);
			free(r);
			return 0;
		}
		size_t ul = strlen(url);
		while (ul && url[ul - 1] == '/' && e[2] == '/')
			ul--; /* "http://h/" + "/path" */
		cap += ul;
		char *nr = realloc(r, cap);
		if (!nr) {
			free(r);
			return oom(w);
		}
		r = nr;
		memcpy(r + n, url, ul);
		n += ul;
		p = e + 2;
	}
	r[n] = '\0';
	*out = r;
	return 0;
}

static char *dup_prefix(const char *s, size_t n)
{
	char *r = malloc(n + 1);
	if (r) {
		memcpy(r, s, n);
		r[n] = '\0';
	}
	return r;
}

static kn_keynode *add_node(kn_task *t, size_t *cap)
{
	if (kn_grow(&t->keynodes, t->n_keynodes, cap, sizeof *t->keynodes, 4))
		return NULL;
	kn_keynode *kn = &t->keynodes[t->n_keynodes++];
	memset(kn, 0, sizeof *kn);
	return kn;
}

static int set_id(struct wa *w, kn_keynode *kn, const char *id)
{
	return (kn->id = strdup(id)) ? 0 : oom(w);
}

/* kn_keynode_prepare, its error placed at the key node's source (fmt: "[3].eval.reference_url"). */
static int prepare(struct wa *w, kn_keynode *kn, const char *fmt, ...) KN_PRINTF(3, 4);
static int prepare(struct wa *w, kn_keynode *kn, const char *fmt, ...)
{
	kn_err e = {0};
	int rc = kn_keynode_prepare(kn, &e);
	if (!rc)
		return 0;
	char at[200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(at, sizeof at, fmt, ap);
	va_end(ap);
	return kn_err_set(w->err, rc, "%s: %s: %s", w->name, at, e.msg);
}

/* A string, or a list of strings, into kn->items. 1 when mapped, 0 when not (noted). */
static int read_items(struct wa *w, kn_task *t, kn_keynode *kn, json_t *v, const char *what)
{
	if (json_is_string(v))
		return kn_keynode_add_item(kn, json_string_value(v)) ? oom(w) : 1;
	if (!json_is_array(v) || json_array_size(v) == 0)
		return note(w, t, "%s: expected a string or a non-empty list of strings", what);
	size_t i;
	json_t *x;
	json_array_foreach(v, i, x) {
		char num[64];
		const char *s = json_is_string(x) ? json_string_value(x) : NULL;
		if (json_is_integer(x))
			snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT, json_integer_value(x)), s = num;
		if (!s)
			return note(w, t, "%s[%zu]: not a string", what, i);
		int rc = kn_keynode_add_item(kn, s);
		if (rc == KN_ELIMIT)
			return note(w, t, "%s: more than 1000 entries", what);
		if (rc)
			return oom(w);
	}
	return 1;
}

static void drop_last(kn_task *t)
{
	kn_keynode_clear(&t->keynodes[--t->n_keynodes]);
}

/* read_items into kn, the task's last key node, which is dropped when they are not mapped (0). */
static int take_items(struct wa *w, kn_task *t, kn_keynode *kn, json_t *v, const char *what)
{
	int r = read_items(w, t, kn, v, what);
	if (r == 0)
		drop_last(t);
	return r;
}

static int map_string_match(struct wa *w, kn_task *t, size_t *cap, json_t *ra, const char *at)
{
	if (!json_is_object(ra))
		return note(w, t, "string_match: reference_answers is missing or not an object");
	const char *k;
	json_t *v;
	char where[160];
	json_object_foreach(ra, k, v) {
		kn_matcher m;
		if (!strcmp(k, "exact_match"))
			m = KN_MATCH_EXACT;
		else if (!strcmp(k, "must_include"))
			m = KN_MATCH_MUST_INCLUDE;
		else if (!strcmp(k, "fuzzy_match"))
			m = KN_MATCH_FUZZY;
		else {
			int rc = note(w, t, "string_match: reference_answers.%.60s: unknown kind of answer check",
			              k);
			if (rc)
				return rc;
			continue;
		}
		kn_keynode *kn = add_node(t, cap);
		if (!kn)
			return oom(w);
		kn->target = KN_TARGET_ANSWER;
		kn->matcher = m;
		snprintf(where, sizeof where, "reference_answers.%s", k);
		if (set_id(w, kn, m == KN_MATCH_EXACT ? "answer_exact"
		                  : m == KN_MATCH_FUZZY ? "answer_fuzzy" : "answer_must_include"))
			return KN_ENOMEM;
		if (m == KN_MATCH_EXACT) {
			char num[64];
			const char *s = json_is_string(v) ? json_string_value(v) : NULL;
			if (json_is_integer(v))
				snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT, json_integer_value(v)), s = num;
			if (!s) {
				drop_last(t);
				int rc = note(w, t, "string_match: %s: expected a string", where);
				if (rc)
					return rc;
				continue;
			}
			if (!(kn->expect = strdup(s)))
				return oom(w);
			kn->clean = 1;
		} else {
			int r = take_items(w, t, kn, v, where);
			if (r <= 0) {
				if (r < 0)
					return r;
				continue;
			}
		}
		int rc = prepare(w, kn, "%s.eval.%s", at, where);
		if (rc)
			return rc;
	}
	return 0;
}

static int map_url_match(struct wa *w, kn_task *t, size_t *cap, json_t *ev, const char *at)
{
	json_t *ru = json_object_get(ev, "reference_url"), *un = json_object_get(ev, "url_note");
	if (!json_is_string(ru) || !*json_string_value(ru))
		return note(w, t, "url_match: reference_url is missing or empty");
	if (un && !json_is_null(un) &&
	    (!json_is_string(un) || strcmp(json_string_value(un), "GOLD in PRED") != 0))
		return note(w, t, "url_match: url_note '%.60s' is not supported (only \"GOLD in PRED\")",
		            json_is_string(un) ? json_string_value(un) : "?");
	char missing[80], *url = NULL;
	int rc = resolve(w, &url, json_string_value(ru), missing, sizeof missing);
	if (rc)
		return rc;
	if (!url)
		return note(w, t, "url_match: no site for %s (add it to the config's sites:)", missing);
	kn_keynode *kn = add_node(t, cap);
	if (!kn) {
		free(url);
		return oom(w);
	}
	kn->target = KN_TARGET_URL;
	kn->matcher = KN_MATCH_GOLD_IN_PRED;
	kn->expect = url;
	if (set_id(w, kn, "url"))
		return KN_ENOMEM;
	return prepare(w, kn, "%s.eval.reference_url", at);
}

/* Why a WebArena Python helper cannot run in keynode. */
static const char *helper_reason(const char *f)
{
	if (strstr(f, "shopping_get_latest_order_url") || strstr(f, "shopping_get_sku_latest_review"))
		return "calls the shop's Magento REST API with an admin token; keynode does not call site "
		       "APIs";
	if (strstr(f, "gitlab_get_project_memeber_role"))
		return "reads GitLab's project members page with a Python helper of its own";
	return "is a Python helper keynode cannot run";
}

/* Python's str() of a JavaScript value as Playwright hands it to Python: None, True/False, int or
 * float repr, repr() of strings inside lists and dicts. */
static const char py_str_js[] =
	"const q = s => { const d = s.includes(\"'\") && !s.includes('\"') ? '\"' : \"'\"; let r = d;"
	" for (const ch of s) { const c = ch.codePointAt(0),"
	" h = (n, w) => n.toString(16).padStart(w, '0');"
	" if (ch === d || ch === '\\\\') r += '\\\\' + ch; else if (ch === '\\n') r += '\\\\n';"
	" else if (ch === '\\r') r += '\\\\r'; else if (ch === '\\t') r += '\\\\t';"
	" else if (c < 0x20 || (c >= 0x7f && c < 0xa0)) r += '\\\\x' + h(c, 2);"
	" else if (c > 0x7f && /[\\p{C}\\p{Z}]/u.test(ch)) r += c < 0x100 ? '\\\\x' + h(c, 2) :"
	" c < 0x10000 ? '\\\\u' + h(c, 4) : '\\\\U' + h(c, 8); else r += ch; } return r + d; };"
	" const py = (v, top) => { if (v === null || v === undefined || typeof v === 'function' ||"
	" typeof v === 'symbol') return 'None'; if (v === true) return 'True'; if (v === false)"
	" return 'False'; if (typeof v === 'bigint') return v.toString(); if (typeof v === 'number') {"
	" if (Number.isNaN(v)) return 'nan'; if (!Number.isFinite(v)) return v > 0 ? 'inf' : '-inf';"
	" if (Object.is(v, -0)) return '-0.0'; if (Number.isInteger(v) && Math.abs(v) < 1e21)"
	" return BigInt(v).toString(); const [m, e] = v.toExponential().split('e'), x = +e;"
	" return x < -4 || x >= 16 ? m + 'e' + (x < 0 ? '-' : '+') + String(Math.abs(x)).padStart(2,"
	" '0') : String(v); } if (typeof v === 'string') return top ? v : q(v); if (Array.isArray(v))"
	" return '[' + v.map(x => py(x, 0)).join(', ') + ']'; return '{' + Object.keys(v).map(k =>"
	" q(k) + ': ' + py(v[k], 0)).join(', ') + '}'; };";

/* The js: locator of a program_html entry: Playwright's page.content() for an empty locator, else
 * the prep_actions (each awaited; the first failure ends them), then the locator — "" when it
 * throws — as Python's str(). NULL when out of memory. */
static char *wa_locator(const char *loc, json_t *prep)
{
	if (!*loc)
		return strdup("js:(() => { let r = ''; if (document.doctype) r = new XMLSerializer()"
		              ".serializeToString(document.doctype); if (document.documentElement)"
		              " r += document.documentElement.outerHTML; return r; })()");
	size_t n = strlen(loc) + sizeof py_str_js + 256, i;
	json_t *a;
	json_array_foreach(prep, i, a)
		if (json_is_string(a))
			n += strlen(json_string_value(a)) + 32;
	char *r = malloc(n);
	if (!r)
		return NULL;
	size_t k = (size_t)snprintf(r, n, "js:(async () => { %s try {", py_str_js);
	json_array_foreach(prep, i, a)
		if (json_is_string(a))
			k += (size_t)snprintf(r + k, n - k, " await (() => %s\n)();", json_string_value(a));
	snprintf(r + k, n - k, " } catch (e) {} let v; try { v = await (() => %s\n)(); }"
	         " catch (e) { return ''; } return py(v, 1); })()", loc);
	return r;
}

static int map_program_html(struct wa *w, kn_task *t, size_t *cap, json_t *ph, const char *at)
{
	if (!json_is_array(ph) || json_array_size(ph) == 0)
		return note(w, t, "program_html: missing or empty");
	size_t i;
	json_t *c;
	json_array_foreach(ph, i, c) {
		int rc = 0;
		if (i >= WA_MAX_CHECKS)
			return note(w, t, "program_html: entries past %d not mapped", WA_MAX_CHECKS);
		json_t *ju = json_object_get(c, "url"), *jl = json_object_get(c, "locator"),
		       *jr = json_object_get(c, "required_contents");
		if (!json_is_object(c) || !json_is_string(ju) || !json_is_string(jl) || !json_is_object(jr)) {
			if ((rc = note(w, t, "program_html[%zu]: needs url, locator and required_contents", i)))
				return rc;
			continue;
		}
		const char *u = json_string_value(ju), *loc = json_string_value(jl);
		int reddit = !strcmp(u, "func:reddit_get_post_url('__last_url__')");
		if ((!strncmp(u, "func:", 5) && !reddit) || !strncmp(loc, "func:", 5) ||
		    !strncmp(loc, "lambda", 6)) {
			const char *f = !strncmp(u, "func:", 5) && !reddit ? u : loc;
			if ((rc = note(w, t, "program_html[%zu]: '%.70s' %s", i, f, helper_reason(f))))
				return rc;
			continue;
		}
		json_t *prep = json_object_get(c, "prep_actions");
		if (*loc && strncmp(loc, "document.", 9) != 0 && strncmp(loc, "[...document.", 13) != 0) {
			if ((rc = note(w, t, "program_html[%zu]: locator '%.60s' is neither empty nor a "
			               "document. expression (WebArena raises on it)", i, loc)))
				return rc;
			continue;
		}
		if (prep && !json_is_array(prep)) { /* (for an empty locator WebArena ignores them, so do we) */
			if ((rc = note(w, t, "program_html[%zu]: prep_actions must be a list", i)))
				return rc;
			continue;
		}
		json_t *ex = json_object_get(jr, "exact_match"), *mi = json_object_get(jr, "must_include");
		if ((!ex && !mi) || json_object_size(jr) != 1) {
			if ((rc = note(w, t, "program_html[%zu]: required_contents must hold exact_match or "
			               "must_include", i)))
				return rc;
			continue;
		}
		char missing[80], *url = NULL;
		if (strcmp(u, "last") != 0 && !reddit) {
			if ((rc = resolve(w, &url, u, missing, sizeof missing)))
				return rc;
			if (!url) {
				if ((rc = note(w, t, "program_html[%zu]: no site for %s (add it to the config's "
				               "sites:)", i, missing)))
					return rc;
				continue;
			}
		}
		kn_keynode *kn = add_node(t, cap);
		if (!kn) {
			free(url);
			return oom(w);
		}
		char id[32];
		snprintf(id, sizeof id, "page%zu", i + 1);
		kn->target = KN_TARGET_PAGE;
		kn->page_url = url;
		kn->page_from_last = reddit ? KN_PAGE_REDDIT_POST : 0;
		if (set_id(w, kn, id))
			return KN_ENOMEM;
		if (!(kn->locator = wa_locator(loc, prep)))
			return oom(w);
		if (ex) {
			kn->matcher = KN_MATCH_EXACT;
			if (!json_is_string(ex)) {
				drop_last(t);
				if ((rc = note(w, t, "program_html[%zu]: exact_match must be a string", i)))
					return rc;
				continue;
			}
			if (!(kn->expect = strdup(json_string_value(ex))))
				return oom(w);
		} else {
			kn->matcher = KN_MATCH_MUST_INCLUDE;
			char what[64];
			snprintf(what, sizeof what, "program_html[%zu].must_include", i);
			int r = take_items(w, t, kn, mi, what);
			if (r <= 0) {
				if (r < 0)
					return r;
				continue;
			}
		}
		if ((rc = prepare(w, kn, "%s.eval.program_html[%zu]", at, i)))
			return rc;
	}
	return 0;
}

/* start_url: several start pages are joined by " |AND| " (WebArena opens one tab each): the first
 * is the task's start_url, the others go to more_start_urls. */
static int map_start_urls(struct wa *w, kn_task *t, const char *s)
{
	size_t cap = 0;
	for (size_t idx = 0;; idx++) {
		const char *and = strstr(s, " |AND| ");
		char *one = and ? dup_prefix(s, (size_t)(and - s)) : strdup(s), missing[80], *url = NULL;
		if (!one)
			return oom(w);
		int rc = resolve(w, &url, one, missing, sizeof missing);
		free(one);
		if (rc)
			return rc;
		if (!url) {
			if ((rc = note(w, t, "start_url: no site for %s (add it to the config's sites:)",
			               missing)))
				return rc;
		} else if (idx == 0) {
			t->start_url = url;
		} else {
			if (kn_grow(&t->more_start_urls, t->n_more_start_urls, &cap, sizeof *t->more_start_urls, 4)) {
				free(url);
				return oom(w);
			}
			t->more_start_urls[t->n_more_start_urls++] = url;
		}
		if (!and)
			return 0;
		s = and + 7;
	}
}

static int load_task(struct wa *w, kn_task *t, json_t *jt, const char *at)
{
	if (!json_is_object(jt))
		return kn_err_set(w->err, KN_EINVAL, "%s: %s: expected a task config object", w->name, at);
	json_t *id = json_object_get(jt, "task_id"), *in = json_object_get(jt, "intent"),
	       *su = json_object_get(jt, "start_url"), *ev = json_object_get(jt, "eval");
	char num[64];
	if (json_is_integer(id))
		snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT, json_integer_value(id));
	else if (json_is_string(id) && *json_string_value(id))
		snprintf(num, sizeof num, "%.60s", json_string_value(id));
	else
		return kn_err_set(w->err, KN_EINVAL, "%s: %s.task_id: expected an integer or a string",
		                  w->name, at);
	if (!json_is_string(in))
		return kn_err_set(w->err, KN_EINVAL, "%s: %s.intent: expected a string", w->name, at);
	if (!json_is_object(ev))
		return kn_err_set(w->err, KN_EINVAL, "%s: %s.eval: expected an object", w->name, at);
	if (!(t->id = strdup(num)) || !(t->intent = strdup(json_string_value(in))))
		return oom(w);
	int rc;
	t->func_sem = KN_FUNC_SEM_WEBARENA;
	if (json_is_string(su) && (rc = map_start_urls(w, t, json_string_value(su))))
		return rc;
	json_t *types = json_object_get(ev, "eval_types");
	if (!json_is_array(types))
		return kn_err_set(w->err, KN_EINVAL, "%s: %s.eval.eval_types: expected a list", w->name, at);
	size_t cap = 0, i;
	json_t *ty;
	json_array_foreach(types, i, ty) {
		const char *s = json_is_string(ty) ? json_string_value(ty) : "";
		if (!strcmp(s, "string_match"))
			rc = map_string_match(w, t, &cap, json_object_get(ev, "reference_answers"), at);
		else if (!strcmp(s, "url_match"))
			rc = map_url_match(w, t, &cap, ev, at);
		else if (!strcmp(s, "program_html"))
			rc = map_program_html(w, t, &cap, json_object_get(ev, "program_html"), at);
		else
			rc = note(w, t, "eval_types[%zu]: '%.60s' is not a known eval type", i, s);
		if (rc)
			return rc;
	}
	if (json_array_size(types) == 0 && (rc = note(w, t, "eval.eval_types is empty")))
		return rc;
	return 0;
}

int kn_task_load_webarena(kn_taskset **out, const char *buf, size_t len, const char *name,
                          const kn_load_opts *opts, kn_err *err)
{
	*out = NULL;
	struct wa w = {name, opts, err};
	size_t max = opts && opts->max_bytes ? opts->max_bytes : KN_LOAD_MAX_BYTES;
	if (len > max)
		return kn_err_set(err, KN_ELIMIT, "%s: document is over the %zu byte limit", name, max);
	json_error_t je;
	json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
	if (!root)
		return kn_err_set(err, KN_EINVAL, "%s:%d:%d: %s", name, je.line, je.column, je.text);
	size_t n = json_is_array(root) ? json_array_size(root) : 1;
	kn_taskset *set;
	int rc = kn_taskset_start(&set, name, KN_FORMAT_WEBARENA, err);
	if (rc)
		goto done;
	if (!json_is_array(root) && !json_is_object(root)) {
		rc = kn_err_set(err, KN_EINVAL, "%s: expected a WebArena config object or a list of them",
		                name);
		goto done;
	}
	if (n > WA_MAX_TASKS) {
		rc = kn_err_set(err, KN_ELIMIT, "%s: more than %d tasks", name, WA_MAX_TASKS);
		goto done;
	}
	if (n && !(set->tasks = calloc(n, sizeof *set->tasks))) {
		rc = oom(&w);
		goto done;
	}
	for (size_t i = 0; i < n && !rc; i++) {
		char at[32];
		snprintf(at, sizeof at, json_is_array(root) ? "[%zu]" : "$", i);
		set->n_tasks++;
		rc = load_task(&w, &set->tasks[i], json_is_array(root) ? json_array_get(root, i) : root,
		               at);
	}
done:
	json_decref(root);
	return kn_taskset_finish(out, set, rc, name, "task_id", err);
}
