/* test_log.c — services/log: the one log line. Lines are read back from stderr (redirected to a
 * temporary file): the head, msg quoting, control characters, NULL parts, a line cut at the limit
 * (marked, never half a UTF-8 character), kn_log_quote, kn_log_msgf, lws lines and lws's hook (one,
 * component=lws; a capture keeps the error of its own thread only), the level filter (KEYNODE_LOG,
 * which main sets to warn before the first line, then kn_log_set_level) and the readable line on a
 * terminal (a pseudo-terminal as stderr). */
#define _XOPEN_SOURCE 700 /* posix_openpt, ptsname */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <fcntl.h>
#include <pthread.h>

#include <libwebsockets.h>

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

/* runs first: main set KEYNODE_LOG=warn, read at the first line */
static void lines_env(void)
{
	kn_log("info", "t", "msg=\"hidden\"");
	kn_log_msg("debug", "t", "hidden", NULL);
	kn_log_msg("warn", "t", "shown", NULL);
	kn_log_msgf("error", "t", "shown %d", 2);
}

static void test_level_env(void **state)
{
	(void)state;
	char *out = capture(lines_env);
	assert_string_equal(out, "level=warn component=t msg=\"shown\"\nlevel=error component=t msg=\"shown 2\"\n");
	free(out);
	assert_false(kn_log_enabled("info"));
	assert_true(kn_log_enabled("warn"));
	assert_true(kn_log_enabled("fatal")); /* unknown: as error */
	assert_int_equal(kn_log_set_level("loud"), KN_EINVAL);
	assert_false(kn_log_enabled("info")); /* unchanged */
	assert_int_equal(kn_log_set_level("debug"), 0);
	assert_true(kn_log_enabled("debug"));
	assert_int_equal(kn_log_set_level("info"), 0); /* for the tests after this one */
	assert_false(kn_log_enabled("debug"));
	assert_true(kn_log_enabled(NULL)); /* NULL is info */
}

static void lines_msgf(void)
{
	kn_log_msgf("warn", "llm", "llm %s: \"%s\"\nretry %d", "m", "busy", 2);
	kn_log_msg("debug", "t", "not at info", NULL);
}

static void test_msgf(void **state)
{
	(void)state;
	char *out = capture(lines_msgf);
	assert_string_equal(out, "level=warn component=llm msg=\"llm m: 'busy' retry 2\"\n");
	free(out);
}

static void lines_hook(void)
{
	kn_log_lws_hook();
	kn_log_lws_hook(); /* once */
	lwsl_err("first error\n");
	lwsl_warn("a warning\n");
}

static void *other_thread(void *p)
{
	(void)p;
	lwsl_err("from another thread\n");
	return NULL;
}

static void lines_capture(void)
{
	char kept[64] = "stale";
	kn_log_lws_capture(kept, sizeof kept);
	assert_string_equal(kept, "");
	lwsl_warn("dropped\n");
	lwsl_err("bind failed\n");
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, other_thread, NULL), 0);
	pthread_join(th, NULL);
	kn_log_lws_capture(NULL, 0);
	assert_string_equal(kept, "bind failed");
	lwsl_err("after\n");
}

static void test_lws_hook(void **state)
{
	(void)state;
	char *out = capture(lines_hook);
	assert_non_null(strstr(out, "level=error component=lws msg=\""));
	assert_non_null(strstr(out, "first error\"\n"));
	assert_non_null(strstr(out, "level=warn component=lws msg=\""));
	assert_non_null(strstr(out, "a warning\"\n"));
	free(out);
	out = capture(lines_capture);
	assert_null(strstr(out, "dropped"));
	assert_null(strstr(out, "bind failed"));
	assert_non_null(strstr(out, "from another thread\"\n")); /* not captured: another thread */
	assert_non_null(strstr(out, "after\"\n"));
	free(out);
}

static void test_terminal(void **state)
{
	(void)state;
	int master = posix_openpt(O_RDWR | O_NOCTTY);
	assert_true(master >= 0);
	assert_int_equal(grantpt(master), 0);
	assert_int_equal(unlockpt(master), 0);
	int slave = open(ptsname(master), O_RDWR | O_NOCTTY);
	assert_true(slave >= 0);
	fflush(stderr);
	int saved = dup(fileno(stderr));
	assert_true(dup2(slave, fileno(stderr)) >= 0);
	kn_log_msg("warn", "alerts", "he said \"no\"", "id=%d tab=%s", 7, "t1");
	kn_log("info", "x", "run=5 msg=\"started\" n=1");
	kn_log("error", "y", "no message here");
	fflush(stderr);
	assert_true(dup2(saved, fileno(stderr)) >= 0);
	close(saved);
	close(slave);
	char buf[1024];
	size_t n = 0;
	while (n < sizeof buf - 1) { /* the three lines, \r\n each */
		ssize_t r = read(master, buf + n, sizeof buf - 1 - n);
		if (r <= 0)
			break;
		n += (size_t)r;
		buf[n] = '\0';
		int lines = 0;
		for (char *p = buf; (p = strchr(p, '\n')); p++)
			lines++;
		if (lines == 3)
			break;
	}
	buf[n] = '\0';
	close(master);
	/* HH:MM:SS, then the rest */
	char *l1 = buf, *l2 = strchr(l1, '\n') + 1, *l3 = strchr(l2, '\n') + 1;
	assert_true(l1[2] == ':' && l1[5] == ':' && l1[8] == ' ');
	assert_memory_equal(l1 + 9, "WARN  alerts   he said 'no'  id=7 tab=t1\r\n", 42);
	assert_memory_equal(l2 + 9, "INFO  x        started  run=5 n=1\r\n", 35);
	assert_memory_equal(l3 + 9, "ERROR y        no message here\r\n", 32);
}

int main(void)
{
	setenv("KEYNODE_LOG", "warn", 1); /* read at the first line (test_level_env) */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_level_env),
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_cut),
		cmocka_unit_test(test_quote),
		cmocka_unit_test(test_lws),
		cmocka_unit_test(test_msgf),
		cmocka_unit_test(test_lws_hook),
		cmocka_unit_test(test_terminal),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
