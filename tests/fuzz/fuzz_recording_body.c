/* fuzz_recording_body.c — the body of POST /api/tasks/{id}/recordings (services/runs/api_recordings.c)
 * on arbitrary bytes: every call returns 0 or KN_EINVAL with a message, and an accepted
 * reason is 0..KN_RECORDING_REASON_MAX bytes without control characters. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api_recordings.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char reason[KN_RECORDING_REASON_MAX + 1];
	kn_err err = {0};
	int rc = kn_api_recording_body_parse((const char *)data, size, reason, &err);
	if (rc != 0 && (rc != KN_EINVAL || !err.msg[0]))
		abort();
	if (rc == 0) {
		size_t n = strnlen(reason, sizeof reason);
		if (n > KN_RECORDING_REASON_MAX)
			abort();
		for (size_t i = 0; i < n; i++)
			if ((unsigned char)reason[i] < 0x20 || reason[i] == 0x7f)
				abort();
	}
	return 0;
}
