/* cdp_client_test.c — the CDP client against a real headless Chromium (started by cdp.sh).
 *
 * Discovery in all three forms and its errors; Browser.getVersion; target discovery, creation
 * and a flattened session; Runtime.evaluate on it; a ~5 MB reply reassembled byte-exact; the same
 * reply over a connection capped at 1 MB dropped with a warning, its command failed at once and
 * the connection still answering; the browser's error for an unknown method; a per-command
 * timeout; timers, posts from another thread and stop on a loop of their own; close and loop
 * free ending connections with "closed"; killing the browser mid-command failing it with
 * "browser disconnected" and every connection's on_close running exactly once; connecting to
 * a port nobody listens on. No wall-clock assertions: waits are generous upper bounds.
 * usage: cdp_client_test DEVTOOLS_ACTIVE_PORT_FILE BROWSER_PID */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "cdp.h"

#define WAIT_MS 20000
#define BIG_LEN 5000000

static int fails;

static void check(int ok, const char *name, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

static void check(int ok, const char *name, const char *fmt, ...)
{
	if (ok) {
		printf("ok   %s\n", name);
	} else {
		va_list ap;
		va_start(ap, fmt);
		printf("FAIL %s: ", name);
		vprintf(fmt, ap);
		printf("\n");
		va_end(ap);
		fails++;
	}
	fflush(stdout);
}

/* What one connection's handlers saw. */
typedef struct seen {
	const char *name;
	int opened, closes, warnings;
	char reason[256], warning[256];
	char created[32][64]; /* targetIds of Target.targetCreated events (they precede the reply) */
	int n_created;
	char attached_session[64];
	unsigned long long events;
	int close_on_event;            /* kn_cdp_close from inside on_event */
	unsigned long long events_after_close;
} seen;

static void on_open(void *ud, kn_cdp *c)
{
	(void)c;
	((seen *)ud)->opened++;
}

static void on_event(void *ud, kn_cdp *c, const char *method, const char *session_id,
                     json_t *params)
{
	(void)session_id;
	seen *s = ud;
	s->events++;
	if (s->closes)
		s->events_after_close++;
	if (s->close_on_event) {
		kn_cdp_close(c);
		return;
	}
	json_t *info = json_object_get(params, "targetInfo");
	const char *tid = json_string_value(json_object_get(info, "targetId"));
	if (!strcmp(method, "Target.targetCreated") && tid && s->n_created < 32)
		snprintf(s->created[s->n_created++], sizeof s->created[0], "%s", tid);
	if (!strcmp(method, "Target.attachedToTarget")) {
		const char *sid = json_string_value(json_object_get(params, "sessionId"));
		if (sid)
			snprintf(s->attached_session, sizeof s->attached_session, "%s", sid);
	}
}

static void on_close(void *ud, kn_cdp *c, const char *reason)
{
	(void)c;
	seen *s = ud;
	s->closes++;
	snprintf(s->reason, sizeof s->reason, "%s", reason);
}

static void on_warning(void *ud, kn_cdp *c, const char *what)
{
	(void)c;
	seen *s = ud;
	s->warnings++;
	snprintf(s->warning, sizeof s->warning, "%s", what);
}

/* Serve the loop until *flag is set or WAIT_MS passes (upper bound, not a measurement). */
static int wait_for(kn_cdp_loop *loop, const int *flag)
{
	for (int waited = 0; !*flag && waited < WAIT_MS; waited += 50)
		kn_cdp_loop_run_for(loop, 50);
	return *flag;
}

static kn_cdp *open_conn(kn_cdp_loop *loop, const char *url, const kn_cdp_opts *o, seen *s)
{
	kn_cdp_handlers h = {on_open, on_event, on_close, on_warning, s};
	kn_cdp *c = NULL;
	kn_err err;
	if (kn_cdp_connect(&c, loop, url, o, &h, &err) != 0) {
		check(0, s->name, "connect: %s", err.msg);
		return NULL;
	}
	wait_for(loop, &s->opened);
	check(s->opened == 1 && !s->closes, s->name, "opened %d, closed %d (%s)", s->opened, s->closes,
	      s->reason);
	return s->opened && !s->closes ? c : NULL;
}

/* Attach to a target with flatten:true; the session id or "" (static buffer per call site). */
static int attach(kn_cdp *c, const char *target, char *sid, size_t n)
{
	json_t *r = NULL;
	kn_err err;
	int rc = kn_cdp_call(c, NULL, "Target.attachToTarget",
	                     json_pack("{s:s, s:b}", "targetId", target, "flatten", 1), &r, &err);
	const char *s = rc ? NULL : json_string_value(json_object_get(r, "sessionId"));
	snprintf(sid, n, "%s", s ? s : "");
	if (rc)
		printf("     attach: %s\n", err.msg);
	json_decref(r);
	return *sid != '\0';
}

/* Runtime.evaluate returning by value; the result's "value" (caller's) or NULL. */
static json_t *evaluate(kn_cdp *c, const char *sid, const char *expr, int await, kn_err *err,
                        int *rc)
{
	json_t *r = NULL;
	*rc = kn_cdp_call(c, sid, "Runtime.evaluate",
	                  json_pack("{s:s, s:b, s:b}", "expression", expr, "returnByValue", 1,
	                            "awaitPromise", await),
	                  &r, err);
	if (*rc)
		return NULL;
	json_t *v = json_incref(json_object_get(json_object_get(r, "result"), "value"));
	json_decref(r);
	return v;
}

/* The 5 MB string the page builds: letter i is 'a' + (i * 7) % 26. */
static const char big_expr[] =
	"(() => { const a = new Array(5000000); for (let i = 0; i < a.length; i++) "
	"a[i] = String.fromCharCode(97 + (i * 7) % 26); return a.join(''); })()";

static int big_ok(json_t *v)
{
	if (!json_is_string(v) || json_string_length(v) != BIG_LEN)
		return 0;
	const char *s = json_string_value(v);
	for (size_t i = 0; i < BIG_LEN; i++)
		if (s[i] != (char)('a' + (i * 7) % 26))
			return 0;
	return 1;
}

/* A port on 127.0.0.1 that refuses connections: bound, never listening. */
static int refusing_port(int *fd)
{
	struct sockaddr_in a;
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t len = sizeof a;
	*fd = socket(AF_INET, SOCK_STREAM, 0);
	if (*fd < 0 || bind(*fd, (struct sockaddr *)&a, len) || getsockname(*fd, (struct sockaddr *)&a, &len))
		return -1;
	return ntohs(a.sin_port);
}

/* --- discovery --- */

static char *test_discovery(const char *port_file)
{
	kn_err err;
	char *from_file = NULL, *from_http = NULL, *from_ws = NULL;
	int rc = kn_cdp_discover(&from_file, port_file, WAIT_MS, &err);
	check(rc == 0 && !strncmp(from_file, "ws://127.0.0.1:", 15) &&
	          strstr(from_file, "/devtools/browser/"),
	      "discover DevToolsActivePort", "rc %d: %s", rc, rc ? err.msg : from_file);
	if (rc)
		return NULL;

	int port = atoi(from_file + 15);
	char http[64];
	snprintf(http, sizeof http, "http://127.0.0.1:%d", port);
	rc = kn_cdp_discover(&from_http, http, WAIT_MS, &err);
	check(rc == 0 && !strcmp(from_http, from_file), "discover http://127.0.0.1:PORT",
	      "rc %d: %s vs %s", rc, rc ? err.msg : from_http, from_file);
	rc = kn_cdp_discover(&from_ws, from_file, WAIT_MS, &err);
	check(rc == 0 && !strcmp(from_ws, from_file), "discover ws:// passthrough", "rc %d", rc);
	free(from_http);
	free(from_ws);

	/* the user-data-dir holding the file works too */
	char dir[1024];
	snprintf(dir, sizeof dir, "%s", port_file);
	char *slash = strrchr(dir, '/');
	if (slash) {
		*slash = '\0';
		char *from_dir = NULL;
		rc = kn_cdp_discover(&from_dir, dir, WAIT_MS, &err);
		check(rc == 0 && !strcmp(from_dir, from_file), "discover user-data-dir", "rc %d", rc);
		free(from_dir);
	}

	/* errors */
	int fd, dead = refusing_port(&fd);
	char *out = (char *)1;
	snprintf(http, sizeof http, "http://127.0.0.1:%d", dead);
	rc = kn_cdp_discover(&out, http, 5000, &err);
	check(rc == KN_EIO && out == NULL, "discover refused port → KN_EIO", "rc %d: %s", rc, err.msg);
	close(fd);

	char tmpl[] = "/tmp/kn-cdp-test-XXXXXX";
	if (mkdtemp(tmpl)) {
		char path[256];
		snprintf(path, sizeof path, "%s/DevToolsActivePort", tmpl);
		rc = kn_cdp_discover(&out, path, 300, &err);
		check(rc == KN_ETIMEOUT, "discover missing file → KN_ETIMEOUT", "rc %d: %s", rc, err.msg);
		FILE *f = fopen(path, "w");
		if (f) {
			fputs("not-a-port\n/devtools/browser/x", f);
			fclose(f);
		}
		rc = kn_cdp_discover(&out, path, 300, &err);
		check(rc == KN_EPROTO, "discover garbage file → KN_EPROTO", "rc %d: %s", rc, err.msg);
		f = fopen(path, "w");
		if (f) {
			fprintf(f, "%d\n/devtools/browser/abc", port);
			fclose(f);
		}
		rc = kn_cdp_discover(&out, path, 300, &err);
		check(rc == 0 && strstr(out, "/devtools/browser/abc"), "discover file without newline",
		      "rc %d", rc);
		if (!rc)
			free(out);
		unlink(path);
		rmdir(tmpl);
	}
	rc = kn_cdp_discover(&out, "/nonexistent-dir/DevToolsActivePort", 300, &err);
	check(rc == KN_ENOTFOUND, "discover in a missing directory → KN_ENOTFOUND", "rc %d", rc);
	rc = kn_cdp_discover(&out, "ftp://127.0.0.1/", 300, &err);
	check(rc == KN_EINVAL, "discover other scheme → KN_EINVAL", "rc %d", rc);
	return from_file;
}

typedef struct async_reply {
	int done;
	char error[256];
} async_reply;

static void on_async_reply(void *ud, kn_cdp *c, json_t *result, const char *error)
{
	(void)c;
	(void)result;
	async_reply *a = ud;
	a->done++;
	snprintf(a->error, sizeof a->error, "%s", error ? error : "(result)");
}

/* --- timers, posts and stop on a loop of their own --- */

typedef struct loop_test {
	kn_cdp_loop *loop;
	int fired, cancelled_fired, posted, stop_fired;
} loop_test;

static void t_fire(void *ud) { ((loop_test *)ud)->fired++; }
static void t_never(void *ud) { ((loop_test *)ud)->cancelled_fired++; }
static void t_posted(void *ud)
{
	loop_test *t = ud;
	t->posted++;
	kn_cdp_loop_stop(t->loop);
}

static void *post_thread(void *ud)
{
	struct timespec ts = {0, 100 * 1000 * 1000};
	nanosleep(&ts, NULL);
	kn_cdp_loop_post(((loop_test *)ud)->loop, t_posted, ud);
	return NULL;
}

static void test_loop_mechanics(const char *url)
{
	loop_test t = {0};
	kn_err err;
	if (kn_cdp_loop_new(&t.loop, &err)) {
		check(0, "loop new", "%s", err.msg);
		return;
	}
	kn_cdp_timer_start(t.loop, 50, t_fire, &t);
	kn_cdp_timer *never = kn_cdp_timer_start(t.loop, 100, t_never, &t);
	kn_cdp_timer_cancel(never);
	/* an idle loop must still wake for a timer (lws's poll would otherwise sleep ~forever) */
	wait_for(t.loop, &t.fired);
	kn_cdp_loop_run_for(t.loop, 200);
	check(t.fired == 1 && t.cancelled_fired == 0, "timer fires once, cancelled one never",
	      "fired %d, cancelled fired %d", t.fired, t.cancelled_fired);

	/* close and loop free end connections with "closed" */
	seen s_close = {.name = "second loop: connection for close"};
	seen s_free = {.name = "second loop: connection left for loop free"};
	kn_cdp *a = open_conn(t.loop, url, NULL, &s_close);
	kn_cdp *b = open_conn(t.loop, url, NULL, &s_free);
	if (a) {
		async_reply q = {0};
		kn_cdp_send(a, NULL, "Browser.getVersion", NULL, on_async_reply, &q);
		kn_cdp_close(a); /* synchronous: nothing served in between */
		check(s_close.closes == 1 && !strcmp(s_close.reason, "closed") && q.done == 1 &&
		          !strcmp(q.error, "closed"),
		      "kn_cdp_close → on_close(closed) before it returns, pending command fails",
		      "closes %d, reason '%s', command %d '%s'", s_close.closes, s_close.reason, q.done,
		      q.error);
		kn_cdp_loop_run_for(t.loop, 200);
		check(s_close.closes == 1, "… exactly once", "closes %d", s_close.closes);
	}

	/* closing from inside the connection's own on_event */
	seen s_self = {.name = "second loop: connection closing itself"};
	kn_cdp *self = open_conn(t.loop, url, NULL, &s_self);
	if (self) {
		s_self.close_on_event = 1;
		kn_cdp_send(self, NULL, "Target.setDiscoverTargets", json_pack("{s:b}", "discover", 1),
		            NULL, NULL);
		wait_for(t.loop, &s_self.closes);
		kn_cdp_loop_run_for(t.loop, 300);
		check(s_self.closes == 1 && !strcmp(s_self.reason, "closed") && s_self.events == 1 &&
		          s_self.events_after_close == 0,
		      "kn_cdp_close inside on_event: on_close once, no event after it",
		      "closes %d, reason '%s', events %llu", s_self.closes, s_self.reason, s_self.events);
	}

	/* closing before the websocket opened */
	seen s_early = {.name = "second loop: close before open"};
	kn_cdp_handlers he = {on_open, on_event, on_close, on_warning, &s_early};
	kn_cdp *e = NULL;
	if (kn_cdp_connect(&e, t.loop, url, NULL, &he, &err) == 0) {
		async_reply q = {0};
		kn_cdp_send(e, NULL, "Browser.getVersion", NULL, on_async_reply, &q);
		kn_cdp_close(e);
		wait_for(t.loop, &s_early.closes);
		kn_cdp_loop_run_for(t.loop, 200);
		check(s_early.closes == 1 && !s_early.opened && !strcmp(s_early.reason, "closed") &&
		          q.done == 1 && !strcmp(q.error, "closed"),
		      "kn_cdp_close before open → on_close(closed), queued command fails",
		      "closes %d, opened %d, reason '%s', command %d '%s'", s_early.closes,
		      s_early.opened, s_early.reason, q.done, q.error);
	}

	/* a post from another thread wakes the loop and stops it */
	pthread_t th;
	pthread_create(&th, NULL, post_thread, &t);
	int rc = kn_cdp_loop_run(t.loop);
	pthread_join(th, NULL);
	check(rc == 0 && t.posted == 1 && kn_cdp_loop_stopped(t.loop),
	      "post from a thread runs on the loop; stop ends kn_cdp_loop_run", "rc %d, posted %d", rc,
	      t.posted);
	if (b) {
		json_t *r = NULL;
		rc = kn_cdp_call(b, NULL, "Browser.getVersion", NULL, &r, &err);
		check(rc == KN_EIO && strstr(err.msg, "stopped"), "kn_cdp_call on a stopped loop fails",
		      "rc %d: %s", rc, err.msg);
		json_decref(r);
	}
	kn_cdp_loop_free(t.loop);
	check(!b || (s_free.closes == 1 && !strcmp(s_free.reason, "closed")),
	      "kn_cdp_loop_free → on_close(closed)", "closes %d, reason '%s'", s_free.closes,
	      s_free.reason);
}

/* --- killing the browser --- */

static pid_t browser_pid;

static void kill_browser(void *ud)
{
	(void)ud;
	kill(browser_pid, SIGKILL);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: cdp_client_test DEVTOOLS_ACTIVE_PORT_FILE BROWSER_PID\n");
		return 2;
	}
	browser_pid = (pid_t)atoi(argv[2]);
	char *url = test_discovery(argv[1]);
	if (!url)
		return 1;

	kn_err err;
	kn_cdp_loop *loop;
	if (kn_cdp_loop_new(&loop, &err)) {
		check(0, "loop new", "%s", err.msg);
		return 1;
	}

	seen s1 = {.name = "connect (default options)"};
	kn_cdp *c1 = open_conn(loop, url, NULL, &s1);
	if (!c1)
		return 1;

	json_t *r = NULL;
	int rc = kn_cdp_call(c1, NULL, "Browser.getVersion", NULL, &r, &err);
	const char *product = json_string_value(json_object_get(r, "product"));
	check(rc == 0 && product && strstr(product, "Chrome/") &&
	          json_is_string(json_object_get(r, "protocolVersion")),
	      "Browser.getVersion", "rc %d: %s", rc, rc ? err.msg : "no product");
	json_decref(r);

	rc = kn_cdp_call(c1, NULL, "Target.setDiscoverTargets", json_pack("{s:b}", "discover", 1), NULL,
	                 &err);
	check(rc == 0, "Target.setDiscoverTargets", "rc %d: %s", rc, err.msg);
	r = NULL;
	rc = kn_cdp_call(c1, NULL, "Target.createTarget", json_pack("{s:s}", "url", "about:blank"), &r,
	                 &err);
	const char *tid = json_string_value(json_object_get(r, "targetId"));
	char target[64] = "";
	snprintf(target, sizeof target, "%s", tid ? tid : "");
	json_decref(r);
	check(rc == 0 && *target, "Target.createTarget", "rc %d: %s", rc, err.msg);
	int created = 0;
	for (int waited = 0; !created && waited < WAIT_MS; waited += 50) {
		for (int i = 0; i < s1.n_created; i++)
			created |= !strcmp(s1.created[i], target);
		if (!created)
			kn_cdp_loop_run_for(loop, 50);
	}
	check(created, "Target.targetCreated event for the new target", "not seen (%llu events)",
	      s1.events);

	char sid[64];
	int attached = attach(c1, target, sid, sizeof sid);
	check(attached, "Target.attachToTarget flatten:true → sessionId", "no session id");
	check(!strcmp(s1.attached_session, sid), "Target.attachedToTarget event names the session",
	      "event '%s' vs reply '%s'", s1.attached_session, sid);

	json_t *v = evaluate(c1, sid, "6 * 7", 0, &err, &rc);
	check(rc == 0 && json_integer_value(v) == 42, "Runtime.evaluate on the session", "rc %d: %s",
	      rc, rc ? err.msg : "wrong value");
	json_decref(v);

	kn_cdp_stats st0, st1;
	kn_cdp_get_stats(c1, &st0);
	v = evaluate(c1, sid, big_expr, 0, &err, &rc);
	kn_cdp_get_stats(c1, &st1);
	check(rc == 0 && big_ok(v), "~5 MB reply reassembled byte-exact", "rc %d: %s (length %zu)", rc,
	      rc ? err.msg : "content differs", json_string_length(v));
	check(st1.bytes_in - st0.bytes_in >= BIG_LEN && st1.dropped == 0, "stats count the big reply",
	      "bytes_in +%llu, dropped %llu", st1.bytes_in - st0.bytes_in, st1.dropped);
	json_decref(v);

	rc = kn_cdp_call(c1, NULL, "Foo.bar", NULL, NULL, &err);
	check(rc == KN_EPROTO && strstr(err.msg, "'Foo.bar' wasn't found"),
	      "unknown method → the browser's error string", "rc %d: %s", rc, err.msg);
	rc = kn_cdp_call(c1, sid, "Runtime.evaluate", json_pack("{s:i}", "expression", 1), NULL, &err);
	check(rc == KN_EPROTO && *err.msg, "invalid params → the browser's error string", "rc %d: %s",
	      rc, err.msg);

	/* a connection capped at 1 MB */
	seen s2 = {.name = "connect (max_message 1 MB)"};
	kn_cdp_opts o2 = {.max_message = 1024 * 1024};
	kn_cdp *c2 = open_conn(loop, url, &o2, &s2);
	char sid2[64];
	if (c2 && attach(c2, target, sid2, sizeof sid2)) {
		v = evaluate(c2, sid2, big_expr, 0, &err, &rc);
		check(rc == KN_ELIMIT && strstr(err.msg, "reply too large"),
		      "big reply over max_message fails its command at once", "rc %d: %s", rc, err.msg);
		check(s2.warnings == 1 && strstr(s2.warning, "max_message"), "… with on_warning",
		      "%d warnings: %s", s2.warnings, s2.warning);
		json_decref(v);
		v = evaluate(c2, sid2, "1 + 1", 0, &err, &rc);
		check(rc == 0 && json_integer_value(v) == 2 && !s2.closes,
		      "capped connection still answers the next command", "rc %d: %s", rc, err.msg);
		json_decref(v);
		kn_cdp_get_stats(c2, &st1);
		check(st1.dropped == 1, "stats count the dropped message", "dropped %llu", st1.dropped);
	}

	/* a connection with a 300 ms command timeout */
	seen s3 = {.name = "connect (timeout 300 ms)"};
	kn_cdp_opts o3 = {.timeout_ms = 300};
	kn_cdp *c3 = open_conn(loop, url, &o3, &s3);
	char sid3[64];
	if (c3 && attach(c3, target, sid3, sizeof sid3)) {
		v = evaluate(c3, sid3, "new Promise(() => {})", 1, &err, &rc);
		check(rc == KN_ETIMEOUT && strstr(err.msg, "timed out"),
		      "never-resolving command → timed out", "rc %d: %s", rc, err.msg);
		json_decref(v);
		async_reply a = {0};
		long long id = kn_cdp_send(c3, sid3, "Runtime.evaluate",
		                           json_pack("{s:s, s:b}", "expression", "new Promise(() => {})",
		                                     "awaitPromise", 1),
		                           on_async_reply, &a);
		wait_for(loop, &a.done);
		check(id > 0 && a.done == 1 && !strcmp(a.error, "timed out"),
		      "kn_cdp_send callback gets timed out once", "id %lld, done %d: %s", id, a.done, a.error);
		v = evaluate(c3, sid3, "'still here'", 0, &err, &rc);
		check(rc == 0 && !strcmp(json_string_value(v) ? json_string_value(v) : "", "still here"),
		      "connection answers after timeouts", "rc %d: %s", rc, err.msg);
		json_decref(v);
	}

	test_loop_mechanics(url);

	/* kill the browser while a command waits on c1 (and one more is pending, async) */
	async_reply pend = {0};
	kn_cdp_send(c1, sid, "Runtime.evaluate",
	            json_pack("{s:s, s:b}", "expression", "new Promise(() => {})", "awaitPromise", 1),
	            on_async_reply, &pend);
	kn_cdp_timer_start(loop, 300, kill_browser, NULL);
	v = evaluate(c1, sid, "new Promise(() => {})", 1, &err, &rc);
	check(rc == KN_EIO && strstr(err.msg, "browser disconnected"),
	      "killing the browser fails the waiting call with browser disconnected", "rc %d: %s", rc,
	      err.msg);
	json_decref(v);
	check(pend.done == 1 && !strcmp(pend.error, "browser disconnected"),
	      "… and the other pending command", "done %d: %s", pend.done, pend.error);
	wait_for(loop, &s2.closes);
	wait_for(loop, &s3.closes);
	kn_cdp_loop_run_for(loop, 300);
	seen *all[] = {&s1, &s2, &s3};
	for (size_t i = 0; i < 3; i++)
		check(all[i]->closes == 1 && !strcmp(all[i]->reason, "browser disconnected"),
		      all[i]->name, "after kill: closes %d, reason '%s'", all[i]->closes, all[i]->reason);

	/* nothing listens any more / never did */
	seen s4 = {.name = "connect to the dead browser"};
	kn_cdp_handlers h4 = {on_open, on_event, on_close, on_warning, &s4};
	kn_cdp *c4;
	rc = kn_cdp_connect(&c4, loop, url, NULL, &h4, &err);
	if (rc == 0)
		wait_for(loop, &s4.closes);
	check(rc == 0 && s4.closes == 1 && !s4.opened && !strncmp(s4.reason, "connection refused", 18),
	      "connecting to the dead browser → on_close(connection refused…)",
	      "rc %d, opened %d, closes %d, reason '%s'", rc, s4.opened, s4.closes, s4.reason);

	int fd, dead = refusing_port(&fd);
	char dead_url[128];
	snprintf(dead_url, sizeof dead_url, "ws://127.0.0.1:%d/devtools/browser/none", dead);
	seen s5 = {.name = "connect to a refusing port"};
	kn_cdp_handlers h5 = {on_open, on_event, on_close, on_warning, &s5};
	kn_cdp *c5;
	rc = kn_cdp_connect(&c5, loop, dead_url, NULL, &h5, &err);
	r = NULL;
	int crc = rc ? rc : kn_cdp_call(c5, NULL, "Browser.getVersion", NULL, &r, &err);
	if (rc == 0)
		wait_for(loop, &s5.closes);
	check(rc == 0 && crc == KN_EIO && s5.closes == 1 && !strncmp(s5.reason, "connection refused", 18),
	      "refusing port → call fails and on_close(connection refused…) once",
	      "rc %d, call %d, closes %d, reason '%s'", rc, crc, s5.closes, s5.reason);
	printf("     (reason: %s)\n", s5.reason);
	close(fd);
	rc = kn_cdp_connect(&c5, loop, "http://127.0.0.1:1/", NULL, &h5, &err);
	check(rc == KN_EINVAL, "connect with a non-ws URL → KN_EINVAL", "rc %d", rc);

	kn_cdp_loop_free(loop);
	free(url);
	printf("%s: %d failure%s\n", fails ? "FAILED" : "PASSED", fails, fails == 1 ? "" : "s");
	return fails ? 1 : 0;
}
