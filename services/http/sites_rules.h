/* sites_rules.h — the site rules of `keynode sites`: HTTP redirects from a `_redirects` file and
 * cacheable folders marked by a `_cacheable` file (redirect chains and the back/forward
 * cache need pages shaped like real ones).
 *
 * `DIR/_redirects` (read once at start, at most KN_SITES_RULES_MAX_BYTES) holds one rule a line:
 *
 *     # comment
 *     /old/path      /new/path               301
 *     /form/post     /form/done.html?ok=1    303
 *     /away          http://localhost:8100/  302
 *
 * FROM is an exact request path (as lws hands it over: percent-decoded, without the query),
 * starting with '/'; TO is a path starting with '/' or an absolute http:// or https:// URL, in
 * printable ASCII (percent-encode the rest); STATUS is 301, 302, 303, 307 or 308 (301 when left
 * out). Fields are separated by spaces or tabs. A rule answers GET, HEAD and POST on FROM (so a
 * form can POST to it and be sent on with 303 — a POST to any other path stays 405). Duplicate
 * FROM, a bad field, an extra field, a NUL byte or more than KN_SITES_RULES_MAX rules is an error
 * naming `_redirects:LINE`.
 *
 * A folder holding a file named `_cacheable` has its files sent with `Cache-Control: no-cache`
 * (stored, revalidated) instead of `no-store`: Chromium keeps such pages in its back/forward cache.
 * The two rule files themselves are never served (404). */
#ifndef KEYNODE_SITES_RULES_H
#define KEYNODE_SITES_RULES_H

#include <stddef.h>

#include "keynode/error.h"

#define KN_SITES_RULES_MAX_BYTES (256u * 1024u)
#define KN_SITES_RULES_MAX 1000
#define KN_SITES_RULE_MAX_TO 2048

typedef struct kn_sites_redirect {
	char *from;  /* exact request path */
	char *to;    /* the Location sent */
	int status;  /* 301, 302, 303, 307 or 308 */
	int line;    /* in the file, for messages */
} kn_sites_redirect;

typedef struct kn_sites_rules {
	kn_sites_redirect *redirects;
	size_t n;
} kn_sites_rules;

/* Parse the text of a `_redirects` file (len bytes, need not be NUL-terminated; name is used in
 * messages). On success *out is the caller's (kn_sites_rules_free); an empty text gives no rules.
 * KN_EINVAL with err "NAME:LINE: …" for a bad line, KN_ELIMIT past the caps, KN_ENOMEM. */
int kn_sites_rules_parse(kn_sites_rules **out, const char *text, size_t len, const char *name,
                         kn_err *err);

/* Read DIR/_redirects when it exists (no file: *out gets an empty rule set). Errors as above,
 * KN_EIO when it exists but cannot be read. */
int kn_sites_rules_load(kn_sites_rules **out, const char *dir, kn_err *err);

/* The rule for a request path (borrowed from r), or NULL. */
const kn_sites_redirect *kn_sites_rules_find(const kn_sites_rules *r, const char *path);

/* 1 when the last segment of path is one of the rule files (`_redirects`, `_cacheable`). */
int kn_sites_rules_is_rule_file(const char *path);

/* 1 when the folder holding the file at fs_path (a real path) has a `_cacheable` marker. */
int kn_sites_rules_cacheable(const char *fs_path);

/* A slow answer (what made replays cry wolf: the tracker pixel that holds a page's `load`, the server
 * slow to send a document): any GET or HEAD with the query parameter `kn-delay=MS` is answered
 * MS milliseconds late. The parameter's value (NUL-terminated): MS for 1..KN_SITES_DELAY_MAX_MS
 * decimal digits without sign or space, -1 for anything else (answered 400). */
#define KN_SITES_DELAY_MAX_MS 60000
int kn_sites_delay_ms(const char *value);

/* NULL is a no-op. */
void kn_sites_rules_free(kn_sites_rules *r);

#endif
