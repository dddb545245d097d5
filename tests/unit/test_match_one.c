/* test_match_one.c — kn_match_one (keynode/match_one.h), the one comparison `keynode match` and
 * `keynode judge-audit` make: each target reads the value as a run would (a URL's query parameter,
 * a typed value, an answer folded for exact), the semantic judge sees the rule and the extracted
 * phrase, its score meets the threshold (default mode) or counts when above 0 (webcanvas), and a
 * judge that fails is told apart from a key node that is invalid. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "keynode/match_one.h"
#include "kn_test.h"

/* A judge that answers a fixed score, or fails with rc, and remembers what it was asked. */
typedef struct fake {
	double score;
	int rc, calls;
	char input[256], phrase[256];
} fake;

static int fake_judge(void *ud, const char *rule, const char *phrase, const char *input, double *score,
                      kn_err *err)
{
	(void)rule;
	fake *f = ud;
	f->calls++;
	snprintf(f->input, sizeof f->input, "%s", input);
	snprintf(f->phrase, sizeof f->phrase, "%s", phrase ? phrase : "");
	if (f->rc)
		return kn_err_set(err, f->rc, "judge down: HTTP 402");
	*score = f->score;
	return 0;
}

static kn_match_result one(const kn_match_input *in, const kn_eval_opts *eo, int want_rc)
{
	kn_match_result r;
	kn_err err = {0};
	int rc = kn_match_one(&r, in, eo, &err);
	if (rc != want_rc)
		fail_msg("rc %d, want %d: %s", rc, want_rc, err.msg);
	return r;
}

static void test_targets(void **state)
{
	(void)state;
	kn_eval_opts eo = {.step_limit = -1};
	kn_match_input url = {KN_TARGET_URL, KN_MATCH_EXACT, "red shoes", "q", "http://a.com/s?q=red+shoes&q=x"};
	assert_true(one(&url, &eo, 0).match);
	url.key = "z"; /* the parameter is not there: nothing to match */
	assert_false(one(&url, &eo, 0).match);
	kn_match_input ans = {KN_TARGET_ANSWER, KN_MATCH_EXACT, "Open 9AM", NULL, "open 9am"};
	assert_true(one(&ans, &eo, 0).match); /* answers compare lower-cased */
	kn_match_input val = {KN_TARGET_ELEMENT_VALUE, KN_MATCH_EXACT, "Refund", NULL, "refund"};
	kn_match_result r = one(&val, &eo, 0);
	assert_false(r.match); /* typed values do not */
	assert_double_equal(r.score, 0, 0);
}

static void test_semantic(void **state)
{
	(void)state;
	fake f = {.score = 0.75};
	kn_semantic judge = {fake_judge, &f, "fake"};
	kn_eval_opts eo = {.step_limit = -1, .semantic = &judge};
	kn_match_input in = {KN_TARGET_URL, KN_MATCH_SEMANTIC, "Decide whether are searching for mens winter coat",
	                     "search", "https://s.example/?search=mens%20winter%20coats&x=1"};
	kn_match_result r = one(&in, &eo, 0);
	assert_int_equal(f.calls, 1);
	assert_string_equal(f.input, "mens winter coats"); /* the parameter, decoded */
	assert_string_equal(f.phrase, "mens winter coat");
	assert_true(r.match); /* 0.75 >= 0.7 */
	assert_double_equal(r.score, 1, 0);
	eo.threshold = 0.8;
	assert_false(one(&in, &eo, 0).match);
	eo.mode = KN_MODE_WEBCANVAS; /* any score above 0 counts, as a fraction */
	r = one(&in, &eo, 0);
	assert_true(r.match);
	assert_double_equal(r.score, 0.75, 1e-9);
	f.score = 0;
	assert_false(one(&in, &eo, 0).match);
	eo.semantic = NULL; /* the offline judge */
	eo.mode = KN_MODE_DEFAULT;
	eo.threshold = 0;
	assert_true(one(&in, &eo, 0).match);
	in.value = "https://s.example/?search=womens+winter+coat";
	assert_false(one(&in, &eo, 0).match);
}

static void test_failures(void **state)
{
	(void)state;
	fake f = {.rc = KN_EIO};
	kn_semantic judge = {fake_judge, &f, "fake"};
	kn_eval_opts eo = {.step_limit = -1, .semantic = &judge};
	kn_match_input in = {KN_TARGET_ANSWER, KN_MATCH_SEMANTIC, "the answer is 42", NULL, "42"};
	kn_match_result r;
	kn_err err = {0};
	assert_int_equal(kn_match_one(&r, &in, &eo, &err), KN_EIO);
	assert_int_equal(r.judge_failed, 1);
	assert_false(r.match);
	assert_non_null(strstr(err.msg, "judge down: HTTP 402"));

	/* the key node itself is wrong: nothing is judged, and it is not the judge's failure */
	f.calls = 0;
	kn_match_input bad = {KN_TARGET_URL, KN_MATCH_REGEX, "(", NULL, "x"};
	assert_int_equal(kn_match_one(&r, &bad, &eo, &err), KN_EINVAL);
	assert_int_equal(r.judge_failed, 0);
	assert_memory_equal(err.msg, "expect: ", 8);
	kn_match_input key = {KN_TARGET_ANSWER, KN_MATCH_SEMANTIC, "r", "q", "v"};
	assert_int_equal(kn_match_one(&r, &key, &eo, &err), KN_EINVAL);
	kn_match_input path = {KN_TARGET_ELEMENT_PATH, KN_MATCH_EXACT, "#a", NULL, "#a"};
	assert_int_equal(kn_match_one(&r, &path, &eo, &err), KN_EINVAL);
	kn_match_input fn = {KN_TARGET_ANSWER, KN_MATCH_FUZZY, "r", NULL, "v"};
	assert_int_equal(kn_match_one(&r, &fn, &eo, &err), KN_EINVAL);
	assert_int_equal(f.calls, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_targets),
		cmocka_unit_test(test_semantic),
		cmocka_unit_test(test_failures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
