/* task_yaml.c — the native YAML task-file loader (docs/formats.md §1), built on libyaml's events.
 *
 * Two passes over the same event stream. The first checks everything that does not depend on the
 * schema: YAML syntax and UTF-8, a single document, nesting depth, core tags only, no NUL in text,
 * and anchors/aliases, counting the nodes every alias would produce so that a "billion laughs"
 * document fails with KN_ELIMIT after one linear read, before anything is expanded. The second
 * pass parses the events directly into a kn_taskset by recursive descent over the fixed schema (no
 * document tree, so memory follows what is kept); events under an anchor are recorded and an
 * alias replays the recording, which the first pass has already bounded. Errors read
 * "name:line:col: task 'id' key node 2: message" with libyaml's marks made 1-based, and name the
 * construct; unknown or repeated keys are errors, nothing is silently dropped. This file holds the
 * entry point, the document and task level and key nodes; the event source and pass 1 are in
 * task_yaml_events.c, error wording in task_yaml_errors.c, steps and workflow files in
 * task_yaml_steps.c, `purchase:` in task_yaml_purchase.c (shared declarations:
 * task_yaml_internal.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keynode/guard.h"
#include "keynode/grow.h"

#include "task_yaml_internal.h"

/* ---- pass 2: the schema ---- */

enum { OPT_KEY, OPT_NETLOC, OPT_PATH, OPT_CLEAN, OPT_URL, OPT_LOCATOR, N_OPTS };
static const char *const option_keys[N_OPTS] = { "key", "netloc", "path", "clean", "url",
                                                 "locator" };

/* A list matcher's value (must_include, fuzzy, page include): one text or a list of texts. */
static int read_items(loader *l, kn_keynode *kn, const char *what, pos *at)
{
	yev e;
	int rc = kn_ty_next_event(l, &e);
	if (rc)
		return rc;
	if (at)
		*at = e.at;
	if (e.type != YAML_SEQUENCE_START_EVENT) {
		if ((rc = kn_ty_take_text(l, &e, what, 0, &kn->expect)) != 0)
			return rc;
		return kn_keynode_add_item(kn, kn->expect) ? kn_ty_oom(l) : 0;
	}
	pos start = e.at;
	for (;;) {
		char *item = NULL;
		if ((rc = kn_ty_next_event(l, &e)) != 0)
			return rc;
		if (e.type == YAML_SEQUENCE_END_EVENT)
			break;
		if ((rc = kn_ty_take_text(l, &e, what, 0, &item)) != 0)
			return rc;
		rc = kn_keynode_add_item(kn, item);
		free(item);
		if (rc == KN_ELIMIT)
			return kn_ty_fail(l, rc, e.at, "'%s' has more than 1000 entries", what);
		if (rc)
			return kn_ty_oom(l);
	}
	if (!kn->n_items)
		return kn_ty_fail(l, KN_EINVAL, start, "'%s' is an empty list", what);
	return kn_keynode_join_items(kn) ? kn_ty_oom(l) : 0;
}

/* The value of a target key: a mapping with exactly one matcher plus options. *mat is where the
 * matcher's value is, for prepare's errors. */
static int parse_target(loader *l, kn_keynode *kn, const char *tname, pos *mat)
{
	yev e, k;
	int rc, end, have_matcher = 0;
	unsigned seen = 0;
	char c[72], ml[96];
	if ((rc = kn_ty_next_event(l, &e)) != 0)
		return rc;
	if (e.type != YAML_MAPPING_START_EVENT)
		return kn_ty_fail(l, KN_EINVAL, e.at,
		                  "'%s' must be a mapping with one matcher, such as { include: \"...\" }; "
		                  "found %s", tname, kn_ty_found(l, &e));
	pos at = e.at;
	for (;;) {
		if ((rc = kn_ty_read_key(l, &k, &end)) != 0)
			return rc;
		if (end)
			break;
		int m = kn_matcher_from_name(k.val, k.len);
		if (m >= 0 && !kn_matcher_allowed(kn->target, (kn_matcher)m))
			m = -1; /* a functional matcher this target does not have: unknown here */
		if (m >= 0) {
			if (have_matcher && (int)kn->matcher == m)
				return kn_ty_fail(l, KN_EINVAL, k.at, "duplicate key '%s'", kn_matcher_name((kn_matcher)m));
			if (have_matcher)
				return kn_ty_fail(l, KN_EINVAL, k.at,
				                  "two matchers '%s' and '%s' (a key node has exactly one of "
				                  "%s)", kn_matcher_name(kn->matcher), kn_matcher_name((kn_matcher)m),
				                  kn_matcher_list(kn->target, ml, sizeof ml));
			have_matcher = 1;
			kn->matcher = (kn_matcher)m;
			if (kn->target == KN_TARGET_PAGE && m == KN_MATCH_INCLUDE)
				kn->matcher = KN_MATCH_MUST_INCLUDE; /* page include is WebArena's must_include */
			if (kn->matcher == KN_MATCH_MUST_INCLUDE || kn->matcher == KN_MATCH_FUZZY) {
				if ((rc = read_items(l, kn, kn_matcher_name((kn_matcher)m), mat)) != 0)
					return rc;
				continue;
			}
			if ((rc = kn_ty_read_text(l, kn_matcher_name((kn_matcher)m),
			                          m != KN_MATCH_SEMANTIC && m != KN_MATCH_REGEX,
			                          &kn->expect, mat)) != 0)
				return rc;
			continue;
		}
		int o = kn_ty_lookup(option_keys, N_OPTS, k.val, k.len);
		if (o < 0)
			return kn_ty_fail(l, KN_EINVAL, k.at,
			                  "unknown matcher '%s' (expected %s); options for %s: %s",
			                  kn_ty_clip(c, sizeof c, k.val),
			                  kn_matcher_list(kn->target, ml, sizeof ml), tname,
			                  kn->target == KN_TARGET_URL           ? "key, netloc"
			                  : kn->target == KN_TARGET_ELEMENT_VALUE ? "netloc, path"
			                  : kn->target == KN_TARGET_PAGE          ? "url, locator"
			                  : kn->target == KN_TARGET_ANSWER || kn->target == KN_TARGET_CACHE_DATA
			                          ? "netloc, clean"
			                          : "netloc");
		if (o == OPT_KEY && kn->target != KN_TARGET_URL)
			return kn_ty_fail(l, KN_EINVAL, k.at, "option 'key' applies only to url key nodes");
		if (o == OPT_PATH && kn->target != KN_TARGET_ELEMENT_VALUE)
			return kn_ty_fail(l, KN_EINVAL, k.at,
			                  "option 'path' applies only to element_value key nodes");
		if ((o == OPT_URL || o == OPT_LOCATOR) && kn->target != KN_TARGET_PAGE)
			return kn_ty_fail(l, KN_EINVAL, k.at, "option '%s' applies only to page key nodes",
			                  option_keys[o]);
		if (o == OPT_CLEAN && kn->target != KN_TARGET_ANSWER && kn->target != KN_TARGET_CACHE_DATA)
			return kn_ty_fail(l, KN_EINVAL, k.at,
			                  "option 'clean' applies only to answer and cache_data key nodes");
		if (seen & (1u << o))
			return kn_ty_fail(l, KN_EINVAL, k.at, "duplicate key '%s'", option_keys[o]);
		seen |= 1u << o;
		if (o == OPT_CLEAN) {
			if ((rc = kn_ty_read_bool(l, "clean", &kn->clean)) != 0)
				return rc;
			continue;
		}
		if (o == OPT_URL || o == OPT_LOCATOR) {
			char **d = o == OPT_URL ? &kn->page_url : &kn->locator;
			if ((rc = kn_ty_read_text(l, option_keys[o], 0, d, NULL)) != 0)
				return rc;
			if (o == OPT_URL && strcmp(*d, "last") == 0) { /* the agent's page */
				free(*d);
				*d = NULL;
			} else if (o == OPT_URL && !strstr(*d, "://")) {
				return kn_ty_fail(l, KN_EINVAL, k.at,
				                  "'url' must be last or an absolute URL such as http://host/path");
			}
			continue;
		}
		char **dst = o == OPT_KEY ? &kn->key : o == OPT_NETLOC ? &kn->netloc : &kn->path;
		if ((rc = kn_ty_read_text(l, option_keys[o], o != OPT_PATH, dst, NULL)) != 0)
			return rc;
		if (o == OPT_KEY && !**dst) { /* key "" means the URL itself, as in Mind2Web-Live */
			free(*dst);
			*dst = NULL;
		}
	}
	if (!have_matcher)
		return kn_ty_fail(l, KN_EINVAL, at,
		                  "'%s' has no matcher (expected %s)", tname,
		                  kn_matcher_list(kn->target, ml, sizeof ml));
	return 0;
}

/* One key node: a mapping with an optional id and exactly one target. */
static int parse_keynode(loader *l, size_t ti, size_t *cap, const yev *start)
{
	kn_task *t = &l->set->tasks[ti];
	if (kn_grow(&t->keynodes, t->n_keynodes, cap, sizeof *t->keynodes, 4))
		return kn_ty_oom(l);
	size_t ni = t->n_keynodes++;
	kn_keynode *kn = &t->keynodes[ni];
	memset(kn, 0, sizeof *kn);
	kn->line = start->at.line;
	kn->column = start->at.col;
	snprintf(l->ctx_sub, sizeof l->ctx_sub, "key node %zu", ni + 1);

	yev k;
	int rc, end, have_target = 0;
	pos mat = start->at;
	char c[72];
	if (start->type != YAML_MAPPING_START_EVENT)
		return kn_ty_fail(l, KN_EINVAL, start->at,
		                  "a key node is a mapping with one target, such as url: { include: "
		                  "\"/cart\" }; "
		                  "found %s", kn_ty_found(l, start));
	for (;;) {
		if ((rc = kn_ty_read_key(l, &k, &end)) != 0)
			return rc;
		if (end)
			break;
		if (k.len == 2 && !memcmp(k.val, "id", 2)) {
			if (kn->id)
				return kn_ty_fail(l, KN_EINVAL, k.at, "duplicate key 'id'");
			if ((rc = kn_ty_read_text(l, "id", 0, &kn->id, NULL)) != 0)
				return rc;
			continue;
		}
		int tg = kn_target_from_name(k.val, k.len);
		if (tg < 0)
			return kn_ty_fail(l, KN_EINVAL, k.at,
			                  "unknown target '%s' (expected url, element_path, element_value, "
			                  "answer, cache_data, page, request or websocket, and optionally id)",
			                  kn_ty_clip(c, sizeof c, k.val));
		if (have_target && (int)kn->target == tg)
			return kn_ty_fail(l, KN_EINVAL, k.at, "duplicate key '%s'", kn_target_name((kn_target)tg));
		if (have_target)
			return kn_ty_fail(l, KN_EINVAL, k.at,
			                  "two targets '%s' and '%s' (a key node has exactly one of url, "
			                  "element_path, element_value, answer, cache_data, page, request or websocket)",
			                  kn_target_name(kn->target), kn_target_name((kn_target)tg));
		have_target = 1;
		kn->target = (kn_target)tg;
		if (tg == KN_TARGET_WEBSOCKET) {
			if ((rc = kn_ty_parse_websocket(l, &kn->request, &mat)) == 0)
				rc = kn_ty_check_rule(l, kn->request, "websocket key node", mat);
		} else if (tg != KN_TARGET_REQUEST)
			rc = parse_target(l, kn, kn_target_name((kn_target)tg), &mat);
		else if ((rc = kn_ty_parse_request(l, &kn->request, &mat, NULL, NULL)) == 0)
			rc = kn_ty_check_rule(l, kn->request, "request key node", mat);
		if (rc)
			return rc;
	}
	if (!have_target)
		return kn_ty_fail(l, KN_EINVAL, start->at,
		                  "no target (expected one of url, element_path, element_value, answer, "
		                  "cache_data, page, request or websocket)");
	if (!kn->id) {
		char id[32];
		snprintf(id, sizeof id, "k%zu", ni + 1);
		if (!(kn->id = kn_ty_dupn(id, strlen(id))))
			return kn_ty_oom(l);
	}
	size_t other;
	int existed;
	if (kn_ty_sm_find(&l->node_ids, kn->id, &other))
		return kn_ty_fail(l, KN_EINVAL, start->at,
		                  "duplicate key node id '%s' (key node %zu has it too)",
		                  kn_ty_clip(c, sizeof c, kn->id), other + 1);
	if (kn_ty_sm_put(&l->node_ids, kn->id, ni, &existed) != 0)
		return kn_ty_oom(l);

	kn_err e = { 0 };
	if ((rc = kn_keynode_prepare(kn, &e)) != 0)
		return kn_ty_fail(l, rc, mat, "%s", e.msg[0] ? e.msg : kn_strerror(rc));
	l->ctx_sub[0] = '\0';
	return 0;
}

struct list_of {
	size_t ti, cap; /* the task, and the capacity of its array being filled */
};

static int keynode_item(loader *l, void *ud, const yev *start)
{
	struct list_of *lo = ud;
	return parse_keynode(l, lo->ti, &lo->cap, start);
}

static int parse_keynodes(loader *l, size_t ti)
{
	struct list_of lo = {ti, 0};
	pos at;
	kn_ty_sm_reset(&l->node_ids);
	int rc = kn_ty_parse_list(l, "key_nodes", "key nodes", keynode_item, &lo, &at);
	if (rc)
		return rc;
	if (l->set->tasks[ti].n_keynodes == 0)
		return kn_ty_fail(l, KN_EINVAL, at,
		                  "'key_nodes' is empty (at least one key node is required)");
	return 0;
}

enum { TK_ID, TK_INTENT, TK_START_URL, TK_REFLEN, TK_ANSWER, TK_KEYNODES, TK_STEPS, TK_PURCHASE,
       TK_GUARD, TK_END_ON_GUARD, N_TK };
static const char *const task_keys[N_TK] = { "id", "intent", "start_url", "reference_length",
                                             "answer", "key_nodes", "steps", "purchase", "guard",
                                             "end_on_guard" };

/* *g, allocated on first need (end_on_guard not said: -1). */
static kn_guard *guard_of(kn_guard **g)
{
	if (!*g && (*g = calloc(1, sizeof **g)) != NULL)
		(*g)->end_on_guard = -1;
	return *g;
}

/* `guard:` or `end_on_guard:` (which) into *g. */
static int parse_guard_key(loader *l, kn_guard **g, int end_on_guard)
{
	if (!guard_of(g))
		return kn_ty_oom(l);
	return end_on_guard ? kn_ty_read_bool(l, "end_on_guard", &(*g)->end_on_guard)
	                    : kn_ty_parse_guard(l, *g);
}

/* One task mapping whose start event was at `at`. first, when not NULL, is its first key, already
 * read (a single task at the top level). */
static int parse_task(loader *l, pos at, const yev *first)
{
	kn_taskset *set = l->set;
	if (kn_grow(&set->tasks, set->n_tasks, &l->cap_tasks, sizeof *set->tasks, 4))
		return kn_ty_oom(l);
	size_t ti = set->n_tasks++;
	kn_task *t = &set->tasks[ti];
	memset(t, 0, sizeof *t);
	t->line = at.line;
	snprintf(l->ctx_task, sizeof l->ctx_task, "task %zu", ti + 1);

	int rc, w;
	unsigned seen = 0;
	char c[72];
	for (;;) {
		if ((rc = kn_ty_read_field(l, task_keys, N_TK, NULL, &seen, &first, &w)) != 0)
			return rc;
		if (w < 0)
			break;
		switch (w) {
		case TK_ID: {
			pos idat;
			size_t other;
			int existed;
			if ((rc = kn_ty_read_text(l, "id", 0, &t->id, &idat)) != 0)
				return rc;
			if (kn_ty_sm_find(&l->task_ids, t->id, &other))
				return kn_ty_fail(l, KN_EINVAL, idat,
				                  "duplicate task id '%s' (task %zu at line %d has it too)",
				                  kn_ty_clip(c, sizeof c, t->id), other + 1,
				                  set->tasks[other].line);
			if (kn_ty_sm_put(&l->task_ids, t->id, ti, &existed) != 0)
				return kn_ty_oom(l);
			snprintf(l->ctx_task, sizeof l->ctx_task, "task '%s'", kn_ty_clip(c, sizeof c, t->id));
			break;
		}
		case TK_INTENT:
			rc = kn_ty_read_text(l, "intent", 0, &t->intent, NULL);
			break;
		case TK_START_URL:
			rc = kn_ty_read_url(l, "start_url", &t->start_url);
			break;
		case TK_ANSWER:
			rc = kn_ty_read_text(l, "answer", 1, &t->answer, NULL);
			break;
		case TK_REFLEN: {
			yev v;
			long long n;
			if ((rc = kn_ty_next_event(l, &v)) != 0)
				return rc;
			if ((rc = kn_ty_take_count(l, &v, "reference_length", INT_MAX, &n)) != 0)
				return rc;
			t->reference_length = (int)n;
			break;
		}
		case TK_KEYNODES:
			rc = parse_keynodes(l, ti);
			break;
		case TK_PURCHASE:
			rc = kn_ty_parse_purchase(l, t);
			break;
		case TK_GUARD:
		case TK_END_ON_GUARD:
			rc = parse_guard_key(l, &t->guard, w == TK_END_ON_GUARD);
			break;
		default:
			rc = kn_ty_parse_steps(l, ti);
			break;
		}
		if (rc)
			return rc;
	}
	if (!(seen & (1u << TK_ID)))
		return kn_ty_fail(l, KN_EINVAL, at, "missing 'id'");
	if (!(seen & (1u << TK_INTENT)))
		return kn_ty_fail(l, KN_EINVAL, at, "missing 'intent'");
	if (!(seen & (1u << TK_KEYNODES)))
		return kn_ty_fail(l, KN_EINVAL, at,
		                  "missing 'key_nodes' (at least one key node is required)");
	if (!(seen & (1u << TK_REFLEN)))
		t->reference_length = t->n_steps > (size_t)INT_MAX ? INT_MAX : (int)t->n_steps;
	l->ctx_task[0] = '\0';
	return 0;
}

static int task_item(loader *l, void *ud, const yev *e)
{
	(void)ud;
	if (e->type != YAML_MAPPING_START_EVENT)
		return kn_ty_fail(l, KN_EINVAL, e->at, "task %zu must be a mapping, found %s",
		                  l->set->n_tasks + 1, kn_ty_found(l, e));
	return parse_task(l, e->at, NULL);
}

static int parse_tasks(loader *l)
{
	pos at;
	int rc = kn_ty_parse_list(l, "tasks", "tasks", task_item, NULL, &at);
	if (rc)
		return rc;
	if (l->set->n_tasks == 0)
		return kn_ty_fail(l, KN_EINVAL, at, "'tasks' is empty");
	return 0;
}

enum { SK_TASKS, SK_GUARD, SK_END_ON_GUARD, N_SK };
static const char *const set_keys[N_SK] = {"tasks", "guard", "end_on_guard"};

/* A task set: `tasks:` with the set's `guard:` and `end_on_guard:`, in any order; first is the
 * first key, already read. */
static int parse_set(loader *l, const yev *first)
{
	unsigned seen = 0;
	int rc, w;
	for (;;) {
		if ((rc = kn_ty_read_field(l, set_keys, N_SK, NULL, &seen, &first, &w)) != 0)
			return rc;
		if (w < 0)
			break;
		if (w == SK_TASKS)
			rc = parse_tasks(l);
		else
			rc = parse_guard_key(l, &l->set->guard, w == SK_END_ON_GUARD);
		if (rc)
			return rc;
	}
	if (!(seen & (1u << SK_TASKS)))
		return kn_ty_fail(l, KN_EINVAL, kn_ty_pos_at(1, 1), "'guard' at the top level belongs to a task set: add 'tasks:' (a single task starts with 'id')");
	for (size_t i = 0; i < l->set->n_tasks; i++)
		l->set->tasks[i].set_guard = l->set->guard;
	return 0;
}

static int parse_document(loader *l)
{
	yev e, k;
	int rc, end;
	if ((rc = kn_ty_next_event(l, &e)) != 0 || (rc = kn_ty_next_event(l, &e)) != 0)
		return rc; /* stream start, then document start or stream end */
	if (e.type == YAML_STREAM_END_EVENT)
		return kn_ty_fail(l, KN_EINVAL, kn_ty_pos_at(1, 1),
		                  "empty document (expected 'tasks:' or a single task)");
	if ((rc = kn_ty_next_event(l, &e)) != 0)
		return rc;
	if (e.type == YAML_SCALAR_EVENT && e.kind == SK_NULL)
		return kn_ty_fail(l, KN_EINVAL, e.at,
		                  "empty document (expected 'tasks:' or a single task)");
	if (e.type != YAML_MAPPING_START_EVENT)
		return kn_ty_fail(l, KN_EINVAL, e.at,
		                  "expected a mapping holding 'tasks:' or a single task at the top level, "
		                  "found %s", kn_ty_found(l, &e));
	pos at = e.at;
	if ((rc = kn_ty_read_key(l, &k, &end)) != 0)
		return rc;
	if (end)
		return kn_ty_fail(l, KN_EINVAL, at, "empty document (expected 'tasks:' or a single task)");
	if (l->workflow) {
		if ((rc = kn_ty_parse_workflow(l, at, &k)) != 0)
			return rc;
	} else if (kn_ty_lookup(set_keys, N_SK, k.val, k.len) >= 0) {
		if ((rc = parse_set(l, &k)) != 0)
			return rc;
	} else if ((rc = parse_task(l, at, &k)) != 0) {
		return rc;
	}
	if ((rc = kn_ty_next_event(l, &e)) != 0)
		return rc;
	if (e.type != YAML_DOCUMENT_END_EVENT)
		return kn_ty_fail(l, KN_EINVAL, e.at, "internal error: document does not end");
	return 0;
}

/* Parse the events again, into l->set. */
static int pass2(loader *l)
{
	if (l->ndefs) {
		l->def_start = calloc(l->ndefs, sizeof *l->def_start);
		l->def_end = calloc(l->ndefs, sizeof *l->def_end);
		if (!l->def_start || !l->def_end)
			return kn_ty_oom(l);
	}
	l->parser_live = 1;
	if (kn_yaml_reader_init(&l->rd, l->buf, l->len, "a task file", 1) != 0)
		return kn_ty_oom(l);
	if (!(l->set = calloc(1, sizeof *l->set)) ||
	    !(l->set->source = kn_ty_dupn(l->name, strlen(l->name))))
		return kn_ty_oom(l);
	l->set->format = KN_FORMAT_YAML;
	return parse_document(l);
}

static void loader_free(loader *l)
{
	if (l->parser_live)
		kn_yaml_reader_done(&l->rd);
	for (size_t i = 0; i < l->nlog; i++)
		free(l->log[i].own);
	free(l->log);
	free(l->open);
	free(l->def_start);
	free(l->def_end);
	free(l->alias_def);
	kn_ty_sm_free(&l->task_ids, 0);
	kn_ty_sm_free(&l->node_ids, 0);
}

int kn_task_load_yaml(kn_taskset **out, const char *buf, size_t len, const char *name,
                      const kn_load_opts *opts, kn_err *err)
{
	loader l;
	int rc;
	if (out)
		*out = NULL;
	if (!name)
		name = "<yaml>";
	if (!out || (!buf && len))
		return kn_err_set(err, KN_EINVAL, "%s: kn_task_load_yaml: no output or no buffer", name);
	memset(&l, 0, sizeof l);
	l.name = name;
	l.buf = (const unsigned char *)(buf ? buf : "");
	l.len = len;
	l.err = err;
	/* The encoding is fixed to UTF-8 (so UTF-16 is refused); libyaml then keeps a BOM as text. */
	if (l.len >= 3 && !memcmp(l.buf, "\xEF\xBB\xBF", 3)) {
		l.buf += 3;
		l.len -= 3;
	}
	l.workflow = opts && opts->workflow;
	l.max_depth = opts && opts->max_depth > 0 ? opts->max_depth : KN_LOAD_MAX_DEPTH;
	l.max_alias = opts && opts->max_alias_nodes ? opts->max_alias_nodes : KN_LOAD_MAX_ALIAS_NODES;
	size_t max_bytes = opts && opts->max_bytes ? opts->max_bytes : KN_LOAD_MAX_BYTES;
	l.last = kn_ty_pos_at(1, 1);
	if (len > max_bytes)
		return kn_ty_fail(&l, KN_ELIMIT, l.last,
		                  "document is %zu bytes, more than the limit of %zu",
		                  len, max_bytes);
	rc = kn_ty_pass1(&l);
	if (!rc)
		rc = pass2(&l);
	loader_free(&l);
	if (rc) {
		kn_taskset_free(l.set);
		return rc;
	}
	*out = l.set;
	return 0;
}
