/* test_semantic.c — the offline semantic judge: phrase extraction for every semantic reference
 * of the Mind2Web-Live files (the 22 of the test split listed), normalisation (case, Unicode,
 * decoding, possessives, compounds), numbers, units, currencies and durations, the hard
 * negatives it must refuse (mens/womens, PlayStation 5/4, another number, state, negation,
 * accessory), thread safety, and a quality gate on the hand-labelled calibration set. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "keynode/match.h"
#include "keynode/url.h"
#include "kn_test.h"

#define M2W KN_SHARED_DIR "/data/mind2web-live/"
#define CALIBRATION KN_TESTS_DIR "/data/semantic/calibration.tsv"

/* semantic_tokens.c's self-check of its lexicon order (bsearch); not in a public header. */
int kn_semtok_lexicon_sorted(void);

/* All 22 semantic key nodes of mind2web-live_test_20241024.json, in file order: the rule, the
 * target phrase keynode extracts from it, and (for URL nodes) the query value of the URL the
 * annotators recorded, which the judge must accept. */
static const struct {
	const char *rule, *phrase, *annotated;
} test_split[] = {
	{ "Decide whether the content means gift card", "gift card", NULL },
	{ "Decide whether are searching for mens winter coat", "mens winter coat", "mens winter coat" },
	{ "Decide whether are searching for wireless headphones", "wireless headphones", "wireless headphones" },
	{ "Decide whether are searching for playstation 5 digital edition", "playstation 5 digital edition",
	  "playstation 5 digital edition" },
	{ "Decide whether is searching for las vegas", "las vegas", NULL },
	{ "Decide whether is searching for 32\" curved monitor", "32\" curved monitor", "32\" curved monitor" },
	{ "Decide whether are searching for Central New York", "Central New York", "Central New York, NY" },
	{ "Decide whether are searching for external HD", "external HD", "external HD" },
	{ "Decide whether are searching for San Diego", "San Diego", "San Diego, CA" },
	{ "Decide whether are searching for hair salon", "hair salon", "hair salon" },
	{ "Decide whether are describing best wishes", "best wishes", NULL },
	{ "Decide whether are searching for front load washing machine", "front load washing machine",
	  "front load washing machine" },
	{ "Decide whether are searching for coffee maker", "coffee maker", "coffee maker" },
	{ "Decide whether is searching for spiderman toy", "spiderman toy", "spiderman toys" },
	{ "Decide whether are searching for East Boston Ferry", "East Boston Ferry", "East Boston Ferry" },
	{ "Decide whether the content is to send brochure", "send brochure", NULL },
	{ "Decide whether are searching for pop workout mix", "pop workout mix", "pop workout mix" },
	{ "Decide whether are searching for Cantonese food", "Cantonese food", "Cantonese food" },
	{ "Decide whether are searching for Chicago, IL", "Chicago, IL", "Chicago, IL" },
	{ "Decide whether are searching for bluetooth vertical mouse", "bluetooth vertical mouse",
	  "bluetooth vertical mouse" },
	{ "Decide whether are searching for swivel vacuum", "swivel vacuum", "swivel vacuum" },
	{ "Decide whether is searching for trending playlists", "trending playlists", NULL },
};

static void check_phrase(const char *rule, const char *want)
{
	char *got = NULL;
	assert_int_equal(kn_semantic_extract_phrase(&got, rule), 0);
	if (strcmp(got, want) != 0)
		print_error("rule <%s>: want <%s>, got <%s>\n", rule, want, got);
	assert_string_equal(got, want);
	free(got);
}

static double judge(const char *rule, const char *phrase, const char *input)
{
	const kn_semantic *sem = kn_semantic_offline();
	double score = -1;
	kn_err err = { 0 };
	assert_int_equal(sem->judge(sem->ud, rule, phrase, input, &score, &err), 0);
	assert_true(score >= 0.0 && score <= 1.0);
	return score;
}

/* Judge input against "Decide whether are searching for <phrase>", both ways of calling. */
static double judge_phrase(const char *phrase, const char *input)
{
	char rule[256];
	snprintf(rule, sizeof rule, "Decide whether are searching for %s", phrase);
	double with_phrase = judge(rule, phrase, input), from_rule = judge(rule, NULL, input);
	assert_true(with_phrase == from_rule);
	return with_phrase;
}

static int matches(const char *phrase, const char *input)
{
	return judge_phrase(phrase, input) >= KN_SEMANTIC_THRESHOLD;
}

/* Prints the judge's account when an expectation fails. */
#define MATCH(p, i) expect_match((p), (i), 1, __LINE__)
#define NO_MATCH(p, i) expect_match((p), (i), 0, __LINE__)
static void expect_match(const char *phrase, const char *input, int want, int line)
{
	if (matches(phrase, input) != want) {
		char *why = NULL;
		double s;
		kn_semantic_offline_explain(&why, &s, NULL, phrase, input);
		print_error("line %d: <%s> vs <%s> should %smatch:\n%s", line, phrase, input, want ? "" : "not ",
		            why ? why : "");
		free(why);
		fail();
	}
}

/* The 22 semantic key nodes of the test split are understood: the phrase is extracted, it has
 * something to match (it satisfies itself), and the annotated query value is accepted. */
static void test_test_split_nodes(void **state)
{
	(void)state;
	assert_int_equal(sizeof test_split / sizeof test_split[0], 22);
	for (size_t i = 0; i < sizeof test_split / sizeof test_split[0]; i++) {
		check_phrase(test_split[i].rule, test_split[i].phrase);
		assert_double_equal(judge(test_split[i].rule, NULL, test_split[i].phrase), 1.0, 0);
		if (test_split[i].annotated)
			expect_match(test_split[i].phrase, test_split[i].annotated, 1, __LINE__);
	}
}

/* The list above is the file: the same 22 rules in the same order, and each annotated value is
 * what the annotation URL's query parameter holds. */
static void test_test_split_file(void **state)
{
	(void)state;
	json_error_t jerr;
	json_t *root = json_load_file(M2W "mind2web-live_test_20241024.json", 0, &jerr);
	assert_non_null(root);
	size_t seen = 0, ti, ki;
	json_t *task, *kn;
	json_array_foreach(root, ti, task) {
		json_array_foreach(json_object_get(task, "evaluation"), ki, kn) {
			const char *fn = json_string_value(json_object_get(kn, "match_function_name"));
			if (!fn || !strstr(fn, "semantic"))
				continue;
			json_t *c = json_object_get(kn, "content");
			assert_true(seen < 22);
			assert_string_equal(json_string_value(json_object_get(c, "reference_answer")), test_split[seen].rule);
			const char *key = json_string_value(json_object_get(c, "key"));
			const char *url = json_string_value(json_object_get(c, "url"));
			char *v = NULL;
			if (key && *key && url && kn_url_query_param(&v, url, key) == 0) {
				assert_non_null(test_split[seen].annotated);
				assert_string_equal(v, test_split[seen].annotated);
			} else {
				assert_null(test_split[seen].annotated);
			}
			free(v);
			seen++;
		}
	}
	json_decref(root);
	assert_int_equal(seen, 22);
}

/* Every semantic reference in both published files loses its lead-in: the phrase is a proper,
 * non-empty tail of the rule and no longer starts with "Decide". */
static void test_phrases_files(void **state)
{
	(void)state;
	const char *files[] = { M2W "mind2web-live_test_20241024.json", M2W "example_130.json" };
	size_t seen[2] = { 0, 0 };
	for (size_t f = 0; f < 2; f++) {
		json_error_t jerr;
		json_t *root = json_load_file(files[f], 0, &jerr);
		assert_non_null(root);
		size_t ti;
		json_t *task;
		json_array_foreach(root, ti, task) {
			size_t ki;
			json_t *kn;
			json_array_foreach(json_object_get(task, "evaluation"), ki, kn) {
				const char *fn = json_string_value(json_object_get(kn, "match_function_name"));
				if (!fn || !strstr(fn, "semantic"))
					continue;
				const char *rule = json_string_value(
					json_object_get(json_object_get(kn, "content"), "reference_answer"));
				assert_non_null(rule);
				char *p;
				assert_int_equal(kn_semantic_extract_phrase(&p, rule), 0);
				if (!*p || strlen(p) >= strlen(rule) || strncmp(p, "Decide", 6) == 0 ||
				    !strstr(rule, p))
					print_error("rule <%s> gave <%s>\n", rule, p);
				assert_true(*p && strlen(p) < strlen(rule) && strstr(rule, p));
				assert_true(strncmp(p, "Decide", 6) != 0);
				/* and it has words to match ("X or Y" against itself carries the other
				 * alternative as an extra word) */
				if (judge(rule, NULL, p) < 0.95)
					print_error("rule <%s>: phrase does not match itself\n", rule);
				assert_true(judge(rule, NULL, p) >= 0.95);
				free(p);
				seen[f]++;
			}
		}
		json_decref(root);
	}
	assert_int_equal(seen[0], 22);
	assert_true(seen[1] > 0);
}

static void test_phrases_other(void **state)
{
	(void)state;
	check_phrase("Decide Whether is searching for Washington state", "Washington state");
	check_phrase("decide whether ARE SEARCHING FOR Miami", "Miami");
	check_phrase("Decide whether the place is Honolulu, HI", "Honolulu, HI");
	check_phrase("Decide whether is searchign for wall mirrors", "wall mirrors"); /* sic */
	check_phrase("Decide whether are searching for laptops ", "laptops");
	check_phrase("Decide whether is describing a refund request.", "a refund request");
	check_phrase("Decide whether the content is tomato soup?", "tomato soup");
	check_phrase("Decide whether the content is about tomato soup", "tomato soup");
	check_phrase("Decide whether are looking for hiking boots", "hiking boots");
	check_phrase("Decide whether the answer is 42", "42");
	check_phrase("Decide  whether\tare  searching   for  red shoes", "red shoes");
	check_phrase("Decide whether the user bought socks", "the user bought socks");
	/* native YAML rules often lack "Decide whether" */
	check_phrase("searching for red running shoes", "red running shoes");
	check_phrase("looking for red running shoes", "red running shoes");
	check_phrase("is describing best wishes!", "best wishes");
	/* no lead-in: the reference itself, trimmed */
	check_phrase("  gift card ", "gift card");
	check_phrase("searching forever", "searching forever");
	check_phrase("Decide whether", "Decide whether");
	check_phrase("Decide whether are searching for ...", "Decide whether are searching for ...");
	check_phrase("", "");

	char *p;
	assert_int_equal(kn_semantic_extract_phrase(&p, NULL), KN_EINVAL);
	assert_null(p);
}

/* Case, decoding, punctuation, possessives, plurals, stems, word order, Unicode. */
static void test_normalisation(void **state)
{
	(void)state;
	assert_double_equal(judge_phrase("mens winter coat", "mens winter coat"), 1.0, 0);
	assert_double_equal(judge_phrase("mens winter coat", "Mens+Winter+Coat"), 1.0, 0);
	assert_double_equal(judge_phrase("mens winter coat", "men's winter coats"), 1.0, 0);
	assert_double_equal(judge_phrase("mens winter coat", "men\xe2\x80\x99s winter coats"), 1.0, 0);
	assert_double_equal(judge_phrase("mens winter coat", "mens%20winter%20coats"), 1.0, 0);
	assert_double_equal(judge_phrase("mens winter coat", "mens%2520winter%2520coat"), 1.0, 0); /* twice */
	assert_double_equal(judge_phrase("mens winter coat", "winter coat, men"), 1.0, 0);
	assert_double_equal(judge_phrase("men's running shoes", "running shoes for men"), 1.0, 0);
	assert_double_equal(judge_phrase("hair salon", "hair salons near me"), 1.0, 0);
	assert_double_equal(judge_phrase("trending playlists", "trending-playlist"), 1.0, 0);
	assert_double_equal(judge_phrase("front load washing machine", "front loading washing machines"), 1.0, 0);
	assert_double_equal(judge_phrase("best wishes", "Wishing you all the best"), 1.0, 0);
	assert_double_equal(judge_phrase("a pasta restaurant", "pasta restaurant"), 1.0, 0);
	assert_double_equal(judge(NULL, "the", "the"), 1.0, 0); /* only stop words: they count */
	assert_double_equal(judge("Decide whether the content is to send brochure", NULL, "Send Brochure"), 1.0, 0);
	/* Unicode: accents (composed and decomposed), ligatures, curly quotes, dashes, odd spaces,
	 * fullwidth letters, zero-width characters, symbols */
	assert_double_equal(judge_phrase("caf\xc3\xa9", "CAFE"), 1.0, 0);
	assert_double_equal(judge_phrase("cafe", "cafe\xcc\x81"), 1.0, 0);
	assert_double_equal(judge_phrase("Z\xc3\xbcrich", "zurich"), 1.0, 0);
	assert_double_equal(judge_phrase("cr\xc3\xa8me br\xc3\xbbl\xc3\xa9\x65", "Creme Brulee"), 1.0, 0);
	assert_double_equal(judge_phrase("\xc5\x81\xc3\xb3\x64\xc5\xba", "lodz"), 1.0, 0);       /* Łódź */
	assert_double_equal(judge_phrase("stra\xc3\x9f\x65", "strasse"), 1.0, 0);                 /* straße */
	assert_double_equal(judge_phrase("\xc5\x93uvre", "oeuvre"), 1.0, 0);                      /* œuvre */
	assert_double_equal(judge_phrase("S\xc3\xa3o Paulo", "Sao+Paulo"), 1.0, 0);
	assert_double_equal(judge_phrase("rock n roll", "rock\xe2\x80\x94n\xe2\x80\x94roll"), 1.0, 0); /* — */
	assert_double_equal(judge_phrase("hair salon", "hair\xc2\xa0salon"), 1.0, 0);            /* NBSP */
	assert_double_equal(judge_phrase("hair salon", "\xef\xbd\x88\xef\xbd\x81\xef\xbd\x89r salon"), 1.0, 0);
	assert_double_equal(judge_phrase("coffee maker", "coffee\xe2\x80\x8bmaker"), 1.0, 0);   /* ZWSP joins */
	assert_double_equal(judge_phrase("playstation 5", "PlayStation\xc2\xae 5"), 1.0, 0);      /* ® */
	assert_double_equal(judge_phrase("\xd0\x9c\xd0\xbe\xd1\x81\xd0\xba\xd0\xb2\xd0\xb0",      /* Москва */
	                                 "\xd0\xbc\xd0\xbe\xd1\x81\xd0\xba\xd0\xb2\xd0\xb0"), 1.0, 0);
	/* compounds: joined or hyphenated spellings meet */
	assert_double_equal(judge_phrase("coffee maker", "coffeemaker"), 1.0, 0);
	assert_double_equal(judge_phrase("coffeemaker", "coffee makers"), 1.0, 0);
	assert_double_equal(judge_phrase("spiderman toy", "spider-man toys"), 1.0, 0);
	assert_double_equal(judge_phrase("non-stick frying pan", "nonstick fry pan"), 1.0, 0);
	assert_double_equal(judge_phrase("t-shirt", "tshirts"), 1.0, 0);
	/* a few safe synonyms and spellings */
	MATCH("external HD", "external hard drive");
	MATCH("external hard drive", "External HDD");
	MATCH("55 inch tv", "55\" television");
	MATCH("grey sofa", "gray couch");
	MATCH("NYC hotels", "hotels in New York City");
	MATCH("wireless printer", "wifi printer");
	MATCH("bluetooth vertical mouse", "vertical bluetooth mice");
	/* extra words cost a little; a URL's include form works as input too */
	MATCH("coffee maker", "www.target.com/s/coffee+maker");
	MATCH("best wishes", "Best wishes for a wonderful birthday, love Anna");
	assert_true(judge_phrase("hair salon", "cheap hair salon downtown open late") < 1.0);
	/* place qualifiers: a state added or omitted, spelled out or abbreviated */
	MATCH("Chicago, IL", "chicago il");
	MATCH("Chicago, IL", "Chicago");
	MATCH("Chicago, IL", "Chicago, Illinois 60601");
	MATCH("las vegas", "Las Vegas, NV");
	MATCH("Spring, texas", "Spring, TX");
	MATCH("Washington, D.C. or ZDC", "Washington DC");
	MATCH("Washington, D.C. or ZDC", "ZDC");
	MATCH("New York or ZNY", "new york");
}

/* Numbers, units, currencies, durations and times: the same quantity however it is written. */
static void test_quantities(void **state)
{
	(void)state;
	static const char *const same[][2] = {
		{ "32\" curved monitor", "32 inch curved monitor" },
		{ "32\" curved monitor", "32in curved monitor" },
		{ "32\" curved monitor", "32-inch curved monitor" },
		{ "32\" curved monitor", "curved monitor 32 inches" },
		{ "32\" curved monitor", "32\xe2\x80\x9d curved monitor" },
		{ "32\" curved monitor", "32%22+curved+monitor" },
		{ "32\" curved monitor", "32 curved monitor" }, /* a bare number meets any unit */
		{ "2 hours 58 minutes", "2h58min" },
		{ "2 hours 58 minutes", "2h 58m" },
		{ "2 hours 58 minutes", "2 hr 58 min" },
		{ "2 hours 58 minutes", "2 hours and 58 minutes" },
		{ "2 hours 58 minutes", "178 minutes" },
		{ "1.5 hours", "90 min" },
		{ "$25,000", "25000" },
		{ "$25,000", "25,000" },
		{ "$25,000", "$25k" },
		{ "$25,000", "25,000 dollars" },
		{ "$25,000", "USD 25,000" },
		{ "$25,000", "25 thousand dollars" },
		{ "\xe2\x82\xac" "30", "30 euros" },
		{ "\xc2\xa3" "1.5m", "1,500,000 GBP" },
		{ "$49.99", "49.99" },
		{ "50% off", "50 percent off" },
		{ "a 5k race", "5 km race" },
		{ "a 5k race", "5K race" },
		{ "10 lb dumbbells", "10lbs dumbbell" },
		{ "10 lb dumbbells", "10 pound dumbbells" },
		{ "1 TB SSD", "1tb ssd" },
		{ "1 TB SSD", "1 terabyte ssd" },
		{ "opens at 9 am", "Opens at 9:00 AM" },
		{ "10:30 am", "10:30AM" },
		{ "10:30", "10:30 pm" }, /* no am/pm: either */
		{ "3 adults", "three adults" },
		{ "playstation 5 digital edition", "playstation five digital edition" },
		{ "twenty five dollars", "$25" },
		{ "5th avenue", "fifth avenue" },
		{ "playstation 5 digital edition", "PS5 Digital Edition" },
		{ "iPhone 12 Pro", "iphone12pro" },
	};
	for (size_t i = 0; i < sizeof same / sizeof same[0]; i++)
		expect_match(same[i][0], same[i][1], 1, __LINE__);
}

/* The hard negatives: one distinguishing word, number, unit, gender, place, negation. */
static void test_hard_negatives(void **state)
{
	(void)state;
	static const char *const differ[][2] = {
		/* gender: token-level, never substring, and a veto */
		{ "mens winter coat", "womens winter coat" },
		{ "mens winter coat", "women's winter coats" },
		{ "mens winter coat", "Womens%20Winter%20Coat" },
		{ "mens winter coat", "boys winter coat" },
		{ "men's running shoes", "women%27s+running+shoes" },
		/* numbers and models */
		{ "playstation 5 digital edition", "playstation 4" },
		{ "playstation 5 digital edition", "playstation 4 digital edition" },
		{ "playstation 5 digital edition", "ps4 digital edition" },
		{ "playstation 5 digital edition", "playstation 5 disc edition" },
		{ "playstation 5 digital edition", "playstation 5" },
		{ "iPhone 12 Pro", "iphone 13 pro" },
		{ "iPhone 12 Pro", "iphone 12" },
		{ "iPhone 12 Pro", "iphone 12 pro max" },
		{ "Nintendo Switch", "nintendo switch lite" },
		{ "32\" curved monitor", "27 inch curved monitor" },
		{ "32\" curved monitor", "27%22+curved+monitor" },
		{ "32\" curved monitor", "curved monitor" },
		{ "2 hours 58 minutes", "2h 28m" },
		{ "2 hours 58 minutes", "3 hours" },
		{ "$25,000", "$2,500" },
		{ "$25,000", "$25,500" },
		{ "$25,000", "25,000 euros" },
		{ "10 lb dumbbells", "10 kg dumbbells" },
		{ "a 5k race", "10k race" },
		{ "4k tv", "1080p tv" },
		{ "10:30 am", "10:30 PM" },
		{ "3 adults", "2 adults" },
		/* one word different, or missing (a broader search) */
		{ "wireless headphones", "wired headphones" },
		{ "wireless headphones", "headphones" },
		{ "front load washing machine", "top load washing machine" },
		{ "Central New York", "new york" },
		{ "San Diego", "San Francisco" },
		{ "swivel vacuum", "vacuum" },
		{ "East Boston Ferry", "Boston" },
		{ "hair salon", "nail salon" },
		{ "coffee maker", "coffee grinder" },
		{ "pop workout mix", "kpop workout mix" },
		/* related but different: accessories, another place with the same name in it */
		{ "wireless headphones", "wireless headphones case" },
		{ "coffee maker", "coffee maker filters" },
		{ "55 inch tv", "55 inch tv stand" },
		{ "las vegas", "North Las Vegas" },
		{ "Miami", "Miami Beach, FL" },
		/* place qualifiers that disagree */
		{ "Spring, texas", "Spring, FL" },
		{ "Westminster,CA", "Westminster, CO" },
		{ "Washington, D.C. or ZDC", "Seattle, WA" },
		{ "Washington, D.C. or ZDC", "Washington State" },
		/* negation and opposites */
		{ "the flight is refundable", "This flight is not refundable" },
		{ "the flight is refundable", "This flight is non-refundable" },
		{ "in stock", "Out of stock" },
		{ "open on sundays", "closed on sundays" },
		{ "apartments for rent", "apartments for sale" },
		/* nothing in common */
		{ "hair salon", "" },
		{ "hair salon", "+%20,;" },
	};
	for (size_t i = 0; i < sizeof differ / sizeof differ[0]; i++)
		expect_match(differ[i][0], differ[i][1], 0, __LINE__);
	/* the two hard negatives of the issue, and the test split's own partial matches, score low */
	assert_true(judge_phrase("mens winter coat", "womens winter coat") < 0.3);
	assert_true(judge_phrase("playstation 5 digital edition", "playstation 4") < 0.3);
	assert_true(judge_phrase("red running shoes", "running shoes") > 0);
	assert_double_equal(judge_phrase("swivel vacuum", "vacuum"), 1.0 / 3, 1e-9);
	assert_double_equal(judge_phrase("hair salon", ""), 0.0, 0);
}

static void test_judge_errors(void **state)
{
	(void)state;
	const kn_semantic *sem = kn_semantic_offline();
	assert_non_null(sem);
	assert_string_equal(sem->name, "offline");
	assert_true(sem == kn_semantic_offline());
	double score = 0.5;
	kn_err err = { 0 };
	assert_int_equal(sem->judge(sem->ud, "Decide whether x", NULL, NULL, &score, &err), KN_EINVAL);
	assert_int_equal(err.code, KN_EINVAL);
	assert_int_equal(sem->judge(sem->ud, NULL, NULL, "x", &score, NULL), KN_EINVAL);
	/* a phrase without words scores 0 */
	assert_int_equal(sem->judge(sem->ud, "?!", NULL, "anything", &score, NULL), 0);
	assert_true(score == 0.0);
	/* ill-formed UTF-8 on either side is judged, not rejected */
	assert_int_equal(sem->judge(sem->ud, "caf\xc3\xa9", NULL, "caf%C3 caf\xc3\xa9", &score, NULL), 0);
	assert_true(score >= KN_SEMANTIC_THRESHOLD);
	assert_int_equal(sem->judge(sem->ud, "\xff\xfe\xc3", NULL, "\xc0\x80\xed\xa0\x80", &score, NULL), 0);
	assert_true(score >= 0 && score <= 1);
	/* a very long input is judged on its first KN_SEM_MAX_TEXT bytes: bounded work */
	size_t big = 1 << 20;
	char *s = malloc(big + 1);
	assert_non_null(s);
	for (size_t i = 0; i < big; i++)
		s[i] = "mens winter coat 1 "[i % 19];
	s[big] = '\0';
	assert_int_equal(sem->judge(sem->ud, NULL, s, s, &score, NULL), 0);
	assert_true(score >= 0 && score <= 1);
	free(s);
	/* the explanation says what happened */
	char *why = NULL;
	assert_int_equal(kn_semantic_offline_explain(&why, &score, "Decide whether are searching for mens winter coat",
	                                             NULL, "womens+winter+coat"), 0);
	assert_non_null(strstr(why, "other gender"));
	assert_non_null(strstr(why, "score"));
	free(why);
	assert_int_equal(kn_semantic_offline_explain(NULL, &score, "x", NULL, "x"), KN_EINVAL);
	assert_int_equal(kn_semantic_offline_explain(&why, &score, "x", NULL, NULL), KN_EINVAL);
	assert_null(why);
	assert_true(kn_semtok_lexicon_sorted());
}

/* The calibration set (tests/data/semantic/calibration.tsv). */
typedef struct pair {
	char *rule, *input;
	int label;
} pair;

static pair *load_calibration(size_t *n)
{
	FILE *f = fopen(CALIBRATION, "r");
	assert_non_null(f);
	char line[4096];
	pair *v = NULL;
	size_t cap = 0;
	*n = 0;
	assert_non_null(fgets(line, sizeof line, f)); /* header */
	assert_int_equal(strncmp(line, "rule\tinput\tlabel\tsplit\tnote", 27), 0);
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\r\n")] = '\0';
		char *rule = line, *input = strchr(rule, '\t');
		assert_non_null(input);
		*input++ = '\0';
		char *label = strchr(input, '\t');
		assert_non_null(label);
		*label++ = '\0';
		assert_true(label[0] == '0' || label[0] == '1');
		if (*n == cap) {
			cap = cap ? cap * 2 : 256;
			v = realloc(v, cap * sizeof *v);
			assert_non_null(v);
		}
		v[*n] = (pair){ strdup(rule), strdup(input), label[0] == '1' };
		(*n)++;
	}
	fclose(f);
	return v;
}

static void free_calibration(pair *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].rule);
		free(v[i].input);
	}
	free(v);
}

/* The quality gate: at the default threshold, at least 90 % of the labelled pairs are
 * judged right and at most 5 % of the should-not-match pairs match. */
static void test_calibration_gate(void **state)
{
	(void)state;
	size_t n;
	pair *v = load_calibration(&n);
	assert_true(n >= 150);
	int tp = 0, fp = 0, tn = 0, fn = 0;
	for (size_t i = 0; i < n; i++) {
		int yes = judge(v[i].rule, NULL, v[i].input) >= KN_SEMANTIC_THRESHOLD;
		if (v[i].label)
			yes ? tp++ : fn++;
		else
			yes ? fp++ : tn++;
	}
	double accuracy = (double)(tp + tn) / (double)n, fpr = (double)fp / (double)(fp + tn);
	print_message("calibration: %zu pairs, accuracy %.1f%%, false positive rate %.1f%% (TP %d FP %d TN %d FN %d)\n",
	              n, 100 * accuracy, 100 * fpr, tp, fp, tn, fn);
	assert_true(tp + fn >= (int)n / 3 && fp + tn >= (int)n / 3); /* roughly balanced */
	assert_true(accuracy >= 0.90);
	assert_true(fpr <= 0.05);
	free_calibration(v, n);
}

/* Judgements from several threads at once give the same scores as one thread (each judgement
 * has its own stemmer; nothing global is written). */
typedef struct job {
	pair *v;
	size_t n;
	double *out;
} job;

static void *run_job(void *arg)
{
	job *j = arg;
	const kn_semantic *sem = kn_semantic_offline();
	for (int round = 0; round < 3; round++)
		for (size_t i = 0; i < j->n; i++)
			if (sem->judge(sem->ud, j->v[i].rule, NULL, j->v[i].input, &j->out[i], NULL) != 0)
				j->out[i] = -1;
	return NULL;
}

static void test_threads(void **state)
{
	(void)state;
	size_t n;
	pair *v = load_calibration(&n);
	double *want = calloc(n, sizeof *want);
	assert_non_null(want);
	for (size_t i = 0; i < n; i++)
		want[i] = judge(v[i].rule, NULL, v[i].input);
	enum { T = 4 };
	pthread_t th[T];
	job jobs[T];
	for (int t = 0; t < T; t++) {
		jobs[t] = (job){ v, n, calloc(n, sizeof(double)) };
		assert_non_null(jobs[t].out);
		assert_int_equal(pthread_create(&th[t], NULL, run_job, &jobs[t]), 0);
	}
	for (int t = 0; t < T; t++) {
		assert_int_equal(pthread_join(th[t], NULL), 0);
		for (size_t i = 0; i < n; i++)
			assert_true(jobs[t].out[i] == want[i]);
		free(jobs[t].out);
	}
	free(want);
	free_calibration(v, n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_test_split_nodes),
		cmocka_unit_test(test_test_split_file),
		cmocka_unit_test(test_phrases_files),
		cmocka_unit_test(test_phrases_other),
		cmocka_unit_test(test_normalisation),
		cmocka_unit_test(test_quantities),
		cmocka_unit_test(test_hard_negatives),
		cmocka_unit_test(test_judge_errors),
		cmocka_unit_test(test_calibration_gate),
		cmocka_unit_test(test_threads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
