/* functional.c — WebArena's answer cleaning, must_include with " |OR| " alternatives and the
 * one-character token rule, the N/A test, and url_match "GOLD in PRED" (functional.h). The
 * evaluator uses these for functional key nodes; they allocate only transiently. */
#include <stdlib.h>
#include <string.h>

#include "keynode/functional.h"
#include "keynode/grow.h"
#include "keynode/url.h"

#define OR_LEN (sizeof KN_FUNC_OR - 1)

static int is_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

int kn_func_clean(char **out, const char *s)
{
	*out = NULL;
	if (!s)
		return KN_EINVAL;
	const char *b = s, *e = s + strlen(s);
	while (b < e && is_space((unsigned char)*b))
		b++;
	while (e > b && is_space((unsigned char)e[-1]))
		e--;
	if (e - b >= 2 && ((*b == '\'' && e[-1] == '\'') || (*b == '"' && e[-1] == '"')))
		b++, e--;
	char *r = malloc((size_t)(e - b) + 1);
	if (!r)
		return KN_ENOMEM;
	size_t n = 0;
	for (; b < e; b++)
		r[n++] = (char)(*b >= 'A' && *b <= 'Z' ? *b - 'A' + 'a' : *b);
	r[n] = '\0';
	*out = r;
	return 0;
}

int kn_func_exact(const char *ref, const char *pred)
{
	char *a = NULL, *b = NULL;
	int ok = kn_func_clean(&a, ref) == 0 && kn_func_clean(&b, pred) == 0 && strcmp(a, b) == 0;
	free(a);
	free(b);
	return ok;
}

int kn_func_is_na(const char *s)
{
	char *c = NULL;
	int ok = kn_func_clean(&c, s) == 0 && strcmp(c, "n/a") == 0;
	free(c);
	return ok;
}

static int is_word(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c >= 0x80;
}

/* 1 when the one character ch is a whole token of s (already cleaned). */
static int has_token(const char *s, char ch)
{
	for (const char *p = s; *p;) {
		if (is_space((unsigned char)*p)) {
			p++;
			continue;
		}
		if (!is_word((unsigned char)*p)) { /* punctuation: a token of its own */
			if (*p == ch)
				return 1;
			p++;
			continue;
		}
		const char *q = p;
		while (*q && is_word((unsigned char)*q))
			q++;
		if (q - p == 1 && *p == ch)
			return 1;
		p = q;
	}
	return 0;
}

/* One alternative [b, e) against the cleaned pred. */
static int alt_found(const char *b, const char *e, const char *pred, int token_rule)
{
	char *raw = malloc((size_t)(e - b) + 1), *alt = NULL;
	if (!raw)
		return 0;
	memcpy(raw, b, (size_t)(e - b));
	raw[e - b] = '\0';
	int ok = 0;
	if (kn_func_clean(&alt, raw) == 0)
		ok = token_rule && strlen(alt) == 1 ? has_token(pred, alt[0]) : strstr(pred, alt) != NULL;
	free(raw);
	free(alt);
	return ok;
}

int kn_func_must_include(const char *entry, const char *pred, int token_rule)
{
	char *cp = NULL;
	if (!entry || kn_func_clean(&cp, pred) != 0)
		return 0;
	int ok = 0;
	for (const char *b = entry; !ok;) {
		const char *e = strstr(b, KN_FUNC_OR);
		ok = alt_found(b, e ? e : b + strlen(b), cp, token_rule);
		if (!e)
			break;
		b = e + OR_LEN;
	}
	free(cp);
	return ok;
}

int kn_func_must_include_all(char *const *items, size_t n, const char *pred, int token_rule)
{
	if (!pred)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!kn_func_must_include(items[i], pred, token_rule))
			return 0;
	return 1;
}

/* A URL split as Python's urlsplit does, enough for url_match: base = netloc + path, query. */
struct split {
	char *base;
	const char *query; /* points into the URL text; ends at '#' or the end */
	size_t query_len;
};

static int scheme_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '+' ||
	       c == '-' || c == '.';
}

/* keynode: a scheme counts only before "://", userinfo is dropped from the host. webarena:
 * Python's urlsplit — leading C0 controls and spaces dropped, a scheme is letters/digits/+-. up to
 * the first ':' (starting with a letter), the netloc follows only "//", userinfo kept. */
static int split_url(struct split *sp, const char *u, size_t len, kn_func_sem sem)
{
	const char *end = u + len, *p = u;
	if (sem == KN_FUNC_SEM_WEBARENA) {
		while (p < end && (unsigned char)*p <= 0x20)
			p++;
		const char *colon = memchr(p, ':', (size_t)(end - p));
		int ok = colon && colon > p && ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'));
		for (const char *c = p; ok && c < colon; c++)
			ok = scheme_char(*c);
		if (ok)
			p = colon + 1;
		if (end - p >= 2 && p[0] == '/' && p[1] == '/')
			p += 2; /* else no netloc: the path starts here */
	} else {
		const char *colon = memchr(u, ':', len);
		if (colon && colon + 2 < end && colon[1] == '/' && colon[2] == '/') {
			int scheme_ok = colon > u;
			for (const char *c = u; c < colon; c++)
				scheme_ok &= scheme_char(*c);
			if (scheme_ok)
				p = colon + 3;
		}
	}
	const char *net = p;
	const char *hash = memchr(p, '#', (size_t)(end - p));
	const char *stop = hash ? hash : end;
	const char *q = memchr(p, '?', (size_t)(stop - p));
	const char *base_end = q ? q : stop;
	if (sem != KN_FUNC_SEM_WEBARENA && p != u) { /* drop userinfo from the host */
		const char *slash = net;
		while (slash < base_end && *slash != '/')
			slash++;
		const char *at = NULL;
		for (const char *c = net; c < slash; c++)
			if (*c == '@')
				at = c;
		if (at)
			net = at + 1;
	}
	if (!(sp->base = malloc((size_t)(base_end - net) + 1)))
		return KN_ENOMEM;
	memcpy(sp->base, net, (size_t)(base_end - net));
	sp->base[base_end - net] = '\0';
	sp->query = q ? q + 1 : stop;
	sp->query_len = (size_t)(stop - sp->query);
	return 0;
}

struct field {
	char *k, *v;
};

struct fields {
	struct field *f;
	size_t n, cap;
};

static void fields_free(struct fields *fs)
{
	for (size_t i = 0; i < fs->n; i++)
		free(fs->f[i].k), free(fs->f[i].v);
	free(fs->f);
}

/* parse_qs: '&' separated, split at the first '=', decoded with '+' as space, blanks skipped;
 * no limit on the number of fields. */
static int parse_query(struct fields *fs, const char *q, size_t len)
{
	const char *end = q + len;
	while (q < end) {
		const char *amp = memchr(q, '&', (size_t)(end - q));
		const char *fe = amp ? amp : end;
		const char *eq = memchr(q, '=', (size_t)(fe - q));
		if (eq && eq + 1 < fe) {
			if (kn_grow(&fs->f, fs->n, &fs->cap, sizeof *fs->f, 8))
				return KN_ENOMEM;
			char *k = NULL, *v = NULL;
			if (kn_url_unquote(&k, q, (size_t)(eq - q), 1) == 0 &&
			    kn_url_unquote(&v, eq + 1, (size_t)(fe - eq - 1), 1) == 0) {
				fs->f[fs->n].k = k;
				fs->f[fs->n].v = v;
				fs->n++;
			} else {
				free(k);
				free(v);
				return KN_ENOMEM;
			}
		}
		q = amp ? amp + 1 : end;
	}
	return 0;
}

static size_t rstrip_slash(const char *s, size_t len)
{
	while (len > 0 && s[len - 1] == '/')
		len--;
	return len;
}

int kn_func_gold_in_pred(const char *refs, const char *url)
{
	return kn_func_gold_in_pred_sem(refs, url, KN_FUNC_SEM_KEYNODE);
}

int kn_func_gold_in_pred_sem(const char *refs, const char *url, kn_func_sem sem)
{
	if (!refs || !url)
		return 0;
	struct fields rf = {0}, pf = {0};
	struct split ps = {0};
	int base_ok = 0, ok = 0;
	if (split_url(&ps, url, rstrip_slash(url, strlen(url)), sem) != 0 ||
	    parse_query(&pf, ps.query, ps.query_len) != 0)
		goto done;
	for (const char *b = refs;;) {
		const char *e = strstr(b, KN_FUNC_OR);
		size_t len = e ? (size_t)(e - b) : strlen(b);
		struct split rs = {0};
		if (split_url(&rs, b, rstrip_slash(b, len), sem) != 0)
			goto done;
		base_ok |= strstr(ps.base, rs.base) != NULL;
		int rc = parse_query(&rf, rs.query, rs.query_len);
		free(rs.base);
		if (rc)
			goto done;
		if (!e)
			break;
		b = e + OR_LEN;
	}
	ok = base_ok;
	for (size_t i = 0; ok && i < rf.n; i++) {
		int first = 1; /* each key once: the values of all references pool */
		for (size_t j = 0; j < i && first; j++)
			first = strcmp(rf.f[j].k, rf.f[i].k) != 0;
		if (!first)
			continue;
		int any = 0;
		for (size_t j = i; j < rf.n && !any; j++) {
			if (strcmp(rf.f[j].k, rf.f[i].k) != 0)
				continue;
			for (size_t x = 0; x < pf.n && !any; x++)
				any = strcmp(pf.f[x].k, rf.f[i].k) == 0 && strcmp(pf.f[x].v, rf.f[j].v) == 0;
		}
		ok = any;
	}
done:
	fields_free(&rf);
	fields_free(&pf);
	free(ps.base);
	return ok;
}
