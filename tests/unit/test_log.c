/* test_log.c — services/log: the one log line. Lines are read back from stderr (redirected to a
 * temporary file): the head, msg quoting, control characters, NULL parts, a line cut at the limit
 * (marked, never half a UTF-8 character), kn_log_quote and lws lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "log.h"

/* Run FN with stderr going to a file; return what it wrote (malloc'd). */
static char *capture(void (*fn)(void))
{
	fflush(stderr);
	int saved = dup(fileno(stderr));
	FILE *f = tmpfile();
	assert_non_null(f);
	assert_true(dup2(fileno(f), fileno(stderr)) >= 0);
	fn();
	fflush(stderr);
	assert_true(dup2(saved, fileno(stderr)) >= 0);
	close(saved);
	off_t n = lseek(fileno(f), 0, SEEK_END);
	assert_true(n >= 0);
	char *buf = calloc(1, (size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(pread(fileno(f), buf, (size_t)n, 0), n);
	fclose(f);
	return buf;
}

static void lines_basic(void)
{
	kn_log("info", "monitor", "msg=\"key node reached\" node=%s", "k2");
	kn_log_msg("warn", "alerts", "he said \"no\"\nthen left", "id=%d", 7);
	kn_log_msg("error", "llm", "plain", NULL);
	kn_log(NULL, NULL, NULL);
	kn_log("info", "x", "tab\there");
}

static void test_lines(void **state)
{
	(void)state;
	char *out = capture(lines_basic);
	assert_string_equal(out, "level=info component=monitor msg=\"key node reached\" node=k2\n"
	                         "level=warn component=alerts msg=\"he said 'no' then left\" id=7\n"
	                         "level=error component=llm msg=\"plain\"\n"
	                         "level=info component=keynode\n"
	                         "level=info component=x tab here\n");
	free(out);
}

static void lines_long(void)
{
	char big[3 * KN_LOG_LINE_MAX];
	size_t n = 0;
	while (n + 2 < sizeof big - 1) { /* "é" over and over: a cut falls inside one sooner or later */
		big[n++] = '\xC3';
		big[n++] = '\xA9';
	}
	big[n] = '\0';
	kn_log_msg("info", "t", big, NULL);
	kn_log("info", "t", "a%sb", big + 1); /* starts with a continuation byte: still cut cleanly */
}

static void test_cut(void **state)
{
	(void)state;
	char *out = capture(lines_long);
	char *nl = strchr(out, '\n');
	assert_non_null(nl);
	size_t len = (size_t)(nl - out);
	assert_true(len <= KN_LOG_LINE_MAX + 3);
	assert_memory_equal(nl - 3, "\xe2\x80\xa6", 3); /* the cut is marked */
	/* every é before the mark is whole */
	const char *p = strstr(out, "msg=\"") + 5;
	while (p < nl - 3) {
		assert_true((unsigned char)p[0] == 0xC3 && (unsigned char)p[1] == 0xA9);
		p += 2;
	}
	assert_ptr_equal(p, nl - 3);
	char *second = nl + 1;
	assert_non_null(strchr(second, '\n'));
	assert_null(strchr(strchr(second, '\n') + 1, '\n')); /* two lines, no more */
	free(out);
}

static void test_quote(void **state)
{
	(void)state;
	char q[8];
	assert_string_equal(kn_log_quote(q, sizeof q, "a\"b\nc"), "a'b c");
	assert_string_equal(kn_log_quote(q, sizeof q, NULL), "");
	assert_string_equal(kn_log_quote(q, sizeof q, "0123456789"), "0123456");
	assert_string_equal(kn_log_quote(q, 1, "abc"), "");
}

static void lines_lws(void)
{
	kn_log_lws("cdp", 1, "lws_client_handshake: got bad HTTP response '404'\n");
	kn_log_lws("lws", 0, "a \"quoted\" word  \r\n");
	kn_log_lws("lws", 0, NULL);
}

static void test_lws(void **state)
{
	(void)state;
	char *out = capture(lines_lws);
	assert_string_equal(out, "level=error component=cdp msg=\"lws_client_handshake: got bad HTTP response '404'\"\n"
	                         "level=warn component=lws msg=\"a 'quoted' word\"\n"
	                         "level=warn component=lws msg=\"\"\n");
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_cut),
		cmocka_unit_test(test_quote),
		cmocka_unit_test(test_lws),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
