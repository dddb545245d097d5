/* test_judge_fingerprint.c — which judge a score was made by, and how much of it rests on a judge:
 * the judge fingerprint (keynode/judge_fingerprint.h) of the offline judge, an LLM judge and the
 * defaults, the offline and LLM prompt digests checked against SHA-256 computed here, the field by
 * field comparison compare and leaderboard warn with (older environments and unknown judges
 * included); the judged key nodes of a result (kn_eval_node_judged); and the deterministic floor
 * of a summary worked by hand (docs/scoring.md "Judged and deterministic"). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <openssl/evp.h>

#include "keynode/eval.h"
#include "keynode/judge_fingerprint.h"
#include "llm.h"

static void sha256_hex(char out[65], const char *s)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;
	assert_int_equal(EVP_Digest(s, strlen(s), md, &n, EVP_sha256(), NULL), 1);
	for (unsigned int i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
}

static const char *str(const json_t *j, const char *k)
{
	return json_string_value(json_object_get(j, k));
}

static void test_offline_default(void **state)
{
	(void)state;
	char hex[65];
	sha256_hex(hex, KN_SEMANTIC_OFFLINE_ID);
	assert_string_equal(hex, KN_SEMANTIC_OFFLINE_SHA256); /* the identifier's digest, as documented */
	json_t *fp = kn_judge_fingerprint(NULL), *fp2;
	assert_non_null(fp);
	assert_string_equal(str(fp, "backend"), "offline");
	assert_true(json_is_null(json_object_get(fp, "model")));
	assert_string_equal(str(fp, "prompt_sha256"), KN_SEMANTIC_OFFLINE_SHA256);
	assert_true(json_real_value(json_object_get(fp, "threshold")) == 0.7);
	assert_string_equal(str(fp, "mode"), "default");
	assert_non_null(str(fp, "keynode_version"));
	assert_int_equal(json_object_size(fp), 6);
	/* the offline judge named, the default threshold spelt out: the same fingerprint */
	kn_eval_opts o = {.semantic = kn_semantic_offline(), .threshold = 0.7};
	fp2 = kn_judge_fingerprint(&o);
	assert_true(json_equal(fp, fp2));
	json_decref(fp), json_decref(fp2);
}

static int never(void *ud, const char *rule, const char *phrase, const char *input, double *score,
                 kn_err *err)
{
	(void)ud, (void)rule, (void)phrase, (void)input, (void)err;
	*score = 0;
	return 0;
}

static void test_llm(void **state)
{
	(void)state;
	char hex[65];
	sha256_hex(hex, kn_llm_prompt_template());
	assert_non_null(kn_llm_prompt_sha256());
	assert_string_equal(kn_llm_prompt_sha256(), hex);
	kn_semantic sem = {never, NULL, "llm:judge-7b", kn_llm_prompt_sha256()};
	kn_eval_opts o = {.semantic = &sem, .threshold = 0.8, .mode = KN_MODE_WEBCANVAS};
	json_t *fp = kn_judge_fingerprint(&o);
	assert_string_equal(str(fp, "backend"), "llm");
	assert_string_equal(str(fp, "model"), "judge-7b");
	assert_string_equal(str(fp, "prompt_sha256"), hex);
	assert_true(json_real_value(json_object_get(fp, "threshold")) == 0.8);
	assert_string_equal(str(fp, "mode"), "webcanvas");
	json_decref(fp);
	/* any other judge is custom, named by its name, its prompt unknown */
	kn_semantic custom = {never, NULL, "mine", NULL};
	o.semantic = &custom;
	fp = kn_judge_fingerprint(&o);
	assert_string_equal(str(fp, "backend"), "custom");
	assert_string_equal(str(fp, "model"), "mine");
	assert_true(json_is_null(json_object_get(fp, "prompt_sha256")));
	json_decref(fp);
}

static void test_diff(void **state)
{
	(void)state;
	char out[256];
	kn_semantic sem = {never, NULL, "llm:judge-7b", kn_llm_prompt_sha256()};
	kn_eval_opts o = {.semantic = &sem};
	json_t *off = kn_judge_fingerprint(NULL), *llm = kn_judge_fingerprint(&o);
	assert_int_equal(kn_judge_fingerprint_diff(out, sizeof out, off, off), 0);
	assert_string_equal(out, "");
	assert_int_equal(kn_judge_fingerprint_diff(out, sizeof out, off, llm), 3);
	assert_string_equal(out, "backend, model, prompt_sha256");
	o.threshold = 0.9;
	json_t *strict = kn_judge_fingerprint(&o);
	assert_int_equal(kn_judge_fingerprint_diff(out, sizeof out, llm, strict), 1);
	assert_string_equal(out, "threshold");
	/* unknown: a side without a fingerprint is never "the same" */
	assert_int_equal(kn_judge_fingerprint_diff(out, sizeof out, NULL, llm), -1);
	assert_string_equal(out, "unknown");
	/* an environment written before fingerprints: "semantic" is the backend, absent fields unknown */
	json_t *old = json_pack("{s:s, s:s, s:f, s:s, s:s}", "mode", "default", "semantic", "llm", "threshold",
	                        0.7, "model", "judge-7b", "prompt_sha256", kn_llm_prompt_sha256());
	assert_int_equal(kn_judge_fingerprint_diff(out, sizeof out, old, llm), 1);
	assert_string_equal(out, "keynode_version");
	/* a short buffer is cut, never overrun */
	char tiny[8];
	assert_int_equal(kn_judge_fingerprint_diff(tiny, sizeof tiny, off, llm), 3);
	assert_int_equal(strlen(tiny), 7);
	/* where a result keeps it: "judge", else its environment's */
	json_t *res = json_pack("{s:{s:O}}", "environment", "judge", old);
	assert_ptr_equal(kn_judge_fingerprint_of(res), json_object_get(json_object_get(res, "environment"), "judge"));
	json_object_set(res, "judge", llm);
	assert_ptr_equal(kn_judge_fingerprint_of(res), llm);
	assert_null(kn_judge_fingerprint_of(NULL));
	json_decref(res), json_decref(old), json_decref(off), json_decref(llm), json_decref(strict);
}

/* t: k1 a deterministic URL node, k2 a semantic answer node; d: deterministic nodes only. */
static const char doc[] = "tasks:\n"
                          "  - id: t\n"
                          "    intent: find the answer\n"
                          "    key_nodes:\n"
                          "      - url: { include: \"/a\" }\n"
                          "      - answer: { semantic: \"Decide whether the answer is forty-two\" }\n"
                          "  - id: d\n"
                          "    intent: go to b\n"
                          "    key_nodes:\n"
                          "      - url: { include: \"/a\" }\n"
                          "      - url: { include: \"/b\" }\n";

static const kn_event nav_a = {.type = KN_EV_NAVIGATE, .url = "http://x/a", .how = "goto", .trusted = -1};
static const kn_event nav_b = {.type = KN_EV_NAVIGATE, .url = "http://x/b", .how = "goto", .trusted = -1};
static const kn_event answer = {.type = KN_EV_ANSWER, .text = "42", .trusted = -1};

static int fixed(void *ud, const char *rule, const char *phrase, const char *input, double *score,
                 kn_err *err)
{
	(void)rule, (void)phrase, (void)input, (void)err;
	*score = *(const double *)ud;
	return 0;
}

static kn_eval *run(const kn_task *t, double verdict, const kn_event *ev, size_t n)
{
	static double v;
	static kn_semantic sem = {fixed, &v, "llm:fixed", NULL};
	v = verdict;
	kn_eval_opts o = {.semantic = &sem};
	kn_eval *e = NULL;
	kn_err err = {0};
	size_t failures = 0;
	assert_int_equal(kn_eval_run(&e, t, &o, ev, n, &failures, &err), 0);
	assert_int_equal(failures, 0);
	return e;
}

/* Four runs worked by hand (docs/scoring.md):
 *   A  t  /a, answer judged 0.9 ≥ 0.7  success, k2 judged          judged: [k2]
 *   B  d  /a, /b                       success, deterministic     judged: []
 *   C  t  /a, answer judged 0.2        incomplete (k2 at 0)       judged: []
 *   D  d  /b only                      incomplete                 judged: []
 * tasks 4, successes 2 (task_success_rate 0.5), judged key nodes 1, judged successes 1
 * (judged_success_share 1/2), deterministic floor (2 - 1) / 4 = 0.25. */
static void test_judged_and_floor(void **state)
{
	(void)state;
	kn_taskset *set;
	kn_err err = {0};
	assert_int_equal(kn_taskset_load_buffer(&set, doc, strlen(doc), "t.yaml", NULL, &err), 0);
	const kn_task *t = kn_taskset_find(set, "t"), *d = kn_taskset_find(set, "d");
	const kn_event ra[] = {nav_a, answer}, rb[] = {nav_a, nav_b}, rd[] = {nav_b};
	kn_eval *ev[4] = {run(t, 0.9, ra, 2), run(d, 0.9, rb, 2), run(t, 0.2, ra, 2), run(d, 0.9, rd, 1)};
	assert_int_equal(kn_eval_node_judged(ev[0], 0), 0);
	assert_int_equal(kn_eval_node_judged(ev[0], 1), 1);
	assert_int_equal(kn_eval_judged_count(ev[1]), 0);
	assert_int_equal(kn_eval_judged_count(ev[2]), 0); /* the judge said no: nothing rests on it */
	json_t *j = kn_eval_result_json(ev[0], "ra");
	json_t *judged = json_object_get(j, "judged");
	assert_int_equal(json_array_size(judged), 1);
	assert_string_equal(json_string_value(json_array_get(judged, 0)), "k2");
	assert_string_equal(str(json_object_get(j, "judge"), "backend"), "llm");
	assert_string_equal(str(json_object_get(j, "judge"), "model"), "fixed");
	json_decref(j);
	j = kn_eval_result_json(ev[1], "rb");
	assert_int_equal(json_array_size(json_object_get(j, "judged")), 0);
	json_decref(j);
	kn_summary s;
	kn_summary_init(&s);
	for (size_t i = 0; i < 4; i++)
		kn_summary_add(&s, ev[i]);
	kn_summary_finish(&s);
	assert_int_equal(s.tasks, 4);
	assert_int_equal(s.n_success, 2);
	assert_true(s.task_success_rate == 0.5);
	assert_int_equal(s.n_judged_nodes, 1);
	assert_int_equal(s.n_judged_success, 1);
	assert_true(s.judged_success_share == 0.5);
	assert_true(s.deterministic_floor == 0.25);
	for (size_t i = 0; i < 4; i++)
		kn_eval_free(ev[i]);
	kn_taskset_free(set);
}

/* The floor's arithmetic alone: the bundled m2w-test runs' counts (12 runs, 5 successes, 1 of them
 * judged) and the edges (no run, no success). */
static void test_floor_arithmetic(void **state)
{
	(void)state;
	kn_summary s;
	kn_summary_init(&s);
	s.tasks = 12, s.n_success = 5, s.n_judged_success = 1;
	kn_summary_floor(&s);
	assert_true(s.judged_success_share == 1.0 / 5.0);
	assert_true(s.deterministic_floor == 4.0 / 12.0);
	kn_summary_init(&s);
	kn_summary_floor(&s);
	assert_true(s.judged_success_share == 0 && s.deterministic_floor == 0);
	s.tasks = 3;
	kn_summary_floor(&s);
	assert_true(s.judged_success_share == 0 && s.deterministic_floor == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_offline_default), cmocka_unit_test(test_llm), cmocka_unit_test(test_diff),
		cmocka_unit_test(test_judged_and_floor), cmocka_unit_test(test_floor_arithmetic),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
