/* fuzz_spool.c — the spool record parser (services/store/spool.h), a trust boundary: the input is
 * split into lines as the spool reader does; every line that parses must format back to a line
 * that parses to the same record. The whole input is also framed with a correct header (length and
 * checksum), so the payload checks are reached without guessing a CRC. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spool.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static void roundtrip(const char *p, size_t len)
{
	kn_spool_rec r;
	kn_err err;
	if (kn_spool_parse(&r, p, len, &err) != 0)
		return;
	char *line;
	size_t n;
	if (kn_spool_format(&line, &n, &r) == 0) {
		kn_spool_rec b;
		if (kn_spool_parse(&b, line, n - 1, &err) != 0 || b.kind != r.kind || b.seq != r.seq ||
		    b.task_version != r.task_version || !same(b.run_id, r.run_id) || !same(b.text, r.text) ||
		    !same(b.ended, r.ended) || !same(b.browser, r.browser) || !same(b.run_kind, r.run_kind) ||
		    !same(b.started, r.started))
			abort();
		kn_spool_rec_clear(&b);
		free(line);
	}
	kn_spool_rec_clear(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size <= 65536) {
		char *framed = malloc(size + 32);
		if (!framed)
			return 0;
		int h = snprintf(framed, 32, "KN1 %zu %08x ", size, (unsigned)kn_spool_crc32(data, size));
		memcpy(framed + h, data, size);
		roundtrip(framed, (size_t)h + size);
		free(framed);
	}
	const char *p = (const char *)data, *end = p + size;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		roundtrip(p, len);
		p += len + 1;
	}
	return 0;
}
