/* rule_check.c — the check every loader runs on a guard rule and a `request` or `websocket` key
 * node (rule_check.h): an empty rule, one that matches every request (or, for a websocket spec,
 * every WebSocket message) and one that can never apply are refused, so a typo never turns into
 * "hold everything" or "hold nothing". The match-all test runs the rule's own matcher
 * (kn_request_match) on the probe URLs, so it agrees with what the monitor would hold. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "keynode/rule_check.h"

const char *const KN_RULE_PROBES[] = {
	"http://localhost/",
	"https://a.example/",
	"http://127.0.0.1:8080/x/y.html?q=1",
	"https://b.invalid/p;v=2?z=%20",
	NULL,
};

const char *const KN_RULE_WS_PROBES[] = {
	"ws://localhost/",
	"wss://a.example/",
	"ws://127.0.0.1:8080/x/y?q=1",
	"wss://b.invalid/p;v=2?z=%20",
	NULL,
};

/* 1 when the url part accepts every probe URL: no `key` (a parameter that must be there narrows),
 * not semantic (a judgement, not a pattern), and a match on each probe — a request's for a request
 * spec, a sent WebSocket message's on the ws probes for a websocket spec. */
static int url_accepts_all(const kn_request_spec *s)
{
	if (!s->url)
		return 1;
	if (s->url->key || s->url->matcher == KN_MATCH_SEMANTIC)
		return 0;
	kn_request_spec only_url = {.url = s->url, .websocket = s->websocket};
	const char *const *probes = s->websocket ? KN_RULE_WS_PROBES : KN_RULE_PROBES;
	for (size_t i = 0; probes[i]; i++) {
		kn_request req = {.method = s->websocket ? NULL : "GET", .url = probes[i],
		                  .websocket = s->websocket, .direction = s->websocket ? "sent" : NULL};
		if (kn_request_match(&only_url, &req, NULL, 0, NULL) != 1)
			return 0;
	}
	return 1;
}

int kn_rule_matches_all(const kn_request_spec *s)
{
	return s && !s->method && s->n_fields == 0 && url_accepts_all(s);
}

/* What narrows s, for the message refusing `match_all: true` on it. */
static const char *narrowed_by(const kn_request_spec *s)
{
	return s->method ? "its method narrows"
	     : s->n_fields ? (s->websocket ? "its message fields narrow" : "its body fields narrow")
	     : "its url narrows";
}

/* 1 when an exact url can equal no URL keynode sees: it is compared with the whole URL, which
 * begins with http:// or https:// for every request, ws:// or wss:// for every WebSocket. */
static int exact_never(const kn_keynode *url, int websocket)
{
	if (!url || url->key || url->matcher != KN_MATCH_EXACT)
		return 0;
	if (websocket)
		return strncasecmp(url->expect, "ws://", 5) != 0 && strncasecmp(url->expect, "wss://", 6) != 0;
	return strncasecmp(url->expect, "http://", 7) != 0 && strncasecmp(url->expect, "https://", 8) != 0;
}

int kn_rule_check(const kn_request_spec *s, const char *what, char *why, size_t why_len)
{
	int n = 0;
	const char *each = s && s->websocket ? "every WebSocket message" : "every request";
	if (!s)
		n = snprintf(why, why_len, "%s: no spec", what);
	else if (s->method && (!strcmp(s->method, "CONNECT") || !strcmp(s->method, "TRACE") ||
	                       !strcmp(s->method, "TRACK")))
		n = snprintf(why, why_len, "%s can never apply: browsers never send a %s request", what,
		             s->method);
	else if (s->method && s->n_fields && (!strcmp(s->method, "GET") || !strcmp(s->method, "HEAD")))
		n = snprintf(why, why_len, "%s can never apply: a %s request carries no body, so 'body' "
		             "never matches (a GET form's fields are in the URL: use url with key)", what,
		             s->method);
	else if (exact_never(s->url, s->websocket))
		n = snprintf(why, why_len, s->websocket
		             ? "%s can never apply: url exact is compared with the socket's whole URL, "
		               "which begins with ws:// or wss://"
		             : "%s can never apply: url exact is compared with the whole "
		               "URL, and every request keynode sees begins with http:// or https://", what);
	else if (!s->match_all && !s->method && !s->url && !s->n_fields)
		n = snprintf(why, why_len, "%s is empty: it would match %s (say match_all: "
		             "true if that is meant)", what, each);
	else if (!s->match_all && kn_rule_matches_all(s))
		n = snprintf(why, why_len, "%s matches %s: its url matcher accepts any URL "
		             "and nothing else narrows it (say match_all: true if that is meant)", what, each);
	else if (s->match_all && !kn_rule_matches_all(s))
		n = snprintf(why, why_len, "%s says match_all: true but %s it: drop one of "
		             "the two", what, narrowed_by(s));
	return n > 0 ? KN_EINVAL : 0;
}
