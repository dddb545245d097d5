/* live_wire.h — the messages of the live view (services/live/README.md), pure: what a
 * viewer sends over the /api/live websocket, and what the process that holds a watched page (the
 * holder: a worker) and the serves tell each other over PostgreSQL NOTIFY. Everything that crosses
 * a trust boundary here is parsed strictly (tests/unit/test_live_wire.c, tests/fuzz/fuzz_live_wire.c).
 *
 * Down (serve → holder, channel KN_LIVE_DOWN):  KIND SP RUN [LF JSON]
 *   KIND "watch" (someone watches RUN: a heartbeat), "take", "release" (a takeover begins, ends),
 *   "input" (JSON: one viewer input, as kn_live_viewer_parse accepts it).
 * Up (holder → serves, channel KN_LIVE_UP):
 *   "status" SP RUN LF JSON                    the page's state ({"type": "live", …}, a JSON object)
 *   "frame" SP RUN SP SEQ SP I SP N SP W SP H LF BASE64
 *     piece I (0-based) of N of screencast frame SEQ (a JPEG, base64), the page W×H CSS pixels.
 * RUN: 1 to KN_LIVE_RUN_MAX bytes of A-Z a-z 0-9 . _ - :. Every payload ≤ KN_LIVE_PAYLOAD_MAX. */
#ifndef KEYNODE_LIVE_WIRE_H
#define KEYNODE_LIVE_WIRE_H

#include <stddef.h>

#include "keynode/error.h"

#define KN_LIVE_DOWN "keynode_live_down"
#define KN_LIVE_UP "keynode_live_up"
#define KN_LIVE_PAYLOAD_MAX 7999  /* PostgreSQL's NOTIFY limit */
#define KN_LIVE_RUN_MAX 159
#define KN_LIVE_PIECE_MAX 7600    /* base64 bytes of one frame piece */
#define KN_LIVE_PIECES_MAX 64     /* pieces of one frame: ≤ ~360 KB of JPEG */
#define KN_LIVE_TEXT_MAX 1000     /* bytes of one "text" input */
#define KN_LIVE_COORD_MAX 100000  /* CSS pixels */

/* What a viewer may send (JSON text objects, ≤ 4 KiB):
 *   {"type":"take"} {"type":"release"}
 *   {"type":"click","x":X,"y":Y[,"button":"left"|"middle"|"right"][,"count":1-3]}
 *   {"type":"wheel","x":X,"y":Y,"dx":DX,"dy":DY}      (|dx|, |dy| ≤ 10000)
 *   {"type":"key","key":NAME}     NAME one of kn_live_key_code's names
 *   {"type":"text","text":S}      1..KN_LIVE_TEXT_MAX bytes of UTF-8 without control characters
 * X, Y numbers in 0..KN_LIVE_COORD_MAX: CSS pixels of the page (the viewer maps its scaled frame). */
typedef enum kn_live_kind {
	KN_LIVE_TAKE = 1, KN_LIVE_RELEASE, KN_LIVE_CLICK, KN_LIVE_WHEEL, KN_LIVE_KEY, KN_LIVE_TEXT
} kn_live_kind;

typedef struct kn_live_input {
	kn_live_kind kind;
	double x, y, dx, dy;
	int count;              /* click: 1..3 */
	char button[8];         /* click: "left", "middle", "right" */
	char key[16];           /* key: its name */
	char text[KN_LIVE_TEXT_MAX + 1];
} kn_live_input;

#define KN_LIVE_VIEWER_MAX 4096
/* Parse one viewer message. KN_EINVAL (err says what) for anything but the shapes above: not a
 * JSON object, an unknown type or member, a number out of range, a key not in the list. */
int kn_live_viewer_parse(kn_live_input *out, const char *msg, size_t len, kn_err *err);
/* The input (click, wheel, key, text) as its canonical JSON text (the "input" down message's JSON),
 * into buf; 0, or KN_ELIMIT when cap is too small. */
int kn_live_input_json(const kn_live_input *in, char *buf, size_t cap);
/* The DOM key code and the Windows virtual key code of a key name ("Enter" → "Enter", 13);
 * 0 when the name is not one of: Enter Tab Backspace Escape Delete Space Home End PageUp PageDown
 * ArrowUp ArrowDown ArrowLeft ArrowRight. */
int kn_live_key_code(const char *name, const char **code);

/* Whether a viewer's take may go down to the holder (serve's check), from the last
 * "status" JSON the holder sent of the run (NULL: none came while someone watched here): 0 when its
 * "takeable" is true and it did not end, else 409 with *why (static words): the page is not live,
 * the run ended, a run serve watches (kind "run": an agent drives it, watched only), an agent attempt
 * whose site does not block it. A status that is not such an object is "not live". */
int kn_live_take_refusal(const char *status_json, const char **why);

/* 1 when run is a valid RUN. */
int kn_live_run_ok(const char *run);

/* A parsed down or up message; the strings point into the payload parsed or are copied here. */
typedef enum kn_live_msg_kind {
	KN_LIVE_MSG_WATCH = 1, KN_LIVE_MSG_TAKE, KN_LIVE_MSG_RELEASE, KN_LIVE_MSG_INPUT,
	KN_LIVE_MSG_STATUS, KN_LIVE_MSG_FRAME
} kn_live_msg_kind;
typedef struct kn_live_msg {
	kn_live_msg_kind kind;
	char run[KN_LIVE_RUN_MAX + 1];
	kn_live_input input;       /* INPUT */
	const char *json;          /* STATUS: the JSON object text (into the payload) */
	unsigned long seq;         /* FRAME */
	int piece, pieces, w, h;   /* FRAME */
	const char *data;          /* FRAME: this piece's base64 (into the payload) */
	size_t data_len;
} kn_live_msg;

/* Format a down message (kind WATCH, TAKE, RELEASE; INPUT with in) into buf. KN_EINVAL for a bad
 * run, KN_ELIMIT past cap. */
int kn_live_down_format(char *buf, size_t cap, kn_live_msg_kind kind, const char *run,
                        const kn_live_input *in);
/* Parse a down or up payload. KN_EINVAL (err) for anything else: an unknown kind, a bad run, a
 * status that is not a JSON object, a frame piece out of range or with bytes outside base64, an
 * input that kn_live_viewer_parse refuses or that is a take/release. */
int kn_live_msg_parse(kn_live_msg *out, const char *payload, size_t len, kn_err *err);

#endif
