/* fuzz_trace_drift.c — the drift diff (services/trace/trace_drift.c) on arbitrary JSON: the input is
 * {"pass", "fail", "pass_trace", "fail_trace"} (any member may be missing or of any type); whatever
 * kn_trace_drift accepts must give an answer that serialises, never a crash. */
#include <stdint.h>
#include <stdlib.h>

#include "trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *in = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);
	if (!in)
		return 0;
	json_t *out = NULL;
	kn_err err;
	if (kn_trace_drift(&out, json_object_get(in, "pass"), json_object_get(in, "pass_trace"),
	                   json_object_get(in, "fail"), json_object_get(in, "fail_trace"), &err) == 0) {
		char *s = json_dumps(out, JSON_COMPACT);
		free(s);
		json_decref(out);
	}
	json_decref(in);
	return 0;
}
