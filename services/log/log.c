/* log.c — the one log line (log.h). Each line is built in a buffer and written with one fwrite. */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* a line being built: text, length, and whether it was cut */
struct line {
	char buf[KN_LOG_LINE_MAX + 8];
	size_t n;
	int cut;
};

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
	put(l, "level=", 0);
	put(l, level ? level : "info", 1);
	put(l, " component=", 0);
	put(l, component ? component : "keynode", 1);
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
	fwrite(l->buf, 1, l->n, stderr);
}

void kn_log(const char *level, const char *component, const char *fmt, ...)
{
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
