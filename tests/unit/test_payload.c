/* test_payload.c — the monitor's page boundary: recorder payload decoding (only the recorder's
 * actions; navigations, answers and tabs cannot be claimed by a page; size cap) and the recorder
 * source built for a task (binding and element key nodes filled in, nothing else). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "monitor.h"

static int decode(const char *p, kn_event *ev, kn_err *err)
{
	return kn_monitor_decode_payload(ev, p, strlen(p), err);
}

static void test_accepts_actions(void **state)
{
	(void)state;
	kn_event ev;
	kn_err err = {0};
	assert_int_equal(decode("{\"type\":\"click\",\"selector\":\"#add\",\"text\":\"Add\",\"value\":null,"
	                        "\"key\":null,\"url\":\"http://h/p\",\"trusted\":true,\"matched\":[\"k1\",\"k3\"],"
	                        "\"frame\":false,\"t\":1795396154000,\"hints\":{\"tag\":\"button\"}}", &ev, &err), 0);
	assert_int_equal(ev.type, KN_EV_CLICK);
	assert_string_equal(ev.selector, "#add");
	assert_string_equal(ev.url, "http://h/p");
	assert_int_equal(ev.n_matched, 2);
	assert_string_equal(ev.matched[1], "k3");
	assert_int_equal(ev.trusted, 1);
	assert_int_equal(ev.frame, 0);
	assert_null(ev.tab);
	assert_true(ev.t == 0); /* the page's clock is not the run's */
	kn_event_clear(&ev);
	const char *ok[] = {"type", "select", "submit", "press", "scroll", "hover"};
	for (size_t i = 0; i < 6; i++) {
		char p[128];
		snprintf(p, sizeof p, "{\"type\":\"%s\",\"frame\":true,\"how\":\"goto\",\"tab\":\"T9\"}", ok[i]);
		assert_int_equal(decode(p, &ev, &err), 0);
		assert_int_equal(ev.frame, 1);
		assert_null(ev.how); /* causes and tabs come from the browser, not the page */
		assert_null(ev.tab);
		kn_event_clear(&ev);
	}
}

static void test_refuses(void **state)
{
	(void)state;
	kn_event ev;
	kn_err err = {0};
	const char *bad[] = {
		"{\"type\":\"navigate\",\"url\":\"http://evil/\",\"how\":\"goto\"}",
		"{\"type\":\"answer\",\"text\":\"42\"}",
		"{\"type\":\"tab_open\"}",
		"{\"type\":\"tab_close\"}",
		"{\"type\":\"teleport\"}",
		"{\"type\":\"dialog\",\"key\":\"alert\"}",
		"{\"selector\":\"#a\"}",
		"{\"type\":\"click\",\"matched\":\"k1\"}",
		"{\"type\":\"click\",\"selector\":5}",
		"[1,2]",
		"\"click\"",
		"{\"type\":\"click\",",
		"",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		err.msg[0] = '\0';
		int rc = decode(bad[i], &ev, &err);
		if (rc == 0 || !err.msg[0])
			fail_msg("accepted or silent on %s", bad[i]);
	}
	size_t big = 300 * 1024;
	char *p = malloc(big + 64);
	assert_non_null(p);
	strcpy(p, "{\"type\":\"type\",\"value\":\"");
	memset(p + strlen(p), 'x', big);
	strcpy(p + 24 + big, "\"}");
	assert_int_equal(kn_monitor_decode_payload(&ev, p, strlen(p), &err), KN_ELIMIT);
	free(p);
}

static void test_recorder_source(void **state)
{
	(void)state;
	const char *doc =
		"[{\"index\": 1, \"task\": \"t\", \"evaluation\": ["
		"{\"match_function_name\": \"url_included_match\", \"content\": {\"key\": \"\", \"reference_answer\": \"/x\"}},"
		"{\"match_function_name\": \"element_path_exactly_match\", \"method\": \"xpath\", \"content\": {\"reference_answer\": \"//button[1]\", \"netloc\": \"shop\"}},"
		"{\"match_function_name\": \"element_value_exactly_match\", \"content\": {\"reference_answer\": \"9\", \"path\": \"#size \"}}]}]";
	kn_taskset *set;
	kn_err err = {0};
	assert_int_equal(kn_taskset_load_buffer(&set, doc, strlen(doc), "t.json", NULL, &err), 0);
	char *src = NULL;
	assert_int_equal(kn_monitor_recorder_source(&src, &set->tasks[0], "kn_b_0123", 0), 0);
	assert_null(strstr(src, "__KN_CONFIG__"));
	assert_non_null(strstr(src, "\"binding\":\"kn_b_0123\""));
	assert_non_null(strstr(src, "{\"id\":\"k2\",\"target\":\"element_path\",\"selector\":\"//button[1]\",\"xpath\":true,\"netloc\":\"shop\",\"include\":false}"));
	assert_non_null(strstr(src, "{\"id\":\"k3\",\"target\":\"element_value\",\"selector\":\"#size \""));
	assert_null(strstr(src, "\"id\":\"k1\"")); /* URL nodes are not the page's business */
	assert_non_null(strstr(src, "\"shows\":false"));
	free(src);
	/* keynode record's recorder: its payloads say what the page showed */
	assert_int_equal(kn_monitor_recorder_source(&src, &set->tasks[0], "kn_b_0123", 1), 0);
	assert_non_null(strstr(src, "\"shows\":true"));
	free(src);
	kn_taskset_free(set);
}

/* Frame fields come from the monitor, never from a payload; the action time and a new-tab link are read
 * apart (kn_monitor_payload_meta), from well-formed payloads only. */
static void test_frame_fields_and_meta(void **state)
{
	(void)state;
	kn_event ev;
	kn_err err = {0};
	const char *p = "{\"type\":\"click\",\"selector\":\"#story\",\"url\":\"http://h/\",\"frame\":true,"
	                "\"frame_url\":\"http://evil/\",\"frame_path\":[\"#x\"],\"shadow_closed\":true,"
	                "\"newtab\":true,\"t\":1795396154000.5,\"hints\":{\"href\":\"http://h/story\"}}";
	assert_int_equal(decode(p, &ev, &err), 0);
	assert_null(ev.frame_url);
	assert_null(ev.frame_path);
	assert_int_equal(ev.n_frame_path, 0);
	assert_int_equal(ev.frame, 1);
	assert_int_equal(ev.shadow_closed, 1);
	kn_event_clear(&ev);
	double t;
	char *href;
	kn_monitor_payload_meta(p, strlen(p), &t, &href);
	assert_true(t == 1795396154000.5);
	assert_non_null(href);
	assert_string_equal(href, "http://h/story");
	free(href);
	const char *odd[] = {"{\"t\":-5,\"newtab\":true}", "{\"t\":\"soon\",\"newtab\":1,\"hints\":{\"href\":\"x\"}}",
	                     "{\"newtab\":true,\"hints\":{\"href\":7}}", "not json", "[1]", "{\"t\":1e300}"};
	for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++) {
		kn_monitor_payload_meta(odd[i], strlen(odd[i]), &t, &href);
		assert_true(t == 0);
		assert_null(href);
	}
}

/* Why a run ended: one name table, the names users see, each parsing back to its reason. */
static void test_end_names(void **state)
{
	(void)state;
	static const struct { kn_end e; const char *name; } want[] = {
		{KN_END_STOPPED, "stopped"}, {KN_END_FINISHED, "finished"}, {KN_END_STEPS, "steps"},
		{KN_END_STEP_LIMIT, "step limit"}, {KN_END_IDLE, "idle"},
		{KN_END_BROWSER_GONE, "browser disconnected"}};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		kn_end e = KN_END_STOPPED;
		assert_string_equal(kn_end_name(want[i].e), want[i].name);
		assert_int_equal(kn_end_parse(&e, want[i].name), 0);
		assert_int_equal(e, want[i].e);
	}
	kn_end e = KN_END_IDLE;
	assert_int_equal(kn_end_parse(&e, "step_limit"), KN_EINVAL);
	assert_int_equal(kn_end_parse(&e, "browser gone"), KN_EINVAL);
	assert_int_equal(kn_end_parse(&e, NULL), KN_EINVAL);
	assert_int_equal(e, KN_END_IDLE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_accepts_actions),
		cmocka_unit_test(test_refuses),
		cmocka_unit_test(test_recorder_source),
		cmocka_unit_test(test_frame_fields_and_meta),
		cmocka_unit_test(test_end_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
