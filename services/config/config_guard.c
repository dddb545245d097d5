/* config_guard.c — keynode.yaml's `guard:`, `end_on_guard:` and `redact:`: the guard
 * rules every live run the service, the worker and the CLI start holds requests by (beside the
 * task's and its task set's), and what is redacted beyond the built-in rules (keynode/redact.h):
 *   guard:
 *     - { method: POST, url: { include: "/api/orders" } }
 *     - { method: POST, url: { include: "/wp-comments-post.php" }, respond: { status: 403 } }
 *   end_on_guard: true          # a held request ends the run (default true)
 *   canary: { timeout_ms: 5000 } # a guarded run's canary must be held this fast (100..60000)
 *   redact:
 *     enabled: true             # false: write secrets in clear (never on a shared machine)
 *     fields: [nonce]           # extra field / query parameter name words
 *     headers: [x-session]      # extra header names
 * A rule goes through the same JSON form as Mind2Web-Live's request_match (kn_guard_add_json)
 * and the loaders' one check (rule_check.h: empty, match-all, never applies); its errors carry
 * the rule's line and column. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "config_internal.h"
#include "keynode/guard.h"
#include "keynode/redact.h"
#include "keynode/rule_check.h"

/* A node as JSON, scalars as strings. NULL when out of memory. */
static json_t *to_json(const node *n)
{
	if (n->type == N_SCALAR)
		return json_stringn(n->val, n->len);
	json_t *j = n->type == N_MAP ? json_object() : json_array();
	for (size_t i = 0; j && i < n->n; i += n->type == N_MAP ? 2 : 1) {
		json_t *v = to_json(n->kids[i + (n->type == N_MAP)]);
		int bad = !v || (n->type == N_MAP ? json_object_set_new(j, n->kids[i]->val, v)
		                                  : json_array_append_new(j, v));
		if (bad) {
			json_decref(j);
			return NULL;
		}
	}
	return j;
}

static kn_guard *guard_of(kn_config *c)
{
	if (!c->guard && (c->guard = calloc(1, sizeof *c->guard)) != NULL)
		c->guard->end_on_guard = -1;
	return c->guard;
}

int kn_config_load_guard(loader *l, kn_config *c, const node *s)
{
	if (kn_config_is_null(s))
		return 0;
	if (s->type != N_SEQ)
		return kn_config_fail(l, KN_EINVAL, s->line, s->col, "guard: expected a list of rules");
	if (!guard_of(c))
		return kn_config_fail(l, KN_ENOMEM, s->line, s->col, "out of memory");
	for (size_t i = 0; i < s->n; i++) {
		const node *r = s->kids[i];
		json_t *j = to_json(r);
		kn_err e = {0};
		int rc = j ? kn_guard_add_json(c->guard, j, &e) : KN_ENOMEM;
		json_decref(j);
		if (rc)
			return kn_config_fail(l, rc, r->line, r->col, "guard[%zu]: %s", i,
			                      j ? e.msg : "out of memory");
		char why[300];
		const kn_request_spec *spec = c->guard->rules[c->guard->n - 1].spec;
		if ((rc = kn_rule_check(spec, spec->websocket ? "websocket guard rule" : "guard rule", why,
		                        sizeof why)) != 0)
			return kn_config_fail(l, rc, r->line, r->col, "guard[%zu]: %s", i, why);
		c->guard->rules[c->guard->n - 1].line = r->line;
		c->guard->rules[c->guard->n - 1].column = r->col;
	}
	return 0;
}

int kn_config_load_canary(loader *l, kn_config *c, const node *m)
{
	static const char *const names[] = { "timeout_ms" };
	const node *v[1];
	long x;
	int rc;
	if ((rc = kn_config_fields(l, m, "canary", names, 1, v)) != 0)
		return rc;
	if (v[0] && !kn_config_is_null(v[0])) {
		if ((rc = kn_config_get_long(l, v[0], "canary.timeout_ms", 100, 60000, &x)) != 0)
			return rc;
		c->canary_timeout_ms = (int)x;
	}
	return 0;
}

static int get_bool(loader *l, const node *n, const char *path, int *out)
{
	if (n->type != N_SCALAR || (strcmp(n->val, "true") && strcmp(n->val, "false")))
		return kn_config_fail(l, KN_EINVAL, n->line, n->col, "%s: expected true or false", path);
	*out = strcmp(n->val, "true") == 0;
	return 0;
}

int kn_config_load_end_on_guard(loader *l, kn_config *c, const node *n)
{
	if (kn_config_is_null(n))
		return 0;
	if (!guard_of(c))
		return kn_config_fail(l, KN_ENOMEM, n->line, n->col, "out of memory");
	return get_bool(l, n, "end_on_guard", &c->guard->end_on_guard);
}

int kn_config_load_redact(loader *l, kn_config *c, const node *m)
{
	static const char *const names[] = { "enabled", "fields", "headers" };
	const node *v[3];
	int rc;
	if ((rc = kn_config_fields(l, m, "redact", names, 3, v)) != 0)
		return rc;
	if (v[0] && !kn_config_is_null(v[0]) && (rc = get_bool(l, v[0], "redact.enabled", &c->redact.enabled)) != 0)
		return rc;
	if (v[1] && (rc = kn_config_load_strings(l, v[1], "redact.fields", &c->redact.fields,
	                                         &c->redact.n_fields)) != 0)
		return rc;
	if (v[2] && (rc = kn_config_load_strings(l, v[2], "redact.headers", &c->redact.headers,
	                                         &c->redact.n_headers)) != 0)
		return rc;
	return 0;
}

void kn_config_redact_rules(kn_redact *out, const kn_config *c)
{
	memset(out, 0, sizeof *out);
	if (!c)
		return;
	out->off = !c->redact.enabled;
	out->fields = (const char *const *)c->redact.fields;
	out->n_fields = c->redact.n_fields;
	out->headers = (const char *const *)c->redact.headers;
	out->n_headers = c->redact.n_headers;
}
