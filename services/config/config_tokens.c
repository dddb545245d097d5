/* config_tokens.c — keynode.yaml's `http.tokens`: API tokens with a name each, the
 * author the maintenance log records for a change made with that token:
 *   http:
 *     tokens:
 *       - { name: alice, token: "…" }
 *       - { name: ci, token: "…" }
 * Every one may read and write as http.token does (which stays, named "default"). A name is 1 to 64
 * bytes of A-Z a-z 0-9 . _ - and not "default"; names and tokens are unique. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_internal.h"

static int name_ok(const char *s)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-";
	size_t n = strlen(s);
	return n >= 1 && n <= 64 && strspn(s, ok) == n && strcmp(s, "default") != 0;
}

int kn_config_load_tokens(loader *l, kn_config *c, const node *s)
{
	static const char *const names[] = { "name", "token" };
	if (kn_config_is_null(s))
		return 0;
	if (s->type != N_SEQ)
		return kn_config_fail(l, KN_EINVAL, s->line, s->col, "http.tokens: expected a sequence");
	if (s->n == 0)
		return 0;
	if (!(c->http_tokens = calloc(s->n, sizeof *c->http_tokens)))
		return kn_config_fail(l, KN_ENOMEM, s->line, s->col, "out of memory");
	char path[48], sub[64];
	for (size_t i = 0; i < s->n; i++) {
		const node *it = s->kids[i], *v[2];
		struct kn_config_token *t = &c->http_tokens[c->n_http_tokens++];
		snprintf(path, sizeof path, "http.tokens[%zu]", i);
		int rc;
		if (kn_config_is_null(it) || it->type != N_MAP)
			return kn_config_fail(l, KN_EINVAL, it->line, it->col, "%s: expected a mapping {name, token}", path);
		if ((rc = kn_config_fields(l, it, path, names, 2, v)) != 0)
			return rc;
		if (!v[0] || kn_config_is_null(v[0]) || !v[1] || kn_config_is_null(v[1]))
			return kn_config_fail(l, KN_EINVAL, it->line, it->col, "%s: missing key %s", path,
			                      !v[0] || kn_config_is_null(v[0]) ? "name" : "token");
		snprintf(sub, sizeof sub, "%s.name", path);
		if ((rc = kn_config_get_str(l, v[0], sub, &t->name, 1)) != 0)
			return rc;
		if (!name_ok(t->name))
			return kn_config_fail(l, KN_EINVAL, v[0]->line, v[0]->col,
			                      "%s: 1 to 64 bytes of A-Z a-z 0-9 . _ -, and not \"default\"", sub);
		snprintf(sub, sizeof sub, "%s.token", path);
		if ((rc = kn_config_get_str(l, v[1], sub, &t->token, 1)) != 0)
			return rc;
		for (size_t j = 0; j + 1 < c->n_http_tokens; j++) {
			if (strcmp(c->http_tokens[j].name, t->name) == 0)
				return kn_config_fail(l, KN_EINVAL, v[0]->line, v[0]->col, "%s.name: '%s' is already used", path,
				                      t->name);
			if (strcmp(c->http_tokens[j].token, t->token) == 0)
				return kn_config_fail(l, KN_EINVAL, v[1]->line, v[1]->col,
				                      "%s.token: the same token as http.tokens[%zu]", path, j);
		}
	}
	return 0;
}
