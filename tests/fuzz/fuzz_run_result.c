/* fuzz_run_result.c — `keynode run`'s result.json reader (services/runner/summary.h), a trust boundary:
 * --resume and the summary read whatever is in the output folder. Any input either parses into a row
 * whose strings are terminated and whose counts are sane, or is refused with a reason. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "summary.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	kn_run_row r;
	kn_err err = {0};
	if (kn_run_row_parse(&r, (const char *)data, size, &err) != 0) {
		if (!err.msg[0])
			abort();
		return 0;
	}
	if (strlen(r.task) >= sizeof r.task || strlen(r.reason) >= sizeof r.reason || r.total < 0 ||
	    r.missing < 0 || r.missing > r.total)
		abort();
	if (strcmp(r.status, "done") != 0 && strcmp(r.status, "error") != 0 &&
	    strcmp(r.status, "interrupted") != 0 && strcmp(r.status, "blocked") != 0 &&
	    strcmp(r.status, "unjudged") != 0)
		abort();
	return 0;
}
