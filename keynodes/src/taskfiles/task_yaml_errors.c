/* task_yaml_errors.c — how the YAML task loader words its errors. Every message reads
 * "name:line:col: task 'id' key node 2: message" (fail), names what was found instead of what was
 * expected (found), keeps document text short and on one line (clip), and puts libyaml's failures,
 * as the shared front-end words them (keynode/yaml_reader.h), into the same form (yaml_fail). */
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
	int n = 0;
	if (l->ctx_task[0])
		n = snprintf(msg, sizeof msg, "%s%s%s: ", l->ctx_task, l->ctx_sub[0] ? " " : "",
		             l->ctx_sub);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg + n, sizeof msg - (size_t)n, fmt, ap);
	va_end(ap);
	return kn_yaml_err_set(l->err, code, l->name, at.line, at.col, msg);
}

int kn_ty_oom(loader *l)
{
	return kn_ty_fail(l, KN_ENOMEM, l->last, "out of memory");
}
/* A failed kn_yaml_reader_next (code, its return) as a kn_err: the front-end has the words and
 * the position, this adds the loader's prefix. */
int kn_ty_yaml_fail(loader *l, const kn_yaml_reader *r, int code)
{
	if (code == KN_ENOMEM)
		return kn_ty_oom(l);
	return kn_ty_fail(l, code, kn_ty_pos_at(r->line, r->col), "%s", r->msg);
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
