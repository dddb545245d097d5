/* test_heal.c — locator healing (services/replay/heal.h): the expected signature derived from CSS
 * and XPath selectors and hints, string similarity, the weighted score and its threshold on the
 * cases the changed-site fixtures rely on (a renamed id with the same text heals; an id alone that
 * merely resembles does not), and the candidate parser on malformed input. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heal.h"

static kn_heal_sig expected_of(kn_step_verb verb, const char *selector, const char *text,
                               const char *id, const char *href, const char *role)
{
	kn_step st = {.verb = verb, .selector = selector ? strdup(selector) : NULL,
	              .text = text ? strdup(text) : NULL, .hint_id = id ? strdup(id) : NULL,
	              .hint_href = href ? strdup(href) : NULL, .hint_role = role ? strdup(role) : NULL};
	kn_heal_sig e;
	assert_int_equal(kn_heal_expected(&e, &st), 0);
	free(st.selector);
	free(st.text);
	free(st.hint_id);
	free(st.hint_href);
	free(st.hint_role);
	return e;
}

static void test_css_signature(void **state)
{
	(void)state;
	kn_heal_sig e = expected_of(KN_STEP_CLICK, "#post-3 > a.post-title.big[name='x'][href^=\"/f\"]:nth-child(2)",
	                            NULL, NULL, NULL, NULL);
	assert_string_equal(e.tag, "a");
	assert_null(e.id);
	assert_string_equal(e.classes, "post-title big");
	assert_string_equal(e.name, "x");
	assert_null(e.href); /* ^= is no value */
	assert_string_equal(e.path, "#post-3");
	kn_heal_sig_clear(&e);

	e = expected_of(KN_STEP_SELECT, "form .row #size", NULL, NULL, NULL, NULL);
	assert_string_equal(e.tag, "select");
	assert_string_equal(e.id, "size");
	assert_string_equal(e.path, "form .row");
	kn_heal_sig_clear(&e);

	/* hints win over what the selector says */
	e = expected_of(KN_STEP_CLICK, "#a", "Go", "b", "/x", "link");
	assert_string_equal(e.id, "b");
	assert_string_equal(e.text, "Go");
	assert_string_equal(e.tag, "a");
	kn_heal_sig_clear(&e);

	/* a selector list names no one element: only the hints */
	e = expected_of(KN_STEP_CLICK, "#a, #b", NULL, NULL, NULL, NULL);
	assert_null(e.id);
	kn_heal_sig_clear(&e);
}

static void test_xpath_signature(void **state)
{
	(void)state;
	kn_heal_sig e = expected_of(KN_STEP_CLICK, "//ul[@id='category-tabs']//a[normalize-space()='Gear & equipment']",
	                            NULL, NULL, NULL, NULL);
	assert_string_equal(e.tag, "a");
	assert_string_equal(e.text, "Gear & equipment");
	assert_string_equal(e.path, "ul#category-tabs");
	kn_heal_sig_clear(&e);
	e = expected_of(KN_STEP_CLICK, "xpath=//button[@id=\"go\" and contains(@class, 'btn')]", NULL, NULL, NULL, NULL);
	assert_string_equal(e.tag, "button");
	assert_string_equal(e.id, "go");
	assert_string_equal(e.classes, "btn");
	kn_heal_sig_clear(&e);
	/* garbage never crashes and derives nothing sensible */
	const char *bad[] = {"//", "/[", "//a[@id='unterminated", "((((", "[[[", "#", ".", "a[", "'\"", ""};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		e = expected_of(KN_STEP_CLICK, bad[i], NULL, NULL, NULL, NULL);
		kn_heal_sig_clear(&e);
	}
}

static void test_text_sim(void **state)
{
	(void)state;
	assert_true(kn_heal_text_sim("New  Post", "new post") == 1.0);
	assert_true(kn_heal_text_sim("", "x") == 0.0);
	assert_true(kn_heal_text_sim(NULL, "x") == 0.0);
	double a = kn_heal_text_sim("Gear & equipment", "Gear and equipment");
	double b = kn_heal_text_sim("Gear & equipment", "Gear");
	assert_true(a > 0.75 && a < 1.0);
	assert_true(b < a);
	assert_true(kn_heal_text_sim("submit-post", "zzz") < 0.2);
}

static kn_heal_sig cand(const char *tag, const char *id, const char *text, const char *href,
                        const char *role, const char *path)
{
	kn_heal_sig c = {0};
	c.tag = tag ? strdup(tag) : NULL;
	c.id = id ? strdup(id) : NULL;
	c.text = text ? strdup(text) : NULL;
	c.href = href ? strdup(href) : NULL;
	c.role = role ? strdup(role) : NULL;
	c.path = path ? strdup(path) : NULL;
	return c;
}

static void test_score_threshold(void **state)
{
	(void)state;
	/* the label-text fixture: the tab's text changed, no id or href to fall back on */
	kn_heal_sig e = expected_of(KN_STEP_CLICK, "//ul[@id='category-tabs']//a[normalize-space()='Gear & equipment']",
	                            NULL, NULL, NULL, "link");
	kn_heal_sig c[3] = {
		cand("a", "nav-gear", "Gear", "/forum/?category=gear", "link", "header.topbar div.wrap nav"),
		cand("a", NULL, "Gear and equipment", "/forum/?category=gear", "link", "main.wrap ul#category-tabs li"),
		cand("a", NULL, "Trip reports", "/forum/?category=trips", "link", "main.wrap ul#category-tabs li")};
	double score = 0;
	kn_heal_detail d;
	assert_int_equal(kn_heal_best(&e, c, 3, &score), 1);
	assert_true(score >= KN_HEAL_THRESHOLD);
	kn_heal_score(&e, &c[1], &d);
	assert_true(d.tag == 1.0 && d.role == 1.0 && d.path == 1.0);
	assert_true(d.id < 0 && d.href < 0); /* not known: not compared */
	assert_true(kn_heal_score(&e, &c[2], NULL) < KN_HEAL_THRESHOLD);
	kn_heal_sig_clear(&e);

	/* watch's shop-broken: "#shoe-size" with no hints must NOT heal to <select id="size"> */
	e = expected_of(KN_STEP_SELECT, "#shoe-size", NULL, NULL, NULL, NULL);
	kn_heal_sig s = cand("select", "size", NULL, NULL, "combobox", "main div form");
	assert_true(kn_heal_score(&e, &s, NULL) < KN_HEAL_THRESHOLD);
	kn_heal_sig_clear(&s);
	kn_heal_sig_clear(&e);

	/* a renamed id with the same text, href and role heals */
	e = expected_of(KN_STEP_CLICK, "#new-post-link", "New post", "new-post-link", "/forum/new.html", NULL);
	s = cand("a", "compose-link", "New post", "/forum/new.html", "link", "main.wrap div.toolbar");
	assert_true(kn_heal_score(&e, &s, NULL) >= KN_HEAL_THRESHOLD);
	kn_heal_sig_clear(&s);
	/* empty candidates: nothing */
	assert_int_equal(kn_heal_best(&e, NULL, 0, &score), -1);
	assert_true(score == 0);
	kn_heal_sig_clear(&e);
	for (int i = 0; i < 3; i++)
		kn_heal_sig_clear(&c[i]);
}

static void test_parse_candidates(void **state)
{
	(void)state;
	kn_heal_sig *c = NULL;
	size_t n = 0;
	kn_err err;
	const char *ok = "[{\"tag\":\"a\",\"id\":\"x\",\"text\":\"Hi\",\"extra\":1,\"href\":5},{}]";
	assert_int_equal(kn_heal_parse_candidates(&c, &n, ok, strlen(ok), &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(c[0].tag, "a");
	assert_null(c[0].href); /* not a string: ignored */
	assert_int_equal(c[1].index, 1);
	kn_heal_sigs_free(c, n);

	const char *bad[] = {"", "{", "{}", "[1]", "[{\"a\":1},2]", "[{\"tag\":\"a\",\"tag\":\"b\"}]", "nul"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(kn_heal_parse_candidates(&c, &n, bad[i], strlen(bad[i]), &err), KN_EINVAL);
		assert_null(c);
		assert_int_equal(n, 0);
	}
	/* caps: a long field is cut at a UTF-8 boundary, candidates beyond the cap dropped */
	size_t big = KN_HEAL_MAX_FIELD * 3;
	char *json = malloc(big + 64), *w = json;
	w += sprintf(w, "[{\"text\":\"");
	for (size_t i = 0; i < KN_HEAL_MAX_FIELD; i++)
		w += sprintf(w, "\xc3\xa9");
	sprintf(w, "\"}]");
	assert_int_equal(kn_heal_parse_candidates(&c, &n, json, strlen(json), &err), 0);
	assert_true(strlen(c[0].text) <= KN_HEAL_MAX_FIELD && strlen(c[0].text) % 2 == 0);
	kn_heal_sigs_free(c, n);
	free(json);
	size_t many = KN_HEAL_MAX_CANDIDATES + 50;
	json = malloc(many * 3 + 8);
	w = json;
	*w++ = '[';
	for (size_t i = 0; i < many; i++)
		w += sprintf(w, i ? ",{}" : "{}");
	sprintf(w, "]");
	assert_int_equal(kn_heal_parse_candidates(&c, &n, json, strlen(json), &err), 0);
	assert_int_equal(n, KN_HEAL_MAX_CANDIDATES);
	kn_heal_sigs_free(c, n);
	free(json);
	assert_int_equal(kn_heal_parse_candidates(&c, &n, "[]", KN_HEAL_MAX_JSON + 1, &err), KN_ELIMIT);
}

/* Agreement (agree.c): a recorded name refuses another item of the same kind, a counter or an
 * "and"/"&" does not; a different href is a drift, a relative one naming the same page is not. */
static void test_agree(void **state)
{
	(void)state;
	assert_true(kn_heal_names_agree("Gear & equipment", "Gear and equipment"));
	assert_true(kn_heal_names_agree("Cart", "Cart (2)"));
	assert_true(kn_heal_names_agree("  Red   Runner ", "red runner"));
	assert_false(kn_heal_names_agree("Red Runner", "Red Runner Pro"));
	assert_false(kn_heal_names_agree("Alpine tent 2P", "Alpine tent 3P"));
	assert_false(kn_heal_names_agree("Edit", "View source"));
	assert_false(kn_heal_names_agree("Ultralight tent recommendations", "Ultralight tent reviews"));
	assert_true(kn_heal_names_agree("Cart 2", "Cart 1"));         /* a counter */
	assert_false(kn_heal_names_agree("Trail budget 2026", "Trail budget 2025"));
	assert_false(kn_heal_names_agree("12", "13"));                 /* nothing but the number */
	assert_true(kn_heal_names_agree("&", "&"));
	assert_false(kn_heal_names_agree("+", "-"));
	assert_true(kn_heal_hrefs_agree("/forum/new.html", "new.html"));
	assert_true(kn_heal_hrefs_agree("http://127.0.0.1:8100/shop/item.html?id=3", "/shop/item.html?id=3"));
	assert_true(kn_heal_hrefs_agree("#/settings", "#/settings"));
	assert_false(kn_heal_hrefs_agree("/forum/new.html", "/forum/compose.html"));
	assert_false(kn_heal_hrefs_agree("/shop/item.html?id=3", "/shop/item.html?id=4"));
	assert_false(kn_heal_hrefs_agree("/a/new.html", "xnew.html"));
	assert_true(kn_heal_hrefs_agree("http://127.0.0.1:1/spa/mail.html#/settings", "#/settings"));
	assert_false(kn_heal_hrefs_agree("http://127.0.0.1:1/spa/mail.html#/settings", "#/inbox"));
	assert_true(kn_heal_hrefs_agree("http://h/kb.html?view=article&id=12", "?view=article&id=12"));

	char text[] = "Edit", href[] = "/wiki/edit?page=1", why[256];
	kn_step st = {.verb = KN_STEP_CLICK, .text = text, .hint_href = href};
	kn_heal_sig same = {.text = strdup("Edit"), .href = strdup("/wiki/edit?page=1")};
	kn_heal_sig other = {.text = strdup("View source"), .href = strdup("/wiki/edit?page=1")};
	kn_heal_sig moved = {.text = strdup("Edit"), .href = strdup("/wiki/modify?page=1")};
	kn_heal_sig icon = {.aria = strdup("edit")};
	assert_int_equal(kn_heal_agree(&st, &same, why, sizeof why), KN_AGREE_YES);
	assert_int_equal(kn_heal_agree(&st, &other, why, sizeof why), KN_AGREE_NO);
	assert_non_null(strstr(why, "'View source'"));
	assert_int_equal(kn_heal_agree(&st, &moved, why, sizeof why), KN_AGREE_DRIFT);
	assert_non_null(strstr(why, "/wiki/modify"));
	assert_int_equal(kn_heal_agree(&st, &icon, NULL, 0), KN_AGREE_YES); /* aria-label names it */
	/* a hand-written hint may be a label within the element's text; a recorded text may not */
	char part[] = "Q3 report review", tag[] = "a";
	kn_heal_sig row = {.text = strdup("Grace Hopper Q3 report review — Hi Sam")};
	kn_step hand = {.verb = KN_STEP_CLICK, .text = part};
	kn_step recorded = {.verb = KN_STEP_CLICK, .text = part, .tag = tag};
	assert_int_equal(kn_heal_agree(&hand, &row, NULL, 0), KN_AGREE_YES);
	assert_int_equal(kn_heal_agree(&recorded, &row, NULL, 0), KN_AGREE_NO);
	kn_heal_sig_clear(&row);
	/* a recorded label whose words changed but not its name: a drift; another counter is not */
	char gear[] = "Gear & equipment", cart[] = "Cart 2";
	kn_step tab = {.verb = KN_STEP_CLICK, .text = gear, .tag = tag};
	kn_step cartl = {.verb = KN_STEP_CLICK, .text = cart, .tag = tag};
	kn_heal_sig relabelled = {.text = strdup("Gear and equipment")};
	kn_heal_sig counted = {.text = strdup("Cart 3")};
	assert_int_equal(kn_heal_agree(&tab, &relabelled, why, sizeof why), KN_AGREE_DRIFT);
	assert_non_null(strstr(why, "'Gear and equipment'"));
	assert_int_equal(kn_heal_agree(&cartl, &counted, NULL, 0), KN_AGREE_YES);
	kn_heal_sig_clear(&relabelled);
	kn_heal_sig_clear(&counted);
	kn_step bare = {.verb = KN_STEP_CLICK};
	assert_int_equal(kn_heal_agree(&bare, &other, why, sizeof why), KN_AGREE_YES);
	kn_heal_sig_clear(&same);
	kn_heal_sig_clear(&other);
	kn_heal_sig_clear(&moved);
	kn_heal_sig_clear(&icon);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_css_signature),   cmocka_unit_test(test_xpath_signature),
		cmocka_unit_test(test_text_sim),        cmocka_unit_test(test_score_threshold),
		cmocka_unit_test(test_parse_candidates), cmocka_unit_test(test_agree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
