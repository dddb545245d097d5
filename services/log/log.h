/* log.h — keynode's one log line (docs/development.md "Logging"):
 *
 *   level=LEVEL component=COMPONENT msg="MESSAGE" key=value …
 *
 * written to stderr as a single write, so lines of several threads never interleave. Every module logs
 * through these functions; none has a private logger. A value that comes from outside (a URL, a peer's
 * message, a file name) goes through kn_log_msg's message or kn_log_quote, so a quote or a newline in it
 * can never break the one-line, key=value format. */
#ifndef KEYNODE_LOG_H
#define KEYNODE_LOG_H

#include <stddef.h>

#include "keynode/error.h"

/* The longest line written; a longer one is cut (the cut is marked with "…"). */
#define KN_LOG_LINE_MAX 1024

/* level=LEVEL component=COMPONENT, then FMT's text (its fields, as the caller formats them; control
 * characters become spaces). */
void kn_log(const char *level, const char *component, const char *fmt, ...) KN_PRINTF(3, 4);

/* level=LEVEL component=COMPONENT msg="MSG", then FIELDS_FMT's text when it is not NULL. Quotes in MSG
 * become apostrophes, control characters spaces. */
void kn_log_msg(const char *level, const char *component, const char *msg, const char *fields_fmt, ...)
	KN_PRINTF(4, 5);

/* Copy S into OUT (CAP bytes, always terminated) so it can stand between double quotes in a log line:
 * quotes become apostrophes, control characters spaces. S may be NULL (empty). Returns OUT. */
char *kn_log_quote(char *out, size_t cap, const char *s);

/* One libwebsockets log line (lws_set_log_level's emit callback, whose LEVEL is LLL_ERR or another):
 * level=error|warn component=COMPONENT msg="LINE" with LINE's trailing blanks dropped. */
void kn_log_lws(const char *component, int level_is_error, const char *line);

#endif
