/* dashboard_page.c — the harness of dashboard_test (dashboard_page.h): the CDP callbacks that
 * collect what the page target reports, Runtime.evaluate helpers, navigation between the
 * dashboard's pages, screenshots and the connection to the browser. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dashboard_page.h"
#include "keynode/base64.h"

int fails, checks;

void check(int ok, const char *name, const char *fmt, ...)
{
	checks++;
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

static void note_error(page_log *p, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

static void note_error(page_log *p, const char *fmt, ...)
{
	if (p->n_errors >= MAX_ERRORS)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->errors[p->n_errors++], sizeof p->errors[0], fmt, ap);
	va_end(ap);
}

const char *str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

static void on_open(void *ud, kn_cdp *c)
{
	(void)c;
	((page_log *)ud)->opened = 1;
}

static void on_event(void *ud, kn_cdp *c, const char *method, const char *session_id,
                     json_t *params)
{
	page_log *p = ud;
	if (!session_id || strcmp(session_id, p->sid) != 0)
		return;
	if (!strcmp(method, "Runtime.exceptionThrown")) {
		json_t *d = json_object_get(params, "exceptionDetails");
		json_t *ex = json_object_get(d, "exception");
		note_error(p, "exception: %s %s (%s:%lld)", str(d, "text"), str(ex, "description"),
		           str(d, "url"), json_integer_value(json_object_get(d, "lineNumber")));
	} else if (!strcmp(method, "Runtime.consoleAPICalled")) {
		const char *type = str(params, "type");
		if (!strcmp(type, "error") || !strcmp(type, "assert")) {
			json_t *a0 = json_array_get(json_object_get(params, "args"), 0);
			const char *v = json_string_value(json_object_get(a0, "value"));
			note_error(p, "console.%s: %s", type, v ? v : str(a0, "description"));
		}
	} else if (!strcmp(method, "Log.entryAdded")) {
		json_t *e = json_object_get(params, "entry");
		if (!strcmp(str(e, "level"), "error")) {
			if (p->allow_network_error && !strcmp(str(e, "source"), "network") &&
			    strstr(str(e, "url"), p->allow_network_error)) {
				p->allowed_errors++;
				return;
			}
			note_error(p, "log %s: %s (%s)", str(e, "source"), str(e, "text"), str(e, "url"));
		}
	} else if (!strcmp(method, "Page.loadEventFired")) {
		p->loads++;
	} else if (!strcmp(method, "Page.javascriptDialogOpening")) {
		p->dialogs++;
		snprintf(p->dialog, sizeof p->dialog, "%s: %s", str(params, "type"), str(params, "message"));
		/* dismiss it so the page does not hang; the test fails on the count anyway */
		kn_cdp_send(c, session_id, "Page.handleJavaScriptDialog", json_pack("{s:b}", "accept", 0),
		            NULL, NULL);
	}
}

static void on_close(void *ud, kn_cdp *c, const char *reason)
{
	(void)c;
	page_log *p = ud;
	p->closed = 1;
	snprintf(p->close_reason, sizeof p->close_reason, "%s", reason);
}

/* --- the page under test --- */

kn_cdp_loop *loop;
kn_cdp *conn;
page_log plog;
const char *base_url;

/* Runtime.evaluate (awaiting promises, by value): the value (caller's; JSON null when the
 * expression gave undefined) or NULL when it threw or the call failed (why in *why). */
json_t *js(const char *expr, char *why, size_t n)
{
	json_t *r = NULL;
	kn_err err;
	snprintf(why, n, "%s", "");
	int rc = kn_cdp_call(conn, plog.sid, "Runtime.evaluate",
	                     json_pack("{s:s, s:b, s:b}", "expression", expr, "returnByValue", 1,
	                               "awaitPromise", 1),
	                     &r, &err);
	if (rc) {
		snprintf(why, n, "%s", err.msg);
		return NULL;
	}
	json_t *exc = json_object_get(r, "exceptionDetails");
	if (exc) {
		json_t *ex = json_object_get(exc, "exception");
		snprintf(why, n, "threw: %s %s", str(exc, "text"), str(ex, "description"));
		json_decref(r);
		return NULL;
	}
	json_t *res = json_object_get(r, "result");
	json_t *v = json_object_get(res, "value");
	v = v ? json_incref(v) : json_null();
	json_decref(r);
	return v;
}

/* Evaluate and check in one go; NULL (and a failed check) when it threw. */
json_t *jsc(const char *name, const char *expr)
{
	char why[512];
	json_t *v = js(expr, why, sizeof why);
	if (!v)
		check(0, name, "evaluate: %s", why);
	return v;
}

/* Serve the loop until expr is truthy or ms pass; 1 when it became truthy. */
int wait_js(const char *expr, int ms)
{
	char why[512];
	for (int waited = 0; waited <= ms; waited += 100) {
		json_t *v = js(expr, why, sizeof why);
		int ok = v && json_is_true(v);
		json_decref(v);
		if (ok)
			return 1;
		if (plog.closed)
			return 0;
		kn_cdp_loop_run_for(loop, 100);
	}
	return 0;
}

long long jint(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_number(v) ? (long long)json_number_value(v) : -1;
}

int jtrue(json_t *o, const char *key)
{
	return json_is_true(json_object_get(o, key));
}

/* A JavaScript string literal for s (JSON is a subset of JS); caller frees. */
char *js_quote(const char *s)
{
	json_t *j = json_string(s);
	char *out = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
	json_decref(j);
	if (!out) {
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	return out;
}

/* Go to a route in the loaded dashboard (same document) and wait until that page is ready. */
int go(const char *hash, const char *page)
{
	char expr[1024];
	char *q = js_quote(hash);
	snprintf(expr, sizeof expr,
	         "(() => { const v = document.getElementById('view'); v.dataset.state = 'stale';"
	         " if (location.hash === %s) window.dispatchEvent(new HashChangeEvent('hashchange'));"
	         " else location.hash = %s; return true; })()",
	         q, q);
	char why[512];
	json_t *v = js(expr, why, sizeof why);
	json_decref(v);
	snprintf(expr, sizeof expr,
	         "document.getElementById('view').dataset.page === '%s' &&"
	         " document.getElementById('view').dataset.state === 'ready'",
	         page);
	int ok = v && wait_js(expr, WAIT_MS);
	json_t *st = js("document.getElementById('view').dataset.state + ' ' +"
	                " document.getElementById('view').innerText.slice(0, 300)",
	                why, sizeof why);
	check(ok, hash, "page %s not ready: %s", page, json_string_value(st) ? json_string_value(st) : why);
	json_decref(st);
	free(q);
	return ok;
}

static int write_file(const char *path, const unsigned char *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	size_t w = fwrite(data, 1, len, f);
	int rc = fclose(f);
	return w == len && rc == 0 ? 0 : -1;
}

/* Capture the whole page (up to 2400 px high) as a PNG into each of the paths (NULL ends). */
void screenshot(const char *name, const char *path, const char *also)
{
	char why[512];
	json_t *h = js("Math.min(Math.max(document.documentElement.scrollHeight, 600), 2400)", why,
	               sizeof why);
	double height = json_is_number(h) ? json_number_value(h) : 900;
	json_decref(h);
	json_t *r = NULL;
	kn_err err;
	int rc = kn_cdp_call(conn, plog.sid, "Page.captureScreenshot",
	                     json_pack("{s:s, s:b, s:{s:i, s:i, s:i, s:f, s:i}}", "format", "png",
	                               "captureBeyondViewport", 1, "clip", "x", 0, "y", 0, "width",
	                               1360, "height", height, "scale", 1),
	                     &r, &err);
	const char *data = rc ? NULL : json_string_value(json_object_get(r, "data"));
	size_t len = 0;
	unsigned char *png = NULL;
	if (data && kn_base64_decode(&png, &len, data, strlen(data)) != 0)
		png = NULL;
	int ok = png && len > 8 && !memcmp(png, "\x89PNG\r\n\x1a\n", 8) && write_file(path, png, len) == 0;
	if (ok && also)
		ok = write_file(also, png, len) == 0;
	check(ok, name, "screenshot to %s: %s", path, rc ? err.msg : strerror(errno));
	if (ok)
		printf("     %s (%zu bytes)%s%s\n", path, len, also ? " and " : "", also ? also : "");
	free(png);
	json_decref(r);
}

const char *arg(int argc, char **argv, const char *name, int required)
{
	for (int i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], name))
			return argv[i + 1];
	if (required) {
		fprintf(stderr, "dashboard_test: missing %s\n", name);
		exit(2);
	}
	return NULL;
}

int open_page(const char *browser)
{
	kn_err err;
	char *ws = NULL;
	if (kn_cdp_discover(&ws, browser, WAIT_MS, &err)) {
		check(0, "connect", "discover %s: %s", browser, err.msg);
		return -1;
	}
	if (kn_cdp_loop_new(&loop, &err)) {
		free(ws);
		check(0, "connect", "loop: %s", err.msg);
		return -1;
	}
	kn_cdp_handlers h = {on_open, on_event, on_close, NULL, &plog};
	int rc = kn_cdp_connect(&conn, loop, ws, NULL, &h, &err);
	free(ws);
	if (rc) {
		check(0, "connect", "%s", err.msg);
		return -1;
	}
	for (int waited = 0; !plog.opened && !plog.closed && waited < WAIT_MS; waited += 50)
		kn_cdp_loop_run_for(loop, 50);
	if (!plog.opened) {
		check(0, "connect", "not open: %s", plog.close_reason);
		return -1;
	}
	json_t *r = NULL;
	if (kn_cdp_call(conn, NULL, "Target.createTarget", json_pack("{s:s}", "url", "about:blank"), &r,
	                &err)) {
		check(0, "connect", "%s", err.msg);
		return -1;
	}
	char target[128];
	snprintf(target, sizeof target, "%s", str(r, "targetId"));
	json_decref(r);
	if (kn_cdp_call(conn, NULL, "Target.attachToTarget",
	                json_pack("{s:s, s:b}", "targetId", target, "flatten", 1), &r, &err)) {
		check(0, "connect", "%s", err.msg);
		return -1;
	}
	snprintf(plog.sid, sizeof plog.sid, "%s", str(r, "sessionId"));
	json_decref(r);
	const char *enable[] = {"Runtime.enable", "Log.enable", "Page.enable"};
	for (size_t i = 0; i < sizeof enable / sizeof *enable; i++) {
		if (kn_cdp_call(conn, plog.sid, enable[i], NULL, &r, &err)) {
			check(0, "connect", "%s", err.msg);
			return -1;
		}
		json_decref(r);
	}
	if (kn_cdp_call(conn, plog.sid, "Emulation.setDeviceMetricsOverride",
	                json_pack("{s:i, s:i, s:i, s:b}", "width", 1360, "height", 900,
	                          "deviceScaleFactor", 1, "mobile", 0),
	                &r, &err)) {
		check(0, "connect", "%s", err.msg);
		return -1;
	}
	json_decref(r);
	char url[1024];
	snprintf(url, sizeof url, "%s/#/", base_url);
	int loads = plog.loads;
	if (kn_cdp_call(conn, plog.sid, "Page.navigate", json_pack("{s:s}", "url", url), &r, &err)) {
		check(0, "connect", "%s", err.msg);
		return -1;
	}
	const char *nav_err = str(r, "errorText");
	int ok = !*nav_err;
	check(ok, "the dashboard loads in Chromium", "navigate %s: %s", url, nav_err);
	json_decref(r);
	for (int waited = 0; ok && plog.loads == loads && waited < WAIT_MS; waited += 50)
		kn_cdp_loop_run_for(loop, 50);
	if (ok)
		ok = wait_js("!!document.getElementById('view') && document.getElementById('view').dataset.state === 'ready'",
		             WAIT_MS);
	return ok ? 0 : -1;
}
