/* test_agent_proc.c — the agent process group of `keynode run` (services/runner/agent.c): exit codes and
 * signals reported, stdout and stderr both in the log, the log capped while everything printed is
 * counted, the environment passed as given, and a stop that leaves no member of the group alive (also
 * children that ignore SIGTERM or outlive the leader). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "runner.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/kn-test-agent-XXXXXX");
	kn_runner_adopt_orphans();
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static char *envv[] = {(char *)(uintptr_t)"KEYNODE_TASK_ID=t-1", (char *)(uintptr_t)"PATH=/usr/bin:/bin", NULL};

/* Run cmd until it exits (or limit_ms, then stop it); the report and the log's text. */
static void run(const char *cmd, size_t cap, int limit_ms, kn_attempt_report *rep, char *log, size_t logcap)
{
	char path[128];
	snprintf(path, sizeof path, "%s/agent.log", dir);
	kn_agent_proc *a = NULL;
	kn_err err = {0};
	assert_int_equal(kn_agent_start(&a, cmd, envv, path, cap, &err), 0);
	for (int waited = 0; waited < limit_ms && !kn_agent_exited(a); waited += 10) {
		struct timespec ts = {0, 10 * 1000000L};
		nanosleep(&ts, NULL);
	}
	memset(rep, 0, sizeof *rep);
	kn_agent_stop(a, 500, rep);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	size_t n = fread(log, 1, logcap - 1, f);
	log[n] = '\0';
	fclose(f);
}

static void test_exit_and_output(void **state)
{
	(void)state;
	kn_attempt_report rep;
	char log[256];
	run("echo out; echo err >&2; echo \"$KEYNODE_TASK_ID\"; exit 5", 1024, 5000, &rep, log, sizeof log);
	assert_int_equal(rep.exit_code, 5);
	assert_int_equal(rep.exit_signal, 0);
	assert_non_null(strstr(log, "out\n"));
	assert_non_null(strstr(log, "err\n"));
	assert_non_null(strstr(log, "t-1\n"));
	assert_int_equal(rep.log_truncated, 0);
}

static void test_stdin_closed(void **state)
{
	(void)state;
	kn_attempt_report rep;
	char log[256];
	run("cat; echo eof", 1024, 5000, &rep, log, sizeof log); /* cat returns at once on /dev/null */
	assert_int_equal(rep.exit_code, 0);
	assert_string_equal(log, "eof\n");
}

static void test_log_cap(void **state)
{
	(void)state;
	kn_attempt_report rep;
	static char log[4096];
	run("head -c 200000 /dev/zero | tr '\\0' x", 1000, 10000, &rep, log, sizeof log);
	assert_int_equal(rep.exit_code, 0);
	assert_int_equal(rep.log_bytes, 200000);
	assert_int_equal(rep.log_truncated, 1);
	assert_int_equal(strspn(log, "x"), 1000);
	assert_non_null(strstr(log, "cut at 1000 bytes of 200000"));
}

static void test_stop_group(void **state)
{
	(void)state;
	kn_attempt_report rep;
	char log[256], pids[128];
	snprintf(pids, sizeof pids, "%s/pids", dir);
	char cmd[512];
	/* a child ignoring SIGTERM, a grandchild, and a leader that hangs: all must be gone after stop */
	snprintf(cmd, sizeof cmd,
	         "(trap '' TERM; while :; do sleep 1; done) & echo $! >>%s; "
	         "(sleep 1000 & echo $! >>%s; wait) & exec sleep 1000", pids, pids);
	run(cmd, 1024, 300, &rep, log, sizeof log);
	assert_int_equal(rep.exit_signal, SIGTERM);
	FILE *f = fopen(pids, "r");
	assert_non_null(f);
	int pid, n = 0;
	while (fscanf(f, "%d", &pid) == 1) {
		n++;
		errno = 0;
		assert_int_equal(kill(pid, 0), -1); /* reaped: no such process */
		assert_int_equal(errno, ESRCH);
	}
	fclose(f);
	assert_int_equal(n, 2);
}

static void test_not_found(void **state)
{
	(void)state;
	kn_attempt_report rep;
	char log[512];
	run("/nonexistent/agent --x", 1024, 5000, &rep, log, sizeof log);
	assert_int_equal(rep.exit_code, 127);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_and_output), cmocka_unit_test(test_stdin_closed),
		cmocka_unit_test(test_log_cap), cmocka_unit_test(test_stop_group),
		cmocka_unit_test(test_not_found),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
