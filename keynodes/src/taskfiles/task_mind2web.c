/* task_mind2web.c — loads Mind2Web-Live task files (a JSON array of
 * {index, task, reference_task_length, evaluation[]}) as they are published, with jansson.
 * Every key node is mapped to target + matcher + options; anything unknown is an error that names
 * its JSON path ("[17].evaluation[2].match_function_name"), never silently dropped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "keynode/json_depth.h"
#include "keynode/request.h"
#include "keynode/rule_check.h"
#include "keynode/task.h"

/* A string field, or a number taken as its text. *out NULL when absent (and not required). */
static int get_text(char **out, json_t *obj, const char *field, int required, const char *name,
                    const char *at, kn_err *err)
{
	*out = NULL;
	json_t *v = json_object_get(obj, field);
	if (!v || json_is_null(v)) {
		if (required)
			return kn_err_set(err, KN_EINVAL, "%s: %s.%s: missing", name, at, field);
		return 0;
	}
	char num[64];
	const char *s;
	if (json_is_string(v))
		s = json_string_value(v);
	else if (json_is_integer(v))
		snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT, json_integer_value(v)), s = num;
	else if (json_is_real(v))
		snprintf(num, sizeof num, "%.17g", json_real_value(v)), s = num;
	else
		return kn_err_set(err, KN_EINVAL, "%s: %s.%s: expected a string", name, at, field);
	if (json_is_string(v) && strlen(s) != json_string_length(v))
		return kn_err_set(err, KN_EINVAL, "%s: %s.%s: contains a NUL character", name, at, field);
	if (!(*out = strdup(s)))
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	return 0;
}

static int check_keys(json_t *obj, const char *const *allowed, const char *name, const char *at,
                      kn_err *err)
{
	const char *k;
	json_t *v;
	json_object_foreach(obj, k, v) {
		int ok = 0;
		for (const char *const *a = allowed; *a; a++)
			ok |= strcmp(*a, k) == 0;
		if (!ok)
			return kn_err_set(err, KN_EINVAL, "%s: %s.%s: unknown field", name, at, k);
	}
	return 0;
}

static int load_keynode(kn_keynode *kn, json_t *jn, size_t ti, size_t ki, const char *name,
                        kn_err *err)
{
	static const char *const node_keys[] = {"match_function_name", "method", "content", NULL};
	static const char *const content_keys[] = {"reference_answer", "key", "url", "netloc", "path",
	                                           NULL};
	char at[96];
	snprintf(at, sizeof at, "[%zu].evaluation[%zu]", ti, ki);
	if (!json_is_object(jn))
		return kn_err_set(err, KN_EINVAL, "%s: %s: expected an object", name, at);
	int rc = check_keys(jn, node_keys, name, at, err);
	if (rc)
		return rc;
	char idbuf[32];
	snprintf(idbuf, sizeof idbuf, "k%zu", ki + 1);
	if (!(kn->id = strdup(idbuf)))
		return kn_err_set(err, KN_ENOMEM, "out of memory");

	json_t *fn = json_object_get(jn, "match_function_name");
	if (!json_is_string(fn))
		return kn_err_set(err, KN_EINVAL, "%s: %s.match_function_name: %s", name, at,
		                  fn ? "expected a string" : "missing");
	if (kn_keynode_parse_function(kn, json_string_value(fn)) != 0)
		return kn_err_set(err, KN_EINVAL, "%s: %s.match_function_name: unknown function '%s'",
		                  name, at, json_string_value(fn));
	json_t *method = json_object_get(jn, "method");
	if (method && !json_is_null(method)) {
		const char *m = json_is_string(method) ? json_string_value(method) : "";
		if (strcmp(m, "xpath") == 0)
			kn->xpath = 1;
		else if (strcmp(m, "selector") != 0)
			return kn_err_set(err, KN_EINVAL,
			                  "%s: %s.method: unknown method (expected \"selector\" or \"xpath\")",
			                  name, at);
	}
	json_t *c = json_object_get(jn, "content");
	char cat[128];
	snprintf(cat, sizeof cat, "%s.content", at);
	if (!json_is_object(c))
		return kn_err_set(err, KN_EINVAL, "%s: %s: %s", name, cat,
		                  c ? "expected an object" : "missing");
	if ((rc = check_keys(c, content_keys, name, cat, err)) != 0)
		return rc;
	int spec = kn->target == KN_TARGET_REQUEST || kn->target == KN_TARGET_WEBSOCKET;
	if (spec) { /* keynode's extensions request_match, websocket_match: the spec as an object */
		kn_err e = {0};
		json_t *ra = json_object_get(c, "reference_answer");
		char why[300];
		if ((rc = kn->target == KN_TARGET_WEBSOCKET ? kn_websocket_spec_from_json(&kn->request, ra, &e)
		                                            : kn_request_spec_from_json(&kn->request, ra, &e)) != 0)
			return kn_err_set(err, rc, "%s: %s.reference_answer: %s", name, cat, e.msg);
		if ((rc = kn_rule_check(kn->request, kn->target == KN_TARGET_WEBSOCKET ? "websocket key node"
		                                                                       : "request key node",
		                        why, sizeof why)) != 0)
			return kn_err_set(err, rc, "%s: %s.reference_answer: %s", name, cat, why);
	}
	if ((!spec &&
	     (rc = get_text(&kn->expect, c, "reference_answer", 1, name, cat, err))) ||
	    (rc = get_text(&kn->key, c, "key", 0, name, cat, err)) ||
	    (rc = get_text(&kn->ref_url, c, "url", 0, name, cat, err)) ||
	    (rc = get_text(&kn->netloc, c, "netloc", 0, name, cat, err)) ||
	    (rc = get_text(&kn->path, c, "path", 0, name, cat, err)))
		return rc;
	/* Upstream writes "" for "no parameter" and "no page" */
	if (kn->key && !*kn->key) {
		free(kn->key);
		kn->key = NULL;
	}
	if (kn->key && kn->target != KN_TARGET_URL)
		return kn_err_set(err, KN_EINVAL, "%s: %s.key: only URL key nodes name a query parameter",
		                  name, cat);
	if (kn->path && !*kn->path) {
		free(kn->path);
		kn->path = NULL;
	}
	kn_err e;
	if ((rc = kn_keynode_prepare(kn, &e)) != 0)
		return kn_err_set(err, rc, "%s: %s: %s", name, at, e.msg);
	return 0;
}

static int load_task(kn_task *t, json_t *jt, size_t ti, const char *name, kn_err *err)
{
	static const char *const task_keys[] = {"index", "task", "reference_task_length",
	                                        "evaluation", NULL};
	char at[32];
	snprintf(at, sizeof at, "[%zu]", ti);
	if (!json_is_object(jt))
		return kn_err_set(err, KN_EINVAL, "%s: %s: expected an object", name, at);
	int rc = check_keys(jt, task_keys, name, at, err);
	if (rc || (rc = get_text(&t->id, jt, "index", 1, name, at, err)) ||
	    (rc = get_text(&t->intent, jt, "task", 1, name, at, err)))
		return rc;
	json_t *len = json_object_get(jt, "reference_task_length");
	if (len && !json_is_null(len)) {
		if (!json_is_integer(len) || json_integer_value(len) < 0 ||
		    json_integer_value(len) > 100000)
			return kn_err_set(err, KN_EINVAL,
			                  "%s: %s.reference_task_length: expected a non-negative integer",
			                  name, at);
		t->reference_length = (int)json_integer_value(len);
	}
	json_t *ev = json_object_get(jt, "evaluation");
	if (!json_is_array(ev) || json_array_size(ev) == 0)
		return kn_err_set(err, KN_EINVAL, "%s: %s.evaluation: %s", name, at,
		                  !ev ? "missing" : json_is_array(ev) ? "no key nodes" : "expected an array");
	size_t n = json_array_size(ev);
	if (!(t->keynodes = calloc(n, sizeof *t->keynodes)))
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	for (size_t k = 0; k < n; k++) {
		t->n_keynodes = k + 1;
		if ((rc = load_keynode(&t->keynodes[k], json_array_get(ev, k), ti, k, name, err)))
			return rc;
	}
	return 0;
}

int kn_task_load_mind2web(kn_taskset **out, const char *buf, size_t len, const char *name,
                          const kn_load_opts *opts, kn_err *err)
{
	*out = NULL;
	size_t max = opts && opts->max_bytes ? opts->max_bytes : KN_LOAD_MAX_BYTES;
	int max_depth = opts && opts->max_depth ? opts->max_depth : KN_LOAD_MAX_DEPTH;
	if (len > max)
		return kn_err_set(err, KN_ELIMIT, "%s: document is %zu bytes, over the %zu byte limit",
		                  name, len, max);
	if (kn_json_depth_exceeds(buf, len, max_depth))
		return kn_err_set(err, KN_ELIMIT, "%s: nesting deeper than %d levels", name, max_depth);
	json_error_t je;
	json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
	if (!root)
		return kn_err_set(err, KN_EINVAL, "%s:%d:%d: %s", name, je.line, je.column, je.text);
	kn_taskset *set;
	int rc = kn_taskset_start(&set, name, KN_FORMAT_MIND2WEB, err);
	if (rc)
		goto done;
	if (!json_is_array(root)) {
		rc = kn_err_set(err, KN_EINVAL, "%s: expected a JSON array of tasks", name);
		goto done;
	}
	size_t n = json_array_size(root);
	if (n && !(set->tasks = calloc(n, sizeof *set->tasks))) {
		rc = kn_err_set(err, KN_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < n && !rc; i++) {
		set->n_tasks = i + 1;
		rc = load_task(&set->tasks[i], json_array_get(root, i), i, name, err);
	}
done:
	json_decref(root);
	return kn_taskset_finish(out, set, rc, name, "index", err);
}
