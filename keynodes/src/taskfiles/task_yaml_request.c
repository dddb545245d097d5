/* task_yaml_request.c — a request spec in a YAML task file (request.h): the value of a `request`
 * key node, `{ method: POST, url: { include: "/api/orders" }, body: { qty: { exact: "2" } } }`,
 * or of a `websocket` one, `{ url: { include: "/live" }, message: { action: { exact: "x" } } }`
 * (a guard rule names it as `- websocket: {…}`). The URL takes every URL matcher and `key` (a
 * query parameter), each body or message field every value matcher; errors carry the position
 * of what is wrong, as the other key nodes' do. A guard rule and a request or websocket key node
 * then go through kn_rule_check (rule_check.h) at their position. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keynode/guard.h"
#include "keynode/request.h"
#include "keynode/rule_check.h"

#include "task_yaml_internal.h"

#define KN_REQUEST_MAX_FIELDS 100

/* A matcher mapping { MATCHER: "value" [, key: name] } (key only when allow_key). */
static int read_matcher(loader *l, const char *what, int allow_key, kn_matcher *m, char **expect,
                        char **key, pos *at)
{
	yev k;
	int rc, end, have = 0;
	char c[72];
	if ((rc = kn_ty_open_mapping(l, "a request matcher is a mapping with one of exact, include, "
	                                "semantic or regex, such as { include: \"/api\" }; ", at)) != 0)
		return rc;
	for (;;) {
		if ((rc = kn_ty_read_key(l, &k, &end)) != 0)
			return rc;
		if (end)
			break;
		if (allow_key && k.len == 3 && !memcmp(k.val, "key", 3)) {
			if (*key)
				return kn_ty_fail(l, KN_EINVAL, k.at, "duplicate key 'key'");
			if ((rc = kn_ty_read_text(l, "key", 0, key, NULL)) != 0)
				return rc;
			continue;
		}
		int mi = kn_matcher_from_name(k.val, k.len);
		if (mi < 0 || mi > KN_MATCH_REGEX)
			return kn_ty_fail(l, KN_EINVAL, k.at, "unknown matcher '%s' in %s (expected exact, "
			                  "include, semantic or regex%s)", kn_ty_clip(c, sizeof c, k.val),
			                  what, allow_key ? ", and optionally key" : "");
		if (have++)
			return kn_ty_fail(l, KN_EINVAL, k.at, "%s has two matchers (it has exactly one)", what);
		*m = (kn_matcher)mi;
		if ((rc = kn_ty_read_text(l, kn_matcher_name(*m), mi != KN_MATCH_SEMANTIC && mi != KN_MATCH_REGEX,
		                          expect, NULL)) != 0)
			return rc;
	}
	if (!have)
		return kn_ty_fail(l, KN_EINVAL, *at, "%s has no matcher (expected exact, include, "
		                  "semantic or regex)", what);
	return 0;
}

/* body (a request's) or message (a websocket's): field name to matcher. */
static int read_body(loader *l, kn_request_spec *s)
{
	yev k;
	int rc, end;
	const char *part = s->websocket ? "message" : "body";
	if ((rc = kn_ty_open_mapping(l, s->websocket
	                                    ? "'message' must be a mapping of field name to matcher, such as "
	                                      "{ action: { exact: \"place_order\" } }; "
	                                    : "'body' must be a mapping of field name to matcher, such as "
	                                      "{ qty: { exact: \"2\" } }; ", NULL)) != 0)
		return rc;
	for (;;) {
		if ((rc = kn_ty_read_key(l, &k, &end)) != 0)
			return rc;
		if (end)
			return 0;
		if (s->n_fields >= KN_REQUEST_MAX_FIELDS)
			return kn_ty_fail(l, KN_ELIMIT, k.at, "'%s' has more than %d fields", part,
			                  KN_REQUEST_MAX_FIELDS);
		pos kat = k.at, at;
		char *name = kn_ty_dupn(k.val, k.len), *expect = NULL, *key = NULL, what[112], c[72];
		if (!name)
			return kn_ty_oom(l);
		for (size_t i = 0; i < s->n_fields; i++)
			if (strcmp(s->fields[i].key, name) == 0) {
				rc = kn_ty_fail(l, KN_EINVAL, kat, "duplicate %s field '%s'", part,
				                kn_ty_clip(c, sizeof c, name));
				free(name);
				return rc;
			}
		snprintf(what, sizeof what, "%s field '%s'", part, kn_ty_clip(c, sizeof c, name));
		kn_matcher m = KN_MATCH_EXACT;
		kn_err e = {0};
		rc = read_matcher(l, what, 0, &m, &expect, &key, &at);
		if (!rc && (rc = kn_request_spec_add_field(s, NULL, name, m, expect, &e)) != 0)
			rc = kn_ty_fail(l, rc, at, "%s: %s", what, e.msg);
		free(name);
		free(expect);
		free(key);
		if (rc)
			return rc;
	}
}

/* a request key node reads the keys before RQ_RESPOND; a guard rule all of them */
enum { RQ_METHOD, RQ_URL, RQ_BODY, RQ_MATCH_ALL, RQ_RESPOND, RQ_WEBSOCKET, N_RQ };
static const char *const request_keys[N_RQ] = {"method", "url", "body", "match_all", "respond",
                                               "websocket"};
enum { WS_URL, WS_MESSAGE, WS_MATCH_ALL, N_WS };
static const char *const websocket_keys[N_WS] = {"url", "message", "match_all"};

/* 'url': its matcher into s. */
static int read_url(loader *l, kn_request_spec *s)
{
	kn_matcher m = KN_MATCH_EXACT;
	char *expect = NULL, *key = NULL;
	pos uat;
	kn_err e = {0};
	int rc = read_matcher(l, "'url'", 1, &m, &expect, &key, &uat);
	if (!rc && (rc = kn_request_spec_set_url(s, m, expect, key, &e)) != 0)
		rc = kn_ty_fail(l, rc, uat, "'url': %s", e.msg);
	free(expect);
	free(key);
	return rc;
}

int kn_ty_parse_websocket(loader *l, kn_request_spec **out, pos *at)
{
	int rc, w;
	unsigned seen = 0;
	kn_request_spec *s = calloc(1, sizeof *s);
	if (!s)
		return kn_ty_oom(l);
	*out = s; /* the caller's even on failure */
	s->websocket = 1;
	if ((rc = kn_ty_open_mapping(l, "'websocket' must be a mapping of url and message, such as "
	                                "{ url: { include: \"/live\" }, message: { action: { exact: "
	                                "\"place_order\" } } }; ", at)) != 0)
		return rc;
	for (;;) {
		if ((rc = kn_ty_read_field(l, websocket_keys, N_WS, "websocket", &seen, NULL, &w)) != 0)
			return rc;
		if (w < 0)
			return 0;
		if ((rc = w == WS_URL ? read_url(l, s)
		        : w == WS_MATCH_ALL ? kn_ty_read_bool(l, "match_all", &s->match_all)
		        : read_body(l, s)) != 0)
			return rc;
	}
}

/* A guard rule's respond: error, or { status, body }. */
static int read_respond(loader *l, kn_guard_rule *rule)
{
	yev e, k;
	int rc, end;
	if ((rc = kn_ty_next_event(l, &e)) != 0)
		return rc;
	if (e.type == YAML_SCALAR_EVENT && e.len == 5 && !memcmp(e.val, "error", 5)) {
		rule->fail = 1;
		return 0;
	}
	if (e.type != YAML_MAPPING_START_EVENT)
		return kn_ty_fail(l, KN_EINVAL, e.at, "'respond' is error or { status: 403, body: \"...\" }; "
		                  "found %s", kn_ty_found(l, &e));
	for (;;) {
		if ((rc = kn_ty_read_key(l, &k, &end)) != 0)
			return rc;
		if (end)
			return 0;
		if (k.len == 6 && !memcmp(k.val, "status", 6)) {
			yev v;
			long long n;
			if ((rc = kn_ty_next_event(l, &v)) != 0 ||
			    (rc = kn_ty_take_count(l, &v, "status", 599, &n)) != 0)
				return rc;
			if (n < 100)
				return kn_ty_fail(l, KN_EINVAL, v.at, "'status' is an HTTP status, 100 to 599");
			rule->status = (int)n;
		} else if (k.len == 4 && !memcmp(k.val, "body", 4) && !rule->body) {
			if ((rc = kn_ty_read_text(l, "body", 1, &rule->body, NULL)) != 0)
				return rc;
		} else {
			char c[72];
			return kn_ty_fail(l, KN_EINVAL, k.at, "unknown key '%s' in 'respond' (expected status "
			                  "or body)", kn_ty_clip(c, sizeof c, k.val));
		}
	}
}

int kn_ty_parse_request(loader *l, kn_request_spec **out, pos *at, kn_guard_rule *rule,
                        const yev *start)
{
	int rc, w;
	unsigned seen = 0;
	kn_request_spec *s = calloc(1, sizeof *s);
	if (!s)
		return kn_ty_oom(l);
	*out = s; /* the caller's even on failure */
	if (start && start->type != YAML_MAPPING_START_EVENT)
		return kn_ty_fail(l, KN_EINVAL, start->at, "a guard rule is a mapping of method, url, body "
		                  "and respond, such as { method: POST, url: { include: \"/api/orders\" } }; "
		                  "found %s", kn_ty_found(l, start));
	if (!start && (rc = kn_ty_open_mapping(l, rule ? "a guard rule is a mapping of method, url, body and "
	                                       "respond, such as { method: POST, url: { include: "
	                                       "\"/api/orders\" } }; "
	                                     : "'request' must be a mapping of method, url and body, such as "
	                                       "{ method: POST, url: { include: \"/api/orders\" } }; ",
	                             at)) != 0)
		return rc;
	if (start && at)
		*at = start->at;
	for (;;) {
		if ((rc = kn_ty_read_field(l, request_keys, rule ? N_RQ : RQ_RESPOND,
		                           rule ? "guard rule" : "request", &seen, NULL, &w)) != 0)
			return rc;
		if (w < 0)
			return 0;
		/* a websocket rule is `- websocket: {url, message}` and nothing beside it: a message is
		 * dropped, never answered, so respond has no meaning there */
		if (w == RQ_WEBSOCKET || (seen & (1u << RQ_WEBSOCKET))) {
			if (w != RQ_WEBSOCKET || seen != (1u << RQ_WEBSOCKET))
				return kn_ty_fail(l, KN_EINVAL, start->at, "a websocket guard rule has only "
				                  "'websocket' (no method, url, body, match_all or respond beside "
				                  "it; match_all goes inside 'websocket')");
			kn_request_spec_free(s);
			if ((rc = kn_ty_parse_websocket(l, out, NULL)) != 0)
				return rc;
			s = *out;
			continue;
		}
		if (w == RQ_RESPOND) {
			if ((rc = read_respond(l, rule)) != 0)
				return rc;
		} else if (w == RQ_MATCH_ALL) {
			if ((rc = kn_ty_read_bool(l, "match_all", &s->match_all)) != 0)
				return rc;
		} else if (w == RQ_METHOD) {
			char *m = NULL;
			pos mat;
			kn_err e = {0};
			if ((rc = kn_ty_read_text(l, "method", 0, &m, &mat)) != 0)
				return rc;
			rc = kn_request_spec_set_method(s, m, &e);
			free(m);
			if (rc)
				return kn_ty_fail(l, rc, mat, "%s", e.msg);
		} else if (w == RQ_URL) {
			if ((rc = read_url(l, s)) != 0)
				return rc;
		} else if ((rc = read_body(l, s)) != 0) {
			return rc;
		}
	}
}

/* One guard list item. */
static int guard_item(loader *l, void *ud, const yev *start)
{
	kn_guard *g = ud;
	if (g->n >= KN_GUARD_MAX_RULES)
		return kn_ty_fail(l, KN_ELIMIT, start->at, "'guard' has more than %d rules", KN_GUARD_MAX_RULES);
	kn_guard_rule *nr = realloc(g->rules, (g->n + 1) * sizeof *nr);
	if (!nr)
		return kn_ty_oom(l);
	g->rules = nr;
	kn_guard_rule *r = &nr[g->n++];
	memset(r, 0, sizeof *r);
	r->line = start->at.line;
	r->column = start->at.col;
	int rc = kn_ty_parse_request(l, &r->spec, NULL, r, start);
	return rc ? rc : kn_ty_check_rule(l, r->spec, r->spec->websocket ? "websocket guard rule"
	                                                                  : "guard rule", start->at);
}

int kn_ty_check_rule(loader *l, const kn_request_spec *s, const char *what, pos at)
{
	char why[300];
	return kn_rule_check(s, what, why, sizeof why) ? kn_ty_fail(l, KN_EINVAL, at, "%s", why) : 0;
}

int kn_ty_parse_guard(loader *l, kn_guard *g)
{
	return kn_ty_parse_list(l, "guard", "guard rules", guard_item, g, NULL);
}
