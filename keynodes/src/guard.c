/* guard.c — guard rules (guard.h): their JSON form (keynode.yaml's `guard:` goes through it, a stored
 * task's definition is written in it; a websocket rule is {websocket: {url, message}}), the
 * match of a request or WebSocket message against them, and the page a held navigation shows. The YAML form of a task
 * file is read by task_yaml_request.c into the same struct. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "keynode/guard.h"

const char *kn_guard_page_html(void)
{
	return "<!doctype html><html><head><meta charset=\"utf-8\"><title>Held by keynode</title></head>"
	       "<body><h1 id=\"keynode-held\">Held by keynode</h1><p>This request was held by a guard "
	       "rule and never reached the site.</p></body></html>";
}

int kn_guard_add_json(kn_guard *g, const json_t *rule, kn_err *err)
{
	if (g->n >= KN_GUARD_MAX_RULES)
		return kn_err_set(err, KN_ELIMIT, "more than %d guard rules", KN_GUARD_MAX_RULES);
	if (!json_is_object(rule))
		return kn_err_set(err, KN_EINVAL, "a guard rule is an object {method, url, body, respond}");
	json_t *spec = json_deep_copy(rule);
	if (!spec)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	kn_guard_rule r = {0};
	json_t *resp = json_object_get(spec, "respond"), *ws = json_object_get(spec, "websocket");
	int rc = 0;
	/* a websocket rule is {websocket: {url, message}} alone: a held message is dropped, not answered */
	if (ws && json_object_size(spec) != 1)
		rc = kn_err_set(err, KN_EINVAL, "websocket: a websocket rule has no method, url, body or respond "
		                                "beside it");
	if (resp) {
		json_t *st = json_object_get(resp, "status"), *body = json_object_get(resp, "body");
		if (json_is_string(resp) && strcmp(json_string_value(resp), "error") == 0)
			r.fail = 1;
		else if (!json_is_object(resp) || json_object_size(resp) > (size_t)(!!st + !!body) ||
		         (st && !(json_is_integer(st) || json_is_string(st))) || (body && !json_is_string(body)))
			rc = kn_err_set(err, KN_EINVAL, "respond: expected error or {status, body}");
		if (!rc && st) {
			long v = json_is_integer(st) ? (long)json_integer_value(st) : strtol(json_string_value(st), NULL, 10);
			if (v < 100 || v > 599)
				rc = kn_err_set(err, KN_EINVAL, "respond.status: expected an HTTP status 100..599");
			r.status = (int)v;
		}
		if (!rc && body && !(r.body = strdup(json_string_value(body))))
			rc = kn_err_set(err, KN_ENOMEM, "out of memory");
		json_object_del(spec, "respond");
	}
	kn_guard_rule *nr = rc ? NULL : realloc(g->rules, (g->n + 1) * sizeof *nr);
	if (!rc && !nr)
		rc = kn_err_set(err, KN_ENOMEM, "out of memory");
	if (!rc && (rc = ws ? kn_websocket_spec_from_json(&r.spec, ws, err)
	                    : kn_request_spec_from_json(&r.spec, spec, err)) == 0) {
		g->rules = nr;
		g->rules[g->n++] = r;
	} else {
		if (nr)
			g->rules = nr;
		free(r.body);
	}
	json_decref(spec);
	return rc;
}

json_t *kn_guard_to_json(const kn_guard *g)
{
	json_t *o = json_object(), *rules = json_array();
	int bad = !o || !rules;
	for (size_t i = 0; !bad && i < g->n; i++) {
		const kn_guard_rule *r = &g->rules[i];
		json_t *j = kn_request_spec_to_json(r->spec);
		if (j && r->spec->websocket)
			j = json_pack("{s:o}", "websocket", j);
		bad |= !j;
		if (!bad && r->fail)
			bad |= json_object_set_new(j, "respond", json_string("error"));
		else if (!bad && (r->status || r->body)) {
			json_t *resp = json_object();
			bad |= !resp || (r->status && json_object_set_new(resp, "status", json_integer(r->status))) ||
			       (r->body && json_object_set_new(resp, "body", json_string(r->body)));
			bad |= json_object_set_new(j, "respond", resp);
		}
		bad |= json_array_append_new(rules, j);
	}
	if (!bad)
		bad |= json_object_set(o, "rules", rules) |
		       json_object_set_new(o, "end_on_guard", g->end_on_guard < 0 ? json_null() : json_boolean(g->end_on_guard));
	json_decref(rules);
	if (bad)
		json_decref(o);
	return bad ? NULL : o;
}

int kn_guard_has(const kn_guard *g, int websocket)
{
	for (size_t i = 0; g && i < g->n; i++)
		if (!g->rules[i].spec->websocket == !websocket)
			return 1;
	return 0;
}

const kn_guard_rule *kn_guard_match(const kn_guard *g, const kn_request *req)
{
	for (size_t i = 0; g && i < g->n; i++)
		if (kn_request_match(g->rules[i].spec, req, NULL, 0, NULL) == 1)
			return &g->rules[i];
	return NULL;
}

int kn_guard_holds_gets(const kn_guard *g)
{
	for (size_t i = 0; g && i < g->n; i++) {
		const kn_request_spec *s = g->rules[i].spec;
		if (s && s->websocket) /* holds WebSocket messages, no request */
			continue;
		const char *m = s ? s->method : NULL;
		if (!m || strcmp(m, "GET") == 0)
			return 1;
	}
	return 0;
}

int kn_guard_ends(const kn_guard *g)
{
	return !g || g->end_on_guard != 0;
}

void kn_guard_clear(kn_guard *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->n; i++) {
		kn_request_spec_free(g->rules[i].spec);
		free(g->rules[i].body);
	}
	free(g->rules);
	g->rules = NULL;
	g->n = 0;
}
