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

#define WANT(o, k, ty)                                     \
	do {                                                   \
		if ((rc = want(name, where, (o), (k), (ty), err))) \
			return rc;                                     \
	} while (0)

static int check_list(const char *name, json_t *step, const char *list, const char *where_step,
                      kn_err *err)
{
	json_t *a = json_object_get(step, list);
	if (!a)
		return 0; /* optional lists */
	if (!json_is_array(a))
		return kn_err_set(err, KN_EINVAL, "%s: %s.%s: not an array", name, where_step, list);
	size_t i;
	json_t *e;
	int rc;
	char where[160];
	json_array_foreach(a, i, e) {
		snprintf(where, sizeof where, "%s.%s[%zu]", where_step, list, i);
		if (!json_is_object(e))
			return kn_err_set(err, KN_EINVAL, "%s: %s: not an object", name, where);
		if (strcmp(list, "evidence") == 0) {
			WANT(e, "node", "string");
			WANT(e, "checked", "boolean");
			WANT(e, "score", "number");
			WANT(e, "why", "string");
			WANT(e, "input", "?string");
		} else if (strcmp(list, "selectors") == 0) {
			WANT(e, "node", "string");
			WANT(e, "selector", "string");
			WANT(e, "count", "integer");
		} else if (strcmp(list, "console") == 0) {
			WANT(e, "text", "?string");
		} else if (strcmp(list, "network") == 0) {
			WANT(e, "url", "?string");
		} else {
			WANT(e, "type", "string");
		}
	}
	return 0;
}

static int check_index(json_t *idx, const char *name, kn_err *err)
{
	int rc;
	const char *where = "";
	if (!json_is_object(idx))
		return kn_err_set(err, KN_EINVAL, "%s: not a JSON object", name);
	WANT(idx, "trace", "integer");
	if (json_integer_value(json_object_get(idx, "trace")) != 1)
		return kn_err_set(err, KN_EINVAL, "%s: trace: version %lld is not 1", name,
		                  (long long)json_integer_value(json_object_get(idx, "trace")));
	WANT(idx, "kind", "string");
	WANT(idx, "run", "string");
	WANT(idx, "task", "string");
	WANT(idx, "status", "string");
	WANT(idx, "score", "number");
	WANT(idx, "answer", "?string");
	WANT(idx, "key_nodes", "array");
	WANT(idx, "steps", "array");
	char w[96];
	size_t i;
	json_t *e;
	json_array_foreach(json_object_get(idx, "key_nodes"), i, e) {
		snprintf(w, sizeof w, "key_nodes[%zu]", i);
		where = w;
		if (!json_is_object(e))
			return kn_err_set(err, KN_EINVAL, "%s: %s: not an object", name, w);
		WANT(e, "id", "string");
		WANT(e, "target", "string");
		WANT(e, "matcher", "string");
		WANT(e, "score", "number");
		WANT(e, "reached_at_step", "?integer");
	}
	json_array_foreach(json_object_get(idx, "steps"), i, e) {
		snprintf(w, sizeof w, "steps[%zu]", i);
		where = w;
		if (!json_is_object(e))
			return kn_err_set(err, KN_EINVAL, "%s: %s: not an object", name, w);
		WANT(e, "step", "integer");
		WANT(e, "type", "string");
		WANT(e, "screenshot", "?string");
		const char *shot = json_string_value(json_object_get(e, "screenshot"));
		if (shot && (strncmp(shot, "shots/", 6) != 0 || strstr(shot, "..") || strchr(shot + 6, '/')))
			return kn_err_set(err, KN_EINVAL, "%s: %s.screenshot: not a file under shots/", name, w);
		static const char *const lists[] = {"evidence", "selectors", "console", "network", "events"};
		for (size_t k = 0; k < sizeof lists / sizeof *lists; k++)
			if ((rc = check_list(name, e, lists[k], w, err)) != 0)
				return rc;
	}
	return 0;
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
	FILE *f = fopen(file, "rb");
	if (!f)
		return kn_err_set(err, KN_ENOTFOUND, "%s: cannot open (not a trace folder?)", file);
	char *buf = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	for (;;) {
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 65536;
			char *nb = nc <= KN_TRACE_MAX_INDEX + 1 ? realloc(buf, nc) : NULL;
			if (!nb) {
				rc = nc > KN_TRACE_MAX_INDEX + 1
				         ? kn_err_set(err, KN_ELIMIT, "%s: over %u bytes", file, KN_TRACE_MAX_INDEX)
				         : kn_err_set(err, KN_ENOMEM, "out of memory");
				break;
			}
			buf = nb, cap = nc;
		}
		size_t r = fread(buf + n, 1, cap - n, f);
		n += r;
		if (r == 0)
			break;
	}
	if (!rc && ferror(f))
		rc = kn_err_set(err, KN_EIO, "%s: read error", file);
	fclose(f);
	if (!rc)
		rc = kn_trace_parse(out, buf, n, file, err);
	free(buf);
	return rc;
}
