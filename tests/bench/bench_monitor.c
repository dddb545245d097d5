/* bench_monitor.c — the live monitor (services/monitor) against a real headless Chromium: how many
 * recorder events per second it takes through to a verdict, its CPU time per 1,000 agent actions,
 * its memory per watched tab, and the latency from an action in the page to its evaluated verdict.
 *
 * Two processes, so that getrusage and VmRSS of this one are the monitor's alone:
 *   - this process runs kn_monitor in-process (kn_cdp_loop + kn_monitor_start, trajectory written
 *     to an anonymous temporary file and flushed per event, as `keynode watch --trajectory` does),
 *     with an on_event hook that counts and timestamps every verdict;
 *   - a forked "agent" process serves the test page on 127.0.0.1:0 (a small built-in HTTP server)
 *     and drives the browser over its OWN CDP connection, like a real agent: it opens and closes
 *     tabs (Target.createTarget), runs page scripts (Runtime.evaluate) and clicks with
 *     Input.dispatchMouseEvent. It answers one command per line over a pipe.
 * The browser is started here (flags of docs/development.md, --remote-debugging-port=0, a mktemp
 * user-data-dir) and killed by its PID at the end, also on failure or Ctrl-C; so is the agent.
 *
 * Latency needs two clocks the monitor does not hand out, so this program wraps two functions at
 * link time (-Wl,--wrap, see CMakeLists.txt; nothing in the monitor changes):
 *   kn_cdp_decode              its entry is "the CDP message arrived" (complete, before parsing);
 *   kn_monitor_decode_payload  reads the recorder payload's `t` (page Date.now()) before the
 *                              decoder drops it.
 * The on_event hook then takes CLOCK_REALTIME (page → verdict, the page and this process share the
 * system clock) and CLOCK_MONOTONIC (arrival → verdict, the monitor's own part).
 *
 * Phases, in this order (memory first, before the long runs grow the evaluator's step list):
 *   memory  RSS/heap with 1 tab, then 50 tabs (49 opened by the agent, each auto-attached and
 *           injected by the monitor, each page clicking once on load), then after closing 49;
 *   burst   the page dispatches BURST_CLICKS synthetic clicks (el.click(), recorded untrusted) in
 *           one loop, as fast as it can;
 *   trusted the agent clicks TRUSTED_CLICKS times with Input.dispatchMouseEvent (trusted);
 *   idle    CPU over IDLE_S seconds with one tab and nothing happening;
 *   paced   the page types PACED_STEPS values (input + change → one `type` step each) every 2 ms;
 *           each value is a high-resolution page timestamp, so page → verdict is also measured
 *           below Date.now()'s 1 ms resolution; each step also calls a binding of the agent's own
 *           connection with the same timestamp: the browser's delivery floor, no monitor work;
 *   nav     NAV_HOPS pages in a chain, each clicking a link to the next: CPU per navigating
 *           action, with every CDP event a navigation brings.
 * Every CPU figure includes this harness's own loop turns (10 per second while measuring).
 * No time is asserted: this is a benchmark. Exit 1 only when the run could not be carried out.
 * usage: bench_monitor [--no-trajectory] [RESULT_FILE]  (default tests/bench/results.txt; appends)
 * Env: KN_CHROMIUM overrides /usr/lib/chromium/chromium. */
#define _GNU_SOURCE /* nftw's FTW_DEPTH/FTW_PHYS, prctl, memmem */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <malloc.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "keynode/clock.h"
#include "monitor.h"
#include "bench_monitor_agent.h"
#include "bench_samples.h"

#define BURST_CLICKS 100000
#define TRUSTED_CLICKS 3000
#define PACED_STEPS 1500
#define PACED_EVERY_MS 2
#define NAV_HOPS 100 /* page → link click → next page, a chain */
#define IDLE_S 2.0
#define TABS 50
#define MAX_TABS 256

/* ------------------------------------------------------------------ clocks and process stats */

/* user + system CPU seconds of this process (the monitor; the agent and browser are others) */
static double cpu_s(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* VmRSS of this process in kB, 0 when unreadable */
static long rss_kb(void)
{
	char line[256];
	long kb = 0;
	FILE *f = fopen("/proc/self/status", "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof line, f))
		if (strncmp(line, "VmRSS:", 6) == 0) {
			kb = strtol(line + 6, NULL, 10);
			break;
		}
	fclose(f);
	return kb;
}

/* bytes malloc has handed out and not got back */
static double heap_kb(void)
{
	struct mallinfo2 mi = mallinfo2();
	return (double)mi.uordblks / 1024.0;
}

/* ------------------------------------------------------------------ link-time wraps */

int __real_kn_cdp_decode(kn_cdp_msg *out, const char *buf, size_t len, kn_err *err);
int __wrap_kn_cdp_decode(kn_cdp_msg *out, const char *buf, size_t len, kn_err *err);
int __real_kn_monitor_decode_payload(kn_event *ev, const char *payload, size_t len, kn_err *err);
int __wrap_kn_monitor_decode_payload(kn_event *ev, const char *payload, size_t len, kn_err *err);

static double g_arrival;   /* CLOCK_MONOTONIC s: the CDP message being handled reached the client */
static double g_payload_t; /* the recorder payload's `t` (ms since the epoch), -1 when none */
static unsigned long long g_messages, g_bytes; /* CDP messages (and bytes) the monitor received */

int __wrap_kn_cdp_decode(kn_cdp_msg *out, const char *buf, size_t len, kn_err *err)
{
	g_arrival = kn_time_mono_s();
	g_messages++;
	g_bytes += len;
	return __real_kn_cdp_decode(out, buf, len, err);
}

int __wrap_kn_monitor_decode_payload(kn_event *ev, const char *payload, size_t len, kn_err *err)
{
	/* JSON.stringify writes `,"t":` only as the key: inside a string the quote would be \" */
	const char *p = memmem(payload, len, ",\"t\":", 5);
	g_payload_t = p ? strtod(p + 5, NULL) : -1;
	return __real_kn_monitor_decode_payload(ev, payload, len, err);
}


/* The task: element_path / element_value nodes that resolve on the page (checked live by the
 * recorder on every action), a URL node and a query node; the value node never matches, so
 * every `type` step is judged in full. */
static const char task_yaml[] =
	"tasks:\n"
	"  - id: bench\n"
	"    intent: \"Search the bench page\"\n"
	"    start_url: http://127.0.0.1/bench.html\n"
	"    key_nodes:\n"
	"      - id: go\n"
	"        element_path: { exact: \"#go\" }\n"
	"      - id: query\n"
	"        element_value: { path: \"#q\", include: \"never typed\" }\n"
	"      - id: page\n"
	"        url: { include: \"/bench.html\" }\n"
	"      - id: done\n"
	"        url: { key: step, exact: \"done\" }\n";


/* ------------------------------------------------------------------ the bench (monitor side) */

enum phase { PH_SETUP, PH_MEMORY, PH_BURST, PH_TRUSTED, PH_PACED, PH_NAV };

typedef struct bench {
	kn_cdp_loop *loop;
	kn_monitor *mon;
	int cmd_fd, rep_fd;
	char rep[8192];
	size_t rep_len;
	enum phase phase;
	/* how long the loop is served between checks of the agent's pipe and the phase's goal:
	 * short while setting up, long while measuring (each turn is a wakeup the monitor alone
	 * would not have) */
	int slice_ms;
	/* per tab (index = the number of "T<n>") */
	unsigned char opened[MAX_TABS], acted[MAX_TABS];
	int n_opened, n_acted, n_closed;
	/* counted actions of the current phase, and when the wanted one arrived */
	long long count, want, nav_clicks;
	double t_done, cpu_done;
	samples e2e, inproc, hires;
	unsigned long long events, msg0, bytes0;
	int ended;
} bench;

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static int tab_index(const kn_event *ev)
{
	if (!ev->tab || ev->tab[0] != 'T')
		return -1;
	int i = atoi(ev->tab + 1);
	return i > 0 && i < MAX_TABS ? i : -1;
}

/* After every evaluated event: count it for the running phase and take its latencies. */
static void on_verdict(void *ud, kn_monitor *m, const kn_event *ev, int rises)
{
	(void)m;
	(void)rises;
	double wall = real_ms(), mono = kn_time_mono_s();
	bench *b = ud;
	b->events++;
	int ti = tab_index(ev);
	if (ev->type == KN_EV_TAB_OPEN && ti > 0 && !b->opened[ti]) {
		b->opened[ti] = 1;
		b->n_opened++;
	} else if (ev->type == KN_EV_TAB_CLOSE) {
		b->n_closed++;
	}
	int counted = 0;
	switch (b->phase) {
	case PH_SETUP:
	case PH_MEMORY:
		if (ev->type == KN_EV_CLICK && ti > 0 && !b->acted[ti]) {
			b->acted[ti] = 1;
			b->n_acted++;
		}
		break;
	case PH_BURST:
		counted = ev->type == KN_EV_CLICK && ev->trusted == 0;
		break;
	case PH_TRUSTED:
		counted = ev->type == KN_EV_CLICK && ev->trusted == 1;
		break;
	case PH_PACED:
		counted = ev->type == KN_EV_TYPE;
		break;
	case PH_NAV:
		b->nav_clicks += ev->type == KN_EV_CLICK;
		counted = ev->type == KN_EV_NAVIGATE;
		break;
	}
	if (!counted)
		return;
	if (++b->count == b->want) {
		b->t_done = mono;
		b->cpu_done = cpu_s();
	}
	if (b->phase == PH_NAV) /* not a recorder payload: no page time */
		return;
	if (g_payload_t > 0)
		sample_add(&b->e2e, wall - g_payload_t);
	sample_add(&b->inproc, (mono - g_arrival) * 1e6);
	if (b->phase == PH_PACED && ev->value)
		sample_add(&b->hires, wall - strtod(ev->value, NULL));
}

static void on_end(void *ud, kn_monitor *m, const char *reason)
{
	(void)m;
	fprintf(stderr, "bench_monitor: the monitor ended: %s\n", reason);
	((bench *)ud)->ended = 1;
}

/* Serve the monitor until pred(b) holds; 0 when it did, -1 on timeout, end or interrupt. */
static int serve_until(bench *b, int (*pred)(const bench *), double timeout_s)
{
	double t0 = kn_time_mono_s();
	while (!pred(b)) {
		if (interrupted || b->ended || kn_time_mono_s() - t0 > timeout_s)
			return -1;
		kn_cdp_loop_run_for(b->loop, b->slice_ms);
	}
	return 0;
}

static void settle(bench *b, double s)
{
	double t0 = kn_time_mono_s();
	while (kn_time_mono_s() - t0 < s && !interrupted)
		kn_cdp_loop_run_for(b->loop, b->slice_ms);
}

/* Send one command to the agent and serve the monitor until its reply line; the reply (after
 * "ok ") in out. 0 on "ok", -1 otherwise (the reason printed). */
static int agent_cmd(bench *b, char *out, size_t n, double timeout_s, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static int agent_cmd(bench *b, char *out, size_t n, double timeout_s, const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	va_start(ap, fmt);
	int len = vsnprintf(cmd, sizeof cmd - 1, fmt, ap);
	va_end(ap);
	if (len < 0 || (size_t)len >= sizeof cmd - 1)
		return -1;
	cmd[len++] = '\n';
	if (write(b->cmd_fd, cmd, (size_t)len) != len) {
		fprintf(stderr, "bench_monitor: the agent is gone\n");
		return -1;
	}
	double t0 = kn_time_mono_s();
	for (;;) {
		char *nl = memchr(b->rep, '\n', b->rep_len);
		if (nl) {
			*nl = '\0';
			int ok = strncmp(b->rep, "ok", 2) == 0;
			if (!ok)
				fprintf(stderr, "bench_monitor: agent: %.*s: %s\n", (int)strcspn(cmd, " \n"), cmd,
				        b->rep);
			if (out)
				snprintf(out, n, "%s", b->rep[2] ? b->rep + 3 : "");
			size_t used = (size_t)(nl - b->rep) + 1;
			memmove(b->rep, b->rep + used, b->rep_len - used);
			b->rep_len -= used;
			return ok ? 0 : -1;
		}
		if (interrupted || kn_time_mono_s() - t0 > timeout_s) {
			fprintf(stderr, "bench_monitor: agent: no answer to %.*s\n", (int)strcspn(cmd, " \n"), cmd);
			return -1;
		}
		ssize_t r = read(b->rep_fd, b->rep + b->rep_len, sizeof b->rep - 1 - b->rep_len);
		if (r > 0) {
			b->rep_len += (size_t)r;
			continue;
		}
		if (r == 0) {
			fprintf(stderr, "bench_monitor: the agent exited\n");
			return -1;
		}
		if (b->loop) {
			kn_cdp_loop_run_for(b->loop, b->slice_ms);
		} else {
			struct pollfd p = {b->rep_fd, POLLIN, 0};
			poll(&p, 1, 50);
		}
	}
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
	strcpy(udd, "/tmp/kn-bench-monitor-XXXXXX");
	if (!mkdtemp(udd))
		return -1;
	snprintf(port_file, n, "%s/DevToolsActivePort", udd);
	char dir_arg[128];
	snprintf(dir_arg, sizeof dir_arg, "--user-data-dir=%s", udd);
	pid_t pid = fork();
	if (pid == 0) {
		setsid();
		prctl(PR_SET_PDEATHSIG, SIGKILL);
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

static int have_tab1(const bench *b) { return b->n_opened >= 1; }
static int have_act1(const bench *b) { return b->n_acted >= 1; }
static int have_all_tabs(const bench *b) { return b->n_opened >= TABS && b->n_acted >= TABS; }
static int have_closed(const bench *b) { return b->n_closed >= TABS - 1; }
static int have_wanted(const bench *b) { return b->count >= b->want; }

/* Reset the phase counters; want = the number of actions that completes it. */
static void phase_start(bench *b, enum phase ph, long long want)
{
	b->phase = ph;
	b->count = 0;
	b->want = want;
	b->nav_clicks = 0;
	b->t_done = b->cpu_done = 0;
	b->e2e.n = b->inproc.n = b->hires.n = 0;
	b->msg0 = g_messages;
	b->bytes0 = g_bytes;
}

typedef struct rate {
	long long n;
	double wall, cpu;                 /* s: command sent → last wanted one; CPU over wall */
	double e2e50, e2e99, in50, in99;  /* ms, µs */
	double hi50, hi99;                /* ms (paced only) */
	double msgs, bytes;               /* CDP messages in per action, bytes per message */
} rate;

static void phase_result(bench *b, rate *r, double t_sent, double cpu0)
{
	r->n = b->count;
	double end = b->t_done > 0 ? b->t_done : kn_time_mono_s();
	double cpu_end = b->cpu_done > 0 ? b->cpu_done : cpu_s();
	r->wall = end - t_sent;
	r->cpu = cpu_end - cpu0;
	unsigned long long dm = g_messages - b->msg0;
	r->msgs = r->n ? (double)dm / (double)r->n : 0;
	r->bytes = dm ? (double)(g_bytes - b->bytes0) / (double)dm : 0;
	r->e2e50 = quantile(&b->e2e, 0.5);
	r->e2e99 = quantile(&b->e2e, 0.99);
	r->in50 = quantile(&b->inproc, 0.5);
	r->in99 = quantile(&b->inproc, 0.99);
	r->hi50 = quantile(&b->hires, 0.5);
	r->hi99 = quantile(&b->hires, 0.99);
}

/* the three load averages, for the record: other work on the machine skews every figure */
static void loadavg(char *out, size_t n)
{
	FILE *f = fopen("/proc/loadavg", "r");
	double a = 0, b = 0, c = 0;
	if (!f || fscanf(f, "%lf %lf %lf", &a, &b, &c) != 3)
		snprintf(out, n, "?");
	else
		snprintf(out, n, "%.2f %.2f %.2f", a, b, c);
	if (f)
		fclose(f);
}

static void emit_line(FILE *res, const char *line)
{
	puts(line);
	if (res)
		fprintf(res, "%s\n", line);
}

int main(int argc, char **argv)
{
	const char *result_file = "tests/bench/results.txt";
	int trajectory = 1;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--no-trajectory"))
			trajectory = 0;
		else if (argv[i][0] == '-') {
			fprintf(stderr, "usage: bench_monitor [--no-trajectory] [RESULT_FILE]\n");
			return 2;
		} else
			result_file = argv[i];
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	int rc = 1, to_agent[2] = {-1, -1}, from_agent[2] = {-1, -1};
	char udd[64] = "", port_file[128], reply[1024], url[256];
	pid_t agent_pid = -1, browser_pid = -1;
	kn_err err = {0};
	kn_taskset *set = NULL;
	char *ws = NULL;
	FILE *traj = NULL;
	bench b;
	memset(&b, 0, sizeof b);
	rate burst = {0}, trusted = {0}, paced = {0}, nav = {0};
	char load0[64], load1[64];
	loadavg(load0, sizeof load0);

	/* the agent first: nothing of this process's CDP state is forked into it */
	if (pipe(to_agent) || pipe(from_agent)) {
		perror("bench_monitor: pipe");
		return 1;
	}
	agent_pid = fork();
	if (agent_pid == 0) {
		close(to_agent[1]);
		close(from_agent[0]);
		bench_agent_main(to_agent[0], from_agent[1]);
	}
	close(to_agent[0]);
	close(from_agent[1]);
	b.cmd_fd = to_agent[1];
	b.rep_fd = from_agent[0];
	b.slice_ms = 10;
	fcntl(b.rep_fd, F_SETFL, fcntl(b.rep_fd, F_GETFL) | O_NONBLOCK);
	if (agent_pid < 0)
		goto out;
	/* the agent announces its page server's port unasked: read it like a reply */
	{
		double t0 = kn_time_mono_s();
		while (!memchr(b.rep, '\n', b.rep_len) && kn_time_mono_s() - t0 < 10) {
			struct pollfd p = {b.rep_fd, POLLIN, 0};
			poll(&p, 1, 50);
			ssize_t r = read(b.rep_fd, b.rep + b.rep_len, sizeof b.rep - 1 - b.rep_len);
			if (r > 0)
				b.rep_len += (size_t)r;
		}
		int port = 0;
		char *nl = memchr(b.rep, '\n', b.rep_len);
		if (!nl || sscanf(b.rep, "port %d", &port) != 1 || port <= 0) {
			fprintf(stderr, "bench_monitor: the agent could not start its page server\n");
			goto out;
		}
		size_t used = (size_t)(nl - b.rep) + 1;
		memmove(b.rep, b.rep + used, b.rep_len - used);
		b.rep_len -= used;
		snprintf(url, sizeof url, "http://127.0.0.1:%d/bench.html?auto=1", port);
	}

	browser_pid = start_browser(udd, port_file, sizeof port_file);
	if (browser_pid < 0) {
		fprintf(stderr, "bench_monitor: cannot start Chromium\n");
		goto out;
	}
	if (agent_cmd(&b, NULL, 0, 40, "connect %s", port_file))
		goto out;
	if (kn_taskset_load_buffer(&set, task_yaml, sizeof task_yaml - 1, "bench.yaml", NULL, &err) ||
	    kn_cdp_discover(&ws, port_file, 30000, &err) || kn_cdp_loop_new(&b.loop, &err)) {
		fprintf(stderr, "bench_monitor: %s\n", err.msg);
		goto out;
	}
	if (trajectory && !(traj = tmpfile())) {
		perror("bench_monitor: tmpfile");
		goto out;
	}

	/* ---- memory: 1 tab, 50 tabs, 1 tab again */
	fprintf(stderr, "bench_monitor: memory, 1 then %d tabs\n", TABS);
	long rss_before = rss_kb();
	kn_monitor_opts mo;
	memset(&mo, 0, sizeof mo);
	mo.task = &set->tasks[0];
	mo.eval.step_limit = -1; /* judge every step of a long run */
	mo.run_id = "bench";
	mo.trajectory = traj;
	mo.on_event = on_verdict;
	mo.on_end = on_end;
	mo.ud = &b;
	if (kn_monitor_start(&b.mon, b.loop, ws, &mo, &err)) {
		fprintf(stderr, "bench_monitor: %s\n", err.msg);
		goto out;
	}
	if (serve_until(&b, have_tab1, 20)) {
		fprintf(stderr, "bench_monitor: the monitor saw no tab\n");
		goto out;
	}
	settle(&b, 0.5); /* let the monitor's injection reach the browser before the page loads */
	if (agent_cmd(&b, NULL, 0, 30, "nav0 %s", url))
		goto out;
	if (serve_until(&b, have_act1, 10)) {
		fprintf(stderr, "bench_monitor: no action recorded in the first tab\n");
		goto out;
	}
	b.phase = PH_MEMORY;
	settle(&b, 0.5);
	long rss1 = rss_kb();
	double heap1 = heap_kb();
	double t_open = kn_time_mono_s();
	for (int i = 1; i < TABS; i++)
		if (agent_cmd(&b, NULL, 0, 30, "open %s", url))
			goto out;
	if (serve_until(&b, have_all_tabs, 120))
		fprintf(stderr, "bench_monitor: of %d tabs, %d opened, %d with an action\n", TABS,
		        b.n_opened, b.n_acted);
	double tabs_s = kn_time_mono_s() - t_open;
	settle(&b, 0.5);
	long rss50 = rss_kb();
	double heap50 = heap_kb();
	int tabs_opened = b.n_opened, tabs_acted = b.n_acted;
	if (agent_cmd(&b, NULL, 0, 60, "closeall") || serve_until(&b, have_closed, 30))
		fprintf(stderr, "bench_monitor: %d of %d tabs reported closed\n", b.n_closed, TABS - 1);
	settle(&b, 0.5);
	long rss_closed = rss_kb();
	double heap_closed = heap_kb();

	/* ---- idle: one tab, nothing happening */
	b.slice_ms = 100;
	double cpu_idle0 = cpu_s();
	settle(&b, IDLE_S);
	double idle_ms_s = (cpu_s() - cpu_idle0) * 1e3 / IDLE_S;

	/* ---- throughput: synthetic clicks as fast as the page can dispatch them */
	fprintf(stderr, "bench_monitor: burst of %d synthetic clicks\n", BURST_CLICKS);
	double page_ms = 0;
	phase_start(&b, PH_BURST, BURST_CLICKS);
	double t_sent = kn_time_mono_s(), cpu0 = cpu_s();
	if (agent_cmd(&b, reply, sizeof reply, 120, "eval burst(%d)", BURST_CLICKS))
		goto out;
	page_ms = strtod(reply, NULL);
	if (serve_until(&b, have_wanted, 60))
		fprintf(stderr, "bench_monitor: burst: %lld of %d clicks arrived\n", b.count, BURST_CLICKS);
	phase_result(&b, &burst, t_sent, cpu0);
	settle(&b, 0.3);

	/* ---- trusted clicks from the agent's connection */
	fprintf(stderr, "bench_monitor: %d trusted clicks\n", TRUSTED_CLICKS);
	phase_start(&b, PH_TRUSTED, TRUSTED_CLICKS);
	t_sent = kn_time_mono_s();
	cpu0 = cpu_s();
	int tr_done = 0, tr_failed = 0;
	double agent_s = 0;
	if (agent_cmd(&b, reply, sizeof reply, 150, "clicks %d", TRUSTED_CLICKS))
		goto out;
	sscanf(reply, "%lf %d %d", &agent_s, &tr_done, &tr_failed);
	if (serve_until(&b, have_wanted, 30))
		fprintf(stderr, "bench_monitor: trusted: %lld of %d clicks arrived (agent: %d done, %d failed)\n",
		        b.count, TRUSTED_CLICKS, tr_done, tr_failed);
	phase_result(&b, &trusted, t_sent, cpu0);
	settle(&b, 0.3);

	/* ---- latency at an agent's pace (still far faster than agents act) */
	fprintf(stderr, "bench_monitor: %d paced type steps\n", PACED_STEPS);
	phase_start(&b, PH_PACED, PACED_STEPS);
	t_sent = kn_time_mono_s();
	cpu0 = cpu_s();
	double floor50 = NAN, floor99 = NAN;
	if (agent_cmd(&b, reply, sizeof reply, 120, "paced %d %d", PACED_STEPS, PACED_EVERY_MS))
		goto out;
	sscanf(reply, "%lf %lf", &floor50, &floor99);
	if (serve_until(&b, have_wanted, 30))
		fprintf(stderr, "bench_monitor: paced: %lld of %d steps arrived\n", b.count, PACED_STEPS);
	phase_result(&b, &paced, t_sent, cpu0);
	settle(&b, 0.3);

	/* ---- navigating actions: each page clicks a link to the next, NAV_HOPS times */
	fprintf(stderr, "bench_monitor: %d link clicks that navigate\n", NAV_HOPS);
	phase_start(&b, PH_NAV, NAV_HOPS + 1); /* the script navigation that starts it, then the hops */
	t_sent = kn_time_mono_s();
	cpu0 = cpu_s();
	if (agent_cmd(&b, NULL, 0, 30, "eval setTimeout(function () { location.href = "
	                               "'bench.html?hops=%d'; }, 0), 0", NAV_HOPS))
		goto out;
	if (serve_until(&b, have_wanted, 90))
		fprintf(stderr, "bench_monitor: navigation: %lld of %d navigations arrived\n", b.count,
		        NAV_HOPS + 1);
	phase_result(&b, &nav, t_sent, cpu0);
	long long nav_clicks = b.nav_clicks;
	loadavg(load1, sizeof load1);

	/* ---- report: one line per measure, after a line naming the run and the machine */
	{
		FILE *res = fopen(result_file, "a");
		if (!res)
			fprintf(stderr, "bench_monitor: cannot append to %s: %s\n", result_file, strerror(errno));
		char day[32], model[128] = "?", line[1400];
		time_t now = time(NULL);
		struct tm tm;
		localtime_r(&now, &tm);
		strftime(day, sizeof day, "%Y-%m-%d %H:%M", &tm);
		FILE *ci = fopen("/proc/cpuinfo", "r");
		while (ci && fgets(line, sizeof line, ci))
			if (strncmp(line, "model name", 10) == 0) {
				char *v = strchr(line, ':');
				snprintf(model, sizeof model, "%s", v ? v + 2 : "?");
				model[strcspn(model, "\n")] = '\0';
				break;
			}
		if (ci)
			fclose(ci);
		struct utsname u;
		uname(&u);
		snprintf(line, sizeof line,
		         "monitor bench %s; %s %s %s; %ld cores; %s; load average %s at start, %s at end; "
		         "trajectory %s",
		         day, u.sysname, u.release, u.machine, sysconf(_SC_NPROCESSORS_ONLN), model, load0,
		         load1, trajectory ? "on (tmpfile, flushed per event)" : "off");
		emit_line(res, line);
		snprintf(line, sizeof line,
		         "monitor events/s: untrusted clicks %lld/%d: %.0f/s end to end (the page dispatched "
		         "them at %.0f/s; monitor CPU capacity %.0f/s); trusted Input.dispatchMouseEvent clicks "
		         "%lld/%d: %.0f/s end to end (the agent's rate %.0f/s; monitor CPU capacity %.0f/s); "
		         "CDP messages in per action %.2f / %.2f, %.0f B each",
		         burst.n, BURST_CLICKS, (double)burst.n / burst.wall,
		         page_ms > 0 ? BURST_CLICKS / (page_ms / 1e3) : 0.0,
		         burst.cpu > 0 ? (double)burst.n / burst.cpu : 0.0, trusted.n, TRUSTED_CLICKS,
		         (double)trusted.n / trusted.wall, agent_s > 0 ? tr_done / agent_s : 0.0,
		         trusted.cpu > 0 ? (double)trusted.n / trusted.cpu : 0.0, burst.msgs, trusted.msgs,
		         burst.bytes);
		emit_line(res, line);
		snprintf(line, sizeof line,
		         "monitor CPU per 1,000 actions (user+sys of the monitor process): untrusted burst "
		         "%.1f ms, trusted clicks %.1f ms, paced typing %.1f ms, navigating link clicks %.1f ms "
		         "(%lld clicks, %lld navigations in %.1f s, %.1f CDP messages in per click); idle with "
		         "1 tab "
		         "%.2f ms per s",
		         burst.n ? burst.cpu / (double)burst.n * 1e6 : 0.0,
		         trusted.n ? trusted.cpu / (double)trusted.n * 1e6 : 0.0,
		         paced.n ? paced.cpu / (double)paced.n * 1e6 : 0.0,
		         nav_clicks ? nav.cpu / (double)nav_clicks * 1e6 : 0.0, nav_clicks, nav.n,
		         nav.wall, nav_clicks ? nav.msgs * (double)nav.n / (double)nav_clicks : 0.0, idle_ms_s);
		emit_line(res, line);
		snprintf(line, sizeof line,
		         "monitor memory: RSS %.1f MB before connecting, %.1f MB with 1 tab, %.1f MB with %d "
		         "tabs: (RSS%d - RSS1)/%d = %.1f KB per tab (heap in use %.1f KB per tab); %d/%d tabs "
		         "opened, %d/%d with an action recorded, in %.1f s; after closing %d: RSS %.1f MB, "
		         "heap %+.1f KB vs 1 tab",
		         (double)rss_before / 1024, (double)rss1 / 1024, (double)rss50 / 1024, TABS, TABS,
		         TABS - 1, (double)(rss50 - rss1) / (TABS - 1), (heap50 - heap1) / (TABS - 1),
		         tabs_opened, TABS, tabs_acted, TABS, tabs_s, TABS - 1, (double)rss_closed / 1024,
		         heap_closed - heap1);
		emit_line(res, line);
		snprintf(line, sizeof line,
		         "monitor latency p50/p99: paced typing (%lld steps, one per %d ms): page Date.now() → "
		         "verdict %.2f/%.2f ms (1 ms resolution), page performance.now() → verdict %.3f/%.3f "
		         "ms, CDP message in → verdict %.1f/%.1f us; trusted clicks: page → verdict %.2f/%.2f "
		         "ms, in → verdict %.1f/%.1f us; untrusted burst (saturated): page → verdict %.0f/%.0f "
		         "ms, in → verdict %.1f/%.1f us; the browser's own floor (the same paced steps' "
		         "performance.now() → a plain CDP client in the agent process): %.3f/%.3f ms",
		         paced.n, PACED_EVERY_MS, paced.e2e50, paced.e2e99, paced.hi50, paced.hi99,
		         paced.in50, paced.in99, trusted.e2e50, trusted.e2e99, trusted.in50, trusted.in99,
		         burst.e2e50, burst.e2e99, burst.in50, burst.in99, floor50, floor99);
		emit_line(res, line);
		if (res)
			fclose(res);
	}
	fprintf(stderr, "bench_monitor: %llu events evaluated (monitor says %llu)\n", b.events,
	        kn_monitor_events(b.mon));
	rc = 0;
out:
	kn_monitor_free(b.mon);
	kn_cdp_loop_free(b.loop);
	if (agent_pid > 0) {
		kill(agent_pid, SIGKILL);
		waitpid(agent_pid, NULL, 0);
	}
	if (browser_pid > 0) {
		kill(-browser_pid, SIGKILL); /* its process group (setsid) */
		kill(browser_pid, SIGKILL);
		waitpid(browser_pid, NULL, 0);
	}
	if (udd[0])
		nftw(udd, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	if (traj)
		fclose(traj);
	free(b.e2e.v);
	free(b.inproc.v);
	free(b.hires.v);
	free(ws);
	kn_taskset_free(set);
	if (b.cmd_fd > 0)
		close(b.cmd_fd);
	if (b.rep_fd > 0)
		close(b.rep_fd);
	return interrupted ? 130 : rc;
}
