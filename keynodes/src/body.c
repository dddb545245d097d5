/* body.c — a request body as (name, value) fields (request.h): URL-encoded forms, multipart forms,
 * JSON and text. The bytes come from the page the agent is on, so nothing here trusts them:
 * every read is bounded by the length given, the body is cut at KN_BODY_MAX_BYTES, at most
 * KN_BODY_MAX_FIELDS fields are kept, every name and value is made valid UTF-8 without NUL, and
 * a body that is not what its type says is read as text rather than refused. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "keynode/grow.h"
#include "keynode/request.h"
#include "keynode/url.h"
#include "keynode/utf8.h"

/* A copy of n bytes as valid UTF-8 text: NUL bytes become U+FFFD too. NULL when out of memory. */
static char *text_of(const char *s, size_t n)
{
	char *t = malloc(n + 1);
	if (!t)
		return NULL;
	for (size_t i = 0; i < n; i++)
		t[i] = s[i] ? s[i] : '\x80'; /* an ill-formed byte: repaired to U+FFFD below */
	t[n] = '\0';
	return kn_utf8_repair(&t, n) ? (free(t), NULL) : t;
}

/* Add a field taking ownership of name and value (freed on failure). Past the cap the field is
 * dropped and 0 returned. */
static int add_owned(kn_body *b, char *name, char *value)
{
	if (!name || !value || b->n >= KN_BODY_MAX_FIELDS ||
	    kn_grow(&b->fields, b->n, &b->cap, sizeof *b->fields, 8)) {
		int oom = !name || !value || b->n < KN_BODY_MAX_FIELDS;
		free(name);
		free(value);
		return oom ? KN_ENOMEM : 0;
	}
	b->fields[b->n].name = name;
	b->fields[b->n].value = value;
	b->n++;
	return 0;
}

static int add_text(kn_body *b, const char *name, size_t nlen, const char *value, size_t vlen)
{
	return add_owned(b, text_of(name, nlen), text_of(value, vlen));
}

void kn_body_free(kn_body *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->n; i++) {
		free((char *)(uintptr_t)b->fields[i].name);
		free((char *)(uintptr_t)b->fields[i].value);
	}
	free(b->fields);
	free(b);
}

/* The parameter `param` of a Content-Type header ("boundary"), unquoted, into out (cap bytes).
 * 1 when found. */
static int ct_param(const char *ct, const char *param, char *out, size_t cap)
{
	size_t pl = strlen(param);
	for (const char *p = strchr(ct, ';'); p; p = strchr(p + 1, ';')) {
		const char *q = p + 1;
		while (*q == ' ' || *q == '\t')
			q++;
		if (strncasecmp(q, param, pl) != 0 || q[pl] != '=')
			continue;
		q += pl + 1;
		int quoted = *q == '"';
		q += quoted;
		size_t n = 0;
		while (q[n] && (quoted ? q[n] != '"' : q[n] != ';' && q[n] != ' ' && q[n] != '\t'))
			n++;
		if (n == 0 || n >= cap)
			return 0;
		memcpy(out, q, n);
		out[n] = '\0';
		return 1;
	}
	return 0;
}

/* 1 when the media type of ct (before any ';') is type, case-insensitively. */
static int ct_is(const char *ct, const char *type)
{
	size_t n = strlen(type);
	while (*ct == ' ')
		ct++;
	return strncasecmp(ct, type, n) == 0 && (ct[n] == '\0' || ct[n] == ';' || ct[n] == ' ');
}

/* a=1&b=2: each field decoded as a query string is (+ is a space); fields without '=' keep an
 * empty value (a form sends empty inputs as "name="). */
static int parse_form(kn_body *b, const char *s, size_t len)
{
	const char *end = s + len;
	while (s < end) {
		const char *amp = memchr(s, '&', (size_t)(end - s));
		const char *fe = amp ? amp : end;
		const char *eq = memchr(s, '=', (size_t)(fe - s));
		const char *ne = eq ? eq : fe;
		if (ne > s) {
			char *n = NULL, *v = NULL;
			int rc = kn_url_unquote(&n, s, (size_t)(ne - s), 1);
			if (!rc && eq)
				rc = kn_url_unquote(&v, eq + 1, (size_t)(fe - eq - 1), 1);
			else if (!rc)
				v = strdup("");
			if (rc) {
				free(n);
				return rc;
			}
			if ((rc = add_owned(b, n, v)) != 0)
				return rc;
		}
		s = fe + 1;
	}
	return 0;
}

/* JSON leaves under dotted paths. path holds the prefix (plen bytes used). */
static int flatten(kn_body *b, const json_t *j, char *path, size_t plen, size_t cap)
{
	if (b->n >= KN_BODY_MAX_FIELDS)
		return 0;
	if (json_is_object(j) || json_is_array(j)) {
		size_t i, n = json_is_array(j) ? json_array_size(j) : 0;
		const char *k;
		json_t *v;
		char idx[24];
		void *it = json_is_object(j) ? json_object_iter((json_t *)(uintptr_t)j) : NULL;
		for (i = 0; it || i < n; i++) {
			if (it) {
				k = json_object_iter_key(it);
				v = json_object_iter_value(it);
				it = json_object_iter_next((json_t *)(uintptr_t)j, it);
			} else {
				snprintf(idx, sizeof idx, "%zu", i);
				k = idx;
				v = json_array_get(j, i);
			}
			size_t kl = strlen(k), nl = plen + (plen ? 1 : 0) + kl;
			if (nl >= cap)
				continue; /* a path past the cap is not kept */
			if (plen)
				path[plen] = '.';
			memcpy(path + plen + (plen ? 1 : 0), k, kl + 1);
			int rc = flatten(b, v, path, nl, cap);
			path[plen] = '\0';
			if (rc)
				return rc;
			if (!it && i + 1 >= n)
				break;
		}
		return 0;
	}
	char *val = json_is_string(j) ? strdup(json_string_value(j))
	                              : json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT);
	return add_owned(b, strdup(plen ? path : KN_BODY_TEXT_FIELD), val);
}

static int parse_json(kn_body *b, const char *s, size_t len, int *ok)
{
	json_error_t je;
	json_t *j = json_loadb(s, len, JSON_DECODE_ANY, &je);
	*ok = j != NULL;
	if (!j)
		return 0;
	char path[1024] = "";
	int rc = flatten(b, j, path, 0, sizeof path);
	json_decref(j);
	return rc;
}

/* memmem, which C11 does not have. */
static const char *find(const char *h, size_t hl, const char *n, size_t nl)
{
	for (size_t i = 0; nl <= hl && i <= hl - nl; i++)
		if (h[i] == n[0] && memcmp(h + i, n, nl) == 0)
			return h + i;
	return NULL;
}

/* The value of attribute attr ("name", "filename") in a Content-Disposition line [s, e): quoted
 * or bare. *out NULL when absent. */
static int disp_attr(char **out, const char *s, const char *e, const char *attr)
{
	size_t al = strlen(attr);
	*out = NULL;
	for (const char *p = s; p + al + 1 < e; p++) {
		if ((p != s && p[-1] != ';' && p[-1] != ' ' && p[-1] != '\t') ||
		    strncasecmp(p, attr, al) != 0 || p[al] != '=')
			continue;
		const char *v = p + al + 1, *ve;
		if (*v == '"') {
			v++;
			for (ve = v; ve < e && *ve != '"'; ve++)
				if (*ve == '\\' && ve + 1 < e)
					ve++;
		} else {
			for (ve = v; ve < e && *ve != ';' && *ve != ' '; ve++)
				;
		}
		return (*out = text_of(v, (size_t)(ve - v))) ? 0 : KN_ENOMEM;
	}
	return 0;
}

/* One multipart part [s, e): headers, a blank line, the content. */
static int parse_part(kn_body *b, const char *s, const char *e)
{
	const char *hend = find(s, (size_t)(e - s), "\r\n\r\n", 4);
	size_t skip = 4;
	if (!hend) {
		hend = find(s, (size_t)(e - s), "\n\n", 2);
		skip = 2;
	}
	if (!hend)
		return 0;
	char *name = NULL, *file = NULL;
	int rc = 0;
	for (const char *l = s; l < hend && !name;) {
		const char *le = memchr(l, '\n', (size_t)(hend - l));
		le = le ? le : hend;
		if ((size_t)(le - l) > 20 && strncasecmp(l, "content-disposition:", 20) == 0 &&
		    ((rc = disp_attr(&name, l + 20, le, "name")) != 0 ||
		     (rc = disp_attr(&file, l + 20, le, "filename")) != 0))
			break;
		l = le + 1;
	}
	const char *c = hend + skip;
	size_t clen = c <= e ? (size_t)(e - c) : 0;
	if (!rc && name && *name) {
		if (file) {
			char sz[24];
			snprintf(sz, sizeof sz, "%zu", clen);
			size_t nl = strlen(name);
			char *sname = malloc(nl + 6);
			if (sname)
				memcpy(sname, name, nl), memcpy(sname + nl, ".size", 6);
			if ((rc = add_owned(b, strdup(name), file)) == 0)
				rc = add_owned(b, sname, strdup(sz));
			else
				free(sname);
			file = NULL;
		} else {
			rc = add_text(b, name, strlen(name), c, clen);
		}
	}
	free(name);
	free(file);
	return rc;
}

static int parse_multipart(kn_body *b, const char *ct, const char *s, size_t len, int *ok)
{
	char delim[80] = "--";
	*ok = ct_param(ct, "boundary", delim + 2, sizeof delim - 2);
	if (!*ok)
		return 0;
	size_t dl = strlen(delim);
	const char *end = s + len;
	const char *p = find(s, len, delim, dl);
	*ok = p != NULL;
	while (p) {
		const char *part = p + dl;
		if (end - part >= 2 && part[0] == '-' && part[1] == '-')
			break; /* the closing delimiter */
		const char *next = find(part, (size_t)(end - part), delim, dl);
		const char *pe = next ? next : end;
		/* the CRLF before a delimiter belongs to it */
		if (pe - part >= 2 && pe[-2] == '\r' && pe[-1] == '\n')
			pe -= 2;
		else if (pe - part >= 1 && pe[-1] == '\n')
			pe -= 1;
		if (*part == '\r')
			part++;
		if (part < pe && *part == '\n')
			part++;
		int rc = part < pe ? parse_part(b, part, pe) : 0;
		if (rc)
			return rc;
		p = next;
	}
	return 0;
}

int kn_body_parse(kn_body **out, const char *content_type, const char *body, size_t len)
{
	*out = NULL;
	kn_body *b = calloc(1, sizeof *b);
	if (!b)
		return KN_ENOMEM;
	if (!body)
		len = 0;
	if (len > KN_BODY_MAX_BYTES)
		len = KN_BODY_MAX_BYTES;
	const char *ct = content_type ? content_type : "";
	int rc = 0, ok = 1;
	if (len == 0) {
		*out = b;
		return 0;
	}
	if (ct_is(ct, "application/x-www-form-urlencoded"))
		rc = parse_form(b, body, len);
	else if (ct_is(ct, "multipart/form-data"))
		rc = parse_multipart(b, ct, body, len, &ok);
	else if (ct_is(ct, "application/json") || (strstr(ct, "+json") && strchr(ct, '/')))
		rc = parse_json(b, body, len, &ok);
	else
		ok = 0;
	if (!rc && !ok && b->n == 0) /* text, or not what its type says */
		rc = add_text(b, KN_BODY_TEXT_FIELD, strlen(KN_BODY_TEXT_FIELD), body, len);
	if (rc) {
		kn_body_free(b);
		return rc;
	}
	*out = b;
	return 0;
}
