/* task_change.c — a key node or a step written alone (task_change.h), loaded by wrapping it into
 * the smallest task file or workflow file that holds it, indented under its list, and handing that
 * to the loader `keynode validate` uses; an error's position is mapped back onto the snippet.
 * And the difference between two stored task definitions for the maintenance log. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keynode/task_change.h"
#include "keynode/workflow.h"

#define SNIPPET_ID "snippet"

/* The wrapper's lines before the snippet and the columns each snippet line is moved right by. */
struct wrap {
	const char *head;  /* the document before the snippet's first line */
	int head_lines;    /* lines of head */
	const char *first; /* before the snippet's first line */
	const char *rest;  /* before each later line */
	int indent;        /* columns first and rest take (the same width) */
};

/* The snippet moved under w's list: its common indentation (spaces) and a leading "- " of its first
 * line are dropped, the lines after that one lose as many columns; *shift is how many columns
 * each line lost (given back in positions). NULL when out of memory. */
static char *wrap_snippet(const struct wrap *w, const char *head, const char *yaml, size_t len, int *shift)
{
	size_t ind = (size_t)-1, col = 0;
	int blank = 1;
	for (size_t i = 0; i <= len; i++) { /* the least indentation of a line holding something */
		if (i == len || yaml[i] == '\n') {
			col = 0, blank = 1;
		} else if (blank && yaml[i] == ' ') {
			col++;
		} else if (blank) {
			blank = 0;
			if (col < ind)
				ind = col;
		}
	}
	if (ind == (size_t)-1)
		ind = 0;
	int dash = len >= ind + 2 && yaml[ind] == '-' && (yaml[ind + 1] == ' ' || yaml[ind + 1] == '\t');
	size_t drop = ind + (dash ? 2u : 0u);
	*shift = (int)drop;
	size_t lines = 1;
	for (size_t i = 0; i < len; i++)
		lines += yaml[i] == '\n';
	size_t cap = strlen(head) + len + lines * ((size_t)w->indent + 1) + 2;
	char *buf = malloc(cap), *p = buf;
	if (!buf)
		return NULL;
	p += sprintf(p, "%s%s", head, w->first);
	for (const char *q = yaml, *end = yaml + len; q < end;) {
		const char *nl = memchr(q, '\n', (size_t)(end - q)), *le = nl ? nl : end;
		size_t k = 0, lim = q == yaml ? ind : drop;
		while (k < lim && q + k < le && q[k] == ' ')
			k++;
		if (q == yaml && dash && q + k + 2 <= le)
			k += 2; /* the first line's "- " */
		else if (q != yaml)
			p += sprintf(p, "%s", w->rest);
		memcpy(p, q + k, (size_t)(le - q) - k);
		p += (size_t)(le - q) - k;
		*p++ = '\n';
		q = nl ? nl + 1 : end;
	}
	*p = '\0';
	return buf;
}

/* err's "name:LINE:COL: …" in wrapper coordinates → the snippet's ("what:L:C: …"); a message
 * without a position inside the snippet keeps its text after the position. */
static void map_position(kn_err *err, const char *name, const char *what, const struct wrap *w, int shift)
{
	if (!err || strncmp(err->msg, name, strlen(name)) != 0 || err->msg[strlen(name)] != ':')
		return;
	const char *p = err->msg + strlen(name) + 1;
	char *end;
	long line = strtol(p, &end, 10), col = 0;
	if (end == p)
		return;
	if (*end == ':')
		col = strtol(end + 1, &end, 10);
	if (*end == ':')
		end++;
	while (*end == ' ')
		end++;
	/* the wrapper's own task name says nothing to the user */
	static const char ctx[] = "task '" SNIPPET_ID "'";
	if (strncmp(end, ctx, sizeof ctx - 1) == 0) {
		end += sizeof ctx - 1;
		end += *end == ':' ? 1 : 0;
		while (*end == ' ')
			end++;
	}
	line -= w->head_lines;
	col += shift - w->indent;
	if (line < 1)
		line = 1, col = 1;
	if (col < 1)
		col = 1;
	char msg[KN_ERR_MAX];
	snprintf(msg, sizeof msg, "%s:%ld:%ld: %s", what, line, col, end);
	snprintf(err->msg, sizeof err->msg, "%s", msg);
}

/* A snippet must be text: no NUL byte, within the cap, not empty. */
static int snippet_ok(const char *yaml, size_t len, const char *what, kn_err *err)
{
	if (!yaml || len == 0)
		return kn_err_set(err, KN_EINVAL, "%s:1:1: empty", what);
	if (len > KN_SNIPPET_MAX)
		return kn_err_set(err, KN_ELIMIT, "%s: longer than %u bytes", what, KN_SNIPPET_MAX);
	const char *nul = memchr(yaml, '\0', len);
	if (nul) {
		int line = 1, col = 1;
		for (const char *p = yaml; p < nul; p++)
			line += *p == '\n', col = *p == '\n' ? 1 : col + 1;
		return kn_err_set(err, KN_EINVAL, "%s:%d:%d: a NUL byte", what, line, col);
	}
	return 0;
}

int kn_keynode_from_snippet(kn_taskset **out, const char *yaml, size_t len, kn_err *err)
{
	*out = NULL;
	int rc = snippet_ok(yaml, len, "key_node", err);
	if (rc)
		return rc;
	static const struct wrap w = {"tasks:\n  - id: " SNIPPET_ID "\n    intent: " SNIPPET_ID "\n    key_nodes:\n",
	                              4, "      - ", "        ", 8};
	int shift;
	char *doc = wrap_snippet(&w, w.head, yaml, len, &shift);
	if (!doc)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	static const char name[] = "key_node.wrapped";
	rc = kn_task_load_yaml(out, doc, strlen(doc), name, NULL, err);
	free(doc);
	if (rc) {
		map_position(err, name, "key_node", &w, shift);
		return rc;
	}
	if ((*out)->n_tasks != 1 || (*out)->tasks[0].n_keynodes != 1) {
		kn_taskset_free(*out);
		*out = NULL;
		return kn_err_set(err, KN_EINVAL, "key_node:1:1: expected exactly one key node");
	}
	return 0;
}

int kn_step_from_snippet(kn_taskset **out, const char *task_id, const char *yaml, size_t len, kn_err *err)
{
	*out = NULL;
	int rc = snippet_ok(yaml, len, "step", err);
	if (rc)
		return rc;
	if (!task_id || !*task_id)
		return kn_err_set(err, KN_EINVAL, "step: no task");
	/* the task id as a JSON string is a YAML double-quoted scalar */
	json_t *id = json_string(task_id);
	char *idq = id ? json_dumps(id, JSON_ENCODE_ANY) : NULL;
	json_decref(id);
	size_t hl = idq ? strlen(idq) + 64 : 0;
	char *head = idq ? malloc(hl) : NULL;
	if (!head) {
		free(idq);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	snprintf(head, hl, "workflow: 1\ntask: %s\nsteps:\n", idq);
	free(idq);
	static const struct wrap w = {NULL, 3, "  - ", "    ", 4};
	int shift;
	char *doc = wrap_snippet(&w, head, yaml, len, &shift);
	free(head);
	if (!doc)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	static const char name[] = "step.wrapped";
	rc = kn_workflow_load_buffer(out, doc, strlen(doc), name, err);
	free(doc);
	if (rc) {
		map_position(err, name, "step", &w, shift);
		return rc;
	}
	if ((*out)->n_tasks != 1 || (*out)->tasks[0].n_steps != 1) {
		kn_taskset_free(*out);
		*out = NULL;
		return kn_err_set(err, KN_EINVAL, "step:1:1: expected exactly one step");
	}
	return 0;
}

/* ---- the difference of two definitions ---------------------------------------------------- */

static json_t *or_null(json_t *v)
{
	return v ? json_incref(v) : json_null();
}

/* Append {name: key, before, after} to list when the two differ. */
static int add_change(json_t *list, const char *name, json_t *key, json_t *a, json_t *b)
{
	if (a && b && json_equal(a, b)) {
		json_decref(key);
		return 0;
	}
	json_t *e = json_object();
	if (!e || json_object_set_new(e, name, key) || json_object_set_new(e, "before", or_null(a)) ||
	    json_object_set_new(e, "after", or_null(b)) || json_array_append_new(list, e))
		return KN_ENOMEM;
	return 0;
}

/* The key node of list whose "id" is id, or NULL. */
static json_t *node_by_id(json_t *list, const char *id)
{
	size_t i;
	json_t *e;
	json_array_foreach(list, i, e) {
		const char *x = json_string_value(json_object_get(e, "id"));
		if (x && id && strcmp(x, id) == 0)
			return e;
	}
	return NULL;
}

int kn_task_diff(json_t **out, json_t *before, json_t *after, kn_err *err)
{
	*out = NULL;
	if ((before && !json_is_object(before)) || !json_is_object(after))
		return kn_err_set(err, KN_EINVAL, "a definition is not an object");
	json_t *empty = json_array();
	json_t *ka = before ? json_object_get(before, "key_nodes") : NULL, *kb = json_object_get(after, "key_nodes");
	json_t *sa = before ? json_object_get(before, "steps") : NULL, *sb = json_object_get(after, "steps");
	ka = json_is_array(ka) ? ka : empty, kb = json_is_array(kb) ? kb : empty;
	sa = json_is_array(sa) ? sa : empty, sb = json_is_array(sb) ? sb : empty;
	json_t *o = json_object(), *kns = json_array(), *steps = json_array(), *fields = json_array();
	int bad = !empty || !o || !kns || !steps || !fields;
	size_t i;
	json_t *e;
	json_array_foreach(kb, i, e) {
		if (bad)
			break;
		const char *id = json_string_value(json_object_get(e, "id"));
		bad |= add_change(kns, "id", id ? json_string(id) : json_null(), node_by_id(ka, id), e) != 0;
	}
	json_array_foreach(ka, i, e) {
		const char *id = json_string_value(json_object_get(e, "id"));
		if (!bad && !node_by_id(kb, id))
			bad |= add_change(kns, "id", id ? json_string(id) : json_null(), e, NULL) != 0;
	}
	size_t n = json_array_size(sa) > json_array_size(sb) ? json_array_size(sa) : json_array_size(sb);
	for (i = 0; !bad && i < n; i++)
		bad |= add_change(steps, "step", json_integer((json_int_t)i + 1), json_array_get(sa, i),
		                  json_array_get(sb, i)) != 0;
	const char *k;
	json_t *v;
	json_object_foreach(after, k, v) {
		if (!bad && strcmp(k, "key_nodes") && strcmp(k, "steps") && before &&
		    !json_equal(v, json_object_get(before, k)))
			bad |= json_array_append_new(fields, json_string(k));
	}
	json_object_foreach(before, k, v) {
		if (!bad && !json_object_get(after, k))
			bad |= json_array_append_new(fields, json_string(k));
	}
	json_decref(empty);
	if (bad) {
		json_decref(kns), json_decref(steps), json_decref(fields), json_decref(o);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	if (json_object_set_new(o, "key_nodes", kns) | json_object_set_new(o, "steps", steps) |
	    json_object_set_new(o, "fields", fields)) {
		json_decref(o);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	*out = o;
	return 0;
}
