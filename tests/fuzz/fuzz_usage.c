/* fuzz_usage.c — the KEYNODE_USAGE_FILE reader (services/runner/usage.c), a trust boundary: the agent
 * writes the file. Any input gives NULL or a usage whose counts are sane (no negative tokens or
 * dollars, at most 16 models); the input goes through a file, as in a run. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "runner.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[] = "/tmp/kn-fuzz-usage.XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return 0;
	FILE *f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(path);
		return 0;
	}
	fwrite(data, 1, size, f);
	fclose(f);
	json_t *u = kn_usage_read(path);
	unlink(path);
	if (u && (json_integer_value(json_object_get(u, "input_tokens")) < 0 ||
	          json_integer_value(json_object_get(u, "output_tokens")) < 0 ||
	          json_number_value(json_object_get(u, "usd")) < 0 ||
	          json_array_size(json_object_get(u, "models")) > 16))
		abort();
	json_decref(u);
	return 0;
}
