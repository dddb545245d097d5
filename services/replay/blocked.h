/* blocked.h — "blocked is not broken": telling a site that refused service (an HTTP 401/403/429/
 * 5xx main document, a bot challenge page, a CAPTCHA frame, a consent wall covering the page, a
 * redirect to another country's site) from a site whose workflow broke.
 *
 * Two halves. The pure half (blocked.c) holds the rules with their defaults, the judge that turns
 * what the page reported (a JSON object, page-controlled input, fuzzed by tests/fuzz/fuzz_blocked.c)
 * into a verdict, and the country marker of a URL. The CDP half (blocked_probe.c) asks the page:
 * the main document's HTTP status, its title, the first challenge signature, CAPTCHA frame and
 * covering consent wall that match, and dismisses a consent wall whose accept button a dismiss
 * selector finds. The replayer calls kn_blocked_probe after every step settled (replay.c), so a
 * replay meeting a block stops there with the step outcome "blocked" and the evidence. */
#ifndef KEYNODE_BLOCKED_H
#define KEYNODE_BLOCKED_H

#include <stddef.h>

#include <jansson.h>

#include "cdp.h"

/* One configurable list. set = 0: the built-in defaults; set = 1: exactly v (n may be 0). */
typedef struct kn_blocked_list {
	const char *const *v;
	size_t n;
	int set;
} kn_blocked_list;

/* The rules (keynode.yaml `blocked:`, services/config). Zeroed: every default, detection on. */
typedef struct kn_blocked_rules {
	int off;                       /* 1: no detection at all */
	kn_blocked_list http_status;   /* "403", "5xx" (x: any digit); default 401 403 429 5xx */
	kn_blocked_list challenge;     /* "title:TEXT" (title contains, case-insensitive) or
	                                * "css:SELECTOR" (a visible element matches) */
	kn_blocked_list captcha_frames;/* substrings of a visible iframe's src ("size=invisible" never counts) */
	kn_blocked_list consent_walls; /* CSS selectors of consent walls; one counts when it is visible and
	                                * holds the element at the centre of the viewport */
	kn_blocked_list consent_dismiss; /* CSS selectors of accept buttons, clicked to get past a wall */
	int geo_off;                   /* 1: no geo-redirect rule */
} kn_blocked_rules;

typedef enum kn_blocked_kind {
	KN_BLOCKED_NONE = 0, KN_BLOCKED_HTTP, KN_BLOCKED_CHALLENGE, KN_BLOCKED_CAPTCHA,
	KN_BLOCKED_CONSENT, KN_BLOCKED_GEO
} kn_blocked_kind;

/* What a probe found: kind NONE when the page serves. Fixed buffers, nothing to free. */
typedef struct kn_blocked_hit {
	kn_blocked_kind kind;
	int status;               /* the main document's HTTP status; 0 unknown */
	char signature[200];      /* the rule that matched: "http 403", "title:Just a moment",
	                           * "frame:/recaptcha/api2/anchor", "wall:#onetrust-consent-sdk",
	                           * "geo:us→de" */
	char url[1024];           /* the page's URL */
	char detail[256];         /* the page's title, a frame's src, the wall's selector */
	char retry_after[64];     /* a 429's Retry-After header, when the page let us read it */
	int dismissed;            /* consent walls dismissed on the way (passed, not blocked) */
} kn_blocked_hit;

/* "http", "challenge", "captcha", "consent", "geo"; "none". Static storage. */
const char *kn_blocked_kind_name(kn_blocked_kind k);

/* The list in effect (the rule's own or the default); static or borrowed from rules. */
kn_blocked_list kn_blocked_effective(const kn_blocked_rules *rules, const kn_blocked_list *which,
                                     const kn_blocked_list *defaults);
extern const kn_blocked_list kn_blocked_default_http_status, kn_blocked_default_challenge,
	kn_blocked_default_captcha_frames, kn_blocked_default_consent_walls,
	kn_blocked_default_consent_dismiss;

/* 1 when HTTP status matches pattern ("403", "5xx"), else 0. */
int kn_blocked_status_matches(const char *pattern, int status);

/* The country/locale marker of url into out (lower case, "" when none): the first path segment
 * when it is a locale ("de", "en-gb", "fr_ca"; the country part is kept: "gb"), else a two-letter
 * first host label ("uk.example.com"), else a country-code top-level domain ("example.de").
 * Returns 0, or KN_EINVAL for something that is not an http(s) URL. */
int kn_blocked_country(const char *url, char *out, size_t cap);

/* Judge what the probe reported (a JSON object, len bytes, page-controlled: sizes are capped and
 * unexpected types ignored) against the rules. requested: the URL a goto step asked for (NULL for
 * other steps): a final URL whose country marker differs from the requested one's, when the
 * requested URL had one, is a geo redirect. Fills *out (kind NONE when the page serves).
 * Returns 1 blocked, 0 not, KN_EINVAL for text that is not a JSON object. */
int kn_blocked_judge(kn_blocked_hit *out, const kn_blocked_rules *rules, const char *requested,
                     const char *probe_json, size_t len);

/* The report's "blocked" object: {step (1-based, null when 0), kind, signature, status (null
 * when unknown), url, detail, retry_after?}. New reference; NULL only out of memory. */
json_t *kn_blocked_hit_json(const kn_blocked_hit *hit, int step);

/* Ask the page of session (a flattened session of c, the loop of c) whether it is blocked,
 * dismissing up to two consent walls on the way (the hit counts them). Returns 1 blocked (*out
 * filled), 0 not (or rules->off), a negative code when the page could not be asked (a navigating
 * page: the caller goes on as if not blocked). */
int kn_blocked_probe(kn_blocked_hit *out, kn_cdp_loop *loop, kn_cdp *c, const char *session,
                     const kn_blocked_rules *rules, const char *requested);

/* The watcher's probe (services/monitor): asynchronous and passive — no consent wall is dismissed,
 * no Retry-After request sent, no geo rule (no requested URL) — evaluated in context_id (the
 * watcher's isolated world; 0: the page's main world). done(ud, hit) runs once on the loop thread
 * with the verdict (hit->kind NONE: the page serves), or with NULL when the page could not be
 * asked (it navigated away, the connection closed). rules (NULL: defaults) is copied, the lists it
 * points to are not. Returns 0 (done will run; not when rules->off: then nothing is sent) or a
 * negative code (done will not run). */
int kn_blocked_probe_send(kn_cdp *c, const char *session, int context_id, const kn_blocked_rules *rules,
                          void (*done)(void *ud, const kn_blocked_hit *hit), void *ud);

#endif
