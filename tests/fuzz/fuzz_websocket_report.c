/* fuzz_websocket_report.c — what a page hands the monitor about its WebSocket messages
 * (services/monitor/websockets.h): the input, as the hook's binding payload (the page's main world
 * could have forged it), then as a sent and a received frame's payloadData from the network, to a
 * kn_websockets with a websocket guard rule and received messages on. Besides not crashing, it checks
 * the contract of every message reported: marked websocket, a direction, held only by a rule, and
 * fields as the body parser promises (at most KN_BODY_MAX_FIELDS). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "keynode/task.h"
#include "websockets.h"

static void on_message(void *ud, const kn_ws_seen *w)
{
	(void)ud;
	const kn_request *q = w->clear;
	if (!q->websocket || !q->direction || q->n_fields > KN_BODY_MAX_FIELDS || q->held != (w->held_by != NULL) ||
	    w->redacted->n_fields != q->n_fields || (w->held_by && strcmp(q->direction, "sent") != 0))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static kn_taskset *set;
	if (!set) {
		const char y[] = "id: a\nintent: x\nkey_nodes: [{url: {include: a}}]\nguard:\n"
		                 "  - websocket: { message: { action: { exact: place_order } } }\n";
		if (kn_task_load_yaml(&set, y, sizeof y - 1, "f.yaml", NULL, NULL) != 0)
			abort();
	}
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	kn_websockets *w = NULL;
	kn_websockets_opts o = {.guards = {set->tasks[0].guard}, .received = 1, .on_message = on_message};
	if (kn_websockets_new(&w, &o) == 0) {
		json_t *p = json_pack("{s:s, s:s, s:i}", "name", kn_websockets_binding_name(w), "payload", text,
		                      "executionContextId", 1);
		if (p && kn_websockets_event(w, NULL, "S", "Runtime.bindingCalled", p, 0) != 1)
			abort();
		json_decref(p);
		for (int op = 1; op <= 2; op++) {
			const char *ev = op == 1 ? "Network.webSocketFrameSent" : "Network.webSocketFrameReceived";
			json_t *f = json_pack("{s:s, s:f, s:{s:i, s:s}}", "requestId", "R", "timestamp", (double)op,
			                      "response", "opcode", op, "payloadData", text);
			if (f && kn_websockets_event(w, NULL, "S", ev, f, 0) != 1)
				abort();
			json_decref(f);
		}
	}
	kn_websockets_free(w);
	free(text);
	return 0;
}
