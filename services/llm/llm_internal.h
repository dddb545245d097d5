/* llm_internal.h — what the files of services/llm share and nobody else needs. */
#ifndef KEYNODE_LLM_INTERNAL_H
#define KEYNODE_LLM_INTERNAL_H

#include <stdio.h>

#include "keynode/error.h"

/* One log line on f (NULL: nothing): `level=LEVEL component=llm msg="…"`, the message formatted
 * printf-style with quotes and control bytes flattened so the line stays one parseable line. */
void kn_llm_logf(FILE *f, const char *level, const char *fmt, ...)
	KN_PRINTF(3, 4)
	;

#endif
