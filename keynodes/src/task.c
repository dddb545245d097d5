/* task.c — the task model: function names, key-node preparation, freeing, lookup, and the
 * content-sniffing entry points that hand a document to the YAML or Mind2Web-Live loader. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keynode/fs.h"
#include "keynode/match.h"
#include "keynode/guard.h"
#include "keynode/purchase.h"
#include "keynode/request.h"
#include "keynode/task.h"

static const char *const target_names[] = {"url", "element_path", "element_value", "answer",
                                           "cache_data", "page", "request", "websocket"};
static const char *const matcher_names[] = {"exact", "include", "semantic", "regex",
                                            "must_include", "fuzzy", "gold_in_pred"};
#define N_TARGET_NAMES 8
#define N_MATCHER_NAMES 7
static const char *const verb_names[] = {"goto", "click", "type", "select", "press",
                                         "scroll", "wait", "back", "forward", "answer", "dialog"};

const char *kn_target_name(kn_target t)
{
	return (unsigned)t < N_TARGET_NAMES ? target_names[t] : "?";
}

const char *kn_matcher_name(kn_matcher m)
{
	return (unsigned)m < N_MATCHER_NAMES ? matcher_names[m] : "?";
}

const char *kn_step_verb_name(kn_step_verb v)
{
	return (unsigned)v <= KN_STEP_LAST ? verb_names[v] : "?";
}

static int name_index(const char *const *names, int n, const char *s, size_t len)
{
	for (int i = 0; i < n; i++)
		if (strlen(names[i]) == len && memcmp(names[i], s, len) == 0)
			return i;
	return -1;
}

int kn_target_from_name(const char *name, size_t len)
{
	return name_index(target_names, N_TARGET_NAMES, name, len);
}

int kn_matcher_from_name(const char *name, size_t len)
{
	return name_index(matcher_names, N_MATCHER_NAMES, name, len);
}

int kn_step_verb_from_name(const char *name, size_t len)
{
	return name_index(verb_names, KN_STEP_LAST + 1, name, len);
}

int kn_matcher_allowed(kn_target t, kn_matcher m)
{
	return (unsigned)m < KN_MATCH_MUST_INCLUDE ||
	       ((unsigned)m < N_MATCHER_NAMES && kn_keynode_function_name(t, m) != NULL);
}

const char *kn_matcher_list(kn_target t, char *buf, size_t cap)
{
	int n = 0, total = 0;
	for (int m = 0; m < N_MATCHER_NAMES; m++)
		total += kn_matcher_allowed(t, (kn_matcher)m);
	size_t used = 0;
	if (cap)
		buf[0] = '\0';
	for (int m = 0; m < N_MATCHER_NAMES && cap; m++) {
		if (!kn_matcher_allowed(t, (kn_matcher)m))
			continue;
		const char *sep = n == 0 ? "" : n == total - 1 ? " or " : ", ";
		int w = snprintf(buf + used, cap - used, "%s%s", sep, matcher_names[m]);
		if (w < 0 || (size_t)w >= cap - used)
			break;
		used += (size_t)w;
		n++;
	}
	return buf;
}

/* Mind2Web-Live function names, indexed [target][matcher]; NULL where upstream has none
 * (regex is keynode's extension and gets a name in the same pattern). */
static const char *const function_names[N_TARGET_NAMES][N_MATCHER_NAMES] = {
	{"url_exactly_match", "url_included_match", "url_semantic_match", "url_regex_match", NULL,
	 NULL, "url_gold_in_pred_match"},
	{"element_path_exactly_match", "element_path_included_match", NULL, "element_path_regex_match",
	 NULL, NULL, NULL},
	{"element_value_exactly_match", "element_value_included_match",
	 "element_value_semantic_match", "element_value_regex_match", NULL, NULL, NULL},
	{"final_answer_exact_match", "final_answer_included_match", "final_answer_semantic_match",
	 "final_answer_regex_match", "final_answer_must_include_match", "final_answer_fuzzy_match",
	 NULL},
	{"cache_data_exact_match", "cache_data_included_match", "cache_data_semantic_match",
	 "cache_data_regex_match", "cache_data_must_include_match", "cache_data_fuzzy_match", NULL},
	{"page_exact_match", NULL, NULL, "page_regex_match", "page_must_include_match", NULL, NULL},
	{"request_match", NULL, NULL, NULL, NULL, NULL, NULL}, /* keynode's extension (request.h) */
	{"websocket_match", NULL, NULL, NULL, NULL, NULL, NULL}, /* keynode's extension (request.h) */
};

const char *kn_keynode_function_name(kn_target target, kn_matcher matcher)
{
	if ((unsigned)target >= N_TARGET_NAMES || (unsigned)matcher >= N_MATCHER_NAMES)
		return NULL;
	return function_names[target][matcher];
}

int kn_keynode_parse_function(kn_keynode *kn, const char *name)
{
	for (int t = 0; t < N_TARGET_NAMES; t++)
		for (int m = 0; m < N_MATCHER_NAMES; m++)
			if (function_names[t][m] && strcmp(function_names[t][m], name) == 0) {
				kn->target = (kn_target)t;
				kn->matcher = (kn_matcher)m;
				return 0;
			}
	return KN_EINVAL;
}

int kn_keynode_prepare(kn_keynode *kn, kn_err *err)
{
	const char *fn = kn_keynode_function_name(kn->target, kn->matcher);
	if (!fn)
		return kn_err_set(err, KN_EINVAL, "matcher '%s' is not available for target '%s'",
		                  kn_matcher_name(kn->matcher), kn_target_name(kn->target));
	if (!kn->expect && kn->n_items && kn_keynode_join_items(kn) != 0)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	if (kn->target == KN_TARGET_REQUEST && !kn->request)
		return kn_err_set(err, KN_EINVAL, "a request key node needs its method, url or body");
	if (kn->target == KN_TARGET_WEBSOCKET && (!kn->request || !kn->request->websocket))
		return kn_err_set(err, KN_EINVAL, "a websocket key node needs its url or message");
	if ((kn->target == KN_TARGET_REQUEST || kn->target == KN_TARGET_WEBSOCKET) && !kn->expect &&
	    kn_request_spec_describe(&kn->expect, kn->request) != 0)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	if (!kn->expect)
		return kn_err_set(err, KN_EINVAL, "missing expected value");
	if (kn->target == KN_TARGET_PAGE && (!kn->locator || !*kn->locator))
		return kn_err_set(err, KN_EINVAL, "a page check needs a locator (a CSS selector or "
		                                  "\"js:EXPRESSION\")");
	if (kn->target == KN_TARGET_PAGE && strncmp(kn->locator, "js:", 3) == 0 && !kn->locator[3])
		return kn_err_set(err, KN_EINVAL, "the locator \"js:\" has no expression");
	if ((kn->matcher == KN_MATCH_MUST_INCLUDE || kn->matcher == KN_MATCH_FUZZY) && !kn->n_items &&
	    kn_keynode_add_item(kn, kn->expect) != 0)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	/* the WebArena matchers and page checks are end-state (functional) checks */
	if (kn->target == KN_TARGET_PAGE || kn->matcher >= KN_MATCH_MUST_INCLUDE || kn->clean)
		kn->functional = 1;
	if (kn->target == KN_TARGET_PAGE && kn->matcher == KN_MATCH_EXACT)
		kn->clean = 1;
	if (!kn->function && !(kn->function = strdup(fn)))
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	const char *sel = kn->target == KN_TARGET_ELEMENT_PATH ? kn->expect : kn->path;
	if (sel && !kn->norm_selector && kn_selector_normalise(&kn->norm_selector, sel) != 0)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	if (kn->matcher == KN_MATCH_SEMANTIC && !kn->semantic_phrase &&
	    kn_semantic_extract_phrase(&kn->semantic_phrase, kn->expect) != 0)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	if (kn->matcher == KN_MATCH_REGEX && !kn->regex) {
		kn_err re;
		int rc = kn_regex_compile(&kn->regex, kn->expect, &re);
		if (rc != 0)
			return kn_err_set(err, rc, "bad regex: %s", re.msg);
	}
	return 0;
}

#define KN_ITEMS_MAX 1000 /* entries of one must_include / fuzzy list */

int kn_keynode_add_item(kn_keynode *kn, const char *item)
{
	if (kn->n_items >= KN_ITEMS_MAX)
		return KN_ELIMIT;
	char **ni = realloc(kn->items, (kn->n_items + 1) * sizeof *ni);
	if (!ni)
		return KN_ENOMEM;
	kn->items = ni;
	if (!(ni[kn->n_items] = strdup(item)))
		return KN_ENOMEM;
	kn->n_items++;
	return 0;
}

int kn_keynode_join_items(kn_keynode *kn)
{
	size_t len = 1;
	for (size_t i = 0; i < kn->n_items; i++)
		len += strlen(kn->items[i]) + 7;
	char *s = malloc(len), *p = s;
	if (!s)
		return KN_ENOMEM;
	*p = '\0';
	for (size_t i = 0; i < kn->n_items; i++)
		p += sprintf(p, "%s%s", i ? " |AND| " : "", kn->items[i]);
	free(kn->expect);
	kn->expect = s;
	return 0;
}

int kn_task_add_unmapped(kn_task *t, const char *msg)
{
	if (t->n_unmapped >= KN_ITEMS_MAX)
		return 0; /* the first thousand say enough */
	char **nu = realloc(t->unmapped, (t->n_unmapped + 1) * sizeof *nu);
	if (!nu)
		return KN_ENOMEM;
	t->unmapped = nu;
	if (!(nu[t->n_unmapped] = strdup(msg)))
		return KN_ENOMEM;
	t->n_unmapped++;
	return 0;
}

void kn_keynode_clear(kn_keynode *kn)
{
	if (!kn)
		return;
	free(kn->id);
	free(kn->expect);
	free(kn->key);
	free(kn->netloc);
	free(kn->path);
	free(kn->ref_url);
	free(kn->function);
	free(kn->norm_selector);
	free(kn->semantic_phrase);
	kn_regex_free(kn->regex);
	for (size_t i = 0; i < kn->n_items; i++)
		free(kn->items[i]);
	free(kn->items);
	free(kn->page_url);
	free(kn->locator);
	kn_request_spec_free(kn->request);
	memset(kn, 0, sizeof *kn);
}

void kn_step_clear(kn_step *st)
{
	if (!st)
		return;
	free(st->selector);
	free(st->value);
	free(st->text);
	free(st->hint_id);
	free(st->hint_name);
	free(st->hint_aria_label);
	free(st->hint_role);
	free(st->hint_href);
	free(st->hint_test_id);
	free(st->tag);
	free(st->classes);
	free(st->dom_path);
	free(st->frame);
	free(st->expect_url);
	free(st->expect_value);
	free(st->failed_requests);
	kn_request_spec_free(st->held);
	free(st->secret);
	memset(st, 0, sizeof *st);
}

void kn_task_clear(kn_task *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n_keynodes; i++)
		kn_keynode_clear(&t->keynodes[i]);
	for (size_t i = 0; i < t->n_steps; i++)
		kn_step_clear(&t->steps[i]);
	free(t->keynodes);
	free(t->steps);
	free(t->id);
	free(t->intent);
	free(t->start_url);
	free(t->answer);
	for (size_t i = 0; i < t->n_unmapped; i++)
		free(t->unmapped[i]);
	free(t->unmapped);
	for (size_t i = 0; i < t->n_more_start_urls; i++)
		free(t->more_start_urls[i]);
	free(t->more_start_urls);
	kn_purchase_free(t->purchase);
	free(t->workflow_file);
	free(t->recorded_at);
	kn_guard_clear(t->guard);
	free(t->guard);
	memset(t, 0, sizeof *t);
}

void kn_taskset_free(kn_taskset *set)
{
	if (!set)
		return;
	for (size_t i = 0; i < set->n_tasks; i++)
		kn_task_clear(&set->tasks[i]);
	free(set->tasks);
	free(set->source);
	kn_guard_clear(set->guard);
	free(set->guard);
	free(set);
}

const kn_task *kn_taskset_find(const kn_taskset *set, const char *id)
{
	for (size_t i = 0; set && i < set->n_tasks; i++)
		if (strcmp(set->tasks[i].id, id) == 0)
			return &set->tasks[i];
	return NULL;
}

size_t kn_taskset_count_keynodes(const kn_taskset *set)
{
	size_t n = 0;
	for (size_t i = 0; set && i < set->n_tasks; i++)
		n += set->tasks[i].n_keynodes;
	return n;
}

struct id_ref {
	const char *id;
	size_t i;
};

static int cmp_id_ref(const void *x, const void *y)
{
	const struct id_ref *p = x, *q = y;
	int c = strcmp(p->id, q->id);
	return c ? c : (p->i > q->i) - (p->i < q->i);
}

int kn_taskset_find_duplicate(const kn_taskset *set, size_t *a, size_t *b)
{
	if (set->n_tasks < 2)
		return 0;
	struct id_ref *refs = malloc(set->n_tasks * sizeof *refs);
	if (!refs) { /* fall back to the quadratic scan rather than miss a duplicate */
		for (size_t i = 0; i < set->n_tasks; i++)
			for (size_t j = i + 1; j < set->n_tasks; j++)
				if (strcmp(set->tasks[i].id, set->tasks[j].id) == 0)
					return *a = i, *b = j, 1;
		return 0;
	}
	for (size_t i = 0; i < set->n_tasks; i++)
		refs[i] = (struct id_ref){set->tasks[i].id, i};
	qsort(refs, set->n_tasks, sizeof *refs, cmp_id_ref);
	int found = 0;
	for (size_t i = 1; i < set->n_tasks && !found; i++)
		if (strcmp(refs[i - 1].id, refs[i].id) == 0) {
			*a = refs[i - 1].i;
			*b = refs[i].i;
			found = 1;
		}
	free(refs);
	return found;
}

int kn_taskset_start(kn_taskset **out, const char *name, kn_format format, kn_err *err)
{
	kn_taskset *set = calloc(1, sizeof *set);
	*out = NULL;
	if (!set || !(set->source = strdup(name))) {
		free(set);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	set->format = format;
	*out = set;
	return 0;
}

int kn_taskset_finish(kn_taskset **out, kn_taskset *set, int rc, const char *name, const char *id_key,
                      kn_err *err)
{
	size_t a, b;
	if (!rc && kn_taskset_find_duplicate(set, &a, &b))
		rc = kn_err_set(err, KN_EINVAL, "%s: [%zu].%s: duplicate task id '%s' (also [%zu])", name, b,
		                id_key, set->tasks[b].id, a);
	if (rc) {
		kn_taskset_free(set);
		return rc;
	}
	*out = set;
	return 0;
}

/* A Mind2Web-Live file is a JSON array; a YAML task file is a mapping. JSON's '{' is valid YAML
 * flow style, so only a leading '[' (after whitespace and a UTF-8 BOM) selects JSON. */
static int looks_like_json_array(const char *buf, size_t len)
{
	size_t i = 0;
	if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
		i = 3;
	while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' || buf[i] == '\n'))
		i++;
	return i < len && buf[i] == '[';
}

static int has_bytes(const char *buf, size_t len, const char *needle)
{
	size_t n = strlen(needle);
	for (size_t i = 0; i + n <= len; i++) {
		const char *p = memchr(buf + i, needle[0], len - n - i + 1);
		if (!p)
			return 0;
		i = (size_t)(p - buf);
		if (memcmp(p, needle, n) == 0)
			return 1;
	}
	return 0;
}

/* WebArena configs are JSON (an object or an array) with "task_id" and "eval" keys, which neither
 * Mind2Web-Live files nor native YAML task files have. */
static int looks_like_webarena(const char *buf, size_t len)
{
	size_t i = 0;
	if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
		i = 3;
	while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' || buf[i] == '\n'))
		i++;
	if (i >= len || (buf[i] != '[' && buf[i] != '{'))
		return 0;
	return has_bytes(buf, len, "\"task_id\"") && has_bytes(buf, len, "\"eval\"");
}

int kn_taskset_load_buffer(kn_taskset **out, const char *buf, size_t len, const char *name,
                           const kn_load_opts *opts, kn_err *err)
{
	*out = NULL;
	size_t max = opts && opts->max_bytes ? opts->max_bytes : KN_LOAD_MAX_BYTES;
	if (len > max)
		return kn_err_set(err, KN_ELIMIT, "%s: document is %zu bytes, over the %zu byte limit",
		                  name, len, max);
	if (looks_like_webarena(buf, len))
		return kn_task_load_webarena(out, buf, len, name, opts, err);
	if (looks_like_json_array(buf, len))
		return kn_task_load_mind2web(out, buf, len, name, opts, err);
	return kn_task_load_yaml(out, buf, len, name, opts, err);
}

int kn_taskset_load_file(kn_taskset **out, const char *path, const kn_load_opts *opts, kn_err *err)
{
	*out = NULL;
	size_t max = opts && opts->max_bytes ? opts->max_bytes : KN_LOAD_MAX_BYTES;
	char *buf = NULL;
	size_t len = 0;
	int rc = kn_read_file(&buf, &len, path, max, err);
	if (rc)
		return rc;
	rc = kn_taskset_load_buffer(out, buf, len, path, opts, err);
	free(buf);
	return rc;
}
