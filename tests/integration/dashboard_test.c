/* dashboard_test.c — the maintainer dashboard end to end, in a real headless Chromium driven by
 * keynode's own CDP client (services/cdp), against a running `keynode serve` (dashboard.sh sets
 * up PostgreSQL, serve, a task set with an XSS intent, alerts and a live run whose agent waits for
 * our go file). On one page target it collects every exception, console error and error log entry
 * (and fails on any), every JavaScript dialog (there must be none), then walks the pages: the
 * overview (tiles, task list, filters and both charts against what the API answers), the live run
 * view (key nodes light up one batch at a time as the agent reaches them, in the same document),
 * the runs table, the finished run, the task detail with "replay now" (401 without the token,
 * queued with it, then run by the worker and shown on the timeline), the XSS task (its intent
 * shown literally, window.__pwned never set), a broken task (timeline, failures, the stored
 * screenshot), and the alerts page with Acknowledge. Screenshots go to OUT_DIR; the overview with data also to --docs.
 * No wall-clock assertions: waits are generous upper bounds.
 *
 * usage: dashboard_test --browser CDP --base URL --out DIR --token T --tasks N
 *          --xss-task ID --xss-intent TEXT --live-run RUN --live-task ID --broken-task ID
 *          --go FILE [--docs PNG] */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cdp.h"

#define WAIT_MS 30000
#define LIVE_WAIT_MS 90000
#define MAX_ERRORS 64

static int fails, checks;

static void check(int ok, const char *name, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

static void check(int ok, const char *name, const char *fmt, ...)
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

/* What the page target reported. */
typedef struct page_log {
	char sid[64];
	int opened, closed;
	char close_reason[128];
	char errors[MAX_ERRORS][512];
	int n_errors;
	int dialogs;
	char dialog[256];
	int loads; /* Page.loadEventFired */
	/* a 401 on this URL part is expected right now (the "replay now" without a token) */
	const char *allow_network_error;
	int allowed_errors;
} page_log;

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

static const char *str(json_t *o, const char *key)
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

static kn_cdp_loop *loop;
static kn_cdp *conn;
static page_log plog;
static const char *base_url;

/* Runtime.evaluate (awaiting promises, by value): the value (caller's; JSON null when the
 * expression gave undefined) or NULL when it threw or the call failed (why in *why). */
static json_t *js(const char *expr, char *why, size_t n)
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
static json_t *jsc(const char *name, const char *expr)
{
	char why[512];
	json_t *v = js(expr, why, sizeof why);
	if (!v)
		check(0, name, "evaluate: %s", why);
	return v;
}

/* Serve the loop until expr is truthy or ms pass; 1 when it became truthy. */
static int wait_js(const char *expr, int ms)
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

static long long jint(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_number(v) ? (long long)json_number_value(v) : -1;
}

static int jtrue(json_t *o, const char *key)
{
	return json_is_true(json_object_get(o, key));
}

/* A JavaScript string literal for s (JSON is a subset of JS); caller frees. */
static char *js_quote(const char *s)
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
static int go(const char *hash, const char *page)
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

static int b64val(int ch)
{
	if (ch >= 'A' && ch <= 'Z')
		return ch - 'A';
	if (ch >= 'a' && ch <= 'z')
		return ch - 'a' + 26;
	if (ch >= '0' && ch <= '9')
		return ch - '0' + 52;
	if (ch == '+')
		return 62;
	if (ch == '/')
		return 63;
	return -1;
}

/* Decode base64 (no whitespace; '=' padding) into a new buffer; NULL on bad input. */
static unsigned char *b64decode(const char *s, size_t *len)
{
	size_t n = strlen(s);
	unsigned char *out = malloc(n / 4 * 3 + 3);
	if (!out)
		return NULL;
	size_t o = 0;
	unsigned acc = 0;
	int bits = 0;
	for (size_t i = 0; i < n && s[i] != '='; i++) {
		int v = b64val((unsigned char)s[i]);
		if (v < 0) {
			free(out);
			return NULL;
		}
		acc = (acc << 6) | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[o++] = (unsigned char)((acc >> bits) & 0xffu);
		}
	}
	*len = o;
	return out;
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
static void screenshot(const char *name, const char *path, const char *also)
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
	unsigned char *png = data ? b64decode(data, &len) : NULL;
	int ok = png && len > 8 && !memcmp(png, "\x89PNG\r\n\x1a\n", 8) && write_file(path, png, len) == 0;
	if (ok && also)
		ok = write_file(also, png, len) == 0;
	check(ok, name, "screenshot to %s: %s", path, rc ? err.msg : strerror(errno));
	if (ok)
		printf("     %s (%zu bytes)%s%s\n", path, len, also ? " and " : "", also ? also : "");
	free(png);
	json_decref(r);
}

/* --- the pages --- */

static void test_overview(int want_tasks, const char *xss_task, const char *xss_intent)
{
	if (!go("#/", "overview"))
		return;
	json_t *v = jsc("overview data",
	                "(async () => {"
	                " const api = (await (await fetch('/api/tasks')).json()).tasks;"
	                " const runs = (await (await fetch('/api/runs?limit=500')).json()).runs;"
	                " const rows = [...document.querySelectorAll('#task-table tbody tr[data-task]')];"
	                " const ids = rows.map(r => r.dataset.task).sort().join('\\n');"
	                " const apiIds = api.map(t => String(t.id)).sort().join('\\n');"
	                " const H = ['healthy','flaky','broken','recovered','error','blocked','unknown'];"
	                " const want = {}; H.forEach(h => want[h] = 0);"
	                " api.forEach(t => want[H.includes(t.health) ? t.health : 'unknown']++);"
	                " const tiles = {}; document.querySelectorAll('#tiles .tile').forEach(t =>"
	                "   tiles[t.dataset.status] = +t.querySelector('.tile-count').textContent);"
	                " const tilesOk = H.every(h => tiles[h] === want[h]);"
	                " const badgesOk = rows.every(r => { const t = api.find(x => String(x.id) === r.dataset.task);"
	                "   return r.querySelector('.badge').textContent === (t.health || 'unknown'); });"
	                " const intentsOk = rows.every(r => { const t = api.find(x => String(x.id) === r.dataset.task);"
	                "   return r.querySelector('.task-intent').textContent === t.intent; });"
	                " const bars = [...document.querySelectorAll('#chart-success svg .bucket')]"
	                "   .reduce((a, g) => a + +g.dataset.n, 0);"
	                " return {api: api.length, rows: rows.length, idsOk: ids === apiIds, tiles, want,"
	                "   tilesOk, badgesOk, intentsOk, runs: runs.length, bars,"
	                "   sites: [...new Set(api.map(t => t.site).filter(Boolean))].length,"
	                "   siteOptions: document.querySelectorAll('#filter-site option').length - 1 };"
	                "})()");
	if (v) {
		check(jint(v, "api") == want_tasks, "overview: the API lists every loaded task",
		      "%lld tasks, want %d", jint(v, "api"), want_tasks);
		check(jint(v, "rows") == jint(v, "api") && jtrue(v, "idsOk"),
		      "overview: one table row per task, same ids", "%lld rows for %lld tasks",
		      jint(v, "rows"), jint(v, "api"));
		char *t = json_dumps(json_object_get(v, "tiles"), JSON_COMPACT);
		char *w = json_dumps(json_object_get(v, "want"), JSON_COMPACT);
		check(jtrue(v, "tilesOk"), "overview: health tiles count the tasks per state", "tiles %s, API %s",
		      t ? t : "?", w ? w : "?");
		free(t);
		free(w);
		check(jtrue(v, "badgesOk"), "overview: each row's health badge is the task's health", "mismatch");
		check(jtrue(v, "intentsOk"), "overview: each row's intent is the task's intent as text",
		      "mismatch");
		check(jint(v, "bars") == jint(v, "runs"), "overview: the success chart counts every run",
		      "chart %lld runs, API %lld", jint(v, "bars"), jint(v, "runs"));
		check(jint(v, "siteOptions") == jint(v, "sites") && jint(v, "sites") >= 1,
		      "overview: the site filter offers each site", "%lld options, %lld sites",
		      jint(v, "siteOptions"), jint(v, "sites"));
	}
	json_decref(v);

	/* filters: status via a tile click, site via the select */
	v = jsc("overview filters",
	        "(async () => {"
	        " const api = (await (await fetch('/api/tasks')).json()).tasks;"
	        " const rows = () => document.querySelectorAll('#task-table tbody tr[data-task]').length;"
	        " const broken = api.filter(t => t.health === 'broken').length;"
	        " const unknown = api.filter(t => !t.health || t.health === 'unknown').length;"
	        " document.querySelector('#tiles .tile[data-status=unknown]').click();"
	        " const byTile = rows();"
	        " const sel = document.getElementById('filter-status');"
	        " sel.value = 'broken'; sel.dispatchEvent(new Event('change'));"
	        " const bySelect = rows();"
	        " sel.value = ''; sel.dispatchEvent(new Event('change'));"
	        " const site = api[0].site;"
	        " const ss = document.getElementById('filter-site');"
	        " ss.value = site; ss.dispatchEvent(new Event('change'));"
	        " const bySite = rows(); const siteWant = api.filter(t => t.site === site).length;"
	        " ss.value = ''; ss.dispatchEvent(new Event('change'));"
	        " return {byTile, unknown, bySelect, broken, bySite, siteWant, all: rows(), n: api.length};"
	        "})()");
	if (v) {
		check(jint(v, "byTile") == jint(v, "unknown"), "overview: clicking a tile filters by that state",
		      "%lld rows, %lld unknown tasks", jint(v, "byTile"), jint(v, "unknown"));
		check(jint(v, "bySelect") == jint(v, "broken"), "overview: the status filter",
		      "%lld rows, %lld broken tasks", jint(v, "bySelect"), jint(v, "broken"));
		check(jint(v, "bySite") == jint(v, "siteWant") && jint(v, "siteWant") > 0,
		      "overview: the site filter", "%lld rows, want %lld", jint(v, "bySite"),
		      jint(v, "siteWant"));
		check(jint(v, "all") == jint(v, "n"), "overview: clearing the filters shows every task",
		      "%lld of %lld", jint(v, "all"), jint(v, "n"));
	}
	json_decref(v);

	/* the XSS intent: literal text, no element made from it, no script run */
	char *q = js_quote(xss_intent), *qt = js_quote(xss_task);
	char expr[2048];
	snprintf(expr, sizeof expr,
	         "(() => { const want = %s;"
	         " const row = [...document.querySelectorAll('#task-table tbody tr')].find(r => r.dataset.task === %s);"
	         " const cell = row && row.querySelector('.task-intent');"
	         " return {found: !!row, text: cell ? cell.textContent === want : false,"
	         "  visible: document.getElementById('view').innerText.includes(want),"
	         "  injected: document.querySelectorAll('#view img, #view script, #view iframe').length,"
	         "  pwned: typeof window.__pwned }; })()",
	         q, qt);
	v = jsc("overview xss", expr);
	if (v) {
		check(jtrue(v, "found") && jtrue(v, "text"), "xss: the overview shows the intent as literal text",
		      "row found %d, text equal %d", jtrue(v, "found"), jtrue(v, "text"));
		check(jtrue(v, "visible"), "xss: … and it is visible literally (innerText)", "not in innerText");
		check(jint(v, "injected") == 0, "xss: no element was created from the intent", "%lld img/script/iframe",
		      jint(v, "injected"));
		check(!strcmp(str(v, "pwned"), "undefined"), "xss: window.__pwned stays undefined", "typeof %s",
		      str(v, "pwned"));
	}
	json_decref(v);
	free(q);
	free(qt);
}

/* The function chart waits for one request per run: give it time, then compare with the API. */
static void test_function_chart(int want_some)
{
	int ready = wait_js("document.getElementById('chart-functions').dataset.state === 'ready'", WAIT_MS);
	check(ready, "overview: the key-node completion chart loads", "never ready");
	json_t *v = jsc("function chart",
	                "(async () => {"
	                " const api = (await (await fetch('/api/tasks')).json()).tasks;"
	                " let reached = 0, total = 0;"
	                " for (const t of api) { if (!t.last_run) continue;"
	                "   const r = await (await fetch('/api/runs/' + encodeURIComponent(t.last_run.id))).json();"
	                "   for (const k of r.key_nodes || []) { total++; if (k.score > 0 || k.reached_at_step) reached++; } }"
	                " const g = [...document.querySelectorAll('#chart-functions .fnrow')];"
	                " return {rows: g.length, total, reached,"
	                "   chartTotal: g.reduce((a, x) => a + +x.dataset.total, 0),"
	                "   chartReached: g.reduce((a, x) => a + +x.dataset.reached, 0) }; })()");
	if (v) {
		check(jint(v, "chartTotal") == jint(v, "total") && jint(v, "chartReached") == jint(v, "reached"),
		      "overview: completion by function sums the last runs' key nodes",
		      "chart %lld/%lld, API %lld/%lld", jint(v, "chartReached"), jint(v, "chartTotal"),
		      jint(v, "reached"), jint(v, "total"));
		if (want_some)
			check(jint(v, "rows") >= 1 && jint(v, "chartReached") >= 1,
			      "overview: … with the live run's functions in it", "%lld rows, %lld reached",
			      jint(v, "rows"), jint(v, "chartReached"));
	}
	json_decref(v);
}

static void test_live_run(const char *run, const char *go_file, const char *out)
{
	char hash[256], path[1024];
	snprintf(hash, sizeof hash, "#/runs/%s", run);
	if (!go(hash, "run"))
		return;
	int live = wait_js("document.getElementById('run-live').textContent === 'live'", WAIT_MS);
	check(live, "live run: the view subscribes to /api/stream", "run-live never said live");
	json_t *v = jsc("live run start",
	                "(() => { const li = [...document.querySelectorAll('#run-keynodes li[data-node]')];"
	                " window.__kn_doc = 'same';"
	                " window.__kn_batches = []; let batch = 0;"
	                " new MutationObserver(() => { batch++;"
	                "   const now = [...document.querySelectorAll('#run-keynodes li.reached')].map(x => x.dataset.node);"
	                "   for (const id of now) if (!window.__kn_batches.some(b => b.id === id))"
	                "     window.__kn_batches.push({id, batch}); })"
	                "   .observe(document.getElementById('run-keynodes'), {childList: true, subtree: true, attributes: true});"
	                " return {nodes: li.length, reached: document.querySelectorAll('#run-keynodes li.reached').length,"
	                "   status: document.querySelector('#run-status .badge').textContent,"
	                "   order: li.map(x => x.dataset.node) }; })()");
	long long nodes = v ? jint(v, "nodes") : 0;
	if (v) {
		check(nodes >= 2, "live run: the task's key nodes are listed", "%lld nodes", nodes);
		check(jint(v, "reached") == 0 && !strcmp(str(v, "status"), "running"),
		      "live run: before the agent acts nothing is reached, status running",
		      "%lld reached, status %s", jint(v, "reached"), str(v, "status"));
	}
	json_decref(v);
	FILE *f = fopen(go_file, "w");
	check(f != NULL, "live run: the agent is told to go", "%s: %s", go_file, strerror(errno));
	if (f)
		fclose(f);
	char expr[512];
	snprintf(expr, sizeof expr,
	         "document.querySelectorAll('#run-keynodes li.reached').length === %lld &&"
	         " document.querySelector('#run-status .badge').textContent === 'finished'",
	         nodes);
	int done = wait_js(expr, LIVE_WAIT_MS);
	v = jsc("live run end",
	        "(() => { const li = [...document.querySelectorAll('#run-keynodes li[data-node]')];"
	        " const b = window.__kn_batches || [];"
	        " const idx = li.map(x => x.dataset.node);"
	        " let ordered = true;"
	        " const batchOf = id => (b.find(x => x.id === id) || {batch: -1}).batch;"
	        " const seq = idx.map(batchOf);"
	        " for (let i = 1; i < seq.length; i++) if (seq[i] < seq[i - 1]) ordered = false;"
	        " return {doc: window.__kn_doc || null, batches: new Set(b.map(x => x.batch)).size,"
	        "   seen: b.length, ordered, seq: seq.join(','),"
	        "   reached: document.querySelectorAll('#run-keynodes li.reached').length,"
	        "   colour: li.length ? getComputedStyle(li[0]).backgroundColor : '',"
	        "   grey: getComputedStyle(document.createElement('li')).backgroundColor,"
	        "   status: document.querySelector('#run-status .badge').textContent,"
	        "   score: document.getElementById('run-score').textContent,"
	        "   steps: +document.getElementById('run-steps').textContent,"
	        "   events: document.querySelectorAll('#run-log li').length,"
	        "   matched: document.querySelectorAll('#run-log .ev-matched').length,"
	        "   live: document.getElementById('run-live').textContent }; })()");
	if (v) {
		check(done, "live run: every key node lit up and the run finished",
		      "%lld of %lld reached, status %s, feed %s", jint(v, "reached"), nodes, str(v, "status"),
		      str(v, "live"));
		check(!strcmp(str(v, "doc"), "same"), "live run: updated in place (no reload)", "document changed");
		check(jint(v, "seen") == nodes, "live run: each key node was seen turning reached",
		      "%lld of %lld", jint(v, "seen"), nodes);
		check(jint(v, "batches") >= 2, "live run: nodes were reached in more than one update",
		      "%lld update(s): %s", jint(v, "batches"), str(v, "seq"));
		check(jtrue(v, "ordered"), "live run: in the task's key-node order", "batches per node %s",
		      str(v, "seq"));
		check(!strcmp(str(v, "score"), "1.00"), "live run: the score is 1.00", "%s", str(v, "score"));
		check(jint(v, "steps") > 0 && jint(v, "events") > 0 && jint(v, "matched") >= 0,
		      "live run: steps and the event log grew", "%lld steps, %lld events", jint(v, "steps"),
		      jint(v, "events"));
		check(!strncmp(str(v, "live"), "ended", 5), "live run: the view says the run ended", "%s",
		      str(v, "live"));
	}
	json_decref(v);
	snprintf(path, sizeof path, "%s/dashboard-run-live.png", out);
	screenshot("live run: screenshot", path, NULL);
}

static void test_runs(const char *run, const char *out)
{
	char path[1024], expr[2048];
	if (!go("#/runs", "runs"))
		return;
	char *q = js_quote(run);
	snprintf(expr, sizeof expr,
	         "(async () => { const api = (await (await fetch('/api/runs?limit=200')).json()).runs;"
	         " const rows = [...document.querySelectorAll('#runs-table tbody tr[data-run]')];"
	         " const row = rows.find(r => r.dataset.run === %s);"
	         " const a = api.find(r => String(r.id) === %s);"
	         " return {rows: rows.length, api: api.length, found: !!row,"
	         "  status: row ? row.querySelector('.badge').textContent : '', apiStatus: a ? a.status : '',"
	         "  link: row ? row.querySelector('a.run-link').getAttribute('href') : '' }; })()",
	         q, q);
	json_t *v = jsc("runs data", expr);
	if (v) {
		check(jint(v, "rows") == jint(v, "api") && jint(v, "api") >= 1, "runs: one row per run",
		      "%lld rows, %lld runs", jint(v, "rows"), jint(v, "api"));
		check(jtrue(v, "found") && !strcmp(str(v, "status"), "finished") &&
		          !strcmp(str(v, "apiStatus"), "finished"),
		      "runs: the live run is listed finished", "found %d, shown %s, API %s", jtrue(v, "found"),
		      str(v, "status"), str(v, "apiStatus"));
		char want[256];
		snprintf(want, sizeof want, "#/runs/%s", run);
		check(!strcmp(str(v, "link"), want), "runs: the row links to the run view", "%s", str(v, "link"));
	}
	json_decref(v);
	free(q);
	snprintf(path, sizeof path, "%s/dashboard-runs.png", out);
	screenshot("runs: screenshot", path, NULL);

	/* the finished run from a fresh document: everything from GET /api/runs/{id} */
	json_t *r = NULL;
	kn_err err;
	char url[1024];
	/* a query makes it a new document (a fragment change would stay in this one) */
	snprintf(url, sizeof url, "%s/?reload=1#/runs/%s", base_url, run);
	int loads = plog.loads;
	int rc = kn_cdp_call(conn, plog.sid, "Page.navigate", json_pack("{s:s}", "url", url), &r, &err);
	json_decref(r);
	/* evaluate only once the new document has loaded: one sent while the old context goes away
	 * may never be answered */
	for (int waited = 0; !rc && plog.loads == loads && waited < WAIT_MS; waited += 50)
		kn_cdp_loop_run_for(loop, 50);
	int ready = !rc && wait_js("typeof window.__kn_doc === 'undefined' &&"
	                           " document.getElementById('view').dataset.page === 'run' &&"
	                           " document.getElementById('view').dataset.state === 'ready'",
	                           WAIT_MS);
	char why[256];
	json_t *st = ready || rc ? NULL
	                         : js("location.href + ' page=' + document.getElementById('view').dataset.page +"
	                              " ' state=' + document.getElementById('view').dataset.state +"
	                              " ' doc=' + typeof window.__kn_doc",
	                              why, sizeof why);
	check(ready, "finished run: the view loads in a new document", "%s",
	      rc ? err.msg : json_string_value(st) ? json_string_value(st) : why);
	json_decref(st);
	v = ready ? jsc("finished run",
	                "(() => ({all: document.querySelectorAll('#run-keynodes li').length,"
	                " reached: document.querySelectorAll('#run-keynodes li.reached').length,"
	                " status: document.querySelector('#run-status .badge').textContent,"
	                " live: document.getElementById('run-live').textContent,"
	                " events: document.querySelectorAll('#run-log li').length,"
	                " dots: document.querySelectorAll('#run-step-scores circle').length,"
	                " steps: +document.getElementById('run-steps').textContent}))()")
	          : NULL;
	if (v) {
		check(jint(v, "all") >= 2 && jint(v, "reached") == jint(v, "all") &&
		          !strcmp(str(v, "status"), "finished") && !strcmp(str(v, "live"), "finished run"),
		      "finished run: all key nodes reached, status finished, no live feed",
		      "%lld/%lld reached, %s, %s", jint(v, "reached"), jint(v, "all"), str(v, "status"),
		      str(v, "live"));
		check(jint(v, "events") > 0 && jint(v, "dots") == jint(v, "steps"),
		      "finished run: the event log and one step-score dot per step",
		      "%lld events, %lld dots, %lld steps", jint(v, "events"), jint(v, "dots"),
		      jint(v, "steps"));
	}
	json_decref(v);
}

static void test_task(const char *task, const char *run, const char *token, const char *out)
{
	char hash[512], expr[4096], path[1024];
	snprintf(hash, sizeof hash, "#/tasks/%s", task);
	if (!go(hash, "task"))
		return;
	char *qt = js_quote(task), *qr = js_quote(run);
	snprintf(expr, sizeof expr,
	         "(async () => { const t = await (await fetch('/api/tasks/' + encodeURIComponent(%s))).json();"
	         " const rows = [...document.querySelectorAll('#keynode-table tbody tr')];"
	         " const ids = rows.map(r => r.dataset.node).join(',');"
	         " const runRow = [...document.querySelectorAll('#task-runs tbody tr')].some(r => r.dataset.run === %s);"
	         " return {intent: document.getElementById('task-intent').textContent === t.intent,"
	         "  nodes: rows.length, apiNodes: t.key_nodes.length,"
	         "  idsOk: ids === t.key_nodes.map(k => k.id).join(','),"
	         "  expectOk: rows.every((r, i) => r.querySelector('.expect').textContent ==="
	         "    (typeof t.key_nodes[i].expect === 'string' ? t.key_nodes[i].expect : r.querySelector('.expect').textContent)),"
	         "  runRow, timeline: !!document.querySelector('#replay-timeline svg'),"
	         "  transitions: !!document.getElementById('health-transitions'),"
	         "  button: !!document.getElementById('replay-now') }; })()",
	         qt, qr);
	json_t *v = jsc("task data", expr);
	if (v) {
		check(jtrue(v, "intent"), "task: the intent", "differs from the API");
		check(jint(v, "nodes") == jint(v, "apiNodes") && jtrue(v, "idsOk") && jtrue(v, "expectOk"),
		      "task: the key node table (ids, expected values)", "%lld rows, %lld nodes",
		      jint(v, "nodes"), jint(v, "apiNodes"));
		check(jtrue(v, "runRow"), "task: run history lists the live run", "not found");
		check(jtrue(v, "timeline") && jtrue(v, "transitions") && jtrue(v, "button"),
		      "task: replay timeline, health transitions and the replay button are there", "missing");
	}
	json_decref(v);

	/* replay now without the token: 401 shown (the network error it logs is expected) */
	plog.allow_network_error = "/api/replays";
	v = jsc("replay without token",
	        "(async () => { document.getElementById('token').value = '';"
	        " document.getElementById('token').dispatchEvent(new Event('change'));"
	        " document.getElementById('replay-now').click();"
	        " for (let i = 0; i < 200 && !/token/.test(document.getElementById('replay-message').textContent); i++)"
	        "   await new Promise(r => setTimeout(r, 50));"
	        " return document.getElementById('replay-message').textContent; })()");
	check(v && strstr(json_string_value(v) ? json_string_value(v) : "", "set the API token"),
	      "task: replay now without a token says so (401)", "message %s",
	      json_string_value(v) ? json_string_value(v) : "?");
	json_decref(v);
	kn_cdp_loop_run_for(loop, 200); /* let the log entry of the 401 arrive while it is allowed */
	plog.allow_network_error = NULL;

	char *qk = js_quote(token);
	snprintf(expr, sizeof expr,
	         "(async () => { const t = await (await fetch('/api/tasks/' + encodeURIComponent(%s))).json();"
	         " const before = (t.replays || []).length;"
	         " const tok = document.getElementById('token'); tok.value = %s;"
	         " tok.dispatchEvent(new Event('change'));"
	         " document.getElementById('replay-now').click();"
	         " for (let i = 0; i < 200 && !/queued job/.test(document.getElementById('replay-message').textContent); i++)"
	         "   await new Promise(r => setTimeout(r, 50));"
	         " return {msg: document.getElementById('replay-message').textContent, before,"
	         "  stored: localStorage.getItem('keynode.token') === %s,"
	         "  state: document.getElementById('token-state').textContent }; })()",
	         qt, qk, qk);
	v = jsc("replay with token", expr);
	if (v) {
		check(!strncmp(str(v, "msg"), "queued job", 10), "task: replay now with the token queues a job",
		      "message %s", str(v, "msg"));
		check(jtrue(v, "stored") && !strcmp(str(v, "state"), "set"),
		      "header: the token is kept in localStorage", "stored %d, state %s", jtrue(v, "stored"),
		      str(v, "state"));
		/* the worker dashboard.sh runs takes the job: its result joins the task's replays and,
		 * after a reload of the page, the timeline */
		snprintf(expr, sizeof expr,
		         "fetch('/api/tasks/' + encodeURIComponent(%s)).then(r => r.json())"
		         ".then(t => (t.replays || []).length > %lld)",
		         qt, jint(v, "before"));
		int replayed = wait_js(expr, LIVE_WAIT_MS);
		check(replayed, "task: the queued replay ran (a worker took the job)", "no new replay after %d s",
		      LIVE_WAIT_MS / 1000);
		if (replayed && go(hash, "task")) {
			snprintf(expr, sizeof expr,
			         "document.querySelectorAll('#replay-timeline circle[data-replay]').length === %lld &&"
			         " document.querySelectorAll('#replay-timeline circle.replay-passed').length >= 1",
			         jint(v, "before") + 1);
			check(wait_js(expr, 1000), "task: the replay timeline shows it, passed", "not shown");
		}
	}
	json_decref(v);
	free(qk);
	free(qt);
	free(qr);
	snprintf(path, sizeof path, "%s/dashboard-task.png", out);
	screenshot("task: screenshot", path, NULL);
}

static void test_xss_task(const char *task, const char *intent, const char *out)
{
	char hash[512], expr[2048], path[1024];
	snprintf(hash, sizeof hash, "#/tasks/%s", task);
	if (!go(hash, "task"))
		return;
	char *q = js_quote(intent);
	snprintf(expr, sizeof expr,
	         "(() => ({text: document.getElementById('task-intent').textContent === %s,"
	         " visible: document.getElementById('view').innerText.includes(%s),"
	         " injected: document.querySelectorAll('#view script, #view iframe, #view img:not(#failure-screenshot)').length,"
	         " pwned: typeof window.__pwned}))()",
	         q, q);
	json_t *v = jsc("xss task", expr);
	if (v) {
		check(jtrue(v, "text") && jtrue(v, "visible"), "xss: the task page shows the intent literally",
		      "text %d, visible %d", jtrue(v, "text"), jtrue(v, "visible"));
		check(jint(v, "injected") == 0 && !strcmp(str(v, "pwned"), "undefined"),
		      "xss: … without creating elements or running script", "%lld elements, __pwned %s",
		      jint(v, "injected"), str(v, "pwned"));
	}
	json_decref(v);
	free(q);
	snprintf(path, sizeof path, "%s/dashboard-task-xss.png", out);
	screenshot("xss: screenshot", path, NULL);
}

/* A task whose replays broke: health badge, broken dots on the timeline, the failure list and
 * the stored screenshot loaded as an image. */
static void test_broken_task(const char *task, const char *out)
{
	char hash[512], path[1024];
	snprintf(hash, sizeof hash, "#/tasks/%s", task);
	if (!go(hash, "task"))
		return;
	int shot = wait_js("(() => { const i = document.getElementById('failure-screenshot');"
	                   " return !!i && i.complete && i.naturalWidth > 0; })()",
	                   WAIT_MS);
	json_t *v = jsc("broken task",
	                "(() => ({health: document.querySelector('#task-id .badge').textContent,"
	                " broken: document.querySelectorAll('#replay-timeline circle.replay-broken').length,"
	                " failures: document.querySelectorAll('#replay-failures li').length,"
	                " transitions: document.querySelectorAll('#health-transitions tbody tr').length}))()");
	if (v) {
		check(!strcmp(str(v, "health"), "broken"), "broken task: health badge says broken", "%s",
		      str(v, "health"));
		check(jint(v, "broken") == 2 && jint(v, "failures") == 2,
		      "broken task: two broken replays on the timeline and in the failure list",
		      "%lld dots, %lld failures", jint(v, "broken"), jint(v, "failures"));
		check(jint(v, "transitions") >= 1, "broken task: its health transitions are listed", "%lld rows",
		      jint(v, "transitions"));
	}
	json_decref(v);
	check(shot, "broken task: the last failure screenshot is shown (loaded PNG)", "no image loaded");
	snprintf(path, sizeof path, "%s/dashboard-task-broken.png", out);
	screenshot("broken task: screenshot", path, NULL);
}

static void test_alerts(const char *out)
{
	char path[1024];
	if (!go("#/alerts", "alerts"))
		return;
	json_t *v = jsc("alerts data",
	                "(async () => { const api = (await (await fetch('/api/alerts?all=1')).json()).alerts;"
	                " const rows = [...document.querySelectorAll('#alerts-table tbody tr[data-alert]')];"
	                " const sevOk = rows.every(r => { const a = api.find(x => String(x.id) === r.dataset.alert);"
	                "   return a && r.querySelector('.badge').textContent === a.severity &&"
	                "     r.querySelector('.alert-title').textContent === a.title; });"
	                " const colours = new Set(rows.map(r => getComputedStyle(r.querySelector('.badge')).color)).size;"
	                " const open = api.filter(a => !a.acked);"
	                " return {rows: rows.length, api: api.length, open: open.length, sevOk, colours,"
	                "  buttons: document.querySelectorAll('#alerts-table .ack-button').length,"
	                "  injected: document.querySelectorAll('#view img, #view script').length,"
	                "  pwned: typeof window.__pwned,"
	                "  first: open.length ? String(open[0].id) : null }; })()");
	char first[64] = "";
	if (v) {
		check(jint(v, "rows") == jint(v, "api") && jint(v, "api") >= 2, "alerts: one row per alert",
		      "%lld rows, %lld alerts", jint(v, "rows"), jint(v, "api"));
		check(jtrue(v, "sevOk") && jint(v, "colours") >= 2,
		      "alerts: severity badges in their own colours, titles as text", "ok %d, %lld colours",
		      jtrue(v, "sevOk"), jint(v, "colours"));
		check(jint(v, "buttons") == jint(v, "open") && jint(v, "open") >= 1,
		      "alerts: an Acknowledge button per open alert", "%lld buttons, %lld open",
		      jint(v, "buttons"), jint(v, "open"));
		check(jint(v, "injected") == 0 && !strcmp(str(v, "pwned"), "undefined"),
		      "xss: alert titles and details render as text", "%lld elements, __pwned %s",
		      jint(v, "injected"), str(v, "pwned"));
		snprintf(first, sizeof first, "%s", str(v, "first"));
	}
	json_decref(v);
	snprintf(path, sizeof path, "%s/dashboard-alerts.png", out);
	screenshot("alerts: screenshot", path, NULL);
	if (!*first)
		return;
	char expr[2048];
	char *q = js_quote(first);
	snprintf(expr, sizeof expr,
	         "(async () => { const row = () => [...document.querySelectorAll('#alerts-table tr[data-alert]')]"
	         "   .find(r => r.dataset.alert === %s);"
	         " row().querySelector('.ack-button').click();"
	         " for (let i = 0; i < 200 && row().dataset.acked !== 'true'; i++)"
	         "   await new Promise(r => setTimeout(r, 50));"
	         " const api = (await (await fetch('/api/alerts?all=1')).json()).alerts;"
	         " const a = api.find(x => String(x.id) === %s);"
	         " return {shown: row().dataset.acked, text: row().querySelector('.ack-cell').textContent,"
	         "  api: a ? a.acked : null}; })()",
	         q, q);
	v = jsc("alerts ack", expr);
	if (v)
		check(!strcmp(str(v, "shown"), "true") && !strcmp(str(v, "text"), "acknowledged") &&
		          jtrue(v, "api"),
		      "alerts: Acknowledge (with the token) marks it acknowledged, also in the API",
		      "row acked=%s (%s), API %d", str(v, "shown"), str(v, "text"), jtrue(v, "api"));
	json_decref(v);
	free(q);
}

/* --- main --- */

static const char *arg(int argc, char **argv, const char *name, int required)
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

static int open_page(const char *browser)
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

int main(int argc, char **argv)
{
	const char *browser = arg(argc, argv, "--browser", 1);
	base_url = arg(argc, argv, "--base", 1);
	const char *out = arg(argc, argv, "--out", 1);
	const char *token = arg(argc, argv, "--token", 1);
	int want_tasks = atoi(arg(argc, argv, "--tasks", 1));
	const char *xss_task = arg(argc, argv, "--xss-task", 1);
	const char *xss_intent = arg(argc, argv, "--xss-intent", 1);
	const char *live_run = arg(argc, argv, "--live-run", 1);
	const char *live_task = arg(argc, argv, "--live-task", 1);
	const char *go_file = arg(argc, argv, "--go", 1);
	const char *broken_task = arg(argc, argv, "--broken-task", 1);
	const char *docs = arg(argc, argv, "--docs", 0);
	mkdir(out, 0755);

	if (open_page(browser) == 0) {
		test_overview(want_tasks, xss_task, xss_intent);
		test_live_run(live_run, go_file, out);
		test_runs(live_run, out);
		test_task(live_task, live_run, token, out);
		test_xss_task(xss_task, xss_intent, out);
		test_broken_task(broken_task, out);
		test_alerts(out);
		if (go("#/", "overview")) {
			test_function_chart(1);
			char path[1024];
			snprintf(path, sizeof path, "%s/dashboard-overview.png", out);
			screenshot("overview: screenshot with data", path, docs);
		}
		/* the whole walk, in one last word */
		char why[256];
		json_t *v = js("typeof window.__pwned", why, sizeof why);
		check(v && !strcmp(json_string_value(v) ? json_string_value(v) : "", "undefined"),
		      "xss: window.__pwned never set", "%s", json_string_value(v) ? json_string_value(v) : why);
		json_decref(v);
	}
	kn_cdp_loop_run_for(loop, 300); /* late console or log events */
	check(plog.dialogs == 0, "no JavaScript dialog opened", "%d dialog(s), last %s", plog.dialogs,
	      plog.dialog);
	check(plog.n_errors == 0, "no exception, console error or error log entry", "%d, first: %s",
	      plog.n_errors, plog.n_errors ? plog.errors[0] : "");
	for (int i = 0; i < plog.n_errors; i++)
		printf("     error: %s\n", plog.errors[i]);
	check(plog.allowed_errors >= 1, "the expected 401 was seen as a network error (the log works)",
	      "none seen");
	if (conn)
		kn_cdp_close(conn);
	kn_cdp_loop_free(loop);
	printf("%d checks, %d failed\n", checks, fails);
	return fails ? 1 : 0;
}
