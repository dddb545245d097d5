/* test_match.c — exact/include matchers (case-sensitive, fold for answers), PCRE2 regexes with
 * their limits and error messages, and CSS selector normalisation. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "keynode/match.h"

static void test_exact(void **state)
{
	(void)state;
	assert_true(kn_match_text(KN_MATCH_EXACT, "green tea", "green tea", 0, NULL) == 1.0);
	assert_true(kn_match_text(KN_MATCH_EXACT, "green tea", "green tea ", 0, NULL) == 0.0);
	assert_true(kn_match_text(KN_MATCH_EXACT, "Refund", "refund", 0, NULL) == 0.0);
	assert_true(kn_match_text(KN_MATCH_EXACT, "", "", 0, NULL) == 1.0);
	assert_true(kn_match_text(KN_MATCH_EXACT, "caf\xc3\xa9", "caf\xc3\xa9", 0, NULL) == 1.0);
	assert_true(kn_match_text(KN_MATCH_EXACT, "a", NULL, 0, NULL) == 0.0);
	assert_true(kn_match_text(KN_MATCH_EXACT, NULL, "a", 0, NULL) == 0.0);
}

static void test_include(void **state)
{
	(void)state;
	assert_true(kn_match_text(KN_MATCH_INCLUDE, "order 5521", "re: order 5521 lost", 0, NULL) == 1.0);
	assert_true(kn_match_text(KN_MATCH_INCLUDE, "order 5521", "order 552", 0, NULL) == 0.0);
	assert_true(kn_match_text(KN_MATCH_INCLUDE, "Order", "order 5521", 0, NULL) == 0.0);
	assert_true(kn_match_text(KN_MATCH_INCLUDE, "/support/sent", "help.teashop.com/support/sent", 0, NULL) == 1.0);
	assert_true(kn_match_text(KN_MATCH_INCLUDE, "", "anything", 0, NULL) == 1.0); /* as Python's "in" */
	assert_true(kn_match_text(KN_MATCH_INCLUDE, "x", "", 0, NULL) == 0.0);
	/* the reference is searched in the input, not the other way round */
	assert_true(kn_match_text(KN_MATCH_INCLUDE, "teashop.com/find", "teashop.com", 0, NULL) == 0.0);
}

static void test_fold(void **state)
{
	(void)state;
	assert_true(kn_match_text(KN_MATCH_EXACT, "$18.50", "$18.50", 1, NULL) == 1.0);
	assert_true(kn_match_text(KN_MATCH_EXACT, "Paris", "PARIS", 1, NULL) == 1.0);
	assert_true(kn_match_text(KN_MATCH_EXACT, "Paris", "PARISX", 1, NULL) == 0.0);
	assert_true(kn_match_text(KN_MATCH_EXACT, "Paris!", "PARIS", 1, NULL) == 0.0);
	assert_true(kn_match_text(KN_MATCH_INCLUDE, "NEW york", "I think New York City", 1, NULL) == 1.0);
	assert_true(kn_match_text(KN_MATCH_INCLUDE, "yorkz", "New York", 1, NULL) == 0.0);
	assert_true(kn_match_text(KN_MATCH_INCLUDE, "aab", "aaab", 1, NULL) == 1.0);
	/* ASCII only: UTF-8 bytes compare as they are */
	assert_true(kn_match_text(KN_MATCH_EXACT, "CAF\xc3\xa9", "caf\xc3\xa9", 1, NULL) == 1.0);
	assert_true(kn_match_text(KN_MATCH_EXACT, "\xc3\x89", "\xc3\xa9", 1, NULL) == 0.0);
}

static void test_semantic_not_here(void **state)
{
	(void)state;
	assert_true(kn_match_text(KN_MATCH_SEMANTIC, "x", "x", 0, NULL) == 0.0);
}

static void test_regex(void **state)
{
	(void)state;
	void *re = NULL;
	kn_err err = { 0 };
	assert_int_equal(kn_regex_compile(&re, "^http://[^/]+/shop/item/[0-9]+$", &err), 0);
	assert_non_null(re);
	const char *hit = "http://127.0.0.1:8100/shop/item/42";
	assert_int_equal(kn_regex_match(re, hit, strlen(hit)), 1);
	assert_int_equal(kn_regex_match(re, "http://h/shop/item/42?x", 23), 0);
	assert_true(kn_match_text(KN_MATCH_REGEX, "ignored", hit, 0, re) == 1.0);
	assert_true(kn_match_text(KN_MATCH_REGEX, "ignored", "nope", 0, re) == 0.0);
	assert_true(kn_match_text(KN_MATCH_REGEX, "ignored", hit, 0, NULL) == 0.0);
	/* len bounds the subject */
	assert_int_equal(kn_regex_match(re, hit, strlen(hit) - 1), 1);
	assert_int_equal(kn_regex_match(re, hit, 20), 0);
	kn_regex_free(re);

	/* anywhere in the subject, UTF-8 aware */
	assert_int_equal(kn_regex_compile(&re, "caf\xc3\xa9|^\\p{Lu}.$", &err), 0);
	assert_int_equal(kn_regex_match(re, "le caf\xc3\xa9 noir", 14), 1);
	assert_int_equal(kn_regex_match(re, "\xc3\x89t", 3), 1);
	assert_int_equal(kn_regex_match(re, "cafe", 4), 0);
	/* a subject that is not UTF-8 simply has no match there */
	assert_int_equal(kn_regex_match(re, "\xff\xfe caf\xc3\xa9", 9), 1);
	assert_int_equal(kn_regex_match(re, "\xff\xfe", 2), 0);
	assert_int_equal(kn_regex_match(re, "", 0), 0);
	kn_regex_free(re);

	kn_regex_free(NULL);
	assert_int_equal(kn_regex_match(NULL, "x", 1), KN_EINVAL);
}

static void test_regex_invalid(void **state)
{
	(void)state;
	void *re = (void *)&re;
	kn_err err = { 0 };
	assert_int_equal(kn_regex_compile(&re, "shop/(item", &err), KN_EINVAL);
	assert_null(re);
	assert_int_equal(err.code, KN_EINVAL);
	assert_non_null(strstr(err.msg, "invalid regex at offset 10"));
	assert_non_null(strstr(err.msg, "parenthesis"));

	assert_int_equal(kn_regex_compile(&re, "[z-a]", &err), KN_EINVAL);
	assert_non_null(strstr(err.msg, "offset 3"));
	assert_int_equal(kn_regex_compile(&re, "caf\xc3", &err), KN_EINVAL); /* not UTF-8 */
	assert_int_equal(kn_regex_compile(&re, NULL, &err), KN_EINVAL);
	assert_int_equal(kn_regex_compile(&re, "(", NULL), KN_EINVAL); /* err is optional */
}

static void test_regex_limit(void **state)
{
	(void)state;
	/* Catastrophic backtracking: without a limit this runs for ages. */
	void *re;
	kn_err err = { 0 };
	assert_int_equal(kn_regex_compile(&re, "^(a|aa)+(b|c)?$", &err), 0);
	char subject[64];
	memset(subject, 'a', 60);
	subject[60] = 'x';
	subject[61] = '\0';
	clock_t t0 = clock();
	assert_int_equal(kn_regex_match(re, subject, 61), KN_ELIMIT);
	assert_true(kn_match_text(KN_MATCH_REGEX, "", subject, 0, re) == 0.0);
	assert_true((double)(clock() - t0) / CLOCKS_PER_SEC < 5.0);
	/* the same pattern on a benign subject is fine */
	assert_int_equal(kn_regex_match(re, "aaab", 4), 1);
	kn_regex_free(re);

	assert_int_equal(kn_regex_compile(&re, "^(\\w+\\s?)*$", &err), 0);
	memset(subject, 'x', 40);
	subject[40] = '!';
	subject[41] = '\0';
	assert_int_equal(kn_regex_match(re, subject, 41), KN_ELIMIT);
	kn_regex_free(re);
}

static void check_sel(const char *in, const char *want)
{
	char *got = NULL, *again = NULL;
	assert_int_equal(kn_selector_normalise(&got, in), 0);
	if (strcmp(got, want) != 0)
		print_error("selector <%s>: want <%s>, got <%s>\n", in, want, got);
	assert_string_equal(got, want);
	/* normalising twice changes nothing */
	assert_int_equal(kn_selector_normalise(&again, got), 0);
	assert_string_equal(again, got);
	free(again);
	free(got);
}

static void test_selector(void **state)
{
	(void)state;
	check_sel(".hits >li:nth-child(1)>a ", ".hits>li:nth-child(1)>a");
	check_sel(".hits > li:nth-child(1) > a", ".hits>li:nth-child(1)>a");
	check_sel("#subject ", "#subject");
	check_sel("  div   p  ", "div p");
	check_sel("div\n\t p", "div p");
	check_sel("a , b ,c", "a,b,c");
	check_sel("ul ~ li + li", "ul~li+li");
	check_sel("li:not( .a ) b", "li:not(.a) b");
	check_sel(":nth-child( 2n + 1 )", ":nth-child(2n+1)");
	check_sel("div :hover", "div :hover"); /* a descendant, not "div:hover" */
	check_sel("a[href] span", "a[href] span");
	check_sel("", "");
	check_sel(" \t\n", "");
}

static void test_selector_brackets(void **state)
{
	(void)state;
	check_sel("[ name = 'x  y' ]", "[name='x  y']");
	check_sel("input[ type = \"text\" ]  >  span", "input[type=\"text\"]>span");
	check_sel("a[title=\"a > b ,  c\"]  >  span", "a[title=\"a > b ,  c\"]>span");
	check_sel("a[ href ^= \"/x\" ]", "a[href^=\"/x\"]");
	check_sel("[x~= y]", "[x~=y]");
	check_sel("[type=a i]", "[type=a i]"); /* the flag needs its space */
	check_sel("[x='it\\'s  ok'] b", "[x='it\\'s  ok'] b");
	check_sel("#a\\ b   c", "#a\\ b c"); /* an escaped space belongs to the name */
	check_sel("[x='open", "[x='open");      /* unterminated: kept, no crash */
	check_sel("a\\", "a\\");
}

static void test_selector_equivalence(void **state)
{
	(void)state;
	const char *same[][2] = {
		{ ".hits >li:nth-child(1)>a ", ".hits > li:nth-child(1) > a" },
		{ "div>p", "div > p" },
		{ "a,b", "a , b" },
	};
	for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
		char *a, *b;
		assert_int_equal(kn_selector_normalise(&a, same[i][0]), 0);
		assert_int_equal(kn_selector_normalise(&b, same[i][1]), 0);
		assert_string_equal(a, b);
		free(a);
		free(b);
	}
	char *a, *b;
	assert_int_equal(kn_selector_normalise(&a, "div p"), 0);
	assert_int_equal(kn_selector_normalise(&b, "div > p"), 0);
	assert_string_not_equal(a, b);
	free(a);
	free(b);
	assert_int_equal(kn_selector_normalise(&a, NULL), KN_EINVAL);
	assert_null(a);
}

/* The last part of a `host >> inner` chain in a normalised selector: ">>" inside strings,
 * brackets and parentheses, or escaped, is no separator; malformed input never crashes. */
static void test_selector_last_part(void **state)
{
	(void)state;
	const char *chains[][2] = {
		{ "coupon-box >> #coupon", "#coupon" },
		{ "shop-checkout >> coupon-box >> div > button.apply", "div>button.apply" },
		{ "[title=\"a >> b\"] >> #q", "#q" },
		{ "a:is(b >> c) >> #q", "#q" },
		{ "a >> ", "" },
		{ ">> #q", "#q" },
	};
	for (size_t i = 0; i < sizeof chains / sizeof chains[0]; i++) {
		char *n;
		assert_int_equal(kn_selector_normalise(&n, chains[i][0]), 0);
		const char *last = kn_selector_last_part(n);
		assert_non_null(last);
		assert_string_equal(last, chains[i][1]);
		free(n);
	}
	const char *plain[] = { "#coupon", "div > p", "[title=\"a >> b\"]", "a:is(b >> c)", "#a\\>>b",
	                        "[x='open >> ", "\"unterminated >> ", "a\\", "", "(((", "]]>" };
	for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) {
		char *n;
		assert_int_equal(kn_selector_normalise(&n, plain[i]), 0);
		assert_null(kn_selector_last_part(n));
		free(n);
	}
	assert_null(kn_selector_last_part(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact),
		cmocka_unit_test(test_include),
		cmocka_unit_test(test_fold),
		cmocka_unit_test(test_semantic_not_here),
		cmocka_unit_test(test_regex),
		cmocka_unit_test(test_regex_invalid),
		cmocka_unit_test(test_regex_limit),
		cmocka_unit_test(test_selector),
		cmocka_unit_test(test_selector_brackets),
		cmocka_unit_test(test_selector_equivalence),
		cmocka_unit_test(test_selector_last_part),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
