/* fuzz_sites_rules.c — the `_redirects` parser of `keynode sites` (services/http/sites_rules.h) on
 * arbitrary bytes. Besides not crashing it holds the parser to its promise: every rule it accepts
 * has a FROM starting with '/', a TO starting with '/' (not "//") or http(s)://, both printable
 * ASCII without spaces (a Location header can never be split or smuggled), a status from the
 * allowed five, distinct FROMs, and each FROM finds its own rule. The same bytes as a `kn-delay`
 * value: -1 or a delay in 1..KN_SITES_DELAY_MAX_MS. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sites_rules.h"

static int clean(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s <= 0x20 || (unsigned char)*s >= 0x7f)
			return 0;
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *value = malloc(size + 1);
	if (!value)
		return 0;
	memcpy(value, data, size);
	value[size] = '\0';
	int ms = kn_sites_delay_ms(value);
	free(value);
	if (ms != -1 && (ms < 1 || ms > KN_SITES_DELAY_MAX_MS))
		abort();
	kn_sites_rules *r = NULL;
	kn_err err;
	int rc = kn_sites_rules_parse(&r, (const char *)data, size, "_redirects", &err);
	if (rc != 0 && rc != KN_EINVAL && rc != KN_ELIMIT && rc != KN_ENOMEM)
		abort();
	if (rc != 0) {
		if (r)
			abort();
		return 0;
	}
	for (size_t i = 0; i < r->n; i++) {
		const kn_sites_redirect *d = &r->redirects[i];
		int st = d->status;
		if (d->from[0] != '/' || !clean(d->from) || !clean(d->to) ||
		    (st != 301 && st != 302 && st != 303 && st != 307 && st != 308))
			abort();
		if (!(strncmp(d->to, "http://", 7) == 0 || strncmp(d->to, "https://", 8) == 0 ||
		      (d->to[0] == '/' && d->to[1] != '/')))
			abort();
		if (kn_sites_rules_find(r, d->from) != d)
			abort();
	}
	kn_sites_rules_free(r);
	return 0;
}
