/* request.c — a `request` key node's (or guard rule's) spec and its match against a request seen
 * (request.h). The spec keeps each matcher as a kn_keynode prepared by kn_keynode_prepare, and the
 * match uses the URL forms of url.h and kn_match_text exactly as URL and value key nodes do: the
 * URL is read by its matcher's rule (exact: the decoded whole URL; include and semantic: the
 * include form; regex: the URL as sent; `key`: the query parameter's value), a field by its value. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "keynode/request.h"
#include "keynode/url.h"

void kn_request_spec_free(kn_request_spec *s)
{
	if (!s)
		return;
	free(s->method);
	if (s->url)
		kn_keynode_clear(s->url);
	free(s->url);
	for (size_t i = 0; i < s->n_fields; i++)
		kn_keynode_clear(&s->fields[i]);
	free(s->fields);
	free(s);
}

/* Fill kn (zeroed) as a matcher of target t and prepare it. */
static int prepare(kn_keynode *kn, kn_target t, kn_matcher m, const char *expect, const char *key,
                   kn_err *err)
{
	if ((unsigned)m > KN_MATCH_REGEX)
		return kn_err_set(err, KN_EINVAL, "matcher '%s' is not available here (expected exact, "
		                                  "include, semantic or regex)", kn_matcher_name(m));
	kn->target = t;
	kn->matcher = m;
	if (!(kn->id = strdup("request")) || !(kn->expect = strdup(expect ? expect : "")) ||
	    (key && !(kn->key = strdup(key))))
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	return kn_keynode_prepare(kn, err);
}

int kn_request_spec_add_field(kn_request_spec *s, kn_keynode **out, const char *name,
                              kn_matcher m, const char *expect, kn_err *err)
{
	kn_keynode *nf = realloc(s->fields, (s->n_fields + 1) * sizeof *nf);
	if (!nf)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	s->fields = nf;
	kn_keynode *kn = &nf[s->n_fields++];
	memset(kn, 0, sizeof *kn);
	if (out)
		*out = kn;
	return prepare(kn, KN_TARGET_ELEMENT_VALUE, m, expect, name, err);
}

int kn_request_spec_set_url(kn_request_spec *s, kn_matcher m, const char *expect, const char *key,
                            kn_err *err)
{
	if (!s->url && !(s->url = calloc(1, sizeof *s->url)))
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	kn_keynode_clear(s->url);
	return prepare(s->url, KN_TARGET_URL, m, expect, key && *key ? key : NULL, err);
}

int kn_request_spec_set_method(kn_request_spec *s, const char *method, kn_err *err)
{
	size_t n = strlen(method);
	if (n == 0 || n > 32)
		return kn_err_set(err, KN_EINVAL, "a method is a word such as POST");
	char *m = malloc(n + 1);
	if (!m)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	for (size_t i = 0; i <= n; i++) {
		char c = method[i];
		if (i < n && !((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '-' || c == '_')) {
			free(m);
			return kn_err_set(err, KN_EINVAL, "a method is a word such as POST");
		}
		m[i] = c >= 'a' && c <= 'z' ? (char)(c - 32) : c;
	}
	free(s->method);
	s->method = m;
	return 0;
}

/* {MATCHER: value[, key: name]} into (m, expect, key). */
static int json_matcher(const json_t *o, int allow_key, kn_matcher *m, const char **expect,
                        const char **key, const char *where, kn_err *err)
{
	const char *k;
	json_t *v;
	int have = 0;
	*key = NULL;
	if (!json_is_object(o))
		return kn_err_set(err, KN_EINVAL, "%s: expected an object with one matcher", where);
	json_object_foreach((json_t *)(uintptr_t)o, k, v) {
		if (allow_key && strcmp(k, "key") == 0) {
			if (!json_is_string(v))
				return kn_err_set(err, KN_EINVAL, "%s.key: expected a string", where);
			*key = json_string_value(v);
			continue;
		}
		int mi = kn_matcher_from_name(k, strlen(k));
		if (mi < 0 || mi > KN_MATCH_REGEX)
			return kn_err_set(err, KN_EINVAL, "%s.%s: unknown matcher (expected exact, include, "
			                                  "semantic or regex)", where, k);
		if (have++)
			return kn_err_set(err, KN_EINVAL, "%s: more than one matcher", where);
		if (!json_is_string(v) && !json_is_number(v) && !json_is_boolean(v))
			return kn_err_set(err, KN_EINVAL, "%s.%s: expected a string", where, k);
		*m = (kn_matcher)mi;
		*expect = json_is_string(v) ? json_string_value(v) : NULL;
		if (!*expect) /* a number or boolean reference is compared as its JSON text */
			return kn_err_set(err, KN_EINVAL, "%s.%s: write the value as a string (\"2\")", where, k);
	}
	if (!have)
		return kn_err_set(err, KN_EINVAL, "%s: no matcher (expected exact, include, semantic or "
		                                  "regex)", where);
	return 0;
}

/* A request spec (websocket 0: {method, url, body}) or a websocket spec (1: {url, message}). */
static int spec_from_json(kn_request_spec **out, const json_t *j, int websocket, kn_err *err)
{
	*out = NULL;
	const char *fields = websocket ? "message" : "body";
	if (!json_is_object(j))
		return kn_err_set(err, KN_EINVAL, websocket ? "expected an object {url, message}"
		                                            : "expected an object {method, url, body}");
	kn_request_spec *s = calloc(1, sizeof *s);
	if (!s)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	s->websocket = websocket;
	const char *k, *expect = NULL, *key = NULL;
	json_t *v;
	kn_matcher m = KN_MATCH_EXACT;
	int rc = 0;
	json_object_foreach((json_t *)(uintptr_t)j, k, v) {
		if (strcmp(k, "method") == 0 && !websocket) {
			rc = json_is_string(v) ? kn_request_spec_set_method(s, json_string_value(v), err)
			                       : kn_err_set(err, KN_EINVAL, "method: expected a string");
		} else if (strcmp(k, "url") == 0) {
			kn_err e = {0};
			rc = json_matcher(v, 1, &m, &expect, &key, "url", err);
			if (!rc && (rc = kn_request_spec_set_url(s, m, expect, key, &e)) != 0)
				kn_err_set(err, rc, "url: %s", e.msg);
		} else if (strcmp(k, fields) == 0 && json_is_object(v)) {
			const char *fk;
			json_t *fv;
			char where[160];
			json_object_foreach(v, fk, fv) {
				snprintf(where, sizeof where, "%s.%.100s", fields, fk);
				if ((rc = json_matcher(fv, 0, &m, &expect, &key, where, err)) != 0)
					break;
				kn_err e = {0};
				if ((rc = kn_request_spec_add_field(s, NULL, fk, m, expect, &e)) != 0) {
					kn_err_set(err, rc, "%s: %s", where, e.msg);
					break;
				}
			}
		} else if (strcmp(k, fields) == 0) {
			rc = kn_err_set(err, KN_EINVAL, "%s: expected an object of field matchers", fields);
		} else if (strcmp(k, "match_all") == 0) {
			/* keynode.yaml's rules arrive with their scalars as text (config_guard.c) */
			const char *t = json_string_value(v);
			s->match_all = json_is_true(v) || (t && strcmp(t, "true") == 0);
			if (!json_is_boolean(v) && !(t && (strcmp(t, "true") == 0 || strcmp(t, "false") == 0)))
				rc = kn_err_set(err, KN_EINVAL, "match_all: expected true or false");
		} else {
			rc = kn_err_set(err, KN_EINVAL, "%s: unknown member (expected %s)", k,
			                websocket ? "url, message or match_all"
			                          : "method, url, body or match_all");
		}
		if (rc)
			break;
	}
	if (rc) {
		kn_request_spec_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

int kn_request_spec_from_json(kn_request_spec **out, const json_t *j, kn_err *err)
{
	return spec_from_json(out, j, 0, err);
}

int kn_websocket_spec_from_json(kn_request_spec **out, const json_t *j, kn_err *err)
{
	return spec_from_json(out, j, 1, err);
}

/* {MATCHER: expect[, key]} of one prepared matcher (a field's key is its name, not written here). */
static json_t *matcher_json(const kn_keynode *kn, int with_key)
{
	json_t *o = json_object();
	if (o && (json_object_set_new(o, kn_matcher_name(kn->matcher), json_string(kn->expect)) ||
	          (with_key && kn->key && json_object_set_new(o, "key", json_string(kn->key))))) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *kn_request_spec_to_json(const kn_request_spec *s)
{
	json_t *o = json_object(), *body = s->n_fields ? json_object() : NULL;
	int bad = !o || (s->n_fields && !body) ||
	          (s->method && json_object_set_new(o, "method", json_string(s->method))) ||
	          (s->url && json_object_set_new(o, "url", matcher_json(s->url, 1))) ||
	          (s->match_all && json_object_set_new(o, "match_all", json_true()));
	for (size_t i = 0; !bad && i < s->n_fields; i++)
		bad = json_object_set_new(body, s->fields[i].key, matcher_json(&s->fields[i], 0));
	if (!bad && body)
		bad = json_object_set(o, s->websocket ? "message" : "body", body);
	json_decref(body);
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

int kn_request_spec_describe(char **out, const kn_request_spec *s)
{
	char buf[512];
	int n = snprintf(buf, sizeof buf, "%s", s->websocket ? "websocket" : s->method ? s->method : "any method");
	if (s->url && n >= 0 && (size_t)n < sizeof buf)
		n += snprintf(buf + n, sizeof buf - (size_t)n, " %s%s%s '%.300s'",
		              s->url->key ? "key " : "", s->url->key ? s->url->key : "",
		              kn_matcher_name(s->url->matcher), s->url->expect);
	if (s->n_fields && n >= 0 && (size_t)n < sizeof buf)
		snprintf(buf + n, sizeof buf - (size_t)n, " +%zu field%s", s->n_fields,
		         s->n_fields == 1 ? "" : "s");
	return (*out = strdup(buf)) ? 0 : KN_ENOMEM;
}

/* One matcher on one input: 1, 0, or a judge's failure. */
static int text_ok(const kn_keynode *kn, const char *input, const kn_semantic *sem,
                   double threshold, kn_err *err)
{
	if (!input)
		return 0;
	if (kn->matcher != KN_MATCH_SEMANTIC)
		return kn_match_text(kn->matcher, kn->expect, input, 0, kn->regex) >= 1.0;
	double score = 0;
	int rc = sem->judge(sem->ud, kn->expect, kn->semantic_phrase, input, &score, err);
	return rc ? rc : score >= threshold;
}

static int url_ok(const kn_keynode *kn, const char *url, const kn_semantic *sem, double threshold,
                  kn_err *err)
{
	char *in = NULL;
	int rc;
	if (!url)
		return 0;
	if (kn->key)
		rc = kn_url_query_param(&in, url, kn->key);
	else if (kn->matcher == KN_MATCH_REGEX)
		rc = (in = strdup(url)) ? 0 : KN_ENOMEM;
	else if (kn->matcher == KN_MATCH_EXACT)
		rc = kn_url_exact_form(&in, url);
	else
		rc = kn_url_include_form(&in, url);
	if (rc == KN_ENOTFOUND)
		return 0; /* a missing parameter does not match */
	if (rc)
		return kn_err_set(err, rc, "cannot read the URL: %s", kn_strerror(rc));
	rc = text_ok(kn, in, sem, threshold, err);
	free(in);
	return rc;
}

int kn_request_match(const kn_request_spec *s, const kn_request *req, const kn_semantic *sem,
                     double threshold, kn_err *err)
{
	if (!sem)
		sem = kn_semantic_offline();
	if (threshold <= 0)
		threshold = KN_SEMANTIC_THRESHOLD;
	if (!s->websocket != !req->websocket)
		return 0; /* a request rule never holds a WebSocket message, nor the other way round */
	if (req->websocket && req->direction && strcmp(req->direction, "sent") != 0)
		return 0; /* key nodes and rules name what a page sends; a received message is information */
	if (s->method && (!req->method || strcasecmp(s->method, req->method) != 0))
		return 0;
	int rc;
	if (s->url && (rc = url_ok(s->url, req->url, sem, threshold, err)) <= 0)
		return rc;
	for (size_t i = 0; i < s->n_fields; i++) {
		const kn_keynode *f = &s->fields[i];
		int met = 0;
		for (size_t j = 0; j < req->n_fields && !met; j++) {
			if (!req->fields[j].name || strcmp(req->fields[j].name, f->key) != 0)
				continue;
			if ((met = text_ok(f, req->fields[j].value, sem, threshold, err)) < 0)
				return met;
		}
		if (!met)
			return 0;
	}
	return 1;
}
