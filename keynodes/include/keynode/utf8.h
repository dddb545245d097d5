/* utf8.h — UTF-8 well-formedness and repair, shared by everything that turns outside bytes into
 * text (decoded URLs, prompts for an LLM). */
#ifndef KEYNODE_UTF8_H
#define KEYNODE_UTF8_H

#include <stddef.h>

#include "keynode/error.h"

/* Length of the well-formed UTF-8 sequence at s (1-4; n bytes available), or 0 when it is
 * ill-formed; then *skip is the maximal subpart that one U+FFFD replaces (Unicode's recommended
 * practice, which Python's decoder follows). */
size_t kn_utf8_next(const unsigned char *s, size_t n, size_t *skip);

/* Make the n bytes at *buf (malloc'd, NUL-terminated) valid UTF-8, replacing ill-formed parts
 * with U+FFFD; *buf may be replaced by a longer buffer (the old one is freed). KN_ENOMEM. */
int kn_utf8_repair(char **buf, size_t n);

#endif
