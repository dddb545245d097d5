/* rule_check.h — the one check every loader runs on a guard rule and a `request` or `websocket`
 * key node, so a rule cannot be wrong silently (docs/formats.md §1 "Rules that cannot be wrong silently").
 *
 * A spec (request.h) is refused when it is
 *   - empty: no method, no url, no body field;
 *   - a match-all: no method, no body field, and a url matcher without `key` that is not
 *     semantic and matches every one of the probe URLs (KN_RULE_PROBES) by the rule's own
 *     matcher — `include: ""`, `include: "/"`, `regex: ".*"`, `regex: "^https?://"`;
 *   - one that can never apply: a method browsers never send (CONNECT, TRACE, TRACK), `body:`
 *     with method GET or HEAD (such a request carries no body), or `url: {exact: …}` without
 *     `key` that does not begin with http:// or https:// (it is compared with the whole URL, and
 *     keynode sees and pauses only http(s) requests);
 * unless, for the first two, the rule says `match_all: true`. A `match_all: true` on a rule that
 * does not match every request (it has a method, a body field or a narrowing url) is refused
 * too: the rule says two things.
 *
 * A websocket spec ({url, message}; spec->websocket) is checked the same way against WebSocket
 * messages: empty without url and message fields; a match-all without message fields and with a url
 * matcher that accepts every one of KN_RULE_WS_PROBES (ws:// and wss:// URLs, as a sent message);
 * never applying with `url: {exact: …}` that does not begin with ws:// or wss://. */
#ifndef KEYNODE_RULE_CHECK_H
#define KEYNODE_RULE_CHECK_H

#include <stddef.h>

#include "keynode/request.h"

/* The URLs a url matcher is tried on to decide that it matches every request: they share
 * nothing but being http(s) requests. NULL-terminated, static storage. */
extern const char *const KN_RULE_PROBES[];
/* The same for a websocket spec: socket URLs (ws://, wss://), tried as sent messages. */
extern const char *const KN_RULE_WS_PROBES[];

/* 0 when s may be loaded; KN_EINVAL with why (a sentence without position, to be prefixed by the
 * loader's file:line:column or JSON path) otherwise. what names the thing for the message ("guard
 * rule", "request key node"). */
int kn_rule_check(const kn_request_spec *s, const char *what, char *why, size_t why_len);

/* 1 when s matches every request (a websocket spec: every sent WebSocket message) as defined
 * above (empty included), 0 otherwise. */
int kn_rule_matches_all(const kn_request_spec *s);

#endif
