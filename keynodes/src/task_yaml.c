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
 * construct; unknown or repeated keys are errors, nothing is silently dropped. */
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "keynode/error.h"
#include "keynode/purchase.h"
#include "keynode/task.h"

#if defined(__GNUC__)
#define KN_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define KN_PRINTF(a, b)
#endif

#define NO_DEF SIZE_MAX
#define CORE_TAG "tag:yaml.org,2002:"

/* What a scalar resolves to under the YAML 1.2 core schema (or its explicit core tag). */
enum { SK_NULL, SK_BOOL, SK_INT, SK_FLOAT, SK_STR };

typedef struct pos {
	int line, col; /* 1-based */
} pos;

/* One event as the schema parser sees it. val (scalars only) is NUL-terminated and valid until the
 * next next_event() call; positions are copied by value. */
typedef struct yev {
	yaml_event_type_t type;
	pos at;
	const char *val;
	size_t len;
	int kind;
} yev;

/* A recorded event; own is the text it owns (NULL when it shares an earlier entry's text). */
typedef struct logent {
	yev ev;
	char *own;
} logent;

/* A small open-addressing map from borrowed C strings to indexes. */
typedef struct strmap {
	const char **keys;
	size_t *vals;
	size_t cap, n;
} strmap;

typedef struct openanchor {
	size_t def;   /* index of the anchored node in document order */
	int depth;    /* depth just inside it */
	size_t total; /* pass 1: nodes counted before it */
	char *name;   /* pass 1: the anchor's name, owned until registered */
} openanchor;

typedef struct loader {
	const char *name;
	const unsigned char *buf;
	size_t len;
	kn_err *err;
	int max_depth;
	size_t max_alias;

	/* Pass 1 results: anchored nodes in order, and for each alias event the node it names. */
	size_t ndefs;
	size_t *alias_def;
	size_t nalias, cap_alias;

	/* Pass 2 event source. */
	yaml_parser_t parser;
	int parser_live;
	yaml_event_t cur;
	int cur_live;
	size_t *def_start, *def_end;
	size_t defs_seen, aliases_seen;
	logent *log;
	size_t nlog, cap_log;
	openanchor *open;
	size_t nopen, cap_open;
	int replaying;
	size_t rpos, rend;
	int depth;
	pos last;

	int workflow; /* kn_load_opts.workflow: a workflow file (workflow.h) */

	/* Output. */
	kn_taskset *set;
	size_t cap_tasks;
	strmap task_ids, node_ids;
	char ctx_task[96];
	char ctx_sub[32];
	char found[128];
} loader;

/* ---- small helpers ---- */

static pos pos_of(yaml_mark_t m)
{
	pos p;
	p.line = m.line < (size_t)INT_MAX ? (int)m.line + 1 : INT_MAX;
	p.col = m.column < (size_t)INT_MAX ? (int)m.column + 1 : INT_MAX;
	return p;
}

static pos pos_at(int line, int col)
{
	pos p = { line, col };
	return p;
}

/* s shortened for a message: whole UTF-8 characters, "..." when cut. Returns dst. */
static const char *clip(char *dst, size_t cap, const char *s)
{
	size_t n = strlen(s);
	if (n < cap) {
		memcpy(dst, s, n + 1);
		return dst;
	}
	size_t keep = cap - 4;
	while (keep > 0 && ((unsigned char)s[keep] & 0xC0) == 0x80)
		keep--;
	memcpy(dst, s, keep);
	memcpy(dst + keep, "...", 4);
	return dst;
}

static int fail(loader *l, int code, pos at, const char *fmt, ...) KN_PRINTF(4, 5);

/* Record an error as "name:line:col: context: message"; returns code. */
static int fail(loader *l, int code, pos at, const char *fmt, ...)
{
	char msg[KN_ERR_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	const char *sep = l->ctx_task[0] ? ": " : "";
	const char *sub_sep = l->ctx_task[0] && l->ctx_sub[0] ? " " : "";
	kn_err_set(l->err, code, "%s:%d:%d: %s%s%s%s%s", l->name, at.line, at.col, l->ctx_task,
	           sub_sep, l->ctx_task[0] ? l->ctx_sub : "", sep, msg);
	/* A message is one line: text from the document may hold escaped control characters. */
	if (l->err)
		for (char *p = l->err->msg; *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				*p = '?';
	return code;
}

static int oom(loader *l)
{
	return fail(l, KN_ENOMEM, l->last, "out of memory");
}

static char *dupn(const char *s, size_t n)
{
	char *d = malloc(n + 1);
	if (d) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

/* arr with room for element n (capacity *cap, doubled as needed), or NULL when out of memory. */
static void *grow(void *arr, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return arr;
	size_t nc = *cap ? *cap * 2 : 4;
	if (nc < *cap || nc > SIZE_MAX / size)
		return NULL;
	void *p = realloc(arr, nc * size);
	if (p)
		*cap = nc;
	return p;
}

static size_t sat_add(size_t a, size_t b)
{
	return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

/* Index of s (len bytes) in names[0..n), or -1. */
static int lookup(const char *const *names, int n, const char *s, size_t len)
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
static int sm_find(const strmap *m, const char *k, size_t *val)
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
static int sm_put(strmap *m, const char *k, size_t val, int *existed)
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

static void sm_free(strmap *m, int free_keys)
{
	if (free_keys)
		for (size_t i = 0; i < m->cap; i++)
			free((char *)(uintptr_t)m->keys[i]);
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof *m);
}

/* Empty the map; a big table is dropped so resetting per task stays cheap. */
static void sm_reset(strmap *m)
{
	if (m->cap > 64)
		sm_free(m, 0);
	else if (m->cap)
		memset(m->keys, 0, m->cap * sizeof(char *));
	m->n = 0;
}

/* ---- scalars under the core schema ---- */

static int is_null(const char *s)
{
	return !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL");
}

static int is_true(const char *s)
{
	return !strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "TRUE");
}

static int is_bool(const char *s)
{
	return is_true(s) || !strcmp(s, "false") || !strcmp(s, "False") || !strcmp(s, "FALSE");
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
	pos at = pos_of(ev->start_mark);
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
			return fail(l, KN_EINVAL, at, "tag !!%s on a scalar", t);
		else
			goto unsupported;
		if (!ok)
			return fail(l, KN_EINVAL, at, "'%s' is not a valid !!%s", clip(c, sizeof c, v), t);
		return 0;
	}
unsupported:
	return fail(l, KN_EINVAL, at,
	            "unsupported tag '%s%s' (only the core tags !!str, !!int, !!float, !!bool, !!null, "
	            "!!seq and !!map are accepted)", short_tag(tag),
	            clip(c, sizeof c, tag + tag_skip(tag)));
}

static int check_collection_tag(loader *l, const yaml_event_t *ev)
{
	int seq = ev->type == YAML_SEQUENCE_START_EVENT;
	const char *tag = (const char *)(seq ? ev->data.sequence_start.tag
	                                     : ev->data.mapping_start.tag);
	char c[72];
	if (!tag || !strcmp(tag, "!") || !strcmp(tag, seq ? CORE_TAG "seq" : CORE_TAG "map"))
		return 0;
	return fail(l, KN_EINVAL, pos_of(ev->start_mark), "unsupported tag '%s%s' on a %s",
	            short_tag(tag), clip(c, sizeof c, tag + tag_skip(tag)), seq ? "list" : "mapping");
}

/* Whether buf[i] ends a line as libyaml counts them: LF, CR LF (at the LF), or a lone CR. */
static int line_end(const loader *l, size_t i)
{
	return l->buf[i] == '\n' || (l->buf[i] == '\r' && (i + 1 == l->len || l->buf[i + 1] != '\n'));
}

/* Position of a byte offset (libyaml reader errors carry only that): lines, UTF-8 characters. */
static pos pos_of_offset(const loader *l, size_t off)
{
	pos p = { 1, 1 };
	for (size_t i = 0; i < off && i < l->len; i++) {
		if (line_end(l, i))
			p.line++, p.col = 1;
		else if ((l->buf[i] & 0xC0) != 0x80 && l->buf[i] != '\r')
			p.col++;
	}
	return p;
}

/* Whether the line of m (0-based) has a tab in its indentation or at m's column. */
static int tab_near(const loader *l, yaml_mark_t m)
{
	size_t i = 0, line = 0;
	for (; i < l->len && line < m.line; i++)
		if (line_end(l, i))
			line++;
	size_t start = i;
	while (i < l->len && (l->buf[i] == ' ' || l->buf[i] == '\t'))
		if (l->buf[i++] == '\t')
			return 1;
	for (size_t col = 0; start < l->len && !strchr("\r\n", l->buf[start]); start++) {
		if ((l->buf[start] & 0xC0) == 0x80)
			continue;
		if (col++ == m.column)
			return l->buf[start] == '\t';
	}
	return 0;
}

/* Translate libyaml's error state into a kn_err. */
static int yaml_fail(loader *l, const yaml_parser_t *p)
{
	const char *problem = p->problem ? p->problem : "syntax error";
	switch (p->error) {
	case YAML_MEMORY_ERROR:
		return oom(l);
	case YAML_READER_ERROR:
		if (p->problem_value != -1)
			return fail(l, KN_EINVAL, pos_of_offset(l, p->problem_offset),
			            "invalid text: %s (0x%X); a task file is UTF-8", problem,
			            (unsigned)p->problem_value);
		return fail(l, KN_EINVAL, pos_of_offset(l, p->problem_offset),
		            "invalid text: %s; a task file is UTF-8", problem);
	default: {
		const char *hint = tab_near(l, p->problem_mark) ? " (tabs cannot indent YAML; use spaces)"
		                                                : "";
		pos at = pos_of(p->problem_mark), ctx = pos_of(p->context_mark);
		if (p->context && (ctx.line != at.line || ctx.col != at.col))
			return fail(l, KN_EINVAL, at, "invalid YAML: %s %s started at %d:%d%s", problem,
			            p->context, ctx.line, ctx.col, hint);
		if (p->context)
			return fail(l, KN_EINVAL, at, "invalid YAML: %s %s%s", problem, p->context, hint);
		return fail(l, KN_EINVAL, at, "invalid YAML: %s%s", problem, hint);
	}
	}
}

/* ---- pass 1: structure, limits, anchors ---- */

/* Register a finished anchor; the map keeps the first copy of a name, later ones are freed. */
static int p1_register(loader *l, strmap *anchors, char *name, size_t def)
{
	int existed;
	if (sm_put(anchors, name, def, &existed) != 0) {
		free(name);
		return oom(l);
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
	pos at = pos_of(ev->start_mark);
	const yaml_char_t *anchor = NULL;
	char c[72];
	int rc;
	l->last = at;
	switch (ev->type) {
	case YAML_DOCUMENT_START_EVENT:
		if (++*docs > 1)
			return fail(l, KN_EINVAL, at, "a second YAML document; a task file holds one");
		return 0;
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		if (++*depth > l->max_depth)
			return fail(l, KN_ELIMIT, at, "nesting deeper than %d levels", l->max_depth);
		if ((rc = check_collection_tag(l, ev)) != 0)
			return rc;
		anchor = ev->type == YAML_SEQUENCE_START_EVENT ? ev->data.sequence_start.anchor
		                                               : ev->data.mapping_start.anchor;
		if (anchor) {
			openanchor *o = grow(*open, *nopen, cap_open, sizeof **open);
			if (!o)
				return oom(l);
			*open = o;
			size_t *dc = grow(*def_count, l->ndefs, cap_def, sizeof **def_count);
			if (!dc)
				return oom(l);
			*def_count = dc;
			char *name = dupn((const char *)anchor, strlen((const char *)anchor));
			if (!name)
				return oom(l);
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
			return fail(l, KN_EINVAL, at, "text contains a NUL character");
		if ((rc = classify(l, ev, &kind)) != 0)
			return rc;
		*total = sat_add(*total, 1);
		if (!ev->data.scalar.anchor)
			return 0;
		size_t *dc = grow(*def_count, l->ndefs, cap_def, sizeof **def_count);
		if (!dc)
			return oom(l);
		*def_count = dc;
		char *name = dupn((const char *)ev->data.scalar.anchor,
		                  strlen((const char *)ev->data.scalar.anchor));
		if (!name)
			return oom(l);
		dc[l->ndefs] = 1;
		return p1_register(l, anchors, name, l->ndefs++);
	}
	case YAML_ALIAS_EVENT: {
		const char *name = (const char *)ev->data.alias.anchor;
		size_t def;
		if (!sm_find(anchors, name, &def))
			return fail(l, KN_EINVAL, at, "alias '*%s' has no anchor '&%s' before it",
			            clip(c, sizeof c, name), c);
		size_t n = (*def_count)[def];
		*alias_nodes = sat_add(*alias_nodes, n);
		if (*alias_nodes > l->max_alias)
			return fail(l, KN_ELIMIT, at, "aliases expand to more than %zu nodes (at alias '*%s')",
			            l->max_alias, clip(c, sizeof c, name));
		*total = sat_add(*total, n);
		size_t *ad = grow(l->alias_def, l->nalias, &l->cap_alias, sizeof *ad);
		if (!ad)
			return oom(l);
		l->alias_def = ad;
		ad[l->nalias++] = def;
		return 0;
	}
	default:
		return 0;
	}
}

/* Read the whole stream once: syntax, encoding, one document, depth, tags, aliases. */
static int pass1(loader *l)
{
	yaml_parser_t p;
	yaml_event_t ev;
	strmap anchors = { 0 };
	size_t *def_count = NULL, cap_def = 0, nopen = 0, cap_open = 0, total = 0, alias_nodes = 0;
	openanchor *open = NULL;
	int depth = 0, docs = 0, rc = 0;

	if (!yaml_parser_initialize(&p))
		return oom(l);
	yaml_parser_set_input_string(&p, l->buf, l->len);
	yaml_parser_set_encoding(&p, YAML_UTF8_ENCODING);
	for (;;) {
		if (!yaml_parser_parse(&p, &ev)) {
			rc = yaml_fail(l, &p);
			break;
		}
		int end = ev.type == YAML_STREAM_END_EVENT;
		rc = p1_event(l, &ev, &anchors, &def_count, &cap_def, &open, &nopen, &cap_open, &depth,
		              &docs, &total, &alias_nodes);
		yaml_event_delete(&ev);
		if (rc || end)
			break;
	}
	for (size_t i = 0; i < nopen; i++)
		free(open[i].name);
	free(open);
	free(def_count);
	sm_free(&anchors, 1);
	yaml_parser_delete(&p);
	return rc;
}

/* ---- pass 2 event source: libyaml, anchors recorded, aliases replayed ---- */

static int record(loader *l, const yev *e, int copy_text)
{
	logent *lg = grow(l->log, l->nlog, &l->cap_log, sizeof *lg);
	if (!lg)
		return oom(l);
	l->log = lg;
	logent *en = &lg[l->nlog];
	en->ev = *e;
	en->own = NULL;
	if (copy_text && e->type == YAML_SCALAR_EVENT) {
		if (!(en->own = dupn(e->val, e->len)))
			return oom(l);
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
			return fail(l, KN_EINVAL, e->at, "internal error: anchors out of step");
		l->def_start[def] = l->nlog;
		if (start) {
			openanchor *o = grow(l->open, l->nopen, &l->cap_open, sizeof *o);
			if (!o)
				return oom(l);
			l->open = o;
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
static int next_event(loader *l, yev *e)
{
	if (l->replaying) {
		*e = l->log[l->rpos++].ev;
		if (l->rpos == l->rend)
			l->replaying = 0;
		l->last = e->at;
		return deliver(l, e, 0, NO_DEF);
	}
	if (l->cur_live) {
		yaml_event_delete(&l->cur);
		l->cur_live = 0;
	}
	if (!yaml_parser_parse(&l->parser, &l->cur))
		return yaml_fail(l, &l->parser);
	l->cur_live = 1;
	const yaml_event_t *ev = &l->cur;
	const yaml_char_t *anchor = NULL;
	int rc;
	memset(e, 0, sizeof *e);
	e->type = ev->type;
	e->at = l->last = pos_of(ev->start_mark);
	switch (ev->type) {
	case YAML_ALIAS_EVENT: {
		if (l->aliases_seen >= l->nalias)
			return fail(l, KN_EINVAL, e->at, "internal error: aliases out of step");
		size_t def = l->alias_def[l->aliases_seen++];
		if (def >= l->defs_seen || l->def_end[def] <= l->def_start[def])
			return fail(l, KN_EINVAL, e->at, "internal error: alias to an unrecorded node");
		l->replaying = 1;
		l->rpos = l->def_start[def];
		l->rend = l->def_end[def];
		return next_event(l, e);
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

/* ---- pass 2: the schema ---- */

/* Words for what a value event is, for "found ..." in messages. */
static const char *found(loader *l, const yev *e)
{
	char c[72];
	switch (e->type) {
	case YAML_SEQUENCE_START_EVENT:
		return "a list";
	case YAML_MAPPING_START_EVENT:
		return "a mapping";
	case YAML_SCALAR_EVENT:
		switch (e->kind) {
		case SK_NULL:
			return "nothing (null)";
		case SK_BOOL:
			snprintf(l->found, sizeof l->found, "the boolean %s", clip(c, sizeof c, e->val));
			break;
		case SK_INT:
		case SK_FLOAT:
			snprintf(l->found, sizeof l->found, "the number %s", clip(c, sizeof c, e->val));
			break;
		default:
			snprintf(l->found, sizeof l->found, "the text '%s'", clip(c, sizeof c, e->val));
			break;
		}
		return l->found;
	default:
		return "nothing";
	}
}

/* A copy of a text value; YAML numbers count as their text. what names the key in messages. */
static int take_text(loader *l, const yev *e, const char *what, int allow_empty, char **out)
{
	if (e->type != YAML_SCALAR_EVENT || e->kind == SK_NULL || e->kind == SK_BOOL)
		return fail(l, KN_EINVAL, e->at, "'%s' must be text, found %s%s", what, found(l, e),
		            e->type == YAML_SCALAR_EVENT && e->kind == SK_BOOL
		                    ? " (quote it to mean the text)" : "");
	if (!allow_empty && e->len == 0)
		return fail(l, KN_EINVAL, e->at, "'%s' is empty", what);
	if (!(*out = dupn(e->val, e->len)))
		return oom(l);
	return 0;
}

static int read_text(loader *l, const char *what, int allow_empty, char **out, pos *at)
{
	yev e;
	int rc = next_event(l, &e);
	if (rc)
		return rc;
	if (at)
		*at = e.at;
	return take_text(l, &e, what, allow_empty, out);
}

/* An absolute URL: a scheme, ':' and something that is not a space (as in
 * schemas/task.schema.json). */
static int read_url(loader *l, const char *what, char **out)
{
	pos at;
	char c[72];
	int rc = read_text(l, what, 0, out, &at);
	if (rc)
		return rc;
	const char *s = *out;
	size_t n = 0;
	if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z'))
		n = 1 + strspn(s + 1, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-");
	if (n == 0 || s[n] != ':' || s[n + 1] == '\0' || strchr(" \t\r\n\f\v", s[n + 1]))
		return fail(l, KN_EINVAL, at,
		            "'%s' must be an absolute URL such as http://host/path, found '%s'", what,
		            clip(c, sizeof c, s));
	return 0;
}

/* The next mapping key: *end set at the mapping's end, else k is a scalar key. */
static int read_key(loader *l, yev *k, int *end)
{
	int rc = next_event(l, k);
	if (rc)
		return rc;
	*end = k->type == YAML_MAPPING_END_EVENT;
	if (!*end && k->type != YAML_SCALAR_EVENT)
		return fail(l, KN_EINVAL, k->at, "a key must be a plain name, found %s", found(l, k));
	return 0;
}

/* A whole number in [0, max] from a scalar event. */
static int take_count(loader *l, const yev *e, const char *what, long long max, long long *out)
{
	if (e->type != YAML_SCALAR_EVENT || e->kind != SK_INT || parse_int(e->val, out) != 0 ||
	    *out < 0 || *out > max)
		return fail(l, KN_EINVAL, e->at, "'%s' must be a whole number from 0 to %lld, found %s",
		            what, max, found(l, e));
	return 0;
}

static const char *const target_keys[] = {
	[KN_TARGET_URL] = "url",
	[KN_TARGET_ELEMENT_PATH] = "element_path",
	[KN_TARGET_ELEMENT_VALUE] = "element_value",
	[KN_TARGET_ANSWER] = "answer",
	[KN_TARGET_CACHE_DATA] = "cache_data",
	[KN_TARGET_PAGE] = "page",
};
#define N_TARGETS ((int)(sizeof target_keys / sizeof target_keys[0]))

static const char *const matcher_keys[] = {
	[KN_MATCH_EXACT] = "exact",
	[KN_MATCH_INCLUDE] = "include",
	[KN_MATCH_SEMANTIC] = "semantic",
	[KN_MATCH_REGEX] = "regex",
	[KN_MATCH_MUST_INCLUDE] = "must_include",
	[KN_MATCH_FUZZY] = "fuzzy",
	[KN_MATCH_GOLD_IN_PRED] = "gold_in_pred",
};
#define N_MATCHERS ((int)(sizeof matcher_keys / sizeof matcher_keys[0]))

enum { OPT_KEY, OPT_NETLOC, OPT_PATH, OPT_CLEAN, OPT_URL, OPT_LOCATOR, N_OPTS };
static const char *const option_keys[N_OPTS] = { "key", "netloc", "path", "clean", "url",
                                                 "locator" };

/* A list matcher's value (must_include, fuzzy, page include): one text or a list of texts. */
static int read_items(loader *l, kn_keynode *kn, const char *what, pos *at)
{
	yev e;
	int rc = next_event(l, &e);
	if (rc)
		return rc;
	if (at)
		*at = e.at;
	if (e.type != YAML_SEQUENCE_START_EVENT) {
		if ((rc = take_text(l, &e, what, 0, &kn->expect)) != 0)
			return rc;
		return kn_keynode_add_item(kn, kn->expect) ? oom(l) : 0;
	}
	pos start = e.at;
	for (;;) {
		char *item = NULL;
		if ((rc = next_event(l, &e)) != 0)
			return rc;
		if (e.type == YAML_SEQUENCE_END_EVENT)
			break;
		if ((rc = take_text(l, &e, what, 0, &item)) != 0)
			return rc;
		rc = kn_keynode_add_item(kn, item);
		free(item);
		if (rc == KN_ELIMIT)
			return fail(l, rc, e.at, "'%s' has more than 1000 entries", what);
		if (rc)
			return oom(l);
	}
	if (!kn->n_items)
		return fail(l, KN_EINVAL, start, "'%s' is an empty list", what);
	return kn_keynode_join_items(kn) ? oom(l) : 0;
}

/* The value of a target key: a mapping with exactly one matcher plus options. *mat is where the
 * matcher's value is, for prepare's errors. */
static int parse_target(loader *l, kn_keynode *kn, const char *tname, pos *mat)
{
	yev e, k;
	int rc, end, have_matcher = 0;
	unsigned seen = 0;
	char c[72];
	if ((rc = next_event(l, &e)) != 0)
		return rc;
	if (e.type != YAML_MAPPING_START_EVENT)
		return fail(l, KN_EINVAL, e.at,
		            "'%s' must be a mapping with one matcher, such as { include: \"...\" }; "
		            "found %s", tname, found(l, &e));
	pos at = e.at;
	for (;;) {
		if ((rc = read_key(l, &k, &end)) != 0)
			return rc;
		if (end)
			break;
		int m = lookup(matcher_keys, N_MATCHERS, k.val, k.len);
		if (m >= KN_MATCH_MUST_INCLUDE && !kn_keynode_function_name(kn->target, (kn_matcher)m))
			m = -1; /* a functional matcher this target does not have: unknown here */
		if (m >= 0) {
			if (have_matcher && (int)kn->matcher == m)
				return fail(l, KN_EINVAL, k.at, "duplicate key '%s'", matcher_keys[m]);
			if (have_matcher)
				return fail(l, KN_EINVAL, k.at,
				            "two matchers '%s' and '%s' (a key node has exactly one of exact, "
				            "include, semantic or regex)", matcher_keys[kn->matcher],
				            matcher_keys[m]);
			have_matcher = 1;
			kn->matcher = (kn_matcher)m;
			if (kn->target == KN_TARGET_PAGE && m == KN_MATCH_INCLUDE)
				kn->matcher = KN_MATCH_MUST_INCLUDE; /* page include is WebArena's must_include */
			if (kn->matcher == KN_MATCH_MUST_INCLUDE || kn->matcher == KN_MATCH_FUZZY) {
				if ((rc = read_items(l, kn, matcher_keys[m], mat)) != 0)
					return rc;
				continue;
			}
			if ((rc = read_text(l, matcher_keys[m], m != KN_MATCH_SEMANTIC && m != KN_MATCH_REGEX,
			                    &kn->expect, mat)) != 0)
				return rc;
			continue;
		}
		int o = lookup(option_keys, N_OPTS, k.val, k.len);
		if (o < 0)
			return fail(l, KN_EINVAL, k.at,
			            "unknown matcher '%s' (expected exact, include, semantic or regex); "
			            "options for %s: %s", clip(c, sizeof c, k.val), tname,
			            kn->target == KN_TARGET_URL           ? "key, netloc"
			            : kn->target == KN_TARGET_ELEMENT_VALUE ? "netloc, path"
			            : kn->target == KN_TARGET_PAGE          ? "url, locator"
			            : kn->target == KN_TARGET_ANSWER || kn->target == KN_TARGET_CACHE_DATA
			                    ? "netloc, clean"
			                    : "netloc");
		if (o == OPT_KEY && kn->target != KN_TARGET_URL)
			return fail(l, KN_EINVAL, k.at, "option 'key' applies only to url key nodes");
		if (o == OPT_PATH && kn->target != KN_TARGET_ELEMENT_VALUE)
			return fail(l, KN_EINVAL, k.at,
			            "option 'path' applies only to element_value key nodes");
		if ((o == OPT_URL || o == OPT_LOCATOR) && kn->target != KN_TARGET_PAGE)
			return fail(l, KN_EINVAL, k.at, "option '%s' applies only to page key nodes",
			            option_keys[o]);
		if (o == OPT_CLEAN && kn->target != KN_TARGET_ANSWER && kn->target != KN_TARGET_CACHE_DATA)
			return fail(l, KN_EINVAL, k.at,
			            "option 'clean' applies only to answer and cache_data key nodes");
		if (seen & (1u << o))
			return fail(l, KN_EINVAL, k.at, "duplicate key '%s'", option_keys[o]);
		seen |= 1u << o;
		if (o == OPT_CLEAN) {
			yev b;
			if ((rc = next_event(l, &b)) != 0)
				return rc;
			if (b.type != YAML_SCALAR_EVENT || b.kind != SK_BOOL)
				return fail(l, KN_EINVAL, b.at, "'clean' must be true or false, found %s",
				            found(l, &b));
			kn->clean = is_true(b.val);
			continue;
		}
		if (o == OPT_URL || o == OPT_LOCATOR) {
			char **d = o == OPT_URL ? &kn->page_url : &kn->locator;
			if ((rc = read_text(l, option_keys[o], 0, d, NULL)) != 0)
				return rc;
			if (o == OPT_URL && strcmp(*d, "last") == 0) { /* the agent's page */
				free(*d);
				*d = NULL;
			} else if (o == OPT_URL && !strstr(*d, "://")) {
				return fail(l, KN_EINVAL, k.at,
				            "'url' must be last or an absolute URL such as http://host/path");
			}
			continue;
		}
		char **dst = o == OPT_KEY ? &kn->key : o == OPT_NETLOC ? &kn->netloc : &kn->path;
		if ((rc = read_text(l, option_keys[o], o != OPT_PATH, dst, NULL)) != 0)
			return rc;
		if (o == OPT_KEY && !**dst) { /* key "" means the URL itself, as in Mind2Web-Live */
			free(*dst);
			*dst = NULL;
		}
	}
	if (!have_matcher)
		return fail(l, KN_EINVAL, at,
		            "'%s' has no matcher (expected exact, include, semantic or regex)", tname);
	return 0;
}

/* One key node: a mapping with an optional id and exactly one target. */
static int parse_keynode(loader *l, size_t ti, size_t *cap, const yev *start)
{
	kn_task *t = &l->set->tasks[ti];
	kn_keynode *kn = grow(t->keynodes, t->n_keynodes, cap, sizeof *kn);
	if (!kn)
		return oom(l);
	t->keynodes = kn;
	size_t ni = t->n_keynodes++;
	kn = &kn[ni];
	memset(kn, 0, sizeof *kn);
	kn->line = start->at.line;
	kn->column = start->at.col;
	snprintf(l->ctx_sub, sizeof l->ctx_sub, "key node %zu", ni + 1);

	yev k;
	int rc, end, have_target = 0;
	pos mat = start->at;
	char c[72];
	if (start->type != YAML_MAPPING_START_EVENT)
		return fail(l, KN_EINVAL, start->at,
		            "a key node is a mapping with one target, such as url: { include: \"/cart\" }; "
		            "found %s", found(l, start));
	for (;;) {
		if ((rc = read_key(l, &k, &end)) != 0)
			return rc;
		if (end)
			break;
		if (k.len == 2 && !memcmp(k.val, "id", 2)) {
			if (kn->id)
				return fail(l, KN_EINVAL, k.at, "duplicate key 'id'");
			if ((rc = read_text(l, "id", 0, &kn->id, NULL)) != 0)
				return rc;
			continue;
		}
		int tg = lookup(target_keys, N_TARGETS, k.val, k.len);
		if (tg < 0)
			return fail(l, KN_EINVAL, k.at,
			            "unknown target '%s' (expected url, element_path, element_value, answer, "
			            "cache_data or page, and optionally id)", clip(c, sizeof c, k.val));
		if (have_target && (int)kn->target == tg)
			return fail(l, KN_EINVAL, k.at, "duplicate key '%s'", target_keys[tg]);
		if (have_target)
			return fail(l, KN_EINVAL, k.at,
			            "two targets '%s' and '%s' (a key node has exactly one of url, "
			            "element_path, element_value, answer, cache_data or page)",
			            target_keys[kn->target], target_keys[tg]);
		have_target = 1;
		kn->target = (kn_target)tg;
		if ((rc = parse_target(l, kn, target_keys[tg], &mat)) != 0)
			return rc;
	}
	if (!have_target)
		return fail(l, KN_EINVAL, start->at,
		            "no target (expected one of url, element_path, element_value, answer, "
		            "cache_data or page)");
	if (!kn->id) {
		char id[32];
		snprintf(id, sizeof id, "k%zu", ni + 1);
		if (!(kn->id = dupn(id, strlen(id))))
			return oom(l);
	}
	size_t other;
	int existed;
	if (sm_find(&l->node_ids, kn->id, &other))
		return fail(l, KN_EINVAL, start->at, "duplicate key node id '%s' (key node %zu has it too)",
		            clip(c, sizeof c, kn->id), other + 1);
	if (sm_put(&l->node_ids, kn->id, ni, &existed) != 0)
		return oom(l);

	kn_err e = { 0 };
	if ((rc = kn_keynode_prepare(kn, &e)) != 0)
		return fail(l, rc, mat, "%s", e.msg[0] ? e.msg : kn_strerror(rc));
	l->ctx_sub[0] = '\0';
	return 0;
}

static int parse_keynodes(loader *l, size_t ti)
{
	yev e;
	size_t cap = 0;
	int rc = next_event(l, &e);
	if (rc)
		return rc;
	if (e.type != YAML_SEQUENCE_START_EVENT)
		return fail(l, KN_EINVAL, e.at, "'key_nodes' must be a list of key nodes, found %s",
		            found(l, &e));
	pos at = e.at;
	sm_reset(&l->node_ids);
	for (;;) {
		if ((rc = next_event(l, &e)) != 0)
			return rc;
		if (e.type == YAML_SEQUENCE_END_EVENT)
			break;
		if ((rc = parse_keynode(l, ti, &cap, &e)) != 0)
			return rc;
	}
	if (l->set->tasks[ti].n_keynodes == 0)
		return fail(l, KN_EINVAL, at, "'key_nodes' is empty (at least one key node is required)");
	return 0;
}

static const char *const step_verbs[] = {
	[KN_STEP_GOTO] = "goto",     [KN_STEP_CLICK] = "click",   [KN_STEP_TYPE] = "type",
	[KN_STEP_SELECT] = "select", [KN_STEP_PRESS] = "press",   [KN_STEP_SCROLL] = "scroll",
	[KN_STEP_WAIT] = "wait",     [KN_STEP_BACK] = "back",     [KN_STEP_FORWARD] = "forward",
	[KN_STEP_ANSWER] = "answer",
};
#define N_VERBS ((int)(sizeof step_verbs / sizeof step_verbs[0]))
#define VERB_LIST "goto, click, type, select, press, scroll, wait, back, forward or answer"

enum { LOC_SELECTOR, LOC_TEXT, LOC_VALUE, LOC_ENTER, LOC_ID, LOC_NAME, LOC_ARIA, LOC_ROLE, LOC_HREF,
       LOC_TEST_ID, LOC_TAG, LOC_CLASSES, LOC_PATH, LOC_FRAME, N_LOC };
static const char *const loc_keys[N_LOC] = { "selector", "text", "value", "enter", "id", "name",
                                             "aria_label", "role", "href", "test_id", "tag",
                                             "classes", "dom_path", "frame" };
/* The record-time fingerprint (workflow.h): hints every locating verb accepts. */
#define LOC_FINGERPRINT (1u << LOC_TEST_ID | 1u << LOC_TAG | 1u << LOC_CLASSES | 1u << LOC_PATH | \
                         1u << LOC_FRAME)

/* The mapping of click/type/select/wait: a selector, the verb's own fields (allowed: a bit set
 * over LOC_*), and locator hints. */
static int parse_locator(loader *l, kn_step *st, const char *verb, pos at, unsigned allowed)
{
	yev k, v;
	int rc, end;
	unsigned seen = 0;
	char c[72];
	allowed |= 1u << LOC_SELECTOR | 1u << LOC_ID | 1u << LOC_NAME | 1u << LOC_ARIA |
	           1u << LOC_ROLE | 1u << LOC_HREF | LOC_FINGERPRINT;
	for (;;) {
		if ((rc = read_key(l, &k, &end)) != 0)
			return rc;
		if (end)
			break;
		int f = lookup(loc_keys, N_LOC, k.val, k.len);
		if (f < 0 || !(allowed & (1u << f))) {
			char list[160] = "";
			for (int i = 0; i < N_LOC; i++) /* the fingerprint keys are for recorded workflows */
				if ((allowed & ~LOC_FINGERPRINT) & (1u << i)) {
					if (list[0])
						strcat(list, i == LOC_HREF ? " or " : ", ");
					strcat(list, loc_keys[i]);
				}
			return fail(l, KN_EINVAL, k.at, "unknown key '%s' in '%s' (expected %s)",
			            clip(c, sizeof c, k.val), verb, list);
		}
		if (seen & (1u << f))
			return fail(l, KN_EINVAL, k.at, "duplicate key '%s'", loc_keys[f]);
		seen |= 1u << f;
		char **dst = NULL;
		switch (f) {
		case LOC_SELECTOR:
			if ((rc = read_text(l, "selector", 0, &st->selector, NULL)) != 0)
				return rc;
			continue;
		case LOC_ENTER:
			if ((rc = next_event(l, &v)) != 0)
				return rc;
			if (v.type != YAML_SCALAR_EVENT || v.kind != SK_BOOL)
				return fail(l, KN_EINVAL, v.at, "'enter' must be true or false, found %s",
				            found(l, &v));
			st->enter = is_true(v.val);
			continue;
		case LOC_TEXT: dst = &st->text; break;
		case LOC_VALUE: dst = &st->value; break;
		case LOC_ID: dst = &st->hint_id; break;
		case LOC_NAME: dst = &st->hint_name; break;
		case LOC_ARIA: dst = &st->hint_aria_label; break;
		case LOC_ROLE: dst = &st->hint_role; break;
		case LOC_TEST_ID: dst = &st->hint_test_id; break;
		case LOC_TAG: dst = &st->tag; break;
		case LOC_CLASSES: dst = &st->classes; break;
		case LOC_PATH: dst = &st->dom_path; break;
		case LOC_FRAME: dst = &st->frame; break;
		default: dst = &st->hint_href; break;
		}
		if ((rc = read_text(l, loc_keys[f], f == LOC_VALUE || f == LOC_TEXT || f == LOC_CLASSES,
		                    dst, NULL)) != 0)
			return rc;
	}
	if (!st->selector)
		return fail(l, KN_EINVAL, at, "'%s' needs a selector", verb);
	if ((allowed & (1u << LOC_VALUE)) && !st->value)
		return fail(l, KN_EINVAL, at, "'%s' needs a value", verb);
	return 0;
}

/* The value of a step's verb. */
static int parse_verb_value(loader *l, kn_step *st, const char *verb)
{
	yev v;
	int rc;
	char c[72];
	pos at;
	switch (st->verb) {
	case KN_STEP_GOTO:
		return read_url(l, verb, &st->value);
	case KN_STEP_PRESS:
		return read_text(l, verb, 0, &st->value, NULL);
	case KN_STEP_ANSWER:
		return read_text(l, verb, 1, &st->value, NULL);
	case KN_STEP_SCROLL:
		if ((rc = read_text(l, verb, 0, &st->value, &at)) != 0)
			return rc;
		if (strcmp(st->value, "up") != 0 && strcmp(st->value, "down") != 0)
			return fail(l, KN_EINVAL, at, "'scroll' must be up or down, found '%s'",
			            clip(c, sizeof c, st->value));
		return 0;
	case KN_STEP_BACK:
	case KN_STEP_FORWARD:
		if ((rc = next_event(l, &v)) != 0)
			return rc;
		if (v.type == YAML_SCALAR_EVENT && v.kind == SK_NULL)
			return 0;
		return fail(l, KN_EINVAL, v.at, "'%s' takes no value (write '- %s'), found %s", verb, verb,
		            found(l, &v));
	case KN_STEP_WAIT:
		if ((rc = next_event(l, &v)) != 0)
			return rc;
		if (v.type == YAML_MAPPING_START_EVENT)
			return parse_locator(l, st, verb, v.at, 0);
		if (v.type == YAML_SCALAR_EVENT && v.kind == SK_INT) {
			long long ms;
			if ((rc = take_count(l, &v, "wait", LONG_MAX, &ms)) != 0)
				return rc;
			st->wait_ms = (long)ms;
			return 0;
		}
		return fail(l, KN_EINVAL, v.at,
		            "'wait' must be milliseconds or a mapping such as { selector: \"#done\" }, "
		            "found %s", found(l, &v));
	default:
		if ((rc = next_event(l, &v)) != 0)
			return rc;
		if (v.type != YAML_MAPPING_START_EVENT)
			return fail(l, KN_EINVAL, v.at,
			            "'%s' must be a mapping such as { selector: \"#buy\" }, found %s", verb,
			            found(l, &v));
		return parse_locator(l, st, verb, v.at,
		                     st->verb == KN_STEP_CLICK  ? 1u << LOC_TEXT
		                     : st->verb == KN_STEP_TYPE ? 1u << LOC_VALUE | 1u << LOC_ENTER
		                                                : 1u << LOC_VALUE);
	}
}

enum { AF_URL, AF_NAVIGATED, AF_VALUE, N_AF };
static const char *const after_keys[N_AF] = { "url", "navigated", "value" };

/* A step's recorded postcondition: `after: {url, navigated, value}` (workflow.h). */
static int parse_after(loader *l, kn_step *st)
{
	yev v, k;
	int rc, end;
	unsigned seen = 0;
	char c[72];
	if ((rc = next_event(l, &v)) != 0)
		return rc;
	if (v.type != YAML_MAPPING_START_EVENT)
		return fail(l, KN_EINVAL, v.at,
		            "'after' must be a mapping such as { url: URL, navigated: true }, found %s",
		            found(l, &v));
	for (;;) {
		if ((rc = read_key(l, &k, &end)) != 0)
			return rc;
		if (end)
			return 0;
		int f = lookup(after_keys, N_AF, k.val, k.len);
		if (f < 0)
			return fail(l, KN_EINVAL, k.at, "unknown key '%s' in 'after' (expected url, navigated "
			            "or value)", clip(c, sizeof c, k.val));
		if (seen & (1u << f))
			return fail(l, KN_EINVAL, k.at, "duplicate key '%s'", after_keys[f]);
		seen |= 1u << f;
		if (f == AF_URL)
			rc = read_url(l, "after.url", &st->expect_url);
		else if (f == AF_VALUE)
			rc = read_text(l, "after.value", 1, &st->expect_value, NULL);
		else {
			if ((rc = next_event(l, &v)) != 0)
				return rc;
			if (v.type != YAML_SCALAR_EVENT || v.kind != SK_BOOL)
				return fail(l, KN_EINVAL, v.at, "'navigated' must be true or false, found %s",
				            found(l, &v));
			st->navigated = is_true(v.val) ? 1 : 2;
		}
		if (rc)
			return rc;
	}
}

/* One step: a bare verb (back, forward) or a mapping with exactly one verb key. */
static int parse_step(loader *l, size_t ti, size_t *cap, const yev *start)
{
	kn_task *t = &l->set->tasks[ti];
	kn_step *st = grow(t->steps, t->n_steps, cap, sizeof *st);
	if (!st)
		return oom(l);
	t->steps = st;
	size_t si = t->n_steps++;
	st = &st[si];
	memset(st, 0, sizeof *st);
	st->line = start->at.line;
	st->column = start->at.col;
	snprintf(l->ctx_sub, sizeof l->ctx_sub, "step %zu", si + 1);

	yev k;
	int rc, end, v;
	char c[72];
	if (start->type == YAML_SCALAR_EVENT) {
		v = lookup(step_verbs, N_VERBS, start->val, start->len);
		if (v < 0)
			return fail(l, KN_EINVAL, start->at, "unknown step verb '%s' (expected " VERB_LIST ")",
			            clip(c, sizeof c, start->val));
		if (v != KN_STEP_BACK && v != KN_STEP_FORWARD)
			return fail(l, KN_EINVAL, start->at, "'%s' needs a value (write '- %s: ...')",
			            step_verbs[v], step_verbs[v]);
		st->verb = (kn_step_verb)v;
		l->ctx_sub[0] = '\0';
		return 0;
	}
	if (start->type != YAML_MAPPING_START_EVENT)
		return fail(l, KN_EINVAL, start->at,
		            "a step is a verb such as '- goto: URL' or '- back', found %s",
		            found(l, start));
	if ((rc = read_key(l, &k, &end)) != 0)
		return rc;
	if (end)
		return fail(l, KN_EINVAL, start->at, "empty step (expected one of " VERB_LIST ")");
	v = lookup(step_verbs, N_VERBS, k.val, k.len);
	if (v < 0)
		return fail(l, KN_EINVAL, k.at, "unknown step verb '%s' (expected " VERB_LIST ")",
		            clip(c, sizeof c, k.val));
	st->verb = (kn_step_verb)v;
	if ((rc = parse_verb_value(l, st, step_verbs[v])) != 0)
		return rc;
	if ((rc = read_key(l, &k, &end)) != 0)
		return rc;
	if (!end && k.len == 5 && !memcmp(k.val, "after", 5)) {
		if ((rc = parse_after(l, st)) != 0 || (rc = read_key(l, &k, &end)) != 0)
			return rc;
		if (!end && k.len == 5 && !memcmp(k.val, "after", 5))
			return fail(l, KN_EINVAL, k.at, "duplicate key 'after'");
	}
	if (!end)
		return fail(l, KN_EINVAL, k.at,
		            "unexpected key '%s' after '%s' (a step has one verb; its options go in the "
		            "verb's mapping)", clip(c, sizeof c, k.val), step_verbs[v]);
	l->ctx_sub[0] = '\0';
	return 0;
}

static int parse_steps(loader *l, size_t ti)
{
	yev e;
	size_t cap = 0;
	int rc = next_event(l, &e);
	if (rc)
		return rc;
	if (e.type != YAML_SEQUENCE_START_EVENT)
		return fail(l, KN_EINVAL, e.at, "'steps' must be a list of steps, found %s", found(l, &e));
	for (;;) {
		if ((rc = next_event(l, &e)) != 0)
			return rc;
		if (e.type == YAML_SEQUENCE_END_EVENT)
			return 0;
		if ((rc = parse_step(l, ti, &cap, &e)) != 0)
			return rc;
	}
}

/* ---- purchase: (purchase.h) ---- */

static const char *const purchase_keys[] = { "type", "attributes", "options", "price_max", "buy",
                                             "read" };
static const char *const read_keys[] = { "title", "attributes", "options", "price" };

/* A list of texts (or one text) into *items. */
static int purchase_list(loader *l, const char *what, char ***items, size_t *n)
{
	yev e;
	int rc = next_event(l, &e);
	if (rc)
		return rc;
	int seq = e.type == YAML_SEQUENCE_START_EVENT;
	for (;;) {
		if (seq && (rc = next_event(l, &e)) != 0)
			return rc;
		if (seq && e.type == YAML_SEQUENCE_END_EVENT)
			return 0;
		if (*n >= 100)
			return fail(l, KN_ELIMIT, e.at, "'%s' has more than 100 entries", what);
		char **ni = realloc(*items, (*n + 1) * sizeof *ni);
		if (!ni)
			return oom(l);
		*items = ni;
		if ((rc = take_text(l, &e, what, 0, &ni[*n])) != 0)
			return rc;
		(*n)++;
		if (!seq)
			return 0;
	}
}

/* options: {field: value, …} */
static int purchase_options(loader *l, kn_purchase *p)
{
	yev e, k;
	int rc = next_event(l, &e), end;
	if (rc)
		return rc;
	if (e.type != YAML_MAPPING_START_EVENT)
		return fail(l, KN_EINVAL, e.at, "'options' must be a mapping of option name to value, "
		            "such as { color: blue, size: \"9\" }; found %s", found(l, &e));
	for (;;) {
		if ((rc = read_key(l, &k, &end)) != 0)
			return rc;
		if (end)
			return 0;
		if (p->n_options >= 100)
			return fail(l, KN_ELIMIT, k.at, "'options' has more than 100 entries");
		kn_purchase_option *no = realloc(p->options, (p->n_options + 1) * sizeof *no);
		if (!no)
			return oom(l);
		p->options = no;
		no = &no[p->n_options];
		memset(no, 0, sizeof *no);
		p->n_options++;
		if (!(no->field = dupn(k.val, k.len)))
			return oom(l);
		if ((rc = read_text(l, "options value", 0, &no->value, NULL)) != 0)
			return rc;
	}
}

/* read: {title, attributes, options, price} — CSS selectors. */
static int purchase_read(loader *l, kn_purchase *p)
{
	yev e, k;
	int rc = next_event(l, &e), end;
	char c[72];
	if (rc)
		return rc;
	if (e.type != YAML_MAPPING_START_EVENT)
		return fail(l, KN_EINVAL, e.at, "'read' must be a mapping of title, attributes, options "
		            "and price to CSS selectors; found %s", found(l, &e));
	for (;;) {
		if ((rc = read_key(l, &k, &end)) != 0)
			return rc;
		if (end)
			return 0;
		int w = lookup(read_keys, 4, k.val, k.len);
		char **slot = w == 0 ? &p->read_title : w == 1 ? &p->read_attributes
		              : w == 2 ? &p->read_options : w == 3 ? &p->read_price : NULL;
		if (!slot)
			return fail(l, KN_EINVAL, k.at, "unknown key '%s' in 'read' (expected title, "
			            "attributes, options or price)", clip(c, sizeof c, k.val));
		if (*slot)
			return fail(l, KN_EINVAL, k.at, "duplicate key '%s'", read_keys[w]);
		if ((rc = read_text(l, read_keys[w], 0, slot, NULL)) != 0)
			return rc;
	}
}

/* A task's purchase: mapping (keynodes/README.md "Purchase reward"). */
static int parse_purchase(loader *l, kn_task *t)
{
	yev e, k;
	int rc = next_event(l, &e), end;
	unsigned seen = 0;
	char c[72];
	if (rc)
		return rc;
	if (e.type != YAML_MAPPING_START_EVENT)
		return fail(l, KN_EINVAL, e.at, "'purchase' must be a mapping (type, attributes, options, "
		            "price_max, buy, read); found %s", found(l, &e));
	if (!(t->purchase = calloc(1, sizeof *t->purchase)))
		return oom(l);
	kn_purchase *p = t->purchase;
	for (;;) {
		if ((rc = read_key(l, &k, &end)) != 0)
			return rc;
		if (end)
			break;
		int w = lookup(purchase_keys, 6, k.val, k.len);
		if (w < 0)
			return fail(l, KN_EINVAL, k.at, "unknown key '%s' in 'purchase' (expected type, "
			            "attributes, options, price_max, buy or read)", clip(c, sizeof c, k.val));
		if (seen & (1u << w))
			return fail(l, KN_EINVAL, k.at, "duplicate key '%s'", purchase_keys[w]);
		seen |= 1u << w;
		if (w == 0)
			rc = read_text(l, "type", 0, &p->type, NULL);
		else if (w == 1)
			rc = purchase_list(l, "attributes", &p->attributes, &p->n_attributes);
		else if (w == 2)
			rc = purchase_options(l, p);
		else if (w == 4)
			rc = read_text(l, "buy", 0, &p->buy, NULL);
		else if (w == 5)
			rc = purchase_read(l, p);
		else {
			yev v;
			if ((rc = next_event(l, &v)) != 0)
				return rc;
			char *endp = NULL;
			double d = v.type == YAML_SCALAR_EVENT && (v.kind == SK_INT || v.kind == SK_FLOAT)
			                   ? strtod(v.val, &endp) : -1;
			if (d <= 0 || !(d < 1e12))
				return fail(l, KN_EINVAL, v.at, "'price_max' must be a positive number, found %s",
				            found(l, &v));
			p->price_max = d;
		}
		if (rc)
			return rc;
	}
	if (!p->type)
		return fail(l, KN_EINVAL, e.at, "'purchase' needs 'type' (the product type asked for)");
	return 0;
}

enum { TK_ID, TK_INTENT, TK_START_URL, TK_REFLEN, TK_ANSWER, TK_KEYNODES, TK_STEPS, TK_PURCHASE,
       N_TK };
static const char *const task_keys[N_TK] = { "id", "intent", "start_url", "reference_length",
                                             "answer", "key_nodes", "steps", "purchase" };

/* One task mapping whose start event was at `at`. first, when not NULL, is its first key, already
 * read (a single task at the top level). */
static int parse_task(loader *l, pos at, const yev *first)
{
	kn_taskset *set = l->set;
	kn_task *t = grow(set->tasks, set->n_tasks, &l->cap_tasks, sizeof *t);
	if (!t)
		return oom(l);
	set->tasks = t;
	size_t ti = set->n_tasks++;
	t = &t[ti];
	memset(t, 0, sizeof *t);
	t->line = at.line;
	snprintf(l->ctx_task, sizeof l->ctx_task, "task %zu", ti + 1);

	yev k;
	int rc, end;
	unsigned seen = 0;
	char c[72];
	for (;;) {
		if (first) {
			k = *first;
			first = NULL;
		} else if ((rc = read_key(l, &k, &end)) != 0) {
			return rc;
		} else if (end) {
			break;
		}
		int w = lookup(task_keys, N_TK, k.val, k.len);
		if (w < 0)
			return fail(l, KN_EINVAL, k.at,
			            "unknown key '%s' (expected id, intent, start_url, reference_length, "
			            "answer, key_nodes, steps or purchase)", clip(c, sizeof c, k.val));
		if (seen & (1u << w))
			return fail(l, KN_EINVAL, k.at, "duplicate key '%s'", task_keys[w]);
		seen |= 1u << w;
		switch (w) {
		case TK_ID: {
			pos idat;
			size_t other;
			int existed;
			if ((rc = read_text(l, "id", 0, &t->id, &idat)) != 0)
				return rc;
			if (sm_find(&l->task_ids, t->id, &other))
				return fail(l, KN_EINVAL, idat,
				            "duplicate task id '%s' (task %zu at line %d has it too)",
				            clip(c, sizeof c, t->id), other + 1, set->tasks[other].line);
			if (sm_put(&l->task_ids, t->id, ti, &existed) != 0)
				return oom(l);
			snprintf(l->ctx_task, sizeof l->ctx_task, "task '%s'", clip(c, sizeof c, t->id));
			break;
		}
		case TK_INTENT:
			rc = read_text(l, "intent", 0, &t->intent, NULL);
			break;
		case TK_START_URL:
			rc = read_url(l, "start_url", &t->start_url);
			break;
		case TK_ANSWER:
			rc = read_text(l, "answer", 1, &t->answer, NULL);
			break;
		case TK_REFLEN: {
			yev v;
			long long n;
			if ((rc = next_event(l, &v)) != 0)
				return rc;
			if ((rc = take_count(l, &v, "reference_length", INT_MAX, &n)) != 0)
				return rc;
			t->reference_length = (int)n;
			break;
		}
		case TK_KEYNODES:
			rc = parse_keynodes(l, ti);
			break;
		case TK_PURCHASE:
			rc = parse_purchase(l, t);
			break;
		default:
			rc = parse_steps(l, ti);
			break;
		}
		if (rc)
			return rc;
	}
	if (!(seen & (1u << TK_ID)))
		return fail(l, KN_EINVAL, at, "missing 'id'");
	if (!(seen & (1u << TK_INTENT)))
		return fail(l, KN_EINVAL, at, "missing 'intent'");
	if (!(seen & (1u << TK_KEYNODES)))
		return fail(l, KN_EINVAL, at, "missing 'key_nodes' (at least one key node is required)");
	if (!(seen & (1u << TK_REFLEN)))
		t->reference_length = t->n_steps > (size_t)INT_MAX ? INT_MAX : (int)t->n_steps;
	l->ctx_task[0] = '\0';
	return 0;
}

static int parse_tasks(loader *l)
{
	yev e;
	int rc = next_event(l, &e);
	if (rc)
		return rc;
	if (e.type != YAML_SEQUENCE_START_EVENT)
		return fail(l, KN_EINVAL, e.at, "'tasks' must be a list of tasks, found %s", found(l, &e));
	pos at = e.at;
	for (;;) {
		if ((rc = next_event(l, &e)) != 0)
			return rc;
		if (e.type == YAML_SEQUENCE_END_EVENT)
			break;
		if (e.type != YAML_MAPPING_START_EVENT)
			return fail(l, KN_EINVAL, e.at, "task %zu must be a mapping, found %s",
			            l->set->n_tasks + 1, found(l, &e));
		if ((rc = parse_task(l, e.at, NULL)) != 0)
			return rc;
	}
	if (l->set->n_tasks == 0)
		return fail(l, KN_EINVAL, at, "'tasks' is empty");
	return 0;
}

enum { WK_FORMAT, WK_TASK, WK_RECORDED, WK_VIEWPORT, WK_START_URL, WK_STEPS, N_WK };
static const char *const workflow_keys[N_WK] = { "workflow", "task", "recorded_at", "viewport",
                                                 "start_url", "steps" };

/* "WxH" with 100 ≤ W, H ≤ 10000; 0 or KN_EINVAL. */
static int parse_viewport(const char *s, int *w, int *h)
{
	char *end;
	long a = strtol(s, &end, 10);
	if (end == s || (*end != 'x' && *end != 'X'))
		return KN_EINVAL;
	const char *p = end + 1;
	long b = strtol(p, &end, 10);
	if (end == p || *end || a < 100 || a > 10000 || b < 100 || b > 10000)
		return KN_EINVAL;
	*w = (int)a;
	*h = (int)b;
	return 0;
}

/* A workflow file (kn_load_opts.workflow): one mapping {workflow: 1, task, recorded_at,
 * viewport, start_url, steps}, loaded as one task holding only its id, steps and viewport.
 * first is its first key, already read. */
static int parse_workflow(loader *l, pos at, const yev *first)
{
	kn_taskset *set = l->set;
	kn_task *t = grow(set->tasks, set->n_tasks, &l->cap_tasks, sizeof *t);
	if (!t)
		return oom(l);
	set->tasks = t;
	t = &t[set->n_tasks++];
	memset(t, 0, sizeof *t);
	t->line = at.line;
	snprintf(l->ctx_task, sizeof l->ctx_task, "workflow");
	yev k, v;
	int rc, end;
	unsigned seen = 0;
	char c[72], *text = NULL;
	pos vat;
	for (;;) {
		if (first) {
			k = *first;
			first = NULL;
		} else if ((rc = read_key(l, &k, &end)) != 0) {
			return rc;
		} else if (end) {
			break;
		}
		int w = lookup(workflow_keys, N_WK, k.val, k.len);
		if (w < 0)
			return fail(l, KN_EINVAL, k.at,
			            "unknown key '%s' (expected workflow, task, recorded_at, viewport, "
			            "start_url or steps)", clip(c, sizeof c, k.val));
		if (seen & (1u << w))
			return fail(l, KN_EINVAL, k.at, "duplicate key '%s'", workflow_keys[w]);
		seen |= 1u << w;
		switch (w) {
		case WK_FORMAT:
			if ((rc = next_event(l, &v)) != 0)
				return rc;
			if (v.type != YAML_SCALAR_EVENT || v.kind != SK_INT || strcmp(v.val, "1") != 0)
				return fail(l, KN_EINVAL, v.at, "'workflow' must be 1 (the format version), "
				            "found %s", found(l, &v));
			break;
		case WK_TASK:
			if ((rc = read_text(l, "task", 0, &t->id, &vat)) != 0)
				return rc;
			t->line = vat.line; /* where a message about the id points */
			snprintf(l->ctx_task, sizeof l->ctx_task, "workflow of '%s'", clip(c, sizeof c, t->id));
			break;
		case WK_RECORDED:
			rc = read_text(l, "recorded_at", 0, &text, NULL);
			free(text), text = NULL;
			if (rc)
				return rc;
			break;
		case WK_VIEWPORT:
			if ((rc = read_text(l, "viewport", 0, &text, &vat)) != 0)
				return rc;
			rc = parse_viewport(text, &t->viewport_w, &t->viewport_h);
			if (rc)
				rc = fail(l, KN_EINVAL, vat, "'viewport' must be WIDTHxHEIGHT (100 to 10000), "
				          "found '%s'", clip(c, sizeof c, text));
			free(text), text = NULL;
			if (rc)
				return rc;
			break;
		case WK_START_URL:
			if ((rc = read_url(l, "start_url", &t->start_url)) != 0)
				return rc;
			break;
		default:
			if ((rc = parse_steps(l, set->n_tasks - 1)) != 0)
				return rc;
			break;
		}
	}
	if (!(seen & (1u << WK_TASK)))
		return fail(l, KN_EINVAL, at, "missing 'task' (the id of the task this workflow is for)");
	if (!(seen & (1u << WK_STEPS)) || t->n_steps == 0)
		return fail(l, KN_EINVAL, at, "missing 'steps' (a workflow has at least one step)");
	l->ctx_task[0] = '\0';
	return 0;
}

/* The document: a mapping holding 'tasks:', or a single task mapping. */
static int parse_document(loader *l)
{
	yev e, k;
	int rc, end;
	char c[72];
	if ((rc = next_event(l, &e)) != 0 || (rc = next_event(l, &e)) != 0)
		return rc; /* stream start, then document start or stream end */
	if (e.type == YAML_STREAM_END_EVENT)
		return fail(l, KN_EINVAL, pos_at(1, 1),
		            "empty document (expected 'tasks:' or a single task)");
	if ((rc = next_event(l, &e)) != 0)
		return rc;
	if (e.type == YAML_SCALAR_EVENT && e.kind == SK_NULL)
		return fail(l, KN_EINVAL, e.at, "empty document (expected 'tasks:' or a single task)");
	if (e.type != YAML_MAPPING_START_EVENT)
		return fail(l, KN_EINVAL, e.at,
		            "expected a mapping holding 'tasks:' or a single task at the top level, "
		            "found %s", found(l, &e));
	pos at = e.at;
	if ((rc = read_key(l, &k, &end)) != 0)
		return rc;
	if (end)
		return fail(l, KN_EINVAL, at, "empty document (expected 'tasks:' or a single task)");
	if (l->workflow) {
		if ((rc = parse_workflow(l, at, &k)) != 0)
			return rc;
	} else if (k.len == 5 && !memcmp(k.val, "tasks", 5)) {
		if ((rc = parse_tasks(l)) != 0 || (rc = read_key(l, &k, &end)) != 0)
			return rc;
		if (!end && k.len == 5 && !memcmp(k.val, "tasks", 5))
			return fail(l, KN_EINVAL, k.at, "duplicate key 'tasks'");
		if (!end)
			return fail(l, KN_EINVAL, k.at,
			            "unknown top-level key '%s' (a file with 'tasks:' holds only that list)",
			            clip(c, sizeof c, k.val));
	} else if ((rc = parse_task(l, at, &k)) != 0) {
		return rc;
	}
	if ((rc = next_event(l, &e)) != 0)
		return rc;
	if (e.type != YAML_DOCUMENT_END_EVENT)
		return fail(l, KN_EINVAL, e.at, "internal error: document does not end");
	return 0;
}

/* Parse the events again, into l->set. */
static int pass2(loader *l)
{
	if (l->ndefs) {
		l->def_start = calloc(l->ndefs, sizeof *l->def_start);
		l->def_end = calloc(l->ndefs, sizeof *l->def_end);
		if (!l->def_start || !l->def_end)
			return oom(l);
	}
	if (!yaml_parser_initialize(&l->parser))
		return oom(l);
	l->parser_live = 1;
	yaml_parser_set_input_string(&l->parser, l->buf, l->len);
	yaml_parser_set_encoding(&l->parser, YAML_UTF8_ENCODING);
	if (!(l->set = calloc(1, sizeof *l->set)) ||
	    !(l->set->source = dupn(l->name, strlen(l->name))))
		return oom(l);
	l->set->format = KN_FORMAT_YAML;
	return parse_document(l);
}

static void loader_free(loader *l)
{
	if (l->cur_live)
		yaml_event_delete(&l->cur);
	if (l->parser_live)
		yaml_parser_delete(&l->parser);
	for (size_t i = 0; i < l->nlog; i++)
		free(l->log[i].own);
	free(l->log);
	free(l->open);
	free(l->def_start);
	free(l->def_end);
	free(l->alias_def);
	sm_free(&l->task_ids, 0);
	sm_free(&l->node_ids, 0);
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
	l.last = pos_at(1, 1);
	if (len > max_bytes)
		return fail(&l, KN_ELIMIT, l.last, "document is %zu bytes, more than the limit of %zu",
		            len, max_bytes);
	rc = pass1(&l);
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
