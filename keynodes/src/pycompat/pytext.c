/* pytext.c — Python's str.isspace / isalnum / strip / lower / len and html.unescape over UTF-8
 * (pytext.h), from the tables gen_pytext.py generates (pytext_lower.c, pytext_entities*.c). */
#include <stdlib.h>
#include <string.h>

#include "keynode/pytext.h"
#include "keynode/utf8.h"
#include "pytext_internal.h"

size_t kn_py_next(const char *s, size_t n, unsigned *cp)
{
	uint32_t v;
	size_t len = kn_utf8_decode((const unsigned char *)s, n, &v);
	*cp = v; /* KN_UTF8_BAD (0xFFFFFFFF) for an ill-formed byte */
	return len;
}

int kn_py_isspace(unsigned cp)
{
	/* bidirectional class WS, B or S, or category Zs (Python's definition) */
	return (cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x20) || cp == 0x85 || cp == 0xA0 ||
	       cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 ||
	       cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

void kn_py_strip(const char *s, size_t n, size_t *b, size_t *e)
{
	size_t i = 0, end = 0;
	unsigned cp;
	while (i < n) { /* skip leading space */
		size_t l = kn_py_next(s + i, n - i, &cp);
		if (!kn_py_isspace(cp))
			break;
		i += l;
	}
	*b = i;
	for (size_t j = i; j < n;) { /* the end of the last non-space character */
		size_t l = kn_py_next(s + j, n - j, &cp);
		j += l;
		if (!kn_py_isspace(cp))
			end = j;
	}
	*e = end > i ? end : i;
}

static const char *lower_of(unsigned cp)
{
	size_t lo = 0, hi = kn_py_lower_count;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (kn_py_lower_table[mid].cp == cp)
			return kn_py_lower_table[mid].lower;
		if (kn_py_lower_table[mid].cp < cp)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int in_ranges(const unsigned (*r)[2], size_t n, unsigned cp)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (cp < r[mid][0])
			hi = mid;
		else if (cp > r[mid][1])
			lo = mid + 1;
		else
			return 1;
	}
	return 0;
}

/* The code point before offset i of s (skipping case-ignorable ones): its cased-ness, as
 * Python's handle_capital_sigma looks back (dir < 0) or forward (dir > 0, from offset i). */
int kn_py_isalnum(unsigned cp)
{
	if (cp < 0x80)
		return (cp >= '0' && cp <= '9') || ((cp | 0x20) >= 'a' && (cp | 0x20) <= 'z');
	return in_ranges(kn_py_alnum, kn_py_alnum_count, cp);
}

static int cased_neighbour(const char *s, size_t n, size_t i, int dir)
{
	unsigned cp = 0;
	if (dir < 0) {
		while (i > 0) {
			size_t b = i - 1;
			while (b > 0 && ((unsigned char)s[b] & 0xC0) == 0x80)
				b--;
			kn_py_next(s + b, n - b, &cp);
			if (!in_ranges(kn_py_case_ignorable, kn_py_case_ignorable_count, cp))
				return in_ranges(kn_py_cased, kn_py_cased_count, cp);
			i = b;
		}
		return 0;
	}
	while (i < n) {
		i += kn_py_next(s + i, n - i, &cp);
		if (!in_ranges(kn_py_case_ignorable, kn_py_case_ignorable_count, cp))
			return in_ranges(kn_py_cased, kn_py_cased_count, cp);
	}
	return 0;
}

int kn_py_lower(char **out, const char *s, size_t n)
{
	/* a lower-case form is at most 3 bytes longer per character ("İ": 2 → 3 bytes) */
	char *r = malloc(n * 2 + 1);
	if (!(*out = r))
		return KN_ENOMEM;
	size_t k = 0;
	for (size_t i = 0; i < n;) {
		unsigned cp;
		size_t l = kn_py_next(s + i, n - i, &cp);
		const char *lw = cp < 0x80 ? NULL : lower_of(cp);
		if (cp == 0x3A3 && cased_neighbour(s, n, i, -1) && !cased_neighbour(s, n, i + l, 1))
			lw = "\xcf\x82"; /* Final_Sigma: ς */
		if (cp < 0x80) {
			r[k++] = (char)(cp >= 'A' && cp <= 'Z' ? cp + 32 : cp);
		} else if (lw) {
			size_t ll = strlen(lw);
			memcpy(r + k, lw, ll);
			k += ll;
		} else {
			memcpy(r + k, s + i, l);
			k += l;
		}
		i += l;
	}
	r[k] = '\0';
	return 0;
}

int kn_py_is_lowered(unsigned cp)
{
	char buf[8];
	size_t l = kn_utf8_encode(buf, cp);
	for (size_t i = 0; i < kn_py_lower_count; i++)
		if (kn_py_lower_table[i].cp != cp && strlen(kn_py_lower_table[i].lower) == l &&
		    memcmp(kn_py_lower_table[i].lower, buf, l) == 0)
			return 1;
	return 0;
}

size_t kn_py_len(const char *s)
{
	size_t n = strlen(s), c = 0;
	unsigned cp;
	for (size_t i = 0; i < n; c++)
		i += kn_py_next(s + i, n - i, &cp);
	return c;
}

/* --- html.unescape --- */

static const char *entity(const char *name, size_t len)
{
	const struct kn_py_entity *tabs[2] = {kn_py_entity_table_1, kn_py_entity_table_2};
	size_t counts[2] = {kn_py_entity_count_1, kn_py_entity_count_2};
	for (int t = 0; t < 2; t++) {
		size_t lo = 0, hi = counts[t];
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			const char *nm = tabs[t][mid].name;
			int c = strncmp(nm, name, len);
			if (c == 0 && nm[len] != '\0')
				c = 1; /* nm is longer: it sorts after */
			if (c == 0)
				return tabs[t][mid].value;
			if (c < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	return NULL;
}

static int is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* A numeric reference's replacement (Python's _replace_charref) into r; its length. */
static size_t numeric(char *r, const char *digits, size_t nd, int hex)
{
	unsigned long long num = 0;
	for (size_t i = 0; i < nd; i++) {
		unsigned d = digits[i] <= '9' ? (unsigned)(digits[i] - '0')
		                              : (unsigned)((digits[i] | 0x20) - 'a' + 10);
		num = num * (hex ? 16 : 10) + d;
		if (num > 0x10FFFF)
			num = 0x110000; /* stays "too large" however many digits follow */
	}
	for (size_t i = 0; i < kn_py_invalid_charref_count; i++)
		if (kn_py_invalid_charref_table[i].num == num) {
			size_t l = strlen(kn_py_invalid_charref_table[i].value);
			memcpy(r, kn_py_invalid_charref_table[i].value, l);
			return l;
		}
	if ((num >= 0xD800 && num <= 0xDFFF) || num > 0x10FFFF)
		return kn_utf8_encode(r, 0xFFFD);
	for (size_t i = 0; i < kn_py_invalid_codepoint_count; i++)
		if (kn_py_invalid_codepoint_table[i] == num)
			return 0;
	return kn_utf8_encode(r, (unsigned)num);
}

int kn_py_html_unescape(char **out, const char *s)
{
	size_t n = strlen(s);
	/* no replacement is longer than its reference except a short name: "&lt" (3) → 1 byte,
	 * "&nGt;" (5) → 6 bytes, so 2n + 8 is always room */
	char *r = malloc(2 * n + 8);
	if (!(*out = r))
		return KN_ENOMEM;
	size_t k = 0;
	for (size_t i = 0; i < n;) {
		if (s[i] != '&') {
			r[k++] = s[i++];
			continue;
		}
		const char *p = s + i + 1;
		if (p[0] == '#') {
			int hex = p[1] == 'x' || p[1] == 'X';
			const char *d = p + 1 + hex, *q = d;
			while (hex ? is_hex(*q) : (*q >= '0' && *q <= '9'))
				q++;
			if (q > d) {
				k += numeric(r + k, d, (size_t)(q - d), hex);
				i = (size_t)(q - s) + (*q == ';');
				continue;
			}
			r[k++] = s[i++];
			continue;
		}
		/* [^\t\n\f <&#;]{1,32};? counted in characters */
		const char *q = p;
		size_t chars = 0;
		while (*q && chars < 32 && !strchr("\t\n\f <&#;", *q)) {
			unsigned cp;
			q += kn_py_next(q, strlen(q), &cp);
			chars++;
		}
		if (q == p) {
			r[k++] = s[i++];
			continue;
		}
		size_t len = (size_t)(q - p) + (*q == ';');
		const char *v = entity(p, len);
		size_t used = len;
		if (!v) /* the longest known prefix, at least two characters long (Python: s[:x]) */
			for (used = len - 1; used > 1 && !(v = entity(p, used)); used--)
				;
		if (v) {
			size_t vl = strlen(v);
			memcpy(r + k, v, vl);
			k += vl;
			memcpy(r + k, p + used, len - used); /* the rest of the name, as it was */
			k += len - used;
		} else {
			r[k++] = '&';
			memcpy(r + k, p, len);
			k += len;
		}
		i += 1 + len;
	}
	r[k] = '\0';
	return 0;
}
