/* trace_read.c — loading a trace index (trace.h) for `keynode trace show` and the dashboard.
 *
 * The index is input from disk (a trace may have been copied, edited or truncated): it is parsed
 * with a size cap and its shape checked member by member — the members every reader relies on,
 * with their types — so a reader can walk it without checking again. Errors name the file and
 * the member ("index.json: steps[3].evidence[0].node: missing or not a string"). Fuzzed by
 * tests/fuzz/fuzz_trace_index.c. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "keynode/fs.h"

#include "trace.h"

/* Member k of o must exist with the given JSON type (a "?" type also allows null). */
static int want(const char *name, const char *where, json_t *o, const char *k, const char *type,
                kn_err *err)
{
	json_t *v = json_object_get(o, k);
	int nullable = type[0] == '?';
	const char *ty = nullable ? type + 1 : type;
	int ok = (nullable && json_is_null(v)) || (strcmp(ty, "string") == 0 && json_is_string(v)) ||
	         (strcmp(ty, "number") == 0 && json_is_number(v)) ||
	         (strcmp(ty, "integer") == 0 && json_is_integer(v)) ||
	         (strcmp(ty, "array") == 0 && json_is_array(v)) ||
	         (strcmp(ty, "object") == 0 && json_is_object(v)) ||
	         (strcmp(ty, "boolean") == 0 && json_is_boolean(v));
	if (ok)
		return 0;
	return kn_err_set(err, KN_EINVAL, "%s: %s%s%s: %s", name, where, *where ? "." : "", k,
	                  v ? "has the wrong type" : "missing");
}

/* The members an object must have, with their types (want's), in the order they are checked; the
 * list ends with a NULL key. */
typedef struct member {
	const char *key, *type;
} member;

static const member index_members[] = {
	{"kind", "string"},   {"run", "string"},      {"task", "string"},      {"status", "string"},
	{"score", "number"},  {"answer", "?string"},  {"key_nodes", "array"},  {"steps", "array"},
	{NULL, NULL}};
static const member key_node_members[] = {
	{"id", "string"},    {"target", "string"},           {"matcher", "string"},
	{"score", "number"}, {"reached_at_step", "?integer"}, {NULL, NULL}};
static const member step_members[] = {
	{"step", "integer"}, {"type", "string"}, {"screenshot", "?string"}, {NULL, NULL}};

/* A step's optional lists and the members of their entries. */
static const member evidence_members[] = {
	{"node", "string"}, {"checked", "boolean"}, {"score", "number"}, {"why", "string"},
	{"input", "?string"}, {NULL, NULL}};
static const member selector_members[] = {
	{"node", "string"}, {"selector", "string"}, {"count", "integer"}, {NULL, NULL}};
static const member console_members[] = {{"text", "?string"}, {NULL, NULL}};
static const member network_members[] = {{"url", "?string"}, {NULL, NULL}};
static const member event_members[] = {{"type", "string"}, {NULL, NULL}};
static const struct {
	const char *list;
	const member *members;
} step_lists[] = {{"evidence", evidence_members}, {"selectors", selector_members},
                  {"console", console_members},   {"network", network_members},
                  {"events", event_members}};

static int want_members(const char *name, const char *where, json_t *o, const member *m, kn_err *err)
{
	int rc;
	for (; m->key; m++)
		if ((rc = want(name, where, o, m->key, m->type, err)) != 0)
			return rc;
	return 0;
}

/* Each entry of the array a must be an object with the members m ("where[i]: …" in errors); each
 * is then checked by more when it is not NULL. */
static int want_entries(const char *name, json_t *a, const char *where, const member *m,
                        int (*more)(const char *name, json_t *e, const char *where, kn_err *err),
                        kn_err *err)
{
	size_t i;
	json_t *e;
	int rc;
	char w[160];
	json_array_foreach(a, i, e) {
		snprintf(w, sizeof w, "%s[%zu]", where, i);
		if (!json_is_object(e))
			return kn_err_set(err, KN_EINVAL, "%s: %s: not an object", name, w);
		if ((rc = want_members(name, w, e, m, err)) != 0 || (more && (rc = more(name, e, w, err)) != 0))
			return rc;
	}
	return 0;
}

/* A step beyond its members: its screenshot's file name and its optional lists. */
static int check_step(const char *name, json_t *e, const char *where, kn_err *err)
{
	const char *shot = json_string_value(json_object_get(e, "screenshot"));
	if (shot && (strncmp(shot, "shots/", 6) != 0 || strstr(shot, "..") || strchr(shot + 6, '/')))
		return kn_err_set(err, KN_EINVAL, "%s: %s.screenshot: not a file under shots/", name, where);
	for (size_t k = 0; k < sizeof step_lists / sizeof *step_lists; k++) {
		json_t *a = json_object_get(e, step_lists[k].list);
		if (!a)
			continue; /* optional lists */
		char w[160];
		snprintf(w, sizeof w, "%s.%s", where, step_lists[k].list);
		if (!json_is_array(a))
			return kn_err_set(err, KN_EINVAL, "%s: %s: not an array", name, w);
		int rc = want_entries(name, a, w, step_lists[k].members, NULL, err);
		if (rc)
			return rc;
	}
	return 0;
}

static int check_index(json_t *idx, const char *name, kn_err *err)
{
	int rc;
	if (!json_is_object(idx))
		return kn_err_set(err, KN_EINVAL, "%s: not a JSON object", name);
	if ((rc = want(name, "", idx, "trace", "integer", err)) != 0)
		return rc;
	if (json_integer_value(json_object_get(idx, "trace")) != 1)
		return kn_err_set(err, KN_EINVAL, "%s: trace: version %lld is not 1", name,
		                  (long long)json_integer_value(json_object_get(idx, "trace")));
	if ((rc = want_members(name, "", idx, index_members, err)) != 0 ||
	    (rc = want_entries(name, json_object_get(idx, "key_nodes"), "key_nodes", key_node_members,
	                       NULL, err)) != 0)
		return rc;
	return want_entries(name, json_object_get(idx, "steps"), "steps", step_members, check_step, err);
}

int kn_trace_parse(json_t **out, const char *buf, size_t len, const char *name, kn_err *err)
{
	*out = NULL;
	if (len > KN_TRACE_MAX_INDEX)
		return kn_err_set(err, KN_ELIMIT, "%s: over %u bytes", name, KN_TRACE_MAX_INDEX);
	json_error_t je;
	json_t *idx = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
	if (!idx)
		return kn_err_set(err, KN_EINVAL, "%s:%d:%d: %s", name, je.line, je.column, je.text);
	int rc = check_index(idx, name, err);
	if (rc) {
		json_decref(idx);
		return rc;
	}
	*out = idx;
	return 0;
}

int kn_trace_load(json_t **out, const char *path, kn_err *err)
{
	*out = NULL;
	struct stat st;
	char file[4200];
	if (stat(path, &st) != 0)
		return kn_err_set(err, KN_ENOTFOUND, "%s: no such file or folder", path);
	if (S_ISDIR(st.st_mode))
		snprintf(file, sizeof file, "%s/index.json", path);
	else
		snprintf(file, sizeof file, "%s", path);
	char *buf = NULL;
	size_t n = 0;
	int rc = kn_read_file(&buf, &n, file, KN_TRACE_MAX_INDEX, err);
	if (rc == KN_ENOTFOUND) /* what a user who named another folder needs to hear */
		kn_err_set(err, rc, "%s: cannot open (not a trace folder?)", file);
	if (!rc)
		rc = kn_trace_parse(out, buf, n, file, err);
	free(buf);
	return rc;
}
