/* test_softpage.c — what the page shows is evidence (services/replay/softpage.h): the not-found /
 * error heuristic reads the title, headings, alerts and only a short body, in a few languages, and
 * not a robots tag, a bare "error" or a long page that mentions the words; the judge compares a
 * step's failed own-site data requests and not-found state with its recording's baseline, and
 * without one counts only a not-found page with a 404/410 data request. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "softpage.h"

static void test_shows_error(void **state)
{
	(void)state;
	char ph[64];
	kn_softpage_view v = {.title = "Trail shop", .headings = "Sorry, we couldn\xE2\x80\x99t find it"};
	assert_true(kn_softpage_shows_error(&v, ph, sizeof ph));
	assert_string_equal(ph, "couldn't find");
	assert_true(kn_softpage_shows_error(&(kn_softpage_view){.title = "404 Not Found"}, ph, sizeof ph));
	assert_true(kn_softpage_shows_error(&(kn_softpage_view){.headings = "Seite nicht gefunden"}, NULL, 0));
	assert_true(kn_softpage_shows_error(&(kn_softpage_view){.title = "Page introuvable"}, NULL, 0));
	assert_true(kn_softpage_shows_error(&(kn_softpage_view){.alerts = "Ha ocurrido un error"}, NULL, 0));
	assert_true(kn_softpage_shows_error(&(kn_softpage_view){.headings = "Pagina non trovata"}, NULL, 0));
	assert_true(kn_softpage_shows_error(&(kn_softpage_view){.title = "Something went wrong"}, NULL, 0));
	/* a short body that is only the message counts; a long page mentioning the words does not */
	const char *msg = "Oops. This item does not exist.";
	assert_true(kn_softpage_shows_error(&(kn_softpage_view){.text = msg, .text_len = strlen(msg)}, NULL, 0));
	assert_false(kn_softpage_shows_error(&(kn_softpage_view){.text = msg, .text_len = 5000}, ph, sizeof ph));
	assert_string_equal(ph, "");
	/* ordinary pages: an item named Error, a 404 club, an empty view */
	assert_false(kn_softpage_shows_error(&(kn_softpage_view){.title = "Error — a novel", .headings = "The 404 Club"},
	                                     NULL, 0));
	assert_false(kn_softpage_shows_error(&(kn_softpage_view){0}, NULL, 0));
	assert_false(kn_softpage_shows_error(NULL, NULL, 0));
	assert_false(kn_softpage_shows_error(&(kn_softpage_view){.title = "Alpine tent 2P", .headings = "Alpine tent 2P | Reviews"},
	                                     NULL, 0));
}

static void test_path_listed(void **state)
{
	(void)state;
	assert_true(kn_softpage_path_listed("/api/track", "http://127.0.0.1:8100/api/track?t=17"));
	assert_true(kn_softpage_path_listed("/a /api/track", "https://shop.example/api/track#x"));
	assert_false(kn_softpage_path_listed("/api/track", "http://h/api/tracker"));
	assert_false(kn_softpage_path_listed("/api/track", "http://h/api"));
	assert_false(kn_softpage_path_listed(NULL, "http://h/api"));
	assert_true(kn_softpage_path_listed("/", "http://h"));
}

static void test_paths(void **state)
{
	(void)state;
	const char *urls[] = {"http://h:81/api/track?p=1", "http://h:81/api/track?p=2", "https://h/api/items/7#x", NULL,
	                      "http://h/with space"};
	char *p = kn_softpage_paths(urls, 5);
	assert_string_equal(p, "/api/track /api/items/7"); /* a path with a space is left out */
	free(p);
	assert_null(kn_softpage_paths(urls, 0));
	/* a recording's list is what a replay compares with */
	char *q = kn_softpage_paths(urls, 3);
	assert_true(kn_softpage_path_listed(q, "http://other:9/api/items/7?x=1"));
	free(q);
}

static void test_judge_baseline(void **state)
{
	(void)state;
	int c;
	kn_step clean = {.error_page = 2};
	kn_softpage_request removed[] = {{"http://h/api/track", 500}, {"http://h/api/items/7", 404}};
	/* the recording had neither: the new failures count, the 404 named */
	assert_true(kn_softpage_judge(&clean, 1, removed, 2, &c));
	assert_int_equal(c, 1);
	assert_true(kn_softpage_judge(&clean, 0, removed, 1, &c));
	assert_int_equal(c, 0);
	/* the not-found state alone, no request */
	assert_true(kn_softpage_judge(&clean, 1, NULL, 0, &c));
	assert_int_equal(c, -1);
	assert_false(kn_softpage_judge(&clean, 0, NULL, 0, &c));
	/* an analytics call that always fails on the site's own host is the recording's too */
	char track[] = "/api/track";
	kn_step analytics = {.error_page = 2, .failed_requests = track};
	assert_false(kn_softpage_judge(&analytics, 0, removed, 1, &c));
	assert_true(kn_softpage_judge(&analytics, 0, removed, 2, &c));
	assert_int_equal(c, 1);
	/* a network failure (no status) counts as failed */
	kn_softpage_request refused[] = {{"http://h/api/items/7", 0}};
	assert_true(kn_softpage_judge(&clean, 0, refused, 1, &c));
	assert_int_equal(c, 0);
	/* a page that always shows an error banner: the banner is no news, a new failure is */
	kn_step banner = {.error_page = 1};
	assert_false(kn_softpage_judge(&banner, 1, NULL, 0, &c));
	assert_true(kn_softpage_judge(&banner, 1, removed + 1, 1, &c));
}

static void test_judge_no_baseline(void **state)
{
	(void)state;
	int c;
	kn_step old = {0};
	kn_softpage_request r404[] = {{"http://h/api/track", 500}, {"http://h/api/items/7", 404}};
	kn_softpage_request r500[] = {{"http://h/api/items/7", 500}};
	kn_softpage_request r410[] = {{"http://h/api/items/7", 410}};
	assert_true(kn_softpage_judge(&old, 1, r404, 2, &c));
	assert_int_equal(c, 1);
	assert_true(kn_softpage_judge(&old, 1, r410, 1, &c));
	assert_false(kn_softpage_judge(&old, 0, r404, 2, &c)); /* a failure alone */
	assert_false(kn_softpage_judge(&old, 1, NULL, 0, &c));  /* the words alone */
	assert_false(kn_softpage_judge(&old, 1, r500, 1, &c));  /* a 500: not a removal */
}

static void test_undecided(void **state)
{
	(void)state;
	kn_step old = {0}, clean = {.error_page = 2};
	kn_softpage_request r404[] = {{"http://h/api/track", 500}, {"http://h/api/items/7", 404}};
	kn_softpage_request r500[] = {{"http://h/api/items/7", 500}};
	/* the 404 answered, the app has not shown its not-found words yet: wait for them */
	assert_true(kn_softpage_undecided(&old, 0, r404, 2, 0));
	/* the words shown, a data request still out: wait for its answer */
	assert_true(kn_softpage_undecided(&old, 1, NULL, 0, 1));
	/* the words and nothing out, a 500 alone, or nothing at all: decided at once */
	assert_false(kn_softpage_undecided(&old, 1, NULL, 0, 0));
	assert_false(kn_softpage_undecided(&old, 0, r500, 1, 3));
	assert_false(kn_softpage_undecided(&old, 0, NULL, 0, 3));
	/* with a baseline one signal is enough: nothing to wait for */
	assert_false(kn_softpage_undecided(&clean, 0, r404, 2, 1));
}

/* knShows's object as the page gives it: read like the view; fields of another type are absent. */
static void test_shows_error_json(void **state)
{
	(void)state;
	char ph[64] = "";
	json_t *v = json_pack("{s:s, s:s, s:s, s:s, s:i}", "title", "Shop", "headings", "Page not found", "alerts", "",
	                      "text", "Page not found", "len", 14);
	assert_true(kn_softpage_shows_error_json(v, ph, sizeof ph));
	assert_string_equal(ph, "page not found");
	json_decref(v);
	v = json_pack("{s:i, s:[], s:s, s:i}", "title", 404, "headings", "text", "Item 42 in stock", "len", 16);
	assert_false(kn_softpage_shows_error_json(v, NULL, 0));
	json_decref(v);
	v = json_string("404 not found");
	assert_false(kn_softpage_shows_error_json(v, NULL, 0)); /* not an object */
	json_decref(v);
	assert_false(kn_softpage_shows_error_json(NULL, NULL, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shows_error),
		cmocka_unit_test(test_shows_error_json),
		cmocka_unit_test(test_path_listed),
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_judge_baseline),
		cmocka_unit_test(test_judge_no_baseline),
		cmocka_unit_test(test_undecided),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
