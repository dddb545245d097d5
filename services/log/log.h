/* log.h — keynode's one log line (docs/development.md "Logging"):
 *
 *   level=LEVEL component=COMPONENT msg="MESSAGE" key=value …
 *
 * written to stderr as a single write, so lines of several threads never interleave. Every module logs
 * through these functions; none has a private logger. A value that comes from outside (a URL, a peer's
 * message, a file name) goes through kn_log_msg's message or kn_log_quote, so a quote or a newline in it
 * can never break the one-line, key=value format.
 *
 * Levels are debug, info, warn and error; lines below the process's level are not written (info unless
 * KEYNODE_LOG or `keynode --log-level` says otherwise). When stderr is a terminal the same line is shown
 * for a person instead: `HH:MM:SS LEVEL COMPONENT MESSAGE  key=value …`; on a pipe or a file it is the
 * logfmt line above, whatever the level. */
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

/* level=LEVEL component=COMPONENT msg="…", the message formatted from FMT (quotes in it become
 * apostrophes, control characters spaces): for a message that carries its own values. */
void kn_log_msgf(const char *level, const char *component, const char *fmt, ...) KN_PRINTF(3, 4);

/* Copy S into OUT (CAP bytes, always terminated) so it can stand between double quotes in a log line:
 * quotes become apostrophes, control characters spaces. S may be NULL (empty). Returns OUT. */
char *kn_log_quote(char *out, size_t cap, const char *s);

/* The least level written from now on: NAME is debug, info, warn or error. Returns 0, or KN_EINVAL for
 * any other name (the level is then unchanged). Until it is called the level is the environment
 * variable KEYNODE_LOG's, or info when that is unset or not a level. */
int kn_log_set_level(const char *name);

/* 1 when a line of LEVEL would be written now (an unknown LEVEL counts as error), else 0. */
int kn_log_enabled(const char *level);

/* One libwebsockets log line (lws_set_log_level's emit callback, whose LEVEL is LLL_ERR or another):
 * level=error|warn component=COMPONENT msg="LINE" with LINE's trailing blanks dropped. */
void kn_log_lws(const char *component, int level_is_error, const char *line);

/* Route libwebsockets' log lines (errors and warnings) into kn_log_lws as component=lws. lws's hook is
 * process-global, so it is set here and nowhere else: the first call sets it, later calls do nothing.
 * Thread-safe. */
void kn_log_lws_hook(void);

/* On the calling thread only, until called again with BUF NULL: lws error lines are kept in BUF (CAP
 * bytes, the last one wins; BUF is emptied here) and lws warnings dropped, instead of being logged. A
 * server creating its vhost turns a bind failure into its own one error message this way. */
void kn_log_lws_capture(char *buf, size_t cap);

#endif
