/* wordtok.c — NLTK word_tokenize (wordtok.h): a Punkt-like sentence split (keynodes/README.md
 * "Word tokens"), then per sentence NLTKWordTokenizer's substitutions in NLTK's order, with its
 * regular expressions run by PCRE2 (UTF + UCP, so \w, \d and \b are Unicode as in Python's re;
 * \s is spelled out as Python's whitespace), then a split at whitespace. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <stdlib.h>
#include <string.h>

#include <pcre2.h>

#include "keynode/pytext.h"
#include "keynode/wordtok.h"

#define WS "[\\t\\n\\x0b\\f\\r\\x1c-\\x20\\x{85}\\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}" \
           "\\x{2029}\\x{202f}\\x{205f}\\x{3000}]"

/* NLTKWordTokenizer.tokenize: (pattern, replacement) in order; NULL pattern = add the spaces at
 * both ends ("add extra space to make things easier"). */
static const char *const rules[][2] = {
	/* STARTING_QUOTES */
	{"([«“‘„]|[`]+)", " $1 "},
	{"^\\\"", "``"},
	{"(``)", " $1 "},
	{"([ \\(\\[{<])(\\\"|\\'{2})", "$1 `` "},
	{"(?i)(\\')(?!re|ve|ll|m|t|s|d|n)(\\w)\\b", "$1 $2"},
	/* PUNCTUATION */
	{"([^\\.])(\\.)([\\]\\)}>\"\\'»”’ ]*)" WS "*$", "$1 $2 $3 "},
	{"([:,])([^\\d])", " $1 $2"},
	{"([:,])$", " $1 "},
	{"\\.{2,}", " $0 "},
	{"[;@#$%&]", " $0 "},
	{"([^\\.])(\\.)([\\]\\)}>\"\\']*)" WS "*$", "$1 $2$3 "},
	{"[?!]", " $0 "},
	{"([^'])' ", "$1 ' "},
	{"[*]", " $0 "},
	/* PARENS_BRACKETS, DOUBLE_DASHES */
	{"[\\]\\[\\(\\)\\{\\}\\<\\>]", " $0 "},
	{"--", " -- "},
	{NULL, NULL},
	/* ENDING_QUOTES */
	{"([»”’])", " $1 "},
	{"''", " '' "},
	{"\"", " '' "},
	{"([^' ])('[sS]|'[mM]|'[dD]|') ", "$1 $2 "},
	{"([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) ", "$1 $2 "},
	/* CONTRACTIONS2, CONTRACTIONS3 */
	{"(?i)\\b(can)(?#X)(not)\\b", " $1 $2 "},
	{"(?i)\\b(d)(?#X)('ye)\\b", " $1 $2 "},
	{"(?i)\\b(gim)(?#X)(me)\\b", " $1 $2 "},
	{"(?i)\\b(gon)(?#X)(na)\\b", " $1 $2 "},
	{"(?i)\\b(got)(?#X)(ta)\\b", " $1 $2 "},
	{"(?i)\\b(lem)(?#X)(me)\\b", " $1 $2 "},
	{"(?i)\\b(more)(?#X)('n)\\b", " $1 $2 "},
	{"(?i)\\b(wan)(?#X)(na)(?=\\s)", " $1 $2 "},
	{"(?i) ('t)(?#X)(is)\\b", " $1 $2 "},
	{"(?i) ('t)(?#X)(was)\\b", " $1 $2 "},
};
#define N_RULES (sizeof rules / sizeof rules[0])

/* Apply one substitution to *text (replaced; the old buffer is freed). */
static int substitute(char **text, const char *pattern, const char *repl)
{
	int ec;
	PCRE2_SIZE eo;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
	                               PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF, &ec, &eo, NULL);
	if (!re)
		return KN_EINVAL;
	size_t in = strlen(*text);
	PCRE2_SIZE cap = in * 2 + 64;
	int rc = KN_ENOMEM;
	for (int tries = 0; tries < 2; tries++) {
		char *out = malloc(cap + 1);
		if (!out)
			break;
		PCRE2_SIZE len = cap;
		int r = pcre2_substitute(re, (PCRE2_SPTR)*text, in, 0,
		                         PCRE2_SUBSTITUTE_GLOBAL | PCRE2_SUBSTITUTE_OVERFLOW_LENGTH, NULL,
		                         NULL, (PCRE2_SPTR)repl, PCRE2_ZERO_TERMINATED,
		                         (PCRE2_UCHAR *)out, &len);
		if (r >= 0) {
			out[len] = '\0';
			free(*text);
			*text = out;
			rc = 0;
			break;
		}
		free(out);
		if (r != PCRE2_ERROR_NOMEMORY) {
			rc = KN_EINVAL;
			break;
		}
		cap = len; /* the length needed */
	}
	pcre2_code_free(re);
	return rc;
}

/* Tokens of one sentence [s, s+n). */
static int sentence(const char *s, size_t n, int (*tok)(void *, const char *, size_t), void *ud)
{
	char *t = malloc(n + 1);
	if (!t)
		return KN_ENOMEM;
	memcpy(t, s, n);
	t[n] = '\0';
	int rc = 0;
	for (size_t i = 0; i < N_RULES && !rc; i++) {
		if (!rules[i][0]) {
			char *w = malloc(strlen(t) + 3);
			if (!w) {
				rc = KN_ENOMEM;
				break;
			}
			w[0] = ' ';
			strcpy(w + 1, t);
			strcat(w, " ");
			free(t);
			t = w;
			continue;
		}
		rc = substitute(&t, rules[i][0], rules[i][1]);
	}
	size_t len = rc ? 0 : strlen(t);
	for (size_t i = 0; i < len && !rc;) { /* str.split(): runs of non-space */
		unsigned cp;
		size_t l = kn_py_next(t + i, len - i, &cp);
		if (kn_py_isspace(cp)) {
			i += l;
			continue;
		}
		size_t b = i;
		while (i < len) {
			l = kn_py_next(t + i, len - i, &cp);
			if (kn_py_isspace(cp))
				break;
			i += l;
		}
		rc = tok(ud, t + b, i - b);
	}
	free(t);
	return rc;
}

/* Python's \w for one code point: str.isalnum() or '_'; asked of PCRE2's Unicode \w. */
static int is_word(const char *s, size_t n)
{
	static const char pat[] = "^\\w$";
	int ec;
	PCRE2_SIZE eo;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED,
	                               PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF, &ec, &eo, NULL);
	pcre2_match_data *md = re ? pcre2_match_data_create_from_pattern(re, NULL) : NULL;
	int ok = md && pcre2_match(re, (PCRE2_SPTR)s, n, 0, 0, md, NULL) >= 0;
	pcre2_match_data_free(md);
	pcre2_code_free(re);
	return ok;
}

/* 1 when the chunk [s, s+n) starts with a lower-case letter as the sentence rule counts it
 * (a-z, or a character str.lower() gives for another one), or is one of ; : , . ! ? alone. */
static int continues(const char *s, size_t n)
{
	if (n == 1 && strchr(";:,.!?", s[0]))
		return 1;
	unsigned cp;
	kn_py_next(s, n, &cp);
	return cp < 0x80 ? cp >= 'a' && cp <= 'z' : kn_py_is_lowered(cp);
}

/* Is there a sentence boundary after chunk [a, a+an), followed by chunk [b, b+bn)? */
static int boundary(const char *a, size_t an, const char *b, size_t bn)
{
	if (an == 0 || a[an - 1] != '.' || (an >= 2 && a[an - 2] == '.'))
		return 0;
	if (an < 2)
		return 1;
	/* the character before the period, and the one before it */
	size_t c = an - 2;
	while (c > 0 && ((unsigned char)a[c] & 0xC0) == 0x80)
		c--;
	if (!is_word(a + c, an - 1 - c))
		return 1;
	if (c > 0) {
		size_t p = c - 1;
		while (p > 0 && ((unsigned char)a[p] & 0xC0) == 0x80)
			p--;
		if (is_word(a + p, c - p))
			return 1; /* a longer word: Punkt's first pass breaks */
	}
	/* a number or an initial: no break before a lower-case word or ; : , . ! ? */
	return !continues(b, bn);
}

int kn_wordtok_each(const char *text, int (*tok)(void *ud, const char *s, size_t n), void *ud)
{
	size_t n = strlen(text), start = 0, i = 0;
	const char *prev = NULL;
	size_t prev_n = 0;
	while (i < n) {
		unsigned cp;
		size_t l = kn_py_next(text + i, n - i, &cp);
		if (kn_py_isspace(cp)) {
			i += l;
			continue;
		}
		size_t b = i;
		while (i < n) {
			l = kn_py_next(text + i, n - i, &cp);
			if (kn_py_isspace(cp))
				break;
			i += l;
		}
		if (prev && boundary(prev, prev_n, text + b, i - b)) {
			int rc = sentence(text + start, (size_t)(prev + prev_n - text) - start, tok, ud);
			if (rc)
				return rc;
			start = b;
		}
		prev = text + b;
		prev_n = i - b;
	}
	return start < n ? sentence(text + start, n - start, tok, ud) : 0;
}

struct find {
	const char *want;
	size_t n;
};

static int match_tok(void *ud, const char *s, size_t n)
{
	struct find *f = ud;
	return n == f->n && memcmp(s, f->want, n) == 0;
}

int kn_wordtok_contains(const char *text, const char *token)
{
	struct find f = {token, strlen(token)};
	return kn_wordtok_each(text, match_tok, &f);
}
