/* task_yaml_events.c — the event source of the YAML task loader (task_yaml.c), over libyaml
 * through the shared front-end (keynode/yaml_reader.h: events with positions, error words).
 *
 * Pass 1 reads the events once and checks what does not depend on the schema: YAML syntax and
 * UTF-8, a single document, nesting depth, core tags only, no NUL in text, and anchors/aliases,
 * counting the nodes every alias would produce so that a "billion laughs" document fails with
 * KN_ELIMIT before anything is expanded. Pass 2 then asks for events one at a time (next_event):
 * each carries its 1-based position and, for scalars, its core-schema kind; events under an anchor
 * are recorded and an alias replays the recording. Also here: the small helpers every part uses
 * (positions, copies, growing arrays, a string map, name look-up) and the readers of typed values
 * (text, URL, mapping key, count) that the schema parsers are built from. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keynode/grow.h"
#include "task_yaml_internal.h"

/* ---- small helpers ---- */

pos kn_ty_pos_of(yaml_mark_t m)
{
	pos p = { kn_yaml_line(m), kn_yaml_col(m) };
	return p;
}

pos kn_ty_pos_at(int line, int col)
{
	pos p = { line, col };
	return p;
}

char *kn_ty_dupn(const char *s, size_t n)
{
	char *d = malloc(n + 1);
	if (d) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

/* arr with room for element n (capacity *cap, doubled as needed), or NULL when out of memory. */
static size_t sat_add(size_t a, size_t b)
{
	return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

/* Index of s (len bytes) in names[0..n), or -1. */
int kn_ty_lookup(const char *const *names, int n, const char *s, size_t len)
{
	for (int i = 0; i < n; i++)
		if (names[i] && strlen(names[i]) == len && memcmp(names[i], s, len) == 0)
			return i;
	return -1;
}

/* ---- string map ---- */

/* FNV-1a, then a finaliser so that the low bits the table is indexed by depend on every byte
 * (names often differ only in a few digits: "t1".."t99999"). */
static size_t sm_hash(const char *s)
{
	uint64_t h = 1469598103934665603u;
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211u;
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdu;
	h ^= h >> 33;
	return (size_t)h;
}

/* Slot holding k, or the empty slot where it would go. cap is a power of two, never full. */
static size_t sm_slot(const strmap *m, const char *k)
{
	size_t i = sm_hash(k) & (m->cap - 1);
	while (m->keys[i] && strcmp(m->keys[i], k) != 0)
		i = (i + 1) & (m->cap - 1);
	return i;
}

/* 1 and *val when k is present, else 0. */
int kn_ty_sm_find(const strmap *m, const char *k, size_t *val)
{
	if (!m->cap)
		return 0;
	size_t i = sm_slot(m, k);
	if (!m->keys[i])
		return 0;
	*val = m->vals[i];
	return 1;
}

/* Insert or update k (borrowed); *existed says which. KN_ENOMEM when growing fails. */
int kn_ty_sm_put(strmap *m, const char *k, size_t val, int *existed)
{
	if ((m->n + 1) * 2 > m->cap) {
		size_t nc = m->cap ? m->cap * 2 : 16;
		if (nc > SIZE_MAX / sizeof(size_t) / 2)
			return KN_ENOMEM;
		strmap g = { calloc(nc, sizeof(char *)), calloc(nc, sizeof(size_t)), nc, m->n };
		if (!g.keys || !g.vals) {
			free(g.keys);
			free(g.vals);
			return KN_ENOMEM;
		}
		for (size_t i = 0; i < m->cap; i++)
			if (m->keys[i]) {
				size_t j = sm_slot(&g, m->keys[i]);
				g.keys[j] = m->keys[i];
				g.vals[j] = m->vals[i];
			}
		free(m->keys);
		free(m->vals);
		*m = g;
	}
	size_t i = sm_slot(m, k);
	*existed = m->keys[i] != NULL;
	if (!*existed) {
		m->keys[i] = k;
		m->n++;
	}
	m->vals[i] = val;
	return 0;
}

void kn_ty_sm_free(strmap *m, int free_keys)
{
	if (free_keys)
		for (size_t i = 0; i < m->cap; i++)
			free((char *)(uintptr_t)m->keys[i]);
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof *m);
}

/* Empty the map; a big table is dropped so resetting per task stays cheap. */
void kn_ty_sm_reset(strmap *m)
{
	if (m->cap > 64)
		kn_ty_sm_free(m, 0);
	else if (m->cap)
		memset(m->keys, 0, m->cap * sizeof(char *));
	m->n = 0;
}

/* ---- scalars under the core schema ---- */

static int is_null(const char *s)
{
	return !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL");
}

int kn_ty_is_true(const char *s)
{
	return !strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "TRUE");
}

static int is_bool(const char *s)
{
	return kn_ty_is_true(s) || !strcmp(s, "false") || !strcmp(s, "False") || !strcmp(s, "FALSE");
}

static int all_of(const char *s, const char *set)
{
	return *s && strspn(s, set) == strlen(s);
}

static int is_int(const char *s)
{
	if (s[0] == '0' && s[1] == 'o')
		return all_of(s + 2, "01234567");
	if (s[0] == '0' && s[1] == 'x')
		return all_of(s + 2, "0123456789abcdefABCDEF");
	if (*s == '-' || *s == '+')
		s++;
	return all_of(s, "0123456789");
}

static int is_float(const char *s)
{
	if (!strcmp(s, ".nan") || !strcmp(s, ".NaN") || !strcmp(s, ".NAN"))
		return 1;
	if (*s == '-' || *s == '+')
		s++;
	if (!strcmp(s, ".inf") || !strcmp(s, ".Inf") || !strcmp(s, ".INF"))
		return 1;
	size_t ip = strspn(s, "0123456789");
	s += ip;
	size_t fp = 0;
	if (*s == '.') {
		s++;
		fp = strspn(s, "0123456789");
		s += fp;
	}
	if (ip + fp == 0)
		return 0;
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '-' || *s == '+')
			s++;
		if (!all_of(s, "0123456789"))
			return 0;
		s += strlen(s);
	}
	return *s == '\0';
}

/* A core-schema integer as a long long; -1 when out of range. */
static int parse_int(const char *s, long long *out)
{
	int neg = 0, base = 10;
	unsigned long long v = 0;
	if (s[0] == '0' && (s[1] == 'o' || s[1] == 'x')) {
		base = s[1] == 'o' ? 8 : 16;
		s += 2;
	} else if (*s == '-' || *s == '+') {
		neg = *s == '-';
		s++;
	}
	for (; *s; s++) {
		int d = *s <= '9' ? *s - '0' : (*s | 0x20) - 'a' + 10;
		if (v > (ULLONG_MAX - (unsigned)d) / (unsigned)base)
			return -1;
		v = v * (unsigned)base + (unsigned)d;
	}
	if (v > (unsigned long long)LLONG_MAX + (unsigned)neg)
		return -1;
	if (neg)
		*out = v == (unsigned long long)LLONG_MAX + 1u ? LLONG_MIN : -(long long)v;
	else
		*out = (long long)v;
	return 0;
}

/* Tags in messages as written: "tag:yaml.org,2002:binary" is shown as "!!binary". */
static size_t tag_skip(const char *tag)
{
	return strncmp(tag, CORE_TAG, strlen(CORE_TAG)) ? 0 : strlen(CORE_TAG);
}

static const char *short_tag(const char *tag)
{
	return tag_skip(tag) ? "!!" : "";
}

/* The kind of a scalar event; an error for tags beyond the core schema, or for text that its core
 * tag refuses. */
static int classify(loader *l, const yaml_event_t *ev, int *kind)
{
	const char *tag = (const char *)ev->data.scalar.tag;
	const char *v = (const char *)ev->data.scalar.value;
	pos at = kn_ty_pos_of(ev->start_mark);
	char c[72];
	if (!tag) {
		if (ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
			*kind = SK_STR;
		else if (is_null(v))
			*kind = SK_NULL;
		else if (is_bool(v))
			*kind = SK_BOOL;
		else if (is_int(v))
			*kind = SK_INT;
		else if (is_float(v))
			*kind = SK_FLOAT;
		else
			*kind = SK_STR;
		return 0;
	}
	if (!strcmp(tag, "!")) {
		*kind = SK_STR;
		return 0;
	}
	size_t pl = strlen(CORE_TAG);
	if (!strncmp(tag, CORE_TAG, pl)) {
		const char *t = tag + pl;
		int ok = 1;
		if (!strcmp(t, "str"))
			*kind = SK_STR;
		else if (!strcmp(t, "int"))
			*kind = SK_INT, ok = is_int(v);
		else if (!strcmp(t, "float"))
			*kind = SK_FLOAT, ok = is_float(v) || is_int(v);
		else if (!strcmp(t, "bool"))
			*kind = SK_BOOL, ok = is_bool(v);
		else if (!strcmp(t, "null"))
			*kind = SK_NULL, ok = is_null(v);
		else if (!strcmp(t, "seq") || !strcmp(t, "map"))
			return kn_ty_fail(l, KN_EINVAL, at, "tag !!%s on a scalar", t);
		else
			goto unsupported;
		if (!ok)
			return kn_ty_fail(l, KN_EINVAL, at, "'%s' is not a valid !!%s",
			                  kn_ty_clip(c, sizeof c, v), t);
		return 0;
	}
unsupported:
	return kn_ty_fail(l, KN_EINVAL, at,
	                  "unsupported tag '%s%s' (only the core tags !!str, !!int, !!float, !!bool, "
	                  "!!null, !!seq and !!map are accepted)", short_tag(tag),
	                  kn_ty_clip(c, sizeof c, tag + tag_skip(tag)));
}

static int check_collection_tag(loader *l, const yaml_event_t *ev)
{
	int seq = ev->type == YAML_SEQUENCE_START_EVENT;
	const char *tag = (const char *)(seq ? ev->data.sequence_start.tag
	                                     : ev->data.mapping_start.tag);
	char c[72];
	if (!tag || !strcmp(tag, "!") || !strcmp(tag, seq ? CORE_TAG "seq" : CORE_TAG "map"))
		return 0;
	return kn_ty_fail(l, KN_EINVAL, kn_ty_pos_of(ev->start_mark), "unsupported tag '%s%s' on a %s",
	                  short_tag(tag), kn_ty_clip(c, sizeof c, tag + tag_skip(tag)),
	                  seq ? "list" : "mapping");
}

/* ---- pass 1: structure, limits, anchors ---- */

/* Register a finished anchor; the map keeps the first copy of a name, later ones are freed. */
static int p1_register(loader *l, strmap *anchors, char *name, size_t def)
{
	int existed;
	if (kn_ty_sm_put(anchors, name, def, &existed) != 0) {
		free(name);
		return kn_ty_oom(l);
	}
	if (existed)
		free(name);
	return 0;
}

/* Handle one event of pass 1. def_count[d] is how many nodes anchored node d stands for. */
static int p1_event(loader *l, const yaml_event_t *ev, strmap *anchors, size_t **def_count,
                    size_t *cap_def, openanchor **open, size_t *nopen, size_t *cap_open,
                    int *depth, int *docs, size_t *total, size_t *alias_nodes)
{
	pos at = kn_ty_pos_of(ev->start_mark);
	const yaml_char_t *anchor = NULL;
	char c[72];
	int rc;
	l->last = at;
	switch (ev->type) {
	case YAML_DOCUMENT_START_EVENT:
		if (++*docs > 1)
			return kn_ty_fail(l, KN_EINVAL, at, "a second YAML document; a task file holds one");
		return 0;
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		if (++*depth > l->max_depth)
			return kn_ty_fail(l, KN_ELIMIT, at, "nesting deeper than %d levels", l->max_depth);
		if ((rc = check_collection_tag(l, ev)) != 0)
			return rc;
		anchor = ev->type == YAML_SEQUENCE_START_EVENT ? ev->data.sequence_start.anchor
		                                               : ev->data.mapping_start.anchor;
		if (anchor) {
			if (kn_grow(open, *nopen, cap_open, sizeof **open, 4) ||
			    kn_grow(def_count, l->ndefs, cap_def, sizeof **def_count, 4))
				return kn_ty_oom(l);
			openanchor *o = *open;
			char *name = kn_ty_dupn((const char *)anchor, strlen((const char *)anchor));
			if (!name)
				return kn_ty_oom(l);
			o[*nopen].def = l->ndefs++;
			o[*nopen].depth = *depth;
			o[*nopen].total = *total;
			o[*nopen].name = name;
			(*nopen)++;
		}
		*total = sat_add(*total, 1);
		return 0;
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		if (*nopen && (*open)[*nopen - 1].depth == *depth) {
			openanchor *o = &(*open)[--*nopen];
			(*def_count)[o->def] = *total - o->total;
			char *name = o->name;
			o->name = NULL;
			if ((rc = p1_register(l, anchors, name, o->def)) != 0)
				return rc;
		}
		(*depth)--;
		return 0;
	case YAML_SCALAR_EVENT: {
		int kind;
		if (memchr(ev->data.scalar.value, 0, ev->data.scalar.length))
			return kn_ty_fail(l, KN_EINVAL, at, "text contains a NUL character");
		if ((rc = classify(l, ev, &kind)) != 0)
			return rc;
		*total = sat_add(*total, 1);
		if (!ev->data.scalar.anchor)
			return 0;
		if (kn_grow(def_count, l->ndefs, cap_def, sizeof **def_count, 4))
			return kn_ty_oom(l);
		char *name = kn_ty_dupn((const char *)ev->data.scalar.anchor,
		                        strlen((const char *)ev->data.scalar.anchor));
		if (!name)
			return kn_ty_oom(l);
		(*def_count)[l->ndefs] = 1;
		return p1_register(l, anchors, name, l->ndefs++);
	}
	case YAML_ALIAS_EVENT: {
		const char *name = (const char *)ev->data.alias.anchor;
		size_t def;
		if (!kn_ty_sm_find(anchors, name, &def))
			return kn_ty_fail(l, KN_EINVAL, at, "alias '*%s' has no anchor '&%s' before it",
			                  kn_ty_clip(c, sizeof c, name), c);
		size_t n = (*def_count)[def];
		*alias_nodes = sat_add(*alias_nodes, n);
		if (*alias_nodes > l->max_alias)
			return kn_ty_fail(l, KN_ELIMIT, at,
			                  "aliases expand to more than %zu nodes (at alias '*%s')",
			                  l->max_alias, kn_ty_clip(c, sizeof c, name));
		*total = sat_add(*total, n);
		if (kn_grow(&l->alias_def, l->nalias, &l->cap_alias, sizeof *l->alias_def, 4))
			return kn_ty_oom(l);
		l->alias_def[l->nalias++] = def;
		return 0;
	}
	default:
		return 0;
	}
}

/* Read the whole stream once: syntax, encoding, one document, depth, tags, aliases. */
int kn_ty_pass1(loader *l)
{
	kn_yaml_reader r;
	strmap anchors = { 0 };
	size_t *def_count = NULL, cap_def = 0, nopen = 0, cap_open = 0, total = 0, alias_nodes = 0;
	openanchor *open = NULL;
	int depth = 0, docs = 0, rc = 0;

	if (kn_yaml_reader_init(&r, l->buf, l->len, "a task file", 1) != 0) {
		kn_yaml_reader_done(&r);
		return kn_ty_oom(l);
	}
	for (;;) {
		if ((rc = kn_yaml_reader_next(&r)) != 0) {
			rc = kn_ty_yaml_fail(l, &r, rc);
			break;
		}
		rc = p1_event(l, &r.ev, &anchors, &def_count, &cap_def, &open, &nopen, &cap_open, &depth,
		              &docs, &total, &alias_nodes);
		if (rc || r.ev.type == YAML_STREAM_END_EVENT)
			break;
	}
	for (size_t i = 0; i < nopen; i++)
		free(open[i].name);
	free(open);
	free(def_count);
	kn_ty_sm_free(&anchors, 1);
	kn_yaml_reader_done(&r);
	return rc;
}

/* ---- pass 2 event source: libyaml, anchors recorded, aliases replayed ---- */

static int record(loader *l, const yev *e, int copy_text)
{
	if (kn_grow(&l->log, l->nlog, &l->cap_log, sizeof *l->log, 4))
		return kn_ty_oom(l);
	logent *en = &l->log[l->nlog];
	en->ev = *e;
	en->own = NULL;
	if (copy_text && e->type == YAML_SCALAR_EVENT) {
		if (!(en->own = kn_ty_dupn(e->val, e->len)))
			return kn_ty_oom(l);
		en->ev.val = en->own;
	}
	l->nlog++;
	return 0;
}

/* Bookkeeping for one delivered event: depth, recording under anchors, closing anchors.
 * def is the index of the anchor this event starts, or NO_DEF. */
static int deliver(loader *l, const yev *e, int from_parser, size_t def)
{
	int start = e->type == YAML_SEQUENCE_START_EVENT || e->type == YAML_MAPPING_START_EVENT;
	int end = e->type == YAML_SEQUENCE_END_EVENT || e->type == YAML_MAPPING_END_EVENT;
	int rc;
	if (start)
		l->depth++;
	if (def != NO_DEF) {
		if (def >= l->ndefs)
			return kn_ty_fail(l, KN_EINVAL, e->at, "internal error: anchors out of step");
		l->def_start[def] = l->nlog;
		if (start) {
			if (kn_grow(&l->open, l->nopen, &l->cap_open, sizeof *l->open, 4))
				return kn_ty_oom(l);
			openanchor *o = l->open;
			o[l->nopen].def = def;
			o[l->nopen].depth = l->depth;
			o[l->nopen].name = NULL;
			l->nopen++;
		}
	}
	if ((l->nopen || def != NO_DEF) && (rc = record(l, e, from_parser)) != 0)
		return rc;
	if (def != NO_DEF && !start)
		l->def_end[def] = l->nlog;
	if (end) {
		if (l->nopen && l->open[l->nopen - 1].depth == l->depth)
			l->def_end[l->open[--l->nopen].def] = l->nlog;
		l->depth--;
	}
	return 0;
}

/* The next event for the schema parser. */
int kn_ty_next_event(loader *l, yev *e)
{
	if (l->replaying) {
		*e = l->log[l->rpos++].ev;
		if (l->rpos == l->rend)
			l->replaying = 0;
		l->last = e->at;
		return deliver(l, e, 0, NO_DEF);
	}
	int rc = kn_yaml_reader_next(&l->rd);
	if (rc != 0)
		return kn_ty_yaml_fail(l, &l->rd, rc);
	const yaml_event_t *ev = &l->rd.ev;
	const yaml_char_t *anchor = NULL;
	memset(e, 0, sizeof *e);
	e->type = ev->type;
	e->at = l->last = kn_ty_pos_at(l->rd.line, l->rd.col);
	switch (ev->type) {
	case YAML_ALIAS_EVENT: {
		if (l->aliases_seen >= l->nalias)
			return kn_ty_fail(l, KN_EINVAL, e->at, "internal error: aliases out of step");
		size_t def = l->alias_def[l->aliases_seen++];
		if (def >= l->defs_seen || l->def_end[def] <= l->def_start[def])
			return kn_ty_fail(l, KN_EINVAL, e->at, "internal error: alias to an unrecorded node");
		l->replaying = 1;
		l->rpos = l->def_start[def];
		l->rend = l->def_end[def];
		return kn_ty_next_event(l, e);
	}
	case YAML_SCALAR_EVENT:
		e->val = (const char *)ev->data.scalar.value;
		e->len = ev->data.scalar.length;
		if ((rc = classify(l, ev, &e->kind)) != 0)
			return rc;
		anchor = ev->data.scalar.anchor;
		break;
	case YAML_SEQUENCE_START_EVENT:
		anchor = ev->data.sequence_start.anchor;
		break;
	case YAML_MAPPING_START_EVENT:
		anchor = ev->data.mapping_start.anchor;
		break;
	default:
		break;
	}
	return deliver(l, e, 1, anchor ? l->defs_seen++ : NO_DEF);
}

/* ---- pass 2: typed values, for the schema parsers ---- */

/* A copy of a text value; YAML numbers count as their text. what names the key in messages. */
int kn_ty_take_text(loader *l, const yev *e, const char *what, int allow_empty, char **out)
{
	if (e->type != YAML_SCALAR_EVENT || e->kind == SK_NULL || e->kind == SK_BOOL)
		return kn_ty_fail(l, KN_EINVAL, e->at, "'%s' must be text, found %s%s", what,
		                  kn_ty_found(l, e),
		                  e->type == YAML_SCALAR_EVENT && e->kind == SK_BOOL
		                          ? " (quote it to mean the text)" : "");
	if (!allow_empty && e->len == 0)
		return kn_ty_fail(l, KN_EINVAL, e->at, "'%s' is empty", what);
	if (!(*out = kn_ty_dupn(e->val, e->len)))
		return kn_ty_oom(l);
	return 0;
}

int kn_ty_read_text(loader *l, const char *what, int allow_empty, char **out, pos *at)
{
	yev e;
	int rc = kn_ty_next_event(l, &e);
	if (rc)
		return rc;
	if (at)
		*at = e.at;
	return kn_ty_take_text(l, &e, what, allow_empty, out);
}

/* An absolute URL: a scheme, ':' and something that is not a space (as in
 * schemas/task.schema.json). */
int kn_ty_read_url(loader *l, const char *what, char **out)
{
	pos at;
	char c[72];
	int rc = kn_ty_read_text(l, what, 0, out, &at);
	if (rc)
		return rc;
	const char *s = *out;
	size_t n = 0;
	if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z'))
		n = 1 + strspn(s + 1, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-");
	if (n == 0 || s[n] != ':' || s[n + 1] == '\0' || strchr(" \t\r\n\f\v", s[n + 1]))
		return kn_ty_fail(l, KN_EINVAL, at,
		                  "'%s' must be an absolute URL such as http://host/path, found '%s'", what,
		                  kn_ty_clip(c, sizeof c, s));
	return 0;
}

/* The next mapping key: *end set at the mapping's end, else k is a scalar key. */
int kn_ty_read_key(loader *l, yev *k, int *end)
{
	int rc = kn_ty_next_event(l, k);
	if (rc)
		return rc;
	*end = k->type == YAML_MAPPING_END_EVENT;
	if (!*end && k->type != YAML_SCALAR_EVENT)
		return kn_ty_fail(l, KN_EINVAL, k->at, "a key must be a plain name, found %s",
		                  kn_ty_found(l, k));
	return 0;
}

/* A whole number in [0, max] from a scalar event. */
int kn_ty_take_count(loader *l, const yev *e, const char *what, long long max, long long *out)
{
	if (e->type != YAML_SCALAR_EVENT || e->kind != SK_INT || parse_int(e->val, out) != 0 ||
	    *out < 0 || *out > max)
		return kn_ty_fail(l, KN_EINVAL, e->at,
		                  "'%s' must be a whole number from 0 to %lld, found %s",
		                  what, max, kn_ty_found(l, e));
	return 0;
}

/* true or false, into *out (1 or 0). */
int kn_ty_read_bool(loader *l, const char *what, int *out)
{
	yev v;
	int rc = kn_ty_next_event(l, &v);
	if (rc)
		return rc;
	if (v.type != YAML_SCALAR_EVENT || v.kind != SK_BOOL)
		return kn_ty_fail(l, KN_EINVAL, v.at, "'%s' must be true or false, found %s", what,
		                  kn_ty_found(l, &v));
	*out = kn_ty_is_true(v.val);
	return 0;
}

int kn_ty_read_field(loader *l, const char *const *names, int n, const char *in, unsigned *seen,
                     const yev **first, int *field)
{
	yev k;
	int rc, end;
	char c[72];
	*field = -1;
	if (first && *first) {
		k = **first;
		*first = NULL;
	} else if ((rc = kn_ty_read_key(l, &k, &end)) != 0) {
		return rc;
	} else if (end) {
		return 0;
	}
	int f = kn_ty_lookup(names, n, k.val, k.len);
	if (f < 0) {
		char list[256] = "";
		for (int i = 0; i < n; i++) {
			if (i)
				strncat(list, i == n - 1 ? " or " : ", ", sizeof list - strlen(list) - 1);
			strncat(list, names[i], sizeof list - strlen(list) - 1);
		}
		return kn_ty_fail(l, KN_EINVAL, k.at, "unknown key '%s'%s%s%s (expected %s)",
		                  kn_ty_clip(c, sizeof c, k.val), in ? " in '" : "", in ? in : "",
		                  in ? "'" : "", list);
	}
	if (*seen & (1u << f))
		return kn_ty_fail(l, KN_EINVAL, k.at, "duplicate key '%s'", names[f]);
	*seen |= 1u << f;
	*field = f;
	return 0;
}

int kn_ty_parse_list(loader *l, const char *what, const char *noun,
                     int (*item)(loader *l, void *ud, const yev *start), void *ud, pos *at)
{
	yev e;
	int rc = kn_ty_next_event(l, &e);
	if (rc)
		return rc;
	if (e.type != YAML_SEQUENCE_START_EVENT)
		return kn_ty_fail(l, KN_EINVAL, e.at, "'%s' must be a list of %s, found %s", what, noun,
		                  kn_ty_found(l, &e));
	if (at)
		*at = e.at;
	for (;;) {
		if ((rc = kn_ty_next_event(l, &e)) != 0)
			return rc;
		if (e.type == YAML_SEQUENCE_END_EVENT)
			return 0;
		if ((rc = item(l, ud, &e)) != 0)
			return rc;
	}
}

int kn_ty_open_mapping(loader *l, const char *must, pos *at)
{
	yev e;
	int rc = kn_ty_next_event(l, &e);
	if (rc)
		return rc;
	if (at)
		*at = e.at;
	if (e.type != YAML_MAPPING_START_EVENT)
		return kn_ty_fail(l, KN_EINVAL, e.at, "%sfound %s", must, kn_ty_found(l, &e));
	return 0;
}
