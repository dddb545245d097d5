/* match.c — the non-semantic text matchers and PCRE2 regexes.
 *
 * Exact and include compare bytes (URLs and element values are case-sensitive in WebCanvas);
 * fold lower-cases ASCII on both sides, as WebCanvas does for answers. A regex is compiled once
 * when a task is loaded and kept with its own match context, so every match runs under the same
 * backtracking and depth limits: a pathological pattern costs a bounded amount of work and
 * reports KN_ELIMIT. Match data is allocated per call, so one compiled regex may be shared by
 * threads. Selector normalisation lives with the selector grammar (selector.c); the semantic
 * judge in semantic.c. */
#include <stdlib.h>
#include <string.h>

#include <pcre2.h>

#include "keynode/match.h"

/* Backtracking steps, backtracking depth and heap one match may use: far above what a sane
 * pattern needs on a URL, a typed value or an answer, far below a hang (a catastrophic pattern
 * gives up within milliseconds). */
#define KN_REGEX_MATCH_LIMIT 1000000u
#define KN_REGEX_DEPTH_LIMIT 100000u
#define KN_REGEX_HEAP_LIMIT 32768u /* KiB */

typedef struct kn_regex {
	pcre2_code *code;
	pcre2_match_context *mctx;
} kn_regex;

static unsigned char fold_ascii(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c - 'A' + 'a') : c;
}

static int eq_fold(const char *a, const char *b)
{
	while (*a && fold_ascii((unsigned char)*a) == fold_ascii((unsigned char)*b))
		a++, b++;
	return *a == *b;
}

/* 1 when needle occurs in hay, comparing ASCII case-insensitively. */
static int contains_fold(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	if (n == 0)
		return 1;
	unsigned char first = fold_ascii((unsigned char)needle[0]);
	for (; *hay; hay++) {
		if (fold_ascii((unsigned char)*hay) != first)
			continue;
		size_t i = 1;
		while (i < n && hay[i] &&
		       fold_ascii((unsigned char)hay[i]) == fold_ascii((unsigned char)needle[i]))
			i++;
		if (i == n)
			return 1;
		if (!hay[i])
			return 0;
	}
	return 0;
}

double kn_match_text(kn_matcher m, const char *expect, const char *input, int fold, const void *re)
{
	if (!input)
		return 0.0;
	switch (m) {
	case KN_MATCH_EXACT:
		if (!expect)
			return 0.0;
		return (fold ? eq_fold(expect, input) : strcmp(expect, input) == 0) ? 1.0 : 0.0;
	case KN_MATCH_INCLUDE:
		if (!expect)
			return 0.0;
		return (fold ? contains_fold(input, expect) : strstr(input, expect) != NULL) ? 1.0 : 0.0;
	case KN_MATCH_REGEX:
		return re && kn_regex_match(re, input, strlen(input)) == 1 ? 1.0 : 0.0;
	case KN_MATCH_SEMANTIC:
	default:
		return 0.0; /* judged through a kn_semantic */
	}
}

int kn_regex_compile(void **out, const char *pattern, kn_err *err)
{
	if (!out)
		return kn_err_set(err, KN_EINVAL, "no place for the compiled regex");
	*out = NULL;
	if (!pattern)
		return kn_err_set(err, KN_EINVAL, "no regex pattern");

	int code;
	PCRE2_SIZE off;
	/* MATCH_INVALID_UTF: a subject that is not valid UTF-8 simply does not match there. */
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
	                               PCRE2_UTF | PCRE2_MATCH_INVALID_UTF, &code, &off, NULL);
	if (!re) {
		PCRE2_UCHAR msg[256];
		if (pcre2_get_error_message(code, msg, sizeof msg) < 0)
			strcpy((char *)msg, "unknown error");
		if (code == PCRE2_ERROR_HEAPLIMIT || code == PCRE2_ERROR_NOMEMORY || code == PCRE2_ERROR_HEAP_FAILED)
			return kn_err_set(err, KN_ENOMEM, "regex: %s", (char *)msg);
		return kn_err_set(err, KN_EINVAL, "invalid regex at offset %zu: %s", (size_t)off,
		                  (char *)msg);
	}
	kn_regex *r = malloc(sizeof *r);
	pcre2_match_context *mctx = pcre2_match_context_create(NULL);
	if (!r || !mctx) {
		free(r);
		pcre2_match_context_free(mctx);
		pcre2_code_free(re);
		return kn_err_set(err, KN_ENOMEM, "out of memory compiling a regex");
	}
	pcre2_set_match_limit(mctx, KN_REGEX_MATCH_LIMIT);
	pcre2_set_depth_limit(mctx, KN_REGEX_DEPTH_LIMIT);
	pcre2_set_heap_limit(mctx, KN_REGEX_HEAP_LIMIT);
	r->code = re;
	r->mctx = mctx;
	*out = r;
	return 0;
}

void kn_regex_free(void *re)
{
	kn_regex *r = re;
	if (!r)
		return;
	pcre2_match_context_free(r->mctx);
	pcre2_code_free(r->code);
	free(r);
}

int kn_regex_match(const void *re, const char *subject, size_t len)
{
	const kn_regex *r = re;
	if (!r || (!subject && len))
		return KN_EINVAL;
	/* One ovector pair is enough to learn whether it matched. */
	pcre2_match_data *md = pcre2_match_data_create(1, NULL);
	if (!md)
		return KN_ENOMEM;
	int rc = pcre2_match(r->code, (PCRE2_SPTR)(subject ? subject : ""), len, 0, 0, md, r->mctx);
	pcre2_match_data_free(md);
	if (rc >= 0)
		return 1;
	switch (rc) {
	case PCRE2_ERROR_NOMATCH:
		return 0;
	case PCRE2_ERROR_MATCHLIMIT:
	case PCRE2_ERROR_DEPTHLIMIT:
	case PCRE2_ERROR_HEAPLIMIT:
		return KN_ELIMIT;
	case PCRE2_ERROR_NOMEMORY:
		return KN_ENOMEM;
	default:
		return KN_EINVAL;
	}
}
