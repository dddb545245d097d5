/* task_yaml_errors.c — how the YAML task loader words its errors. Every message reads
 * "name:line:col: task 'id' key node 2: message" (fail), names what was found instead of what was
 * expected (found), keeps document text short and on one line (clip), and translates libyaml's
 * own error state — reader errors that carry only a byte offset, parser errors with their marks,
 * a hint when tabs indent — into the same form (yaml_fail). */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "task_yaml_internal.h"

/* s shortened for a message: whole UTF-8 characters, "..." when cut. Returns dst. */
const char *kn_ty_clip(char *dst, size_t cap, const char *s)
{
	size_t n = strlen(s);
	if (n < cap) {
		memcpy(dst, s, n + 1);
		return dst;
	}
	size_t keep = cap - 4;
	while (keep > 0 && ((unsigned char)s[keep] & 0xC0) == 0x80)
		keep--;
	memcpy(dst, s, keep);
	memcpy(dst + keep, "...", 4);
	return dst;
}

/* Record an error as "name:line:col: context: message"; returns code. */
int kn_ty_fail(loader *l, int code, pos at, const char *fmt, ...)
{
	char msg[KN_ERR_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	const char *sep = l->ctx_task[0] ? ": " : "";
	const char *sub_sep = l->ctx_task[0] && l->ctx_sub[0] ? " " : "";
	kn_err_set(l->err, code, "%s:%d:%d: %s%s%s%s%s", l->name, at.line, at.col, l->ctx_task,
	           sub_sep, l->ctx_task[0] ? l->ctx_sub : "", sep, msg);
	/* A message is one line: text from the document may hold escaped control characters. */
	if (l->err)
		for (char *p = l->err->msg; *p; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				*p = '?';
	return code;
}

int kn_ty_oom(loader *l)
{
	return kn_ty_fail(l, KN_ENOMEM, l->last, "out of memory");
}
/* Whether buf[i] ends a line as libyaml counts them: LF, CR LF (at the LF), or a lone CR. */
static int line_end(const loader *l, size_t i)
{
	return l->buf[i] == '\n' || (l->buf[i] == '\r' && (i + 1 == l->len || l->buf[i + 1] != '\n'));
}

/* Position of a byte offset (libyaml reader errors carry only that): lines, UTF-8 characters. */
static pos pos_of_offset(const loader *l, size_t off)
{
	pos p = { 1, 1 };
	for (size_t i = 0; i < off && i < l->len; i++) {
		if (line_end(l, i))
			p.line++, p.col = 1;
		else if ((l->buf[i] & 0xC0) != 0x80 && l->buf[i] != '\r')
			p.col++;
	}
	return p;
}

/* Whether the line of m (0-based) has a tab in its indentation or at m's column. */
static int tab_near(const loader *l, yaml_mark_t m)
{
	size_t i = 0, line = 0;
	for (; i < l->len && line < m.line; i++)
		if (line_end(l, i))
			line++;
	size_t start = i;
	while (i < l->len && (l->buf[i] == ' ' || l->buf[i] == '\t'))
		if (l->buf[i++] == '\t')
			return 1;
	for (size_t col = 0; start < l->len && !strchr("\r\n", l->buf[start]); start++) {
		if ((l->buf[start] & 0xC0) == 0x80)
			continue;
		if (col++ == m.column)
			return l->buf[start] == '\t';
	}
	return 0;
}

/* Translate libyaml's error state into a kn_err. */
int kn_ty_yaml_fail(loader *l, const yaml_parser_t *p)
{
	const char *problem = p->problem ? p->problem : "syntax error";
	switch (p->error) {
	case YAML_MEMORY_ERROR:
		return kn_ty_oom(l);
	case YAML_READER_ERROR:
		if (p->problem_value != -1)
			return kn_ty_fail(l, KN_EINVAL, pos_of_offset(l, p->problem_offset),
			                  "invalid text: %s (0x%X); a task file is UTF-8", problem,
			                  (unsigned)p->problem_value);
		return kn_ty_fail(l, KN_EINVAL, pos_of_offset(l, p->problem_offset),
		                  "invalid text: %s; a task file is UTF-8", problem);
	default: {
		const char *hint = tab_near(l, p->problem_mark) ? " (tabs cannot indent YAML; use spaces)"
		                                                : "";
		pos at = kn_ty_pos_of(p->problem_mark), ctx = kn_ty_pos_of(p->context_mark);
		if (p->context && (ctx.line != at.line || ctx.col != at.col))
			return kn_ty_fail(l, KN_EINVAL, at, "invalid YAML: %s %s started at %d:%d%s", problem,
			                  p->context, ctx.line, ctx.col, hint);
		if (p->context)
			return kn_ty_fail(l, KN_EINVAL, at, "invalid YAML: %s %s%s", problem, p->context, hint);
		return kn_ty_fail(l, KN_EINVAL, at, "invalid YAML: %s%s", problem, hint);
	}
	}
}

/* Words for what a value event is, for "found ..." in messages. */
const char *kn_ty_found(loader *l, const yev *e)
{
	char c[72];
	switch (e->type) {
	case YAML_SEQUENCE_START_EVENT:
		return "a list";
	case YAML_MAPPING_START_EVENT:
		return "a mapping";
	case YAML_SCALAR_EVENT:
		switch (e->kind) {
		case SK_NULL:
			return "nothing (null)";
		case SK_BOOL:
			snprintf(l->found, sizeof l->found, "the boolean %s", kn_ty_clip(c, sizeof c, e->val));
			break;
		case SK_INT:
		case SK_FLOAT:
			snprintf(l->found, sizeof l->found, "the number %s", kn_ty_clip(c, sizeof c, e->val));
			break;
		default:
			snprintf(l->found, sizeof l->found, "the text '%s'", kn_ty_clip(c, sizeof c, e->val));
			break;
		}
		return l->found;
	default:
		return "nothing";
	}
}
