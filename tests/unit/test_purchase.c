/* test_purchase.c — WebShop's graded purchase reward: thefuzz's token_set_ratio on its published
 * examples and hand-worked cases, the colour normalisation, rewards as exact fractions (wrong
 * options, over budget, wrong type, partial type, nothing bought), the `purchase:` YAML and its
 * errors, the purchase read's JSON, the evaluator's buy detection and run result, and the score
 * summary's task_score / reward_success_rate. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "kn_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "keynode/eval.h"
#include "keynode/purchase.h"

static void test_token_set_ratio(void **state)
{
	(void)state;
	/* thefuzz's README */
	assert_int_equal(kn_purchase_token_set_ratio("fuzzy was a bear", "fuzzy fuzzy was a bear"), 100);
	/* one side's words all in the other: 100 */
	assert_int_equal(kn_purchase_token_set_ratio("waterproof", "Waterproof, breathable"), 100);
	/* no common word: the Indel ratio of the sorted rests. "blue"/"black": LCS 2, 100 − 100·5/9 */
	assert_int_equal(kn_purchase_token_set_ratio("black", "blue"), 44);
	assert_int_equal(kn_purchase_token_set_ratio("9", "10"), 0);
	/* "size 9" / "size 10": sect "size" (4), ab "9", ba "10": max(Indel("9", "10") = 3 over
	 * 6 + 7 → 76.9; sect vs sect+ab: 2 over 4 + 6 → 80; sect vs sect+ba: 3 over 4 + 7 → 72.7) */
	assert_int_equal(kn_purchase_token_set_ratio("size 9", "size 10"), 80);
	assert_int_equal(kn_purchase_token_set_ratio("", "x"), 0);
	assert_int_equal(kn_purchase_token_set_ratio("?!", "?!"), 0); /* nothing left after processing */
	assert_string_equal(kn_purchase_normalize_color("navy blue"), "blue"); /* list order wins */
	assert_string_equal(kn_purchase_normalize_color("dark red"), "dark");
	assert_string_equal(kn_purchase_normalize_color("size 9"), "size 9");
}

static kn_purchase *spec(const char *type, const char *a1, const char *a2, const char *o1,
                         const char *o2, double price_max)
{
	kn_purchase *p = calloc(1, sizeof *p);
	p->type = strdup(type);
	p->attributes = calloc(2, sizeof *p->attributes);
	p->attributes[p->n_attributes++] = strdup(a1);
	p->attributes[p->n_attributes++] = strdup(a2);
	p->options = calloc(2, sizeof *p->options);
	p->options[0] = (kn_purchase_option){strdup("color"), strdup(o1)};
	p->options[1] = (kn_purchase_option){strdup("size"), strdup(o2)};
	p->n_options = 2;
	p->price_max = price_max;
	return p;
}

static double reward_of(const kn_purchase *p, const char *title, const char *a1, const char *a2,
                        const char *o1, const char *o2, const char *price)
{
	const char *attrs[] = {a1, a2}, *opts[] = {o1, o2};
	kn_purchase_read rd = {.title = title, .attributes = attrs, .n_attributes = a2 ? 2 : 1,
	                       .options = opts, .n_options = 2, .price = price};
	kn_reward r;
	assert_int_equal(kn_purchase_reward(p, &rd, &r, NULL), 0);
	return r.reward;
}

static void test_rewards(void **state)
{
	(void)state;
	kn_purchase *p = spec("trail running shoe", "waterproof", "lightweight", "blue", "9", 60);
	const char *t = "Trail Running Shoe Pro";
	/* denominator 2 + 2 + 1 = 5 */
	assert_double_equal(reward_of(p, t, "waterproof", "lightweight", "blue", "9", "$59.99"), 1, 1e-12);
	assert_double_equal(reward_of(p, t, "waterproof", "lightweight", "black", "9", "$59.99"), 0.8,
	                    1e-12);
	assert_double_equal(reward_of(p, t, "waterproof", "lightweight", "red", "10", "$59.99"), 0.6,
	                    1e-12);
	assert_double_equal(reward_of(p, t, "waterproof", "lightweight", "blue", "9", "$60.01"), 0.8,
	                    1e-12);
	assert_double_equal(reward_of(p, t, "waterproof", "lightweight", "blue", "9", "1,060.00"), 0.8,
	                    1e-12);
	assert_double_equal(reward_of(p, t, "waterproof", "lightweight", "blue", "9", "free"), 0.8,
	                    1e-12); /* no price read: the price term is 0 */
	/* an attribute in the title counts (WebShop's fallback) */
	assert_double_equal(reward_of(p, "Waterproof Trail Running Shoe", "breathable", NULL, "blue",
	                              "9", "$10"), 0.8, 1e-12);
	/* "navy blue" normalises to blue: met */
	assert_double_equal(reward_of(p, t, "waterproof", "lightweight", "navy blue", "9", "$10"), 1,
	                    1e-12);
	/* type: 0 of 3 words → 0; 1 of 3 → 1/3 > 0.2 → 1 */
	assert_double_equal(reward_of(p, "Hiking Boot", "waterproof", "lightweight", "blue", "9",
	                              "$10"), 0, 1e-12);
	assert_double_equal(reward_of(p, "Running Sock", "waterproof", "lightweight", "blue", "9",
	                              "$10"), 1, 1e-12);
	kn_purchase_free(p);
	/* 5 type nouns ("for" is none): 1 shared → 1/5 ∈ [0.1, 0.2] → r_type 0.5;
	 * (1 + 0 + 0)/5 × 0.5 = 1/10 */
	p = spec("lightweight rain jacket for hiking trips", "waterproof", "packable", "navy", "m", 80);
	kn_reward r;
	const char *attrs[] = {"waterproof", "leather upper"}, *opts[] = {"brown", "10"};
	kn_purchase_read rd = {.title = "Hiking Boot Classic", .attributes = attrs, .n_attributes = 2,
	                       .options = opts, .n_options = 2, .price = "$89.00"};
	assert_int_equal(kn_purchase_reward(p, &rd, &r, NULL), 0);
	assert_double_equal(r.reward, 0.1, 1e-12);
	assert_double_equal(r.r_type, 0.5, 0);
	assert_double_equal(r.title_score, 1.0 / 5, 1e-12);
	assert_int_equal(r.attributes_met, 1);
	assert_int_equal(r.options_met, 0);
	assert_int_equal(r.price_ok, 0);
	assert_double_equal(r.price, 89, 0);
	/* 11 nouns, 1 shared: 1/11 < 0.1 → r_type 0.1 */
	free(p->type);
	p->type = strdup("bag box cap cup dish fork hat jar lamp mug hiking");
	assert_int_equal(kn_purchase_reward(p, &rd, &r, NULL), 0);
	assert_double_equal(r.r_type, 0.1, 0);
	/* nothing bought */
	kn_purchase_reward(p, NULL, &r, NULL);
	assert_double_equal(r.reward, 0, 0);
	kn_purchase_free(p);
}

static const char yaml[] =
	"tasks:\n"
	"  - id: shoe\n"
	"    intent: buy a shoe\n"
	"    key_nodes:\n"
	"      - url: { include: /market/ }\n"
	"    purchase:\n"
	"      type: trail running shoe\n"
	"      attributes: [waterproof, lightweight]\n"
	"      options: { color: blue, size: 9 }\n"
	"      price_max: 60\n"
	"      buy: \"#buy\"\n"
	"      read: { title: \"#title\", price: \"#price\" }\n";

static void purchase_fails(const char *body, const char *want)
{
	char doc[1024];
	snprintf(doc, sizeof doc,
	         "tasks:\n  - id: a\n    intent: b\n    key_nodes:\n      - url: { include: x }\n"
	         "    purchase:%s", body);
	kn_taskset *set = NULL;
	kn_err err = {0};
	assert_true(kn_taskset_load_buffer(&set, doc, strlen(doc), "p.yaml", NULL, &err) < 0);
	assert_null(set);
	if (!strstr(err.msg, want) || !strstr(err.msg, "p.yaml:"))
		fail_msg("error '%s' does not say '%s' with a position", err.msg, want);
}

static void test_yaml(void **state)
{
	(void)state;
	kn_taskset *set = NULL;
	kn_err err = {0};
	assert_int_equal(kn_taskset_load_buffer(&set, yaml, strlen(yaml), "p.yaml", NULL, &err), 0);
	const kn_purchase *p = set->tasks[0].purchase;
	assert_non_null(p);
	assert_string_equal(p->type, "trail running shoe");
	assert_int_equal(p->n_attributes, 2);
	assert_string_equal(p->attributes[1], "lightweight");
	assert_int_equal(p->n_options, 2);
	assert_string_equal(p->options[1].field, "size");
	assert_string_equal(p->options[1].value, "9");
	assert_double_equal(p->price_max, 60, 0);
	assert_string_equal(p->buy, "#buy");
	assert_string_equal(p->read_title, "#title");
	assert_null(p->read_attributes);
	char *js = NULL;
	assert_int_equal(kn_purchase_script(&js, p, NULL, 0), 0);
	assert_non_null(strstr(js, "[\"#title\",\".attributes li\","));
	free(js);

	/* the evaluator: no reward without the buy click; the first click on #buy is the purchase */
	kn_eval *ev;
	assert_int_equal(kn_eval_new(&ev, &set->tasks[0], NULL), 0);
	assert_double_equal(kn_eval_reward(ev), 0, 0);
	assert_false(kn_eval_purchase_wanted(ev));
	static const char got[] = "{\"title\": \"Trail Running Shoe\", \"attributes\": [\"waterproof\"],"
	                          " \"options\": [\"blue\", \"10\"], \"price\": \"$20\"}";
	assert_int_equal(kn_eval_purchase_result(ev, got, NULL, &err), 0);
	assert_double_equal(kn_eval_reward(ev), 0, 0); /* not bought: ignored */
	kn_event click = {.type = KN_EV_CLICK, .tab = "T1", .url = "http://h/market/p",
	                  .selector = "#buy", .trusted = 1};
	assert_true(kn_eval_feed(ev, &click, &err) >= 0);
	assert_true(kn_eval_purchase_wanted(ev));
	assert_int_equal(kn_eval_purchase_result(ev, "[1]", "bad", &err), 0); /* not an object */
	assert_int_equal(kn_eval_purchase_result(ev, got, NULL, &err), 0);
	/* (1 + 1 + 1) / 5 × 1 = 3/5 */
	assert_double_equal(kn_eval_reward(ev), 0.6, 1e-12);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(kn_eval_write_result(ev, "r1", f), 0);
	fclose(f);
	json_t *j = json_loads(buf, 0, NULL);
	assert_double_equal(json_real_value(json_object_get(j, "reward")), 0.6, 1e-12);
	json_t *parts = json_object_get(j, "reward_parts");
	assert_true(json_is_true(json_object_get(parts, "purchased")));
	assert_double_equal(json_real_value(json_object_get(parts, "attribute")), 0.5, 0);
	assert_double_equal(json_real_value(json_object_get(parts, "option")), 0.5, 0);
	assert_int_equal(json_integer_value(json_object_get(parts, "price")), 1);
	json_decref(j);
	free(buf);

	/* summary: task_score = 100 × mean reward, reward_success_rate = share at 1 */
	kn_summary sum;
	kn_summary_init(&sum);
	kn_summary_add(&sum, ev);
	kn_eval *e2;
	assert_int_equal(kn_eval_new(&e2, &set->tasks[0], NULL), 0);
	assert_true(kn_eval_feed(e2, &click, &err) >= 0);
	static const char all[] = "{\"title\": \"Trail Running Shoe\", \"attributes\": [\"waterproof\","
	                          " \"lightweight\"], \"options\": [\"blue\", \"9\"], \"price\": \"$20\"}";
	assert_int_equal(kn_eval_purchase_result(e2, all, NULL, &err), 0);
	kn_summary_add(&sum, e2);
	kn_summary_finish(&sum);
	assert_int_equal(sum.n_reward_tasks, 2);
	assert_double_equal(sum.task_score, 80, 1e-9);
	assert_double_equal(sum.reward_success_rate, 0.5, 0);
	kn_eval_free(e2);
	kn_eval_free(ev);
	kn_taskset_free(set);

	purchase_fails(" 3\n", "'purchase' must be a mapping");
	purchase_fails("\n      attributes: [a]\n", "needs 'type'");
	purchase_fails("\n      type: t\n      colour: x\n", "unknown key 'colour' in 'purchase'");
	purchase_fails("\n      type: t\n      type: u\n", "duplicate key 'type'");
	purchase_fails("\n      type: t\n      price_max: cheap\n", "'price_max' must be a positive");
	purchase_fails("\n      type: t\n      price_max: -3\n", "'price_max' must be a positive");
	purchase_fails("\n      type: t\n      options: [blue]\n", "'options' must be a mapping");
	purchase_fails("\n      type: t\n      options: { color: [a] }\n", "must be text");
	purchase_fails("\n      type: t\n      read: { colour: x }\n", "unknown key 'colour' in 'read'");
	purchase_fails("\n      type: t\n      attributes: [[a]]\n", "must be text");
	purchase_fails("\n      type: \"\"\n", "'type' is empty");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_token_set_ratio),
		cmocka_unit_test(test_rewards),
		cmocka_unit_test(test_yaml),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
