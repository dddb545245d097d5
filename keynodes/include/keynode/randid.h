/* randid.h — unpredictable names: run ids, the recorder's isolated-world and binding names. One
 * generator for every module that needs one, so ids look the same and read /dev/urandom the same way. */
#ifndef KEYNODE_RANDID_H
#define KEYNODE_RANDID_H

#include <stddef.h>

/* Write prefix followed by 2 × nbytes lowercase hex digits of /dev/urandom into out (n bytes,
 * always NUL-terminated, truncated to fit). Without /dev/urandom the bytes come from the clock:
 * unique enough for names, not secret. */
void kn_random_id(char *out, size_t n, const char *prefix, size_t nbytes);

#endif
