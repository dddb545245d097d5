/* redact.c — which fields, headers and query parameters are secrets (redact.h). Names are
 * compared in ASCII lower case; a name is a secret when it holds one of the words below, or is one
 * of the short names exactly (so "shipping" is not a "pin"); a value is a secret when it holds a
 * card number (Luhn). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "keynode/redact.h"
#include "keynode/url.h"

static const char *const words[] = {
	"password", "passwd", "pwd", "secret", "token", "cvc", "cvv", "cardnumber", "card_number",
	"card-number", "cc-number", "cc_number", "ccnumber", "cc-num", "cc_num", "cardno", "card_no",
	"apikey", "api_key", "api-key", "cc-csc", "security_code", "securitycode", "auth_key", "nonce",
	"csrf", "xsrf", "sectok"};
static const char *const exact[] = {"pin", "otp", "ssn", "csc", "cc", "pan", "pass", "pass1", "pass2",
                                    "user_pass"};
static const char *const headers[] = {"authorization", "cookie", "proxy-authorization", "set-cookie",
                                      "x-api-key", "x-auth-token", "x-csrf-token", "x-xsrf-token"};

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* strstr, ASCII case-insensitive. */
static int has_word(const char *s, const char *w)
{
	size_t n = strlen(w);
	for (; *s; s++)
		if (strncasecmp(s, w, n) == 0)
			return 1;
	return 0;
}

/* 13 to 19 digits in a row, single spaces or dashes between them allowed, passing Luhn. */
static int has_card(const char *v)
{
	for (const char *s = v; *s; s++) {
		if (*s < '0' || *s > '9' || (s > v && s[-1] >= '0' && s[-1] <= '9'))
			continue;
		int d[19], n = 0;
		const char *p = s;
		while (n < 19 && *p >= '0' && *p <= '9') {
			d[n++] = *p++ - '0';
			if ((*p == ' ' || *p == '-') && p[1] >= '0' && p[1] <= '9')
				p++;
		}
		if (n < 13 || (*p >= '0' && *p <= '9'))
			continue;
		int sum = 0;
		for (int i = 0; i < n; i++) {
			int x = d[n - 1 - i];
			if (i % 2 && (x *= 2) > 9)
				x -= 9;
			sum += x;
		}
		if (sum % 10 == 0)
			return 1;
	}
	return 0;
}

int kn_redact_field(const kn_redact *r, const char *name, const char *value)
{
	if (r && r->off)
		return 0;
	for (size_t i = 0; name && i < N(words); i++)
		if (has_word(name, words[i]))
			return 1;
	for (size_t i = 0; name && i < N(exact); i++)
		if (strcasecmp(name, exact[i]) == 0)
			return 1;
	for (size_t i = 0; r && name && i < r->n_fields; i++)
		if (has_word(name, r->fields[i]))
			return 1;
	for (size_t i = 0; r && name && i < r->n_names; i++)
		if (strcmp(name, r->names[i]) == 0)
			return 1;
	return value && has_card(value);
}

int kn_redact_header(const kn_redact *r, const char *name)
{
	if (r && r->off)
		return 0;
	for (size_t i = 0; i < N(headers); i++)
		if (strcasecmp(name, headers[i]) == 0)
			return 1;
	for (size_t i = 0; r && i < r->n_headers; i++)
		if (strcasecmp(name, r->headers[i]) == 0)
			return 1;
	return 0;
}

int kn_redact_url(const kn_redact *r, char **out, const char *url)
{
	size_t len = strlen(url), cap = len + 1;
	const char *q = strchr(url, '?'), *hash = strchr(url, '#');
	if (hash && q && q > hash)
		q = NULL;
	/* scheme://user:password@host: the password */
	const char *sl = strstr(url, "://"), *at = NULL, *colon = NULL;
	if (sl) {
		const char *host = sl + 3, *end = host + strcspn(host, "/?#");
		for (const char *p = host; p < end; p++)
			if (*p == '@')
				at = p;
		colon = at ? memchr(host, ':', (size_t)(at - host)) : NULL;
	}
	char *o = malloc(cap + 16 * (len / 2 + 2));
	if (!o)
		return KN_ENOMEM;
	size_t n = 0;
	const char *p = url, *qend = q ? (hash ? hash : url + len) : NULL;
	if (colon && (!r || !r->off)) {
		memcpy(o, url, (size_t)(colon + 1 - url));
		n = (size_t)(colon + 1 - url);
		memcpy(o + n, KN_REDACTED, sizeof KN_REDACTED - 1);
		n += sizeof KN_REDACTED - 1;
		p = at;
	}
	if (!q) {
		strcpy(o + n, p);
		*out = o;
		return 0;
	}
	memcpy(o + n, p, (size_t)(q + 1 - p));
	n += (size_t)(q + 1 - p);
	for (const char *f = q + 1; f < qend;) {
		const char *amp = memchr(f, '&', (size_t)(qend - f)), *fe = amp ? amp : qend;
		const char *eq = memchr(f, '=', (size_t)(fe - f));
		char *name = NULL, *val = NULL;
		int secret = 0;
		if (eq && kn_url_unquote(&name, f, (size_t)(eq - f), 1) == 0 &&
		    kn_url_unquote(&val, eq + 1, (size_t)(fe - eq - 1), 1) == 0)
			secret = kn_redact_field(r, name, val);
		free(name);
		free(val);
		if (secret) {
			memcpy(o + n, f, (size_t)(eq + 1 - f));
			n += (size_t)(eq + 1 - f);
			memcpy(o + n, KN_REDACTED, sizeof KN_REDACTED - 1);
			n += sizeof KN_REDACTED - 1;
		} else {
			memcpy(o + n, f, (size_t)(fe - f));
			n += (size_t)(fe - f);
		}
		if (amp)
			o[n++] = '&';
		f = fe + 1;
	}
	strcpy(o + n, qend);
	*out = o;
	return 0;
}
