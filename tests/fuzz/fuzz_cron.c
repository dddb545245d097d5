/* fuzz_cron.c — cron expressions (services/scheduler/cron.h) on arbitrary bytes. Besides not
 * crashing, it checks the contracts: a parsed expression's next fire is strictly later, on a whole
 * minute, and prev(next) == next; prev(t) <= t; a failed parse leaves *out untouched and says why. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cron.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1);
	if (!buf)
		return 0;
	if (size)
		memcpy(buf, data, size);
	buf[size] = '\0';
	kn_cron c, before;
	memset(&c, 0x5a, sizeof c);
	before = c;
	kn_err err = { 0 };
	int rc = kn_cron_parse(&c, buf, &err);
	if (rc != 0) {
		if (memcmp(&c, &before, sizeof c) != 0 || err.code != rc || !err.msg[0] ||
		    strncmp(err.msg, "cron: ", 6) != 0)
			abort();
		free(buf);
		return 0;
	}
	/* a start time from the input's length, so the corpus varies it a little */
	int64_t t0 = 1700000000 + (int64_t)size * 86413;
	int64_t next, prev, again;
	rc = kn_cron_next(&c, t0, &next, &err);
	if (rc == 0) {
		if (next <= t0 || next % 60 != 0)
			abort();
		if (kn_cron_prev(&c, next, &prev, &err) != 0 || prev != next)
			abort();
		if (kn_cron_prev(&c, next - 1, &prev, &err) == 0 &&
		    (prev > t0 || kn_cron_next(&c, prev, &again, &err) != 0 || again != next))
			abort();
	} else if (rc != KN_ENOTFOUND) {
		abort();
	}
	if (kn_cron_prev(&c, t0, &prev, &err) == 0 && prev > t0)
		abort();
	free(buf);
	return 0;
}
