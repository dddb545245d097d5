/* test_requests.c — where the monitor decides a paused request (services/monitor/requests.h): a
 * tab's at its own session at once; at the browser session only the run's service workers' (by the
 * request's frameId), after the owner's barrier, and no more once the worker is gone; after the
 * run's end a worker's request skips the barrier and is not recorded. No connection here (c NULL):
 * what is checked is what gets recorded and when. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "requests.h"

struct seen {
	int n;
	int from_browser; /* the last one came from the browser session */
	void (*done)(void *arg, kn_cdp *c);
	void *arg;
	int barriers;
};

static void on_request(void *ud, const kn_request_seen *r)
{
	struct seen *s = ud;
	s->n++;
	s->from_browser = r->session == NULL;
	assert_string_equal(r->clear->method, "POST");
}

static void barrier(void *ud, kn_cdp *c, void (*done)(void *arg, kn_cdp *c), void *arg)
{
	(void)c;
	struct seen *s = ud;
	s->barriers++;
	s->done = done;
	s->arg = arg;
}

static json_t *paused(const char *frame)
{
	return json_pack("{s:s, s:s, s:s, s:{s:s, s:s, s:s, s:{s:s}}}", "requestId", "interception-job-1.0",
	                 "frameId", frame, "resourceType", "XHR", "request", "url", "http://127.0.0.1:1/api/giftcards",
	                 "method", "POST", "postData", "{\"amount\":50}", "headers", "Content-Type",
	                 "application/json");
}

static int feed(kn_requests *r, const char *session, const char *frame, int ended)
{
	json_t *p = paused(frame);
	int rc = kn_requests_event(r, NULL, session, "Fetch.requestPaused", p, ended);
	json_decref(p);
	return rc;
}

static void test_where_decided(void **state)
{
	(void)state;
	struct seen s = {0};
	kn_requests_opts o = {.request_nodes = 1, .on_request = on_request, .barrier = barrier, .ud = &s};
	kn_requests *r = NULL;
	assert_int_equal(kn_requests_new(&r, &o), 0);
	assert_true(kn_requests_intercepting(r));

	/* a tab's request, at its own session: recorded at once, no barrier */
	assert_int_equal(feed(r, "TAB", "F1", 0), 1);
	assert_int_equal(s.n, 1);
	assert_false(s.from_browser);
	assert_int_equal(s.barriers, 0);

	/* the same request once more at the browser session: not a worker of the run, continued */
	assert_int_equal(feed(r, NULL, "F1", 0), 1);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.barriers, 0);

	/* a service worker of the run: waits for the barrier, then recorded once */
	kn_requests_worker(r, "SW1", 1);
	kn_requests_worker(r, "SW1", 1); /* attached twice (browser and page auto-attach): one worker */
	kn_requests_worker(r, "SW2", 1);
	assert_int_equal(feed(r, NULL, "SW1", 0), 1);
	assert_int_equal(s.barriers, 1);
	assert_int_equal(s.n, 1);
	s.done(s.arg, NULL);
	assert_int_equal(s.n, 2);
	assert_true(s.from_browser);

	/* after the run's end: no barrier, nothing more recorded (still answered) */
	assert_int_equal(feed(r, NULL, "SW2", 1), 1);
	assert_int_equal(s.barriers, 1);
	assert_int_equal(s.n, 2);

	/* the worker gone (Target.targetDestroyed): its id no longer the run's */
	kn_requests_worker(r, "SW1", 0);
	assert_int_equal(feed(r, NULL, "SW1", 0), 1);
	assert_int_equal(s.barriers, 1);
	assert_int_equal(feed(r, NULL, "SW2", 0), 1);
	assert_int_equal(s.barriers, 2);
	s.done(s.arg, NULL);
	assert_int_equal(s.n, 3);

	/* not a request event */
	assert_int_equal(kn_requests_event(r, NULL, "TAB", "Page.loadEventFired", NULL, 0), 0);
	kn_requests_free(r);
	kn_requests_free(NULL);
}

static void test_not_intercepting(void **state)
{
	(void)state;
	struct seen s = {0};
	kn_requests_opts o = {.on_request = on_request, .barrier = barrier, .ud = &s};
	kn_requests *r = NULL;
	assert_int_equal(kn_requests_new(&r, &o), 0);
	assert_false(kn_requests_intercepting(r));
	kn_requests_attach_browser(r, NULL); /* nothing to enable, nothing sent */
	kn_requests_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_where_decided),
		cmocka_unit_test(test_not_intercepting),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
