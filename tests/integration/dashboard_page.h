/* dashboard_page.h — the harness of dashboard_test (dashboard_page.c): one page target in a real
 * headless Chromium over keynode's CDP client, every exception, console error, error log entry and
 * dialog on it collected, and the helpers the page walks use (evaluate, wait, navigate, screenshot,
 * one "ok/FAIL" line per check). */
#ifndef KEYNODE_DASHBOARD_PAGE_H
#define KEYNODE_DASHBOARD_PAGE_H

#include <jansson.h>

#include "cdp.h"

#define WAIT_MS 30000
#define LIVE_WAIT_MS 90000
#define MAX_ERRORS 64

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

extern int fails, checks;
extern kn_cdp_loop *loop;
extern kn_cdp *conn;
extern page_log plog;        /* the page target's log */
extern const char *base_url; /* --base */

/* One check: "ok   NAME" or "FAIL NAME: why" on stdout; a failure is counted. */
void check(int ok, const char *name, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;
/* O's string member KEY, or "" */
const char *str(json_t *o, const char *key);
/* Runtime.evaluate (awaiting promises, by value): the value (caller's; JSON null when the
 * expression gave undefined) or NULL when it threw or the call failed (why in *why). */
json_t *js(const char *expr, char *why, size_t n);
/* Evaluate and check in one go; NULL (and a failed check) when it threw. */
json_t *jsc(const char *name, const char *expr);
/* Serve the loop until expr is truthy or ms pass; 1 when it became truthy. */
int wait_js(const char *expr, int ms);
/* O's member KEY as an integer (0 when absent), as a truth value */
long long jint(json_t *o, const char *key);
int jtrue(json_t *o, const char *key);
/* A JavaScript string literal for s (JSON is a subset of JS); caller frees. */
char *js_quote(const char *s);
/* Go to a route in the loaded dashboard (same document) and wait until that page is ready. */
int go(const char *hash, const char *page);
/* Capture the whole page (up to 2400 px high) as a PNG into each of the paths (NULL ends). */
void screenshot(const char *name, const char *path, const char *also);
/* argv's value after NAME (NULL when absent; exits 2 when REQUIRED and absent) */
const char *arg(int argc, char **argv, const char *name, int required);
/* Connect to BROWSER, open and attach one page target, load the dashboard at base_url; 0 once
 * it is ready. */
int open_page(const char *browser);

#endif
