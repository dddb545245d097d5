/* request.h — HTTP requests the agent's browser sends: a request's parsed body, the
 * spec a `request` key node (or a guard rule) gives, and the match between the two.
 *
 * A body becomes a flat list of (name, value) fields (keynodes/README.md "Request key nodes"):
 * application/x-www-form-urlencoded fields decoded as a query string; multipart/form-data fields
 * by name, a file part as NAME = its file name and NAME.size = its length in bytes; JSON leaves
 * under dotted paths (`items.0.qty`), strings as they are, numbers, booleans and null as their
 * JSON text; any other body as the one field `$body`. A spec is a method, a URL matcher and body
 * field matchers, each a kn_keynode so every matcher (and its compiled regex, semantic phrase) is
 * the one URL and value key nodes use. */
#ifndef KEYNODE_REQUEST_H
#define KEYNODE_REQUEST_H

#include <stddef.h>

#include "keynode/error.h"
#include "keynode/match.h"
#include "keynode/task.h"

/* One (name, value) pair: a body field or a header. Borrowed strings. */
typedef struct kn_field {
	const char *name, *value;
} kn_field;

/* A request as the monitor saw it (a `request` event's "request" object). Borrowed. */
typedef struct kn_request {
	const char *method, *url;
	const kn_field *headers; /* the selected headers (redacted ones as "[redacted]") */
	size_t n_headers;
	const kn_field *fields;  /* the parsed body */
	size_t n_fields;
	int held;                /* 1: a guard rule held it; it never reached the server */
	/* A WebSocket message (a `websocket` event) rather than an HTTP request: url is the socket's,
	 * fields the message's, method NULL. Only a websocket spec matches it, and only it. */
	int websocket;
	const char *direction;   /* websocket: "sent" or "received" */
	size_t size;             /* websocket: the message's length in bytes */
	int watched_only;        /* websocket: seen on the network only, never offered to the guard */
} kn_request;

#define KN_BODY_MAX_BYTES (1u << 20)  /* bodies past 1 MiB are parsed from their first 1 MiB */
#define KN_BODY_MAX_FIELDS 1000       /* fields kept per body; the rest are dropped */
#define KN_BODY_TEXT_FIELD "$body"    /* the field a body with no structure is read as */

/* A parsed body: fields[0..n), names and values owned by it (valid UTF-8, no NUL). */
typedef struct kn_body {
	kn_field *fields;
	size_t n, cap;
} kn_body;

/* Parse len bytes of body sent with content_type (NULL: text). Never fails on malformed input:
 * what cannot be read as its type is read as text (`$body`). *out is the caller's
 * (kn_body_free). KN_ENOMEM only. */
int kn_body_parse(kn_body **out, const char *content_type, const char *body, size_t len);
void kn_body_free(kn_body *b);

/* The spec of a `request` key node or a guard rule. Every part is optional; an empty spec
 * matches every request (the loaders refuse one unless match_all says so: rule_check.h). Owned
 * by the key node / rule (kn_request_spec_free). */
typedef struct kn_request_spec {
	char *method;        /* upper case; NULL: any */
	kn_keynode *url;     /* target url: matcher, expect, key (query parameter); NULL: any */
	kn_keynode *fields;  /* body fields (a websocket spec: message fields): key = the field name */
	size_t n_fields;
	int websocket;       /* 1: a `websocket` spec {url, message}: matches WebSocket messages only */
	int match_all;       /* `match_all: true`: the author means a rule matching every request */
} kn_request_spec;

void kn_request_spec_free(kn_request_spec *s);

/* Add a field matcher (key = name, matcher, expect copied) and prepare it (regex, phrase). The
 * added node is *out (borrowed). KN_EINVAL with err for a bad regex or matcher. */
int kn_request_spec_add_field(kn_request_spec *s, kn_keynode **out, const char *name,
                              kn_matcher m, const char *expect, kn_err *err);
/* Set the URL matcher (key may be NULL) and prepare it. */
int kn_request_spec_set_url(kn_request_spec *s, kn_matcher m, const char *expect, const char *key,
                            kn_err *err);
/* Set the method (upper-cased). KN_EINVAL for an empty or non-token method. */
int kn_request_spec_set_method(kn_request_spec *s, const char *method, kn_err *err);

/* A spec from its JSON form {method, url: {MATCHER: v, key}, body: {NAME: {MATCHER: v}},
 * match_all: BOOL} (the
 * Mind2Web-Live extension `request_match`; docs/formats.md). err says which member is wrong. */
struct json_t;
int kn_request_spec_from_json(kn_request_spec **out, const struct json_t *j, kn_err *err);
/* A websocket spec from its JSON form {url: {MATCHER: v}, message: {NAME: {MATCHER: v}}} (the
 * extension `websocket_match`); method and body are refused. */
int kn_websocket_spec_from_json(kn_request_spec **out, const struct json_t *j, kn_err *err);
/* The JSON form of s (what kn_request_spec_from_json, or for a websocket spec
 * kn_websocket_spec_from_json, reads back), a new reference; NULL when out of
 * memory. */
struct json_t *kn_request_spec_to_json(const kn_request_spec *s);

/* A short description for messages and the key node's expect: "POST include '/api/orders'
 * +3 fields". *out is the caller's. */
int kn_request_spec_describe(char **out, const kn_request_spec *s);

/* Does req satisfy s? 1 yes, 0 no, negative on a judge failure. The one decision for requests and
 * WebSocket messages alike: a websocket spec meets WebSocket messages only (and only sent ones: a
 * received message is information), any other spec HTTP requests only. Semantic matchers are judged
 * at once by sem (NULL: the offline judge) and count at threshold (0: KN_SEMANTIC_THRESHOLD). A
 * field matcher is met when some field of its name has a value that matches. */
int kn_request_match(const kn_request_spec *s, const kn_request *req, const kn_semantic *sem,
                     double threshold, kn_err *err);

#endif
