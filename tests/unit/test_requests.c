/* test_requests.c — where the monitor decides a paused request (services/monitor/requests.h): a
 * tab's at its own session at once (and recorded after that session's barrier: the click that sent
 * it comes first); at the browser session only the run's service workers' (by the
 * request's frameId), after the owner's barrier, and no more once the worker is gone; after the
 * run's end a worker's request skips the barrier and is not recorded; a request of the run's frames
 * that no target session continued (its tab closed before it left) is decided at the browser
 * session, held under a rule. No connection here (c NULL):
 * what is checked is what gets recorded and when. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "keynode/guard.h"
#include "requests.h"

struct seen {
	int n;
	int from_browser; /* the last one came from the browser session */
	int held;         /* the last one was held */
	void (*done)(void *arg, kn_cdp *c);
	void *arg;
	int barriers;
	const char *barrier_session; /* the last barrier's session (NULL: every tab) */
};

static void on_request(void *ud, const kn_request_seen *r)
{
	struct seen *s = ud;
	s->n++;
	s->from_browser = r->session == NULL;
	s->held = r->held_by != NULL;
	assert_string_equal(r->clear->method, "POST");
}

static void barrier(void *ud, kn_cdp *c, const char *session, void (*done)(void *arg, kn_cdp *c),
                    void *arg)
{
	(void)c;
	struct seen *s = ud;
	s->barriers++;
	s->barrier_session = session;
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

static int feed_net(kn_requests *r, const char *session, const char *frame, const char *net_id, int ended)
{
	json_t *p = paused(frame);
	if (net_id)
		json_object_set_new(p, "networkId", json_string(net_id));
	int rc = kn_requests_event(r, NULL, session, "Fetch.requestPaused", p, ended);
	json_decref(p);
	return rc;
}

static int feed(kn_requests *r, const char *session, const char *frame, int ended)
{
	return feed_net(r, session, frame, NULL, ended);
}

static void test_where_decided(void **state)
{
	(void)state;
	struct seen s = {0};
	kn_requests_opts o = {.request_nodes = 1, .on_request = on_request, .barrier = barrier, .ud = &s};
	kn_requests *r = NULL;
	assert_int_equal(kn_requests_new(&r, &o), 0);
	assert_true(kn_requests_intercepting(r));

	/* a tab's request, at its own session: decided at once, recorded after its session's barrier
	 * (the click that sent it is in first) */
	assert_int_equal(feed(r, "TAB", "F1", 0), 1);
	assert_int_equal(s.barriers, 1);
	assert_string_equal(s.barrier_session, "TAB");
	assert_int_equal(s.n, 0);
	s.done(s.arg, NULL);
	assert_int_equal(s.n, 1);
	assert_false(s.from_browser);

	/* the same request once more at the browser session: not a worker of the run, continued */
	assert_int_equal(feed(r, NULL, "F1", 0), 1);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.barriers, 1);

	/* a service worker of the run: waits for every tab's barrier, then recorded once */
	kn_requests_worker(r, "SW1", 1);
	kn_requests_worker(r, "SW1", 1); /* attached twice (browser and page auto-attach): one worker */
	kn_requests_worker(r, "SW2", 1);
	assert_int_equal(feed(r, NULL, "SW1", 0), 1);
	assert_int_equal(s.barriers, 2);
	assert_null(s.barrier_session);
	assert_int_equal(s.n, 1);
	s.done(s.arg, NULL);
	assert_int_equal(s.n, 2);
	assert_true(s.from_browser);

	/* after the run's end: no barrier, nothing more recorded (still answered) */
	assert_int_equal(feed(r, NULL, "SW2", 1), 1);
	assert_int_equal(s.barriers, 2);
	assert_int_equal(s.n, 2);

	/* the worker gone (Target.targetDestroyed): its id no longer the run's */
	kn_requests_worker(r, "SW1", 0);
	assert_int_equal(feed(r, NULL, "SW1", 0), 1);
	assert_int_equal(s.barriers, 2);
	assert_int_equal(feed(r, NULL, "SW2", 0), 1);
	assert_int_equal(s.barriers, 3);
	s.done(s.arg, NULL);
	assert_int_equal(s.n, 3);

	/* not a request event */
	assert_int_equal(kn_requests_event(r, NULL, "TAB", "Page.loadEventFired", NULL, 0), 0);
	kn_requests_free(r);
	kn_requests_free(NULL);
}

/* A tab's request after its session is gone (a pagehide beacon as the tab closes) pauses only at
 * the browser session: decided there when its frame is the run's and no target session continued
 * its networkId; held under a rule, recorded as held. */
static void test_tab_gone(void **state)
{
	(void)state;
	struct seen s = {0};
	kn_guard g = {.end_on_guard = -1};
	kn_err err = {0};
	json_t *rule = json_loads("{\"method\":\"POST\",\"url\":{\"include\":\"/held\"}}", 0, NULL);
	assert_int_equal(kn_guard_add_json(&g, rule, &err), 0);
	json_decref(rule);
	kn_requests_opts o = {.guards = {&g}, .request_nodes = 1, .on_request = on_request, .barrier = barrier, .ud = &s};
	kn_requests *r = NULL;
	assert_int_equal(kn_requests_new(&r, &o), 0);

	/* continued at the tab's session, then once more at the browser's: recorded once */
	assert_int_equal(feed_net(r, "TAB", "F1", "N1", 0), 1);
	assert_int_equal(s.barriers, 1); /* recorded after its session's barrier */
	s.done(s.arg, NULL);
	assert_int_equal(feed_net(r, NULL, "F1", "N1", 0), 1);
	assert_int_equal(s.n, 1);
	assert_false(s.held);
	/* the tab closed: a request of its frame comes only to the browser session */
	assert_int_equal(feed_net(r, NULL, "F1", "N2", 0), 1);
	assert_int_equal(s.n, 2);
	assert_true(s.from_browser);
	assert_int_equal(s.barriers, 1); /* no tab left to wait for */
	/* no networkId, or a frame not the run's (another context's tab): continued, not recorded */
	assert_int_equal(feed_net(r, NULL, "F1", NULL, 0), 1);
	assert_int_equal(feed_net(r, NULL, "F9", "N3", 0), 1);
	assert_int_equal(s.n, 2);
	/* a tab that never sent a request while watched is the run's once it attached */
	kn_requests_frame(r, "F9");
	assert_int_equal(feed_net(r, NULL, "F9", "N4", 0), 1);
	assert_int_equal(s.n, 3);

	/* under a rule: held at the browser session, and recorded so */
	json_t *p = paused("F1");
	json_object_set_new(json_object_get(p, "request"), "url", json_string("http://127.0.0.1:1/held"));
	json_object_set_new(p, "networkId", json_string("N5"));
	assert_int_equal(kn_requests_event(r, NULL, NULL, "Fetch.requestPaused", p, 0), 1);
	json_decref(p);
	assert_int_equal(s.n, 4);
	assert_true(s.held);
	assert_true(s.from_browser);
	/* held at the tab's session as it closed, then at the browser's: held again, recorded once */
	p = paused("F1");
	json_object_set_new(json_object_get(p, "request"), "url", json_string("http://127.0.0.1:1/held"));
	json_object_set_new(p, "networkId", json_string("N6"));
	assert_int_equal(kn_requests_event(r, NULL, "TAB", "Fetch.requestPaused", p, 0), 1);
	assert_int_equal(s.n, 4);
	s.done(s.arg, NULL);
	assert_int_equal(s.n, 5);
	assert_false(s.from_browser);
	assert_int_equal(kn_requests_event(r, NULL, NULL, "Fetch.requestPaused", p, 0), 1);
	json_decref(p);
	assert_int_equal(s.n, 5);
	kn_requests_free(r);
	kn_guard_clear(&g);
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
		cmocka_unit_test(test_tab_gone),
		cmocka_unit_test(test_not_intercepting),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
