/* base64.h — decoding standard base64 (what CDP gives for screenshots and response bodies). */
#ifndef KEYNODE_BASE64_H
#define KEYNODE_BASE64_H

#include <stddef.h>

/* Decode n bytes of standard base64 (padding optional, whitespace skipped) into *out (the
 * caller's, *len bytes). KN_EINVAL for a character outside the alphabet, KN_ENOMEM. */
int kn_base64_decode(unsigned char **out, size_t *len, const char *in, size_t n);

#endif
