/* test_trace_drift.c — kn_trace_drift (services/trace/trace_drift.c): the first step that differs
 * under each criterion (outcome, URL form, resolved selector, drift flag), URL forms that must not
 * differ (host, port, parameter values, parameter order), the pairing of workflow steps with trace
 * steps (a `type … enter` is two trace steps, a `wait` none), key nodes that changed, repairs passed
 * on verbatim, the two replays' requests paired, and malformed reports. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "trace.h"

static json_t *J(const char *text)
{
	json_error_t e;
	json_t *j = json_loads(text, 0, &e);
	if (!j)
		fail_msg("bad test JSON: %s at %d: %s", e.text, e.position, text);
	return j;
}

/* A report: steps as a JSON array text, key nodes too. */
static json_t *report(const char *steps, const char *nodes)
{
	char buf[8192];
	snprintf(buf, sizeof buf, "{\"status\": \"x\", \"replay\": {\"steps\": %s, \"drift\": [], \"key_nodes\": %s}}", steps,
	         nodes ? nodes : "[]");
	return J(buf);
}

static json_t *drift(json_t *p, json_t *pt, json_t *f, json_t *ft)
{
	json_t *out = NULL;
	kn_err err = {0};
	assert_int_equal(kn_trace_drift(&out, p, pt, f, ft, &err), 0);
	json_decref(p), json_decref(pt), json_decref(f), json_decref(ft);
	return out;
}

static const char *differs(const json_t *d, char *buf, size_t n)
{
	buf[0] = '\0';
	size_t i;
	json_t *v;
	json_array_foreach(json_object_get(d, "differs"), i, v) {
		strncat(buf, i ? "," : "", n - strlen(buf) - 1);
		strncat(buf, json_string_value(v), n - strlen(buf) - 1);
	}
	return buf;
}

#define GOTO(u) "{\"step\": 1, \"verb\": \"goto\", \"outcome\": \"ok\", \"url\": \"" u "\"}"
#define CLICK(o, loc, u) "{\"step\": 2, \"verb\": \"click\", \"outcome\": \"" o "\", \"locator\": \"" loc "\", \"selector\": \"#a\", \"url\": \"" u "\"}"

static void test_url_param_renamed(void **state)
{
	(void)state;
	json_t *d = drift(report("[" GOTO("http://h:1/f/") "," CLICK("ok", "selector", "http://h:1/f/p.html?id=3") "]",
	                         "[{\"id\": \"post\", \"reached\": true, \"reached_at_step\": 2}]"),
	                  NULL,
	                  report("[" GOTO("http://h:1/f/") "," CLICK("ok", "selector", "http://h:1/f/p.html?post=3") "]",
	                         "[{\"id\": \"post\", \"reached\": false, \"reached_at_step\": null}]"),
	                  NULL);
	char b[128];
	assert_int_equal(json_integer_value(json_object_get(d, "step")), 2);
	assert_string_equal(differs(d, b, sizeof b), "url");
	assert_string_equal(json_string_value(json_array_get(json_object_get(d, "changed_key_nodes"), 0)), "post");
	assert_string_equal(json_string_value(json_object_get(json_object_get(d, "failing"), "url")), "http://h:1/f/p.html?post=3");
	assert_true(json_is_null(json_object_get(json_object_get(d, "failing"), "trace_step"))); /* no trace */
	json_decref(d);
}

static void test_url_forms_that_do_not_differ(void **state)
{
	(void)state;
	/* another host and port, other values, parameters in another order: the same place */
	json_t *d = drift(report("[" GOTO("http://a:1/f/") "," CLICK("ok", "selector", "http://a:1/p?x=1&y=2#t") "]", NULL), NULL,
	                  report("[" GOTO("https://b:9/f/") "," CLICK("ok", "selector", "http://b:2/p?y=7&x=5#t") "]", NULL), NULL);
	assert_true(json_is_null(json_object_get(d, "step")));
	assert_int_equal(json_array_size(json_object_get(d, "changed_key_nodes")), 0);
	json_decref(d);
	/* a different fragment or path does */
	d = drift(report("[" GOTO("http://a/f/") "]", NULL), NULL, report("[" GOTO("http://a/f/#x") "]", NULL), NULL);
	assert_int_equal(json_integer_value(json_object_get(d, "step")), 1);
	json_decref(d);
}

static void test_failed_and_not_run(void **state)
{
	(void)state;
	char b[128];
	/* the failing replay stopped at step 2: its outcome differs there, step 3 never ran */
	json_t *d = drift(report("[" GOTO("http://h/") "," CLICK("ok", "selector", "http://h/x") ","
	                         "{\"step\": 3, \"verb\": \"click\", \"outcome\": \"ok\", \"locator\": \"selector\"}]", NULL),
	                  NULL,
	                  report("[" GOTO("http://h/") ",{\"step\": 2, \"verb\": \"click\", \"outcome\": \"element not found\","
	                         " \"selector\": \"#a\", \"detail\": \"no candidate\"}]", NULL),
	                  NULL);
	assert_int_equal(json_integer_value(json_object_get(d, "step")), 2);
	assert_string_equal(differs(d, b, sizeof b), "status,selector");
	assert_string_equal(json_string_value(json_object_get(json_object_get(d, "failing"), "resolved")), "nothing");
	assert_string_equal(json_string_value(json_object_get(json_object_get(d, "failing"), "detail")), "no candidate");
	json_decref(d);
	/* the passing replay had fewer steps: "not run" on its side */
	d = drift(report("[" GOTO("http://h/") "]", NULL), NULL,
	          report("[" GOTO("http://h/") "," CLICK("ok", "selector", "http://h/") "]", NULL), NULL);
	assert_int_equal(json_integer_value(json_object_get(d, "step")), 2);
	assert_string_equal(json_string_value(json_object_get(json_object_get(d, "passing"), "outcome")), "not run");
	json_decref(d);
}

static void test_drift_and_selector(void **state)
{
	(void)state;
	char b[128];
	json_t *d = drift(report("[" GOTO("http://h/") "," CLICK("ok", "selector", "http://h/p") "]", NULL), NULL,
	                  report("[" GOTO("http://h/") ",{\"step\": 2, \"verb\": \"click\", \"outcome\": \"ok-by-fallback\","
	                         " \"locator\": \"href\", \"locator_score\": 1.0, \"selector\": \"#a\","
	                         " \"proposed_selector\": \"#b\", \"url\": \"http://h/p\","
	                         " \"recorded\": {\"href\": \"/p\", \"tag\": \"a\"}}]", NULL),
	                  NULL);
	assert_int_equal(json_integer_value(json_object_get(d, "step")), 2);
	assert_string_equal(differs(d, b, sizeof b), "status,selector,drift");
	json_t *f = json_object_get(d, "failing");
	assert_string_equal(json_string_value(json_object_get(f, "resolved")), "href #b");
	assert_true(json_is_true(json_object_get(f, "drift")));
	assert_string_equal(json_string_value(json_object_get(json_object_get(d, "recorded"), "href")), "/p");
	json_decref(d);
}

static void test_trace_alignment(void **state)
{
	(void)state;
	/* goto, type with enter (type + press in the trace), wait (nothing), click */
#define FIRST3 "[" GOTO("http://h/") ",{\"step\": 2, \"verb\": \"type\", \"outcome\": \"ok\", \"url\": \"http://h/s?q=a\"}," \
	"{\"step\": 3, \"verb\": \"wait\", \"outcome\": \"ok\"}"
	const char *a = FIRST3 ",{\"step\": 4, \"verb\": \"click\", \"outcome\": \"ok\", \"locator\": \"selector\"}]";
	const char *b = FIRST3 "]"; /* the failing replay did not get to step 4 */
	const char *trace = "{\"steps\": [{\"step\": 0, \"type\": \"start\"},"
	                    "{\"step\": 1, \"type\": \"navigate\", \"screenshot\": \"shots/0001.jpg\"},"
	                    "{\"step\": 2, \"type\": \"type\", \"selector\": \"#q\"},"
	                    "{\"step\": 3, \"type\": \"press\", \"selector\": \"#q\"},"
	                    "{\"step\": 4, \"type\": \"click\", \"selector\": \"#r\", \"screenshot\": \"shots/0004.jpg\","
	                    " \"title\": \"<b>t</b>\", \"element\": {\"found\": true, \"dom\": \"<a id=r>\"}}]}";
	json_t *d = drift(report(a, NULL), J(trace), report(b, NULL), J("{\"steps\": 7}"));
	assert_int_equal(json_integer_value(json_object_get(d, "step")), 4);
	json_t *p = json_object_get(d, "passing");
	assert_int_equal(json_integer_value(json_object_get(p, "trace_step")), 4);
	assert_true(json_is_true(json_object_get(p, "screenshot")));
	assert_string_equal(json_string_value(json_object_get(p, "title")), "<b>t</b>");
	assert_string_equal(json_string_value(json_object_get(json_object_get(p, "element"), "dom")), "<a id=r>");
	assert_false(json_is_true(json_object_get(json_object_get(d, "failing"), "screenshot")));
	json_decref(d);
}

static void test_repairs_and_broken_verbatim(void **state)
{
	(void)state;
	json_t *f = report("[" GOTO("http://h/") "]", NULL);
	json_object_set_new(f, "repairs", J("[{\"step\": 2, \"kind\": \"selector\", \"yaml\": \"<script>x</script>\"}]"));
	json_object_set_new(f, "broken", J("{\"step\": 2, \"reason\": \"element not found\"}"));
	json_t *d = drift(report("[" GOTO("http://h/") "]", NULL), NULL, f, NULL);
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(d, "repairs"), 0), "yaml")),
	                    "<script>x</script>");
	assert_string_equal(json_string_value(json_object_get(json_object_get(d, "broken"), "reason")), "element not found");
	json_decref(d);
	/* repairs of the wrong type: an empty list */
	f = report("[]", NULL);
	json_object_set_new(f, "repairs", json_string("no"));
	d = drift(report("[]", NULL), NULL, f, NULL);
	assert_int_equal(json_array_size(json_object_get(d, "repairs")), 0);
	json_decref(d);
}

/* A trace whose step 2 sent (or held) the requests in events (a JSON array text of request objects). */
static json_t *trace_with(const char *requests)
{
	char buf[4096];
	json_t *rs = J(requests), *ev = json_array(), *r;
	size_t i;
	json_array_foreach(rs, i, r)
		json_array_append_new(ev, json_pack("{s:s, s:s, s:O}", "type", "request", "url", "http://h/shop/", "request", r));
	json_decref(rs);
	snprintf(buf, sizeof buf, "{\"steps\": [{\"step\": 1, \"type\": \"navigate\"}, {\"step\": 2, \"type\": \"click\"}]}");
	json_t *t = J(buf);
	json_object_set_new(json_array_get(json_object_get(t, "steps"), 1), "events", ev);
	return t;
}

/* Requests: paired by method and URL form; the held order changed (a field and the key
 * node it matched), the beacon went missing, a new request came; the same request is "same". */
static void test_requests(void **state)
{
	(void)state;
	json_t *pt = trace_with("[{\"method\": \"POST\", \"url\": \"http://h:1/api/orders?x=1\", \"held\": true,"
	                        " \"matched\": [\"order\"], \"fields\": [[\"item\", \"lamp\"], [\"qty\", \"2\"], [\"card\", \"[redacted]\"]]},"
	                        "{\"method\": \"POST\", \"url\": \"http://h:1/api/beacon\", \"fields\": []},"
	                        "{\"method\": \"PUT\", \"url\": \"http://h:1/api/cart\", \"fields\": [[\"n\", \"1\"]]}]");
	json_t *ft = trace_with("[{\"method\": \"PUT\", \"url\": \"http://h:2/api/cart\", \"fields\": [[\"n\", \"1\"]]},"
	                        "{\"method\": \"POST\", \"url\": \"http://h:2/api/orders?x=2\", \"held\": true,"
	                        " \"matched\": [], \"fields\": [[\"item\", \"lamp\"], [\"qty\", \"3\"], [\"card\", \"[redacted]\"]]},"
	                        "{\"method\": \"POST\", \"url\": \"http://h:2/api/track\"}]");
	json_t *d = drift(report("[" GOTO("http://h/") "]", NULL), pt, report("[" GOTO("http://h/") "]", NULL), ft);
	json_t *rq = json_object_get(d, "requests");
	assert_int_equal(json_array_size(rq), 4);
	assert_int_equal(json_integer_value(json_object_get(d, "changed_requests")), 3);
	const char *want[][3] = {{"/api/orders?x", "changed", "matched,fields"},
	                         {"/api/beacon", "missing", ""},
	                         {"/api/cart", "same", ""},
	                         {"/api/track", "new", ""}};
	for (size_t i = 0; i < 4; i++) {
		json_t *r = json_array_get(rq, i), *v;
		char buf[64];
		assert_string_equal(json_string_value(json_object_get(r, "url_form")), want[i][0]);
		assert_string_equal(json_string_value(json_object_get(r, "change")), want[i][1]);
		assert_string_equal(differs(r, buf, sizeof buf), want[i][2]);
		size_t k;
		json_array_foreach(json_object_get(r, "fields_changed"), k, v)
			assert_string_equal(json_string_value(v), "qty"); /* the redacted card is the same on both */
	}
	json_t *o = json_array_get(rq, 0);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(o, "passing"), "step")), 2);
	assert_true(json_is_true(json_object_get(json_object_get(o, "failing"), "held")));
	assert_true(json_is_null(json_object_get(json_array_get(rq, 1), "failing")));
	assert_true(json_is_null(json_object_get(json_array_get(rq, 3), "passing")));
	json_decref(d);
	/* no traces: no requests */
	d = drift(report("[]", NULL), NULL, report("[]", NULL), NULL);
	assert_int_equal(json_array_size(json_object_get(d, "requests")), 0);
	json_decref(d);
}

static void test_malformed(void **state)
{
	(void)state;
	json_t *out = NULL, *a = J("[1]"), *o = J("{}");
	kn_err err = {0};
	assert_int_equal(kn_trace_drift(&out, a, NULL, o, NULL, &err), KN_EINVAL);
	assert_null(out);
	assert_int_equal(kn_trace_drift(&out, NULL, NULL, o, NULL, &err), KN_EINVAL);
	assert_non_null(strstr(err.msg, "JSON objects"));
	/* members of every wrong type: an answer, step null */
	const char *bad[] = {"{\"replay\": 1}", "{\"replay\": {\"steps\": {}}}", "{\"replay\": {\"steps\": [1, null, \"x\"]}}",
	                     "{\"replay\": {\"steps\": [{\"step\": \"2\", \"outcome\": 5, \"url\": []}], \"key_nodes\": [1, {\"id\": 3}]}}"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		for (size_t j = 0; j < sizeof bad / sizeof *bad; j++) {
			json_t *d = drift(J(bad[i]), J("{\"steps\": [1, {\"step\": -1}]}"), J(bad[j]), J("[]"));
			assert_non_null(json_object_get(d, "step"));
			json_decref(d);
		}
	json_decref(a);
	json_decref(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_url_param_renamed), cmocka_unit_test(test_url_forms_that_do_not_differ),
		cmocka_unit_test(test_failed_and_not_run), cmocka_unit_test(test_drift_and_selector),
		cmocka_unit_test(test_trace_alignment), cmocka_unit_test(test_repairs_and_broken_verbatim),
		cmocka_unit_test(test_requests),
		cmocka_unit_test(test_malformed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
