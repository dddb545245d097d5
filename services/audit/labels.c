/* labels.c — the labels file of `keynode judge-audit` (audit.h): JSON Lines read strictly, one
 * labelled judgement per line, every problem named by file:line so a person can fix it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "audit.h"
#include "keynode/fs.h"
#include "keynode/grow.h"

void kn_labels_free(kn_labels *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++) {
		free(l->items[i].rule);
		free(l->items[i].value);
		free(l->items[i].key);
	}
	free(l->items);
	free(l);
}

static int blank(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			return 0;
	return 1;
}

/* A member that must be a string; NULL when absent (then *bad says nothing) or not a string. */
static const char *string_member(json_t *o, const char *name, int *bad)
{
	json_t *v = json_object_get(o, name);
	if (!v)
		return NULL;
	if (!json_is_string(v)) {
		*bad = 1;
		return NULL;
	}
	return json_string_value(v);
}

/* One non-blank line into *it. */
static int parse_line(kn_label_item *it, const char *name, int line, const char *s, size_t len,
                      kn_err *err)
{
	json_error_t je;
	json_t *o = json_loadb(s, len, JSON_REJECT_DUPLICATES, &je);
	if (!o)
		return kn_err_set(err, KN_EINVAL, "%s:%d:%d: not JSON: %s", name, line, je.column, je.text);
	int rc = KN_EINVAL, bad = 0;
	if (!json_is_object(o)) {
		kn_err_set(err, rc, "%s:%d: want a JSON object {\"rule\", \"value\", \"target\", \"label\"}",
		           name, line);
		goto out;
	}
	const char *rule = string_member(o, "rule", &bad);
	if (!rule || !*rule) {
		kn_err_set(err, rc, "%s:%d: \"rule\" must be a non-empty string (the key node's reference)",
		           name, line);
		goto out;
	}
	const char *value = string_member(o, "value", &bad);
	if (!value) {
		kn_err_set(err, rc, "%s:%d: \"value\" must be a string (what the agent produced)", name, line);
		goto out;
	}
	const char *target = string_member(o, "target", &bad);
	int t = target ? kn_target_from_name(target, strlen(target)) : -1;
	if (t != KN_TARGET_URL && t != KN_TARGET_ELEMENT_VALUE && t != KN_TARGET_ANSWER) {
		kn_err_set(err, rc, "%s:%d: \"target\" must be \"url\", \"element_value\" or \"answer\"",
		           name, line);
		goto out;
	}
	json_t *label = json_object_get(o, "label");
	if (!json_is_boolean(label)) {
		kn_err_set(err, rc, "%s:%d: \"label\" must be true or false", name, line);
		goto out;
	}
	const char *key = string_member(o, "key", &bad);
	if (bad) {
		kn_err_set(err, rc, "%s:%d: \"key\" must be a string (a query parameter)", name, line);
		goto out;
	}
	if (key && *key && t != KN_TARGET_URL) {
		kn_err_set(err, rc, "%s:%d: \"key\" applies to target url only", name, line);
		goto out;
	}
	it->line = line;
	it->target = (kn_target)t;
	it->label = json_is_true(label);
	it->rule = strdup(rule);
	it->value = strdup(value);
	it->key = key && *key ? strdup(key) : NULL;
	if (!it->rule || !it->value || (key && *key && !it->key)) {
		free(it->rule), free(it->value), free(it->key);
		rc = kn_err_set(err, KN_ENOMEM, "out of memory");
		goto out;
	}
	rc = 0;
out:
	json_decref(o);
	return rc;
}

int kn_labels_parse(kn_labels **out, const char *name, const char *text, size_t len, kn_err *err)
{
	*out = NULL;
	kn_labels *l = calloc(1, sizeof *l);
	if (!l)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	size_t cap = 0, pos = 0;
	int line = 0, rc = 0;
	while (pos < len) {
		line++;
		const char *s = text + pos;
		const char *nl = memchr(s, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - s) : len - pos;
		pos += n + (nl != NULL);
		if (n > KN_LABELS_MAX_LINE) {
			rc = kn_err_set(err, KN_ELIMIT, "%s:%d: line longer than %d bytes", name, line,
			                KN_LABELS_MAX_LINE);
			break;
		}
		if (blank(s, n))
			continue;
		if (l->n == KN_LABELS_MAX_ITEMS) {
			rc = kn_err_set(err, KN_ELIMIT, "%s:%d: more than %d items", name, line,
			                KN_LABELS_MAX_ITEMS);
			break;
		}
		if (kn_grow(&l->items, l->n, &cap, sizeof *l->items, 64)) {
			rc = kn_err_set(err, KN_ENOMEM, "out of memory");
			break;
		}
		if ((rc = parse_line(&l->items[l->n], name, line, s, n, err)) != 0)
			break;
		l->n++;
	}
	if (rc == 0 && l->n == 0)
		rc = kn_err_set(err, KN_EINVAL, "%s: no labelled items", name);
	if (rc != 0) {
		kn_labels_free(l);
		return rc;
	}
	*out = l;
	return 0;
}

int kn_labels_load(kn_labels **out, const char *path, kn_err *err)
{
	*out = NULL;
	char *text = NULL;
	size_t len = 0;
	int rc = kn_read_file(&text, &len, path, KN_LABELS_MAX_BYTES, err);
	if (rc == 0)
		rc = kn_labels_parse(out, path, text, len, err);
	free(text);
	return rc;
}
