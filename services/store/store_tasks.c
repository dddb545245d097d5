/* store_tasks.c — task sets and versioned tasks. A task's definition is its canonical JSON
 * (kn_store_task_json: stable key order, nulls spelled out), hashed with sha256 in the database:
 * loading a set again gives a changed task a new version and leaves an unchanged one alone, and
 * runs keep pointing at the version they ran. kn_store_task_load turns a stored definition back
 * into a kn_taskset so evaluation runs against exactly what was stored. */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "keynode/guard.h"
#include "keynode/purchase.h"
#include "keynode/request.h"
#include "keynode/site.h"
#include "store_changes.h"
#include "store_internal.h"

#define KN_TASK_JSON_MAX (8u * 1024u * 1024u)

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

/* json_string refuses invalid UTF-8; the loaders already checked, so a NULL here is memory. */
static int put(json_t *o, const char *k, json_t *v)
{
	return v ? json_object_set_new(o, k, v) : -1;
}

/* A recorded workflow step's fingerprint, postcondition and scroll distance (keynode/workflow.h), only the keys
 * that are set: a task without them keeps the definition (and version) it always had. */
static int put_workflow_fields(json_t *e, const kn_step *s)
{
	const char *const keys[] = {"hint_test_id", "tag", "classes", "dom_path", "frame", "expect_url",
	                            "expect_value", "failed_requests"};
	const char *const vals[] = {s->hint_test_id, s->tag, s->classes, s->dom_path, s->frame,
	                            s->expect_url, s->expect_value, s->failed_requests};
	int bad = 0;
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (vals[i])
			bad |= put(e, keys[i], json_string(vals[i]));
	if (s->navigated)
		bad |= put(e, "navigated", json_integer(s->navigated));
	if (s->error_page) /* what the page showed when recorded (services/replay/softpage.h) */
		bad |= put(e, "error_page", json_integer(s->error_page));
	if (s->held) /* the request a guarded workflow's step sent (held.h) */
		bad |= put(e, "held", kn_request_spec_to_json(s->held));
	if (s->secret)
		bad |= put(e, "secret", json_string(s->secret));
	if (s->scroll_px)
		bad |= put(e, "scroll_px", json_integer(s->scroll_px));
	return bad;
}

/* A task's purchase: (keynode/purchase.h) as JSON; only present for tasks that have one, so every
 * other task keeps the definition (and version) it always had. NULL when out of memory. */
static json_t *purchase_json(const kn_purchase *p)
{
	json_t *o = json_object(), *attrs = json_array(), *opts = json_array();
	int bad = !o || !attrs || !opts;
	for (size_t i = 0; !bad && i < p->n_attributes; i++)
		bad |= json_array_append_new(attrs, json_string(p->attributes[i]));
	for (size_t i = 0; !bad && i < p->n_options; i++)
		bad |= json_array_append_new(opts, json_pack("{s:s, s:s}", "field", p->options[i].field,
		                                              "value", p->options[i].value));
	bad = bad || put(o, "type", str_or_null(p->type)) | json_object_set(o, "attributes", attrs) |
	             json_object_set(o, "options", opts) | put(o, "price_max", json_real(p->price_max)) |
	             put(o, "buy", str_or_null(p->buy)) | put(o, "read_title", str_or_null(p->read_title)) |
	             put(o, "read_attributes", str_or_null(p->read_attributes)) |
	             put(o, "read_options", str_or_null(p->read_options)) |
	             put(o, "read_price", str_or_null(p->read_price));
	json_decref(attrs);
	json_decref(opts);
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

int kn_store_task_json(char **out, const kn_task *task)
{
	*out = NULL;
	json_t *o = json_object(), *kns = json_array(), *steps = json_array();
	int bad = !o || !kns || !steps;
	bad |= put(o, "id", json_string(task->id)) | put(o, "intent", json_string(task->intent)) |
	       put(o, "start_url", str_or_null(task->start_url)) |
	       put(o, "reference_length", json_integer(task->reference_length)) |
	       put(o, "answer", str_or_null(task->answer));
	for (size_t i = 0; !bad && i < task->n_keynodes; i++) {
		const kn_keynode *k = &task->keynodes[i];
		json_t *e = json_object();
		bad |= !e || put(e, "id", json_string(k->id)) |
		       put(e, "target", json_string(kn_target_name(k->target))) |
		       put(e, "matcher", json_string(kn_matcher_name(k->matcher))) |
		       put(e, "expect", json_string(k->expect)) | put(e, "key", str_or_null(k->key)) |
		       put(e, "netloc", str_or_null(k->netloc)) | put(e, "path", str_or_null(k->path)) |
		       put(e, "ref_url", str_or_null(k->ref_url)) | put(e, "xpath", json_boolean(k->xpath)) |
		       put(e, "function", str_or_null(k->function ? k->function
		                                                  : kn_keynode_function_name(k->target, k->matcher)));
		if (!bad && k->request) /* the spec (only on request key nodes: other definitions unchanged) */
			bad |= put(e, "request", kn_request_spec_to_json(k->request));
		bad |= json_array_append_new(kns, e);
	}
	for (size_t i = 0; !bad && i < task->n_steps; i++) {
		const kn_step *s = &task->steps[i];
		json_t *e = json_object();
		bad |= !e || put(e, "verb", json_string(kn_step_verb_name(s->verb))) |
		       put(e, "selector", str_or_null(s->selector)) | put(e, "value", str_or_null(s->value)) |
		       put(e, "text", str_or_null(s->text)) | put(e, "enter", json_boolean(s->enter)) |
		       put(e, "wait_ms", json_integer(s->wait_ms)) | put(e, "hint_id", str_or_null(s->hint_id)) |
		       put(e, "hint_name", str_or_null(s->hint_name)) |
		       put(e, "hint_aria_label", str_or_null(s->hint_aria_label)) |
		       put(e, "hint_role", str_or_null(s->hint_role)) |
		       put(e, "hint_href", str_or_null(s->hint_href));
		bad |= put_workflow_fields(e, s);
		bad |= json_array_append_new(steps, e);
	}
	bad |= json_object_set(o, "key_nodes", kns) | json_object_set(o, "steps", steps);
	if (task->viewport_w) /* a recorded workflow's (keynode/workflow.h); absent otherwise */
		bad |= put(o, "viewport_w", json_integer(task->viewport_w)) |
		       put(o, "viewport_h", json_integer(task->viewport_h));
	if (task->purchase)
		bad |= put(o, "purchase", purchase_json(task->purchase));
	if (task->guard) /* the task's guard rules, and its set's (the run enforces both) */
		bad |= put(o, "guard", kn_guard_to_json(task->guard));
	if (task->set_guard)
		bad |= put(o, "set_guard", kn_guard_to_json(task->set_guard));
	if (!bad)
		*out = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(kns);
	json_decref(steps);
	json_decref(o);
	return *out ? 0 : KN_ENOMEM;
}

static const char sql_taskset[] =
	"INSERT INTO tasksets (name, source) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE"
	" SET source = EXCLUDED.source, loaded_at = clock_timestamp() RETURNING id";
static const char sql_task[] =
	"INSERT INTO tasks (taskset_id, task_key) VALUES ($1, $2) ON CONFLICT (taskset_id, task_key)"
	" DO UPDATE SET active = true RETURNING id";
/* A new version only when the hash differs from the current version's; returns the new version's
 * id and the definition it replaces (NULL: the first version) for the maintenance log. */
static const char sql_version[] =
	"WITH h AS (SELECT encode(sha256(convert_to($2, 'UTF8')), 'hex') AS hash),"
	" prev AS (SELECT v.definition, v.hash FROM tasks t JOIN task_versions v ON v.id = t.current_version"
	"  WHERE t.id = $1),"
	" ins AS (INSERT INTO task_versions (task_id, version, hash, definition, intent, start_url, site,"
	"  key_nodes)"
	"  SELECT $1, COALESCE((SELECT max(version) FROM task_versions WHERE task_id = $1), 0) + 1,"
	"   h.hash, $2::json, $3, $4,"
	"   NULLIF($6, ''), $5::int"
	"  FROM h WHERE NOT EXISTS (SELECT 1 FROM prev WHERE prev.hash = h.hash)"
	"  RETURNING id)"
	" UPDATE tasks SET current_version = ins.id FROM ins WHERE tasks.id = $1"
	" RETURNING ins.id, (SELECT definition::text FROM prev)";
/* A version stored before the site rule was kn_task_site's gets it when its task set is loaded again. */
static const char sql_site[] =
	"UPDATE task_versions v SET site = NULLIF($2, '') FROM tasks t WHERE t.id = $1"
	" AND v.id = t.current_version AND v.site IS DISTINCT FROM NULLIF($2, '')";

int kn_store_task_version_add(kn_store *st, int64_t task_id, const kn_task *t, int64_t *version_id,
                              char **before, char **after, kn_err *err)
{
	*version_id = 0;
	if (before)
		*before = NULL;
	if (after)
		*after = NULL;
	char *json;
	int rc = kn_store_task_json(&json, t);
	if (rc != 0)
		return kn_err_set(err, rc, "task '%s': cannot build its JSON", t->id);
	char tb[24], nb[24], site[256];
	kn_task_site(site, sizeof site, t); /* the site of per_site results (keynode/site.h) */
	const char *p3[6] = {kn_store_i64(tb, task_id), json, t->intent, t->start_url,
	                     kn_store_i64(nb, (int64_t)t->n_keynodes), site};
	PGresult *res;
	rc = kn_store_q(st, &res, sql_version, 6, p3, err);
	if (rc) {
		free(json);
		return rc;
	}
	if (PQntuples(res) == 1) {
		*version_id = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
		if (before && !PQgetisnull(res, 0, 1) && !(*before = strdup(PQgetvalue(res, 0, 1))))
			rc = kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	PQclear(res);
	if (!rc && !*version_id)
		rc = kn_store_q(st, NULL, sql_site, 2, (const char *[2]){tb, site}, err);
	if (!rc && after && *version_id) {
		*after = json;
		json = NULL;
	}
	free(json);
	return rc;
}

int kn_store_taskset_put(kn_store *st, const char *name, const char *source, const kn_taskset *set,
                         int64_t *taskset_id, size_t *new_versions, kn_err *err)
{
	return kn_store_taskset_put_by(st, name, source, NULL, set, taskset_id, new_versions, err);
}

int kn_store_taskset_put_by(kn_store *st, const char *name, const char *source, const char *author,
                            const kn_taskset *set, int64_t *taskset_id, size_t *new_versions, kn_err *err)
{
	if (taskset_id)
		*taskset_id = 0;
	if (new_versions)
		*new_versions = 0;
	if (!name || !*name || !set)
		return kn_err_set(err, KN_EINVAL, "a task set needs a name");
	int64_t sid;
	size_t fresh = 0;
	char sb[24];
	int rc = kn_store_begin(st, err);
	if (rc != 0)
		return rc;
	const char *p0[2] = {name, source};
	if ((rc = kn_store_q_int64(st, &sid, sql_taskset, 2, p0, err)))
		goto fail;
	kn_store_i64(sb, sid);
	const char *p1[1] = {sb};
	if ((rc = kn_store_q(st, NULL, "UPDATE tasks SET active = false WHERE taskset_id = $1", 1, p1, err)))
		goto fail;
	for (size_t i = 0; i < set->n_tasks; i++) {
		const kn_task *t = &set->tasks[i];
		int64_t tid;
		const char *p2[2] = {sb, t->id};
		if ((rc = kn_store_q_int64(st, &tid, sql_task, 2, p2, err)))
			goto fail;
		int64_t vid;
		char *before = NULL, *after = NULL;
		if ((rc = kn_store_task_version_add(st, tid, t, &vid, &before, &after, err)))
			goto fail;
		if (vid) { /* the maintenance log's row, in this transaction (140_task_changes.sql) */
			kn_store_change c = {.task_id = tid, .kind = "upload", .author = author};
			rc = kn_store_change_log(st, &c, vid, before, after, 0, 0, NULL, err);
		}
		free(before);
		free(after);
		if (rc)
			goto fail;
		fresh += vid != 0;
	}
	if ((rc = kn_store_commit(st, err)))
		goto fail;
	if (taskset_id)
		*taskset_id = sid;
	if (new_versions)
		*new_versions = fresh;
	return 0;
fail:
	kn_store_rollback(st);
	return rc;
}

int kn_store_task_resolve(kn_store *st, const char *ref, int64_t *version_id, kn_err *err)
{
	*version_id = 0;
	if (!ref || !*ref)
		return kn_err_set(err, KN_EINVAL, "empty task reference");
	const char *colon = strchr(ref, ':');
	if (colon) {
		char *set = strndup(ref, (size_t)(colon - ref));
		if (!set)
			return kn_err_set(err, KN_ENOMEM, "out of memory");
		const char *p[2] = {set, colon + 1};
		int rc = kn_store_q_int64(st, version_id,
			"SELECT t.current_version FROM tasks t JOIN tasksets s ON s.id = t.taskset_id"
			" WHERE s.name = $1 AND t.task_key = $2", 2, p, err);
		free(set);
		if (rc != KN_ENOTFOUND)
			return rc;
	}
	/* Unqualified, or "a:b" that is itself a task id: the most recently loaded set holding it. */
	const char *p[1] = {ref};
	int rc = kn_store_q_int64(st, version_id,
		"SELECT t.current_version FROM tasks t JOIN tasksets s ON s.id = t.taskset_id"
		" WHERE t.task_key = $1 ORDER BY t.active DESC, s.loaded_at DESC, s.id DESC LIMIT 1", 1, p, err);
	if (rc == KN_ENOTFOUND)
		return kn_err_set(err, KN_ENOTFOUND, "no task '%s'", ref);
	return rc;
}

/* ---- back from JSON ------------------------------------------------------------------------ */

/* A copy of the string member k of o; NULL when absent or null. *bad set on a wrong type or OOM. */
static char *get_str(const json_t *o, const char *k, int *bad)
{
	const json_t *v = json_object_get(o, k);
	if (!v || json_is_null(v))
		return NULL;
	if (!json_is_string(v)) {
		*bad = 1;
		return NULL;
	}
	char *s = strdup(json_string_value(v));
	if (!s)
		*bad = 1;
	return s;
}

static int keynode_from_json(kn_keynode *k, const json_t *e, kn_err *err)
{
	int bad = !json_is_object(e);
	if (bad)
		return kn_err_set(err, KN_EINVAL, "stored task: a key node is not an object");
	k->id = get_str(e, "id", &bad);
	k->expect = get_str(e, "expect", &bad);
	k->key = get_str(e, "key", &bad);
	k->netloc = get_str(e, "netloc", &bad);
	k->path = get_str(e, "path", &bad);
	k->ref_url = get_str(e, "ref_url", &bad);
	k->function = get_str(e, "function", &bad);
	k->xpath = json_is_true(json_object_get(e, "xpath"));
	if (bad || !k->id || !k->function || kn_keynode_parse_function(k, k->function) != 0)
		return kn_err_set(err, KN_EINVAL, "stored task: bad key node");
	const json_t *rq = json_object_get(e, "request");
	if (rq && kn_request_spec_from_json(&k->request, rq, err) != 0)
		return KN_EINVAL;
	return kn_keynode_prepare(k, err);
}

static int step_from_json(kn_step *s, const json_t *e, kn_err *err)
{
	int bad = !json_is_object(e);
	if (bad)
		return kn_err_set(err, KN_EINVAL, "stored task: a step is not an object");
	const char *verb = json_string_value(json_object_get(e, "verb"));
	int found = 0;
	for (int v = 0; verb && v <= KN_STEP_LAST; v++)
		if (strcmp(kn_step_verb_name((kn_step_verb)v), verb) == 0) {
			s->verb = (kn_step_verb)v;
			found = 1;
		}
	s->selector = get_str(e, "selector", &bad);
	s->value = get_str(e, "value", &bad);
	s->text = get_str(e, "text", &bad);
	s->enter = json_is_true(json_object_get(e, "enter"));
	s->wait_ms = (long)json_integer_value(json_object_get(e, "wait_ms"));
	s->hint_id = get_str(e, "hint_id", &bad);
	s->hint_name = get_str(e, "hint_name", &bad);
	s->hint_aria_label = get_str(e, "hint_aria_label", &bad);
	s->hint_role = get_str(e, "hint_role", &bad);
	s->hint_href = get_str(e, "hint_href", &bad);
	s->hint_test_id = get_str(e, "hint_test_id", &bad);
	s->tag = get_str(e, "tag", &bad);
	s->classes = get_str(e, "classes", &bad);
	s->dom_path = get_str(e, "dom_path", &bad);
	s->frame = get_str(e, "frame", &bad);
	s->expect_url = get_str(e, "expect_url", &bad);
	s->expect_value = get_str(e, "expect_value", &bad);
	s->navigated = (int)json_integer_value(json_object_get(e, "navigated"));
	s->error_page = (int)json_integer_value(json_object_get(e, "error_page"));
	s->failed_requests = get_str(e, "failed_requests", &bad);
	s->scroll_px = (long)json_integer_value(json_object_get(e, "scroll_px"));
	s->secret = get_str(e, "secret", &bad);
	const json_t *held = json_object_get(e, "held");
	if (held && kn_request_spec_from_json(&s->held, held, err) != 0)
		bad = 1;
	if (bad || !found)
		return kn_err_set(err, KN_EINVAL, "stored task: bad step");
	return 0;
}

/* purchase_json's object back into a spec (*out the caller's). */
static int purchase_from_json(kn_purchase **out, const json_t *o, kn_err *err)
{
	kn_purchase *p = calloc(1, sizeof *p);
	const json_t *attrs = json_object_get(o, "attributes"), *opts = json_object_get(o, "options");
	int bad = !p || !json_is_object(o) || !json_is_array(attrs) || !json_is_array(opts);
	*out = p;
	if (bad)
		return kn_err_set(err, p ? KN_EINVAL : KN_ENOMEM, "stored task: bad purchase");
	p->type = get_str(o, "type", &bad);
	p->buy = get_str(o, "buy", &bad);
	p->read_title = get_str(o, "read_title", &bad);
	p->read_attributes = get_str(o, "read_attributes", &bad);
	p->read_options = get_str(o, "read_options", &bad);
	p->read_price = get_str(o, "read_price", &bad);
	p->price_max = json_number_value(json_object_get(o, "price_max"));
	size_t na = json_array_size(attrs), no = json_array_size(opts);
	p->attributes = calloc(na ? na : 1, sizeof *p->attributes);
	p->options = calloc(no ? no : 1, sizeof *p->options);
	bad |= !p->attributes || !p->options;
	for (size_t i = 0; !bad && i < na; i++) {
		const char *a = json_string_value(json_array_get(attrs, i));
		p->attributes[i] = a ? strdup(a) : NULL;
		bad |= !p->attributes[i];
		p->n_attributes += !bad;
	}
	for (size_t i = 0; !bad && i < no; i++) {
		const json_t *e = json_array_get(opts, i);
		p->n_options = i + 1;
		p->options[i].field = get_str(e, "field", &bad);
		p->options[i].value = get_str(e, "value", &bad);
		bad |= !p->options[i].field || !p->options[i].value;
	}
	return bad ? kn_err_set(err, KN_EINVAL, "stored task: bad purchase") : 0;
}

/* A guard from its stored form (kn_guard_to_json); *out is the caller's (kn_guard_clear, free). */
static int guard_from_json(kn_guard **out, const json_t *o, kn_err *err)
{
	kn_guard *g = calloc(1, sizeof *g);
	*out = g;
	if (!g)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	json_t *eog = json_object_get(o, "end_on_guard"), *r;
	g->end_on_guard = json_is_boolean(eog) ? json_is_true(eog) : -1;
	size_t i;
	json_array_foreach(json_object_get(o, "rules"), i, r) {
		int rc = kn_guard_add_json(g, r, err);
		if (rc)
			return rc;
	}
	return 0;
}

static int task_from_json(kn_task *t, const json_t *o, kn_err *err)
{
	int bad = !json_is_object(o);
	if (bad)
		return kn_err_set(err, KN_EINVAL, "stored task: not an object");
	t->id = get_str(o, "id", &bad);
	t->intent = get_str(o, "intent", &bad);
	t->start_url = get_str(o, "start_url", &bad);
	t->answer = get_str(o, "answer", &bad);
	t->reference_length = (int)json_integer_value(json_object_get(o, "reference_length"));
	t->viewport_w = (int)json_integer_value(json_object_get(o, "viewport_w"));
	t->viewport_h = (int)json_integer_value(json_object_get(o, "viewport_h"));
	const json_t *kns = json_object_get(o, "key_nodes"), *steps = json_object_get(o, "steps");
	if (bad || !t->id || !t->intent || !json_is_array(kns) || !json_is_array(steps))
		return kn_err_set(err, KN_EINVAL, "stored task: missing fields");
	size_t nk = json_array_size(kns), ns = json_array_size(steps);
	t->keynodes = calloc(nk ? nk : 1, sizeof *t->keynodes);
	t->steps = calloc(ns ? ns : 1, sizeof *t->steps);
	if (!t->keynodes || !t->steps)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	for (size_t i = 0; i < nk; i++) {
		t->n_keynodes = i + 1;
		int rc = keynode_from_json(&t->keynodes[i], json_array_get(kns, i), err);
		if (rc != 0)
			return rc;
	}
	for (size_t i = 0; i < ns; i++) {
		t->n_steps = i + 1;
		int rc = step_from_json(&t->steps[i], json_array_get(steps, i), err);
		if (rc != 0)
			return rc;
	}
	const json_t *pu = json_object_get(o, "purchase");
	int rc = pu ? purchase_from_json(&t->purchase, pu, err) : 0;
	if (!rc && json_object_get(o, "guard"))
		rc = guard_from_json(&t->guard, json_object_get(o, "guard"), err);
	return rc;
}

int kn_store_task_load(kn_store *st, int64_t version_id, kn_taskset **out, kn_err *err)
{
	*out = NULL;
	char vb[24];
	const char *p[1] = {kn_store_i64(vb, version_id)};
	PGresult *res;
	int rc = kn_store_q(st, &res, "SELECT v.definition, s.name FROM task_versions v JOIN tasks t"
	                    " ON t.id = v.task_id JOIN tasksets s ON s.id = t.taskset_id WHERE v.id = $1",
	                    1, p, err);
	if (rc != 0)
		return rc;
	if (PQntuples(res) != 1) {
		PQclear(res);
		return kn_err_set(err, KN_ENOTFOUND, "no task version %s", vb);
	}
	json_error_t je;
	json_t *o = json_loadb(PQgetvalue(res, 0, 0), (size_t)PQgetlength(res, 0, 0), 0, &je);
	kn_taskset *set = calloc(1, sizeof *set);
	if (set) {
		set->source = strdup(PQgetvalue(res, 0, 1));
		set->tasks = calloc(1, sizeof *set->tasks);
	}
	PQclear(res);
	if (!set || !set->source || !set->tasks) {
		json_decref(o);
		kn_taskset_free(set);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	set->format = KN_FORMAT_YAML;
	set->n_tasks = 1;
	rc = o ? task_from_json(&set->tasks[0], o, err)
	       : kn_err_set(err, KN_EINVAL, "stored task: %s", je.text);
	if (!rc && json_object_get(o, "set_guard")) /* the set's rules: the set owns them, the task borrows */
		rc = guard_from_json(&set->guard, json_object_get(o, "set_guard"), err);
	set->tasks[0].set_guard = set->guard;
	json_decref(o);
	if (rc != 0) {
		kn_taskset_free(set);
		return rc;
	}
	*out = set;
	return 0;
}
