/* base64.h — standard base64: decoding what CDP gives (screenshots, response bodies, request
 * bodies) and encoding what it takes (a response keynode answers with, Fetch.fulfillRequest). */
#ifndef KEYNODE_BASE64_H
#define KEYNODE_BASE64_H

#include <stddef.h>

/* Decode n bytes of standard base64 (padding optional, whitespace skipped) into *out (the
 * caller's, *len bytes). KN_EINVAL for a character outside the alphabet, KN_ENOMEM. */
int kn_base64_decode(unsigned char **out, size_t *len, const char *in, size_t n);

/* Encode n bytes into *out (the caller's, NUL-terminated, padded). KN_ENOMEM. */
int kn_base64_encode(char **out, const unsigned char *in, size_t n);

#endif
