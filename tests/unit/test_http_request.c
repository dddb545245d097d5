/* test_http_request.c — the API's trust boundary (services/http/request.h): routes, path
 * parameters, query strings, JSON bodies and the bearer token; plus the stream queues and the
 * metrics text of the same folder; the calls serves forward to each other (X-Kn-Forwarded, the
 * advertised address) and the relayed live feed's payload (stream_relay.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "metrics.h"
#include "request.h"
#include "stream.h"
#include "stream_relay.h"

static int route(kn_route *r, char *id, kn_http_method m, const char *path)
{
	return kn_http_route(r, id, KN_HTTP_MAX_ID + 1, m, path);
}

static void test_routes(void **state)
{
	(void)state;
	kn_route r;
	char id[KN_HTTP_MAX_ID + 1];
	assert_int_equal(route(&r, id, KN_HTTP_GET, "/api/tasks"), 0);
	assert_int_equal(r, KN_ROUTE_TASKS);
	assert_int_equal(route(&r, id, KN_HTTP_GET, "/api/tasks/shop-red-shoes"), 0);
	assert_int_equal(r, KN_ROUTE_TASK);
	assert_string_equal(id, "shop-red-shoes");
	assert_int_equal(route(&r, id, KN_HTTP_GET, "/api/tasks/set:17/health"), 0);
	assert_int_equal(r, KN_ROUTE_TASK_HEALTH);
	assert_string_equal(id, "set:17");
	assert_int_equal(route(&r, id, KN_HTTP_POST, "/api/runs"), 0);
	assert_int_equal(r, KN_ROUTE_RUNS_POST);
	/* the maintenance loop */
	assert_int_equal(route(&r, id, KN_HTTP_POST, "/api/tasks/set:a/b/repairs"), 0);
	assert_int_equal(r, KN_ROUTE_TASK_REPAIRS);
	assert_string_equal(id, "set:a/b");
	assert_true(kn_route_is_write(r));
	assert_int_equal(route(&r, id, KN_HTTP_GET, "/api/tasks/x/repairs"), KN_EUNSUPPORTED);
	assert_int_equal(route(&r, id, KN_HTTP_POST, "/api/tasks/x/edits"), 0);
	assert_int_equal(r, KN_ROUTE_TASK_EDITS);
	assert_true(kn_route_is_write(r));
	/* recordings from the dashboard */
	assert_int_equal(route(&r, id, KN_HTTP_POST, "/api/tasks/set:a/b/recordings"), 0);
	assert_int_equal(r, KN_ROUTE_TASK_RECORDINGS_POST);
	assert_string_equal(id, "set:a/b");
	assert_true(kn_route_is_write(r));
	assert_int_equal(route(&r, id, KN_HTTP_GET, "/api/tasks/x/recordings"), 0);
	assert_int_equal(r, KN_ROUTE_TASK_RECORDINGS);
	assert_false(kn_route_is_write(r));
	assert_int_equal(route(&r, id, KN_HTTP_POST, "/api/recordings/12/finish"), 0);
	assert_int_equal(r, KN_ROUTE_RECORDING_FINISH);
	assert_string_equal(id, "12");
	assert_true(kn_route_is_write(r));
	assert_string_equal(kn_route_name(r), "POST /api/recordings/{id}/finish");
	assert_int_equal(route(&r, id, KN_HTTP_POST, "/api/recordings/12/cancel"), 0);
	assert_int_equal(r, KN_ROUTE_RECORDING_CANCEL);
	assert_true(kn_route_is_write(r));
	assert_int_equal(route(&r, id, KN_HTTP_GET, "/api/recordings/12"), 0);
	assert_int_equal(r, KN_ROUTE_RECORDING);
	assert_int_equal(route(&r, id, KN_HTTP_GET, "/api/recordings/12/finish"), KN_EUNSUPPORTED);
	assert_int_equal(route(&r, id, KN_HTTP_POST, "/api/recordings/12"), KN_EUNSUPPORTED);
	assert_int_equal(route(&r, id, KN_HTTP_GET, "/api/recordings"), KN_ENOTFOUND);
	assert_int_equal(route(&r, id, KN_HTTP_GET, "/api/tasks/x/versions"), 0);
	assert_int_equal(r, KN_ROUTE_TASK_VERSIONS);
	assert_false(kn_route_is_write(r));
	assert_int_equal(route(&r, id, KN_HTTP_GET, "/api/tasksets/maint/changelog"), 0);
	assert_int_equal(r, KN_ROUTE_TASKSET_CHANGELOG);
	assert_string_equal(id, "maint");
	assert_string_equal(kn_route_name(r), "GET /api/tasksets/{name}/changelog");
	assert_int_equal(route(&r, id, KN_HTTP_POST, "/api/tasksets/maint/changelog"), KN_EUNSUPPORTED);
	assert_int_equal(route(&r, id, KN_HTTP_GET, "/api/tasksets/maint"), KN_ENOTFOUND);
	assert_int_equal(route(&r, id, KN_HTTP_GET, "/api/tasksets//changelog"), KN_ENOTFOUND);
	assert_int_equal(route(&r, id, KN_HTTP_POST, "/api/tasksets/"), 0);
	assert_int_equal(r, KN_ROUTE_TASKSETS_POST);
	assert_int_equal(route(&r, id, KN_HTTP_GET, "/api/runs"), 0);
	assert_int_equal(r, KN_ROUTE_RUNS);
	assert_int_equal(route(&r, id, KN_HTTP_POST, "/api/runs/r-1/events"), 0);
	assert_int_equal(r, KN_ROUTE_RUN_EVENTS);
	assert_string_equal(id, "r-1");
	assert_int_equal(route(&r, id, KN_HTTP_POST, "/api/runs/r-1/stop"), 0);
	assert_int_equal(r, KN_ROUTE_RUN_STOP);
	assert_int_equal(route(&r, id, KN_HTTP_POST, "/api/alerts/3/ack"), 0);
	assert_int_equal(r, KN_ROUTE_ALERT_ACK);
	assert_int_equal(route(&r, id, KN_HTTP_GET, "/api/replays/9/screenshot"), 0);
	assert_int_equal(r, KN_ROUTE_REPLAY_SHOT);
	assert_int_equal(route(&r, id, KN_HTTP_HEAD, "/metrics"), 0);
	assert_int_equal(r, KN_ROUTE_METRICS);
	assert_int_equal(route(&r, id, KN_HTTP_GET, "/static/app.js"), 0);
	assert_int_equal(r, KN_ROUTE_STATIC);
	assert_int_equal(route(&r, id, KN_HTTP_GET, "/"), 0);
	assert_int_equal(r, KN_ROUTE_STATIC);
	/* reference workflows: uploaded to the collection, listed per task */
	assert_int_equal(route(&r, id, KN_HTTP_POST, "/api/workflows"), 0);
	assert_int_equal(r, KN_ROUTE_WORKFLOWS_POST);
	assert_true(kn_route_is_write(r));
	assert_int_equal(route(&r, id, KN_HTTP_GET, "/api/workflows"), KN_EUNSUPPORTED);
	assert_int_equal(route(&r, id, KN_HTTP_GET, "/api/tasks/m2w:1/workflow"), 0);
	assert_int_equal(r, KN_ROUTE_TASK_WORKFLOW);
	assert_string_equal(id, "m2w:1");
	assert_string_equal(kn_route_name(r), "GET /api/tasks/{id}/workflow");
	/* agent batches: the collection lists them, an id names one */
	assert_int_equal(route(&r, id, KN_HTTP_GET, "/api/agent-runs"), 0);
	assert_int_equal(r, KN_ROUTE_AGENT_RUNS);
	assert_false(kn_route_is_write(r));
	assert_string_equal(kn_route_name(r), "GET /api/agent-runs");
	assert_int_equal(route(&r, id, KN_HTTP_POST, "/api/agent-runs"), 0);
	assert_int_equal(r, KN_ROUTE_AGENT_RUNS_POST);
	assert_int_equal(route(&r, id, KN_HTTP_GET, "/api/agent-runs/12"), 0);
	assert_int_equal(r, KN_ROUTE_AGENT_RUN);
	assert_string_equal(id, "12");
	/* the comparison of two batches is its own route, never batch "compare" */
	assert_int_equal(route(&r, id, KN_HTTP_GET, "/api/agent-runs/compare"), 0);
	assert_int_equal(r, KN_ROUTE_AGENT_RUNS_COMPARE);
	assert_int_equal(route(&r, id, KN_HTTP_POST, "/api/agent-runs/compare"), KN_EUNSUPPORTED);
	assert_false(kn_route_is_write(KN_ROUTE_AGENT_RUNS_COMPARE));
	assert_int_equal(route(&r, id, KN_HTTP_POST, "/api/tasks/m2w:1/workflow"), KN_EUNSUPPORTED);
	/* a set's snapshots (a read), the rescore (a write); a set itself is no route */
	assert_int_equal(route(&r, id, KN_HTTP_GET, "/api/tasksets/shop/snapshots"), 0);
	assert_int_equal(r, KN_ROUTE_TASKSET_SNAPSHOTS);
	assert_string_equal(id, "shop");
	assert_false(kn_route_is_write(r));
	assert_string_equal(kn_route_name(r), "GET /api/tasksets/{name}/snapshots");
	assert_int_equal(route(&r, id, KN_HTTP_POST, "/api/tasksets/shop/snapshots"), KN_EUNSUPPORTED);
	/* a set's health over time (a read); a set named like the verb is still a set */
	assert_int_equal(route(&r, id, KN_HTTP_GET, "/api/tasksets/m2w/health"), 0);
	assert_int_equal(r, KN_ROUTE_TASKSET_HEALTH);
	assert_string_equal(id, "m2w");
	assert_false(kn_route_is_write(r));
	assert_string_equal(kn_route_name(r), "GET /api/tasksets/{name}/health");
	assert_int_equal(route(&r, id, KN_HTTP_GET, "/api/tasksets/health/health"), 0);
	assert_string_equal(id, "health");
	assert_int_equal(route(&r, id, KN_HTTP_POST, "/api/tasksets/m2w/health"), KN_EUNSUPPORTED);
	assert_int_equal(route(&r, id, KN_HTTP_GET, "/api/tasksets/shop"), KN_ENOTFOUND);
	assert_int_equal(route(&r, id, KN_HTTP_GET, "/api/tasksets//snapshots"), KN_ENOTFOUND);
	assert_int_equal(route(&r, id, KN_HTTP_POST, "/api/tasksets/"), 0);
	assert_int_equal(r, KN_ROUTE_TASKSETS_POST);
	assert_int_equal(route(&r, id, KN_HTTP_POST, "/api/rescore"), 0);
	assert_int_equal(r, KN_ROUTE_RESCORE);
	assert_true(kn_route_is_write(r));
	assert_int_equal(route(&r, id, KN_HTTP_GET, "/api/rescore"), KN_EUNSUPPORTED);
	/* SQL in a path parameter is just an id (the store binds it) */
	assert_int_equal(route(&r, id, KN_HTTP_GET, "/api/tasks/' OR 1=1; DROP TABLE runs;--"), 0);
	assert_string_equal(id, "' OR 1=1; DROP TABLE runs;--");
	/* wrong method, unknown path, bad id */
	assert_int_equal(route(&r, id, KN_HTTP_GET, "/api/tasksets"), KN_EUNSUPPORTED);
	assert_int_equal(route(&r, id, KN_HTTP_POST, "/api/tasks"), KN_EUNSUPPORTED);
	assert_int_equal(route(&r, id, KN_HTTP_GET, "/api/runs/r-1/stop"), KN_EUNSUPPORTED);
	assert_int_equal(route(&r, id, KN_HTTP_OTHER, "/api/runs"), KN_EUNSUPPORTED);
	assert_int_equal(route(&r, id, KN_HTTP_GET, "/api/nope"), KN_ENOTFOUND);
	/* an id may hold '/' (a%2Fb arrives decoded): the verb is matched at the end */
	assert_int_equal(route(&r, id, KN_HTTP_GET, "/api/runs/r-1/nope"), 0);
	assert_int_equal(r, KN_ROUTE_RUN);
	assert_string_equal(id, "r-1/nope");
	assert_int_equal(route(&r, id, KN_HTTP_GET, "/api/tasks/shop/red/health"), 0);
	assert_int_equal(r, KN_ROUTE_TASK_HEALTH);
	assert_string_equal(id, "shop/red");
	assert_int_equal(route(&r, id, KN_HTTP_GET, "/api/tasks/a/b/c"), 0);
	assert_int_equal(r, KN_ROUTE_TASK);
	assert_string_equal(id, "a/b/c");
	assert_int_equal(route(&r, id, KN_HTTP_GET, "/api/tasks/health"), 0);
	assert_int_equal(r, KN_ROUTE_TASK);
	assert_int_equal(route(&r, id, KN_HTTP_GET, "/api/runs/r-1/events"), 0);
	assert_int_equal(r, KN_ROUTE_RUN_EVENTS_GET);
	assert_int_equal(route(&r, id, KN_HTTP_POST, "/api/tasks/a/b"), KN_EUNSUPPORTED);
	assert_int_equal(route(&r, id, KN_HTTP_GET, "/api/tasksX"), KN_ENOTFOUND);
	assert_int_equal(route(&r, id, KN_HTTP_GET, "/favicon.ico"), KN_ENOTFOUND);
	assert_int_equal(route(&r, id, KN_HTTP_GET, "api/tasks"), KN_ENOTFOUND);
	assert_int_equal(route(&r, id, KN_HTTP_GET, "/api/tasks//health"), KN_EINVAL);
	assert_int_equal(route(&r, id, KN_HTTP_GET, "/api/tasks/a\x01" "b"), KN_EINVAL);
	assert_int_equal(route(&r, id, KN_HTTP_GET, "/api/tasks/\xff\xfe"), KN_EINVAL);
	assert_int_equal(route(&r, id, KN_HTTP_GET, "/api/tasks/\xc3\xa9t\xc3\xa9"), 0);
	char longp[600];
	memset(longp, 'a', sizeof longp);
	memcpy(longp, "/api/tasks/", 11);
	longp[sizeof longp - 1] = '\0';
	assert_int_equal(route(&r, id, KN_HTTP_GET, longp), KN_EINVAL);
	assert_string_equal(kn_route_name(KN_ROUTE_RUN), "GET /api/runs/{id}");
	assert_true(kn_route_is_write(KN_ROUTE_RUN_EVENTS));
	assert_false(kn_route_is_write(KN_ROUTE_RUN));
	/* a too small id buffer is refused, not overflowed */
	char small[4];
	assert_int_equal(kn_http_route(&r, small, sizeof small, KN_HTTP_GET, "/api/tasks/abcdef"),
	                 KN_EINVAL);
}

static void test_query(void **state)
{
	(void)state;
	kn_http_query q = {0};
	kn_err err = {0};
	const char raw[] = "task=shop%3Ared+shoes&limit=5&&empty&x=%27%20OR%201%3D1";
	assert_int_equal(kn_http_query_parse(&q, raw, strlen(raw), &err), 0);
	assert_string_equal(kn_http_query_get(&q, "task"), "shop:red shoes");
	assert_string_equal(kn_http_query_get(&q, "empty"), "");
	assert_string_equal(kn_http_query_get(&q, "x"), "' OR 1=1");
	assert_null(kn_http_query_get(&q, "nope"));
	int n;
	assert_int_equal(kn_http_query_int(&n, &q, "limit", 50, 1, 1000, &err), 0);
	assert_int_equal(n, 5);
	assert_int_equal(kn_http_query_int(&n, &q, "absent", 50, 1, 1000, &err), 0);
	assert_int_equal(n, 50);
	assert_int_equal(kn_http_query_int(&n, &q, "task", 50, 1, 1000, &err), KN_EINVAL);
	kn_http_query_clear(&q);
	const char *bad[] = {"a=%zz", "a=%4", "=x", "a=%00", "a=%01", "a=%ff", "a=%c3%28"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_not_equal(kn_http_query_parse(&q, bad[i], strlen(bad[i]), &err), 0);
		kn_http_query_clear(&q);
	}
	assert_int_equal(kn_http_query_parse(&q, "limit=-1", 8, &err), 0);
	assert_int_equal(kn_http_query_int(&n, &q, "limit", 50, 1, 1000, &err), KN_EINVAL);
	kn_http_query_clear(&q);
	assert_int_equal(kn_http_query_parse(&q, "limit=99999999999999999999", 26, &err), 0);
	assert_int_equal(kn_http_query_int(&n, &q, "limit", 50, 1, 1000, &err), KN_EINVAL);
	kn_http_query_clear(&q);
	/* caps */
	char many[200] = "";
	for (int i = 0; i < 20; i++)
		strcat(many, "a=1&");
	assert_int_equal(kn_http_query_parse(&q, many, strlen(many), &err), KN_ELIMIT);
	kn_http_query_clear(&q);
	char *big = malloc(3000);
	memset(big, 'v', 3000);
	memcpy(big, "k=", 2);
	assert_int_equal(kn_http_query_parse(&q, big, 3000, &err), KN_ELIMIT);
	kn_http_query_clear(&q);
	free(big);
}

static void test_json(void **state)
{
	(void)state;
	json_t *j = NULL;
	kn_err err = {0};
	const char ok[] = "{\"task\": \"shop\", \"browser\": \"http://127.0.0.1:9\"}";
	assert_int_equal(kn_http_json_object(&j, ok, strlen(ok), &err), 0);
	const char *s;
	assert_int_equal(kn_http_json_string(&s, j, "task", 1, 256, &err), 0);
	assert_string_equal(s, "shop");
	assert_int_equal(kn_http_json_string(&s, j, "until", 0, 64, &err), 0);
	assert_null(s);
	assert_int_equal(kn_http_json_string(&s, j, "until", 1, 64, &err), KN_EINVAL);
	assert_int_equal(kn_http_json_string(&s, j, "task", 1, 2, &err), KN_EINVAL);
	json_decref(j);
	const char *bad[] = {"", "{", "[1]", "\"x\"", "{\"a\":1,\"a\":2}", "{\"a\":1}x", "nul"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(kn_http_json_object(&j, bad[i], strlen(bad[i]), &err), KN_EINVAL);
		assert_null(j);
	}
	assert_int_equal(kn_http_json_object(&j, "{\"a\":\0}", 7, &err), KN_EINVAL);
	char deep[200];
	memset(deep, '[', sizeof deep);
	deep[0] = '{';
	assert_int_equal(kn_http_json_object(&j, deep, sizeof deep, &err), KN_EINVAL);
	assert_non_null(strstr(err.msg, "deeper"));
	const char num[] = "{\"task\": 5, \"ctl\": \"a\\u0001b\"}";
	assert_int_equal(kn_http_json_object(&j, num, strlen(num), &err), 0);
	assert_int_equal(kn_http_json_string(&s, j, "task", 1, 256, &err), KN_EINVAL);
	assert_int_equal(kn_http_json_string(&s, j, "ctl", 1, 256, &err), KN_EINVAL);
	json_decref(j);
	char *e = NULL;
	assert_int_equal(kn_http_error_json(&e, "bad request", NULL), 0);
	assert_string_equal(e, "{\"error\":\"bad request\",\"detail\":null}");
	free(e);
	assert_int_equal(kn_http_error_json(&e, "x", "\xff"), 0); /* not UTF-8: detail dropped */
	assert_string_equal(e, "{\"error\":\"x\",\"detail\":null}");
	free(e);
}

static void test_auth(void **state)
{
	(void)state;
	assert_true(kn_http_auth_ok("Bearer s3cret", "s3cret"));
	assert_false(kn_http_auth_ok("Bearer s3cre", "s3cret"));
	assert_false(kn_http_auth_ok("Bearer s3crett", "s3cret"));
	assert_false(kn_http_auth_ok("bearer s3cret", "s3cret"));
	assert_false(kn_http_auth_ok("s3cret", "s3cret"));
	assert_false(kn_http_auth_ok(NULL, "s3cret"));
	assert_false(kn_http_auth_ok("Bearer ", ""));
	assert_false(kn_http_auth_ok("Bearer x", NULL));
	/* named tokens: which one, or none */
	const kn_http_token tk[] = {{"alice", "ta"}, {"bob", "tb"}, {"empty", ""}};
	assert_int_equal(kn_http_auth_which("Bearer tb", tk, 3), 1);
	assert_int_equal(kn_http_auth_which("Bearer ta", tk, 3), 0);
	assert_int_equal(kn_http_auth_which("Bearer t", tk, 3), -1);
	assert_int_equal(kn_http_auth_which("Bearer ", tk, 3), -1);
	assert_int_equal(kn_http_auth_which(NULL, tk, 3), -1);
	assert_int_equal(kn_http_auth_which("Bearer ta", NULL, 0), -1);
	assert_true(kn_http_text_ok("h\xc3\xa9llo\t", 7));
	assert_false(kn_http_text_ok("\xed\xa0\x80", 3)); /* surrogate */
	assert_false(kn_http_text_ok("\xc0\xaf", 2));     /* overlong */
	assert_false(kn_http_text_ok("\xc2\x85", 2));     /* C1 control */
	assert_false(kn_http_text_ok("\xe2\x82", 2));     /* truncated */
}

static int wakes;
static void wake(void *ud)
{
	(void)ud;
	wakes++;
}

static void test_stream(void **state)
{
	(void)state;
	kn_stream *s;
	kn_err err;
	assert_int_equal(kn_stream_new(&s, 3, wake, NULL), 0);
	kn_stream_sub *all, *one, *other;
	assert_int_equal(kn_stream_subscribe(s, NULL, NULL, &all, &err), 0);
	assert_int_equal(kn_stream_subscribe(s, "r-1", NULL, &one, &err), 0);
	assert_int_equal(kn_stream_subscribe(s, "r-2", NULL, &other, &err), 0);
	assert_int_equal(kn_stream_publish(s, "r-1", "{\"a\":1}"), 2);
	assert_int_equal(kn_stream_publish(s, NULL, "{\"alert\":1}"), 1);
	assert_true(wakes >= 2);
	char *m;
	size_t len;
	int dropped;
	assert_int_equal(kn_stream_pop(s, one, &m, &len, &dropped), 1);
	assert_string_equal(m, "{\"a\":1}");
	assert_int_equal(len, 7);
	free(m);
	assert_int_equal(kn_stream_pop(s, one, &m, &len, &dropped), 0);
	assert_int_equal(kn_stream_pop(s, other, &m, &len, &dropped), 0);
	assert_int_equal(dropped, 0);
	/* the unfiltered one has 2 queued; 2 more overflow its queue of 3: dropped, emptied */
	kn_stream_publish(s, "r-3", "x");
	kn_stream_publish(s, "r-3", "y");
	assert_int_equal(kn_stream_pop(s, all, &m, &len, &dropped), 0);
	assert_int_equal(dropped, 1);
	void *conns[4];
	assert_int_equal(kn_stream_take_dropped(s, conns, 4), 1); /* reported once */
	assert_null(conns[0]);
	assert_int_equal(kn_stream_take_dropped(s, conns, 4), 0);
	/* a slow subscriber never blocks the others */
	assert_int_equal(kn_stream_publish(s, "r-1", "z"), 1); /* the dropped one is skipped */
	assert_int_equal(kn_stream_pop(s, one, &m, &len, &dropped), 1);
	free(m);
	kn_stream_unsubscribe(s, one);
	assert_int_equal(kn_stream_subscribers(s), 2);
	kn_stream_free(s); /* frees the rest */
}

static void test_metrics(void **state)
{
	(void)state;
	kn_metrics *m;
	assert_int_equal(kn_metrics_new(&m), 0);
	kn_metrics_request(m, KN_ROUTE_RUN, 200, 0.003);
	kn_metrics_request(m, KN_ROUTE_RUN, 404, 0.0001);
	kn_metrics_run_ended(m, "finished");
	kn_metrics_event(m, 2);
	kn_metrics_event(m, 0);
	kn_metrics_set_runs_active(m, 1);
	kn_metrics_set_ingest(m, 4, 1);
	kn_metrics_set_health(m, "healthy", 3);
	char *t;
	size_t len;
	assert_int_equal(kn_metrics_render(m, &t, &len), 0);
	assert_int_equal(strlen(t), len);
	assert_non_null(strstr(t, "keynode_runs_active 1\n"));
	assert_non_null(strstr(t, "keynode_runs_total{status=\"finished\"} 1\n"));
	assert_non_null(strstr(t, "keynode_events_total 2\n"));
	assert_non_null(strstr(t, "keynode_keynodes_reached_total 2\n"));
	assert_non_null(strstr(t, "keynode_api_requests_total{route=\"GET /api/runs/{id}\",code=\"404\"} 1\n"));
	assert_non_null(strstr(t, "keynode_api_request_duration_seconds_bucket{route=\"GET /api/runs/{id}\",le=\"0.0005\"} 1\n"));
	assert_non_null(strstr(t, "keynode_api_request_duration_seconds_bucket{route=\"GET /api/runs/{id}\",le=\"0.005\"} 2\n"));
	assert_non_null(strstr(t, "keynode_api_request_duration_seconds_count{route=\"GET /api/runs/{id}\"} 2\n"));
	assert_non_null(strstr(t, "keynode_task_health{state=\"healthy\"} 3\n"));
	assert_non_null(strstr(t, "keynode_ingest_spooled 4\n"));
	assert_non_null(strstr(t, "keynode_db_up 1\n"));
	free(t);
	/* label tables are bounded: many statuses fold into "other" */
	char st[16];
	for (int i = 0; i < 40; i++) {
		snprintf(st, sizeof st, "s%d", i);
		kn_metrics_run_ended(m, st);
	}
	assert_int_equal(kn_metrics_render(m, &t, &len), 0);
	assert_non_null(strstr(t, "keynode_runs_total{status=\"other\"}"));
	free(t);
	kn_metrics_free(m);
}

/* DNS-rebinding and cross-origin guards (request.h), with malformed values. */
static void test_host_origin(void **state)
{
	(void)state;
	static const char *const none[] = {NULL};
	/* loopback defaults */
	assert_true(kn_http_host_ok("127.0.0.1:8080", none, 0, "127.0.0.1", 1));
	assert_true(kn_http_host_ok("LOCALHOST:1", none, 0, "127.0.0.1", 1));
	assert_true(kn_http_host_ok("[::1]:8080", none, 0, "127.0.0.1", 1));
	assert_true(kn_http_host_ok("127.0.0.2:9", none, 0, "127.0.0.2", 1));
	assert_true(kn_http_host_ok(NULL, none, 0, "127.0.0.1", 1));
	assert_false(kn_http_host_ok("evil.example:8080", none, 0, "127.0.0.1", 1));
	assert_false(kn_http_host_ok("127.0.0.1.evil.example", none, 0, "127.0.0.1", 1));
	assert_false(kn_http_host_ok("", none, 0, "127.0.0.1", 1));
	assert_false(kn_http_host_ok("local\x01host", none, 0, "127.0.0.1", 1));
	assert_false(kn_http_host_ok("\xff\xfe", none, 0, "127.0.0.1", 1));
	assert_false(kn_http_host_ok("[::1", none, 0, "127.0.0.1", 1));
	/* not loopback, no list: any; with a list: only those */
	assert_true(kn_http_host_ok("anything:1", none, 0, "0.0.0.0", 0));
	static const char *const list[] = {"keynode.internal", "10.0.0.5:8080"};
	assert_true(kn_http_host_ok("KEYNODE.internal:80", list, 2, "0.0.0.0", 0));
	assert_true(kn_http_host_ok("10.0.0.5", list, 2, "0.0.0.0", 0));
	assert_false(kn_http_host_ok("localhost", list, 2, "127.0.0.1", 1));
	/* origins */
	assert_true(kn_http_origin_ok(NULL, "127.0.0.1:8080", 0, none, 0));
	assert_true(kn_http_origin_ok("http://127.0.0.1:8080", "127.0.0.1:8080", 0, none, 0));
	assert_true(kn_http_origin_ok("http://127.0.0.1:8080/", "127.0.0.1:8080", 0, none, 0));
	assert_false(kn_http_origin_ok("http://127.0.0.2:8080", "127.0.0.1:8080", 0, none, 0));
	assert_false(kn_http_origin_ok("http://localhost:8080", "127.0.0.1:8080", 0, none, 0));
	assert_false(kn_http_origin_ok("null", "127.0.0.1:8080", 0, none, 0));
	assert_false(kn_http_origin_ok("", "127.0.0.1:8080", 0, none, 0));
	assert_false(kn_http_origin_ok("http://", "", 0, none, 0));
	assert_false(kn_http_origin_ok("https://127.0.0.1:8080", "127.0.0.1:8080", 0, none, 0));
	static const char *const ol[] = {"http://dash.example:8080/"};
	assert_true(kn_http_origin_ok("http://dash.example:8080", "127.0.0.1:8080", 0, ol, 1));
	assert_false(kn_http_origin_ok("http://dash.example:8081", "127.0.0.1:8080", 0, ol, 1));
	/* behind a TLS proxy (X-Forwarded-Proto: https) the own origin is https:// + the host */
	assert_true(kn_http_origin_ok("https://kn.example", "kn.example", 1, none, 0));
	assert_false(kn_http_origin_ok("http://kn.example", "kn.example", 1, none, 0));
	/* X-Forwarded-For: the last address is the one the proxy saw */
	char peer[64];
	kn_http_forwarded_for("10.0.0.9, 203.0.113.7 ", peer, sizeof peer);
	assert_string_equal(peer, "203.0.113.7");
	kn_http_forwarded_for("10.0.0.9", peer, sizeof peer);
	assert_string_equal(peer, "10.0.0.9");
	kn_http_forwarded_for("10.0.0.9,", peer, sizeof peer);
	assert_string_equal(peer, "");
	kn_http_forwarded_for(NULL, peer, sizeof peer);
	assert_string_equal(peer, "");
	kn_http_forwarded_for("1.2.3.4, a b", peer, sizeof peer);
	assert_string_equal(peer, "");
	kn_http_forwarded_for("1.2.3.4, 1234567890123456789012345678901234567890123456789012345678901234567890", peer, 16);
	assert_string_equal(peer, "");
}

/* Subscriber limits: tokenless ones per address and in all; token holders keep their slots. */
static void test_stream_limits(void **state)
{
	(void)state;
	kn_stream *s;
	kn_err err;
	assert_int_equal(kn_stream_new(&s, 0, NULL, NULL), 0);
	kn_stream_sub *subs[KN_STREAM_MAX_SUBSCRIBERS + 8];
	size_t n = 0;
	for (int i = 0; i < KN_STREAM_MAX_ANON_PER_CLIENT; i++)
		assert_int_equal(kn_stream_subscribe_from(s, NULL, NULL, "127.0.0.1", 0, &subs[n++], &err), 0);
	kn_stream_sub *x;
	assert_int_equal(kn_stream_subscribe_from(s, NULL, NULL, "127.0.0.1", 0, &x, &err), KN_ELIMIT);
	assert_non_null(strstr(err.msg, "tokenless"));
	assert_int_equal(kn_stream_subscribe_from(s, NULL, NULL, "127.0.0.1", 1, &subs[n++], &err), 0);
	/* other addresses up to the tokenless total */
	char ip[32];
	for (int i = KN_STREAM_MAX_ANON_PER_CLIENT; i < KN_STREAM_MAX_ANON; i++) {
		snprintf(ip, sizeof ip, "127.0.1.%d", i);
		assert_int_equal(kn_stream_subscribe_from(s, NULL, NULL, ip, 0, &subs[n++], &err), 0);
	}
	assert_int_equal(kn_stream_subscribe_from(s, NULL, NULL, "127.0.9.9", 0, &x, &err), KN_ELIMIT);
	assert_non_null(strstr(err.msg, "without a token"));
	assert_int_equal(kn_stream_subscribe_from(s, NULL, NULL, "127.0.9.9", 1, &subs[n++], &err), 0);
	/* a slot freed is a slot again */
	kn_stream_unsubscribe(s, subs[0]);
	subs[0] = NULL;
	assert_int_equal(kn_stream_subscribe_from(s, NULL, NULL, "127.0.0.1", 0, &subs[0], &err), 0);
	for (size_t i = 0; i < n; i++)
		kn_stream_unsubscribe(s, subs[i]);
	assert_int_equal(kn_stream_subscribers(s), 0);
	kn_stream_free(s);
}

/* X-Kn-Forwarded and the routes it may come with; the advertised address. */
static void test_forward(void **state)
{
	(void)state;
	assert_true(kn_http_hop_ok("s-api1-4242-1764371234567"));
	assert_true(kn_http_hop_ok("a"));
	char long_ok[KN_HTTP_MAX_HOP + 2];
	memset(long_ok, 'x', sizeof long_ok);
	long_ok[KN_HTTP_MAX_HOP] = '\0';
	assert_true(kn_http_hop_ok(long_ok));
	long_ok[KN_HTTP_MAX_HOP] = 'x';
	long_ok[KN_HTTP_MAX_HOP + 1] = '\0';
	assert_false(kn_http_hop_ok(long_ok));
	static const char *const bad[] = {"", "a b", "s-1,s-2", "a\r\nX-Evil: 1", "ä", "a/b", "a:b", NULL};
	for (size_t i = 0; bad[i]; i++)
		assert_false(kn_http_hop_ok(bad[i]));
	assert_false(kn_http_hop_ok(NULL));
	assert_true(kn_route_forwardable(KN_ROUTE_RUN_EVENTS));
	assert_true(kn_route_forwardable(KN_ROUTE_RUN_ANSWER));
	assert_true(kn_route_forwardable(KN_ROUTE_RUN_STOP));
	assert_false(kn_route_forwardable(KN_ROUTE_RUNS_POST));
	assert_false(kn_route_forwardable(KN_ROUTE_RUN));
	assert_false(kn_route_forwardable(KN_ROUTE_STREAM));

	char a[64];
	kn_err err;
	assert_int_equal(kn_http_advertise(a, sizeof a, "10.0.0.11", 8080, "api1", &err), 0);
	assert_string_equal(a, "10.0.0.11:8080");
	assert_int_equal(kn_http_advertise(a, sizeof a, "0.0.0.0", 8080, "api1", &err), 0);
	assert_string_equal(a, "api1:8080");
	assert_int_equal(kn_http_advertise(a, sizeof a, "::", 81, "api1", &err), 0);
	assert_string_equal(a, "api1:81");
	assert_int_equal(kn_http_advertise(a, sizeof a, "::1", 81, "api1", &err), 0);
	assert_string_equal(a, "[::1]:81");
	assert_int_equal(kn_http_advertise(a, sizeof a, "0.0.0.0", 81, "", &err), KN_EINVAL);
	assert_int_equal(kn_http_advertise(a, sizeof a, "127.0.0.1", 0, "h", &err), KN_EINVAL);
	assert_int_equal(kn_http_advertise(a, 8, "127.0.0.1", 8080, "h", &err), KN_ELIMIT);
}

/* The relayed live feed: what one serve formats another parses back; anything else is refused. */
static void test_relay(void **state)
{
	(void)state;
	kn_err err;
	char *p = NULL;
	const char *msg = "{\"type\":\"event\",\"run\":\"r-1a\",\"seq\":3}";
	assert_int_equal(kn_relay_format(&p, "s-api1-1-2", 7, "r-1a", msg, &err), 0);
	assert_string_equal(p, "s-api1-1-2 7 r-1a\n{\"type\":\"event\",\"run\":\"r-1a\",\"seq\":3}");
	kn_relay_msg m;
	assert_int_equal(kn_relay_parse(&m, p, &err), 0);
	assert_string_equal(m.from, "s-api1-1-2");
	assert_string_equal(m.run, "r-1a");
	assert_true(m.n == 7);
	assert_string_equal(m.msg, msg);
	free(p);
	/* a bad sender or run is never formatted; too large is KN_ELIMIT */
	assert_int_equal(kn_relay_format(&p, "s 1", 1, "r-1a", msg, &err), KN_EINVAL);
	assert_int_equal(kn_relay_format(&p, "s-1", 1, "r 1", msg, &err), KN_EINVAL);
	assert_int_equal(kn_relay_format(&p, "s-1", 1, "r-1\n", msg, &err), KN_EINVAL);
	char *big = malloc(KN_RELAY_MAX + 2);
	memset(big, 'x', KN_RELAY_MAX + 1);
	big[KN_RELAY_MAX + 1] = '\0';
	assert_int_equal(kn_relay_format(&p, "s-1", 1, "r-1a", big, &err), KN_ELIMIT);
	memset(big, 'x', KN_RELAY_MAX - 8);
	big[KN_RELAY_MAX - 8] = '\0'; /* fits alone, not with the header */
	assert_int_equal(kn_relay_format(&p, "s-1", 1, "r-1a", big, &err), KN_ELIMIT);
	assert_null(p);
	free(big);
	/* malformed payloads */
	static const char *const bad[] = {
		"", "s-1", "s-1 7", "s-1 7 r-1a", "s-1 x r-1a\n{\"type\":\"end\",\"run\":\"r-1a\"}",
		" 7 r-1a\n{\"type\":\"end\",\"run\":\"r-1a\"}",
		"s-1 7 r-1a {\"type\":\"end\",\"run\":\"r-1a\"}",
		"s-1 7 r-1a\n{\"type\":\"end\",\"run\":\"r-2\"}",   /* another run's message */
		"s-1 7 r-1a\n{\"run\":\"r-1a\"}",                     /* no type */
		"s-1 7 r-1a\n[\"r-1a\"]", "s-1 7 r-1a\nnot json",
		"s-1 7 r-1a\n{\"type\":\"end\",\"run\":\"r-1a\",\"run\":\"r-1a\"}", /* duplicate key */
		"s-1 123456789012345678901 r-1a\n{\"type\":\"end\",\"run\":\"r-1a\"}",
		"s-1 7 r/1\n{\"type\":\"end\",\"run\":\"r/1\"}", NULL};
	for (size_t i = 0; bad[i]; i++)
		if (kn_relay_parse(&m, bad[i], &err) != KN_EINVAL)
			fail_msg("accepted '%s'", bad[i]);
	assert_int_equal(kn_relay_parse(&m, NULL, &err), KN_EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_routes), cmocka_unit_test(test_query), cmocka_unit_test(test_json),
		cmocka_unit_test(test_auth),   cmocka_unit_test(test_stream),
		cmocka_unit_test(test_metrics), cmocka_unit_test(test_host_origin),
		cmocka_unit_test(test_stream_limits), cmocka_unit_test(test_forward),
		cmocka_unit_test(test_relay),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
