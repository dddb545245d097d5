/* log.c — the one log line (log.h). Each line is built in a buffer in logfmt and written with one
 * fwrite; on a terminal that buffer is rearranged for a person first. The level filter is one atomic
 * int, read from KEYNODE_LOG at the first line unless kn_log_set_level came first. */
#define _POSIX_C_SOURCE 200809L /* localtime_r */
#include "log.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* a line being built: text, length, whether it was cut, and where the fields after the head start */
struct line {
	char buf[KN_LOG_LINE_MAX + 8];
	size_t n;
	int cut;
	size_t body;
	const char *level, *component;
};

/* ---- levels ---- */

enum { L_DEBUG, L_INFO, L_WARN, L_ERROR };
static const char *const level_names[] = {"debug", "info", "warn", "error"};

static atomic_int min_level = -1; /* -1: not decided yet */

static int level_of(const char *name)
{
	for (int i = L_DEBUG; name && i <= L_ERROR; i++)
		if (strcmp(name, level_names[i]) == 0)
			return i;
	return -1;
}

static int threshold(void)
{
	int v = atomic_load(&min_level);
	if (v >= 0)
		return v;
	int env = level_of(getenv("KEYNODE_LOG"));
	int expected = -1;
	atomic_compare_exchange_strong(&min_level, &expected, env >= 0 ? env : L_INFO);
	return atomic_load(&min_level);
}

int kn_log_set_level(const char *name)
{
	int v = level_of(name);
	if (v < 0)
		return KN_EINVAL;
	atomic_store(&min_level, v);
	return 0;
}

int kn_log_enabled(const char *level)
{
	int v = level ? level_of(level) : L_INFO;
	return (v < 0 ? L_ERROR : v) >= threshold();
}

/* ---- building a line ---- */

static void put_raw(struct line *l, const char *s, size_t len, int flatten_quotes)
{
	for (size_t i = 0; i < len && !l->cut; i++) {
		unsigned char c = (unsigned char)s[i];
		if (l->n >= KN_LOG_LINE_MAX) {
			l->cut = 1;
			break;
		}
		if (c < 0x20 || c == 0x7F)
			c = ' ';
		else if (flatten_quotes && c == '"')
			c = '\'';
		l->buf[l->n++] = (char)c;
	}
}

static void put(struct line *l, const char *s, int flatten_quotes)
{
	if (s)
		put_raw(l, s, strlen(s), flatten_quotes);
}

static void putv(struct line *l, const char *fmt, va_list ap, int flatten_quotes)
{
	char tmp[KN_LOG_LINE_MAX];
	int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	if (n < 0)
		return;
	put_raw(l, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1, flatten_quotes);
	if ((size_t)n >= sizeof tmp)
		l->cut = 1;
}

static void head(struct line *l, const char *level, const char *component)
{
	l->n = 0;
	l->cut = 0;
	l->level = level ? level : "info";
	l->component = component ? component : "keynode";
	put(l, "level=", 0);
	put(l, l->level, 1);
	put(l, " component=", 0);
	put(l, l->component, 1);
	l->body = l->n;
}

/* The line for a person: `HH:MM:SS LEVEL COMPONENT MESSAGE  other fields`, from the logfmt line L
 * (whose fields start at l->body; the message is its msg="…" field, when it has one). */
static size_t for_terminal(const struct line *l, char *out, size_t cap)
{
	const char *b = l->buf + l->body, *end = l->buf + l->n - 1; /* without the newline */
	const char *m = NULL;
	for (const char *p = b; p + 6 <= end && !m; p++)
		if ((p == b || p[-1] == ' ') && memcmp(p, "msg=\"", 5) == 0)
			m = p;
	const char *mv = m ? m + 5 : end, *mend = mv;
	while (mend < end && *mend != '"')
		mend++;
	const char *after = mend < end ? mend + 1 : end;
	while (after < end && *after == ' ')
		after++;
	while (b < end && *b == ' ')
		b++;
	size_t before = m ? (size_t)(m - b) : (size_t)(end - b);
	while (before && b[before - 1] == ' ')
		before--;
	time_t now = time(NULL);
	struct tm tm;
	localtime_r(&now, &tm);
	char lv[8];
	size_t i = 0;
	for (; l->level[i] && i < sizeof lv - 1; i++)
		lv[i] = (char)(l->level[i] >= 'a' && l->level[i] <= 'z' ? l->level[i] - 32 : l->level[i]);
	lv[i] = '\0';
	/* the message, two spaces, the fields (those before msg= first) */
	const char *sep1 = before && mend > mv ? "  " : "", *sep2 = after == end ? "" : before ? " " : "  ";
	int n = snprintf(out, cap, "%02d:%02d:%02d %-5s %-8s %.*s%s%.*s%s%.*s\n", tm.tm_hour, tm.tm_min,
	                 tm.tm_sec, lv, l->component, (int)(mend - mv), mv, sep1, (int)before, b, sep2,
	                 (int)(end - after), after);
	if (n < 0)
		return 0;
	if ((size_t)n >= cap) { /* keep the newline */
		out[cap - 2] = '\n';
		return cap - 1;
	}
	return (size_t)n;
}

/* " " and the caller's fields (fmt's text) when fmt is neither NULL nor empty. */
static void fields(struct line *l, const char *fmt, va_list ap)
{
	if (fmt && *fmt) {
		put(l, " ", 0);
		putv(l, fmt, ap, 0);
	}
}

static void emit(struct line *l)
{
	if (l->cut) {
		while (l->n && ((unsigned char)l->buf[l->n - 1] & 0xC0) == 0x80) /* never half a character */
			l->n--;
		if (l->n && (unsigned char)l->buf[l->n - 1] >= 0xC0)
			l->n--;
		static const char mark[] = "\xe2\x80\xa6"; /* … */
		memcpy(l->buf + l->n, mark, sizeof mark - 1);
		l->n += sizeof mark - 1;
	}
	l->buf[l->n++] = '\n';
	if (isatty(STDERR_FILENO)) {
		char human[KN_LOG_LINE_MAX + 64];
		size_t n = for_terminal(l, human, sizeof human);
		if (n) {
			fwrite(human, 1, n, stderr);
			return;
		}
	}
	fwrite(l->buf, 1, l->n, stderr);
}

void kn_log(const char *level, const char *component, const char *fmt, ...)
{
	if (!kn_log_enabled(level))
		return;
	struct line l;
	head(&l, level, component);
	va_list ap;
	va_start(ap, fmt);
	fields(&l, fmt, ap);
	va_end(ap);
	emit(&l);
}

void kn_log_msg(const char *level, const char *component, const char *msg, const char *fields_fmt, ...)
{
	if (!kn_log_enabled(level))
		return;
	struct line l;
	head(&l, level, component);
	put(&l, " msg=\"", 0);
	put(&l, msg, 1);
	put(&l, "\"", 0);
	va_list ap;
	va_start(ap, fields_fmt);
	fields(&l, fields_fmt, ap);
	va_end(ap);
	emit(&l);
}

void kn_log_msgf(const char *level, const char *component, const char *fmt, ...)
{
	if (!kn_log_enabled(level))
		return;
	struct line l;
	head(&l, level, component);
	put(&l, " msg=\"", 0);
	if (fmt) {
		va_list ap;
		va_start(ap, fmt);
		putv(&l, fmt, ap, 1);
		va_end(ap);
	}
	put(&l, "\"", 0);
	emit(&l);
}

char *kn_log_quote(char *out, size_t cap, const char *s)
{
	if (!out || cap == 0)
		return out;
	size_t n = 0;
	for (; s && *s && n + 1 < cap; s++) {
		unsigned char c = (unsigned char)*s;
		out[n++] = c == '"' ? '\'' : (c < 0x20 || c == 0x7F) ? ' ' : (char)c;
	}
	out[n] = '\0';
	return out;
}

void kn_log_lws(const char *component, int level_is_error, const char *line)
{
	if (!kn_log_enabled(level_is_error ? "error" : "warn"))
		return;
	size_t n = line ? strlen(line) : 0;
	while (n && (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == ' '))
		n--;
	struct line l;
	head(&l, level_is_error ? "error" : "warn", component);
	put(&l, " msg=\"", 0);
	put_raw(&l, line ? line : "", n, 1);
	put(&l, "\"", 0);
	emit(&l);
}
