/* test_rule_check.c — the one check on guard rules and request key nodes (rule_check.h): each
 * refused shape (empty, match-all by include/regex, never applies by method, body on a GET, exact
 * URL of another scheme, match_all on a narrowed rule) refused by every loader with its position
 * (task YAML file:line:col, Mind2Web-Live JSON path, keynode.yaml file:line:col), the match_all
 * escape accepted and written back, narrow rules accepted, and malformed match_all values; websocket
 * rules and key nodes checked against WebSocket messages (ws:// probes, message fields). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "config.h"
#include "keynode/guard.h"
#include "keynode/rule_check.h"
#include "keynode/task_change.h"

#define ONE "    id: a\n    intent: x\n    key_nodes: [{url: {include: a}}]\n"

/* A task file whose task 'a' has guard rule RULE (at line 6, column 14). */
static int load_guard(const char *rule, kn_err *err)
{
	char doc[1024];
	snprintf(doc, sizeof doc, "tasks:\n  -\n" ONE "    guard: [ %s ]\n", rule);
	kn_taskset *set = NULL;
	memset(err, 0, sizeof *err);
	int rc = kn_task_load_yaml(&set, doc, strlen(doc), "g.yaml", NULL, err);
	assert_true(rc != 0 || set != NULL);
	kn_taskset_free(set);
	return rc;
}

static void expect_refused(const char *rule, const char *msg)
{
	kn_err err;
	int rc = load_guard(rule, &err);
	if (rc == 0 || strcmp(err.msg, msg) != 0)
		print_error("rule %s\n", rule);
	assert_int_equal(rc, KN_EINVAL);
	assert_string_equal(err.msg, msg);
}

static void test_refused_guard_rules(void **state)
{
	(void)state;
	expect_refused("{ respond: error }",
	               "g.yaml:6:14: task 'a': guard rule is empty: it would match every request (say "
	               "match_all: true if that is meant)");
	expect_refused("{}", "g.yaml:6:14: task 'a': guard rule is empty: it would match every request "
	                     "(say match_all: true if that is meant)");
	const char *all[] = {"{ url: { include: \"\" } }", "{ url: { include: / } }",
	                     "{ url: { regex: \".*\" } }", "{ url: { regex: \"^https?://\" } }",
	                     "{ url: { regex: \"(?:)\" } }", "{ url: { include: \"\" }, respond: { status: 403 } }"};
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
		kn_err err;
		int rc = load_guard(all[i], &err);
		if (rc != KN_EINVAL || !strstr(err.msg, "guard rule matches every request"))
			print_error("rule %s: %s\n", all[i], err.msg);
		assert_int_equal(rc, KN_EINVAL);
		assert_non_null(strstr(err.msg, "g.yaml:6:"));
		assert_non_null(strstr(err.msg, "guard rule matches every request: its url matcher accepts any "
		                                "URL and nothing else narrows it (say match_all: true if that is meant)"));
	}
	expect_refused("{ method: TRACE }", "g.yaml:6:14: task 'a': guard rule can never apply: browsers "
	                                    "never send a TRACE request");
	expect_refused("{ method: connect, url: { include: /x } }",
	               "g.yaml:6:14: task 'a': guard rule can never apply: browsers never send a CONNECT request");
	expect_refused("{ method: GET, body: { q: { exact: a } } }",
	               "g.yaml:6:14: task 'a': guard rule can never apply: a GET request carries no body, so "
	               "'body' never matches (a GET form's fields are in the URL: use url with key)");
	expect_refused("{ url: { exact: \"wss://h/chat\" } }",
	               "g.yaml:6:14: task 'a': guard rule can never apply: url exact is compared with the whole "
	               "URL, and every request keynode sees begins with http:// or https://");
	expect_refused("{ method: POST, match_all: true }",
	               "g.yaml:6:14: task 'a': guard rule says match_all: true but its method narrows it: "
	               "drop one of the two");
	expect_refused("{ url: { include: /api }, match_all: true }",
	               "g.yaml:6:14: task 'a': guard rule says match_all: true but its url narrows it: drop "
	               "one of the two");
	expect_refused("{ body: { q: { regex: \".\" } }, match_all: true }",
	               "g.yaml:6:14: task 'a': guard rule says match_all: true but its body fields narrow it: "
	               "drop one of the two");
	/* the position of a rule in block style is its mapping's */
	const char doc[] = "tasks:\n  -\n" ONE "    guard:\n      - method: POST\n        url: { include: /a }\n"
	                   "      - url: { include: \"\" }\n";
	kn_taskset *set = NULL;
	kn_err err = {0};
	assert_int_equal(kn_task_load_yaml(&set, doc, sizeof doc - 1, "g.yaml", NULL, &err), KN_EINVAL);
	assert_non_null(strstr(err.msg, "g.yaml:9:9: task 'a': guard rule matches every request"));
	/* a set-level rule too */
	const char top[] = "guard: [ { url: { regex: \".\" } } ]\ntasks:\n  -\n" ONE;
	assert_int_equal(kn_task_load_yaml(&set, top, sizeof top - 1, "g.yaml", NULL, &err), KN_EINVAL);
	assert_non_null(strstr(err.msg, "g.yaml:1:10:"));
	assert_null(set);
}

static void test_accepted(void **state)
{
	(void)state;
	const char *ok[] = {"{ method: POST }", "{ url: { include: /api/orders } }",
	                    "{ url: { key: q, include: \"\" } }", "{ url: { semantic: \"any page at all\" } }",
	                    "{ body: { card_number: { regex: \".\" } }, respond: error }",
	                    "{ url: { regex: \"^http://127\\\\.0\\\\.0\\\\.1\" } }",
	                    "{ url: { exact: \"http://h/x\" } }", "{ match_all: true }",
	                    "{ match_all: true, url: { include: \"\" }, respond: error }",
	                    "{ match_all: false, method: PUT }", "{ method: GET, url: { include: /search } }"};
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		kn_err err;
		int rc = load_guard(ok[i], &err);
		if (rc)
			print_error("rule %s: %s\n", ok[i], err.msg);
		assert_int_equal(rc, 0);
	}
	/* match_all: true holds everything, and is written back with the rule (a stored task) */
	const char doc[] = "tasks:\n  -\n" ONE "    guard: [ { match_all: true } ]\n";
	kn_taskset *set = NULL;
	kn_err err = {0};
	assert_int_equal(kn_task_load_yaml(&set, doc, sizeof doc - 1, "g.yaml", NULL, &err), 0);
	kn_request any = {.method = "GET", .url = "http://x/"};
	assert_non_null(kn_guard_match(set->tasks[0].guard, &any));
	json_t *j = kn_guard_to_json(set->tasks[0].guard);
	char *text = json_dumps(json_object_get(j, "rules"), JSON_COMPACT);
	assert_string_equal(text, "[{\"match_all\":true}]");
	free(text);
	kn_guard back = {.end_on_guard = -1};
	assert_int_equal(kn_guard_add_json(&back, json_array_get(json_object_get(j, "rules"), 0), &err), 0);
	assert_int_equal(back.rules[0].spec->match_all, 1);
	assert_int_equal(kn_rule_check(back.rules[0].spec, "guard rule", err.msg, sizeof err.msg), 0);
	kn_guard_clear(&back);
	json_decref(j);
	kn_taskset_free(set);
}

static void test_malformed(void **state)
{
	(void)state;
	expect_refused("{ match_all: yes please }",
	               "g.yaml:6:27: task 'a': 'match_all' must be true or false, found the text 'yes please'");
	expect_refused("{ match_all: [true] }",
	               "g.yaml:6:27: task 'a': 'match_all' must be true or false, found a list");
	expect_refused("{ match_all: true, match_all: true }", "g.yaml:6:33: task 'a': duplicate key 'match_all'");
	kn_guard g = {.end_on_guard = -1};
	kn_err err = {0};
	json_t *r = json_loads("{\"match_all\":\"maybe\"}", 0, NULL);
	assert_int_equal(kn_guard_add_json(&g, r, &err), KN_EINVAL);
	assert_string_equal(err.msg, "match_all: expected true or false");
	json_decref(r);
	assert_int_equal(g.n, 0);
	kn_guard_clear(&g);
	char why[300];
	assert_int_equal(kn_rule_check(NULL, "guard rule", why, sizeof why), KN_EINVAL);
	assert_int_equal(kn_rule_matches_all(NULL), 0);
}

/* A request key node gets the same check, in YAML and in Mind2Web-Live's request_match. */
static void test_request_key_nodes(void **state)
{
	(void)state;
	const char y[] = "id: a\nintent: x\nkey_nodes:\n  - url: { include: a }\n  - request: { url: { include: \"\" } }\n";
	kn_taskset *set = NULL;
	kn_err err = {0};
	assert_int_equal(kn_task_load_yaml(&set, y, sizeof y - 1, "t.yaml", NULL, &err), KN_EINVAL);
	assert_string_equal(err.msg, "t.yaml:5:14: task 'a' key node 2: request key node matches every request: "
	                             "its url matcher accepts any URL and nothing else narrows it (say "
	                             "match_all: true if that is meant)");
	const char ok[] = "id: a\nintent: x\nkey_nodes:\n  - request: { url: { include: \"\" }, match_all: true }\n";
	assert_int_equal(kn_task_load_yaml(&set, ok, sizeof ok - 1, "t.yaml", NULL, &err), 0);
	assert_int_equal(set->tasks[0].keynodes[0].request->match_all, 1);
	kn_taskset_free(set);
	const char j[] = "[{\"index\": 1, \"task\": \"x\", \"reference_task_length\": 1, \"evaluation\": ["
	                 "{\"match_function_name\": \"request_match\", \"content\": {\"reference_answer\": "
	                 "{\"method\": \"GET\", \"body\": {\"q\": {\"exact\": \"a\"}}}}}]}]";
	set = NULL;
	assert_int_equal(kn_task_load_mind2web(&set, j, sizeof j - 1, "m.json", NULL, &err), KN_EINVAL);
	assert_null(set);
	assert_non_null(strstr(err.msg, "[0].evaluation[0].content.reference_answer: request key node can "
	                                "never apply: a GET request carries no body"));
	const char e[] = "[{\"index\": 1, \"task\": \"x\", \"reference_task_length\": 1, \"evaluation\": ["
	                 "{\"match_function_name\": \"request_match\", \"content\": {\"reference_answer\": {}}}]}]";
	assert_int_equal(kn_task_load_mind2web(&set, e, sizeof e - 1, "m.json", NULL, &err), KN_EINVAL);
	assert_non_null(strstr(err.msg, "reference_answer: request key node is empty"));
}

/* A key node edit through the API (POST /api/tasks/{id}/edits: kn_keynode_from_snippet) is checked
 * too, its position in the snippet. */
static void test_edit_snippet(void **state)
{
	(void)state;
	const char y[] = "request: { url: { regex: \".*\" } }";
	kn_taskset *set = NULL;
	kn_err err = {0};
	assert_int_equal(kn_keynode_from_snippet(&set, y, sizeof y - 1, &err), KN_EINVAL);
	assert_null(set);
	assert_non_null(strstr(err.msg, "key_node:1:10:"));
	assert_non_null(strstr(err.msg, "request key node matches every request"));
	const char ok[] = "request: { method: POST, url: { regex: \".*\" } }";
	assert_int_equal(kn_keynode_from_snippet(&set, ok, sizeof ok - 1, &err), 0);
	kn_taskset_free(set);
}

/* keynode.yaml's guard: refused with its file:line:column. */
static void test_config(void **state)
{
	(void)state;
	const char bad[] = "guard:\n  - { method: POST, url: { include: /a } }\n  - { url: { regex: \".*\" } }\n";
	kn_config *c = NULL;
	kn_err err = {0};
	assert_int_equal(kn_config_load_buffer(&c, bad, sizeof bad - 1, "k.yaml", &err), KN_EINVAL);
	assert_null(c);
	assert_string_equal(err.msg, "k.yaml:3:5: guard[1]: guard rule matches every request: its url matcher "
	                             "accepts any URL and nothing else narrows it (say match_all: true if that "
	                             "is meant)");
	const char ok[] = "guard:\n  - { match_all: true, respond: error }\n";
	assert_int_equal(kn_config_load_buffer(&c, ok, sizeof ok - 1, "k.yaml", &err), 0);
	kn_config_free(c);
}

/* A websocket rule or key node: empty, matching every message (no message field, a url matcher
 * accepting any ws:// or wss:// URL), an exact url of another scheme, match_all on a narrowed one —
 * refused at its position in every loader; match_all: true inside 'websocket' accepted. */
static void test_websocket_rules(void **state)
{
	(void)state;
	expect_refused("{ websocket: {} }",
	               "g.yaml:6:14: task 'a': websocket guard rule is empty: it would match every WebSocket "
	               "message (say match_all: true if that is meant)");
	const char *all[] = {"{ websocket: { url: { include: \"\" } } }", "{ websocket: { url: { include: / } } }",
	                     "{ websocket: { url: { regex: \".*\" } } }",
	                     "{ websocket: { url: { regex: \"^wss?://\" } } }"};
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
		kn_err err;
		int rc = load_guard(all[i], &err);
		if (rc != KN_EINVAL || !strstr(err.msg, "g.yaml:6:14: task 'a': websocket guard rule matches every "
		                                        "WebSocket message: its url matcher accepts any URL and nothing "
		                                        "else narrows it (say match_all: true if that is meant)"))
			print_error("rule %s: %s\n", all[i], err.msg);
		assert_int_equal(rc, KN_EINVAL);
	}
	expect_refused("{ websocket: { url: { exact: \"http://h/live\" } } }",
	               "g.yaml:6:14: task 'a': websocket guard rule can never apply: url exact is compared with "
	               "the socket's whole URL, which begins with ws:// or wss://");
	expect_refused("{ websocket: { url: { include: /live }, match_all: true } }",
	               "g.yaml:6:14: task 'a': websocket guard rule says match_all: true but its url narrows it: "
	               "drop one of the two");
	expect_refused("{ websocket: { message: { action: { exact: x } }, match_all: true } }",
	               "g.yaml:6:14: task 'a': websocket guard rule says match_all: true but its message fields "
	               "narrow it: drop one of the two");
	expect_refused("{ websocket: { url: { include: /live } }, match_all: true }",
	               "g.yaml:6:14: task 'a': a websocket guard rule has only 'websocket' (no method, url, body, "
	               "match_all or respond beside it; match_all goes inside 'websocket')");
	/* accepted: narrowing urls and fields, `key`, match_all inside 'websocket'; and a request rule
	 * naming ws:// (it holds no WebSocket message, but only an exact url is proven never to apply) */
	const char *ok[] = {"{ websocket: { url: { include: /live } } }",
	                    "{ websocket: { message: { action: { exact: x } } } }",
	                    "{ websocket: { url: { include: \"\" }, message: { action: { exact: x } } } }",
	                    "{ websocket: { url: { exact: \"wss://h/live\" } } }",
	                    "{ websocket: { url: { key: room, include: \"\" } } }",
	                    "{ websocket: { match_all: true } }",
	                    "{ websocket: { url: { regex: \".\" }, match_all: true } }",
	                    "{ url: { include: \"ws://\" } }"};
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		kn_err err;
		int rc = load_guard(ok[i], &err);
		if (rc)
			print_error("rule %s: %s\n", ok[i], err.msg);
		assert_int_equal(rc, 0);
	}
	/* match_all: true holds every sent message, no request, and is written back inside 'websocket' */
	const char doc[] = "tasks:\n  -\n" ONE "    guard: [ { websocket: { match_all: true } } ]\n";
	kn_taskset *set = NULL;
	kn_err err = {0};
	assert_int_equal(kn_task_load_yaml(&set, doc, sizeof doc - 1, "g.yaml", NULL, &err), 0);
	kn_request msg = {.url = "wss://x/live", .websocket = 1, .direction = "sent"};
	kn_request get = {.method = "GET", .url = "http://x/"};
	assert_non_null(kn_guard_match(set->tasks[0].guard, &msg));
	assert_null(kn_guard_match(set->tasks[0].guard, &get));
	assert_int_equal(kn_guard_holds_gets(set->tasks[0].guard), 0);
	json_t *j = kn_guard_to_json(set->tasks[0].guard);
	char *text = json_dumps(json_object_get(j, "rules"), JSON_COMPACT);
	assert_string_equal(text, "[{\"websocket\":{\"match_all\":true}}]");
	free(text);
	kn_guard back = {.end_on_guard = -1};
	assert_int_equal(kn_guard_add_json(&back, json_array_get(json_object_get(j, "rules"), 0), &err), 0);
	assert_int_equal(back.rules[0].spec->match_all, 1);
	assert_int_equal(kn_rule_check(back.rules[0].spec, "websocket guard rule", err.msg, sizeof err.msg), 0);
	kn_guard_clear(&back);
	json_decref(j);
	kn_taskset_free(set);

	/* key nodes: YAML, Mind2Web-Live's websocket_match, keynode.yaml's guard */
	const char y[] = "id: a\nintent: x\nkey_nodes:\n  - url: { include: a }\n"
	                 "  - websocket: { url: { regex: \".*\" } }\n";
	set = NULL;
	assert_int_equal(kn_task_load_yaml(&set, y, sizeof y - 1, "t.yaml", NULL, &err), KN_EINVAL);
	assert_string_equal(err.msg, "t.yaml:5:16: task 'a' key node 2: websocket key node matches every WebSocket "
	                             "message: its url matcher accepts any URL and nothing else narrows it (say "
	                             "match_all: true if that is meant)");
	const char m[] = "[{\"index\": 1, \"task\": \"x\", \"reference_task_length\": 1, \"evaluation\": ["
	                 "{\"match_function_name\": \"websocket_match\", \"content\": {\"reference_answer\": {}}}]}]";
	assert_int_equal(kn_task_load_mind2web(&set, m, sizeof m - 1, "m.json", NULL, &err), KN_EINVAL);
	assert_null(set);
	assert_non_null(strstr(err.msg, "[0].evaluation[0].content.reference_answer: websocket key node is empty"));
	const char mok[] = "[{\"index\": 1, \"task\": \"x\", \"reference_task_length\": 1, \"evaluation\": ["
	                   "{\"match_function_name\": \"websocket_match\", \"content\": {\"reference_answer\": "
	                   "{\"match_all\": true}}}]}]";
	assert_int_equal(kn_task_load_mind2web(&set, mok, sizeof mok - 1, "m.json", NULL, &err), 0);
	kn_taskset_free(set);
	const char bad[] = "guard:\n  - websocket: { url: { include: \"\" } }\n";
	kn_config *c = NULL;
	assert_int_equal(kn_config_load_buffer(&c, bad, sizeof bad - 1, "k.yaml", &err), KN_EINVAL);
	assert_null(c);
	assert_string_equal(err.msg, "k.yaml:2:5: guard[0]: websocket guard rule matches every WebSocket message: "
	                             "its url matcher accepts any URL and nothing else narrows it (say match_all: "
	                             "true if that is meant)");
	const char cok[] = "guard:\n  - websocket: { match_all: true }\n";
	assert_int_equal(kn_config_load_buffer(&c, cok, sizeof cok - 1, "k.yaml", &err), 0);
	kn_config_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refused_guard_rules), cmocka_unit_test(test_accepted),
		cmocka_unit_test(test_malformed), cmocka_unit_test(test_request_key_nodes),
		cmocka_unit_test(test_config), cmocka_unit_test(test_edit_snippet),
		cmocka_unit_test(test_websocket_rules),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
