/* config.c — the keynode.yaml loader (config.h). libyaml's events, read through the shared
 * front-end (keynode/yaml_reader.h, as the task loader reads them), are first built into a small
 * tree (the file is tiny and capped, so a tree costs nothing and keeps the schema walk simple);
 * anchors, aliases, tags and a second document are refused while building it, so nothing is ever
 * expanded. The walk then reads the fixed schema, one function per section, with the key path
 * ("semantic.llm.timeout_ms", "alerts[1].url") carried along for the messages. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "config.h"
#include "config_internal.h"
#include "cron.h" /* kn_cron_check only: config stores cron text, the scheduler compiles it */
#include "keynode/grow.h"
#include "keynode/yaml_reader.h"

#define fail kn_config_fail

/* "name:line:col: message" into l->err, control characters made '?'; returns code. */
int kn_config_fail(loader *l, int code, int line, int col, const char *fmt, ...)
{
	char msg[KN_ERR_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return kn_yaml_err_set(l->err, code, l->name, line, col, msg);
}

static void node_free(node *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->n; i++)
		node_free(n->kids[i]);
	free(n->kids);
	free(n->val);
	free(n);
}

/* ---- building the tree ---- */

typedef struct builder {
	loader *l;
	kn_yaml_reader r;
} builder;

static int next(builder *b)
{
	int code = kn_yaml_reader_next(&b->r);
	return code ? fail(b->l, code, b->r.line, b->r.col, "%s", b->r.msg) : 0;
}

static int add_kid(loader *l, node *parent, node *kid)
{
	if (kn_grow(&parent->kids, parent->n, &parent->cap, sizeof *parent->kids, 4)) {
		node_free(kid);
		return fail(l, KN_ENOMEM, kid->line, kid->col, "out of memory");
	}
	parent->kids[parent->n++] = kid;
	return 0;
}

/* The node starting at the current event (a scalar, sequence or mapping start) into *out. */
static int build(builder *b, node **out, int depth)
{
	loader *l = b->l;
	yaml_event_t *e = &b->r.ev;
	int line = b->r.line, col = b->r.col;
	const yaml_char_t *anchor = NULL, *tag = NULL;
	*out = NULL;
	switch (e->type) {
	case YAML_ALIAS_EVENT:
		return fail(l, KN_EUNSUPPORTED, line, col, "aliases are not supported in a config file");
	case YAML_SCALAR_EVENT:
		anchor = e->data.scalar.anchor;
		tag = e->data.scalar.tag;
		break;
	case YAML_SEQUENCE_START_EVENT:
		anchor = e->data.sequence_start.anchor;
		tag = e->data.sequence_start.tag;
		break;
	case YAML_MAPPING_START_EVENT:
		anchor = e->data.mapping_start.anchor;
		tag = e->data.mapping_start.tag;
		break;
	default:
		return fail(l, KN_EINVAL, line, col, "unexpected YAML event");
	}
	if (anchor)
		return fail(l, KN_EUNSUPPORTED, line, col, "anchors are not supported in a config file");
	if (tag)
		return fail(l, KN_EUNSUPPORTED, line, col, "tags are not supported in a config file");
	if (depth > KN_CONFIG_MAX_DEPTH)
		return fail(l, KN_ELIMIT, line, col, "nested deeper than %d levels", KN_CONFIG_MAX_DEPTH);
	if (++l->nodes > KN_CONFIG_MAX_NODES)
		return fail(l, KN_ELIMIT, line, col, "more than %d YAML nodes", KN_CONFIG_MAX_NODES);

	node *n = calloc(1, sizeof *n);
	if (!n)
		return fail(l, KN_ENOMEM, line, col, "out of memory");
	n->line = line;
	n->col = col;
	if (e->type == YAML_SCALAR_EVENT) {
		n->type = N_SCALAR;
		n->plain = e->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
		n->len = e->data.scalar.length;
		n->val = malloc(n->len + 1);
		if (!n->val) {
			node_free(n);
			return fail(l, KN_ENOMEM, line, col, "out of memory");
		}
		memcpy(n->val, e->data.scalar.value, n->len);
		n->val[n->len] = '\0';
		*out = n;
		return 0;
	}
	n->type = e->type == YAML_MAPPING_START_EVENT ? N_MAP : N_SEQ;
	yaml_event_type_t end = n->type == N_MAP ? YAML_MAPPING_END_EVENT : YAML_SEQUENCE_END_EVENT;
	int rc;
	for (;;) {
		if ((rc = next(b)) != 0)
			break;
		if (e->type == end) {
			*out = n;
			return 0;
		}
		node *kid;
		if ((rc = build(b, &kid, depth + 1)) != 0)
			break;
		if (n->type == N_MAP && (n->n % 2) == 0 && kid->type != N_SCALAR) {
			rc = fail(l, KN_EINVAL, kid->line, kid->col, "a mapping key must be a plain string");
			node_free(kid);
			break;
		}
		if ((rc = add_kid(l, n, kid)) != 0)
			break;
	}
	node_free(n);
	return rc;
}

/* The document's root (NULL for an empty stream or document) into *root. */
static int build_doc(loader *l, const char *buf, size_t len, node **root)
{
	builder b = { .l = l };
	int rc;
	*root = NULL;
	if (kn_yaml_reader_init(&b.r, buf, len, "a config file", 0) != 0) {
		kn_yaml_reader_done(&b.r);
		return fail(l, KN_ENOMEM, 1, 1, "out of memory");
	}
	if ((rc = next(&b)) != 0) /* stream start */
		goto out;
	if ((rc = next(&b)) != 0)
		goto out;
	if (b.r.ev.type == YAML_STREAM_END_EVENT)
		goto out;
	if ((rc = next(&b)) != 0) /* past document start */
		goto out;
	if ((rc = build(&b, root, 1)) != 0)
		goto out;
	if ((rc = next(&b)) != 0) /* document end */
		goto out;
	if ((rc = next(&b)) != 0)
		goto out;
	if (b.r.ev.type != YAML_STREAM_END_EVENT)
		rc = fail(l, KN_EINVAL, b.r.line, b.r.col, "a config file holds one YAML document");
out:
	kn_yaml_reader_done(&b.r);
	if (rc) {
		node_free(*root);
		*root = NULL;
	}
	return rc;
}

/* ---- the schema ---- */

/* A YAML null: a plain empty, "~" or "null" scalar. Such a value leaves the default. */
static int is_null(const node *n)
{
	return n->type == N_SCALAR && n->plain &&
	       (n->len == 0 || strcmp(n->val, "~") == 0 || strcmp(n->val, "null") == 0 ||
	        strcmp(n->val, "Null") == 0 || strcmp(n->val, "NULL") == 0);
}

/* A copy of scalar n into *dst (replacing what was there); types other than a scalar fail. */
static int get_str(loader *l, const node *n, const char *path, char **dst, int nonempty)
{
	if (n->type != N_SCALAR || is_null(n))
		return fail(l, KN_EINVAL, n->line, n->col, "%s: expected a string", path);
	if (strlen(n->val) != n->len)
		return fail(l, KN_EINVAL, n->line, n->col, "%s: contains a NUL character", path);
	if (nonempty && n->len == 0)
		return fail(l, KN_EINVAL, n->line, n->col, "%s: must not be empty", path);
	char *s = strdup(n->val);
	if (!s)
		return fail(l, KN_ENOMEM, n->line, n->col, "out of memory");
	free(*dst);
	*dst = s;
	return 0;
}

/* A plain scalar that is a whole finite number. */
static int scalar_number(const node *n, double *v)
{
	char *end;
	if (n->type != N_SCALAR || !n->plain || n->len == 0 || strlen(n->val) != n->len)
		return -1;
	errno = 0;
	*v = strtod(n->val, &end);
	return *end || errno || !isfinite(*v) ? -1 : 0;
}

static int get_long(loader *l, const node *n, const char *path, long lo, long hi, long *dst)
{
	char *end;
	long v = 0;
	int ok = n->type == N_SCALAR && n->plain && n->len > 0 && strlen(n->val) == n->len;
	if (ok) {
		errno = 0;
		v = strtol(n->val, &end, 10);
		ok = !*end && !errno && v >= lo && v <= hi;
	}
	if (!ok)
		return fail(l, KN_EINVAL, n->line, n->col, "%s: expected an integer in [%ld, %ld]", path,
		            lo, hi);
	*dst = v;
	return 0;
}

static int get_price(loader *l, const node *n, const char *path, double *dst)
{
	double v;
	if (scalar_number(n, &v) != 0 || v < 0 || v >= 1e6)
		return fail(l, KN_EINVAL, n->line, n->col,
		            "%s: expected USD per 1000 tokens, a number in [0, 1000000)", path);
	*dst = v;
	return 0;
}

typedef struct field {
	const char *key;
	const node *val;
	int key_line, key_col;
} field;

/* Check mapping m against names (n of them): fields[i] gets the value of names[i] or NULL.
 * Unknown and repeated keys fail, named by path + key. A null m (an empty section) is allowed. */
static int fields_of(loader *l, const node *m, const char *path, const char *const *names,
                     int n, const node **vals)
{
	for (int i = 0; i < n; i++)
		vals[i] = NULL;
	if (is_null(m))
		return 0;
	if (m->type != N_MAP)
		return fail(l, KN_EINVAL, m->line, m->col, "%s: expected a mapping", *path ? path : "top level");
	for (size_t k = 0; k + 1 < m->n; k += 2) {
		const node *key = m->kids[k];
		int i = 0;
		while (i < n && strcmp(names[i], key->val) != 0)
			i++;
		const char *dot = *path ? "." : "";
		if (i == n || strlen(key->val) != key->len)
			return fail(l, KN_EINVAL, key->line, key->col, "%s%s%.64s: unknown key", path, dot,
			            key->val);
		if (vals[i])
			return fail(l, KN_EINVAL, key->line, key->col, "%s%s%s: repeated key", path, dot,
			            names[i]);
		vals[i] = m->kids[k + 1];
	}
	return 0;
}

/* A sequence (or null) into its items; other types fail. */
static int items_of(loader *l, const node *s, const char *path, size_t *n)
{
	*n = 0;
	if (is_null(s))
		return 0;
	if (s->type != N_SEQ)
		return fail(l, KN_EINVAL, s->line, s->col, "%s: expected a sequence", path);
	*n = s->n;
	return 0;
}

#define SET(v) ((v) && !is_null(v))

static int load_llm(loader *l, kn_config *c, const node *m)
{
	static const char *const names[] = { "url", "model", "api_key_env", "timeout_ms", "price" };
	const node *v[5];
	int rc;
	if ((rc = fields_of(l, m, "semantic.llm", names, 5, v)) != 0)
		return rc;
	if (SET(v[0]) && (rc = get_str(l, v[0], "semantic.llm.url", &c->semantic.llm.url, 1)) != 0)
		return rc;
	if (SET(v[1]) && (rc = get_str(l, v[1], "semantic.llm.model", &c->semantic.llm.model, 1)) != 0)
		return rc;
	if (SET(v[2]) &&
	    (rc = get_str(l, v[2], "semantic.llm.api_key_env", &c->semantic.llm.api_key_env, 1)) != 0)
		return rc;
	if (SET(v[3])) {
		if ((rc = get_long(l, v[3], "semantic.llm.timeout_ms", 1, 3600000,
		                   &c->semantic.llm.timeout_ms)) != 0)
			return rc;
		c->semantic.llm.timeout_set = 1;
	}
	if (SET(v[4])) {
		const node *p = v[4];
		if (p->type == N_MAP) {
			static const char *const pn[] = { "prompt", "completion" };
			const node *pv[2];
			if ((rc = fields_of(l, p, "semantic.llm.price", pn, 2, pv)) != 0)
				return rc;
			if (SET(pv[0]) && (rc = get_price(l, pv[0], "semantic.llm.price.prompt",
			                                  &c->semantic.llm.price_prompt)) != 0)
				return rc;
			if (SET(pv[1]) && (rc = get_price(l, pv[1], "semantic.llm.price.completion",
			                                  &c->semantic.llm.price_completion)) != 0)
				return rc;
		} else {
			/* one number: the same price for prompt and completion tokens */
			if ((rc = get_price(l, p, "semantic.llm.price", &c->semantic.llm.price_prompt)) != 0)
				return rc;
			c->semantic.llm.price_completion = c->semantic.llm.price_prompt;
		}
		c->semantic.llm.price_set = 1;
	}
	return 0;
}

static int load_semantic(loader *l, kn_config *c, const node *m)
{
	static const char *const names[] = { "backend", "threshold", "llm" };
	const node *v[3];
	int rc;
	if ((rc = fields_of(l, m, "semantic", names, 3, v)) != 0)
		return rc;
	if (SET(v[0])) {
		const node *b = v[0];
		if (b->type == N_SCALAR && strcmp(b->val, "offline") == 0)
			c->semantic.backend = KN_CONFIG_OFFLINE;
		else if (b->type == N_SCALAR && strcmp(b->val, "llm") == 0)
			c->semantic.backend = KN_CONFIG_LLM;
		else
			return fail(l, KN_EINVAL, b->line, b->col,
			            "semantic.backend: expected offline or llm");
		c->semantic.backend_set = 1;
	}
	if (SET(v[1])) {
		double t;
		if (scalar_number(v[1], &t) != 0 || !(t > 0 && t <= 1))
			return fail(l, KN_EINVAL, v[1]->line, v[1]->col,
			            "semantic.threshold: expected a number in (0, 1]");
		c->semantic.threshold = t;
		c->semantic.threshold_set = 1;
	}
	if (v[2] && (rc = load_llm(l, c, v[2])) != 0)
		return rc;
	return 0;
}

/* sites: {NAME: URL}: WebArena's __NAME__ placeholders (keynodes/README.md "WebArena import"). */
static int load_sites(loader *l, kn_config *c, const node *m)
{
	char path[96];
	int rc;
	if (m->type != N_MAP)
		return fail(l, KN_EINVAL, m->line, m->col,
		            "sites: expected a mapping such as {SHOPPING: \"http://127.0.0.1:7770\"}");
	size_t n = m->n / 2;
	if (n && !(c->sites = calloc(n, sizeof *c->sites)))
		return fail(l, KN_ENOMEM, m->line, m->col, "out of memory");
	for (size_t i = 0; i < n; i++, c->n_sites++) {
		const node *k = m->kids[2 * i];
		int ok = k->type == N_SCALAR && k->val[0];
		for (const char *p = ok ? k->val : ""; *p; p++)
			ok &= (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_';
		if (!ok)
			return fail(l, KN_EINVAL, k->line, k->col,
			            "sites: a site name is upper-case letters, digits and _ (SHOPPING)");
		if (!(c->sites[i].name = strdup(k->val)))
			return fail(l, KN_ENOMEM, k->line, k->col, "out of memory");
		snprintf(path, sizeof path, "sites.%.60s", k->val);
		if ((rc = get_str(l, m->kids[2 * i + 1], path, &c->sites[i].url, 1)) != 0)
			return rc;
	}
	return 0;
}

/* A sequence of non-empty strings (or null: none) into *v / *n, named by key. */
static int load_strings(loader *l, const node *s, const char *key, char ***v, size_t *n)
{
	size_t k;
	int rc;
	char path[96];
	if ((rc = items_of(l, s, key, &k)) != 0 || k == 0)
		return rc;
	if (!(*v = calloc(k, sizeof **v)))
		return fail(l, KN_ENOMEM, s->line, s->col, "out of memory");
	for (size_t i = 0; i < k; i++, (*n)++) {
		snprintf(path, sizeof path, "%.60s[%zu]", key, i);
		if ((rc = get_str(l, s->kids[i], path, &(*v)[i], 1)) != 0)
			return rc;
	}
	return 0;
}

/* blocked: {enabled, geo: booleans; http_status ("403", "5xx"), challenge, captcha_frames,
 * consent_walls, consent_dismiss: lists of strings} (services/replay/blocked.h). */
static int load_blocked(loader *l, kn_config *c, const node *m)
{
	static const char *const names[] = { "enabled", "geo", "http_status", "challenge", "captcha_frames",
		                             "consent_walls", "consent_dismiss" };
	struct kn_config_list *lists = c->blocked.lists;
	const node *v[7];
	char path[64];
	int rc = fields_of(l, m, "blocked", names, 7, v);
	for (int i = 0; rc == 0 && i < 7; i++) {
		snprintf(path, sizeof path, "blocked.%s", names[i]);
		if (i < 2 && SET(v[i]) && (v[i]->type != N_SCALAR || (strcmp(v[i]->val, "true") && strcmp(v[i]->val, "false"))))
			return fail(l, KN_EINVAL, v[i]->line, v[i]->col, "%s: expected true or false", path);
		if (i < 2 && SET(v[i]))
			*(i ? &c->blocked.geo : &c->blocked.enabled) = strcmp(v[i]->val, "true") == 0;
		if (i >= 2 && v[i] && (lists[i - 2].set = 1))
			rc = load_strings(l, v[i], path, &lists[i - 2].v, &lists[i - 2].n);
	}
	for (size_t i = 0; rc == 0 && i < lists[KN_CONFIG_BLOCKED_HTTP_STATUS].n; i++) {
		const char *s = lists[KN_CONFIG_BLOCKED_HTTP_STATUS].v[i];
		if (strlen(s) != 3 || s[0] < '1' || s[0] > '9' || strspn(s + 1, "0123456789xX") != 2)
			return fail(l, KN_EINVAL, v[2]->kids[i]->line, v[2]->kids[i]->col,
			            "blocked.http_status[%zu]: expected a status such as 403 or a class such as 5xx", i);
	}
	return rc;
}

static int load_alerts(loader *l, kn_config *c, const node *s)
{
	static const char *const names[] = { "type", "url" };
	size_t n;
	int rc;
	char path[48], sub[64];
	if ((rc = items_of(l, s, "alerts", &n)) != 0 || n == 0)
		return rc;
	if (!(c->alerts = calloc(n, sizeof *c->alerts)))
		return fail(l, KN_ENOMEM, s->line, s->col, "out of memory");
	for (size_t i = 0; i < n; i++) {
		const node *it = s->kids[i], *v[2];
		kn_config_alert *a = &c->alerts[c->n_alerts++];
		snprintf(path, sizeof path, "alerts[%zu]", i);
		if (is_null(it))
			return fail(l, KN_EINVAL, it->line, it->col, "%s: expected a mapping", path);
		if ((rc = fields_of(l, it, path, names, 2, v)) != 0)
			return rc;
		if (!SET(v[0]) || !SET(v[1]))
			return fail(l, KN_EINVAL, it->line, it->col, "%s: missing key %s", path,
			            SET(v[0]) ? "url" : "type");
		const char *type = v[0]->type == N_SCALAR ? v[0]->val : "";
		if (strcmp(type, "webhook") == 0)
			a->type = KN_ALERT_WEBHOOK;
		else if (strcmp(type, "slack") == 0)
			a->type = KN_ALERT_SLACK;
		else
			return fail(l, KN_EINVAL, v[0]->line, v[0]->col, "%s.type: expected webhook or slack",
			            path);
		snprintf(sub, sizeof sub, "%s.url", path);
		if ((rc = get_str(l, v[1], sub, &a->url, 1)) != 0)
			return rc;
	}
	return 0;
}

/* schedules[i].tasks as a list of task references: refs[], and tasks = the refs joined by ", "
 * (for messages; the scheduler reads refs). */
static int load_schedule_refs(loader *l, kn_config_schedule *sc, const node *s, const char *path)
{
	size_t n, len = 1;
	int rc;
	char sub[96];
	if ((rc = items_of(l, s, path, &n)) != 0)
		return rc;
	if (n == 0)
		return fail(l, KN_EINVAL, s->line, s->col, "%s: expected at least one task reference", path);
	if (!(sc->refs = calloc(n, sizeof *sc->refs)))
		return fail(l, KN_ENOMEM, s->line, s->col, "out of memory");
	for (size_t i = 0; i < n; i++) {
		snprintf(sub, sizeof sub, "%s[%zu]", path, i);
		if ((rc = get_str(l, s->kids[i], sub, &sc->refs[sc->n_refs], 1)) != 0)
			return rc;
		len += strlen(sc->refs[sc->n_refs++]) + 2;
	}
	if (!(sc->tasks = malloc(len)))
		return fail(l, KN_ENOMEM, s->line, s->col, "out of memory");
	sc->tasks[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (i)
			strcat(sc->tasks, ", ");
		strcat(sc->tasks, sc->refs[i]);
	}
	return 0;
}

static int load_schedules(loader *l, kn_config *c, const node *s)
{
	static const char *const names[] = { "name", "cron", "tasks" };
	size_t n;
	int rc;
	char path[48], sub[64];
	if ((rc = items_of(l, s, "schedules", &n)) != 0 || n == 0)
		return rc;
	if (!(c->schedules = calloc(n, sizeof *c->schedules)))
		return fail(l, KN_ENOMEM, s->line, s->col, "out of memory");
	for (size_t i = 0; i < n; i++) {
		const node *it = s->kids[i], *v[3];
		kn_config_schedule *sc = &c->schedules[c->n_schedules++];
		snprintf(path, sizeof path, "schedules[%zu]", i);
		if (is_null(it))
			return fail(l, KN_EINVAL, it->line, it->col, "%s: expected a mapping", path);
		if ((rc = fields_of(l, it, path, names, 3, v)) != 0)
			return rc;
		if (!SET(v[0]) || !SET(v[1]))
			return fail(l, KN_EINVAL, it->line, it->col, "%s: missing key %s", path,
			            SET(v[0]) ? "cron" : "name");
		snprintf(sub, sizeof sub, "%s.name", path);
		if ((rc = get_str(l, v[0], sub, &sc->name, 1)) != 0)
			return rc;
		for (size_t j = 0; j < i; j++)
			if (strcmp(c->schedules[j].name, sc->name) == 0)
				return fail(l, KN_EINVAL, v[0]->line, v[0]->col,
				            "%s: schedule name '%.64s' is used twice", sub, sc->name);
		snprintf(sub, sizeof sub, "%s.cron", path);
		if ((rc = get_str(l, v[1], sub, &sc->cron, 1)) != 0)
			return rc;
		/* Only checked, so that a bad one fails here with its place; the scheduler compiles it. */
		kn_err cerr = { 0 };
		if ((rc = kn_cron_check(sc->cron, &cerr)) != 0)
			return fail(l, rc, v[1]->line, v[1]->col, "%s: %s", sub, cerr.msg);
		snprintf(sub, sizeof sub, "%s.tasks", path);
		if (SET(v[2]) && v[2]->type == N_SEQ) {
			if ((rc = load_schedule_refs(l, sc, v[2], sub)) != 0)
				return rc;
		} else if (SET(v[2])) {
			if ((rc = get_str(l, v[2], sub, &sc->tasks, 1)) != 0)
				return rc;
		} else if (!(sc->tasks = strdup("all"))) {
			return fail(l, KN_ENOMEM, it->line, it->col, "out of memory");
		}
	}
	return 0;
}

static int load_root(loader *l, kn_config *c, const node *root)
{
	static const char *const names[] = { "database", "http", "browsers", "semantic",
		                             "verdict_cache", "alerts", "schedules", "health", "sites",
		                             "blocked", "agents", "trace", "replay", "region", "guard",
		                             "end_on_guard", "redact", "retention", "canary" };
	const node *v[19], *w[2];
	int rc;
	if ((rc = fields_of(l, root, "", names, 19, v)) != 0)
		return rc;
	if (v[18] && (rc = kn_config_load_canary(l, c, v[18])) != 0)
		return rc;
	if (v[17] && (rc = kn_config_load_retention(l, c, v[17])) != 0)
		return rc;
	if (v[14] && (rc = kn_config_load_guard(l, c, v[14])) != 0)
		return rc;
	if (v[15] && (rc = kn_config_load_end_on_guard(l, c, v[15])) != 0)
		return rc;
	if (v[16] && (rc = kn_config_load_redact(l, c, v[16])) != 0)
		return rc;
	if (SET(v[13]) && (rc = get_str(l, v[13], "region", &c->region, 1)) != 0)
		return rc;
	if (v[12] && (rc = kn_config_load_replay(l, c, v[12])) != 0)
		return rc;
	if (v[11] && (rc = kn_config_load_trace(l, c, v[11])) != 0)
		return rc;
	if (v[10] && (rc = kn_config_load_agents(l, c, v[10])) != 0)
		return rc;
	if (v[9] && (rc = load_blocked(l, c, v[9])) != 0)
		return rc;
	if (v[8] && (rc = load_sites(l, c, v[8])) != 0)
		return rc;
	if (v[0]) {
		static const char *const dn[] = { "url" };
		if ((rc = fields_of(l, v[0], "database", dn, 1, w)) != 0)
			return rc;
		if (SET(w[0]) && (rc = get_str(l, w[0], "database.url", &c->database_url, 1)) != 0)
			return rc;
	}
	if (v[1]) {
		static const char *const hn[] = { "listen", "token", "hosts", "origins",
		                                  "stream_idle_s", "max_run_events", "trusted_proxies",
		                                  "advertise", "orphan_sweep_s", "live_view_public",
		                                  "takeover_idle_s", "live_view_max_s", "tokens" };
		const node *h[13];
		long x;
		if ((rc = fields_of(l, v[1], "http", hn, 13, h)) != 0)
			return rc;
		if (h[12] && (rc = kn_config_load_tokens(l, c, h[12])) != 0)
			return rc;
		if (SET(h[11])) {
			if ((rc = get_long(l, h[11], "http.live_view_max_s", 10, 86400, &x)) != 0)
				return rc;
			c->http_live_view_max_s = (int)x;
		}
		if (SET(h[9])) { /* the live view */
			if (h[9]->type != N_SCALAR || (strcmp(h[9]->val, "true") && strcmp(h[9]->val, "false")))
				return fail(l, KN_EINVAL, h[9]->line, h[9]->col, "http.live_view_public: expected true or false");
			c->http_live_view_public = strcmp(h[9]->val, "true") == 0;
		}
		if (SET(h[10])) {
			if ((rc = get_long(l, h[10], "http.takeover_idle_s", 10, 3600, &x)) != 0)
				return rc;
			c->http_takeover_idle_s = (int)x;
		}
		if (SET(h[7])) {
			if ((rc = get_str(l, h[7], "http.advertise", &c->http_advertise, 1)) != 0)
				return rc;
			if (!kn_config_address_ok(c->http_advertise))
				return fail(l, KN_EINVAL, h[7]->line, h[7]->col, "http.advertise: expected HOST:PORT "
				            "(a name, an IPv4 address or [IPv6], and a port 1-65535)");
		}
		if (SET(h[8])) {
			if ((rc = get_long(l, h[8], "http.orphan_sweep_s", 1, 3600, &x)) != 0)
				return rc;
			c->http_orphan_sweep_s = (int)x;
		}
		if (h[6] && (rc = load_strings(l, h[6], "http.trusted_proxies", &c->http_proxies,
		                                &c->n_http_proxies)) != 0)
			return rc;
		if (SET(h[0]) && (rc = get_str(l, h[0], "http.listen", &c->http_listen, 1)) != 0)
			return rc;
		if (SET(h[1]) && (rc = get_str(l, h[1], "http.token", &c->http_token, 1)) != 0)
			return rc;
		if (h[2] && (rc = load_strings(l, h[2], "http.hosts", &c->http_hosts,
		                                &c->n_http_hosts)) != 0)
			return rc;
		if (h[3] && (rc = load_strings(l, h[3], "http.origins", &c->http_origins,
		                                &c->n_http_origins)) != 0)
			return rc;
		if (SET(h[4])) {
			if ((rc = get_long(l, h[4], "http.stream_idle_s", 1, 3600, &x)) != 0)
				return rc;
			c->http_stream_idle_s = (int)x;
		}
		if (SET(h[5])) {
			if ((rc = get_long(l, h[5], "http.max_run_events", 1, 100000000, &x)) != 0)
				return rc;
			c->http_max_run_events = x;
		}
	}
	if (v[2] && (rc = load_strings(l, v[2], "browsers", &c->browsers, &c->n_browsers)) != 0)
		return rc;
	if (v[3] && (rc = load_semantic(l, c, v[3])) != 0)
		return rc;
	if (SET(v[4]) && (rc = get_str(l, v[4], "verdict_cache", &c->verdict_cache, 1)) != 0)
		return rc;
	if (v[5] && (rc = load_alerts(l, c, v[5])) != 0)
		return rc;
	if (v[6] && (rc = load_schedules(l, c, v[6])) != 0)
		return rc;
	if (v[7]) {
		static const char *const hn[] = { "broken_after" };
		long b;
		if ((rc = fields_of(l, v[7], "health", hn, 1, w)) != 0)
			return rc;
		if (SET(w[0])) {
			if ((rc = get_long(l, w[0], "health.broken_after", 1, 1000, &b)) != 0)
				return rc;
			c->health_broken_after = (int)b;
		}
	}
	return 0;
}

int kn_config_address_ok(const char *s)
{
	const char *colon = s ? strrchr(s, ':') : NULL;
	if (!colon || colon == s || strlen(s) > 261)
		return 0;
	const char *p = colon + 1;
	long port = 0;
	if (!*p || strlen(p) > 5 || strspn(p, "0123456789") != strlen(p) || *p == '0')
		return 0;
	port = strtol(p, NULL, 10);
	if (port < 1 || port > 65535)
		return 0;
	size_t hn = (size_t)(colon - s);
	if (s[0] == '[') /* [IPv6] */
		return hn > 2 && s[hn - 1] == ']' &&
		       strspn(s + 1, "0123456789abcdefABCDEF:.") == hn - 2;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_") == hn &&
	       s[0] != '-' && s[0] != '.';
}

/* config_internal.h: the helpers above for the section loaders in other files */
int kn_config_is_null(const node *n) { return is_null(n); }
int kn_config_load_strings(loader *l, const node *s, const char *key, char ***v, size_t *n)
{
	return load_strings(l, s, key, v, n);
}
int kn_config_fields(loader *l, const node *m, const char *path, const char *const *names, int n,
                     const node **vals) { return fields_of(l, m, path, names, n, vals); }
int kn_config_get_str(loader *l, const node *n, const char *path, char **dst, int nonempty)
{ return get_str(l, n, path, dst, nonempty); }
int kn_config_get_long(loader *l, const node *n, const char *path, long lo, long hi, long *dst)
{ return get_long(l, n, path, lo, hi, dst); }

/* The defaults (config.h), then the environment overrides. */
static int defaults(kn_config **out, kn_err *err)
{
	kn_config *c = calloc(1, sizeof *c);
	*out = c;
	if (!c || !(c->http_listen = strdup("127.0.0.1:8080")))
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	c->semantic.backend = KN_CONFIG_OFFLINE;
	c->semantic.threshold = 0.7;
	c->semantic.llm.timeout_ms = 30000;
	c->health_broken_after = 2;
	c->blocked.enabled = c->blocked.geo = 1;
	c->redact.enabled = 1;
	c->http_stream_idle_s = 60;
	c->http_takeover_idle_s = 120;
	c->http_live_view_max_s = 3600;
	c->http_max_run_events = 1000000;
	c->http_orphan_sweep_s = 30;
	return 0;
}

static int apply_env(kn_config *c, kn_err *err)
{
	static const char *const vars[] = { "KEYNODE_DATABASE_URL", "KEYNODE_API_TOKEN" };
	char **dst[] = { &c->database_url, &c->http_token };
	for (int i = 0; i < 2; i++) {
		const char *v = getenv(vars[i]);
		if (!v || !*v)
			continue;
		char *s = strdup(v);
		if (!s)
			return kn_err_set(err, KN_ENOMEM, "out of memory");
		free(*dst[i]);
		*dst[i] = s;
	}
	return 0;
}

int kn_config_new(kn_config **out, kn_err *err)
{
	int rc = defaults(out, err);
	if (!rc)
		rc = apply_env(*out, err);
	if (rc) {
		kn_config_free(*out);
		*out = NULL;
	}
	return rc;
}

int kn_config_load_buffer(kn_config **out, const char *buf, size_t len, const char *name,
                          kn_err *err)
{
	loader l = { .name = name ? name : "keynode.yaml", .err = err };
	node *root = NULL;
	*out = NULL;
	if (len > KN_CONFIG_MAX_BYTES)
		return fail(&l, KN_ELIMIT, 1, 1, "larger than %u bytes", KN_CONFIG_MAX_BYTES);
	kn_config *c;
	int rc = defaults(&c, err);
	if (!rc)
		rc = build_doc(&l, buf, len, &root);
	if (!rc && root)
		rc = load_root(&l, c, root);
	if (!rc)
		rc = apply_env(c, err);
	node_free(root);
	if (rc) {
		kn_config_free(c);
		return rc;
	}
	*out = c;
	return 0;
}

int kn_config_load(kn_config **out, const char *path, kn_err *err)
{
	*out = NULL;
	FILE *f = fopen(path, "rb");
	if (!f)
		return kn_err_set(err, KN_EIO, "%s: cannot open: %s", path, strerror(errno));
	size_t cap = KN_CONFIG_MAX_BYTES + 1, len;
	char *buf = malloc(cap);
	if (!buf) {
		fclose(f);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	len = fread(buf, 1, cap, f);
	int bad = ferror(f);
	fclose(f);
	int rc;
	if (bad)
		rc = kn_err_set(err, KN_EIO, "%s: cannot read", path);
	else
		rc = kn_config_load_buffer(out, buf, len, path, err);
	free(buf);
	return rc;
}
