/* test_webarena_rules.c — the `webarena` functional semantics rule by rule: Python's strip/lower
 * and html.unescape (pytext.h), NLTK word tokens (wordtok.h, checked against NLTK's own published
 * doctest outputs), double cleaning, the one-token rule, no " |OR| " split in answers, no query
 * field limit, userinfo in the netloc, reddit_get_post_url, and the evaluator's final state
 * (an early right answer followed by a wrong one fails; latching stays for key nodes). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "kn_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keynode/eval.h"
#include "keynode/functional.h"
#include "keynode/pytext.h"
#include "keynode/wordtok.h"

static void py_lower_is(const char *in, const char *want)
{
	char *out = NULL;
	assert_int_equal(kn_py_lower(&out, in, strlen(in)), 0);
	assert_string_equal(out, want);
	free(out);
}

static void unescape_is(const char *in, const char *want)
{
	char *out = NULL;
	assert_int_equal(kn_py_html_unescape(&out, in), 0);
	if (strcmp(out, want) != 0)
		fail_msg("html.unescape(%s) = '%s', want '%s'", in, out, want);
	free(out);
}

static void test_pytext(void **state)
{
	(void)state;
	py_lower_is("ÉCOLE Straße ΣΑΣ", "école straße σας");
	py_lower_is("Σ AΣ. AΣ'B AΣ B", "σ aς. aσ'b aς b"); /* Python's Final_Sigma */
	py_lower_is("İ", "i\xcc\x87"); /* two code points, as Python */
	py_lower_is("\xff" "AB", "\xff" "ab"); /* an ill-formed byte stays */
	size_t b, e;
	const char *s = "\xc2\xa0\xe3\x80\x80 x y\xe2\x80\x83\n";
	kn_py_strip(s, strlen(s), &b, &e);
	assert_int_equal(b, 6);
	assert_int_equal(e, 9);
	kn_py_strip("\xe2\x80\x8bx", 4, &b, &e); /* U+200B is not whitespace for Python */
	assert_int_equal(b, 0);
	assert_int_equal(kn_py_len("a\xc3\xa9\xe2\x80\x9c"), 3);
	assert_true(kn_py_isspace(0x1F) && !kn_py_isspace(0x180E));
	unescape_is("a &amp; b &lt;c&gt;", "a & b <c>");
	unescape_is("&ampx &lt3 &notit; &notin;", "&x <3 \xc2\xacit; \xe2\x88\x89");
	unescape_is("&#65;&#x42;&#X43", "ABC");
	unescape_is("&#0;&#128;&#xD800;&#1114112;", "\xef\xbf\xbd\xe2\x82\xac\xef\xbf\xbd\xef\xbf\xbd");
	unescape_is("&#1;x", "x"); /* an invalid code point disappears */
	unescape_is("&unknown; & &; &#; &#x;", "&unknown; & &; &#; &#x;");
	unescape_is("&nbsp;&NotNestedGreaterGreater;", "\xc2\xa0\xe2\xaa\xa2\xcc\xb8");
}

struct toks {
	char buf[1024];
	size_t n;
};

static int collect(void *ud, const char *s, size_t n)
{
	struct toks *t = ud;
	size_t len = strlen(t->buf);
	snprintf(t->buf + len, sizeof t->buf - len, "%s%.*s", t->n++ ? "|" : "", (int)n, s);
	return 0;
}

static void tokens_are(const char *text, const char *want)
{
	struct toks t = {{0}, 0};
	assert_int_equal(kn_wordtok_each(text, collect, &t), 0);
	if (strcmp(t.buf, want) != 0)
		fail_msg("word_tokenize(%s) = %s, want %s", text, t.buf, want);
}

static void test_wordtok_nltk_doctests(void **state)
{
	(void)state;
	/* nltk/tokenize/__init__.py and nltk/test/tokenize.doctest */
	tokens_are("Good muffins cost $3.88\nin New York.  Please buy me\ntwo of them.\n\nThanks.",
	           "Good|muffins|cost|$|3.88|in|New|York|.|Please|buy|me|two|of|them|.|Thanks|.");
	tokens_are("On a $50,000 mortgage of 30 years at 8 percent, the monthly payment would be "
	           "$366.88.",
	           "On|a|$|50,000|mortgage|of|30|years|at|8|percent|,|the|monthly|payment|would|be|$|"
	           "366.88|.");
	tokens_are("\"We beat some pretty good teams to get here,\" Slocum said.",
	           "``|We|beat|some|pretty|good|teams|to|get|here|,|''|Slocum|said|.");
	tokens_are("Well, we couldn't have this predictable, cliche-ridden, \"Touched by an Angel\" "
	           "(a show creator John Masius worked on) wanna-be if she didn't.",
	           "Well|,|we|could|n't|have|this|predictable|,|cliche-ridden|,|``|Touched|by|an|"
	           "Angel|''|(|a|show|creator|John|Masius|worked|on|)|wanna-be|if|she|did|n't|.");
	tokens_are("I cannot cannot work under these conditions!",
	           "I|can|not|can|not|work|under|these|conditions|!");
	tokens_are("The company spent 40.75% of its income last year.",
	           "The|company|spent|40.75|%|of|its|income|last|year|.");
	tokens_are("He arrived at 3:00 pm.", "He|arrived|at|3:00|pm|.");
	tokens_are("I bought these items: books, pencils, and pens.",
	           "I|bought|these|items|:|books|,|pencils|,|and|pens|.");
	tokens_are("Though there were 150, 100 of them were old.",
	           "Though|there|were|150|,|100|of|them|were|old|.");
	tokens_are("There were 300,000, but that wasn't enough.",
	           "There|were|300,000|,|but|that|was|n't|enough|.");
	tokens_are("It's more'n enough.", "It|'s|more|'n|enough|.");
	tokens_are("The unicode 201C and 201D \xe2\x80\x9cLEFT(RIGHT) DOUBLE QUOTATION MARK\xe2\x80\x9d "
	           "is also OPEN_PUNCT and CLOSE_PUNCT.",
	           "The|unicode|201C|and|201D|\xe2\x80\x9c|LEFT|(|RIGHT|)|DOUBLE|QUOTATION|MARK|"
	           "\xe2\x80\x9d|is|also|OPEN_PUNCT|and|CLOSE_PUNCT|.");
	/* the sentence rule (keynodes/README.md "Word tokens") */
	tokens_are("it is 6. that is all", "it|is|6.|that|is|all");
	tokens_are("it is 6. 7 more", "it|is|6|.|7|more");
	tokens_are("it is x. (more)", "it|is|x|.|(|more|)");
	tokens_are("", "");
}

static void test_single_token_rule(void **state)
{
	(void)state;
	char *one[] = {(char[]){"6"}};
	/* the list: none of these holds the token "6" for NLTK; curly quotes do */
	const char *no[] = {"6,000", "6.0", "6-7", "6/10", "6:30", "~6", "6+", "16", "it is 6. ok"};
	for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
		if (kn_func_wa_answer_must_include(one, 1, no[i]))
			fail_msg("'%s' should not contain the token 6", no[i]);
	const char *yes[] = {"\xe2\x80\x9c" "6\xe2\x80\x9d", "6", "there are 6.", "(6)", "6%", "$6",
	                     "6!", "6, really", "'6'", "  \"6\" "};
	for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
		if (!kn_func_wa_answer_must_include(one, 1, yes[i]))
			fail_msg("'%s' should contain the token 6", yes[i]);
	/* two entries: no token rule, a substring is enough */
	char *two[] = {(char[]){"6"}, (char[]){"a"}};
	assert_true(kn_func_wa_answer_must_include(two, 2, "6,000 apples"));
	/* keynode's own rule is different on "6,000" — the reason the semantics are separate */
	assert_true(kn_func_must_include("6", "6,000", 1));
}

static void test_cleaning_and_or(void **state)
{
	(void)state;
	/* cleaned twice: quotes inside whitespace, and quotes twice */
	assert_true(kn_func_wa_answer_exact("Sprite", "  \"Sprite\"  "));
	assert_true(kn_func_wa_answer_exact("Sprite", "\"'Sprite'\""));
	assert_false(kn_func_wa_answer_exact("Sprite", "\"'\"Sprite\"'\""));
	assert_false(kn_func_exact("Sprite", "\"'Sprite'\"")); /* keynode: once */
	/* Unicode strip and lower */
	assert_true(kn_func_wa_answer_exact("école", "\xc2\xa0" "ÉCOLE\xe3\x80\x80"));
	char *e1[] = {(char[]){"Éé"}};
	assert_true(kn_func_wa_answer_must_include(e1, 1, "the ÉÉ one"));
	/* answers: " |OR| " is part of the text; pages: alternatives */
	char *alt[] = {(char[]){"red |OR| blue"}};
	assert_false(kn_func_wa_answer_must_include(alt, 1, "blue"));
	assert_true(kn_func_wa_answer_must_include(alt, 1, "red |or| blue"));
	assert_true(kn_func_wa_page_must_include(alt, 1, "a Blue car"));
	assert_true(kn_func_must_include("red |OR| blue", "blue", 1)); /* keynode splits */
	/* pages: html.unescape, cleaned once */
	char *amp[] = {(char[]){"Tom & Jerry"}};
	assert_true(kn_func_wa_page_must_include(amp, 1, "<b>Tom &amp; Jerry</b>"));
	assert_true(kn_func_wa_page_exact("a<b", "  'A&lt;B' "));
	assert_false(kn_func_wa_page_exact("a", "\"'a'\""));
	char *empty[] = {(char[]){""}};
	assert_true(kn_func_wa_answer_must_include(empty, 1, "")); /* "" in "" */
	char *quote[] = {(char[]){"'"}};
	assert_true(kn_func_wa_answer_must_include(quote, 1, "x")); /* "'" cleans to "" */
}

static void test_urls(void **state)
{
	(void)state;
	/* no limit on query fields: the wanted one after 300 others */
	size_t cap = 300 * 8 + 64;
	char *url = malloc(cap);
	size_t k = (size_t)snprintf(url, cap, "http://h/s?");
	for (int i = 0; i < 300; i++)
		k += (size_t)snprintf(url + k, cap - k, "f%d=x&", i);
	snprintf(url + k, cap - k, "q=shoes");
	assert_true(kn_func_gold_in_pred_sem("http://h/s?q=shoes", url, KN_FUNC_SEM_WEBARENA));
	assert_true(kn_func_gold_in_pred("http://h/s?q=shoes", url));
	free(url);
	/* urlsplit: userinfo stays in the netloc, so a reference with it needs it */
	assert_true(kn_func_gold_in_pred_sem("u@h/p", "http://u@h/p", KN_FUNC_SEM_WEBARENA));
	assert_true(kn_func_gold_in_pred_sem("http://h/p", "http://u@h/p", KN_FUNC_SEM_WEBARENA));
	assert_false(kn_func_gold_in_pred_sem("http://u@h/p", "http://h/p", KN_FUNC_SEM_WEBARENA));
	assert_true(kn_func_gold_in_pred("http://u@h/p", "http://h/p"));
	/* a scheme without "//": the rest is the path */
	assert_true(kn_func_gold_in_pred_sem("h:8/p", "x:h:8/p", KN_FUNC_SEM_WEBARENA));
	char *r = NULL;
	assert_int_equal(kn_func_reddit_post_url(&r, "http://h:9/f/books/59/title?x=1#c"), 0);
	assert_string_equal(r, "http://h:9/f/books/59/");
	free(r);
	assert_int_equal(kn_func_reddit_post_url(&r, "http://h/f/books;p"), 0);
	assert_string_equal(r, "http://h/f/books;p");
	free(r);
	assert_int_equal(kn_func_reddit_post_url(&r, "http://h/u/books/59"), 0);
	assert_string_equal(r, "http://h/u/books/59");
	free(r);
	assert_int_equal(kn_func_reddit_post_url(&r, "http://h/f/b/59;x"), 0);
	assert_string_equal(r, "http://h/f/b/59/");
	free(r);
}

static const char two_checks[] =
	"[{\"task_id\": 7, \"intent\": \"x\", \"start_url\": \"__S__/\", \"eval\": {\"eval_types\": "
	"[\"string_match\", \"url_match\"], \"reference_answers\": {\"must_include\": [\"42\"]}, "
	"\"reference_url\": \"__S__/done\", \"url_note\": \"GOLD in PRED\"}}]";

static void feed(kn_eval *ev, kn_event_type type, const char *url, const char *text)
{
	kn_event e = {.type = type, .tab = "T1", .url = url, .text = text, .how = "goto",
	              .trusted = -1};
	kn_err err = {0};
	assert_true(kn_eval_feed(ev, &e, &err) >= 0);
}

static void test_final_state(void **state)
{
	(void)state;
	kn_site site = {"S", "http://127.0.0.1:1"};
	kn_load_opts o = {.sites = &site, .n_sites = 1};
	kn_taskset *set = NULL;
	kn_err err = {0};
	assert_int_equal(kn_task_load_webarena(&set, two_checks, strlen(two_checks), "t", &o, &err), 0);
	const kn_task *t = &set->tasks[0];
	assert_int_equal(t->func_sem, KN_FUNC_SEM_WEBARENA);
	struct { const char *u1, *a1, *u2, *a2; int want; } cases[] = {
		{"http://127.0.0.1:1/done", "42", NULL, NULL, 1},
		{"http://127.0.0.1:1/done", "42", NULL, "41", 0},         /* right, then wrong */
		{"http://127.0.0.1:1/done", "41", NULL, "it is 42", 1},   /* wrong, then right */
		{"http://127.0.0.1:1/done", "42", "http://127.0.0.1:1/", NULL, 0}, /* page left */
		{"http://127.0.0.1:1/", "42", "http://127.0.0.1:1/done/x", NULL, 1},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		for (int sem = 0; sem < 2; sem++) {
			kn_eval *ev;
			kn_eval_opts eo = {.step_limit = -1, .func_sem = sem ? 0 : 1 + KN_FUNC_SEM_KEYNODE};
			assert_int_equal(kn_eval_new(&ev, t, &eo), 0);
			feed(ev, KN_EV_NAVIGATE, cases[i].u1, NULL);
			feed(ev, KN_EV_ANSWER, NULL, cases[i].a1);
			if (cases[i].u2)
				feed(ev, KN_EV_NAVIGATE, cases[i].u2, NULL);
			if (cases[i].a2)
				feed(ev, KN_EV_ANSWER, NULL, cases[i].a2);
			/* keynode's semantics latch: every case once passed passes */
			int want = sem ? cases[i].want : 1;
			if (kn_eval_functional(ev) != want)
				fail_msg("case %zu (%s): functional %d, want %d", i, sem ? "webarena" : "keynode",
				         kn_eval_functional(ev), want);
			/* key nodes keep WebCanvas latching in both */
			assert_true(kn_eval_completed(ev));
			assert_int_equal(kn_eval_func_sem(ev), sem ? KN_FUNC_SEM_WEBARENA : KN_FUNC_SEM_KEYNODE);
			kn_eval_free(ev);
		}
	}
	kn_taskset_free(set);
}

static const char helpers[] =
	"[{\"task_id\": 1, \"intent\": \"x\", \"start_url\": \"__S__/a |AND| __S__/b |AND| __S__/c\","
	" \"eval\": {\"eval_types\": [\"program_html\"], \"program_html\": ["
	" {\"url\": \"func:reddit_get_post_url('__last_url__')\", \"locator\": \"\","
	"  \"required_contents\": {\"must_include\": [\"x\"]}},"
	" {\"url\": \"func:shopping_get_latest_order_url()\", \"locator\": \"\","
	"  \"required_contents\": {\"must_include\": [\"x\"]}},"
	" {\"url\": \"last\", \"locator\": \"func:gitlab_get_project_memeber_role(__page__, 'u')\","
	"  \"required_contents\": {\"must_include\": [\"x\"]}},"
	" {\"url\": \"last\", \"locator\": \".price\", \"required_contents\": {\"exact_match\": \"x\"}},"
	" {\"url\": \"last\", \"locator\": \"document.title\", \"prep_actions\": [\"document.x()\"],"
	"  \"required_contents\": {\"exact_match\": \"x\"}}]}}]";

static void test_import_helpers(void **state)
{
	(void)state;
	kn_site site = {"S", "http://127.0.0.1:1"};
	kn_load_opts o = {.sites = &site, .n_sites = 1};
	kn_taskset *set = NULL;
	kn_err err = {0};
	assert_int_equal(kn_task_load_webarena(&set, helpers, strlen(helpers), "t", &o, &err), 0);
	const kn_task *t = &set->tasks[0];
	/* " |AND| ": one start page, then one more tab each */
	assert_string_equal(t->start_url, "http://127.0.0.1:1/a");
	assert_int_equal(t->n_more_start_urls, 2);
	assert_string_equal(t->more_start_urls[1], "http://127.0.0.1:1/c");
	/* reddit_get_post_url('__last_url__') maps; the API helpers and a CSS locator do not */
	assert_int_equal(t->n_keynodes, 2);
	assert_int_equal(t->keynodes[0].page_from_last, KN_PAGE_REDDIT_POST);
	assert_null(t->keynodes[0].page_url);
	assert_non_null(strstr(t->keynodes[0].locator, "XMLSerializer"));
	assert_non_null(strstr(t->keynodes[1].locator, "await (() => document.x()\n)();"));
	assert_int_equal(t->n_unmapped, 3);
	assert_non_null(strstr(t->unmapped[0], "Magento REST API"));
	assert_non_null(strstr(t->unmapped[1], "GitLab's project members page"));
	assert_non_null(strstr(t->unmapped[2], "neither empty nor a document. expression"));
	kn_taskset_free(set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pytext),
		cmocka_unit_test(test_wordtok_nltk_doctests),
		cmocka_unit_test(test_single_token_rule),
		cmocka_unit_test(test_cleaning_and_or),
		cmocka_unit_test(test_urls),
		cmocka_unit_test(test_final_state),
		cmocka_unit_test(test_import_helpers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
