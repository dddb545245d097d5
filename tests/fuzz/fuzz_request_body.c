/* fuzz_request_body.c — the request body parser (request.h) on arbitrary bytes, and the request
 * matcher over what it parsed. The input is "CONTENT-TYPE\nBODY" (no newline: the whole input is a
 * JSON body). Besides not crashing, it checks what the contract promises: at most
 * KN_BODY_MAX_FIELDS fields, every name and value valid UTF-8 (kn_utf8_next) without NUL, and a
 * spec that asks nothing matching every request. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "keynode/request.h"
#include "keynode/utf8.h"

static void check_text(const char *s)
{
	size_t n = strlen(s), skip;
	for (size_t i = 0; i < n;) {
		size_t k = kn_utf8_next((const unsigned char *)s + i, n - i, &skip);
		if (k == 0)
			abort();
		i += k;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = (const char *)data, *nl = memchr(in, '\n', size);
	char ct[256] = "application/json";
	const char *body = in;
	size_t len = size;
	if (nl && (size_t)(nl - in) < sizeof ct) {
		memcpy(ct, in, (size_t)(nl - in));
		ct[nl - in] = '\0';
		body = nl + 1;
		len = size - (size_t)(nl - in) - 1;
	}
	if (strlen(ct) != strcspn(ct, "\n"))
		abort();
	kn_body *b = NULL;
	if (kn_body_parse(&b, ct, body, len) != 0)
		return 0; /* out of memory only */
	if (b->n > KN_BODY_MAX_FIELDS)
		abort();
	for (size_t i = 0; i < b->n; i++) {
		check_text(b->fields[i].name);
		check_text(b->fields[i].value);
	}
	kn_request req = {.method = "POST", .url = "http://127.0.0.1/api", .fields = b->fields,
	                  .n_fields = b->n};
	kn_request_spec none = {0};
	if (kn_request_match(&none, &req, NULL, 0, NULL) != 1)
		abort();
	kn_request_spec *s = calloc(1, sizeof *s);
	if (s && b->n && kn_request_spec_add_field(s, NULL, b->fields[0].name, KN_MATCH_EXACT,
	                                           b->fields[0].value, NULL) == 0 &&
	    kn_request_match(s, &req, NULL, 0, NULL) != 1)
		abort(); /* a field's own value matches it */
	kn_request_spec_free(s);
	kn_body_free(b);
	return 0;
}
