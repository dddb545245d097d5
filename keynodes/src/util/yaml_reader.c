/* yaml_reader.c — the libyaml front-end every YAML loader reads through (keynode/yaml_reader.h):
 * a parser over a buffer handing out one event at a time with its 1-based position, and
 * libyaml's error state in words and a position. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "keynode/error.h"
#include "keynode/yaml_reader.h"

/* Whether buf[i] ends a line as libyaml counts them: LF, CR LF (at the LF), or a lone CR. */
static int line_end(const unsigned char *buf, size_t len, size_t i)
{
	return buf[i] == '\n' || (buf[i] == '\r' && (i + 1 == len || buf[i + 1] != '\n'));
}

static int clamp(size_t v)
{
	return v < (size_t)INT_MAX ? (int)v + 1 : INT_MAX;
}

int kn_yaml_line(yaml_mark_t m)
{
	return clamp(m.line);
}

int kn_yaml_col(yaml_mark_t m)
{
	return clamp(m.column);
}

/* Position of a byte offset (libyaml reader errors carry only that): lines, UTF-8 characters. */
static void pos_of_offset(const unsigned char *buf, size_t len, size_t off, int *line, int *col)
{
	*line = *col = 1;
	for (size_t i = 0; i < off && i < len; i++) {
		if (line_end(buf, len, i))
			(*line)++, *col = 1;
		else if ((buf[i] & 0xC0) != 0x80 && buf[i] != '\r')
			(*col)++;
	}
}

/* Whether the line of m (0-based) has a tab in its indentation or at m's column. */
static int tab_near(const unsigned char *buf, size_t len, yaml_mark_t m)
{
	size_t i = 0, line = 0;
	for (; i < len && line < m.line; i++)
		if (line_end(buf, len, i))
			line++;
	size_t start = i;
	while (i < len && (buf[i] == ' ' || buf[i] == '\t'))
		if (buf[i++] == '\t')
			return 1;
	for (size_t col = 0; start < len && !strchr("\r\n", buf[start]); start++) {
		if ((buf[start] & 0xC0) == 0x80)
			continue;
		if (col++ == m.column)
			return buf[start] == '\t';
	}
	return 0;
}

int kn_yaml_parse_error(const yaml_parser_t *p, const unsigned char *buf, size_t len,
                        const char *what, int *line, int *col, char *msg, size_t cap)
{
	const char *problem = p->problem ? p->problem : "syntax error";
	if (p->error == YAML_MEMORY_ERROR) {
		*line = clamp(p->mark.line);
		*col = clamp(p->mark.column);
		snprintf(msg, cap, "out of memory");
		return KN_ENOMEM;
	}
	if (p->error == YAML_READER_ERROR) {
		pos_of_offset(buf, len, p->problem_offset, line, col);
		if (p->problem_value != -1)
			snprintf(msg, cap, "invalid text: %s (0x%X); %s is UTF-8", problem,
			         (unsigned)p->problem_value, what);
		else
			snprintf(msg, cap, "invalid text: %s; %s is UTF-8", problem, what);
		return KN_EINVAL;
	}
	const char *hint = tab_near(buf, len, p->problem_mark) ? " (tabs cannot indent YAML; use spaces)"
	                                                       : "";
	*line = clamp(p->problem_mark.line);
	*col = clamp(p->problem_mark.column);
	int cl = clamp(p->context_mark.line), cc = clamp(p->context_mark.column);
	if (p->context && (cl != *line || cc != *col))
		snprintf(msg, cap, "invalid YAML: %s %s started at %d:%d%s", problem, p->context, cl, cc,
		         hint);
	else if (p->context)
		snprintf(msg, cap, "invalid YAML: %s %s%s", problem, p->context, hint);
	else
		snprintf(msg, cap, "invalid YAML: %s%s", problem, hint);
	return KN_EINVAL;
}

int kn_yaml_err_set(kn_err *err, int code, const char *name, int line, int col, const char *msg)
{
	kn_err_set(err, code, "%s:%d:%d: %s", name, line, col, msg);
	if (err)
		for (char *p = err->msg; *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				*p = '?';
	return code;
}

int kn_yaml_reader_init(kn_yaml_reader *r, const void *buf, size_t len, const char *what,
                        int utf8_only)
{
	memset(r, 0, sizeof *r);
	r->buf = buf;
	r->len = len;
	r->what = what;
	r->line = r->col = 1;
	if (!yaml_parser_initialize(&r->parser))
		return KN_ENOMEM;
	yaml_parser_set_input_string(&r->parser, r->buf, len);
	if (utf8_only)
		yaml_parser_set_encoding(&r->parser, YAML_UTF8_ENCODING);
	return 0;
}

int kn_yaml_reader_next(kn_yaml_reader *r)
{
	if (r->live)
		yaml_event_delete(&r->ev);
	r->live = 0;
	if (!yaml_parser_parse(&r->parser, &r->ev))
		return kn_yaml_parse_error(&r->parser, r->buf, r->len, r->what, &r->line, &r->col, r->msg,
		                           sizeof r->msg);
	r->live = 1;
	r->line = kn_yaml_line(r->ev.start_mark);
	r->col = kn_yaml_col(r->ev.start_mark);
	return 0;
}

void kn_yaml_reader_done(kn_yaml_reader *r)
{
	if (r->live)
		yaml_event_delete(&r->ev);
	r->live = 0;
	yaml_parser_delete(&r->parser);
}
