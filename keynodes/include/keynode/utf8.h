/* utf8.h — UTF-8 well-formedness and repair, shared by everything that turns outside bytes into
 * text (decoded URLs, prompts for an LLM). */
#ifndef KEYNODE_UTF8_H
#define KEYNODE_UTF8_H

#include <stddef.h>
#include <stdint.h>

#include "keynode/error.h"

/* Length of the well-formed UTF-8 sequence at s (1-4; n bytes available), or 0 when it is
 * ill-formed; then *skip is the maximal subpart that one U+FFFD replaces (Unicode's recommended
 * practice, which Python's decoder follows). */
size_t kn_utf8_next(const unsigned char *s, size_t n, size_t *skip);

#define KN_UTF8_BAD 0xFFFFFFFFu /* what kn_utf8_decode reads an ill-formed byte as */

/* Decode the character at s (n ≥ 1 bytes available) into *cp and return its length (1-4); an
 * ill-formed sequence (overlong, surrogate, past U+10FFFF, cut short) reads as one byte with *cp
 * KN_UTF8_BAD. Callers choose: U+FFFD, '?', or refusing the text. */
size_t kn_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp);

/* Encode cp (≤ U+10FFFF) into out (4 bytes of room); returns the length written (1-4). */
size_t kn_utf8_encode(char *out, uint32_t cp);

/* Make the n bytes at *buf (malloc'd, NUL-terminated) valid UTF-8, replacing ill-formed parts
 * with U+FFFD; *buf may be replaced by a longer buffer (the old one is freed). KN_ENOMEM. */
int kn_utf8_repair(char **buf, size_t n);

#endif
