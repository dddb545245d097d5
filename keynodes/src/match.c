/* match.c — the non-semantic text matchers, PCRE2 regexes and CSS selector normalisation.
 *
 * Exact and include compare bytes (URLs and element values are case-sensitive in WebCanvas);
 * fold lower-cases ASCII on both sides, as WebCanvas does for answers. A regex is compiled once
 * when a task is loaded and kept with its own match context, so every match runs under the same
 * backtracking and depth limits: a pathological pattern costs a bounded amount of work and
 * reports KN_ELIMIT. Match data is allocated per call, so one compiled regex may be shared by
 * threads. Selector normalisation lets a selector written by hand compare equal to the one a
 * recorder produced for the same element. The semantic judge lives in semantic.c. */
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

static int is_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

/* Characters that make up identifiers (names, classes, ids, attribute flags): a space between
 * two of them inside brackets is significant ([type=a i]). */
static int is_word(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '_' || c >= 0x80;
}

int kn_selector_normalise(char **out, const char *sel)
{
	if (!out)
		return KN_EINVAL;
	*out = NULL;
	if (!sel)
		return KN_EINVAL;
	size_t n = strlen(sel), w = 0;
	char *buf = malloc(n + 1);
	if (!buf)
		return KN_ENOMEM;

	int space = 0;   /* whitespace seen since the last emitted character */
	int bracket = 0; /* inside [...] */
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)sel[i];
		if (is_space(c)) {
			space = 1;
			continue;
		}
		unsigned char last = w ? (unsigned char)buf[w - 1] : 0;
		int tight = c == '>' || c == '+' || c == '~' || c == ',' || c == ')' || c == ']';
		if (space && w && !tight && !strchr(">+~,([", last) &&
		    (!bracket || (is_word(last) && (is_word(c) || c == '\\'))))
			buf[w++] = ' ';
		space = 0;

		if (c == '"' || c == '\'') {
			/* A quoted string is copied as written, escapes included. */
			buf[w++] = (char)c;
			for (i++; i < n; i++) {
				buf[w++] = sel[i];
				if (sel[i] == '\\' && i + 1 < n)
					buf[w++] = sel[++i];
				else if ((unsigned char)sel[i] == c)
					break;
			}
			continue;
		}
		buf[w++] = (char)c;
		if (c == '\\' && i + 1 < n) /* an escaped character is part of a name, even a space */
			buf[w++] = sel[++i];
		else if (c == '[')
			bracket++;
		else if (c == ']' && bracket)
			bracket--;
	}
	buf[w] = '\0';
	*out = buf;
	return 0;
}

const char *kn_selector_last_part(const char *norm)
{
	const char *last = NULL;
	int nest = 0; /* inside [...] or (...) */
	for (const char *p = norm; p && *p; p++) {
		if (*p == '\\') {
			if (p[1])
				p++;
		} else if (*p == '"' || *p == '\'') {
			char q = *p;
			while (p[1] && p[1] != q)
				p += p[1] == '\\' && p[2] ? 2 : 1;
			if (p[1])
				p++;
		} else if (*p == '[' || *p == '(') {
			nest++;
		} else if ((*p == ']' || *p == ')') && nest) {
			nest--;
		} else if (!nest && p[0] == '>' && p[1] == '>') {
			last = p + 2;
			p++;
		}
	}
	return last;
}
