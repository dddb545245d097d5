/* fuzz_trace_index.c — the trace index reader (services/trace/trace_read.c) on arbitrary bytes:
 * whatever it accepts is summarised and printed (`keynode trace show`), which must not crash on any
 * index the reader lets through. */
#include <stdint.h>
#include <stdio.h>

#include "trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *idx = NULL;
	kn_err err;
	if (kn_trace_parse(&idx, (const char *)data, size, "index.json", &err) != 0)
		return 0;
	kn_trace_summarise(idx);
	FILE *f = fopen("/dev/null", "w");
	if (f) {
		kn_trace_print(f, idx);
		fclose(f);
	}
	json_decref(idx);
	return 0;
}
