/* test_selector.c — the selector grammar (keynode/selector.h): the tokens a walk reports for CSS,
 * XPath and `>>` chains, the syntax errors with their positions (unbalanced brackets, quotes and
 * parentheses, empty chain parts, very long input), chain separators outside strings and
 * brackets, a callback stopping the walk, and CSS escapes decoded. Normalisation is tested with
 * the matchers (test_match.c), the check on workflow files in test_workflow.c, healing's reading
 * of the tokens in test_heal.c. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keynode/selector.h"

/* The tokens of a walk, one per line: "P css <part>", "C> ", "T a", "I x", "K c", "A name op
 * value", "S name(arg)", "X step", "R body". */
struct tokens {
	char buf[4096];
	size_t n;
	int stop_after; /* > 0: stop after this many tokens */
	int seen;
};

static void put(struct tokens *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(t->buf + t->n, sizeof t->buf - t->n, fmt, ap);
	va_end(ap);
	if (n > 0 && t->n + (size_t)n < sizeof t->buf)
		t->n += (size_t)n;
}

static int collect(void *ud, const kn_selector_token *k)
{
	struct tokens *t = ud;
	switch (k->kind) {
	case KN_SELTOK_PART:
		put(t, "P %s %.*s\n", k->lang == KN_SELECTOR_XPATH ? "xpath" : "css", (int)k->text_len, k->text);
		break;
	case KN_SELTOK_COMPOUND:
		put(t, "C%c\n", k->comb ? k->comb : '0');
		break;
	case KN_SELTOK_TAG:
	case KN_SELTOK_ID:
	case KN_SELTOK_CLASS:
	case KN_SELTOK_STEP:
		put(t, "%c %.*s\n", k->kind == KN_SELTOK_TAG ? 'T' : k->kind == KN_SELTOK_ID ? 'I' : k->kind == KN_SELTOK_CLASS ? 'K' : 'X',
		    (int)k->name_len, k->name);
		break;
	case KN_SELTOK_ATTR:
		put(t, "A %.*s %.*s %.*s\n", (int)k->name_len, k->name, (int)k->op_len, k->op, (int)k->value_len, k->value);
		break;
	case KN_SELTOK_PSEUDO:
		put(t, "S %.*s%.*s\n", (int)k->name_len, k->name, (int)k->value_len, k->value);
		break;
	case KN_SELTOK_PRED:
		put(t, "R %.*s\n", (int)k->text_len, k->text);
		break;
	}
	return t->stop_after > 0 && ++t->seen >= t->stop_after ? 42 : 0;
}

static void tokens_of(const char *sel, int want_rc, const char *want)
{
	struct tokens t = {.n = 0};
	kn_err err = {0};
	int rc = kn_selector_parse(sel, collect, &t, &err);
	if (rc != want_rc || strcmp(t.buf, want) != 0)
		fail_msg("<%s>: rc %d (%s), tokens\n%s\nwant rc %d, tokens\n%s", sel, rc, err.msg, t.buf, want_rc, want);
}

static void test_css_tokens(void **state)
{
	(void)state;
	tokens_of("#post-3 > a.title.big[name='x'][href ^= \"/f\" i]:nth-child(2)", 0,
	          "P css #post-3 > a.title.big[name='x'][href ^= \"/f\" i]:nth-child(2)\n"
	          "C0\nI post-3\nC>\nT a\nK title\nK big\nA name = 'x'\nA href ^= \"/f\"\nS nth-child(2)\n");
	tokens_of("form .row\t#size", 0, "P css form .row\t#size\nC0\nT form\nC \nK row\nC \nI size\n");
	tokens_of("ul li + li ~ *", 0, "P css ul li + li ~ *\nC0\nT ul\nC \nT li\nC+\nT li\nC~\nT *\n");
	/* a list: ',' starts the next selector; a comma inside :not() or a string is no list */
	tokens_of("a, b", 0, "P css a, b\nC0\nT a\nC,\nT b\n");
	tokens_of("a:not(.b, .c)[title=\"x,y\"]", 0, "P css a:not(.b, .c)[title=\"x,y\"]\nC0\nT a\nS not(.b, .c)\nA title = \"x,y\"\n");
	tokens_of("[data-testid]", 0, "P css [data-testid]\nC0\nA data-testid  \n");
	tokens_of("p::before", 0, "P css p::before\nC0\nT p\nS before\n");
	tokens_of("#\\31 23", 0, "P css #\\31 23\nC0\nI \\31 23\n");
}

static void test_xpath_tokens(void **state)
{
	(void)state;
	tokens_of("//ul[@id='tabs']//a[normalize-space()='Gear & more']", 0,
	          "P xpath //ul[@id='tabs']//a[normalize-space()='Gear & more']\n"
	          "X ul\nR @id='tabs'\nX a\nR normalize-space()='Gear & more'\n");
	tokens_of("xpath=//div[a/b][2]/span", 0, "P xpath xpath=//div[a/b][2]/span\nX div\nR a/b\nR 2\nX span\n");
	/* a parenthesised path is one step; its inner predicates are reported too */
	tokens_of("(//a[@id='x'])[2]", 0, "P xpath (//a[@id='x'])[2]\nX \nR @id='x'\nR 2\n");
	/* XPath strings have no escapes: the backslash is a character, the quote after it ends it */
	tokens_of("//a[@title='C:\\']/b", 0, "P xpath //a[@title='C:\\']/b\nX a\nR @title='C:\\'\nX b\n");
}

static void test_chain_tokens(void **state)
{
	(void)state;
	tokens_of("x-app >> coupon-box >> button.apply", 0,
	          "P css x-app\nC0\nT x-app\nP css coupon-box\nC0\nT coupon-box\nP css button.apply\nC0\nT button\nK apply\n");
	tokens_of("iframe#f >> //a[@id='x']", 0, "P css iframe#f\nC0\nT iframe\nI f\nP xpath //a[@id='x']\nX a\nR @id='x'\n");
	/* '>>' inside a string, brackets or parentheses, or after an escape, separates nothing */
	tokens_of("a[title=\">>\"]", 0, "P css a[title=\">>\"]\nC0\nT a\nA title = \">>\"\n");
	tokens_of("[title=\"a >> b\"] >> #q", 0, "P css [title=\"a >> b\"]\nC0\nA title = \"a >> b\"\nP css #q\nC0\nI q\n");
	tokens_of("a:is(b >> c) >> #q", 0, "P css a:is(b >> c)\nC0\nT a\nS is(b >> c)\nP css #q\nC0\nI q\n");
	tokens_of("#a\\>>b", 0, "P css #a\\>>b\nC0\nI a\\>\nC>\nT b\n");
	/* an XPath selector is never a chain */
	tokens_of("//a[.='>>']", 0, "P xpath //a[.='>>']\nX a\nR .='>>'\n");
}

static void test_chain_sep(void **state)
{
	(void)state;
	assert_int_equal(kn_selector_chain_sep("a >> b", 0), 2);
	assert_int_equal(kn_selector_chain_sep("a >> b >> c", 3), 7);
	assert_int_equal(kn_selector_chain_sep("a > b", 0), -1);
	assert_int_equal(kn_selector_chain_sep("[x='>>'] b", 0), -1);
	assert_int_equal(kn_selector_chain_sep("'unclosed >> ", 0), -1);
	assert_int_equal(kn_selector_chain_sep("(((>>", 0), -1);
	assert_int_equal(kn_selector_chain_sep("]]>>", 0), 2); /* a stray closer is no nesting */
	assert_int_equal(kn_selector_chain_sep(NULL, 0), -1);
	assert_int_equal(kn_selector_chain_sep("", 0), -1);
	assert_int_equal(kn_selector_chain_sep("a >> b >> c", 2), 2);
	assert_int_equal(kn_selector_chain_sep("#f\t>>\t#q", 0), 3);
	assert_int_equal(kn_selector_chain_sep("a>>b", 0), 1);            /* blanks or none */
	assert_int_equal(kn_selector_chain_sep("[title=\"a >> b\"]", 0), -1); /* inside a string: no separator */
	assert_int_equal(kn_selector_chain_sep("a[title=\"x\"] >> b", 0), 13);
	assert_int_equal(kn_selector_chain_sep("a\\>> b", 0), -1);        /* escaped */
	assert_int_equal(kn_selector_chain_sep("a >> >> b", 5), 5);       /* an empty part between two */
}

/* Errors: what and where, and the tokens before the error were reported. */
static void bad(const char *sel, const char *msg)
{
	kn_err err = {0};
	int rc = kn_selector_check(sel, &err);
	if (rc != KN_EINVAL || strcmp(err.msg, msg) != 0)
		fail_msg("<%.60s>: rc %d <%s>, want <%s>", sel, rc, err.msg, msg);
}

static void test_malformed(void **state)
{
	(void)state;
	bad("", "empty selector");
	bad(NULL, "empty selector");
	/* brackets */
	bad("a[href", "invalid CSS selector: unclosed '[' at character 2");
	bad("a[x=y", "invalid CSS selector: unclosed '[' at character 2");
	bad("a]", "invalid CSS selector: unexpected character at character 2");
	bad("//a[", "invalid XPath selector: unclosed '[' at character 5");
	bad("//a]", "invalid XPath selector: unbalanced ']' at character 4");
	bad("//a[(]", "invalid XPath selector: unbalanced ']' at character 6");
	bad("//a[]", "invalid XPath selector: empty predicate at character 4");
	/* quotes */
	bad("a[x='y]", "invalid CSS selector: unclosed string at character 5");
	bad("a[x='y\\']", "invalid CSS selector: unclosed string at character 5");
	bad("//a[@x=\"y]", "invalid XPath selector: unclosed string at character 8");
	bad("a:not(\"x)", "invalid CSS selector: unclosed string at character 6");
	/* parentheses */
	bad("a:not(.b", "invalid CSS selector: unclosed '(' at character 6");
	bad("a b)", "invalid CSS selector: unexpected character at character 4");
	bad("(//a", "invalid XPath selector: unclosed '(' at character 5");
	bad("//a)", "invalid XPath selector: unbalanced ')' at character 4");
	/* empty chain parts, steps and compounds */
	bad("a >> ", "invalid selector: empty part in a '>>' chain");
	bad(">> a", "invalid selector: empty part in a '>>' chain");
	bad("a >> >> b", "invalid selector: empty part in a '>>' chain");
	bad("#f >> a[", "invalid CSS selector: attribute name expected at character 3");
	bad("a >", "invalid CSS selector: selector expected at character 4");
	bad("li > > a", "invalid CSS selector: unexpected character at character 6");
	bad("a,", "invalid CSS selector: selector expected at character 3");
	bad("///a", "invalid XPath selector: '///' is not a step at character 1");
	bad("//a/", "invalid XPath selector: ends with '/' at character 4");
	bad("xpath=", "invalid XPath selector: empty expression at character 1");
	bad("#", "invalid CSS selector: id expected after '#' at character 2");
	bad("a\\", "invalid CSS selector: bad tag name at character 1");

	/* the tokens before an error are reported, then the walk stops */
	tokens_of("a.b[", KN_EINVAL, "P css a.b[\nC0\nT a\nK b\n");
	tokens_of("//a[@id='x'", KN_EINVAL, "P xpath //a[@id='x'\nX a\n");
}

static void test_long_input(void **state)
{
	(void)state;
	enum { N = 200000 };
	char *s = malloc(N + 1);
	assert_non_null(s);
	/* a long valid descendant chain: no recursion, no cap on one part that is no chain */
	for (size_t i = 0; i < N; i += 2)
		s[i] = 'a', s[i + 1] = ' ';
	s[N - 1] = '\0';
	assert_int_equal(kn_selector_check(s, NULL), 0);
	/* deep CSS pseudo-class nesting is counted, not recursed */
	size_t w = 0;
	for (; w + 6 < N / 2; w += 5)
		memcpy(s + w, ":not(", 5);
	memcpy(s + w, "a", 1);
	size_t open = w / 5;
	w++;
	for (size_t i = 0; i < open; i++)
		s[w++] = ')';
	s[w] = '\0';
	assert_int_equal(kn_selector_check(s, NULL), 0);
	s[w - 1] = '\0';
	assert_int_equal(kn_selector_check(s, NULL), KN_EINVAL);
	/* XPath nesting has a depth limit */
	memset(s, '(', 65);
	strcpy(s + 65, "//a");
	kn_err err = {0};
	assert_int_equal(kn_selector_check(s, &err), KN_EINVAL);
	assert_string_equal(err.msg, "invalid XPath selector: nested too deep at character 65");
	/* a chain part longer than KN_SELECTOR_MAX_PART */
	memset(s, 'b', N);
	memcpy(s, "x >> ", 5);
	s[5 + KN_SELECTOR_MAX_PART] = '\0';
	assert_int_equal(kn_selector_check(s, &err), KN_EINVAL);
	assert_string_equal(err.msg, "invalid selector: a part over 4096 bytes");
	s[5 + KN_SELECTOR_MAX_PART - 1] = '\0';
	assert_int_equal(kn_selector_check(s, NULL), 0);
	/* an unclosed string running to the end */
	memset(s, 'x', N);
	memcpy(s, "a[x='", 5);
	s[N] = '\0';
	assert_int_equal(kn_selector_check(s, NULL), KN_EINVAL);
	free(s);
}

static void test_stop(void **state)
{
	(void)state;
	struct tokens t = {.stop_after = 3};
	assert_int_equal(kn_selector_parse("a.b.c.d >> e", collect, &t, NULL), 42);
	assert_string_equal(t.buf, "P css a.b.c.d\nC0\nT a\n");
	assert_int_equal(kn_selector_parse("#a", NULL, NULL, NULL), 0);
}

static void unesc(const char *in, size_t cap, const char *want, size_t want_n)
{
	char out[64];
	size_t n = kn_selector_unescape(out, cap, in, strlen(in));
	assert_int_equal(n, want_n);
	assert_string_equal(out, want);
}

static void test_unescape(void **state)
{
	(void)state;
	unesc("abc", 64, "abc", 3);
	unesc("\\31 23", 64, "123", 3);
	unesc("b\\:c", 64, "b:c", 3);
	unesc("\\e9t\\E9", 64, "\xc3\xa9t\xc3\xa9", 5);
	unesc("\\0", 64, "\xef\xbf\xbd", 3);         /* NUL: U+FFFD */
	unesc("\\110000", 64, "\xef\xbf\xbd", 3);    /* past U+10FFFF */
	unesc("\\1F600", 64, "\xf0\x9f\x98\x80", 4); /* four bytes */
	unesc("a\\", 64, "a\\", 2);                  /* a trailing backslash stays */
	unesc("abcdef", 4, "abc", 6);                /* cut, the full length returned */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_css_tokens),  cmocka_unit_test(test_xpath_tokens),
		cmocka_unit_test(test_chain_tokens), cmocka_unit_test(test_chain_sep),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_long_input),   cmocka_unit_test(test_stop),
		cmocka_unit_test(test_unescape),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
