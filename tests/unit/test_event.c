/* test_event.c — trajectory lines: the step rule, the reader's errors (each naming its line),
 * and a write → read round trip. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "kn_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keynode/clock.h"
#include "keynode/event.h"

static void test_step_rule(void **state)
{
	(void)state;
	struct { kn_event_type type; const char *how; int step; } cases[] = {
		{KN_EV_NAVIGATE, "goto", 1},   {KN_EV_NAVIGATE, "back", 1}, {KN_EV_NAVIGATE, "forward", 1},
		{KN_EV_NAVIGATE, "reload", 1}, {KN_EV_NAVIGATE, "link", 0}, {KN_EV_NAVIGATE, "form", 0},
		{KN_EV_NAVIGATE, "popup", 0},  {KN_EV_NAVIGATE, NULL, 0},   {KN_EV_CLICK, NULL, 1},
		{KN_EV_TYPE, NULL, 1},         {KN_EV_SELECT, NULL, 1},     {KN_EV_SUBMIT, NULL, 0},
		{KN_EV_PRESS, NULL, 1},        {KN_EV_SCROLL, NULL, 1},     {KN_EV_TAB_OPEN, NULL, 0},
		{KN_EV_TAB_CLOSE, NULL, 0},    {KN_EV_ANSWER, NULL, 1}};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		kn_event e = {.type = cases[i].type, .how = cases[i].how};
		assert_int_equal(kn_event_is_step(&e), cases[i].step);
	}
}

static void expect_read_error(const char *doc, int rc, const char *want)
{
	kn_traj_header h;
	kn_event *ev;
	size_t n;
	kn_err err = {0};
	int r = kn_traj_read_buffer(doc, strlen(doc), "run.jsonl", &h, &ev, &n, &err);
	if (r != rc || !strstr(err.msg, want))
		fail_msg("for %s\n got %d '%s', want %d '%s'", doc, r, err.msg, rc, want);
	assert_null(ev);
	assert_int_equal(n, 0);
	assert_null(h.task);
}

#define HDR "{\"run\": \"r\", \"task\": \"7\", \"started\": \"2026-11-22T09:00:00Z\"}\n"

static void test_read_errors(void **state)
{
	(void)state;
	expect_read_error("", KN_EINVAL, "empty trajectory");
	expect_read_error("\n\n", KN_EINVAL, "empty trajectory");
	expect_read_error("{\"t\": 0, \"type\": \"click\"}\n", KN_EINVAL, "run.jsonl:1: expected the header");
	expect_read_error("{\"task\": \"7\"}\n", KN_EINVAL, "run.jsonl:1: header field \"run\": missing");
	expect_read_error(HDR "{\"t\": 0, \"type\": \"teleport\"}\n", KN_EINVAL, "run.jsonl:2: field \"type\": unknown event type 'teleport'");
	expect_read_error(HDR "\n{\"t\": 0}\n", KN_EINVAL, "run.jsonl:3: field \"type\": missing");
	expect_read_error(HDR "{\"t\": 0, \"type\": \"click\", \"url\": 5}\n", KN_EINVAL, "run.jsonl:2: field \"url\": expected a string");
	expect_read_error(HDR "{\"t\": \"x\", \"type\": \"click\"}\n", KN_EINVAL, "field \"t\": expected a number");
	expect_read_error(HDR "{\"type\": \"navigate\", \"how\": \"teleport\"}\n", KN_EINVAL, "unknown navigation cause 'teleport'");
	expect_read_error(HDR "{\"type\": \"click\", \"matched\": \"k1\"}\n", KN_EINVAL, "field \"matched\": expected an array");
	expect_read_error(HDR "{\"type\": \"click\", \"matched\": [1]}\n", KN_EINVAL, "field \"matched\"[0]: expected a string");
	expect_read_error(HDR "{\"type\": \"click\"\n", KN_EINVAL, "run.jsonl:2: column");
	expect_read_error(HDR "[1, 2]\n", KN_EINVAL, "run.jsonl:2: expected a JSON object");
	expect_read_error(HDR "{\"type\": \"click\", \"type\": \"click\"}\n", KN_EINVAL, "run.jsonl:2:");
	/* an over-long line */
	size_t big = KN_TRAJ_MAX_LINE + 100;
	char *doc = malloc(sizeof HDR + big + 2);
	assert_non_null(doc);
	strcpy(doc, HDR);
	memset(doc + strlen(HDR), 'x', big);
	doc[strlen(HDR) + big] = '\0';
	expect_read_error(doc, KN_ELIMIT, "run.jsonl:2: line is over");
	free(doc);
}

static void test_round_trip(void **state)
{
	(void)state;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(kn_traj_write_header(f, "r-1", "shop-1", "2026-11-22T09:00:00Z"), 0);
	const char *const m[] = {"k2", "k4"};
	kn_event in[3] = {
		{.t = 0, .type = KN_EV_NAVIGATE, .tab = "T1", .url = "http://a/?q=\"x\"", .how = "goto", .trusted = -1},
		{.t = 1.204, .type = KN_EV_CLICK, .tab = "T1", .url = "http://a/", .selector = "#go", .text = "Go \xc3\xa9", .matched = m, .n_matched = 2, .trusted = 1},
		{.t = 9, .type = KN_EV_ANSWER, .text = "42", .trusted = -1},
	};
	for (int i = 0; i < 3; i++)
		assert_int_equal(kn_traj_write_event(f, &in[i]), 0);
	kn_event bad = {.type = KN_EV_TYPE, .value = "\xff\xfe", .trusted = -1};
	assert_int_equal(kn_traj_write_event(f, &bad), KN_EINVAL); /* invalid UTF-8 is refused, not written */
	fclose(f);
	kn_traj_header h;
	kn_event *ev;
	size_t n;
	kn_err err = {0};
	assert_int_equal(kn_traj_read_buffer(buf, len, "mem", &h, &ev, &n, &err), 0);
	assert_string_equal(h.run, "r-1");
	assert_string_equal(h.task, "shop-1");
	assert_int_equal(n, 3);
	assert_string_equal(ev[0].url, "http://a/?q=\"x\"");
	assert_string_equal(ev[0].how, "goto");
	assert_null(ev[0].matched);
	assert_double_equal(ev[1].t, 1.204, 1e-9);
	assert_string_equal(ev[1].text, "Go \xc3\xa9");
	assert_int_equal(ev[1].n_matched, 2);
	assert_string_equal(ev[1].matched[1], "k4");
	assert_int_equal(ev[1].trusted, 1);
	assert_int_equal(ev[2].type, KN_EV_ANSWER);
	assert_int_equal(ev[2].trusted, -1);
	kn_traj_events_free(ev, n);
	kn_traj_header_clear(&h);
	free(buf);
}

/* "human": written only when set, read back, never a step, anything but a boolean refused. */
static void test_human(void **state)
{
	(void)state;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(kn_traj_write_header(f, "r", "7", "2026-11-22T09:00:00Z"), 0);
	kn_event in[2] = {{.type = KN_EV_CLICK, .selector = "#accept", .trusted = 1, .human = 1},
	                  {.type = KN_EV_CLICK, .selector = "#next", .trusted = 1}};
	assert_int_equal(kn_traj_write_event(f, &in[0]), 0);
	assert_int_equal(kn_traj_write_event(f, &in[1]), 0);
	fclose(f);
	const char *hu = strstr(buf, "\"human\":"), *next = strstr(buf, "#next");
	assert_non_null(hu);
	assert_true(hu < next && hu > strstr(buf, "#accept")); /* on the person's line only */
	assert_null(strstr(next, "human"));
	kn_traj_header h;
	kn_event *ev;
	size_t n;
	kn_err err = {0};
	assert_int_equal(kn_traj_read_buffer(buf, len, "mem", &h, &ev, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(ev[0].human, 1);
	assert_int_equal(ev[1].human, 0);
	assert_int_equal(kn_event_is_step(&ev[0]), 0);
	assert_int_equal(kn_event_is_step(&ev[1]), 1);
	kn_traj_events_free(ev, n);
	kn_traj_header_clear(&h);
	free(buf);
	const char *ok = HDR "{\"type\": \"click\", \"human\": false}\n{\"type\": \"click\", \"human\": null}\n";
	assert_int_equal(kn_traj_read_buffer(ok, strlen(ok), "mem", &h, &ev, &n, &err), 0);
	assert_int_equal(ev[0].human + ev[1].human, 0);
	kn_traj_events_free(ev, n);
	kn_traj_header_clear(&h);
	expect_read_error(HDR "{\"type\": \"click\", \"human\": 1}\n", KN_EINVAL, "run.jsonl:2: field \"human\": expected true or false");
	expect_read_error(HDR "{\"type\": \"click\", \"human\": \"yes\"}\n", KN_EINVAL, "field \"human\"");
}

/* Frame and shadow fields: written only when set, read back, malformed ones refused. */
static void test_frame_fields(void **state)
{
	(void)state;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(kn_traj_write_header(f, "r", "t", "2026-11-22T09:00:00Z"), 0);
	const char *const path[] = {"#level1", "#host >> iframe.pay"};
	const char *const m[] = {"pay"};
	kn_event in[2] = {
		{.type = KN_EV_CLICK, .url = "http://a/", .selector = "#pay-now", .matched = m, .n_matched = 1,
		 .frame = 1, .frame_url = "http://b/card", .frame_path = path, .n_frame_path = 2, .trusted = 1},
		{.type = KN_EV_CLICK, .url = "http://a/", .selector = "#secret", .shadow_closed = 1, .trusted = 1,
		 .has_box = 1, .box = {12.5, -3, 80, 21}},
	};
	for (int i = 0; i < 2; i++)
		assert_int_equal(kn_traj_write_event(f, &in[i]), 0);
	fclose(f);
	assert_null(strstr(strchr(buf, '\n') + 1, "\"frame\":false")); /* absent when unset */
	kn_traj_header h;
	kn_event *ev;
	size_t n;
	kn_err err = {0};
	assert_int_equal(kn_traj_read_buffer(buf, len, "mem", &h, &ev, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(ev[0].frame, 1);
	assert_string_equal(ev[0].frame_url, "http://b/card");
	assert_int_equal(ev[0].n_frame_path, 2);
	assert_string_equal(ev[0].frame_path[0], "#level1");
	assert_string_equal(ev[0].frame_path[1], "#host >> iframe.pay");
	assert_int_equal(ev[0].n_matched, 1); /* matched and frame_path share storage: both intact */
	assert_string_equal(ev[0].matched[0], "pay");
	assert_int_equal(ev[0].shadow_closed, 0);
	assert_int_equal(ev[1].shadow_closed, 1);
	assert_null(ev[1].frame_path);
	assert_null(ev[1].frame_url);
	assert_int_equal(ev[1].frame, 0);
	assert_int_equal(ev[0].has_box, 0);
	assert_int_equal(ev[1].has_box, 1); /* the acted-on element's box (trace: when the page is gone) */
	assert_double_equal(ev[1].box[0], 12.5, 1e-9);
	assert_double_equal(ev[1].box[1], -3, 1e-9);
	assert_double_equal(ev[1].box[3], 21, 1e-9);
	kn_traj_events_free(ev, n);
	kn_traj_header_clear(&h);
	free(buf);
	expect_read_error(HDR "{\"type\": \"click\", \"frame_path\": \"#f\"}\n", KN_EINVAL,
	                  "run.jsonl:2: field \"frame_path\": expected an array");
	expect_read_error(HDR "{\"type\": \"click\", \"frame_path\": [\"#f\", 3]}\n", KN_EINVAL,
	                  "field \"frame_path\"[1]: expected a non-empty string");
	expect_read_error(HDR "{\"type\": \"click\", \"frame_path\": [\"\"]}\n", KN_EINVAL,
	                  "field \"frame_path\"[0]: expected a non-empty string");
	expect_read_error(HDR "{\"type\": \"click\", \"frame_path\": [\"a\\u0000b\"]}\n", KN_EINVAL,
	                  "\\u0000 is not allowed");
	expect_read_error(HDR "{\"type\": \"click\", \"frame_url\": 1}\n", KN_EINVAL,
	                  "field \"frame_url\": expected a string");
	expect_read_error(HDR "{\"type\": \"click\", \"box\": [1, 2]}\n", KN_EINVAL, "field \"box\": expected an object");
	expect_read_error(HDR "{\"type\": \"click\", \"box\": {\"x\": 1, \"y\": 2, \"width\": 3}}\n", KN_EINVAL,
	                  "field \"box\": \"height\" must be a finite number");
	expect_read_error(HDR "{\"type\": \"click\", \"box\": {\"x\": 1, \"y\": 2, \"width\": -3, \"height\": 1}}\n",
	                  KN_EINVAL, "\"width\" must be a finite number ≥ 0");
	expect_read_error(HDR "{\"type\": \"click\", \"box\": {\"x\": \"1\", \"y\": 2, \"width\": 3, \"height\": 1}}\n",
	                  KN_EINVAL, "\"x\" must be a finite number");
}

static void test_time_rfc3339(void **state)
{
	(void)state;
	char t[KN_TIME_MAX];
	kn_time_rfc3339(t, 0);
	assert_string_equal(t, "1970-01-01T00:00:00Z");
	kn_time_rfc3339(t, 1795489200);
	assert_string_equal(t, "2026-11-24T03:00:00Z");
	kn_time_rfc3339(t, 951868799); /* the last second of a leap day */
	assert_string_equal(t, "2000-02-29T23:59:59Z");
}

static long long ns_of(const struct timespec *t)
{
	return (long long)t->tv_sec * 1000000000LL + t->tv_nsec;
}

/* The deadline lies ms after a reading taken before the call and at most ms after one taken after
 * it, on the clock asked for, with tv_nsec normalised (pthread_cond_timedwait refuses 1e9 or more). */
static void test_time_deadline(void **state)
{
	(void)state;
	static const clockid_t clocks[] = {CLOCK_MONOTONIC, CLOCK_REALTIME};
	static const long mss[] = {0, 1, 999, 1000, 1500, 86400000};
	for (size_t c = 0; c < 2; c++)
		for (size_t i = 0; i < sizeof mss / sizeof *mss; i++) {
			struct timespec before, d, after;
			clock_gettime(clocks[c], &before);
			kn_time_deadline(&d, clocks[c], mss[i]);
			clock_gettime(clocks[c], &after);
			assert_true(d.tv_nsec >= 0 && d.tv_nsec < 1000000000L);
			assert_true(ns_of(&d) >= ns_of(&before) + mss[i] * 1000000LL);
			assert_true(ns_of(&d) <= ns_of(&after) + mss[i] * 1000000LL);
		}
}

/* Navigation causes: one name table; every name parses back to its cause, nothing else parses,
 * and the step rule follows the cause. */
static void test_nav_names(void **state)
{
	(void)state;
	static const char *const want[] = {"goto", "back", "forward", "reload", "link", "form",
	                                   "script", "hash", "history", "redirect", "popup"};
	assert_int_equal(sizeof want / sizeof want[0], KN_NAV__COUNT);
	for (int i = 0; i < KN_NAV__COUNT; i++) {
		kn_nav n = KN_NAV_NONE;
		assert_string_equal(kn_nav_name((kn_nav)i), want[i]);
		assert_int_equal(kn_nav_parse(&n, want[i]), 0);
		assert_int_equal(n, i);
		kn_event ev = {.type = KN_EV_NAVIGATE, .how = want[i]};
		assert_int_equal(kn_event_nav(&ev), i);
		assert_int_equal(kn_event_is_step(&ev), i <= KN_NAV_RELOAD);
	}
	kn_nav n = KN_NAV_GOTO;
	assert_int_equal(kn_nav_parse(&n, "Goto"), KN_EINVAL);
	assert_int_equal(kn_nav_parse(&n, ""), KN_EINVAL);
	assert_int_equal(kn_nav_parse(&n, NULL), KN_EINVAL);
	assert_int_equal(n, KN_NAV_GOTO);
	assert_string_equal(kn_nav_name(KN_NAV_NONE), "");
	assert_string_equal(kn_nav_name(KN_NAV__COUNT), "");
	kn_event none = {.type = KN_EV_NAVIGATE};
	assert_int_equal(kn_event_nav(&none), KN_NAV_NONE);
	assert_int_equal(kn_event_is_step(&none), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_step_rule),
		cmocka_unit_test(test_read_errors),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_time_rfc3339),
		cmocka_unit_test(test_time_deadline),
		cmocka_unit_test(test_frame_fields),
		cmocka_unit_test(test_nav_names),
		cmocka_unit_test(test_human),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
