/* test_run_rows.c — attempt rows as compact text (services/runner/run_rows.h), what a finished agent
 * batch's comparison reads back instead of JSON: rows read from result.json files pack and
 * unpack to the same bytes, including strings with tabs, newlines and backslashes, negative and
 * extreme numbers and values that do not print exactly in decimal; anything else is refused with
 * its line, never half-read. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <float.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_rows.h"

static const char *results[] = {
	"{\"task\":\"t1\",\"status\":\"finished\",\"steps\":4,\"reached\":2,\"score\":1,\"completion\":true,"
	"\"efficiency\":2,\"key_nodes\":[{\"score\":1},{\"score\":1}],\"functional\":true,"
	"\"judged\":[\"k2\"],\"judge\":{\"backend\":\"llm\",\"model\":\"m\\tx\",\"threshold\":0.7},"
	"\"attempt\":{\"status\":\"done\",\"end\":\"agent exited\",\"agent_s\":1.5,\"overhead_start_s\":0.5,"
	"\"overhead_end_s\":0.01,\"exit_code\":0}}",
	/* strings with every escaped byte, a reward, usage, an environment, numbers with no exact decimal */
	"{\"task\":\"a\\tb\\\\c\\nd\\re\",\"status\":\"step_limit\",\"steps\":-7,\"reached\":0.1,\"score\":0.30000000000000004,"
	"\"completion\":false,\"efficiency\":1e-300,\"key_nodes\":[{\"score\":0.5},{\"score\":1},{\"score\":0}],"
	"\"functional\":false,\"reward\":0.3333333333333333,\"usage\":{\"usd\":12.345678901234567,"
	"\"input_tokens\":9000000000000,\"output_tokens\":3,\"models\":[\"gpt\\t4\"]},"
	"\"environment\":{\"user_agent\":\"Mozilla/5.0 (X11)\\\\\",\"chromium_version\":\"131.0.1\"},"
	"\"attempt\":{\"status\":\"error\",\"end\":\"timeout\",\"reason\":\"line 1\\nline 2\\ttab \\\\n\","
	"\"agent_s\":1.7976931348623157e308,\"overhead_start_s\":5e-324,\"overhead_end_s\":-0.0,\"exit_code\":-2147483648}}",
	"{\"task\":\"\",\"status\":\"\",\"steps\":2147483647,\"reached\":0,\"score\":0,\"key_nodes\":[],"
	"\"attempt\":{\"status\":\"blocked\"}}",
};

static void rows(kn_run_row *out, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		kn_err err = {0};
		assert_int_equal(kn_run_row_parse(&out[i], results[i], strlen(results[i]), &err), 0);
		out[i].attempt = (int)i + 1;
	}
}

static void test_round_trip(void **state)
{
	(void)state;
	kn_run_row in[3], *out = NULL;
	rows(in, 3);
	json_t *head = json_pack("{s:s, s:i, s:[{s:s}]}", "agent", "a\nb", "repeat", 3, "tasks", "task", "x"), *h2 = NULL;
	char *text = NULL;
	kn_err err = {0};
	assert_int_equal(kn_run_rows_pack(&text, head, in, 3, &err), 0);
	assert_non_null(strstr(text, "keynode-rows 1\n"));
	size_t n = 0;
	assert_int_equal(kn_run_rows_unpack(text, &h2, &out, &n, 10, &err), 0);
	assert_int_equal(n, 3);
	assert_true(json_equal(head, h2));
	for (size_t i = 0; i < 3; i++) /* every field and every byte (rows are memset before they are filled) */
		assert_memory_equal(&in[i], &out[i], sizeof in[i]);
	assert_string_equal(out[1].reason, "line 1\nline 2\ttab \\n");
	assert_int_equal(out[1].exit_code, INT_MIN);
	assert_true(out[1].agent_s == DBL_MAX);
	assert_int_equal(out[1].missing, 2);
	assert_int_equal(out[0].judged, 1); /* the judged key nodes and the judge fingerprint */
	assert_non_null(strstr(out[0].judge, "\"model\":\"m\\tx\""));
	assert_int_equal(out[1].judged, -1);
	free(out);
	json_decref(h2);
	/* no rows, no head */
	free(text);
	assert_int_equal(kn_run_rows_pack(&text, NULL, in, 0, &err), 0);
	assert_string_equal(text, "keynode-rows 1\n{}\n");
	assert_int_equal(kn_run_rows_unpack(text, &h2, &out, &n, 10, &err), 0);
	assert_int_equal(n, 0);
	free(out);
	json_decref(h2);
	free(text);
	json_decref(head);
}

/* text unpacked must be refused with msg in the error, nothing returned */
static void refused(const char *text, const char *msg, size_t max)
{
	json_t *head = (json_t *)1;
	kn_run_row *out = (kn_run_row *)1;
	size_t n = 7;
	kn_err err = {0};
	int rc = kn_run_rows_unpack(text, &head, &out, &n, max, &err);
	if (rc == 0 || !strstr(err.msg, msg))
		fail_msg("%s: rc %d, '%s' (wanted '%s')", text, rc, err.msg, msg);
	assert_null(head);
	assert_null(out);
	assert_int_equal(n, 0);
}

static void test_malformed(void **state)
{
	(void)state;
	kn_run_row in[2];
	rows(in, 2);
	char *text = NULL, bad[8192];
	kn_err err = {0};
	assert_int_equal(kn_run_rows_pack(&text, NULL, in, 2, &err), 0);
	refused("", "1: not", 10);
	refused("{\"id\": 1, \"results\": []}", "1: not", 10); /* what 190 stored: JSON */
	refused("keynode-rows 2\n{}\n", "1: not", 10);
	refused("keynode-rows 1\n", "2: not a JSON object", 10);
	refused("keynode-rows 1\n[1]\n", "2: not a JSON object", 10);
	refused("keynode-rows 1\n{\"a\":\n1}\n", "2: not a JSON object", 10);
	refused(text, "over 1 rows", 1);
	size_t len = strlen(text);
	snprintf(bad, sizeof bad, "%.*s", (int)len - 1, text); /* the last row cut short */
	refused(bad, "4: no end of line", 10);
	/* field by field: the good second row with one field changed */
	const char *row2 = strchr(strchr(strchr(text, '\n') + 1, '\n') + 1, '\n') + 1;
	static const struct { int field; const char *value, *why; } cases[] = {
		{1, "0", "attempt 0"}, {1, "1x", "trailing junk"}, {1, "", "empty number"},
		{2, "running", "unknown status"}, {6, "2", "completed 2"}, {7, "-2", "functional -2"},
		{8, "nan", "not finite"}, {9, "inf", "not finite"}, {10, "1e", "half a number"},
		{12, "-1", "negative total"}, {13, "9", "missing > total"}, {14, "2147483648", "int overflow"},
		{21, "-1", "negative tokens"}, {4, "a\\qb", "bad escape"}, {4, "ab\\", "escape at the end"},
	};
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		/* rebuild row 2 with field cases[c].field replaced */
		char out[4096] = "", *o = out;
		const char *p = row2;
		for (int f = 0; *p && *p != '\n'; f++) {
			const char *e = p + strcspn(p, "\t\n");
			o += sprintf(o, "%s%.*s", f ? "\t" : "", f == cases[c].field ? (int)strlen(cases[c].value) : (int)(e - p),
			             f == cases[c].field ? cases[c].value : p);
			p = *e == '\t' ? e + 1 : e;
		}
		snprintf(bad, sizeof bad, "%.*s%s\n", (int)(row2 - text), text, out);
		json_t *head = NULL;
		kn_run_row *rr = NULL;
		size_t n = 0;
		if (kn_run_rows_unpack(bad, &head, &rr, &n, 10, &err) != KN_EINVAL || !strstr(err.msg, "4: not a row"))
			fail_msg("field %d = '%s' (%s) was not refused: %s", cases[c].field, cases[c].value, cases[c].why, err.msg);
	}
	/* a field too many, one too few, a string too long for its field */
	snprintf(bad, sizeof bad, "%.*s\tx\n", (int)len - 1, text);
	refused(bad, "4: not a row", 10);
	snprintf(bad, sizeof bad, "%.*s\n", (int)(strrchr(text, '\t') - text), text);
	refused(bad, "4: not a row", 10);
	char big[600];
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = 0;
	snprintf(bad, sizeof bad, "keynode-rows 1\n{}\n%s%s", big, strchr(row2, '\t'));
	refused(bad, "3: not a row", 10);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_malformed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
