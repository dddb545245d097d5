/* capbuf.h — bytes appended up to a cap and kept NUL-terminated: the body of an HTTP answer, which
 * libcurl hands over piece by piece to a write callback in each client (the LLM judge, CDP discovery,
 * `keynode run --server`, serve's forwarding) — one sink instead of one per module. */
#ifndef KEYNODE_CAPBUF_H
#define KEYNODE_CAPBUF_H

#include <stddef.h>

typedef struct kn_capbuf {
	char *p;    /* the bytes, NUL-terminated (owned: free()); NULL while nothing came */
	size_t n;   /* bytes held */
	size_t cap; /* at most this many are taken */
	int over;   /* an append would have passed cap: it was refused, and nothing more is taken */
} kn_capbuf;

/* libcurl's write callback shape (CURLOPT_WRITEFUNCTION, CURLOPT_WRITEDATA a kn_capbuf *): appends
 * size * nmemb bytes and returns that count, or 0 — which makes curl stop with CURLE_WRITE_ERROR —
 * past the cap (over set) or out of memory. */
size_t kn_capbuf_write(char *data, size_t size, size_t nmemb, void *ud);

#endif
