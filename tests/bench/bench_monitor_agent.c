/* bench_monitor_agent.c — the monitor bench's "agent" process (bench_monitor.c says why two): it
 * serves the test page on 127.0.0.1:0 with a small built-in HTTP server and drives the browser over
 * its OWN CDP connection, like a real agent: it opens and closes tabs (Target.createTarget), runs page
 * scripts (Runtime.evaluate) and clicks with Input.dispatchMouseEvent, answering one command per line
 * over a pipe. */
#define _GNU_SOURCE /* prctl, memmem */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "keynode/clock.h"
#include "monitor.h"
#include "bench_monitor_agent.h"
#include "bench_samples.h"

#define MAX_TABS 256
#define TRUSTED_WINDOW 16 /* clicks in flight from the agent */

/* ------------------------------------------------------------------ the test page */

static const char page_html[] =
	"<!doctype html><html><head><meta charset=\"utf-8\"><title>keynode monitor bench</title></head>\n"
	"<body><h1>keynode monitor bench</h1>\n"
	"<form id=\"f\" onsubmit=\"return false\">\n"
	"  <label for=\"q\">Search</label> <input id=\"q\" name=\"q\" type=\"text\">\n"
	"  <button id=\"go\" type=\"button\" style=\"width:120px;height:40px\">Go</button>\n"
	"</form>\n"
	"<ul id=\"results\"><li><a href=\"#r1\">First result</a></li><li><a href=\"#r2\">Second</a></li></ul>\n"
	"<p><a id=\"next\" href=\"bench.html\">Next page</a></p>\n"
	"<script>\n"
	"function burst(n) {\n"
	"  var b = document.getElementById('go'), t0 = performance.now();\n"
	"  for (var i = 0; i < n; i++) b.click();\n"
	"  return performance.now() - t0;\n"
	"}\n"
	"function paced(n, every) {\n"
	"  var q = document.getElementById('q');\n"
	"  return new Promise(function (done) {\n"
	"    /* all timers from one task: not nested, so the 4 ms clamp does not apply */\n"
	"    for (var i = 0; i < n; i++) setTimeout(function (last) {\n"
	"      var stamp = (performance.timeOrigin + performance.now()).toFixed(3);\n"
	"      q.value = stamp;\n"
	"      q.dispatchEvent(new Event('input', {bubbles: true}));\n"
	"      q.dispatchEvent(new Event('change', {bubbles: true}));\n"
	"      /* the same moment to the agent's plain CDP client: the browser's delivery floor */\n"
	"      if (typeof __kn_floor === 'function') __kn_floor(stamp);\n"
	"      if (last) done(n);\n"
	"    }, i * every, i === n - 1);\n"
	"  });\n"
	"}\n"
	"function goCenter() {\n"
	"  var r = document.getElementById('go').getBoundingClientRect();\n"
	"  return [r.x + r.width / 2, r.y + r.height / 2];\n"
	"}\n"
	"var hops = /[?&]hops=(\\d+)/.exec(location.search);\n"
	"if (hops && +hops[1] > 0)\n"
	"  addEventListener('load', function () {\n"
	"    setTimeout(function () {\n"
	"      var a = document.getElementById('next');\n"
	"      a.href = 'bench.html?hops=' + (+hops[1] - 1);\n"
	"      a.click();\n"
	"    }, 0);\n"
	"  });\n"
	"if (location.search.indexOf('auto=1') >= 0)\n"
	"  addEventListener('load', function () {\n"
	"    setTimeout(function () { document.getElementById('go').click(); }, 0);\n"
	"  });\n"
	"</script></body></html>\n";

/* One HTTP/1.1 request, answered and closed. */
static void *http_conn(void *arg)
{
	int fd = (int)(intptr_t)arg;
	char req[8192];
	size_t n = 0;
	struct timeval tv = {5, 0};
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	while (n < sizeof req - 1) {
		ssize_t r = read(fd, req + n, sizeof req - 1 - n);
		if (r <= 0)
			break;
		n += (size_t)r;
		req[n] = '\0';
		if (strstr(req, "\r\n\r\n"))
			break;
	}
	req[n] = '\0';
	int ok = strncmp(req, "GET /bench.html", 15) == 0;
	const char *body = ok ? page_html : "not found\n";
	char head[256];
	int hl = snprintf(head, sizeof head,
	                  "HTTP/1.1 %s\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: %zu\r\n"
	                  "Cache-Control: no-store\r\nConnection: close\r\n\r\n",
	                  ok ? "200 OK" : "404 Not Found", strlen(body));
	if (n && write(fd, head, (size_t)hl) == hl) {
		size_t off = 0, len = strlen(body);
		while (off < len) {
			ssize_t w = write(fd, body + off, len - off);
			if (w <= 0)
				break;
			off += (size_t)w;
		}
	}
	close(fd);
	return NULL;
}

static void *http_main(void *arg)
{
	int ls = (int)(intptr_t)arg;
	for (;;) {
		int fd = accept(ls, NULL, NULL);
		if (fd < 0) {
			if (errno == EINTR)
				continue;
			return NULL;
		}
		pthread_t th;
		if (pthread_create(&th, NULL, http_conn, (void *)(intptr_t)fd) == 0)
			pthread_detach(th);
		else
			close(fd);
	}
}

/* Listen on 127.0.0.1:0 and serve in a thread; the chosen port, or -1. */
static int http_start(void)
{
	int ls = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a;
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t al = sizeof a;
	pthread_t th;
	if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof a) != 0 || listen(ls, 128) != 0 ||
	    getsockname(ls, (struct sockaddr *)&a, &al) != 0 ||
	    pthread_create(&th, NULL, http_main, (void *)(intptr_t)ls) != 0)
		return -1;
	pthread_detach(th);
	return ntohs(a.sin_port);
}

typedef struct agent {
	kn_cdp_loop *loop;
	kn_cdp *c;
	char sid[128];            /* session on the first tab */
	char *opened[MAX_TABS];   /* target ids of the tabs it opened */
	int n_opened;
	/* trusted clicks */
	double x, y;
	int total, sent, done, failed;
	samples floor; /* page → this client, ms: the browser's own delivery latency */
} agent;

/* The agent's events: only the delivery-floor binding matters. */
static void agent_event(void *ud, kn_cdp *c, const char *method, const char *session_id,
                        json_t *params)
{
	(void)c;
	(void)session_id;
	agent *a = ud;
	double wall = real_ms();
	const char *name = json_string_value(json_object_get(params, "name"));
	const char *payload = json_string_value(json_object_get(params, "payload"));
	if (strcmp(method, "Runtime.bindingCalled") == 0 && name && payload &&
	    strcmp(name, "__kn_floor") == 0)
		sample_add(&a->floor, wall - strtod(payload, NULL));
}

static void agent_reply(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void agent_reply(int fd, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if ((size_t)n > sizeof buf - 2)
		n = (int)sizeof buf - 2;
	for (int i = 0; i < n; i++)
		if (buf[i] == '\n')
			buf[i] = ' ';
	buf[n++] = '\n';
	if (write(fd, buf, (size_t)n) != n)
		_exit(1);
}

static void click_send(agent *a);

static void click_reply(void *ud, kn_cdp *c, json_t *result, const char *error)
{
	(void)c;
	(void)result;
	agent *a = ud;
	a->done++;
	if (error)
		a->failed++;
	if (a->sent < a->total)
		click_send(a);
}

static void click_send(agent *a)
{
	a->sent++;
	kn_cdp_send(a->c, a->sid, "Input.dispatchMouseEvent",
	            json_pack("{s:s, s:f, s:f, s:s, s:i, s:i}", "type", "mousePressed", "x", a->x, "y",
	                      a->y, "button", "left", "buttons", 1, "clickCount", 1),
	            NULL, NULL);
	kn_cdp_send(a->c, a->sid, "Input.dispatchMouseEvent",
	            json_pack("{s:s, s:f, s:f, s:s, s:i, s:i}", "type", "mouseReleased", "x", a->x, "y",
	                      a->y, "button", "left", "buttons", 0, "clickCount", 1),
	            click_reply, a);
}

/* Runtime.evaluate on the first tab; the value as JSON text in out. */
static int agent_eval(agent *a, const char *expr, char *out, size_t n, kn_err *err)
{
	json_t *r = NULL;
	int rc = kn_cdp_call(a->c, a->sid, "Runtime.evaluate",
	                     json_pack("{s:s, s:b, s:b}", "expression", expr, "returnByValue", 1,
	                               "awaitPromise", 1),
	                     &r, err);
	if (rc)
		return rc;
	json_t *exc = json_object_get(r, "exceptionDetails");
	char *text = exc ? NULL
	                 : json_dumps(json_object_get(json_object_get(r, "result"), "value"),
	                              JSON_ENCODE_ANY | JSON_COMPACT);
	snprintf(out, n, "%s", text ? text : "null");
	free(text);
	json_decref(r);
	return exc ? kn_err_set(err, KN_EPROTO, "exception in the page") : 0;
}

/* One command line → one reply line ("ok ..." or "err ..."). */
static void agent_command(agent *a, char *line, int out)
{
	kn_err err = {0};
	char val[1024];
	json_t *r = NULL;
	line[strcspn(line, "\n")] = '\0';
	char *arg = strchr(line, ' ');
	if (arg)
		*arg++ = '\0';
	else
		arg = line + strlen(line);

	if (strcmp(line, "connect") == 0) {
		char *ws = NULL;
		kn_cdp_opts o = {.timeout_ms = 120000};
		kn_cdp_handlers h = {.on_event = agent_event, .ud = a};
		if (kn_cdp_discover(&ws, arg, 30000, &err) || kn_cdp_connect(&a->c, a->loop, ws, &o, &h, &err) ||
		    kn_cdp_call(a->c, NULL, "Browser.getVersion", NULL, &r, &err))
			agent_reply(out, "err %s", err.msg);
		else
			agent_reply(out, "ok");
		json_decref(r);
		free(ws);
	} else if (strcmp(line, "nav0") == 0) { /* attach to the first tab and navigate it */
		json_t *ti = NULL, *att = NULL;
		const char *tid = NULL;
		if (kn_cdp_call(a->c, NULL, "Target.getTargets", NULL, &ti, &err) == 0) {
			json_t *infos = json_object_get(ti, "targetInfos"), *it;
			size_t i;
			json_array_foreach(infos, i, it) {
				const char *type = json_string_value(json_object_get(it, "type"));
				if (!tid && type && strcmp(type, "page") == 0)
					tid = json_string_value(json_object_get(it, "targetId"));
			}
		}
		if (!tid) {
			agent_reply(out, "err no page target: %s", err.msg);
		} else if (kn_cdp_call(a->c, NULL, "Target.attachToTarget",
		                       json_pack("{s:s, s:b}", "targetId", tid, "flatten", 1), &att, &err) ||
		           !json_string_value(json_object_get(att, "sessionId"))) {
			agent_reply(out, "err attach: %s", err.msg);
		} else {
			snprintf(a->sid, sizeof a->sid, "%s", json_string_value(json_object_get(att, "sessionId")));
			if (kn_cdp_call(a->c, a->sid, "Page.navigate", json_pack("{s:s}", "url", arg), &r, &err))
				agent_reply(out, "err %s", err.msg);
			else
				agent_reply(out, "ok");
		}
		json_decref(ti);
		json_decref(att);
		json_decref(r);
	} else if (strcmp(line, "open") == 0) {
		if (kn_cdp_call(a->c, NULL, "Target.createTarget", json_pack("{s:s}", "url", arg), &r, &err)) {
			agent_reply(out, "err %s", err.msg);
		} else {
			const char *tid = json_string_value(json_object_get(r, "targetId"));
			if (tid && a->n_opened < MAX_TABS)
				a->opened[a->n_opened++] = strdup(tid);
			agent_reply(out, "ok %s", tid ? tid : "?");
		}
		json_decref(r);
	} else if (strcmp(line, "closeall") == 0) {
		int closed = 0;
		for (int i = 0; i < a->n_opened; i++) {
			if (kn_cdp_call(a->c, NULL, "Target.closeTarget",
			                json_pack("{s:s}", "targetId", a->opened[i]), &r, &err) == 0)
				closed++;
			json_decref(r);
			r = NULL;
			free(a->opened[i]);
		}
		a->n_opened = 0;
		agent_reply(out, "ok %d", closed);
	} else if (strcmp(line, "eval") == 0) {
		if (agent_eval(a, arg, val, sizeof val, &err))
			agent_reply(out, "err %s", err.msg);
		else
			agent_reply(out, "ok %s", val);
	} else if (strcmp(line, "paced") == 0) { /* paced typing, each step also sent to us */
		int steps = 0, every = 0;
		sscanf(arg, "%d %d", &steps, &every);
		char expr[64];
		snprintf(expr, sizeof expr, "paced(%d, %d)", steps, every);
		a->floor.n = 0;
		if (kn_cdp_call(a->c, a->sid, "Runtime.addBinding", json_pack("{s:s}", "name", "__kn_floor"),
		                NULL, &err) ||
		    kn_cdp_call(a->c, a->sid, "Runtime.enable", NULL, NULL, &err) ||
		    agent_eval(a, expr, val, sizeof val, &err)) {
			agent_reply(out, "err %s", err.msg);
			return;
		}
		kn_cdp_call(a->c, a->sid, "Runtime.disable", NULL, NULL, &err);
		size_t n = a->floor.n;
		double p50 = quantile(&a->floor, 0.5), p99 = quantile(&a->floor, 0.99);
		agent_reply(out, "ok %.3f %.3f %zu", p50, p99, n);
	} else if (strcmp(line, "clicks") == 0) { /* N trusted clicks on #go, TRUSTED_WINDOW in flight */
		json_t *xy = NULL;
		if (agent_eval(a, "goCenter()", val, sizeof val, &err) || !(xy = json_loads(val, 0, NULL))) {
			agent_reply(out, "err %s", err.msg);
			return;
		}
		a->x = json_number_value(json_array_get(xy, 0));
		a->y = json_number_value(json_array_get(xy, 1));
		json_decref(xy);
		a->total = atoi(arg);
		a->sent = a->done = a->failed = 0;
		double t0 = kn_time_mono_s();
		for (int i = 0; i < TRUSTED_WINDOW && a->sent < a->total; i++)
			click_send(a);
		while (a->done < a->total && kn_time_mono_s() - t0 < 120)
			kn_cdp_loop_run_for(a->loop, 100);
		agent_reply(out, "ok %.6f %d %d", kn_time_mono_s() - t0, a->done, a->failed);
	} else {
		agent_reply(out, "err unknown command '%s'", line);
	}
}

/* The agent process: page server + its own CDP connection; never returns. */
void bench_agent_main(int in, int out)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive the bench */
	int port = http_start();
	agent_reply(out, "port %d", port);
	agent a = {0};
	kn_err err = {0};
	if (kn_cdp_loop_new(&a.loop, &err))
		_exit(1);
	FILE *f = fdopen(in, "r");
	char line[8192];
	while (f && fgets(line, sizeof line, f) && strncmp(line, "quit", 4) != 0)
		agent_command(&a, line, out);
	kn_cdp_loop_free(a.loop);
	_exit(0);
}