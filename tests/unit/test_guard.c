/* test_guard.c — guard rules in task files (task and task-set level, respond, errors
 * with file:line:col), their JSON form (keynode.yaml) and its writer (a stored task), their match, and
 * the redaction rules. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "keynode/guard.h"
#include "keynode/redact.h"

#define ONE "    id: a\n    intent: x\n    key_nodes: [{url: {include: a}}]\n"

static void test_yaml(void **state)
{
	(void)state;
	const char y[] = "guard:\n  - { method: POST, url: { include: /api/orders } }\n"
	                 "end_on_guard: false\n"
	                 "tasks:\n  -\n" ONE "    guard:\n"
	                 "      - { url: { include: /review }, respond: { status: 403, body: nope } }\n"
	                 "      - { method: put, respond: error }\n"
	                 "  - id: b\n    intent: y\n    key_nodes: [{url: {include: b}}]\n";
	kn_taskset *set = NULL;
	kn_err err = {0};
	int rc = kn_task_load_yaml(&set, y, sizeof y - 1, "g.yaml", NULL, &err);
	if (rc)
		print_error("%s\n", err.msg);
	assert_int_equal(rc, 0);
	assert_non_null(set->guard);
	assert_int_equal(set->guard->n, 1);
	assert_int_equal(set->guard->end_on_guard, 0);
	assert_int_equal(kn_guard_ends(set->guard), 0);
	assert_ptr_equal(set->tasks[0].set_guard, set->guard);
	assert_ptr_equal(set->tasks[1].set_guard, set->guard);
	const kn_guard *g = set->tasks[0].guard;
	assert_int_equal(g->n, 2);
	assert_int_equal(g->end_on_guard, -1);
	assert_int_equal(kn_guard_ends(g), 1);
	assert_int_equal(g->rules[0].status, 403);
	assert_string_equal(g->rules[0].body, "nope");
	assert_int_equal(g->rules[0].line, 10);
	assert_int_equal(g->rules[1].fail, 1);
	assert_string_equal(g->rules[1].spec->method, "PUT");
	assert_null(set->tasks[1].guard);
	kn_request post = {.method = "POST", .url = "http://s/api/orders"};
	kn_request put = {.method = "PUT", .url = "http://s/x"};
	kn_request get = {.method = "GET", .url = "http://s/api/orders"};
	assert_ptr_equal(kn_guard_match(set->guard, &post), &set->guard->rules[0]);
	assert_null(kn_guard_match(set->guard, &get));
	assert_ptr_equal(kn_guard_match(g, &put), &g->rules[1]);
	kn_taskset_free(set);

	struct { const char *doc, *msg; } bad[] = {
		{"guard: []\n", "g.yaml:1:1: 'guard' at the top level belongs to a task set: add 'tasks:' (a "
		                "single task starts with 'id')"},
		{"tasks:\n  -\n" ONE "    guard: { method: POST }\n",
		 "g.yaml:6:12: task 'a': 'guard' must be a list of guard rules, found a mapping"},
		{"tasks:\n  -\n" ONE "    guard: [ { method: POST, respond: maybe } ]\n",
		 "g.yaml:6:39: task 'a': 'respond' is error or { status: 403, body: \"...\" }; found the text 'maybe'"},
		{"tasks:\n  -\n" ONE "    guard: [ { respond: { status: 99 } } ]\n",
		 "g.yaml:6:35: task 'a': 'status' is an HTTP status, 100 to 599"},
		{"tasks:\n  -\n" ONE "    guard: [ { verb: POST } ]\n",
		 "g.yaml:6:16: task 'a': unknown key 'verb' in 'guard rule' (expected method, url, body, match_all, respond or websocket)"},
		{"tasks:\n  -\n" ONE "    guard: [ POST ]\n",
		 "g.yaml:6:14: task 'a': a guard rule is a mapping of method, url, body and respond, such as { "
		 "method: POST, url: { include: \"/api/orders\" } }; found the text 'POST'"},
		{"tasks:\n  -\n" ONE "    key_nodes: [{request: {respond: error}}]\n",
		 "g.yaml:6:5: task 'a': duplicate key 'key_nodes'"},
		{"id: a\nintent: x\nkey_nodes: [{request: {respond: error}}]\n",
		 "g.yaml:3:24: task 'a' key node 1: unknown key 'respond' in 'request' (expected method, url, body or match_all)"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		set = NULL;
		memset(&err, 0, sizeof err);
		assert_int_not_equal(kn_task_load_yaml(&set, bad[i].doc, strlen(bad[i].doc), "g.yaml", NULL, &err), 0);
		assert_null(set);
		if (strcmp(err.msg, bad[i].msg) != 0)
			print_error("case %zu\n", i);
		assert_string_equal(err.msg, bad[i].msg);
	}
}

static void test_json(void **state)
{
	(void)state;
	kn_guard g = {.end_on_guard = -1};
	kn_err err = {0};
	json_t *r = json_loads("{\"method\":\"POST\",\"url\":{\"include\":\"/comment\"},\"respond\":{\"status\":201,"
	                       "\"body\":\"{}\"}}", 0, NULL);
	assert_int_equal(kn_guard_add_json(&g, r, &err), 0);
	json_decref(r);
	r = json_loads("{\"body\":{\"wpTextbox1\":{\"include\":\"\"}},\"respond\":\"error\"}", 0, NULL);
	assert_int_equal(kn_guard_add_json(&g, r, &err), 0);
	json_decref(r);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.rules[0].status, 201);
	assert_string_equal(g.rules[0].body, "{}");
	assert_int_equal(g.rules[1].fail, 1);
	const char *bad[][2] = {
		{"{\"respond\":\"later\"}", "respond: expected error or {status, body}"},
		{"{\"respond\":{\"status\":42}}", "respond.status: expected an HTTP status 100..599"},
		{"{\"url\":{\"fuzzy\":\"x\"}}", "url.fuzzy: unknown matcher (expected exact, include, semantic or regex)"},
		{"[]", "a guard rule is an object {method, url, body, respond}"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		r = json_loads(bad[i][0], JSON_DECODE_ANY, NULL);
		assert_int_equal(kn_guard_add_json(&g, r, &err), KN_EINVAL);
		assert_string_equal(err.msg, bad[i][1]);
		json_decref(r);
	}
	assert_int_equal(g.n, 2);
	kn_field f[] = {{"wpTextbox1", "hello"}};
	kn_request q = {.method = "POST", .url = "http://w/index.php", .fields = f, .n_fields = 1};
	assert_ptr_equal(kn_guard_match(&g, &q), &g.rules[1]);
	kn_guard_clear(&g);
	assert_non_null(strstr(kn_guard_page_html(), "Held by keynode"));
}

/* Which rules may hold a GET (kn_guard_holds_gets: the monitor then pauses images, scripts, styles
 * and fonts too): a rule naming GET or no method does; POST-only rules, no rules and NULL do not. */
static void test_holds_gets(void **state)
{
	(void)state;
	kn_guard g = {.end_on_guard = -1};
	kn_err err = {0};
	assert_false(kn_guard_holds_gets(NULL));
	assert_false(kn_guard_holds_gets(&g));
	const char *rules[][2] = {
		{"{\"method\":\"POST\",\"url\":{\"include\":\"/api\"}}", "0"},
		{"{\"method\":\"put\"}", "0"},
		{"{\"method\":\"get\",\"url\":{\"include\":\"/act/\"}}", "1"},
	};
	for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
		json_t *r = json_loads(rules[i][0], 0, NULL);
		assert_int_equal(kn_guard_add_json(&g, r, &err), 0);
		json_decref(r);
		assert_int_equal(kn_guard_holds_gets(&g), rules[i][1][0] - '0');
	}
	kn_guard_clear(&g);
	json_t *r = json_loads("{\"url\":{\"include\":\"confirm=1\"}}", 0, NULL); /* any method */
	assert_int_equal(kn_guard_add_json(&g, r, &err), 0);
	json_decref(r);
	assert_true(kn_guard_holds_gets(&g));
	kn_guard_clear(&g);
}

/* The JSON form written back (kn_guard_to_json, kn_request_spec_to_json: a stored task's definition)
 * reads back into the same rules, and writes the same text again. */
static void test_to_json(void **state)
{
	(void)state;
	const char *rules = "[{\"method\":\"POST\",\"url\":{\"include\":\"/api/orders\",\"key\":\"ref\"},"
	                    "\"body\":{\"qty\":{\"exact\":\"2\"},\"note\":{\"semantic\":\"a gift\"}},"
	                    "\"respond\":{\"status\":202,\"body\":\"held\"}},"
	                    "{\"url\":{\"regex\":\"/pay$\"},\"respond\":\"error\"},{\"method\":\"PUT\"}]";
	kn_guard g = {.end_on_guard = 0};
	kn_err err = {0};
	json_t *a = json_loads(rules, 0, NULL), *r;
	size_t i;
	json_array_foreach(a, i, r)
		assert_int_equal(kn_guard_add_json(&g, r, &err), 0);
	json_t *j = kn_guard_to_json(&g);
	assert_non_null(j);
	assert_true(json_equal(json_object_get(j, "rules"), a)); /* every member, in its form */
	assert_true(json_is_false(json_object_get(j, "end_on_guard")));
	kn_guard h = {.end_on_guard = -1};
	json_array_foreach(json_object_get(j, "rules"), i, r)
		assert_int_equal(kn_guard_add_json(&h, r, &err), 0);
	json_t *k = kn_guard_to_json(&h);
	assert_true(json_equal(json_object_get(k, "rules"), a));
	assert_true(json_is_null(json_object_get(k, "end_on_guard"))); /* not said */
	kn_request q = {.method = "PUT", .url = "http://s/api/cart"};
	assert_ptr_equal(kn_guard_match(&h, &q), &h.rules[2]);
	json_decref(a), json_decref(j), json_decref(k);
	kn_guard_clear(&g);
	kn_guard_clear(&h);
}

static void test_redact(void **state)
{
	(void)state;
	const char *secret[][2] = {
		{"password", "x"}, {"user_pass", NULL}, {"pwd", "1"}, {"Passwd", ""}, {"cc-number", "1"},
		{"card_number", "x"}, {"cvc", "123"}, {"CVV", "1"}, {"cc-csc", "1"}, {"csrf_token", "x"},
		{"access_token", "x"}, {"client_secret", "x"}, {"pin", "1234"}, {"api_key", "k"},
		{"note", "my card 4111 1111 1111 1111 thanks"}, {"x", "4111-1111-1111-1111"},
		{"x", "378282246310005"}, {"_wpnonce", "a1b2c3d4e5"}, {"sectok", "f00"}, {"X-CSRF", "1"},
		{"_xsrf", "1"},
	};
	for (size_t i = 0; i < sizeof secret / sizeof secret[0]; i++) {
		if (!kn_redact_field(NULL, secret[i][0], secret[i][1]))
			print_error("not a secret: %s=%s\n", secret[i][0], secret[i][1]);
		assert_true(kn_redact_field(NULL, secret[i][0], secret[i][1]));
	}
	const char *plain[][2] = {
		{"shipping", "standard"}, {"author", "Ann"}, {"comment", "Great lamp"}, {"qty", "2"},
		{"phone", "4111111111111112"}, {"x", "12345678901234567890123"}, {"spinner", "1"},
	};
	for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) {
		if (kn_redact_field(NULL, plain[i][0], plain[i][1]))
			print_error("a secret: %s=%s\n", plain[i][0], plain[i][1]);
		assert_false(kn_redact_field(NULL, plain[i][0], plain[i][1]));
	}
	const char *extra[] = {"unfiltered_html"};
	kn_redact r = {.fields = extra, .n_fields = 1};
	assert_true(kn_redact_field(&r, "_wp_unfiltered_html_comment", "abc"));
	assert_false(kn_redact_field(NULL, "_wp_unfiltered_html_comment", "abc"));
	const char *names[] = {"p"}; /* a password input's name, learned by the monitor */
	kn_redact learned = {.names = names, .n_names = 1};
	assert_true(kn_redact_field(&learned, "p", "hunter2"));
	assert_false(kn_redact_field(&learned, "P", "x"));
	assert_false(kn_redact_field(&learned, "pp", "x"));
	assert_false(kn_redact_field(NULL, "p", "hunter2"));
	kn_redact off = {.off = 1};
	assert_false(kn_redact_field(&off, "password", "x"));
	assert_true(kn_redact_header(NULL, "Authorization"));
	assert_true(kn_redact_header(NULL, "cookie"));
	assert_false(kn_redact_header(NULL, "content-type"));
	char *u = NULL;
	assert_int_equal(kn_redact_url(NULL, &u, "https://bob:hunter2@s.test/cb?code=1&token=abc&q=a+b#f"), 0);
	assert_string_equal(u, "https://bob:[redacted]@s.test/cb?code=1&token=[redacted]&q=a+b#f");
	free(u);
	assert_int_equal(kn_redact_url(NULL, &u, "http://s/p?card=4111111111111111"), 0);
	assert_string_equal(u, "http://s/p?card=[redacted]");
	free(u);
	assert_int_equal(kn_redact_url(NULL, &u, "http://s/p"), 0);
	assert_string_equal(u, "http://s/p");
	free(u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_yaml),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_holds_gets),
		cmocka_unit_test(test_to_json),
		cmocka_unit_test(test_redact),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
