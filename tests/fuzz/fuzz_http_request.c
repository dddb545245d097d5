/* fuzz_http_request.c — the API's request parsing (services/http/request.h) on arbitrary bytes.
 * The input is split at the first two NUL bytes into a path, a raw query and a body; the first
 * byte picks the method. Every call must return a route or a clean error, never read out of
 * bounds, and whatever it accepts must satisfy the contract: a path parameter is valid UTF-8
 * without control bytes and within its cap, query values likewise. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "request.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	kn_http_method m = (kn_http_method)(data[0] % 4);
	data++;
	size--;
	const uint8_t *z1 = memchr(data, 0, size);
	size_t pl = z1 ? (size_t)(z1 - data) : size;
	char *path = malloc(pl + 1);
	if (!path)
		return 0;
	memcpy(path, data, pl);
	path[pl] = '\0';
	const uint8_t *rest = z1 ? z1 + 1 : data + size;
	size_t rl = (size_t)(data + size - rest);
	const uint8_t *z2 = memchr(rest, 0, rl);
	size_t ql = z2 ? (size_t)(z2 - rest) : rl;
	const char *body = z2 ? (const char *)z2 + 1 : "";
	size_t bl = z2 ? (size_t)(data + size - (z2 + 1)) : 0;

	kn_route r;
	char id[KN_HTTP_MAX_ID + 1];
	int rc = kn_http_route(&r, id, sizeof id, m, path);
	if (rc == 0) {
		if (r <= KN_ROUTE_NONE || r >= KN_ROUTE__COUNT)
			abort();
		size_t n = strlen(id);
		if (n > KN_HTTP_MAX_ID || (n && !kn_http_text_ok(id, n)))
			abort();
		(void)kn_route_name(r);
	}
	kn_http_query q = {0};
	kn_err err;
	if (kn_http_query_parse(&q, (const char *)rest, ql, &err) == 0 || q.n) {
		for (size_t i = 0; i < q.n; i++) {
			if (strlen(q.kv[i].value) > KN_HTTP_MAX_QUERY_VALUE ||
			    !kn_http_text_ok(q.kv[i].value, strlen(q.kv[i].value)))
				abort();
		}
		int v;
		(void)kn_http_query_int(&v, &q, "limit", 50, 1, 1000, &err);
	}
	kn_http_query_clear(&q);
	json_t *j = NULL;
	if (kn_http_json_object(&j, body, bl, &err) == 0) {
		const char *s;
		if (kn_http_json_string(&s, j, "task", 1, 256, &err) == 0 &&
		    (strlen(s) > 256 || !kn_http_text_ok(s, strlen(s))))
			abort();
		json_decref(j);
	}
	char hdr[64];
	size_t hl = pl < sizeof hdr - 1 ? pl : sizeof hdr - 1;
	memcpy(hdr, path, hl);
	hdr[hl] = '\0';
	(void)kn_http_auth_ok(hdr, "token");
	free(path);
	return 0;
}
