/* url.c — the URL forms the WebCanvas matchers compare (rules: keynodes/README.md).
 *
 * A URL is split once into host[:port], path, query and fragment, then one of the forms is
 * built from those pieces: the include form, a query parameter's first value, the site token.
 * Splitting goes through libcurl's URL API with its path normalisation switched off and nothing
 * decoded on the way out; a URL curl refuses is split the way Python's urlsplit does, so garbage
 * degrades to its raw text instead of failing. Percent-decoding follows Python's unquote, and
 * every string handed out is valid UTF-8: ill-formed bytes become U+FFFD exactly as Python's
 * 'replace' decoder does. The exact form never parses: it is the whole text decoded. */
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "keynode/url.h"
#include "keynode/utf8.h"

/* A non-owning slice of a string. */
typedef struct span {
	const char *p;
	size_t n;
} span;

enum { WANT_HOST = 1, WANT_PATH = 2, WANT_QUERY = 4, WANT_FRAG = 8, WANT_SCHEME = 16 };

/* The pieces of one URL. The spans point into curl's strings or into the fallback copy, both
 * released by parts_free(). host already carries ":port" on the fallback path. */
typedef struct url_parts {
	span host, port, path, query, frag, scheme;
	char *curl_str[6]; /* curl_free()d */
	char *copy;        /* fallback: the URL without tabs/newlines, free()d */
} url_parts;

static int is_alpha(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static int hex_val(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Decode %XX (and '+' when plus) in place; returns the new length. Malformed sequences stay as
 * they are, and so does %00, which a C string could not carry. */
static size_t pct_decode_inplace(char *s, size_t n, int plus)
{
	size_t r = 0, w = 0;
	while (r < n) {
		char c = s[r];
		if (c == '%' && r + 2 < n) {
			int hi = hex_val((unsigned char)s[r + 1]), lo = hex_val((unsigned char)s[r + 2]);
			if (hi >= 0 && lo >= 0 && (hi | lo) != 0) {
				s[w++] = (char)(hi << 4 | lo);
				r += 3;
				continue;
			}
		} else if (c == '+' && plus) {
			c = ' ';
		}
		s[w++] = c;
		r++;
	}
	s[w] = '\0';
	return w;
}

/* Finish a decoded copy: decode in place, then repair. Takes ownership of buf. */
static int decode_finish(char **out, char *buf, size_t n, int plus)
{
	n = pct_decode_inplace(buf, n, plus);
	int rc = kn_utf8_repair(&buf, n);
	if (rc < 0) {
		free(buf);
		return rc;
	}
	*out = buf;
	return 0;
}

int kn_url_unquote(char **out, const char *s, size_t len, int plus)
{
	if (!out)
		return KN_EINVAL;
	*out = NULL;
	if (!s && len)
		return KN_EINVAL;
	char *buf = malloc(len + 1);
	if (!buf)
		return KN_ENOMEM;
	if (len)
		memcpy(buf, s, len);
	buf[len] = '\0';
	return decode_finish(out, buf, len, plus);
}

static span span_of(const char *p, size_t n)
{
	span s = { p, n };
	return s;
}

static void parts_free(url_parts *p)
{
	for (size_t i = 0; i < sizeof p->curl_str / sizeof p->curl_str[0]; i++)
		curl_free(p->curl_str[i]);
	free(p->copy);
}

/* Split the way Python's urlsplit does, without ever failing: tabs and newlines removed and
 * leading control characters and spaces stripped (as Python does), an optional scheme, "//"
 * netloc up to the first of "/?#", then fragment at the first '#', query at the first '?'.
 * The userinfo is dropped from the netloc, as on the curl path. */
static int split_fallback(url_parts *p, const char *url)
{
	size_t n = strlen(url), len = 0;
	while (n && (unsigned char)*url <= 0x20)
		url++, n--;
	char *s = malloc(n + 1);
	if (!s)
		return KN_ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (url[i] != '\t' && url[i] != '\r' && url[i] != '\n')
			s[len++] = url[i];
	s[len] = '\0';
	p->copy = s;

	const char *c = s, *end = s + len;
	const char *colon = memchr(s, ':', len);
	if (colon && colon > s && is_alpha((unsigned char)*s)) {
		const char *q = s;
		while (q < colon && (is_alpha((unsigned char)*q) || is_digit((unsigned char)*q) ||
		                     *q == '+' || *q == '-' || *q == '.'))
			q++;
		if (q == colon) {
			p->scheme = span_of(s, (size_t)(colon - s));
			c = colon + 1;
		}
	}
	if (end - c >= 2 && c[0] == '/' && c[1] == '/') {
		const char *h = c + 2, *e = h;
		while (e < end && *e != '/' && *e != '?' && *e != '#')
			e++;
		for (const char *a = e; a > h; a--)
			if (a[-1] == '@') {
				h = a;
				break;
			}
		p->host = span_of(h, (size_t)(e - h));
		c = e;
	}
	const char *hash = memchr(c, '#', (size_t)(end - c));
	if (hash) {
		p->frag = span_of(hash + 1, (size_t)(end - hash - 1));
		end = hash;
	}
	const char *qm = memchr(c, '?', (size_t)(end - c));
	if (qm) {
		p->query = span_of(qm + 1, (size_t)(end - qm - 1));
		end = qm;
	}
	p->path = span_of(c, (size_t)(end - c));
	return 0;
}

/* Fetch one part from curl into slot i; a part the URL lacks is an empty span. */
static int get_part(url_parts *p, CURLU *h, CURLUPart what, int i, span *dst)
{
	char *v = NULL;
	CURLUcode rc = curl_url_get(h, what, &v, 0);
	if (rc == CURLUE_OUT_OF_MEMORY)
		return KN_ENOMEM;
	if (rc != CURLUE_OK || !v)
		return 0;
	p->curl_str[i] = v;
	*dst = span_of(v, strlen(v));
	return 0;
}

/* Split url into the parts named by want. Never fails on bad input, only on memory. */
static int parts_parse(url_parts *p, const char *url, unsigned want)
{
	memset(p, 0, sizeof *p);
	CURLU *h = curl_url();
	if (!h)
		return KN_ENOMEM;
	/* No path normalisation (WebCanvas compares the path as the browser reports it); no
	 * decoding or punycode on the way out (we decode once, ourselves). */
	CURLUcode rc = curl_url_set(h, CURLUPART_URL, url,
	                            CURLU_NON_SUPPORT_SCHEME | CURLU_PATH_AS_IS);
	int err = 0;
	if (rc == CURLUE_OK) {
		if (!err && (want & WANT_HOST))
			err = get_part(p, h, CURLUPART_HOST, 0, &p->host);
		if (!err && (want & WANT_HOST))
			err = get_part(p, h, CURLUPART_PORT, 1, &p->port);
		if (!err && (want & WANT_PATH))
			err = get_part(p, h, CURLUPART_PATH, 2, &p->path);
		if (!err && (want & WANT_QUERY))
			err = get_part(p, h, CURLUPART_QUERY, 3, &p->query);
		if (!err && (want & WANT_FRAG))
			err = get_part(p, h, CURLUPART_FRAGMENT, 4, &p->frag);
		if (!err && (want & WANT_SCHEME))
			err = get_part(p, h, CURLUPART_SCHEME, 5, &p->scheme);
	} else if (rc == CURLUE_OUT_OF_MEMORY) {
		err = KN_ENOMEM;
	} else {
		err = split_fallback(p, url);
	}
	curl_url_cleanup(h);
	if (err)
		parts_free(p);
	return err;
}

/* Python's urlparse cuts ";params" off the path when the scheme (compared without case, as
 * urlsplit lower-cases it) is one of urllib.parse.uses_params: from the first ';' after the last
 * '/', or from the first ';' when the path has no '/'. */
static span path_without_params(span scheme, span path)
{
	static const char *const uses_params[] = {"", "ftp", "hdl", "prospero", "http", "imap",
	                                          "https", "shttp", "rtsp", "rtspu", "sip", "sips",
	                                          "mms", "sftp", "tel", NULL};
	int listed = 0;
	for (const char *const *u = uses_params; *u && !listed; u++) {
		size_t n = strlen(*u);
		listed = n == scheme.n;
		for (size_t i = 0; i < n && listed; i++)
			listed = (scheme.p[i] | 0x20) == (*u)[i];
	}
	if (!listed || !path.n)
		return path;
	size_t from = 0;
	for (size_t i = path.n; i > 0; i--)
		if (path.p[i - 1] == '/') {
			from = i - 1;
			break;
		}
	const char *semi = memchr(path.p + from, ';', path.n - from);
	return semi ? span_of(path.p, (size_t)(semi - path.p)) : path;
}

/* The include form; with params, the path as urlparse gives it (path_without_params). */
static int include_form(char **out, const char *url, int params)
{
	if (!out)
		return KN_EINVAL;
	*out = NULL;
	if (!url)
		return KN_EINVAL;
	url_parts p;
	int rc = parts_parse(&p, url, WANT_HOST | WANT_PATH | WANT_FRAG | (params ? WANT_SCHEME : 0));
	if (rc < 0)
		return rc;
	if (params)
		p.path = path_without_params(p.scheme, p.path);

	size_t n = p.host.n + (p.port.n ? p.port.n + 1 : 0) + p.path.n + (p.frag.n ? p.frag.n + 1 : 0);
	char *buf = malloc(n + 1), *w = buf;
	if (!buf) {
		parts_free(&p);
		return KN_ENOMEM;
	}
	memcpy(w, p.host.p ? p.host.p : "", p.host.n), w += p.host.n;
	if (p.port.n) {
		*w++ = ':';
		memcpy(w, p.port.p, p.port.n), w += p.port.n;
	}
	if (p.path.n)
		memcpy(w, p.path.p, p.path.n), w += p.path.n;
	if (p.frag.n) {
		*w++ = '#';
		memcpy(w, p.frag.p, p.frag.n), w += p.frag.n;
	}
	parts_free(&p);
	return decode_finish(out, buf, n, 0);
}

int kn_url_include_form(char **out, const char *url)
{
	return include_form(out, url, 0);
}

int kn_url_include_form_urlparse(char **out, const char *url)
{
	return include_form(out, url, 1);
}

int kn_url_exact_form(char **out, const char *url)
{
	if (!url) {
		if (out)
			*out = NULL;
		return KN_EINVAL;
	}
	return kn_url_unquote(out, url, strlen(url), 0);
}

/* 1 when the query field name s[0..n) decodes to key. */
static int name_is(const char *s, size_t n, const char *key, size_t klen, int *err)
{
	int plain = 1;
	for (size_t i = 0; i < n && plain; i++)
		if (s[i] == '%' || s[i] == '+' || (unsigned char)s[i] >= 0x80)
			plain = 0;
	if (plain)
		return n == klen && memcmp(s, key, n) == 0;
	char *name;
	int rc = kn_url_unquote(&name, s, n, 1);
	if (rc < 0) {
		*err = rc;
		return 0;
	}
	int eq = strcmp(name, key) == 0;
	free(name);
	return eq;
}

int kn_url_query_param(char **out, const char *url, const char *key)
{
	if (!out)
		return KN_EINVAL;
	*out = NULL;
	if (!url || !key)
		return KN_EINVAL;
	url_parts p;
	int rc = parts_parse(&p, url, WANT_QUERY);
	if (rc < 0)
		return rc;

	/* parse_qs: fields split on '&'; a field without '=' or with an empty value is skipped
	 * (keep_blank_values=False), so the first non-empty value of the key wins. */
	size_t klen = strlen(key);
	const char *q = p.query.p, *end = q ? q + p.query.n : NULL;
	rc = KN_ENOTFOUND;
	while (q && q < end) {
		const char *amp = memchr(q, '&', (size_t)(end - q));
		const char *fe = amp ? amp : end;
		const char *eq = memchr(q, '=', (size_t)(fe - q));
		if (eq && eq + 1 < fe) {
			int err = 0;
			if (name_is(q, (size_t)(eq - q), key, klen, &err)) {
				rc = kn_url_unquote(out, eq + 1, (size_t)(fe - eq - 1), 1);
				break;
			}
			if (err) {
				rc = err;
				break;
			}
		}
		q = amp ? amp + 1 : end;
	}
	parts_free(&p);
	return rc;
}

/* The WebCanvas get_netloc rule on a host[:port] text: a host starting with "www" gives its
 * second dot-separated label (only when a second dot follows it), any other its first label
 * (only when a dot follows it), else "". */
static span site_token(span h)
{
	const char *s = h.p, *end = h.p + h.n;
	const char *d1 = s ? memchr(s, '.', h.n) : NULL;
	if (!d1)
		return span_of("", 0);
	if (h.n >= 3 && memcmp(s, "www", 3) == 0) {
		const char *d2 = memchr(d1 + 1, '.', (size_t)(end - d1 - 1));
		if (!d2)
			return span_of("", 0);
		return span_of(d1 + 1, (size_t)(d2 - d1 - 1));
	}
	return span_of(s, (size_t)(d1 - s));
}

int kn_url_site_token(char **out, const char *url)
{
	if (!out)
		return KN_EINVAL;
	*out = NULL;
	if (!url)
		return KN_EINVAL;
	url_parts p;
	int rc = parts_parse(&p, url, WANT_HOST);
	if (rc < 0)
		return rc;
	span t = site_token(p.host);
	char *buf = malloc(t.n + 1);
	if (!buf) {
		parts_free(&p);
		return KN_ENOMEM;
	}
	if (t.n)
		memcpy(buf, t.p, t.n);
	buf[t.n] = '\0';
	parts_free(&p);
	rc = kn_utf8_repair(&buf, t.n);
	if (rc < 0) {
		free(buf);
		return rc;
	}
	*out = buf;
	return 0;
}
