/* test_url.c — the WebCanvas URL forms: Python-compatible percent decoding, parse_qs query
 * values, the include form, the exact form and the site token, including IDN and IPv6 hosts and
 * garbage that must degrade to text instead of failing. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keynode/url.h"

typedef int (*form_fn)(char **out, const char *url);

/* 1 when s is well-formed UTF-8. */
static int valid_utf8(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		size_t need;
		unsigned char lo = 0x80, hi = 0xBF;
		if (*p < 0x80) {
			p++;
			continue;
		}
		if (*p >= 0xC2 && *p <= 0xDF)
			need = 1;
		else if (*p == 0xE0)
			need = 2, lo = 0xA0;
		else if (*p == 0xED)
			need = 2, hi = 0x9F;
		else if (*p >= 0xE1 && *p <= 0xEF)
			need = 2;
		else if (*p == 0xF0)
			need = 3, lo = 0x90;
		else if (*p == 0xF4)
			need = 3, hi = 0x8F;
		else if (*p >= 0xF1 && *p <= 0xF3)
			need = 3;
		else
			return 0;
		for (size_t i = 1; i <= need; i++) {
			if (p[i] < lo || p[i] > hi)
				return 0;
			lo = 0x80, hi = 0xBF;
		}
		p += need + 1;
	}
	return 1;
}

static void check(form_fn fn, const char *url, const char *want)
{
	char *got = NULL;
	int rc = fn(&got, url);
	if (rc != 0 || !got || strcmp(got, want) != 0)
		print_error("url <%s>: want <%s>, got <%s> (rc %d)\n", url, want, got ? got : "(null)", rc);
	assert_int_equal(rc, 0);
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void check_unquote(const char *s, int plus, const char *want)
{
	char *got = NULL;
	assert_int_equal(kn_url_unquote(&got, s, strlen(s), plus), 0);
	assert_string_equal(got, want);
	free(got);
}

static char unset[] = "unset";

static void check_param(const char *url, const char *key, const char *want)
{
	char *got = unset;
	int rc = kn_url_query_param(&got, url, key);
	if (!want) {
		assert_int_equal(rc, KN_ENOTFOUND);
		assert_null(got);
		return;
	}
	assert_int_equal(rc, 0);
	assert_string_equal(got, want);
	free(got);
}

static void test_unquote(void **state)
{
	(void)state;
	check_unquote("%41%42c", 0, "ABc");
	check_unquote("caf%c3%a9", 0, "caf\xc3\xa9");
	check_unquote("100%25", 0, "100%");
	check_unquote("%2541", 0, "%41"); /* decoded once only */
	/* malformed sequences stay literal */
	check_unquote("%", 0, "%");
	check_unquote("%4", 0, "%4");
	check_unquote("a%4g", 0, "a%4g");
	check_unquote("%zz%%41", 0, "%zz%A");
	/* '+' only with plus */
	check_unquote("a+b%2Bc", 0, "a+b+c");
	check_unquote("a+b%2Bc", 1, "a b+c");
	/* %00 stays, a C string cannot carry NUL */
	check_unquote("a%00b", 0, "a%00b");
	check_unquote("", 0, "");

	/* len bounds the input */
	char *got;
	assert_int_equal(kn_url_unquote(&got, "abc%41", 4, 0), 0);
	assert_string_equal(got, "abc%");
	free(got);
	assert_int_equal(kn_url_unquote(&got, NULL, 0, 0), 0);
	assert_string_equal(got, "");
	free(got);
	assert_int_equal(kn_url_unquote(&got, NULL, 3, 0), KN_EINVAL);
	assert_null(got);
}

static void test_unquote_utf8(void **state)
{
	(void)state;
	/* Ill-formed UTF-8 becomes U+FFFD, one per maximal subpart, as Python's unquote does. */
	check_unquote("%E2%82%AC", 0, "\xe2\x82\xac");
	check_unquote("%E2%82", 0, "\xef\xbf\xbd");
	check_unquote("%E2%82x", 0, "\xef\xbf\xbdx");
	check_unquote("%C3(", 0, "\xef\xbf\xbd(");
	check_unquote("%ff%FE", 0, "\xef\xbf\xbd\xef\xbf\xbd");
	check_unquote("%C0%80", 0, "\xef\xbf\xbd\xef\xbf\xbd");         /* overlong */
	check_unquote("%ED%A0%80", 0, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"); /* surrogate */
	check_unquote("%F0%9F%98", 0, "\xef\xbf\xbd");
	check_unquote("%F0%9F%98%80", 0, "\xf0\x9f\x98\x80");
	check_unquote("%F4%90%80%80", 0, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	/* raw ill-formed bytes too: every output is valid UTF-8 */
	check_unquote("a\xff" "b", 0, "a\xef\xbf\xbd" "b");
	/* a literal character next to an escaped one */
	check_unquote("\xc3\xa9%C3%A9", 0, "\xc3\xa9\xc3\xa9");
}

static void test_query_param(void **state)
{
	(void)state;
	check_param("https://www.teashop.com/find?query=green+tea", "query", "green tea");
	check_param("https://h.com/s?q=caf%C3%A9%2Bbar&x=1", "q", "caf\xc3\xa9+bar");
	check_param("https://h.com/s?x=1&q=a%20b", "q", "a b");
	check_param("https://h.com/s?q=a=b", "q", "a=b");
	check_param("https://h.com/s?q=%2541", "q", "%41"); /* once, like parse_qs */
	/* the first value of a repeated key */
	check_param("https://h.com/s?q=first&q=second", "q", "first");
	/* key names are decoded before comparing */
	check_param("https://h.com/s?se%61rch=x", "search", "x");
	check_param("https://h.com/s?search+terms=x", "search terms", "x");
	/* only '&' separates fields */
	check_param("https://h.com/s?a=1;q=2", "a", "1;q=2");
	check_param("https://h.com/s?&&q=1&&", "q", "1");
	/* key names are case-sensitive */
	check_param("https://h.com/s?Q=1", "q", NULL);
}

static void test_query_param_missing(void **state)
{
	(void)state;
	check_param("https://h.com/s?x=1", "q", NULL);
	check_param("https://h.com/s", "q", NULL);
	check_param("https://h.com/s?", "q", NULL);
	check_param("https://h.com/s?qq=1&xq=2", "q", NULL);
	/* the fragment is not the query */
	check_param("https://h.com/s?a=1#q=2", "q", NULL);
	check_param("https://h.com/s#x?q=1", "q", NULL);
	check_param("", "q", NULL);

	char *got;
	assert_int_equal(kn_url_query_param(&got, "https://h.com/?q=1", NULL), KN_EINVAL);
	assert_int_equal(kn_url_query_param(&got, NULL, "q"), KN_EINVAL);
	assert_int_equal(kn_url_query_param(NULL, "https://h.com/?q=1", "q"), KN_EINVAL);
}

static void test_query_param_blank(void **state)
{
	(void)state;
	/* Python's parse_qs default (keep_blank_values=False): a blank value is as good as absent,
	 * so a later non-blank value of the same key wins. */
	check_param("https://h.com/s?q=", "q", NULL);
	check_param("https://h.com/s?q", "q", NULL);
	check_param("https://h.com/s?q=&x=1", "q", NULL);
	check_param("https://h.com/s?q=&q=shoes", "q", "shoes");
	check_param("https://h.com/s?q&q=shoes", "q", "shoes");
	/* a value that decodes to a space is not blank */
	check_param("https://h.com/s?q=+", "q", " ");
}

static void test_include_form(void **state)
{
	(void)state;
	check(kn_url_include_form, "https://www.imdb.com/find?q=x", "www.imdb.com/find");
	check(kn_url_include_form, "https://h.com/caf%C3%A9/%20x?q=1", "h.com/caf\xc3\xa9/ x");
	check(kn_url_include_form, "https://h.com/a+b", "h.com/a+b");
	check(kn_url_include_form, "https://H.com/A/", "H.com/A/"); /* no case folding */
	check(kn_url_include_form, "https://h.com/a/../b", "h.com/a/../b"); /* no dot segments */
	check(kn_url_include_form, "https://h.com/%2541", "h.com/%41");
	check(kn_url_include_form, "https://u:pw@h.com/x", "h.com/x"); /* userinfo dropped */
	check(kn_url_include_form, "chrome://newtab/", "newtab/");
	check(kn_url_include_form, "file:///tmp/x.html", "/tmp/x.html");
}

/* urlparse's include form (webcanvas mode): ";params" after the last '/' dropped for the schemes of
 * Python's uses_params; every expectation here is what Python 3.11's urlparse + unquote gives. */
static void test_include_urlparse(void **state)
{
	(void)state;
	check(kn_url_include_form_urlparse, "https://h.com/a;x=1/b;jsessionid=9?q=1", "h.com/a;x=1/b");
	check(kn_url_include_form_urlparse, "https://h.com/cart;sid=9#top", "h.com/cart#top");
	check(kn_url_include_form_urlparse, "https://h.com/a%3Bb;c", "h.com/a;b"); /* %3B is no separator */
	check(kn_url_include_form_urlparse, "HTTPS://h.com/a;b", "h.com/a");
	check(kn_url_include_form_urlparse, "https://h.com/;x", "h.com/");
	check(kn_url_include_form_urlparse, "www.shop.com/a;b", "www.shop.com/a"); /* no scheme: listed */
	check(kn_url_include_form_urlparse, "tel:123;ext=4", "123");               /* no '/': first ';' */
	check(kn_url_include_form_urlparse, "chrome://x/a;b", "x/a;b");            /* not listed */
	check(kn_url_include_form_urlparse, "file:///tmp/a;b", "/tmp/a;b");
	check(kn_url_include_form_urlparse, "https://www.imdb.com/find?q=x", "www.imdb.com/find");
	check(kn_url_include_form, "https://h.com/cart;sid=9#top", "h.com/cart;sid=9#top"); /* default */
}

static void test_include_fragment(void **state)
{
	(void)state;
	check(kn_url_include_form, "https://h.com/a?q=1#sec%201", "h.com/a#sec 1");
	check(kn_url_include_form, "https://h.com/a#", "h.com/a");
	check(kn_url_include_form, "https://h.com/a#x?y=1", "h.com/a#x?y=1");
	check(kn_url_include_form, "https://h.com/#/route/7", "h.com/#/route/7");
}

static void test_include_no_path_port(void **state)
{
	(void)state;
	/* An empty path reads as "/", the way a browser reports it. */
	check(kn_url_include_form, "https://www.teashop.com", "www.teashop.com/");
	check(kn_url_include_form, "https://www.teashop.com?q=1", "www.teashop.com/");
	check(kn_url_include_form, "http://127.0.0.1:8100/shop/?q=1", "127.0.0.1:8100/shop/");
	check(kn_url_include_form, "http://localhost:8080", "localhost:8080/");
	check(kn_url_include_form, "https://h.com:443/x", "h.com:443/x"); /* port kept as written */
}

static void test_idn_host(void **state)
{
	(void)state;
	check(kn_url_include_form, "https://www.b\xc3\xbc" "cher.de/suche?q=x", "www.b\xc3\xbc" "cher.de/suche");
	check(kn_url_include_form, "https://xn--bcher-kva.de/", "xn--bcher-kva.de/"); /* no conversion */
	check(kn_url_include_form, "http://\xe4\xbe\x8b\xe5\xad\x90.\xe6\xb5\x8b\xe8\xaf\x95:81/\xe8\xb7\xaf",
	      "\xe4\xbe\x8b\xe5\xad\x90.\xe6\xb5\x8b\xe8\xaf\x95:81/\xe8\xb7\xaf");
	check(kn_url_site_token, "https://www.b\xc3\xbc" "cher.de/", "b\xc3\xbc" "cher");
	check(kn_url_site_token, "http://\xe4\xbe\x8b\xe5\xad\x90.\xe6\xb5\x8b\xe8\xaf\x95/", "\xe4\xbe\x8b\xe5\xad\x90");
	check_param("https://www.b\xc3\xbc" "cher.de/s?q=k%C3%A4se", "q", "k\xc3\xa4se");
}

static void test_ipv6_host(void **state)
{
	(void)state;
	check(kn_url_include_form, "http://[::1]:8080/p?q=a#f", "[::1]:8080/p#f");
	check(kn_url_include_form, "http://[2001:db8::7]/x", "[2001:db8::7]/x");
	check(kn_url_site_token, "http://[::1]:8080/p", "");
	check_param("http://[::1]:8080/?q=1", "q", "1");
	/* unbalanced brackets: curl refuses, the fallback split keeps the text */
	check(kn_url_include_form, "http://[::1/p?q=1", "[::1/p");
}

static void test_exact_form(void **state)
{
	(void)state;
	check(kn_url_exact_form, "https://h.com/s?q=caf%C3%A9+x#f%20g", "https://h.com/s?q=caf\xc3\xa9+x#f g");
	check(kn_url_exact_form, "https://www.teashop.com", "https://www.teashop.com"); /* not parsed */
	check(kn_url_exact_form, "HTTPS://H.com/a/../b", "HTTPS://H.com/a/../b");
	check(kn_url_exact_form, "", "");
	check(kn_url_exact_form, "not a url %41", "not a url A");
	char *got;
	assert_int_equal(kn_url_exact_form(&got, NULL), KN_EINVAL);
	assert_null(got);
}

static void test_site_token(void **state)
{
	(void)state;
	check(kn_url_site_token, "https://www.imdb.com/title/tt0111161/", "imdb");
	check(kn_url_site_token, "https://new.mta.info/schedules", "new");
	check(kn_url_site_token, "http://127.0.0.1:8100/shop/", "127");
	check(kn_url_site_token, "http://localhost:8080/", "");
	check(kn_url_site_token, "https://www.google.com.hk/", "google");
	check(kn_url_site_token, "https://www2.example.com/", "example"); /* starts with "www" */
	check(kn_url_site_token, "https://www.com/", "");                /* no second dot */
	check(kn_url_site_token, "https://help.teashop.com/support", "help");
	check(kn_url_site_token, "https://WWW.IMDB.COM/", "WWW");        /* case-sensitive, as upstream */
	check(kn_url_site_token, "https://u@www.imdb.com/", "imdb");      /* userinfo is not the host */
	check(kn_url_site_token, "www.imdb.com/find", "");                /* no scheme: no host */
}

static void test_garbage(void **state)
{
	(void)state;
	/* curl refuses these; the fallback splits like Python's urlsplit and never fails */
	check(kn_url_include_form, "", "");
	check(kn_url_include_form, "::::", "::::");
	check(kn_url_include_form, "http://", "");
	check(kn_url_include_form, "not a url", "not a url");
	check(kn_url_include_form, "not a url?q=1", "not a url");
	check(kn_url_include_form, "www.imdb.com/find?q=x#f", "www.imdb.com/find#f");
	check(kn_url_include_form, "about:blank", "blank");
	check(kn_url_include_form, "http://ex ample.com/a b?q=1", "ex ample.com/a b");
	check(kn_url_include_form, " \thttp://h.com/a\nb?q=1", "h.com/ab"); /* Python strips these */
	check(kn_url_include_form, "?#", "");
	check(kn_url_site_token, "", "");
	check(kn_url_site_token, "::::", "");
	check(kn_url_site_token, "http://", "");
	check(kn_url_site_token, "not a url", "");
	check(kn_url_site_token, "http://ex ample.com/", "ex ample");
	check_param("not a url?q=x+y", "q", "x y");
	check_param("::::", "q", NULL);
	check_param("http://", "q", NULL);

	char *got = unset;
	assert_int_equal(kn_url_include_form(&got, NULL), KN_EINVAL);
	assert_null(got);
	assert_int_equal(kn_url_site_token(&got, NULL), KN_EINVAL);
	assert_int_equal(kn_url_include_form(NULL, "http://h/"), KN_EINVAL);
}

static void test_very_long(void **state)
{
	(void)state;
	/* 1 MiB goes through curl; past curl's 8 MiB input cap the fallback takes over. */
	const size_t sizes[] = { 1u << 20, 9u << 20 };
	for (size_t k = 0; k < 2; k++) {
		size_t n = sizes[k];
		char *url = malloc(n + 1);
		assert_non_null(url);
		memcpy(url, "http://h.com/", 13);
		memset(url + 13, 'a', n - 13);
		memcpy(url + n - 8, "?q=x%41&", 8);
		url[n] = '\0';

		char *got;
		assert_int_equal(kn_url_include_form(&got, url), 0);
		assert_int_equal(strlen(got), n - 8 - 7);
		assert_memory_equal(got, "h.com/aaa", 9);
		free(got);
		check_param(url, "q", "xA");
		assert_int_equal(kn_url_exact_form(&got, url), 0);
		assert_int_equal(strlen(got), n - 2);
		free(got);
		free(url);
	}
}

static void test_binary(void **state)
{
	(void)state;
	/* Every byte but NUL, in a URL and alone: no crash, valid UTF-8 out. */
	char bin[256], url[300];
	for (int i = 1; i < 256; i++)
		bin[i - 1] = (char)(i * 7 % 255 + 1);
	bin[255] = '\0';
	snprintf(url, sizeof url, "http://www.h\xff.com/%s", bin);
	const char *inputs[] = { bin, url, "http://\x01\x02/\x7f?q=\x80" };
	for (size_t i = 0; i < 3; i++) {
		form_fn fns[] = { kn_url_include_form, kn_url_exact_form, kn_url_site_token };
		for (size_t f = 0; f < 3; f++) {
			char *got = NULL;
			assert_int_equal(fns[f](&got, inputs[i]), 0);
			assert_true(valid_utf8(got));
			free(got);
		}
		char *v = NULL;
		int rc = kn_url_query_param(&v, inputs[i], "q");
		assert_true(rc == 0 || rc == KN_ENOTFOUND);
		if (v)
			assert_true(valid_utf8(v));
		free(v);
	}
	check(kn_url_site_token, "http://www.h\xff.com/", "h\xef\xbf\xbd");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unquote),
		cmocka_unit_test(test_unquote_utf8),
		cmocka_unit_test(test_query_param),
		cmocka_unit_test(test_query_param_missing),
		cmocka_unit_test(test_query_param_blank),
		cmocka_unit_test(test_include_form),
		cmocka_unit_test(test_include_urlparse),
		cmocka_unit_test(test_include_fragment),
		cmocka_unit_test(test_include_no_path_port),
		cmocka_unit_test(test_idn_host),
		cmocka_unit_test(test_ipv6_host),
		cmocka_unit_test(test_exact_form),
		cmocka_unit_test(test_site_token),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_very_long),
		cmocka_unit_test(test_binary),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
