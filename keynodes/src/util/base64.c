/* base64.c — standard base64 decoding (base64.h), one implementation for every caller. */
#include <stdlib.h>

#include "keynode/base64.h"
#include "keynode/error.h"

int kn_base64_decode(unsigned char **out, size_t *len, const char *in, size_t n)
{
	*out = NULL;
	*len = 0;
	unsigned char *o = malloc(n / 4 * 3 + 3);
	if (!o)
		return KN_ENOMEM;
	unsigned acc = 0;
	int bits = 0;
	size_t w = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)in[i];
		int v;
		if (ch >= 'A' && ch <= 'Z')
			v = ch - 'A';
		else if (ch >= 'a' && ch <= 'z')
			v = ch - 'a' + 26;
		else if (ch >= '0' && ch <= '9')
			v = ch - '0' + 52;
		else if (ch == '+')
			v = 62;
		else if (ch == '/')
			v = 63;
		else if (ch == '=' || ch == '\n' || ch == '\r' || ch == ' ')
			continue;
		else {
			free(o);
			return KN_EINVAL;
		}
		acc = (acc << 6) | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			o[w++] = (unsigned char)(acc >> bits);
			acc &= (1u << bits) - 1;
		}
	}
	*out = o;
	*len = w;
	return 0;
}

int kn_base64_encode(char **out, const unsigned char *in, size_t n)
{
	static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char *o = malloc((n + 2) / 3 * 4 + 1), *p = o;
	*out = o;
	if (!o)
		return KN_ENOMEM;
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)in[i] << 16 | (i + 1 < n ? (unsigned)in[i + 1] << 8 : 0) |
		             (i + 2 < n ? in[i + 2] : 0);
		*p++ = a[v >> 18 & 63];
		*p++ = a[v >> 12 & 63];
		*p++ = i + 1 < n ? a[v >> 6 & 63] : '=';
		*p++ = i + 2 < n ? a[v & 63] : '=';
	}
	*p = '\0';
	return 0;
}
