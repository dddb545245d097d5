/* guard.h — guard rules: requests (and WebSocket messages) that must be held, not sent.
 *
 * A websocket rule's spec is marked websocket (request.h): a message it matches is dropped before
 * it reaches the socket, the page's send returning as if it had gone (services/monitor/README.md).
 *
 * A rule is a request spec (request.h) and how a held request is answered: a navigation gets a
 * small "held by keynode" page, a fetch/XHR/beacon the rule's status and body (200 and a short JSON
 * text by default), or, with `respond: error`, a network error. Rules come from a task, its task
 * set and keynode.yaml (defaults for live runs); the monitor holds a request when any rule of any
 * of them matches (docs/formats.md §1 "Guard rules"). */
#ifndef KEYNODE_GUARD_H
#define KEYNODE_GUARD_H

#include <stddef.h>

#include "keynode/error.h"
#include "keynode/request.h"

typedef struct kn_guard_rule {
	kn_request_spec *spec; /* owned */
	int fail;              /* 1: answer with a network error */
	int status;            /* fetch/XHR answer status, 100..599; 0: the default (200) */
	char *body;            /* fetch/XHR answer body; NULL: the default */
	int line, column;      /* where it was defined (0 when not from a file) */
} kn_guard_rule;

typedef struct kn_guard {
	kn_guard_rule *rules;
	size_t n;
	int end_on_guard;      /* -1 not said (on), 0 off, 1 on */
} kn_guard;

#define KN_GUARD_MAX_RULES 100
#define KN_GUARD_DEFAULT_BODY "{\"held_by\":\"keynode\"}"
/* The page a held navigation shows. Static storage. */
const char *kn_guard_page_html(void);

/* Append one rule from its JSON form {method, url, body, respond} (respond: "error" or {status,
 * body}) or {websocket: {url, message}}; err names the member. */
struct json_t;
int kn_guard_add_json(kn_guard *g, const struct json_t *rule, kn_err *err);
/* g as {rules: [each rule's JSON form, as kn_guard_add_json reads it], end_on_guard: true, false or
 * null (not said)}, a new reference; NULL when out of memory (the stored task definition). */
struct json_t *kn_guard_to_json(const kn_guard *g);
/* 1 when g has a rule for WebSocket messages (websocket 1) or for HTTP requests (0). */
int kn_guard_has(const kn_guard *g, int websocket);
/* The first rule of g matching req (a request or a WebSocket message: kn_request_match tells which
 * rules apply), or NULL (a judge failure counts as no match). */
const kn_guard_rule *kn_guard_match(const kn_guard *g, const kn_request *req);
/* 1 when some request rule of g may hold a GET (its method is GET or not given; a websocket rule
 * holds no request): such a rule may name an image, script, style or font, so the monitor then
 * pauses requests of every resource type. */
int kn_guard_holds_gets(const kn_guard *g);
/* 1 when a run under g ends at a held request (end_on_guard, default on). */
int kn_guard_ends(const kn_guard *g);
/* Release what g owns (not g). */
void kn_guard_clear(kn_guard *g);

#endif
