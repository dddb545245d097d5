/* fuzz_blocked.c — blocked detection's judge on arbitrary bytes: the input is "REQUESTED-URL\nPROBE-JSON"
 * (no newline: the whole input is the probe answer, page-controlled). The judge must accept or refuse
 * without crashing, fill only NUL-terminated fields, and a report built from any hit must be a
 * valid JSON object (every string valid UTF-8). The requested URL also goes through the country
 * marker. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "blocked.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *nl = memchr(data, '\n', size);
	char *req = NULL;
	const char *json = (const char *)data;
	size_t jl = size;
	if (nl) {
		size_t rl = (size_t)(nl - (const char *)data);
		if (!(req = malloc(rl + 1)))
			return 0;
		memcpy(req, data, rl);
		req[rl] = '\0';
		json = nl + 1;
		jl = size - rl - 1;
		char c[8];
		kn_blocked_country(req, c, sizeof c);
	}
	kn_blocked_hit h;
	int r = kn_blocked_judge(&h, NULL, req, json, jl);
	if (r < -1000 || r > 1 || memchr(h.url, 0, sizeof h.url) == NULL ||
	    memchr(h.detail, 0, sizeof h.detail) == NULL || memchr(h.signature, 0, sizeof h.signature) == NULL)
		abort();
	if (r == 1) {
		json_t *o = kn_blocked_hit_json(&h, 1);
		if (!json_is_object(o))
			abort(); /* a hit's fields are always valid UTF-8 */
		json_decref(o);
	}
	free(req);
	return 0;
}
