/* test_sites_rules.c — the `_redirects` file of `keynode sites` (services/http/sites_rules.h): good
 * rules (every status, the default, comments, CRLF, absolute targets), every kind of bad line with
 * its file:line message, the caps, and the lookups (exact paths, rule files, cacheable folders). */
#define _XOPEN_SOURCE 700 /* mkdtemp */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sites_rules.h"

static kn_sites_rules *parse_ok(const char *text)
{
	kn_sites_rules *r = NULL;
	kn_err err = {0};
	int rc = kn_sites_rules_parse(&r, text, strlen(text), "_redirects", &err);
	if (rc) {
		print_error("%s\n", err.msg);
		fail();
	}
	assert_non_null(r);
	return r;
}

static void parse_bad(const char *text, size_t len, int want_rc, const char *want_msg)
{
	kn_sites_rules *r = (kn_sites_rules *)1;
	kn_err err = {0};
	int rc = kn_sites_rules_parse(&r, text, len, "_redirects", &err);
	if (rc != want_rc || r != NULL || !strstr(err.msg, want_msg)) {
		print_error("<%.*s>: want %d '%s', got %d '%s'\n", (int)len, text, want_rc, want_msg, rc, err.msg);
		fail();
	}
}

static void test_good(void **state)
{
	(void)state;
	kn_sites_rules *r = parse_ok("# comment\n\n/a /b 301\n/b\t/c   302\r\n/c /d 303\n/d /e 307\n"
	                             "  /e /f?x=1 308  \n/old http://localhost:8100/new\n/s https://x.test/");
	assert_int_equal(r->n, 7);
	const int want[] = {301, 302, 303, 307, 308, 301, 301};
	for (size_t i = 0; i < 7; i++)
		assert_int_equal(r->redirects[i].status, want[i]);
	assert_string_equal(kn_sites_rules_find(r, "/b")->to, "/c");
	assert_int_equal(kn_sites_rules_find(r, "/b")->line, 4);
	assert_string_equal(kn_sites_rules_find(r, "/e")->to, "/f?x=1");
	assert_string_equal(kn_sites_rules_find(r, "/old")->to, "http://localhost:8100/new");
	assert_null(kn_sites_rules_find(r, "/a/"));  /* exact paths only */
	assert_null(kn_sites_rules_find(r, "/A"));
	assert_null(kn_sites_rules_find(r, NULL));
	kn_sites_rules_free(r);
	r = parse_ok("");
	assert_int_equal(r->n, 0);
	assert_null(kn_sites_rules_find(r, "/"));
	kn_sites_rules_free(r);
	kn_sites_rules_free(NULL);
}

static void test_bad(void **state)
{
	(void)state;
	parse_bad("/a\n", 3, KN_EINVAL, "_redirects:1: a rule needs FROM and TO");
	parse_bad("\n/a /b 301 x\n", 13, KN_EINVAL, "_redirects:2: more than three fields");
	parse_bad("a /b\n", 5, KN_EINVAL, "_redirects:1: FROM must be a path");
	parse_bad("/a b\n", 5, KN_EINVAL, "_redirects:1: TO must be");
	parse_bad("/a ftp://x/\n", 12, KN_EINVAL, "TO must be");
	parse_bad("/a http://\n", 11, KN_EINVAL, "TO must be");
	parse_bad("/a //evil.test/\n", 16, KN_EINVAL, "another host");
	parse_bad("/a /b 304\n", 10, KN_EINVAL, "status '304' is not");
	parse_bad("/a /b 30\n", 9, KN_EINVAL, "status '30' is not");
	parse_bad("/a /b 3x1\n", 10, KN_EINVAL, "status '3x1' is not");
	parse_bad("/a /b\n/a /c\n", 12, KN_EINVAL, "_redirects:2: /a already has a rule (line 1)");
	parse_bad("/a /b\x01\n", 7, KN_EINVAL, "TO must be");
	parse_bad("/a /caf\xc3\xa9\n", 11, KN_EINVAL, "TO must be"); /* non-ASCII: percent-encode it */
	parse_bad("/a\x7f /b\n", 7, KN_EINVAL, "FROM must be");
	parse_bad("/a /b\r\r\n", 8, KN_EINVAL, "TO must be"); /* a CR inside a Location */
	parse_bad("/a /b\0/c\n", 9, KN_EINVAL, "_redirects:1: a NUL byte");
}

static void test_limits(void **state)
{
	(void)state;
	size_t cap = (KN_SITES_RULES_MAX + 2) * 24;
	char *text = malloc(cap);
	assert_non_null(text);
	size_t n = 0;
	for (int i = 0; i <= KN_SITES_RULES_MAX; i++)
		n += (size_t)snprintf(text + n, cap - n, "/p%d /q\n", i);
	kn_sites_rules *r = NULL;
	kn_err err = {0};
	assert_int_equal(kn_sites_rules_parse(&r, text, n, "_redirects", &err), KN_ELIMIT);
	assert_non_null(strstr(err.msg, "more than 1000 rules"));
	assert_null(r);
	free(text);
	text = calloc(1, KN_SITES_RULES_MAX_BYTES + 1);
	assert_non_null(text);
	memset(text, '#', KN_SITES_RULES_MAX_BYTES + 1);
	assert_int_equal(kn_sites_rules_parse(&r, text, KN_SITES_RULES_MAX_BYTES + 1, "_redirects", &err), KN_ELIMIT);
	assert_int_equal(kn_sites_rules_parse(&r, text, KN_SITES_RULES_MAX_BYTES, "_redirects", &err), 0);
	assert_int_equal(r->n, 0); /* one long comment */
	kn_sites_rules_free(r);
	free(text);
	size_t long_to = KN_SITES_RULE_MAX_TO + 1;
	text = malloc(long_to + 8);
	assert_non_null(text);
	memcpy(text, "/a /", 4);
	memset(text + 4, 'x', long_to - 1);
	assert_int_equal(kn_sites_rules_parse(&r, text, 3 + long_to, "_redirects", &err), KN_EINVAL);
	assert_int_equal(kn_sites_rules_parse(&r, text, 3 + long_to - 1, "_redirects", &err), 0);
	kn_sites_rules_free(r);
	free(text);
}

/* kn-delay=MS: 1..60000 decimal digits, nothing else */
static void test_delay(void **state)
{
	(void)state;
	assert_int_equal(kn_sites_delay_ms("1"), 1);
	assert_int_equal(kn_sites_delay_ms("4000"), 4000);
	assert_int_equal(kn_sites_delay_ms("060000"), 60000);
	assert_int_equal(kn_sites_delay_ms("60001"), -1);
	assert_int_equal(kn_sites_delay_ms("0"), -1);
	assert_int_equal(kn_sites_delay_ms(""), -1);
	assert_int_equal(kn_sites_delay_ms("-5"), -1);
	assert_int_equal(kn_sites_delay_ms("+5"), -1);
	assert_int_equal(kn_sites_delay_ms(" 5"), -1);
	assert_int_equal(kn_sites_delay_ms("5 "), -1);
	assert_int_equal(kn_sites_delay_ms("5ms"), -1);
	assert_int_equal(kn_sites_delay_ms("9999999999999999999999"), -1);
	assert_int_equal(kn_sites_delay_ms(NULL), -1);
}

static void test_files(void **state)
{
	(void)state;
	assert_true(kn_sites_rules_is_rule_file("/_redirects"));
	assert_true(kn_sites_rules_is_rule_file("/bf/_cacheable"));
	assert_false(kn_sites_rules_is_rule_file("/_redirects/x"));
	assert_false(kn_sites_rules_is_rule_file("/x_redirects"));
	assert_false(kn_sites_rules_is_rule_file(NULL));

	char dir[] = "/tmp/kn_rules_XXXXXX", path[256];
	assert_non_null(mkdtemp(dir));
	kn_sites_rules *r = NULL;
	kn_err err = {0};
	assert_int_equal(kn_sites_rules_load(&r, dir, &err), 0); /* no file: no rules */
	assert_int_equal(r->n, 0);
	kn_sites_rules_free(r);
	snprintf(path, sizeof path, "%s/_redirects", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("/x /y 302\n/y\n", f);
	fclose(f);
	assert_int_equal(kn_sites_rules_load(&r, dir, &err), KN_EINVAL);
	assert_non_null(strstr(err.msg, "_redirects:2: a rule needs FROM and TO"));
	assert_non_null(strstr(err.msg, dir)); /* the file's own path */
	f = fopen(path, "w");
	fputs("/x /y 302\n", f);
	fclose(f);
	assert_int_equal(kn_sites_rules_load(&r, dir, &err), 0);
	assert_int_equal(kn_sites_rules_find(r, "/x")->status, 302);
	kn_sites_rules_free(r);

	snprintf(path, sizeof path, "%s/page.html", dir);
	assert_false(kn_sites_rules_cacheable(path));
	char marker[256];
	snprintf(marker, sizeof marker, "%s/_cacheable", dir);
	f = fopen(marker, "w");
	fclose(f);
	assert_true(kn_sites_rules_cacheable(path));
	assert_false(kn_sites_rules_cacheable("page.html"));
	unlink(marker);
	unlink(path);
	snprintf(path, sizeof path, "%s/_redirects", dir);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_delay),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
