/* test_websocket.c — `websocket` key nodes and guard rules: their YAML form (and its errors, with
 * file:line:col), their JSON forms (the Mind2Web-Live extension websocket_match, a guard rule in
 * keynode.yaml and its writer), the websocket event's JSON form, and the one match: a websocket spec
 * meets WebSocket messages only, a request spec HTTP requests only. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "keynode/eval.h"
#include "keynode/event.h"
#include "keynode/guard.h"
#include "keynode/request.h"
#include "keynode/task.h"

#define ONE "    id: a\n    intent: x\n"

static const kn_field order[] = {{"action", "place_order"}, {"items.0.sku", "TEA-1"}};
static const kn_field ping[] = {{"action", "ping"}};

static void test_yaml_keynode_and_rule(void **state)
{
	(void)state;
	const char y[] = "tasks:\n  -\n" ONE
	                 "    key_nodes:\n"
	                 "      - websocket: { url: { include: \"/live\" }, message: { action: { exact: place_order } } }\n"
	                 "    guard:\n"
	                 "      - websocket: { url: { include: \"/live\" }, message: { action: { exact: place_order } } }\n"
	                 "      - { method: POST, url: { include: \"/live\" } }\n";
	kn_taskset *set = NULL;
	kn_err err = {0};
	int rc = kn_task_load_yaml(&set, y, sizeof y - 1, "w.yaml", NULL, &err);
	if (rc)
		print_error("%s\n", err.msg);
	assert_int_equal(rc, 0);
	const kn_task *t = &set->tasks[0];
	assert_int_equal(t->n_keynodes, 1);
	const kn_keynode *kn = &t->keynodes[0];
	assert_int_equal(kn->target, KN_TARGET_WEBSOCKET);
	assert_string_equal(kn_target_name(kn->target), "websocket");
	assert_non_null(kn->request);
	assert_int_equal(kn->request->websocket, 1);
	assert_null(kn->request->method);
	assert_int_equal(kn->request->n_fields, 1);
	assert_string_equal(kn->request->fields[0].key, "action");
	assert_string_equal(kn->expect, "websocket include '/live' +1 field");
	assert_string_equal(kn_keynode_function_name(kn->target, kn->matcher), "websocket_match");

	kn_request msg = {.url = "ws://127.0.0.1:9/live?x=1", .fields = order, .n_fields = 2,
	                  .websocket = 1, .direction = "sent"};
	kn_request other = msg;
	other.fields = ping, other.n_fields = 1;
	kn_request http = {.method = "POST", .url = "http://127.0.0.1:9/live", .fields = order, .n_fields = 2};
	assert_int_equal(kn_request_match(kn->request, &msg, NULL, 0, NULL), 1);
	assert_int_equal(kn_request_match(kn->request, &other, NULL, 0, NULL), 0);
	assert_int_equal(kn_request_match(kn->request, &http, NULL, 0, NULL), 0); /* not a message */

	const kn_guard *g = t->guard;
	assert_int_equal(g->n, 2);
	assert_int_equal(g->rules[0].spec->websocket, 1);
	assert_int_equal(g->rules[0].line, 8);
	assert_int_equal(kn_guard_has(g, 1), 1);
	assert_int_equal(kn_guard_has(g, 0), 1);
	assert_ptr_equal(kn_guard_match(g, &msg), &g->rules[0]);
	assert_null(kn_guard_match(g, &other));
	/* the request rule on the same URL never holds a message, the websocket rule never a request */
	assert_ptr_equal(kn_guard_match(g, &http), &g->rules[1]);
	kn_request get = {.method = "GET", .url = "http://127.0.0.1:9/live", .fields = order, .n_fields = 2};
	assert_null(kn_guard_match(g, &get));
	kn_taskset_free(set);
}

static void test_yaml_errors(void **state)
{
	(void)state;
	struct { const char *doc, *msg; } bad[] = {
		{"id: a\nintent: x\nkey_nodes: [{websocket: {method: POST}}]\n",
		 "w.yaml:3:26: task 'a' key node 1: unknown key 'method' in 'websocket' (expected url, message or match_all)"},
		{"id: a\nintent: x\nkey_nodes: [{websocket: {body: {a: {exact: b}}}}]\n",
		 "w.yaml:3:26: task 'a' key node 1: unknown key 'body' in 'websocket' (expected url, message or match_all)"},
		{"id: a\nintent: x\nkey_nodes: [{websocket: /live}]\n",
		 "w.yaml:3:25: task 'a' key node 1: 'websocket' must be a mapping of url and message, such as "
		 "{ url: { include: \"/live\" }, message: { action: { exact: \"place_order\" } } }; found the text '/live'"},
		{"id: a\nintent: x\nkey_nodes: [{websocket: {message: [a]}}]\n",
		 "w.yaml:3:35: task 'a' key node 1: 'message' must be a mapping of field name to matcher, such as "
		 "{ action: { exact: \"place_order\" } }; found a list"},
		{"id: a\nintent: x\nkey_nodes: [{websocket: {message: {action: {fuzzy: x}}}}]\n",
		 "w.yaml:3:45: task 'a' key node 1: unknown matcher 'fuzzy' in message field 'action' (expected exact, "
		 "include, semantic or regex)"},
		{"id: a\nintent: x\nkey_nodes: [{websocket: {url: {regex: \"(\"}}}]\n",
		 NULL /* a bad regex: the message comes from PCRE2, only its position is checked */},
		{"id: a\nintent: x\nkey_nodes: [{websocket: {url: {include: a}}, url: {include: b}}]\n",
		 "w.yaml:3:46: task 'a' key node 1: two targets 'websocket' and 'url' (a key node has exactly one of url, "
		 "element_path, element_value, answer, cache_data, page, request or websocket)"},
		{"tasks:\n  -\n" ONE "    key_nodes: [{url: {include: a}}]\n"
		 "    guard: [ { websocket: { url: { include: /live } }, respond: error } ]\n",
		 "w.yaml:6:14: task 'a': a websocket guard rule has only 'websocket' (no method, url, body, match_all "
		 "or respond beside it; match_all goes inside 'websocket')"},
		{"tasks:\n  -\n" ONE "    key_nodes: [{url: {include: a}}]\n"
		 "    guard: [ { method: POST, websocket: { url: { include: /live } } } ]\n",
		 "w.yaml:6:14: task 'a': a websocket guard rule has only 'websocket' (no method, url, body, match_all "
		 "or respond beside it; match_all goes inside 'websocket')"},
		{"tasks:\n  -\n" ONE "    key_nodes: [{url: {include: a}}]\n"
		 "    guard: [ { websocket: { message: { a: { exact: b }, a: { exact: c } } } } ]\n",
		 "w.yaml:6:57: task 'a': duplicate message field 'a'"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		kn_taskset *set = NULL;
		kn_err err = {0};
		assert_int_equal(kn_task_load_yaml(&set, bad[i].doc, strlen(bad[i].doc), "w.yaml", NULL, &err),
		                 KN_EINVAL);
		assert_null(set);
		if (!bad[i].msg) {
			assert_non_null(strstr(err.msg, "w.yaml:3:"));
			continue;
		}
		if (strcmp(err.msg, bad[i].msg) != 0)
			print_error("case %zu\n", i);
		assert_string_equal(err.msg, bad[i].msg);
	}
}

static void test_json_forms(void **state)
{
	(void)state;
	kn_guard g = {.end_on_guard = -1};
	kn_err err = {0};
	const char *rule = "{\"websocket\":{\"url\":{\"include\":\"/live\"},\"message\":{\"action\":{\"exact\":"
	                   "\"place_order\"}}}}";
	json_t *r = json_loads(rule, 0, NULL);
	assert_int_equal(kn_guard_add_json(&g, r, &err), 0);
	json_decref(r);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.rules[0].spec->websocket, 1);
	json_t *back = kn_guard_to_json(&g);
	char *text = json_dumps(json_object_get(back, "rules"), JSON_COMPACT | JSON_SORT_KEYS);
	assert_string_equal(text, "[{\"websocket\":{\"message\":{\"action\":{\"exact\":\"place_order\"}},\"url\":"
	                          "{\"include\":\"/live\"}}}]");
	free(text);
	json_decref(back);
	const char *bad[][2] = {
		{"{\"websocket\":{\"url\":{\"include\":\"/x\"}},\"respond\":\"error\"}",
		 "websocket: a websocket rule has no method, url, body or respond beside it"},
		{"{\"websocket\":{\"method\":\"POST\"}}", "method: unknown member (expected url, message or match_all)"},
		{"{\"websocket\":{\"message\":[]}}", "message: expected an object of field matchers"},
		{"{\"websocket\":\"x\"}", "expected an object {url, message}"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		r = json_loads(bad[i][0], 0, NULL);
		assert_int_equal(kn_guard_add_json(&g, r, &err), KN_EINVAL);
		assert_string_equal(err.msg, bad[i][1]);
		json_decref(r);
	}
	assert_int_equal(g.n, 1);
	kn_guard_clear(&g);
}

static void test_mind2web(void **state)
{
	(void)state;
	const char doc[] = "[{\"index\":\"w1\",\"task\":\"order tea\",\"evaluation\":[{\"match_function_name\":"
	                   "\"websocket_match\",\"content\":{\"reference_answer\":{\"url\":{\"include\":\"/live\"},"
	                   "\"message\":{\"action\":{\"exact\":\"place_order\"}}}}}]}]";
	kn_taskset *set = NULL;
	kn_err err = {0};
	int rc = kn_task_load_mind2web(&set, doc, sizeof doc - 1, "w.json", NULL, &err);
	if (rc)
		print_error("%s\n", err.msg);
	assert_int_equal(rc, 0);
	const kn_keynode *kn = &set->tasks[0].keynodes[0];
	assert_int_equal(kn->target, KN_TARGET_WEBSOCKET);
	assert_int_equal(kn->request->websocket, 1);
	kn_request msg = {.url = "ws://h/live", .fields = order, .n_fields = 2, .websocket = 1};
	assert_int_equal(kn_request_match(kn->request, &msg, NULL, 0, NULL), 1);
	kn_taskset_free(set);
	/* a request spec's members are refused in a websocket spec */
	kn_request_spec *s = NULL;
	json_t *j = json_loads("{\"body\":{}}", 0, NULL);
	assert_int_equal(kn_websocket_spec_from_json(&s, j, &err), KN_EINVAL);
	assert_null(s);
	json_decref(j);
}

/* A websocket event writes its message under "websocket" and reads back the same; the evaluator
 * credits the click that sent it, as it does a request. */
static void test_event_and_eval(void **state)
{
	(void)state;
	kn_request msg = {.url = "ws://h/live", .fields = order, .n_fields = 2, .websocket = 1,
	                  .direction = "sent", .size = 42, .held = 1};
	kn_event e = {.t = 2, .type = KN_EV_WEBSOCKET, .tab = "T1", .url = "http://h/shop", .request = &msg,
	              .trusted = -1};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(kn_traj_write_event(f, &e), 0);
	fclose(f);
	assert_non_null(strstr(buf, "\"type\":\"websocket\""));
	assert_non_null(strstr(buf, "\"websocket\":{"));
	assert_null(strstr(buf, "\"method\""));
	kn_event p;
	kn_err err = {0};
	assert_int_equal(kn_event_parse(&p, buf, len, &err), 0);
	assert_int_equal(p.type, KN_EV_WEBSOCKET);
	assert_non_null(p.request);
	assert_int_equal(p.request->websocket, 1);
	assert_int_equal(p.request->held, 1);
	assert_int_equal(p.request->size, 42);
	assert_string_equal(p.request->direction, "sent");
	assert_int_equal(p.request->n_fields, 2);
	assert_string_equal(p.request->fields[0].value, "place_order");
	assert_int_equal(kn_event_is_step(&p), 0);
	kn_event_clear(&p);
	free(buf);
	const char *bad[] = {
		"{\"t\":1,\"type\":\"websocket\"}",
		"{\"t\":1,\"type\":\"websocket\",\"websocket\":{\"url\":\"ws://h/\",\"direction\":\"up\"}}",
		"{\"t\":1,\"type\":\"websocket\",\"websocket\":{\"url\":\"ws://h/\",\"direction\":\"sent\",\"size\":-1}}",
		"{\"t\":1,\"type\":\"request\",\"websocket\":{\"url\":\"ws://h/\",\"direction\":\"sent\"}}",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(kn_event_parse(&p, bad[i], strlen(bad[i]), &err), KN_EINVAL);
		kn_event_clear(&p);
	}

	const char y[] = "id: a\nintent: x\nkey_nodes:\n"
	                 "  - websocket: { url: { include: /live }, message: { action: { exact: place_order } } }\n";
	kn_taskset *set = NULL;
	assert_int_equal(kn_task_load_yaml(&set, y, sizeof y - 1, "w.yaml", NULL, &err), 0);
	kn_eval *ev = NULL;
	kn_eval_opts o = {0};
	assert_int_equal(kn_eval_new(&ev, &set->tasks[0], &o), 0);
	kn_event nav = {.type = KN_EV_NAVIGATE, .how = "goto", .url = "http://h/shop", .trusted = -1};
	kn_event click = {.type = KN_EV_CLICK, .url = "http://h/shop", .selector = "#ping", .trusted = -1};
	kn_request pmsg = {.url = "ws://h/live", .fields = ping, .n_fields = 1, .websocket = 1, .direction = "sent"};
	kn_event pe = {.type = KN_EV_WEBSOCKET, .url = "http://h/shop", .request = &pmsg, .trusted = -1};
	kn_event click2 = {.type = KN_EV_CLICK, .url = "http://h/shop", .selector = "#buy", .trusted = -1};
	kn_request http = {.method = "POST", .url = "http://h/live", .fields = order, .n_fields = 2};
	kn_event he = {.type = KN_EV_REQUEST, .url = "http://h/shop", .request = &http, .trusted = -1};
	assert_int_equal(kn_eval_feed(ev, &nav, &err), 0);
	assert_int_equal(kn_eval_feed(ev, &click, &err), 0);
	assert_int_equal(kn_eval_feed(ev, &pe, &err), 0);     /* another message: no rise */
	assert_int_equal(kn_eval_feed(ev, &click2, &err), 0);
	assert_int_equal(kn_eval_feed(ev, &he, &err), 0);     /* an HTTP request with the fields: no rise */
	e.request = &msg;
	assert_int_equal(kn_eval_feed(ev, &e, &err), 1);      /* the order: credits step 3, the click */
	assert_int_equal(kn_eval_steps(ev), 3);
	assert_int_equal(kn_eval_node(ev, 0)->reached_at_step, 3);
	kn_eval_free(ev);
	kn_taskset_free(set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_yaml_keynode_and_rule),
		cmocka_unit_test(test_yaml_errors),
		cmocka_unit_test(test_json_forms),
		cmocka_unit_test(test_mind2web),
		cmocka_unit_test(test_event_and_eval),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
