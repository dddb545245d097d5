/* fuzz_live_wire.c — the live view's messages (services/live/live_wire.h) on arbitrary
 * bytes: as a viewer's websocket message (kn_live_viewer_parse) and as a NOTIFY payload
 * (kn_live_msg_parse; any database client may NOTIFY), a status as serve's take check reads it
 * (kn_live_take_refusal). Every call must return cleanly; whatever is
 * accepted must hold the contract (coordinates, text and keys in range, a valid run, frame data
 * inside the payload) and an accepted input must format and parse back to the same input. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "live_wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_input(const kn_live_input *in)
{
	if (in->kind < KN_LIVE_TAKE || in->kind > KN_LIVE_TEXT)
		abort();
	if ((in->kind == KN_LIVE_CLICK || in->kind == KN_LIVE_WHEEL) &&
	    (!isfinite(in->x) || in->x < 0 || in->x > KN_LIVE_COORD_MAX || in->y < 0 || in->y > KN_LIVE_COORD_MAX))
		abort();
	if (in->kind == KN_LIVE_KEY && !kn_live_key_code(in->key, NULL))
		abort();
	if (in->kind == KN_LIVE_TEXT) {
		size_t n = strlen(in->text);
		if (n == 0 || n > KN_LIVE_TEXT_MAX)
			abort();
		for (size_t i = 0; i < n; i++)
			if ((unsigned char)in->text[i] < 0x20)
				abort();
	}
	if (in->kind == KN_LIVE_TAKE || in->kind == KN_LIVE_RELEASE)
		return;
	char buf[KN_LIVE_PAYLOAD_MAX + 1];
	kn_live_msg m;
	kn_err err;
	if (kn_live_down_format(buf, sizeof buf, KN_LIVE_MSG_INPUT, "fuzz-run", in) != 0)
		return; /* a text of many escaped characters may not fit a payload */
	if (kn_live_msg_parse(&m, buf, strlen(buf), &err) != 0 || m.input.kind != in->kind ||
	    strcmp(m.input.text, in->text) != 0 || strcmp(m.input.key, in->key) != 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	kn_live_input in;
	kn_err err;
	if (kn_live_viewer_parse(&in, (const char *)data, size, &err) == 0)
		check_input(&in);
	kn_live_msg m;
	if (kn_live_msg_parse(&m, (const char *)data, size, &err) == 0) {
		if (!kn_live_run_ok(m.run) || m.kind < KN_LIVE_MSG_WATCH || m.kind > KN_LIVE_MSG_FRAME)
			abort();
		if (m.kind == KN_LIVE_MSG_INPUT)
			check_input(&m.input);
		if (m.kind == KN_LIVE_MSG_FRAME &&
		    (m.piece < 0 || m.piece >= m.pieces || m.pieces > KN_LIVE_PIECES_MAX || m.data_len == 0 ||
		     m.data < (const char *)data || m.data + m.data_len > (const char *)data + size))
			abort();
		const char *why = NULL; /* serve's take check reads a status */
		if (m.kind == KN_LIVE_MSG_STATUS && (kn_live_take_refusal(m.json, &why) == 0) != (why == NULL))
			abort();
	}
	return 0;
}
