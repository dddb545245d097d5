/* fuzz_url.c — every URL form, the selector normaliser and the semantic phrase/judge on arbitrary
 * bytes. The input is "URL\nKEY" (no newline: the whole input is the URL and the key is "q").
 * Besides not crashing, it checks what the contracts promise: URL forms are valid UTF-8, a
 * query value exists or is KN_ENOTFOUND, selector normalisation is idempotent, scores lie in
 * [0, 1]. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "keynode/match.h"
#include "keynode/url.h"

static int valid_utf8(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		size_t need;
		unsigned char lo = 0x80, hi = 0xBF;
		if (*p < 0x80) {
			p++;
			continue;
		}
		if (*p >= 0xC2 && *p <= 0xDF)
			need = 1;
		else if (*p == 0xE0)
			need = 2, lo = 0xA0;
		else if (*p == 0xED)
			need = 2, hi = 0x9F;
		else if (*p >= 0xE1 && *p <= 0xEF)
			need = 2;
		else if (*p == 0xF0)
			need = 3, lo = 0x90;
		else if (*p == 0xF4)
			need = 3, hi = 0x8F;
		else if (*p >= 0xF1 && *p <= 0xF3)
			need = 3;
		else
			return 0;
		for (size_t i = 1; i <= need; i++) {
			if (p[i] < lo || p[i] > hi)
				return 0;
			lo = 0x80, hi = 0xBF;
		}
		p += need + 1;
	}
	return 1;
}

static void form(int (*fn)(char **, const char *), const char *url)
{
	char *out = NULL;
	int rc = fn(&out, url);
	if (rc == KN_ENOMEM)
		return;
	if (rc != 0 || !out || !valid_utf8(out))
		abort();
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1);
	if (!buf)
		return 0;
	if (size)
		memcpy(buf, data, size);
	buf[size] = '\0';

	/* Raw bytes, NULs included, through unquote. */
	char *out = NULL;
	if (kn_url_unquote(&out, buf, size, (int)(size & 1)) == 0 && !valid_utf8(out))
		abort();
	free(out);

	char *nl = memchr(buf, '\n', size);
	const char *key = "q";
	if (nl) {
		*nl = '\0';
		key = nl + 1;
	}
	const char *url = buf; /* up to the first NUL or newline */

	form(kn_url_include_form, url);
	form(kn_url_exact_form, url);
	form(kn_url_site_token, url);

	char *v = NULL;
	int rc = kn_url_query_param(&v, url, key);
	if (rc == 0 ? !v || !valid_utf8(v) : (v || (rc != KN_ENOTFOUND && rc != KN_ENOMEM)))
		abort();
	free(v);

	char *sel = NULL, *again = NULL;
	if (kn_selector_normalise(&sel, url) == 0) {
		if (kn_selector_normalise(&again, sel) == 0 && strcmp(sel, again) != 0)
			abort();
		free(again);
	}
	free(sel);

	char *phrase = NULL;
	if (kn_semantic_extract_phrase(&phrase, key) == 0) {
		const kn_semantic *sem = kn_semantic_offline();
		double score = -1;
		if (sem->judge(sem->ud, key, phrase, url, &score, NULL) == 0 && !(score >= 0 && score <= 1))
			abort();
	}
	free(phrase);

	free(buf);
	return 0;
}
