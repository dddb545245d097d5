/* run_rows.c — kn_run_row attempts as compact text and back (run_rows.h). */
#define _GNU_SOURCE /* open_memstream */
#include "run_rows.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAGIC "keynode-rows 1"
#define N_FIELDS 28
#define N_FIELDS_OLD 26 /* rows packed before judged and judge: those two read as -1 and "" */

static void put_str(FILE *f, const char *s)
{
	for (; *s; s++) {
		const char *e = *s == '\\' ? "\\\\" : *s == '\t' ? "\\t" : *s == '\n' ? "\\n" : *s == '\r' ? "\\r" : NULL;
		if (e)
			fputs(e, f);
		else
			fputc(*s, f);
	}
}

static void put_row(FILE *f, const kn_run_row *r)
{
	const char *s1[] = {r->status, r->end, r->reason, r->eval_status};
	put_str(f, r->task);
	fprintf(f, "\t%d", r->attempt);
	for (size_t i = 0; i < sizeof s1 / sizeof *s1; i++)
		fputc('\t', f), put_str(f, s1[i]);
	fprintf(f, "\t%d\t%d\t%.17g\t%.17g\t%.17g\t%.17g\t%d\t%d\t%d\t%.17g\t%.17g\t%.17g\t%d\t%d\t%.17g\t%lld\t%lld",
	        r->completed, r->functional, r->reward, r->reached, r->score, r->efficiency, r->total, r->missing,
	        r->steps, r->agent_s, r->overhead_start_s, r->overhead_end_s, r->exit_code, r->has_usage, r->usd,
	        r->input_tokens, r->output_tokens);
	const char *s2[] = {r->model, r->user_agent, r->chromium_version};
	for (size_t i = 0; i < sizeof s2 / sizeof *s2; i++)
		fputc('\t', f), put_str(f, s2[i]);
	fprintf(f, "\t%d\t", r->judged);
	put_str(f, r->judge);
	fputc('\n', f);
}

int kn_run_rows_pack(char **out, const json_t *head, const kn_run_row *rows, size_t n, kn_err *err)
{
	*out = NULL;
	char *h = head ? json_dumps(head, JSON_COMPACT) : strdup("{}"), *text = NULL;
	size_t len = 0;
	FILE *f = h ? open_memstream(&text, &len) : NULL;
	if (f) {
		fprintf(f, MAGIC "\n%s\n", h);
		for (size_t i = 0; i < n; i++)
			put_row(f, &rows[i]);
	}
	free(h);
	if (!f || fclose(f) != 0) {
		free(text);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	*out = text;
	return 0;
}

/* A string field [s, e) unescaped into dst[cap]: 0, or -1 (a bad escape, too long). */
static int get_str(char *dst, size_t cap, const char *s, const char *e)
{
	size_t k = 0;
	for (; s < e; s++) {
		char c = *s;
		if (c == '\\') {
			if (++s == e)
				return -1;
			c = *s == '\\' ? '\\' : *s == 't' ? '\t' : *s == 'n' ? '\n' : *s == 'r' ? '\r' : 0;
			if (!c)
				return -1;
		}
		if (k + 1 >= cap)
			return -1;
		dst[k++] = c;
	}
	dst[k] = 0;
	return 0;
}

/* An integer field in [lo, hi]: 0, or -1. */
static int get_ll(long long *v, const char *s, const char *e, long long lo, long long hi)
{
	char buf[32], *end = NULL;
	if (e - s < 1 || e - s >= (long)sizeof buf)
		return -1;
	memcpy(buf, s, (size_t)(e - s));
	buf[e - s] = 0;
	errno = 0;
	*v = strtoll(buf, &end, 10);
	return *end || errno || *v < lo || *v > hi ? -1 : 0;
}

static int get_int(int *v, const char *s, const char *e, int lo, int hi)
{
	long long x;
	if (get_ll(&x, s, e, lo, hi))
		return -1;
	*v = (int)x;
	return 0;
}

/* A double field (finite, as JSON's are): 0, or -1. */
static int get_dbl(double *v, const char *s, const char *e)
{
	char buf[40], *end = NULL;
	if (e - s < 1 || e - s >= (long)sizeof buf)
		return -1;
	memcpy(buf, s, (size_t)(e - s));
	buf[e - s] = 0;
	*v = strtod(buf, &end);
	return *end || !isfinite(*v) ? -1 : 0;
}

static int known_status(const char *s)
{
	return !strcmp(s, "done") || !strcmp(s, "error") || !strcmp(s, "interrupted") || !strcmp(s, "blocked") ||
	       !strcmp(s, "unjudged");
}

/* One row from the line [s, e): 0, or -1. */
static int get_row(kn_run_row *r, const char *s, const char *e)
{
	const char *f[N_FIELDS + 1];
	int n = 0;
	f[n++] = s;
	for (const char *p = s; p < e; p++)
		if (*p == '\t') {
			if (n == N_FIELDS)
				return -1;
			f[n++] = p + 1;
		}
	if (n != N_FIELDS && n != N_FIELDS_OLD)
		return -1;
	f[n] = e + 1; /* each field i is [f[i], f[i + 1] - 1) */
#define END(i) (f[(i) + 1] - 1)
	memset(r, 0, sizeof *r);
	long long in = 0, out = 0;
	int bad = get_str(r->task, sizeof r->task, f[0], END(0)) || get_int(&r->attempt, f[1], END(1), 1, 1000000) ||
	          get_str(r->status, sizeof r->status, f[2], END(2)) || get_str(r->end, sizeof r->end, f[3], END(3)) ||
	          get_str(r->reason, sizeof r->reason, f[4], END(4)) ||
	          get_str(r->eval_status, sizeof r->eval_status, f[5], END(5)) ||
	          get_int(&r->completed, f[6], END(6), 0, 1) || get_int(&r->functional, f[7], END(7), -1, 1) ||
	          get_dbl(&r->reward, f[8], END(8)) || get_dbl(&r->reached, f[9], END(9)) ||
	          get_dbl(&r->score, f[10], END(10)) || get_dbl(&r->efficiency, f[11], END(11)) ||
	          get_int(&r->total, f[12], END(12), 0, INT_MAX) || get_int(&r->missing, f[13], END(13), 0, INT_MAX) ||
	          get_int(&r->steps, f[14], END(14), INT_MIN, INT_MAX) || get_dbl(&r->agent_s, f[15], END(15)) ||
	          get_dbl(&r->overhead_start_s, f[16], END(16)) || get_dbl(&r->overhead_end_s, f[17], END(17)) ||
	          get_int(&r->exit_code, f[18], END(18), INT_MIN, INT_MAX) ||
	          get_int(&r->has_usage, f[19], END(19), 0, 1) || get_dbl(&r->usd, f[20], END(20)) ||
	          get_ll(&in, f[21], END(21), 0, 10000000000000LL) || get_ll(&out, f[22], END(22), 0, 10000000000000LL) ||
	          get_str(r->model, sizeof r->model, f[23], END(23)) ||
	          get_str(r->user_agent, sizeof r->user_agent, f[24], END(24)) ||
	          get_str(r->chromium_version, sizeof r->chromium_version, f[25], END(25)) ||
	          (n == N_FIELDS && (get_int(&r->judged, f[26], END(26), -1, INT_MAX) ||
	                             get_str(r->judge, sizeof r->judge, f[27], END(27))));
	if (n == N_FIELDS_OLD)
		r->judged = -1;
#undef END
	r->input_tokens = in, r->output_tokens = out;
	return bad || !known_status(r->status) || r->missing > r->total ? -1 : 0;
}

int kn_run_rows_unpack(const char *text, json_t **head, kn_run_row **rows, size_t *n, size_t max,
                       kn_err *err)
{
	*head = NULL, *rows = NULL, *n = 0;
	const char *p = text, *nl = strchr(p, '\n');
	if (!nl || (size_t)(nl - p) != strlen(MAGIC) || memcmp(p, MAGIC, strlen(MAGIC)) != 0)
		return kn_err_set(err, KN_EINVAL, "1: not \"" MAGIC "\"");
	p = nl + 1;
	json_error_t je;
	if (!(nl = strchr(p, '\n')) || !(*head = json_loadb(p, (size_t)(nl - p), 0, &je)) || !json_is_object(*head)) {
		json_decref(*head), *head = NULL;
		return kn_err_set(err, KN_EINVAL, "2: not a JSON object on one line");
	}
	size_t count = 0;
	for (const char *q = nl + 1; (q = strchr(q, '\n')) != NULL; q++)
		count++;
	if (count > max) {
		json_decref(*head), *head = NULL;
		return kn_err_set(err, KN_ELIMIT, "over %zu rows", max);
	}
	if (!(*rows = calloc(count + 1, sizeof **rows))) {
		json_decref(*head), *head = NULL;
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	for (p = nl + 1; *p; p = nl + 1) {
		if (!(nl = strchr(p, '\n')) || get_row(&(*rows)[*n], p, nl) != 0) {
			kn_err_set(err, KN_EINVAL, "%zu: %s", *n + 3, nl ? "not a row of 26 fields" : "no end of line");
			json_decref(*head), *head = NULL;
			free(*rows), *rows = NULL, *n = 0;
			return KN_EINVAL;
		}
		(*n)++;
	}
	return 0;
}
