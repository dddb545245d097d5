/* test_repair.c — the pure half of a URL key node's repair proposal (services/replay/repair.h
 * kn_repair_url): a renamed query parameter for a key node with a key, a renamed parameter inside an
 * exact / regex expected URL, a renamed path (include), and what must not be proposed: a page that
 * still has the parameter, a value found nowhere, a semantic matcher, malformed and hostile URLs. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "repair.h"

/* A key node made like the loaders make them (kn_keynode_prepare). */
static kn_keynode node(kn_matcher m, const char *key, const char *expect)
{
	kn_keynode kn = {.id = strdup("k1"), .target = KN_TARGET_URL, .matcher = m,
	                 .expect = strdup(expect), .key = key ? strdup(key) : NULL};
	kn_err err;
	assert_int_equal(kn_keynode_prepare(&kn, &err), 0);
	return kn;
}

/* kn_repair_url's proposal as "key=NAME", "expect=TEXT" or "" (none). */
static char *propose(const kn_keynode *kn, const char *url, const char *recorded)
{
	char *key = NULL, *expect = NULL;
	int rc = kn_repair_url(kn, url, recorded, &key, &expect);
	static char out[512];
	snprintf(out, sizeof out, "%s%s%s", rc == 1 && key ? "key=" : rc == 1 ? "expect=" : "",
	         key ? key : "", expect ? expect : "");
	assert_true(rc == 1 ? (key != NULL) != (expect != NULL) : !key && !expect);
	free(key);
	free(expect);
	return out;
}

static void test_key_renamed(void **state)
{
	(void)state;
	kn_keynode kn = node(KN_MATCH_EXACT, "id", "3");
	assert_string_equal(propose(&kn, "http://h/forum/post.html?post=3", NULL), "key=post");
	assert_string_equal(propose(&kn, "http://h/forum/post.html?page=1&post=3#top", NULL), "key=post");
	/* the parameter is still there (another value): no rename */
	assert_string_equal(propose(&kn, "http://h/forum/post.html?id=4&post=3", NULL), "");
	/* the value is nowhere */
	assert_string_equal(propose(&kn, "http://h/forum/post.html?post=4", NULL), "");
	assert_string_equal(propose(&kn, "http://h/forum/", NULL), "");
	kn_keynode_clear(&kn);
	kn = node(KN_MATCH_INCLUDE, "q", "refund");
	assert_string_equal(propose(&kn, "http://h/kb?query=refund+damaged", NULL), "key=query");
	kn_keynode_clear(&kn);
}

static void test_expect_param_renamed(void **state)
{
	(void)state;
	kn_keynode kn = node(KN_MATCH_REGEX, NULL, "/forum/post\\.html\\?id=5$");
	assert_string_equal(propose(&kn, "http://h/forum/post.html?post=5", NULL), "expect=/forum/post\\.html\\?post=5$");
	assert_string_equal(propose(&kn, "http://h/forum/post.html?post=6", NULL), "");
	kn_keynode_clear(&kn);
	kn = node(KN_MATCH_EXACT, NULL, "http://h/shop/item.html?id=7");
	assert_string_equal(propose(&kn, "http://h/shop/item.html?item=7", NULL), "expect=http://h/shop/item.html?item=7");
	kn_keynode_clear(&kn);
}

static void test_path_renamed(void **state)
{
	(void)state;
	kn_keynode kn = node(KN_MATCH_INCLUDE, NULL, "/notes/new.html");
	assert_string_equal(propose(&kn, "http://h:81/notes/compose.html", "http://h:81/notes/new.html"),
	                    "expect=/notes/compose.html");
	/* the recorded link's href works as well as a recorded URL */
	assert_string_equal(propose(&kn, "http://h:81/notes/compose.html", "/notes/new.html"), "expect=/notes/compose.html");
	/* a page elsewhere with no segment in common is not a renamed page */
	assert_string_equal(propose(&kn, "http://h:81/help/", "http://h:81/notes/new.html"), "");
	assert_string_equal(propose(&kn, "http://h:81/notes/compose.html", NULL), "");
	assert_string_equal(propose(&kn, "http://h:81/notes/new.html", "http://h:81/notes/new.html"), "");
	kn_keynode_clear(&kn);
	kn = node(KN_MATCH_REGEX, NULL, "/notes/new\\.html$");
	assert_string_equal(propose(&kn, "http://h/notes/compose.html", "http://h/notes/new.html"),
	                    "expect=/notes/compose\\.html$");
	kn_keynode_clear(&kn);
}

static void test_not_proposed(void **state)
{
	(void)state;
	kn_keynode kn = node(KN_MATCH_SEMANTIC, "q", "searching for red shoes");
	assert_string_equal(propose(&kn, "http://h/s?query=red+shoes", NULL), "");
	kn_keynode_clear(&kn);
	kn = node(KN_MATCH_EXACT, "id", "3");
	kn.target = KN_TARGET_ELEMENT_PATH;
	assert_string_equal(propose(&kn, "http://h/p?post=3", NULL), "");
	kn.target = KN_TARGET_URL;
	assert_string_equal(propose(&kn, NULL, NULL), "");
	kn_keynode_clear(&kn);
}

static void test_malformed(void **state)
{
	(void)state;
	kn_keynode kn = node(KN_MATCH_EXACT, "id", "3");
	const char *bad[] = {"", "?", "?&&&=", "?=3", "http://h/?%zz=3", "::::", "?a=3&a=3&b=3", "http://h/#?x=3",
	                     "http://[::1/?p=3", "?\xff\xfe=3"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		propose(&kn, bad[i], bad[i]); /* no crash; what comes out must hold the value */
	assert_string_equal(propose(&kn, "?=3", NULL), "");
	kn_keynode_clear(&kn);
	kn = node(KN_MATCH_INCLUDE, NULL, "=x?=&=?");
	propose(&kn, "http://h/?=x&y=x", "http://h/a/b/c/");
	kn_keynode_clear(&kn);
	/* 200 parameters: only the first 32 are looked at, without overflow */
	char big[4096] = "http://h/?";
	for (int i = 0; i < 200; i++)
		snprintf(big + strlen(big), sizeof big - strlen(big), "p%d=%d&", i, i);
	kn = node(KN_MATCH_EXACT, "id", "5");
	assert_string_equal(propose(&kn, big, NULL), "key=p5");
	kn_keynode_clear(&kn);
	kn = node(KN_MATCH_EXACT, "id", "150");
	assert_string_equal(propose(&kn, big, NULL), "");
	kn_keynode_clear(&kn);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key_renamed),   cmocka_unit_test(test_expect_param_renamed),
		cmocka_unit_test(test_path_renamed),  cmocka_unit_test(test_not_proposed),
		cmocka_unit_test(test_malformed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
