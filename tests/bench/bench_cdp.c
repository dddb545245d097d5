/* bench_cdp.c — throughput of the CDP client against a real headless Chromium: events/s through
 * on_event while a page calls a Runtime binding as fast as it can (200,000 calls, ~150-byte
 * payloads, the recorder's shape), the same for console.log (Runtime.consoleAPICalled, heavier
 * messages), and round trips/s for pipelined Runtime.evaluate (20,000 commands, 256 in flight).
 * Reported per wall second and per CPU second of this process (the browser runs on the same 2
 * cores, so the wall figure is the end-to-end rate and the CPU figure the client's own cost).
 * Starts its own Chromium (flags as in docs/development.md; KN_CHROMIUM overrides the binary) unless
 * --browser names an endpoint, and always kills it.
 * usage: bench_cdp [--browser ENDPOINT] [RESULT_FILE]   (appends one line to RESULT_FILE) */
#define _GNU_SOURCE /* nftw's FTW_DEPTH/FTW_PHYS */
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cdp.h"

#define BINDING_CALLS 200000
#define CONSOLE_CALLS 50000
#define RT_TOTAL 20000
#define RT_WINDOW 256

static double now(clockid_t clk)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

typedef struct bench {
	kn_cdp_loop *loop;
	kn_cdp *c;
	char sid[64];
	long long bindings, consoles;
	long long rt_sent, rt_done, rt_failed;
	int closed;
} bench;

static void on_event(void *ud, kn_cdp *c, const char *method, const char *session_id,
                     json_t *params)
{
	(void)c;
	(void)session_id;
	bench *b = ud;
	if (!strcmp(method, "Runtime.bindingCalled")) {
		if (json_string_value(json_object_get(params, "payload")))
			b->bindings++;
	} else if (!strcmp(method, "Runtime.consoleAPICalled"))
		b->consoles++;
}

static void on_close(void *ud, kn_cdp *c, const char *reason)
{
	(void)c;
	fprintf(stderr, "bench_cdp: connection closed: %s\n", reason);
	((bench *)ud)->closed = 1;
}

static void on_warning(void *ud, kn_cdp *c, const char *what)
{
	(void)ud;
	(void)c;
	fprintf(stderr, "bench_cdp: %s\n", what);
}

static int call(bench *b, const char *sid, const char *method, json_t *params, json_t **out)
{
	kn_err err;
	int rc = kn_cdp_call(b->c, sid, method, params, out, &err);
	if (rc)
		fprintf(stderr, "bench_cdp: %s\n", err.msg);
	return rc;
}

/* Serve until *count reaches want (or the connection dies / 120 s pass). */
static int wait_count(bench *b, const long long *count, long long want)
{
	double t0 = now(CLOCK_MONOTONIC);
	while (*count < want && !b->closed && now(CLOCK_MONOTONIC) - t0 < 120)
		kn_cdp_loop_run_for(b->loop, 100);
	return *count >= want;
}

static void on_rt_reply(void *ud, kn_cdp *c, json_t *result, const char *error);

static void rt_send(bench *b)
{
	if (kn_cdp_send(b->c, b->sid, "Runtime.evaluate", json_pack("{s:s}", "expression", "1"),
	                on_rt_reply, b) > 0)
		b->rt_sent++;
	else
		b->rt_failed++;
}

static void on_rt_reply(void *ud, kn_cdp *c, json_t *result, const char *error)
{
	(void)c;
	(void)result;
	bench *b = ud;
	b->rt_done++;
	if (error)
		b->rt_failed++;
	if (b->rt_sent < RT_TOTAL)
		rt_send(b);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* Start Chromium with a fresh user-data-dir; its DevToolsActivePort path in port_file. */
static pid_t start_browser(char *udd, char *port_file, size_t n)
{
	const char *bin = getenv("KN_CHROMIUM") ? getenv("KN_CHROMIUM") : "/usr/lib/chromium/chromium";
	strcpy(udd, "/tmp/kn-bench-cdp-XXXXXX");
	if (!mkdtemp(udd))
		return -1;
	snprintf(port_file, n, "%s/DevToolsActivePort", udd);
	char dir_arg[128];
	snprintf(dir_arg, sizeof dir_arg, "--user-data-dir=%s", udd);
	pid_t pid = fork();
	if (pid == 0) {
		setsid();
		int devnull = open("/dev/null", O_WRONLY);
		if (devnull >= 0) {
			dup2(devnull, 1);
			dup2(devnull, 2);
		}
		execl(bin, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		      "--no-first-run", "--disable-background-networking", "--disable-component-update",
		      "--disable-sync", dir_arg, "--remote-debugging-port=0", "about:blank", (char *)NULL);
		_exit(127);
	}
	return pid;
}

int main(int argc, char **argv)
{
	const char *endpoint = NULL, *result_file = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--browser") && i + 1 < argc)
			endpoint = argv[++i];
		else if (argv[i][0] == '-') {
			fprintf(stderr, "usage: bench_cdp [--browser ENDPOINT] [RESULT_FILE]\n");
			return 2;
		} else
			result_file = argv[i];
	}
	char udd[64] = "", port_file[128];
	pid_t pid = -1;
	if (!endpoint) {
		pid = start_browser(udd, port_file, sizeof port_file);
		if (pid < 0) {
			fprintf(stderr, "bench_cdp: cannot start Chromium\n");
			return 1;
		}
		endpoint = port_file;
	}

	int rc = 1;
	kn_err err;
	char *url = NULL;
	bench b = {0};
	if (kn_cdp_discover(&url, endpoint, 30000, &err) || kn_cdp_loop_new(&b.loop, &err)) {
		fprintf(stderr, "bench_cdp: %s\n", err.msg);
		goto out;
	}
	kn_cdp_handlers h = {NULL, on_event, on_close, on_warning, &b};
	if (kn_cdp_connect(&b.c, b.loop, url, NULL, &h, &err)) {
		fprintf(stderr, "bench_cdp: %s\n", err.msg);
		goto out;
	}
	json_t *r = NULL;
	if (call(&b, NULL, "Target.createTarget", json_pack("{s:s}", "url", "about:blank"), &r))
		goto out;
	json_t *a = NULL;
	int arc = call(&b, NULL, "Target.attachToTarget",
	               json_pack("{s:O, s:b}", "targetId", json_object_get(r, "targetId"), "flatten", 1),
	               &a);
	json_decref(r);
	if (arc)
		goto out;
	snprintf(b.sid, sizeof b.sid, "%s", json_string_value(json_object_get(a, "sessionId")));
	json_decref(a);
	if (call(&b, b.sid, "Runtime.addBinding", json_pack("{s:s}", "name", "__knb"), NULL) ||
	    call(&b, b.sid, "Runtime.enable", NULL, NULL))
		goto out;

	/* 1. binding events */
	char expr[512];
	snprintf(expr, sizeof expr,
	         "for (let i = 0; i < %d; i++) __knb('{\"type\":\"click\",\"seq\":' + i + ',"
	         "\"selector\":\"#search > div.results > a:nth-child(3)\",\"text\":\"Result\","
	         "\"url\":\"https://www.example.com/search?q=x\"}'); 0",
	         BINDING_CALLS);
	double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
	kn_cdp_send(b.c, b.sid, "Runtime.evaluate", json_pack("{s:s}", "expression", expr), NULL, NULL);
	if (!wait_count(&b, &b.bindings, BINDING_CALLS)) {
		fprintf(stderr, "bench_cdp: got %lld of %d binding events\n", b.bindings, BINDING_CALLS);
		goto out;
	}
	double bind_wall = BINDING_CALLS / (now(CLOCK_MONOTONIC) - w0);
	double bind_cpu = BINDING_CALLS / (now(CLOCK_PROCESS_CPUTIME_ID) - c0);
	kn_cdp_stats st;
	kn_cdp_get_stats(b.c, &st);
	double avg_bytes = (double)st.bytes_in / (double)st.messages_in;

	/* 2. console events */
	snprintf(expr, sizeof expr,
	         "for (let i = 0; i < %d; i++) console.log('step', i, 'https://www.example.com/'); 0",
	         CONSOLE_CALLS);
	w0 = now(CLOCK_MONOTONIC);
	c0 = now(CLOCK_PROCESS_CPUTIME_ID);
	kn_cdp_send(b.c, b.sid, "Runtime.evaluate", json_pack("{s:s}", "expression", expr), NULL, NULL);
	if (!wait_count(&b, &b.consoles, CONSOLE_CALLS)) {
		fprintf(stderr, "bench_cdp: got %lld of %d console events\n", b.consoles, CONSOLE_CALLS);
		goto out;
	}
	double cons_wall = CONSOLE_CALLS / (now(CLOCK_MONOTONIC) - w0);
	double cons_cpu = CONSOLE_CALLS / (now(CLOCK_PROCESS_CPUTIME_ID) - c0);
	call(&b, b.sid, "Runtime.disable", NULL, NULL);

	/* 3. pipelined round trips */
	w0 = now(CLOCK_MONOTONIC);
	c0 = now(CLOCK_PROCESS_CPUTIME_ID);
	for (int i = 0; i < RT_WINDOW; i++)
		rt_send(&b);
	if (!wait_count(&b, &b.rt_done, RT_TOTAL) || b.rt_failed) {
		fprintf(stderr, "bench_cdp: %lld of %d round trips, %lld failed\n", b.rt_done, RT_TOTAL,
		        b.rt_failed);
		goto out;
	}
	double rt_wall = RT_TOTAL / (now(CLOCK_MONOTONIC) - w0);
	double rt_cpu = RT_TOTAL / (now(CLOCK_PROCESS_CPUTIME_ID) - c0);

	struct utsname u;
	uname(&u);
	char line[768];
	snprintf(line, sizeof line,
	         "cdp: binding events %.0f/s (client CPU %.0f/s, %d events, %.0f B avg); console events "
	         "%.0f/s (client CPU %.0f/s, %d events); pipelined Runtime.evaluate %.0f round trips/s "
	         "(client CPU %.0f/s, %d in flight); machine: %s %s, %ld cores",
	         bind_wall, bind_cpu, BINDING_CALLS, avg_bytes, cons_wall, cons_cpu, CONSOLE_CALLS,
	         rt_wall, rt_cpu, RT_WINDOW, u.machine, u.release, sysconf(_SC_NPROCESSORS_ONLN));
	puts(line);
	if (result_file) {
		FILE *f = fopen(result_file, "a");
		if (f) {
			fprintf(f, "%s\n", line);
			fclose(f);
		}
	}
	rc = 0;
out:
	kn_cdp_loop_free(b.loop);
	free(url);
	if (pid > 0) {
		kill(-pid, SIGKILL);
		waitpid(pid, NULL, 0);
		nftw(udd, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	}
	return rc;
}
