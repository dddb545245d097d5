/* test_heal.c — locator healing (services/replay/heal.h): the expected signature derived from CSS
 * and XPath selectors and hints, string similarity, the weighted score and its threshold on the
 * cases the changed-site fixtures rely on (a renamed id with the same text heals; an id alone that
 * merely resembles does not), the candidate parser on malformed input, and agreement: names that
 * contradict, relabels believed on the weight of the strong signals, places. */
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
	assert_int_equal(kn_heal_agree(&st, NULL, &same, why, sizeof why), KN_AGREE_YES);
	assert_int_equal(kn_heal_agree(&st, NULL, &other, why, sizeof why), KN_AGREE_NO);
	assert_non_null(strstr(why, "'View source'"));
	assert_int_equal(kn_heal_agree(&st, NULL, &moved, why, sizeof why), KN_AGREE_DRIFT);
	assert_non_null(strstr(why, "/wiki/modify"));
	assert_int_equal(kn_heal_agree(&st, NULL, &icon, NULL, 0), KN_AGREE_YES); /* aria-label names it */
	/* a hand-written hint may be a label within the element's text; a recorded text may not */
	char part[] = "Q3 report review", tag[] = "a";
	kn_heal_sig row = {.text = strdup("Grace Hopper Q3 report review — Hi Sam")};
	kn_step hand = {.verb = KN_STEP_CLICK, .text = part};
	kn_step recorded = {.verb = KN_STEP_CLICK, .text = part, .tag = tag};
	assert_int_equal(kn_heal_agree(&hand, NULL, &row, NULL, 0), KN_AGREE_YES);
	assert_int_equal(kn_heal_agree(&recorded, NULL, &row, NULL, 0), KN_AGREE_NO);
	kn_heal_sig_clear(&row);
	/* a recorded label whose words changed but not its name: a drift; another counter is not */
	char gear[] = "Gear & equipment", cart[] = "Cart 2";
	kn_step tab = {.verb = KN_STEP_CLICK, .text = gear, .tag = tag};
	kn_step cartl = {.verb = KN_STEP_CLICK, .text = cart, .tag = tag};
	kn_heal_sig relabelled = {.text = strdup("Gear and equipment")};
	kn_heal_sig counted = {.text = strdup("Cart 3")};
	assert_int_equal(kn_heal_agree(&tab, NULL, &relabelled, why, sizeof why), KN_AGREE_REWORDED);
	assert_non_null(strstr(why, "'Gear and equipment'"));
	assert_int_equal(kn_heal_agree(&cartl, NULL, &counted, NULL, 0), KN_AGREE_YES);
	/* a number of the name that is in the href named the target: another item, not a counter */
	char item[] = "Item 42", item_href[] = "http://127.0.0.1:1/items/42", cart_href[] = "/cart";
	kn_step itemst = {.verb = KN_STEP_CLICK, .text = item, .tag = tag, .hint_href = item_href};
	kn_step cartst = {.verb = KN_STEP_CLICK, .text = cart, .tag = tag, .hint_href = cart_href};
	kn_heal_sig item2 = {.text = strdup("Item 2"), .href = strdup("/items/2")};
	kn_heal_sig item42 = {.text = strdup("Item 42"), .href = strdup("/catalogue/items/42")};
	kn_heal_sig cart3 = {.text = strdup("Cart 3"), .href = strdup("/basket")};
	assert_int_equal(kn_heal_agree(&itemst, NULL, &item2, why, sizeof why), KN_AGREE_NO);
	assert_non_null(strstr(why, "another item"));
	assert_non_null(strstr(why, "/items/2"));
	assert_int_equal(kn_heal_agree(&itemst, NULL, &item42, NULL, 0), KN_AGREE_DRIFT); /* moved, same item */
	assert_int_equal(kn_heal_agree(&cartst, NULL, &cart3, NULL, 0), KN_AGREE_DRIFT);  /* 2 is not in /cart */
	kn_heal_sig_clear(&item2);
	kn_heal_sig_clear(&item42);
	kn_heal_sig_clear(&cart3);
	kn_heal_sig_clear(&relabelled);
	kn_heal_sig_clear(&counted);
	kn_step bare = {.verb = KN_STEP_CLICK};
	assert_int_equal(kn_heal_agree(&bare, NULL, &other, why, sizeof why), KN_AGREE_YES);
	kn_heal_sig_clear(&same);
	kn_heal_sig_clear(&other);
	kn_heal_sig_clear(&moved);
	kn_heal_sig_clear(&icon);
}

/* Name relations (agree.c): words only dropped or added are a relabel; another word in a word's
 * place, a year, a polarity word or nothing in common is another control. */
static void test_name_relation(void **state)
{
	(void)state;
	assert_int_equal(kn_heal_name_relation("Cart 2", "Cart 3", 0), KN_NAME_SAME);
	assert_int_equal(kn_heal_name_relation("Gear & equipment", "Gear and equipment", 0), KN_NAME_AGREE);
	assert_int_equal(kn_heal_name_relation("View history", "history", 0), KN_NAME_RELABEL);
	assert_int_equal(kn_heal_name_relation("View history", "Page history", 0), KN_NAME_RELABEL);
	assert_int_equal(kn_heal_name_relation("Edit", "Edit source", 0), KN_NAME_RELABEL);
	assert_int_equal(kn_heal_name_relation("Show comments", "Comments", 0), KN_NAME_RELABEL);
	assert_int_equal(kn_heal_name_relation("Red Runner", "Red Runner Pro", 0), KN_NAME_RELABEL); /* names alone */
	assert_int_equal(kn_heal_name_relation("Edit this page", "Show pagesource", 0), KN_NAME_OTHER);
	assert_int_equal(kn_heal_name_relation("Edit", "View source", 0), KN_NAME_OTHER);
	assert_int_equal(kn_heal_name_relation("Pitching a tent in the rain", "Pitching a tent in a storm", 0),
	                 KN_NAME_OTHER);
	assert_int_equal(kn_heal_name_relation("Trail budget 2026", "Trail budget 2025", 0), KN_NAME_OTHER);
	assert_int_equal(kn_heal_name_relation("Trail budget", "Trail budget 2026 draft", 0), KN_NAME_OTHER);
	assert_int_equal(kn_heal_name_relation("tent_care (trailhead)", "tent_maintenance (trailhead)", 0),
	                 KN_NAME_OTHER);
	assert_int_equal(kn_heal_name_relation("Log in", "Log out", 0), KN_NAME_OTHER);
	assert_int_equal(kn_heal_name_relation("Show comments", "Hide comments", 0), KN_NAME_OTHER);
	assert_int_equal(kn_heal_name_relation("Add to cart", "Add to cart (sold out)", 0), KN_NAME_OTHER);
	assert_int_equal(kn_heal_name_relation("Save", "Don't save", 0), KN_NAME_OTHER);
	assert_int_equal(kn_heal_name_relation("Subscribe", "Unsubscribe", 0), KN_NAME_OTHER);
	assert_int_equal(kn_heal_name_relation("View", "Show", 0), KN_NAME_OTHER); /* fillers only */
	assert_int_equal(kn_heal_name_relation("View history", "View", 0), KN_NAME_OTHER);
	/* malformed: missing, empty, punctuation only, long, bytes above 0x7f */
	assert_int_equal(kn_heal_name_relation(NULL, "x", 0), KN_NAME_OTHER);
	assert_int_equal(kn_heal_name_relation("x", NULL, 0), KN_NAME_OTHER);
	assert_int_equal(kn_heal_name_relation("", "", 0), KN_NAME_SAME);
	assert_int_equal(kn_heal_name_relation("+", "-", 0), KN_NAME_OTHER);
	assert_int_equal(kn_heal_name_relation("Historique", "\xc3\x89" "diter \xff\xfe", 0), KN_NAME_OTHER);
	char *big = malloc(5001);
	for (size_t i = 0; i < 5000; i++)
		big[i] = i % 3 == 2 ? ' ' : (char)('a' + i % 26);
	big[5000] = '\0';
	kn_heal_name_rel r = kn_heal_name_relation(big, "history", 1);
	assert_true(r >= KN_NAME_SAME && r <= KN_NAME_OTHER);
	assert_int_equal(kn_heal_name_relation(big, big, 0), KN_NAME_SAME);
	free(big);
}

/* Places: the innermost expected ancestor with an id, else tags in order; classes aside; a
 * recorded dom_path's "html", ">" and the element itself left out. */
static void test_place(void **state)
{
	(void)state;
	assert_int_equal(kn_heal_place("html > body > main > ul#notes > li > a", "body main ul#notes li"), 1);
	assert_int_equal(kn_heal_place("#ca-history", "body div#content nav#p-views.tabs li#ca-history.x"), 1);
	/* a skin that renamed the outer containers: the innermost landmark decides */
	assert_int_equal(kn_heal_place("html > body > div#mw-page > nav#p-views > ul > li#ca-history > a",
	                               "body div#globalWrapper div#p-cactions.portlet ul li#ca-history"), 1);
	assert_int_equal(kn_heal_place("div#mw-page nav#p-views li#ca-history", "body div#mw-page footer#footer ul li"), 0);
	assert_int_equal(kn_heal_place("nav#p-views li#ca-history", "body footer#footer ul li"), -1);
	assert_int_equal(kn_heal_place("body main ul li", "body main ul li"), 1);
	assert_int_equal(kn_heal_place("body footer ul li", "body main ul li"), 1);  /* 3 of 4 tags */
	assert_int_equal(kn_heal_place("body footer nav ol", "body main ul li"), -1); /* 1 of 4 */
	assert_int_equal(kn_heal_place("body footer nav ul li", "body main ul li"), 0); /* 3 of 5 */
	assert_int_equal(kn_heal_place("body div#content ul", "body div#content.a section ul"), 1);
	/* malformed or nothing expected */
	assert_int_equal(kn_heal_place(NULL, "body"), 0);
	assert_int_equal(kn_heal_place("", "body"), 0);
	assert_int_equal(kn_heal_place("html > a", "body"), 0);
	assert_int_equal(kn_heal_place("> > > #x..#", NULL), 0);
	assert_int_equal(kn_heal_place("#x..#. ..", NULL), -1);
	assert_int_equal(kn_heal_place("#x..#. ..", "p#x"), 0); /* an empty "#" clears the id: two bare descriptors, one found */
}

/* The issue-22 relabel: "View history" became "history" under the same href, role and place — the
 * recorded element with drift; the same change with another href, in another place or without any
 * identity signal is another element; "Show pagesource" under the href of "Edit this page" stays
 * refused. */
static void test_relabel(void **state)
{
	(void)state;
	char sel[] = "li.vector-tab-noicon:nth-child(3) > a", text[] = "View history",
	     href[] = "history.html?title=Trail_etiquette", role[] = "link", tag[] = "a",
	     path[] = "html > body > div#content > nav#p-views > ul > li#ca-history > a", why[256];
	kn_step st = {.verb = KN_STEP_CLICK, .selector = sel, .text = text, .hint_href = href, .hint_role = role,
	              .tag = tag, .dom_path = path};
	kn_heal_sig e;
	assert_int_equal(kn_heal_expected(&e, &st), 0);
	kn_heal_sig tab = {.tag = strdup("a"), .role = strdup("link"), .text = strdup("history"),
	                   .href = strdup("/skin/history.html?title=Trail_etiquette"),
	                   .path = strdup("body div#content.mw-body nav#p-views.cactions ul li#ca-history.tab")};
	assert_int_equal(kn_heal_agree(&st, &e, &tab, why, sizeof why), KN_AGREE_RELABEL);
	assert_non_null(strstr(why, "'history', relabelled"));
	assert_non_null(strstr(why, "href agrees+3"));
	kn_heal_evidence ev;
	kn_heal_weigh(&ev, &st, &e, &tab);
	assert_int_equal(ev.score, 3 + 1 + 1 + 2);
	assert_true(ev.relabel);
	/* no expected signature: the href hint still weighs, but not enough alone */
	assert_int_equal(kn_heal_agree(&st, NULL, &tab, NULL, 0), KN_AGREE_RELABEL); /* href 3 + place 2 */
	kn_step bare = {.verb = KN_STEP_CLICK, .text = text, .hint_href = href, .tag = tag};
	assert_int_equal(kn_heal_agree(&bare, NULL, &tab, NULL, 0), KN_AGREE_NO); /* href 3 < 4 */
	/* another target */
	free(tab.href);
	tab.href = strdup("/skin/talk.html");
	assert_int_equal(kn_heal_agree(&st, &e, &tab, why, sizeof why), KN_AGREE_NO);
	assert_non_null(strstr(why, "href differs-3"));
	/* the same target elsewhere in the page (a footer link) */
	free(tab.href);
	tab.href = strdup("history.html?title=Trail_etiquette");
	free(tab.path);
	tab.path = strdup("body footer#footer ul li");
	assert_int_equal(kn_heal_agree(&st, &e, &tab, NULL, 0), KN_AGREE_NO);
	/* an id that differs is another control even under the same href */
	free(tab.path);
	tab.path = strdup("body div#content nav#p-views ul li#ca-history");
	char id[] = "ca-history-link";
	st.hint_id = id;
	kn_heal_sig_clear(&e);
	assert_int_equal(kn_heal_expected(&e, &st), 0);
	tab.id = strdup("ca-talk-link");
	assert_int_equal(kn_heal_agree(&st, &e, &tab, NULL, 0), KN_AGREE_NO);
	st.hint_id = NULL;
	kn_heal_sig_clear(&e);
	kn_heal_sig_clear(&tab);
	/* a relabel with no identity signal (no href, id or name on both sides) is not believed */
	char pub[] = "Publish post", btn[] = "button";
	kn_step post = {.verb = KN_STEP_CLICK, .text = pub, .tag = btn, .hint_role = btn};
	kn_heal_sig b = {.tag = strdup("button"), .role = strdup("button"), .text = strdup("Publish")};
	assert_int_equal(kn_heal_expected(&e, &post), 0);
	assert_int_equal(kn_heal_agree(&post, &e, &b, NULL, 0), KN_AGREE_NO);
	char sub[] = "submit-post";
	post.hint_id = sub;
	b.id = strdup("submit-post");
	kn_heal_sig_clear(&e);
	assert_int_equal(kn_heal_expected(&e, &post), 0);
	assert_int_equal(kn_heal_agree(&post, &e, &b, NULL, 0), KN_AGREE_RELABEL); /* id 2 + role + tag */
	kn_heal_sig_clear(&e);
	kn_heal_sig_clear(&b);
	/* the product beside it: a longer name, another href */
	char rr[] = "Red Runner", rrh[] = "/shop/item.html?id=3";
	kn_step prod = {.verb = KN_STEP_CLICK, .text = rr, .hint_href = rrh, .tag = tag};
	kn_heal_sig pro = {.tag = strdup("a"), .text = strdup("Red Runner Pro"), .href = strdup("/shop/item.html?id=4")};
	assert_int_equal(kn_heal_expected(&e, &prod), 0);
	assert_int_equal(kn_heal_agree(&prod, &e, &pro, NULL, 0), KN_AGREE_NO);
	kn_heal_sig_clear(&e);
	kn_heal_sig_clear(&pro);
	/* DokuWiki with the page read-only: "Show pagesource" under the href of "Edit this page" */
	char edit[] = "Edit this page", eh[] = "/doku.php?id=trailhead:returns&do=edit";
	kn_step dw = {.verb = KN_STEP_CLICK, .text = edit, .hint_href = eh, .tag = tag, .hint_role = role};
	kn_heal_sig src = {.tag = strdup("a"), .role = strdup("link"), .text = strdup("Show pagesource"),
	                   .href = strdup("/doku.php?id=trailhead:returns&do=edit")};
	assert_int_equal(kn_heal_expected(&e, &dw), 0);
	assert_int_equal(kn_heal_agree(&dw, &e, &src, why, sizeof why), KN_AGREE_NO);
	assert_non_null(strstr(why, "'Show pagesource'"));
	kn_heal_sig_clear(&e);
	kn_heal_sig_clear(&src);
	/* malformed: nothing known on either side agrees (nothing to compare); an empty candidate too */
	kn_step none = {.verb = KN_STEP_CLICK};
	kn_heal_sig empty = {0};
	assert_int_equal(kn_heal_agree(&none, NULL, &empty, why, sizeof why), KN_AGREE_YES);
	assert_int_equal(kn_heal_agree(&st, NULL, &empty, why, sizeof why), KN_AGREE_YES);
	kn_heal_weigh(&ev, &none, NULL, &empty);
	assert_int_equal(ev.score, 0);
	assert_false(ev.relabel);
}

/* Healing reads a selector through the selector grammar (keynode/selector.h), as validation does:
 * a list is a top-level ',' only, compounds join at any whitespace, attribute tests may be spaced
 * and flagged, CSS escapes are decoded, XPath strings have no escapes, a chain's XPath part is read
 * as XPath; past a syntax error, what came before it. */
static void test_selector_reading(void **state)
{
	(void)state;
	static const struct { const char *sel, *tag, *id, *name, *classes, *path; } cases[] = {
		{"a:not(.b, .c)", "a", NULL, NULL, NULL, NULL},
		{"a[name='x,y']", "a", NULL, "x,y", NULL, NULL},
		{"div\tp", "p", NULL, NULL, NULL, "div"},
		{"[ name = 'x' ]", NULL, NULL, "x", NULL, NULL},
		{"input[name='q' i]", "input", NULL, "q", NULL, NULL},
		{"#\\31 x", NULL, "1x", NULL, NULL, NULL},
		/* generated names (generated.h) are not expected: useId, counters, hashed classes */
		{"#\\31 23", NULL, NULL, NULL, NULL, NULL},
		{"button#\\:r1\\:", "button", NULL, NULL, NULL, NULL},
		{"a.css-1x2y3z.btn.sc-bdVaJa", "a", NULL, NULL, "btn", NULL},
		{"a.b\\:c", "a", NULL, NULL, "b:c", NULL},
		{"\xc3\xbc" "ber.x", "\xc3\xbc" "ber", NULL, NULL, "x", NULL},
		{"iframe#f >> //a[@id='x']", "a", "x", NULL, NULL, "iframe#f"},
		{"[title=\"a >> b\"] >> #q", NULL, "q", NULL, NULL, NULL},
		{"//a[@title='C:\\']/b", "b", NULL, NULL, NULL, "a"},
		{"a.b[", "a", NULL, NULL, "b", NULL},
		{"//a[@id='x' and and @name='y']", "a", "x", NULL, NULL, NULL}, /* overlapping " and " */
		{"#a, #b", NULL, NULL, NULL, NULL, NULL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		kn_heal_sig e = expected_of(KN_STEP_CLICK, cases[i].sel, NULL, NULL, NULL, NULL);
		const char *got[] = {e.tag, e.id, e.name, e.classes, e.path};
		const char *want[] = {cases[i].tag, cases[i].id, cases[i].name, cases[i].classes, cases[i].path};
		for (size_t k = 0; k < 5; k++)
			if (!got[k] != !want[k] || (got[k] && strcmp(got[k], want[k]) != 0))
				fail_msg("<%s> field %zu: got <%s>, want <%s>", cases[i].sel, k, got[k] ? got[k] : "(null)",
				         want[k] ? want[k] : "(null)");
		kn_heal_sig_clear(&e);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_css_signature),   cmocka_unit_test(test_xpath_signature),
		cmocka_unit_test(test_text_sim),        cmocka_unit_test(test_score_threshold),
		cmocka_unit_test(test_parse_candidates), cmocka_unit_test(test_agree),
		cmocka_unit_test(test_name_relation),   cmocka_unit_test(test_place),
		cmocka_unit_test(test_relabel),         cmocka_unit_test(test_selector_reading),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
