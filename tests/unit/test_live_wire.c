/* test_live_wire.c — the live view's messages (services/live/live_wire.h): every viewer
 * message shape accepted, malformed ones refused with what was wrong (never a crash); the down and
 * up NOTIFY payloads formatted and parsed back; frame pieces and runs out of range refused. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "live_wire.h"

static kn_live_input ok(const char *msg)
{
	kn_live_input in;
	kn_err err = {0};
	if (kn_live_viewer_parse(&in, msg, strlen(msg), &err) != 0) {
		print_error("%s: %s\n", msg, err.msg);
		fail();
	}
	return in;
}

static void bad(const char *msg, size_t len, const char *want)
{
	kn_live_input in;
	kn_err err = {0};
	int rc = kn_live_viewer_parse(&in, msg, len, &err);
	if (rc != KN_EINVAL || !strstr(err.msg, want) || in.kind != 0) {
		print_error("<%.*s>: want '%s', got %d '%s'\n", (int)len, msg ? msg : "", want, rc, err.msg);
		fail();
	}
}
#define BAD(s, want) bad(s, strlen(s), want)

static void test_viewer_good(void **state)
{
	(void)state;
	assert_int_equal(ok("{\"type\":\"take\"}").kind, KN_LIVE_TAKE);
	assert_int_equal(ok("{\"type\":\"release\"}").kind, KN_LIVE_RELEASE);
	kn_live_input c = ok("{\"type\":\"click\",\"x\":10.5,\"y\":0}");
	assert_int_equal(c.kind, KN_LIVE_CLICK);
	assert_true(c.x == 10.5 && c.y == 0 && c.count == 1);
	assert_string_equal(c.button, "left");
	c = ok("{\"type\":\"click\",\"x\":1,\"y\":2,\"button\":\"right\",\"count\":3}");
	assert_string_equal(c.button, "right");
	assert_int_equal(c.count, 3);
	kn_live_input w = ok("{\"type\":\"wheel\",\"x\":1,\"y\":2,\"dx\":0,\"dy\":-120}");
	assert_true(w.kind == KN_LIVE_WHEEL && w.dy == -120);
	kn_live_input k = ok("{\"type\":\"key\",\"key\":\"Enter\"}");
	assert_string_equal(k.key, "Enter");
	kn_live_input t = ok("{\"type\":\"text\",\"text\":\"héllo wörld\"}");
	assert_string_equal(t.text, "héllo wörld");
	const char *code = NULL;
	assert_int_equal(kn_live_key_code("ArrowDown", &code), 40);
	assert_string_equal(code, "ArrowDown");
	assert_int_equal(kn_live_key_code("F5", NULL), 0);
}

static void test_viewer_bad(void **state)
{
	(void)state;
	bad(NULL, 0, "1 to");
	bad("", 0, "1 to");
	bad("{\"type\":\"take\"}\0x", 17, "1 to");
	BAD("[1]", "not a JSON object");
	BAD("{\"type\":", "not a JSON object");
	BAD("{\"type\":\"take\",\"type\":\"release\"}", "not a JSON object"); /* duplicate key */
	BAD("{}", "'type' must be a string");
	BAD("{\"type\":7}", "'type' must be a string");
	BAD("{\"type\":\"navigate\"}", "unknown type");
	BAD("{\"type\":\"take\",\"run\":\"x\"}", "unknown member 'run'");
	BAD("{\"type\":\"click\",\"x\":1}", "'y' must be a number");
	BAD("{\"type\":\"click\",\"x\":\"1\",\"y\":1}", "'x' must be a number");
	BAD("{\"type\":\"click\",\"x\":-1,\"y\":1}", "'x' out of range");
	BAD("{\"type\":\"click\",\"x\":1,\"y\":100001}", "'y' out of range");
	BAD("{\"type\":\"click\",\"x\":1,\"y\":1,\"button\":\"back\"}", "'button'");
	BAD("{\"type\":\"click\",\"x\":1,\"y\":1,\"count\":4}", "'count'");
	BAD("{\"type\":\"click\",\"x\":1,\"y\":1,\"count\":1.5}", "'count'");
	BAD("{\"type\":\"wheel\",\"x\":1,\"y\":1,\"dx\":0,\"dy\":10001}", "'dy' out of range");
	BAD("{\"type\":\"key\",\"key\":\"F12\"}", "'key'");
	BAD("{\"type\":\"key\"}", "'key'");
	BAD("{\"type\":\"text\",\"text\":\"\"}", "'text'");
	BAD("{\"type\":\"text\",\"text\":\"a\\u0000b\"}", "not a JSON object"); /* jansson refuses NUL */
	BAD("{\"type\":\"text\",\"text\":\"line\\nbreak\"}", "'text'");
	char big[KN_LIVE_TEXT_MAX + 40];
	int n = snprintf(big, sizeof big, "{\"type\":\"text\",\"text\":\"");
	memset(big + n, 'a', KN_LIVE_TEXT_MAX + 1);
	strcpy(big + n + KN_LIVE_TEXT_MAX + 1, "\"}");
	BAD(big, "'text'");
	char huge[KN_LIVE_VIEWER_MAX + 2];
	memset(huge, ' ', sizeof huge);
	bad(huge, sizeof huge, "1 to");
}

static void test_down_roundtrip(void **state)
{
	(void)state;
	char buf[KN_LIVE_PAYLOAD_MAX + 1];
	kn_live_msg m;
	kn_err err = {0};
	assert_int_equal(kn_live_down_format(buf, sizeof buf, KN_LIVE_MSG_WATCH, "replay-a-1", NULL), 0);
	assert_string_equal(buf, "watch replay-a-1");
	assert_int_equal(kn_live_msg_parse(&m, buf, strlen(buf), &err), 0);
	assert_int_equal(m.kind, KN_LIVE_MSG_WATCH);
	assert_string_equal(m.run, "replay-a-1");
	kn_live_input in = ok("{\"type\":\"text\",\"text\":\"hi \\\"there\\\"\"}");
	assert_int_equal(kn_live_down_format(buf, sizeof buf, KN_LIVE_MSG_INPUT, "r:1", &in), 0);
	assert_int_equal(kn_live_msg_parse(&m, buf, strlen(buf), &err), 0);
	assert_int_equal(m.kind, KN_LIVE_MSG_INPUT);
	assert_string_equal(m.input.text, "hi \"there\"");
	assert_int_equal(kn_live_down_format(buf, sizeof buf, KN_LIVE_MSG_WATCH, "bad run", NULL), KN_EINVAL);
	assert_int_equal(kn_live_down_format(buf, sizeof buf, KN_LIVE_MSG_INPUT, "r", NULL), KN_EINVAL);
	assert_int_equal(kn_live_down_format(buf, 8, KN_LIVE_MSG_WATCH, "replay-a-1", NULL), KN_ELIMIT);
}

static void parse_bad(const char *p, const char *want)
{
	kn_live_msg m;
	kn_err err = {0};
	int rc = kn_live_msg_parse(&m, p, strlen(p), &err);
	if (rc != KN_EINVAL || !strstr(err.msg, want)) {
		print_error("<%s>: want '%s', got %d '%s'\n", p, want, rc, err.msg);
		fail();
	}
}

static void test_up(void **state)
{
	(void)state;
	kn_live_msg m;
	kn_err err = {0};
	const char *st = "status r1\n{\"type\":\"live\",\"run\":\"r1\"}";
	assert_int_equal(kn_live_msg_parse(&m, st, strlen(st), &err), 0);
	assert_int_equal(m.kind, KN_LIVE_MSG_STATUS);
	assert_string_equal(m.json, "{\"type\":\"live\",\"run\":\"r1\"}");
	const char *fr = "frame r1 7 1 3 1280 720\nQUJD+/==";
	assert_int_equal(kn_live_msg_parse(&m, fr, strlen(fr), &err), 0);
	assert_true(m.kind == KN_LIVE_MSG_FRAME && m.seq == 7 && m.piece == 1 && m.pieces == 3 && m.w == 1280 &&
	            m.h == 720 && m.data_len == 8 && memcmp(m.data, "QUJD+/==", 8) == 0);
	parse_bad("", "1 to");
	parse_bad("watch", "no kind");
	parse_bad("peek r1", "unknown kind");
	parse_bad("watch ", "bad run");
	parse_bad("watch r/1", "bad run");
	parse_bad("watch r1 extra", "trailing");
	parse_bad("status r1", "no message");
	parse_bad("status r1\n[1]", "not a JSON object");
	parse_bad("input r1\n{\"type\":\"take\"}", "not an input");
	parse_bad("input r1\n{\"type\":\"click\"}", "'x'");
	parse_bad("frame r1", "no header");
	parse_bad("frame r1 7 3 3 10 10\nQQ==", "out of range");   /* piece ≥ pieces */
	parse_bad("frame r1 7 0 65 10 10\nQQ==", "out of range");  /* too many pieces */
	parse_bad("frame r1 7 0 1 0 10\nQQ==", "out of range");    /* no width */
	parse_bad("frame r1 7 0 1 10 10\n", "bad data");
	parse_bad("frame r1 7 0 1 10 10\nQQ <", "bad data");
	parse_bad("frame r1 12345678901 0 1 10 10\nQQ==", "bad header");
	parse_bad("frame r1 -1 0 1 10 10\nQQ==", "bad header");
	char run[KN_LIVE_RUN_MAX + 20] = "watch ";
	memset(run + 6, 'a', KN_LIVE_RUN_MAX + 1);
	run[6 + KN_LIVE_RUN_MAX + 1] = '\0';
	parse_bad(run, "bad run");
}

/* Serve's check before a take goes down: the holder's last state decides. */
static void test_take_refusal(void **state)
{
	(void)state;
	const char *why = "x";
	assert_int_equal(kn_live_take_refusal("{\"type\":\"live\",\"state\":\"running\",\"takeable\":true,\"kind\":\"replay\"}", &why), 0);
	assert_null(why);
	assert_int_equal(kn_live_take_refusal("{\"state\":\"held\",\"takeable\":true,\"kind\":\"attempt\"}", &why), 0);
	struct { const char *status, *want; } no[] = {
		{NULL, "not live"},
		{"", "not live"},
		{"[1]", "not live"},
		{"{\"state\":\"running\"}", "not live"},
		{"{\"state\":\"running\",\"takeable\":1}", "not live"},
		{"{\"takeable\":true}", "not live"},
		{"{\"state\":\"ended\",\"takeable\":true}", "ended"},
		{"{\"state\":\"running\",\"takeable\":false,\"kind\":\"run\"}", "cannot be taken over: an agent drives it"},
		{"{\"state\":\"running\",\"takeable\":false}", "cannot be taken over"},
		{"{\"state\":\"running\",\"takeable\":false,\"kind\":\"attempt\"}", "only while its site blocks it"},
	};
	for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
		why = NULL;
		assert_int_equal(kn_live_take_refusal(no[i].status, &why), 409);
		assert_non_null(why);
		if (!strstr(why, no[i].want))
			fail_msg("%s: got '%s', want '%s'", no[i].status ? no[i].status : "NULL", why, no[i].want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_viewer_good),
		cmocka_unit_test(test_viewer_bad),
		cmocka_unit_test(test_down_roundtrip),
		cmocka_unit_test(test_up),
		cmocka_unit_test(test_take_refusal),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
