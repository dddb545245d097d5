/* fuzz_http_guard.c — the browser guards of the API (services/http/request.h kn_http_host_ok,
 * kn_http_origin_ok) on arbitrary bytes. The input is split at the first two NUL bytes into a Host
 * value, an Origin value and one allow-list entry. Every call must return without reading out of
 * bounds, and the contract must hold: a Host with control bytes or invalid UTF-8 is never
 * accepted, a Host holding evil.example never passes the loopback defaults, and without a list an
 * Origin passes only when it is "http://" + Host (up to case and trailing slashes). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "request.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *part(const uint8_t **p, size_t *left)
{
	const uint8_t *z = memchr(*p, 0, *left);
	size_t n = z ? (size_t)(z - *p) : *left;
	char *s = malloc(n + 1);
	if (!s)
		abort();
	memcpy(s, *p, n);
	s[n] = '\0';
	*p += z ? n + 1 : n;
	*left -= z ? n + 1 : n;
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data;
	size_t left = size;
	char *host = part(&p, &left), *origin = part(&p, &left), *allow = part(&p, &left);
	const char *const list[] = {allow};
	for (int loop = 0; loop < 2; loop++) {
		int ok = kn_http_host_ok(host, list, *allow ? 1 : 0, "127.0.0.1", loop);
		if (ok && !kn_http_text_ok(host, strlen(host)))
			abort();
		if (!*allow && loop && strstr(host, "evil.example") && kn_http_host_ok(host, list, 0, "127.0.0.1", 1))
			abort();
	}
	/* without a list only the same origin passes: origin == "http://" + host, up to case and
	 * trailing slashes (checked here by a plain reference implementation) */
	if (kn_http_origin_ok(origin, host, 0, list, 0)) {
		size_t ol = strlen(origin), hl = strlen(host);
		while (ol && origin[ol - 1] == '/')
			ol--;
		if (ol != hl + 7 || hl == 0)
			abort();
		for (size_t i = 0; i < ol; i++) {
			char want = i < 7 ? "http://"[i] : host[i - 7], got = origin[i];
			if (want >= 'A' && want <= 'Z')
				want = (char)(want + 32);
			if (got >= 'A' && got <= 'Z')
				got = (char)(got + 32);
			if (want != got)
				abort();
		}
	}
	(void)kn_http_origin_ok(NULL, host, 1, list, 1);
	char peer[64];
	kn_http_forwarded_for(origin, peer, sizeof peer); /* an X-Forwarded-For value */
	if (strlen(peer) >= sizeof peer || strchr(peer, ',') || strchr(peer, ' '))
		abort();
	(void)kn_http_host_ok(NULL, list, 1, NULL, 0);
	free(host);
	free(origin);
	free(allow);
	return 0;
}
