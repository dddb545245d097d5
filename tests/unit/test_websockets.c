/* test_websockets.c — where the monitor reads and decides a WebSocket message (services/monitor/
 * websockets.h): a message is parsed as a request body sent as JSON and redacted as one; the hook's
 * report becomes one recorded message, held when a websocket rule matches and only then; malformed
 * reports are not recorded and never crash; a frame on the network that no hook let through is
 * recorded watched_only, once even when two sessions show it, and one the hook let through is not
 * recorded twice; received frames only when asked; a worker's other Network events are swallowed. No connection here (c NULL). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keynode/task.h"
#include "websockets.h"

struct seen {
	int n, held, watched, received;
	char last_field[64], last_value[64], url[128];
};

static void on_message(void *ud, const kn_ws_seen *w)
{
	struct seen *s = ud;
	s->n++;
	s->held += w->held_by != NULL;
	s->watched += w->clear->watched_only;
	s->received += strcmp(w->clear->direction, "received") == 0;
	assert_int_equal(w->clear->websocket, 1);
	assert_int_equal(w->clear->held, w->held_by != NULL);
	snprintf(s->url, sizeof s->url, "%s", w->redacted->url);
	if (w->redacted->n_fields) {
		const kn_field *f = &w->redacted->fields[w->redacted->n_fields - 1];
		snprintf(s->last_field, sizeof s->last_field, "%s", f->name);
		snprintf(s->last_value, sizeof s->last_value, "%s", f->value);
	}
}

static void test_build(void **state)
{
	(void)state;
	kn_request_store *st = NULL;
	kn_request clear, red;
	const char *msg = "{\"action\":\"place_order\",\"card\":{\"number\":\"4111 1111 1111 1111\"},\"qty\":2}";
	assert_int_equal(kn_websocket_build(&st, &clear, &red, "ws://h/live?token=abc", "sent", msg, strlen(msg), 0,
	                                    NULL), 0);
	assert_int_equal(clear.websocket, 1);
	assert_null(clear.method);
	assert_int_equal(clear.n_headers, 0);
	assert_int_equal(clear.size, strlen(msg));
	assert_int_equal(clear.n_fields, 3);
	assert_string_equal(clear.fields[0].name, "action");
	assert_string_equal(clear.fields[1].name, "card.number");
	assert_string_equal(clear.fields[1].value, "4111 1111 1111 1111");
	assert_string_equal(red.fields[1].value, "[redacted]");
	assert_string_equal(red.fields[2].value, "2");
	assert_string_equal(clear.url, "ws://h/live?token=abc");
	assert_null(strstr(red.url, "abc"));
	kn_request_store_free(st);
	/* not JSON: the one field $body; bytes: $body too, never a failure */
	assert_int_equal(kn_websocket_build(&st, &clear, &red, "ws://h/", "sent", "hello", 5, 0, NULL), 0);
	assert_int_equal(clear.n_fields, 1);
	assert_string_equal(clear.fields[0].name, "$body");
	assert_string_equal(clear.fields[0].value, "hello");
	kn_request_store_free(st);
	const char bin[] = {'\xff', '\0', 'a'};
	assert_int_equal(kn_websocket_build(&st, &clear, &red, NULL, "received", bin, sizeof bin, 1, NULL), 0);
	assert_string_equal(clear.url, "");
	assert_string_equal(clear.direction, "received");
	assert_int_equal(clear.n_fields, 1);
	kn_request_store_free(st);
}

/* A task with a websocket rule on /live holding place_order (and a request rule on the same URL). */
static kn_taskset *guarded_set(void)
{
	const char y[] = "id: a\nintent: x\nkey_nodes: [{url: {include: a}}]\nguard:\n"
	                 "  - websocket: { url: { include: /live }, message: { action: { exact: place_order } } }\n"
	                 "  - { url: { include: /live } }\n";
	kn_taskset *set = NULL;
	kn_err err = {0};
	assert_int_equal(kn_task_load_yaml(&set, y, sizeof y - 1, "w.yaml", NULL, &err), 0);
	return set;
}

static void binding(kn_websockets *w, const char *session, const char *payload_fmt, ...)
{
	char payload[512];
	va_list ap;
	va_start(ap, payload_fmt);
	vsnprintf(payload, sizeof payload, payload_fmt, ap);
	va_end(ap);
	json_t *p = json_pack("{s:s, s:s, s:i}", "name", "?", "payload", payload, "executionContextId", 3);
	assert_int_equal(kn_websockets_event(w, NULL, session, "Runtime.bindingCalled", p, 0), 0); /* not ours */
	json_decref(p);
}

static void test_reports_and_rules(void **state)
{
	(void)state;
	kn_taskset *set = guarded_set();
	struct seen s = {0};
	kn_websockets_opts o = {.guards = {set->tasks[0].guard}, .on_message = on_message, .ud = &s};
	kn_websockets *w = NULL;
	assert_int_equal(kn_websockets_new(&w, &o), 0);
	assert_int_equal(kn_websockets_guarded(w), 1);
	char *src = NULL;
	assert_int_equal(kn_websocket_hook_source(&src, "B", "R", "K", 1), 0);
	assert_non_null(strstr(src, "B='B',R='R',K='K',DEFER=1"));
	free(src);
	binding(w, "S1", "{}"); /* another binding's name: not taken */
	assert_int_equal(s.n, 0);
	kn_websockets_free(w);
	kn_taskset_free(set);
}

/* Reports made as the hook makes them, through the binding's name. */
static void test_decide(void **state)
{
	(void)state;
	kn_taskset *set = guarded_set();
	struct seen s = {0};
	kn_websockets_opts o = {.guards = {set->tasks[0].guard}, .on_message = on_message, .ud = &s};
	kn_websockets *w = NULL;
	assert_int_equal(kn_websockets_new(&w, &o), 0);
	const char *name = kn_websockets_binding_name(w);
	struct { const char *payload; int taken, n, held; } cases[] = {
		{"{\"n\":1,\"d\":1,\"url\":\"ws://h/live\",\"size\":30,\"text\":\"{\\\"action\\\":\\\"place_order\\\"}\"}", 1, 1, 1},
		{"{\"n\":2,\"d\":1,\"url\":\"ws://h/live\",\"size\":20,\"text\":\"{\\\"action\\\":\\\"ping\\\"}\"}", 1, 2, 1},
		{"{\"n\":3,\"d\":1,\"url\":\"ws://h/other\",\"size\":30,\"text\":\"{\\\"action\\\":\\\"place_order\\\"}\"}", 1, 3, 1},
		{"{\"n\":4,\"d\":1,\"url\":\"ws://h/live\",\"size\":3,\"b64\":\"AAEC\"}", 1, 4, 1},
		{"{\"n\":5,\"d\":1,\"url\":\"ws://h/live\",\"size\":9,\"blob\":true}", 1, 5, 1},
		/* malformed reports: taken (the binding is ours), not recorded, no crash */
		{"not json", 1, 5, 1},
		{"{\"n\":\"x\",\"url\":\"ws://h/live\"}", 1, 5, 1},
		{"{\"n\":6}", 1, 5, 1},
		{"{\"n\":7,\"url\":\"ws://h/live\",\"b64\":\"!!!\"}", 1, 6, 1},
		{"[1,2]", 1, 6, 1},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		json_t *p = json_pack("{s:s, s:s, s:i}", "name", name, "payload", cases[i].payload, "executionContextId", 3);
		assert_int_equal(kn_websockets_event(w, NULL, "S1", "Runtime.bindingCalled", p, 0), cases[i].taken);
		json_decref(p);
		if (s.n != cases[i].n || s.held != cases[i].held)
			print_error("case %zu: n %d held %d\n", i, s.n, s.held);
		assert_int_equal(s.n, cases[i].n);
		assert_int_equal(s.held, cases[i].held);
	}
	/* the ping was let through: its frame on the network is expected, not recorded again */
	json_t *f = json_pack("{s:s, s:f, s:{s:i, s:s}}", "requestId", "R1", "timestamp", 1.0, "response", "opcode", 1,
	                      "payloadData", "{\"action\":\"ping\"}");
	assert_int_equal(kn_websockets_event(w, NULL, "S1", "Network.webSocketFrameSent", f, 0), 1);
	json_decref(f);
	assert_int_equal(s.n, 6);
	assert_int_equal(s.watched, 0);
	/* a message reported cut (past 1 MiB): its whole frame is expected all the same */
	json_t *cut = json_pack("{s:s, s:s, s:i}", "name", name, "payload",
	                        "{\"n\":8,\"d\":1,\"url\":\"ws://h/live\",\"size\":9,\"text\":\"abcd\",\"cut\":true}",
	                        "executionContextId", 3);
	assert_int_equal(kn_websockets_event(w, NULL, "S1", "Runtime.bindingCalled", cut, 0), 1);
	json_decref(cut);
	assert_int_equal(s.n, 7);
	f = json_pack("{s:s, s:f, s:{s:i, s:s}}", "requestId", "R1", "timestamp", 1.5, "response", "opcode", 1,
	              "payloadData", "abcdefghi");
	assert_int_equal(kn_websockets_event(w, NULL, "S1", "Network.webSocketFrameSent", f, 0), 1);
	json_decref(f);
	assert_int_equal(s.n, 7);
	assert_int_equal(s.watched, 0);
	/* a frame nobody let through (a service worker's): watched only, not held, once over two sessions */
	json_t *c = json_pack("{s:s, s:s}", "requestId", "R9", "url", "ws://h/live-sw");
	assert_int_equal(kn_websockets_event(w, NULL, "SW", "Network.webSocketCreated", c, 0), 1);
	json_decref(c);
	for (int i = 0; i < 2; i++) {
		f = json_pack("{s:s, s:f, s:{s:i, s:s}}", "requestId", "R9", "timestamp", 2.0 + i * 1e-6, "response",
		              "opcode", 1, "payloadData", "{\"action\":\"place_order\"}");
		assert_int_equal(kn_websockets_event(w, NULL, i ? "SW2" : "SW", "Network.webSocketFrameSent", f, 0), 1);
		json_decref(f);
	}
	assert_int_equal(s.n, 8);
	assert_int_equal(s.watched, 1);
	assert_int_equal(s.held, 1);
	assert_string_equal(s.url, "ws://h/live-sw"); /* SW's, where the socket was created */
	/* control frames carry no message; received frames only when asked */
	f = json_pack("{s:s, s:f, s:{s:i, s:s}}", "requestId", "R9", "timestamp", 3.0, "response", "opcode", 9,
	              "payloadData", "");
	assert_int_equal(kn_websockets_event(w, NULL, "SW", "Network.webSocketFrameSent", f, 0), 1);
	json_decref(f);
	f = json_pack("{s:s, s:f, s:{s:i, s:s}}", "requestId", "R1", "timestamp", 4.0, "response", "opcode", 1,
	              "payloadData", "{\"type\":\"ack\"}");
	assert_int_equal(kn_websockets_event(w, NULL, "S1", "Network.webSocketFrameReceived", f, 0), 1);
	json_decref(f);
	assert_int_equal(s.n, 8);
	assert_int_equal(s.received, 0);
	/* other events are not taken; a worker's Network events are (its Network is enabled for its frames
	 * only: its requests are seen elsewhere, never twice), a page's are not */
	assert_int_equal(kn_websockets_event(w, NULL, "S1", "Page.frameNavigated", NULL, 0), 0);
	kn_websockets_attach_worker(w, NULL, "W1", 0);
	kn_websockets_attach_worker(w, NULL, "SW3", 1);
	assert_int_equal(kn_websockets_event(w, NULL, "W1", "Network.requestWillBeSent", NULL, 0), 1);
	assert_int_equal(kn_websockets_event(w, NULL, "SW3", "Network.requestWillBeSent", NULL, 0), 1);
	assert_int_equal(kn_websockets_event(w, NULL, "S1", "Network.requestWillBeSent", NULL, 0), 0);
	kn_websockets_detach(w, "W1");
	assert_int_equal(kn_websockets_event(w, NULL, "W1", "Network.requestWillBeSent", NULL, 0), 0);
	kn_websockets_free(w);

	struct seen r = {0};
	kn_websockets_opts ro = {.received = 1, .on_message = on_message, .ud = &r};
	assert_int_equal(kn_websockets_new(&w, &ro), 0);
	assert_int_equal(kn_websockets_guarded(w), 0);
	c = json_pack("{s:s, s:s}", "requestId", "R1", "url", "ws://h/live");
	kn_websockets_event(w, NULL, "S1", "Network.webSocketCreated", c, 0);
	json_decref(c);
	f = json_pack("{s:s, s:f, s:{s:i, s:s}}", "requestId", "R1", "timestamp", 4.0, "response", "opcode", 1,
	              "payloadData", "{\"type\":\"ack\"}");
	kn_websockets_event(w, NULL, "S1", "Network.webSocketFrameReceived", f, 0);
	json_decref(f);
	assert_int_equal(r.received, 1);
	assert_string_equal(r.url, "ws://h/live");
	assert_string_equal(r.last_field, "type");
	assert_string_equal(r.last_value, "ack");
	/* after the run ended nothing is recorded */
	json_t *p = json_pack("{s:s, s:s, s:i}", "name", kn_websockets_binding_name(w), "payload",
	                      "{\"n\":1,\"d\":0,\"url\":\"ws://h/live\",\"size\":2,\"text\":\"{}\"}", "executionContextId", 3);
	assert_int_equal(kn_websockets_event(w, NULL, "S1", "Runtime.bindingCalled", p, 1), 1);
	json_decref(p);
	assert_int_equal(r.n, 1);
	kn_websockets_free(w);
	kn_websockets_free(NULL);
	kn_taskset_free(set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build),
		cmocka_unit_test(test_reports_and_rules),
		cmocka_unit_test(test_decide),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
