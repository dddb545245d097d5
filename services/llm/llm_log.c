/* llm_log.c — the one-line log format of services/llm (docs/development.md "House style"). */
#include <stdarg.h>
#include <stdio.h>

#include "llm_internal.h"

void kn_llm_logf(FILE *f, const char *level, const char *fmt, ...)
{
	if (!f)
		return;
	char msg[600];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	for (char *p = msg; *p; p++)
		if (*p == '"')
			*p = '\'';
		else if ((unsigned char)*p < 0x20 || *p == 0x7F)
			*p = ' ';
	fprintf(f, "level=%s component=llm msg=\"%s\"\n", level, msg);
}
