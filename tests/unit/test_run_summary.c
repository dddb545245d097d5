/* test_run_summary.c — `keynode run`'s results (services/runner/summary.h): result.json files are read
 * back for --resume and the summary, a trust boundary (a folder anyone may have edited): valid results
 * parse; malformed ones (not JSON, no attempt, an unknown status, wrong types, truncated) are refused
 * with a reason. The summary counts metrics over executable attempts only, lists the excluded ones with
 * their reasons, and gives reliability over K and overhead quantiles. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "summary.h"

static const char ok_result[] =
	"{\"task\":\"t1\",\"run\":\"r\",\"mode\":\"default\",\"status\":\"finished\",\"steps\":4,"
	"\"reached\":2,\"total\":2,\"score\":1,\"completion\":true,\"efficiency\":2,\"step_scores\":[1],"
	"\"key_nodes\":[{\"id\":\"a\",\"score\":1},{\"id\":\"b\",\"score\":1}],\"functional\":true,"
	"\"attempt\":{\"status\":\"done\",\"end\":\"agent exited\",\"agent_s\":1.5,"
	"\"overhead_start_s\":0.5,\"overhead_end_s\":0.01,\"exit_code\":0}}";

static void test_parse_ok(void **state)
{
	(void)state;
	kn_run_row r;
	kn_err err = {0};
	assert_int_equal(kn_run_row_parse(&r, ok_result, strlen(ok_result), &err), 0);
	assert_string_equal(r.task, "t1");
	assert_string_equal(r.status, "done");
	assert_string_equal(r.end, "agent exited");
	assert_int_equal(r.completed, 1);
	assert_int_equal(r.functional, 1);
	assert_int_equal(r.total, 2);
	assert_int_equal(r.missing, 0);
	assert_int_equal(r.steps, 4);
	assert_int_equal(r.exit_code, 0);
	assert_true(r.overhead_start_s > 0.49 && r.overhead_start_s < 0.51);
}

static void test_parse_malformed(void **state)
{
	(void)state;
	const char *bad[] = {
		"", "{", "[]", "null", "\"x\"",
		"{\"task\":\"t\",\"score\":1,\"reached\":1,\"key_nodes\":[]}",                      /* no attempt */
		"{\"task\":\"t\",\"score\":1,\"reached\":1,\"key_nodes\":[],\"attempt\":{}}",       /* no status */
		"{\"task\":\"t\",\"score\":1,\"reached\":1,\"key_nodes\":[],\"attempt\":{\"status\":\"won\"}}",
		"{\"task\":1,\"score\":1,\"reached\":1,\"key_nodes\":[],\"attempt\":{\"status\":\"done\"}}",
		"{\"task\":\"t\",\"score\":\"1\",\"reached\":1,\"key_nodes\":[],\"attempt\":{\"status\":\"done\"}}",
		"{\"task\":\"t\",\"score\":1,\"reached\":1,\"key_nodes\":{},\"attempt\":{\"status\":\"done\"}}",
		"{\"task\":\"t\",\"score\":1,\"key_nodes\":[],\"attempt\":{\"status\":\"done\"}}",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		kn_run_row r;
		kn_err err = {0};
		assert_int_equal(kn_run_row_parse(&r, bad[i], strlen(bad[i]), &err), KN_EINVAL);
		assert_true(err.msg[0] != '\0');
	}
	/* every proper prefix of a valid result is refused */
	for (size_t n = 0; n < strlen(ok_result); n++) {
		kn_run_row r;
		assert_int_equal(kn_run_row_parse(&r, ok_result, n, NULL), KN_EINVAL);
	}
}

static void test_load_missing(void **state)
{
	(void)state;
	kn_run_row r;
	kn_err err = {0};
	assert_int_equal(kn_run_row_load(&r, "/nonexistent/result.json", &err), KN_ENOTFOUND);
}

static kn_run_row row(const char *task, int k, const char *status, int completed, double score,
                      int missing, double ovh)
{
	kn_run_row r;
	memset(&r, 0, sizeof r);
	snprintf(r.task, sizeof r.task, "%s", task);
	snprintf(r.status, sizeof r.status, "%s", status);
	snprintf(r.reason, sizeof r.reason, "%s", strcmp(status, "error") == 0 ? "start page down" : "");
	r.attempt = k;
	r.completed = completed;
	r.score = score;
	r.reached = score * 2;
	r.total = 2;
	r.missing = missing;
	r.functional = -1;
	r.reward = -1;
	r.exit_code = 0;
	r.overhead_start_s = ovh;
	r.overhead_end_s = ovh / 10;
	return r;
}

static void test_summary(void **state)
{
	(void)state;
	char dir[] = "/tmp/kn-test-run-summary-XXXXXX";
	assert_non_null(mkdtemp(dir));
	kn_run_row rows[] = {
		row("a", 1, "done", 1, 1.0, 0, 0.4), row("a", 2, "done", 1, 1.0, 0, 0.6),
		row("b", 1, "done", 0, 0.5, 1, 0.5), row("b", 2, "done", 1, 1.0, 0, 0.7),
		row("c", 1, "done", 0, 0.0, 2, 0.3), row("c", 2, "error", 0, 0.0, 2, 9.0),
	};
	kn_run_totals t = {.planned = 6, .finished = 6, .executable = 5, .errors = 1, .successes = 3,
	                   .ran = 6, .wall_s = 60};
	FILE *out = tmpfile();
	kn_err err = {0};
	assert_int_equal(kn_run_summary_write(rows, 6, &t, 2, NULL, dir, out, &err), 0);
	fclose(out);
	char path[128];
	snprintf(path, sizeof path, "%s/summary.json", dir);
	json_error_t je;
	json_t *j = json_load_file(path, 0, &je);
	assert_non_null(j);
	json_t *m = json_object_get(j, "metrics");
	/* 5 executable attempts: 3 successes; reached 2+2+1+2+0 of 10 */
	assert_int_equal(json_integer_value(json_object_get(m, "attempts")), 5);
	assert_true(json_real_value(json_object_get(m, "task_success_rate")) > 0.599 &&
	            json_real_value(json_object_get(m, "task_success_rate")) < 0.601);
	assert_true(json_real_value(json_object_get(m, "key_node_completion_rate")) > 0.699 &&
	            json_real_value(json_object_get(m, "key_node_completion_rate")) < 0.701);
	assert_true(json_real_value(json_object_get(m, "task_near_success_rate")) > 0.199 &&
	            json_real_value(json_object_get(m, "task_near_success_rate")) < 0.201);
	json_t *ex = json_object_get(j, "excluded");
	assert_int_equal(json_array_size(ex), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(ex, 0), "reason")),
	                    "start page down");
	/* reliability over the executable attempts: a solved in both, b in one, c in none */
	json_t *rel = json_object_get(j, "reliability");
	assert_true(json_real_value(json_object_get(rel, "solved_all")) > 0.333 &&
	            json_real_value(json_object_get(rel, "solved_all")) < 0.334);
	assert_true(json_real_value(json_object_get(rel, "solved_any")) > 0.666 &&
	            json_real_value(json_object_get(rel, "solved_any")) < 0.667);
	/* overhead over executable attempts: 0.3 0.4 0.5 0.6 0.7 → median 0.5, p95 0.7 */
	json_t *ov = json_object_get(j, "overhead");
	assert_true(json_real_value(json_object_get(ov, "start_median_s")) > 0.499 &&
	            json_real_value(json_object_get(ov, "start_median_s")) < 0.501);
	assert_true(json_real_value(json_object_get(ov, "start_p95_s")) > 0.699 &&
	            json_real_value(json_object_get(ov, "start_p95_s")) < 0.701);
	assert_true(json_real_value(json_object_get(j, "attempts_per_minute")) > 5.99 &&
	            json_real_value(json_object_get(j, "attempts_per_minute")) < 6.01);
	json_decref(j);
	snprintf(path, sizeof path, "%s/summary.csv", dir);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	int lines = 0, ch;
	while ((ch = fgetc(f)) != EOF)
		lines += ch == '\n';
	fclose(f);
	assert_int_equal(lines, 7);
	unlink(path);
	snprintf(path, sizeof path, "%s/summary.json", dir);
	unlink(path);
	rmdir(dir);
}

/* A blocked attempt (the site refused service): parsed, excluded from the metrics like an error,
 * counted apart from errors in summary.json and the printed summary. */
static void test_blocked(void **state)
{
	(void)state;
	static const char blocked[] =
		"{\"task\":\"t\",\"status\":\"blocked\",\"score\":0,\"reached\":0,\"key_nodes\":[],"
		"\"attempt\":{\"status\":\"blocked\",\"reason\":\"blocked: 403\"}}";
	kn_run_row r;
	kn_err err = {0};
	assert_int_equal(kn_run_row_parse(&r, blocked, strlen(blocked), &err), 0);
	assert_string_equal(r.status, "blocked");
	char dir[] = "/tmp/kn-test-run-summary-XXXXXX";
	assert_non_null(mkdtemp(dir));
	kn_run_row rows[] = {row("a", 1, "done", 1, 1.0, 0, 0.4), row("b", 1, "error", 0, 0, 2, 0), r};
	kn_run_totals t = {.planned = 3, .finished = 3, .executable = 1, .errors = 1, .blocked = 1,
	                   .successes = 1, .ran = 3, .wall_s = 60};
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	assert_non_null(out);
	assert_int_equal(kn_run_summary_write(rows, 3, &t, 1, NULL, dir, out, &err), 0);
	fclose(out);
	assert_non_null(strstr(text, "excluded: 1 error, 1 blocked"));
	free(text);
	char path[128];
	snprintf(path, sizeof path, "%s/summary.json", dir);
	json_error_t je;
	json_t *j = json_load_file(path, 0, &je);
	assert_non_null(j);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "attempts"), "blocked")), 1);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "attempts"), "errors")), 1);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "metrics"), "attempts")), 1);
	json_t *ex = json_object_get(j, "excluded");
	assert_int_equal(json_array_size(ex), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(ex, 1), "status")), "blocked");
	json_decref(j);
	unlink(path);
	snprintf(path, sizeof path, "%s/summary.csv", dir);
	unlink(path);
	rmdir(dir);
}

/* Purchase rewards (keynodes/README.md "Purchase reward"): a result's `reward` is read back (-1 when
 * the task has none); task_score (100 × mean reward), reward_success_rate (reward 1) and reward_tasks
 * count executable attempts with a purchase only, and appear in summary.json and the printed summary
 * only when some attempt has one; summary.csv's last column is the reward, empty without. */
static void test_reward(void **state)
{
	(void)state;
	static const char with[] =
		"{\"task\":\"p\",\"status\":\"finished\",\"score\":1,\"reached\":1,\"key_nodes\":[],"
		"\"reward\":0.625,\"reward_parts\":{},\"attempt\":{\"status\":\"done\"}}";
	static const char bad[] =
		"{\"task\":\"p\",\"status\":\"finished\",\"score\":1,\"reached\":1,\"key_nodes\":[],"
		"\"reward\":\"1\",\"attempt\":{\"status\":\"done\"}}";
	kn_run_row r;
	kn_err err = {0};
	assert_int_equal(kn_run_row_parse(&r, with, strlen(with), &err), 0);
	assert_true(r.reward == 0.625);
	assert_int_equal(kn_run_row_parse(&r, ok_result, strlen(ok_result), &err), 0);
	assert_true(r.reward == -1);
	assert_int_equal(kn_run_row_parse(&r, bad, strlen(bad), &err), 0); /* not a number: none */
	assert_true(r.reward == -1);

	char dir[] = "/tmp/kn-test-run-summary-XXXXXX";
	assert_non_null(mkdtemp(dir));
	kn_run_row rows[] = {row("p", 1, "done", 1, 1.0, 0, 0.4), row("p", 2, "done", 1, 1.0, 0, 0.4),
	                     row("p", 3, "done", 0, 0.5, 1, 0.4), row("q", 1, "done", 1, 1.0, 0, 0.4),
	                     row("p", 4, "error", 0, 0, 2, 0)};
	rows[0].reward = 1.0;
	rows[1].reward = 0.625;
	rows[2].reward = 0; /* nothing bought */
	rows[4].reward = 1.0; /* excluded: an error does not count */
	kn_run_totals t = {.planned = 5, .finished = 5, .executable = 4, .errors = 1, .successes = 3,
	                   .ran = 5, .wall_s = 60};
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	assert_non_null(out);
	assert_int_equal(kn_run_summary_write(rows, 5, &t, 1, NULL, dir, out, &err), 0);
	fclose(out);
	/* (1 + 0.625 + 0) / 3 = 0.541666… → 54.17; one of three at 1 */
	assert_non_null(strstr(text, "task_score                54.17\n"));
	assert_non_null(strstr(text, "reward_success_rate       0.3333 (3 attempts with a purchase)"));
	free(text);
	char path[128];
	snprintf(path, sizeof path, "%s/summary.json", dir);
	json_error_t je;
	json_t *j = json_load_file(path, 0, &je);
	assert_non_null(j);
	json_t *m = json_object_get(j, "metrics");
	assert_true(fabs(json_real_value(json_object_get(m, "task_score")) - 1625.0 / 30.0) < 1e-4);
	assert_true(fabs(json_real_value(json_object_get(m, "reward_success_rate")) - 1.0 / 3.0) < 1e-6);
	assert_int_equal(json_integer_value(json_object_get(m, "reward_tasks")), 3);
	json_decref(j);
	unlink(path);
	snprintf(path, sizeof path, "%s/summary.csv", dir);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	char line[1024];
	assert_non_null(fgets(line, sizeof line, f));
	assert_non_null(strstr(line, ",reason,reward,fault\n"));
	const char *want[] = {",1.0000,\n", ",0.6250,\n", ",0.0000,agent\n", "\"\",,\n",
	                      "\"start page down\",1.0000,infrastructure\n"};
	for (size_t i = 0; i < 5; i++) {
		assert_non_null(fgets(line, sizeof line, f));
		size_t l = strlen(line), w = strlen(want[i]);
		assert_true(l >= w);
		assert_string_equal(line + l - w, want[i]);
	}
	fclose(f);
	unlink(path);
	rmdir(dir);

	/* no purchase anywhere: no reward metrics, no task_score line */
	assert_non_null(mkdtemp(strcpy(dir, "/tmp/kn-test-run-summary-XXXXXX")));
	text = NULL;
	out = open_memstream(&text, &len);
	assert_non_null(out);
	assert_int_equal(kn_run_summary_write(rows + 3, 1, &t, 1, NULL, dir, out, &err), 0);
	fclose(out);
	assert_null(strstr(text, "task_score"));
	free(text);
	snprintf(path, sizeof path, "%s/summary.json", dir);
	j = json_load_file(path, 0, &je);
	assert_non_null(j);
	assert_null(json_object_get(json_object_get(j, "metrics"), "task_score"));
	assert_null(json_object_get(json_object_get(j, "metrics"), "reward_tasks"));
	json_decref(j);
	unlink(path);
	snprintf(path, sizeof path, "%s/summary.csv", dir);
	unlink(path);
	rmdir(dir);
}

/* An unjudged attempt (a judgement it depends on failed): parsed, left out of the metrics like
 * error and blocked, counted in attempts.unjudged and, with every other attempt that is not a
 * success, by whose it is (attempts.faults, excluded[].fault, the table). */
static void test_unjudged_and_faults(void **state)
{
	(void)state;
	static const char unjudged[] =
		"{\"task\":\"u\",\"status\":\"unjudged\",\"score\":0.5,\"reached\":1,\"key_nodes\":"
		"[{\"score\":1},{\"score\":0}],\"fault\":\"judge\",\"attempt\":{\"status\":\"unjudged\","
		"\"fault\":\"judge\",\"reason\":\"unjudged: the judge llm:m failed on key node k2: HTTP 402\"}}";
	kn_run_row u;
	kn_err err = {0};
	assert_int_equal(kn_run_row_parse(&u, unjudged, strlen(unjudged), &err), 0);
	assert_string_equal(u.status, "unjudged");
	assert_string_equal(kn_run_fault(u.status, u.completed, u.reason), "judge");
	kn_run_row rows[] = {row("a", 1, "done", 1, 1.0, 0, 0.4), row("a", 2, "done", 0, 0.5, 1, 0.4),
	                     row("b", 1, "error", 0, 0, 2, 0), row("b", 2, "error", 0, 0, 2, 0),
	                     row("c", 1, "blocked", 0, 0, 2, 0), u};
	snprintf(rows[3].reason, sizeof rows[3].reason, "unreachable: net::ERR_CONNECTION_REFUSED at http://x/");
	kn_run_totals t = {.ran = 6, .wall_s = 60};
	kn_run_totals_count(&t, rows, 6, 6);
	assert_int_equal(t.executable, 2);
	assert_int_equal(t.unjudged, 1);
	assert_int_equal(t.errors, 2);
	assert_int_equal(t.blocked, 1);
	assert_int_equal(t.faults[0], 1); /* agent: a#2 */
	assert_int_equal(t.faults[1], 2); /* site: c#1 blocked, b#2 unreachable */
	assert_int_equal(t.faults[2], 1); /* infrastructure: b#1 */
	assert_int_equal(t.faults[3], 1); /* judge: u */
	char dir[] = "/tmp/kn-test-run-summary-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	assert_non_null(out);
	assert_int_equal(kn_run_summary_write(rows, 6, &t, 1, NULL, dir, out, &err), 0);
	fclose(out);
	assert_non_null(strstr(text, "excluded: 2 error, 1 blocked, 1 unjudged"));
	assert_non_null(strstr(text, "agent 1, site 2, infrastructure 1, judge 1"));
	free(text);
	char path[128];
	snprintf(path, sizeof path, "%s/summary.json", dir);
	json_error_t je;
	json_t *j = json_load_file(path, 0, &je);
	assert_non_null(j);
	json_t *a = json_object_get(j, "attempts"), *f = json_object_get(a, "faults");
	assert_int_equal(json_integer_value(json_object_get(a, "unjudged")), 1);
	assert_int_equal(json_integer_value(json_object_get(f, "judge")), 1);
	assert_int_equal(json_integer_value(json_object_get(f, "site")), 2);
	json_t *m = json_object_get(j, "metrics");
	assert_int_equal(json_integer_value(json_object_get(m, "attempts")), 2);
	assert_true(fabs(json_number_value(json_object_get(m, "task_success_rate")) - 0.5) < 1e-12);
	json_t *ex = json_object_get(j, "excluded");
	assert_int_equal(json_array_size(ex), 4);
	assert_string_equal(json_string_value(json_object_get(json_array_get(ex, 3), "fault")), "judge");
	assert_string_equal(json_string_value(json_object_get(json_array_get(ex, 1), "fault")), "site");
	json_t *pl = json_object_get(json_object_get(j, "denominators"), "planned");
	assert_int_equal(json_integer_value(json_object_get(pl, "unjudged")), 1);
	assert_int_equal(json_integer_value(json_object_get(pl, "missing")), 0);
	json_decref(j);
	unlink(path);
	snprintf(path, sizeof path, "%s/summary.csv", dir);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_ok),
		cmocka_unit_test(test_parse_malformed),
		cmocka_unit_test(test_load_missing),
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_blocked),
		cmocka_unit_test(test_unjudged_and_faults),
		cmocka_unit_test(test_reward),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
