/* utf8.c — well-formedness of UTF-8 text the way Python's decoder judges it, and repair by
 * U+FFFD replacement (one per maximal subpart), so every string keynode hands to JSON is valid. */
#include <stdlib.h>
#include <string.h>

#include "keynode/utf8.h"

/* Length of the well-formed UTF-8 sequence at s (1-4), or 0 when it is ill-formed; then *skip is
 * the maximal subpart that one U+FFFD replaces (Unicode's recommended practice, which Python's
 * decoder follows). */
size_t kn_utf8_next(const unsigned char *s, size_t n, size_t *skip)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xBF;
	size_t need;

	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		need = 1;
	else if (c == 0xE0)
		need = 2, lo = 0xA0;
	else if (c == 0xED)
		need = 2, hi = 0x9F;
	else if (c >= 0xE1 && c <= 0xEF)
		need = 2;
	else if (c == 0xF0)
		need = 3, lo = 0x90;
	else if (c == 0xF4)
		need = 3, hi = 0x8F;
	else if (c >= 0xF1 && c <= 0xF3)
		need = 3;
	else {
		*skip = 1;
		return 0;
	}
	for (size_t i = 1; i <= need; i++) {
		if (i >= n || s[i] < lo || s[i] > hi) {
			*skip = i;
			return 0;
		}
		lo = 0x80;
		hi = 0xBF;
	}
	return need + 1;
}

size_t kn_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
	size_t skip, len = kn_utf8_next(s, n, &skip);
	uint32_t v = s[0];
	if (len == 0) {
		*cp = KN_UTF8_BAD;
		return 1;
	}
	if (len > 1) {
		v &= 0x7Fu >> len; /* the lead byte's payload: 5, 4 or 3 bits */
		for (size_t i = 1; i < len; i++)
			v = (v << 6) | (s[i] & 0x3Fu);
	}
	*cp = v;
	return len;
}

size_t kn_utf8_encode(char *out, uint32_t cp)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xC0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xE0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		out[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (char)(0xF0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	out[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

/* Make the n bytes at *buf valid UTF-8, replacing ill-formed parts with U+FFFD; *buf may be
 * replaced by a longer buffer. The common, valid case costs one scan. */
int kn_utf8_repair(char **buf, size_t n)
{
	const unsigned char *s = (const unsigned char *)*buf;
	size_t i = 0, skip = 0, extra = 0;
	int bad = 0;

	while (i < n) {
		size_t k = kn_utf8_next(s + i, n - i, &skip);
		if (k == 0) {
			bad = 1;
			extra += 3 - skip; /* skip is 1..3 */
			i += skip;
		} else {
			i += k;
		}
	}
	if (!bad)
		return 0;

	char *out = malloc(n + extra + 1);
	if (!out)
		return KN_ENOMEM;
	size_t w = 0;
	for (i = 0; i < n;) {
		size_t k = kn_utf8_next(s + i, n - i, &skip);
		if (k) {
			memcpy(out + w, s + i, k);
			w += k;
			i += k;
		} else {
			memcpy(out + w, "\xEF\xBF\xBD", 3);
			w += 3;
			i += skip;
		}
	}
	out[w] = '\0';
	free(*buf);
	*buf = out;
	return 0;
}

