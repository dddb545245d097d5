/* selector.h — the one grammar of step and key-node selectors: CSS (selectors level 4 syntax),
 * XPath (a leading '/', '(' or "xpath="), and frame / shadow-root chains "host >> inner" whose parts
 * are either. One parser walks a selector and reports what it finds, in order, to a callback;
 * validation (`keynode validate`, workflow.c), healing (services/replay/heal.c) and the offline
 * comparison of selectors (normalisation here, used by the evaluator) all read selectors through
 * it. Pure: no allocation in the parser, no I/O. */
#ifndef KEYNODE_SELECTOR_H
#define KEYNODE_SELECTOR_H

#include <stddef.h>

#include "keynode/error.h"

/* A chain part longer than this (bytes) is an error: parts are parsed from a stack copy. */
#define KN_SELECTOR_MAX_PART 4096

typedef enum kn_selector_lang { KN_SELECTOR_CSS, KN_SELECTOR_XPATH } kn_selector_lang;

/* What the parser reports, in source order. */
typedef enum kn_selector_tok {
	KN_SELTOK_PART,     /* a part of a `>>` chain begins (a selector is at least one part); text = it */
	KN_SELTOK_COMPOUND, /* CSS: a compound selector begins; comb says how it joins the one before */
	KN_SELTOK_TAG,      /* CSS: the type selector, name = the tag or "*" */
	KN_SELTOK_ID,       /* CSS: #name */
	KN_SELTOK_CLASS,    /* CSS: .name */
	KN_SELTOK_ATTR,     /* CSS: [name op value flag]; text = inside the brackets */
	KN_SELTOK_PSEUDO,   /* CSS: :name or ::name; value = its "(…)" argument, parentheses included */
	KN_SELTOK_STEP,     /* XPath: a location step begins (between top-level '/'); name = its node
	                     * test, the leading run of letters, digits, '-', '_', '*' and ':' */
	KN_SELTOK_PRED,     /* XPath: a predicate of the current step; text = inside its [ ] */
} kn_selector_tok;

/* One report. Slices (pointer and length, not NUL-terminated) point into the selector or into a
 * copy of one chain part: they are valid only during the callback. Fields a kind does not use are
 * NULL and 0. */
typedef struct kn_selector_token {
	kn_selector_tok kind;
	kn_selector_lang lang;
	char comb;         /* COMPOUND: 0 (first), ' ', '>', '+', '~', or ',' (first of a list's next) */
	const char *text;  /* PART, ATTR, PRED */
	size_t text_len;
	const char *name;  /* TAG, ID, CLASS, PSEUDO, STEP; ATTR: the attribute name */
	size_t name_len;
	const char *op;    /* ATTR: "=", "~=", "|=", "^=", "$=", "*=", or empty for a presence test */
	size_t op_len;
	const char *value; /* ATTR: the value as written (quotes kept); PSEUDO: the argument */
	size_t value_len;
} kn_selector_token;

typedef int (*kn_selector_fn)(void *ud, const kn_selector_token *t);

/* Parse sel and report its tokens to fn (may be NULL: a syntax check). The check is syntax only,
 * what a browser's querySelector or document.evaluate would refuse. Returns 0; KN_EINVAL with err
 * saying what and where ("invalid CSS selector: unclosed '[' at character 2") at the first syntax
 * error, after reporting what came before it; or fn's non-zero return, which stops the walk.
 * A selector starting with '/', '(' or "xpath=" is one XPath expression (never a chain). */
int kn_selector_parse(const char *sel, kn_selector_fn fn, void *ud, kn_err *err);

/* Check a selector's syntax: kn_selector_parse without a callback. */
int kn_selector_check(const char *sel, kn_err *err);

/* Decode the CSS escapes of a name (n bytes at s, as a TAG, ID, CLASS or attribute name token
 * gives it): "\\31 " (one to six hex digits and an optional space) is that code point in UTF-8 (0,
 * a surrogate or one past U+10FFFF: U+FFFD), "\\x" is x. Writes at most cap - 1 bytes and a NUL
 * to dst (cap > 0); returns the decoded length before any cut. */
size_t kn_selector_unescape(char *dst, size_t cap, const char *s, size_t n);

/* The offset in s of the next `>>` chain separator at or after from, outside strings, brackets and
 * parentheses and not escaped; -1 when there is none (also for s NULL). The one reading of a chain:
 * `keynode validate` checks its parts, the replayer enters its frames and the page's query.js
 * (knChainSep, the same rules in JavaScript) looks for them by it. */
long kn_selector_chain_sep(const char *s, size_t from);

/* Normalise a CSS selector for offline comparison: trim, collapse whitespace, no spaces around the
 * combinators > + ~ and inside brackets. *out is the caller's. */
int kn_selector_normalise(char **out, const char *sel);

/* The last part of a `host >> inner` chain in a normalised selector: what follows its last ">>"
 * outside strings, brackets and parentheses (borrowed from norm; the element's selector in its own
 * tree), or NULL when norm is no chain. */
const char *kn_selector_last_part(const char *norm);

#endif
