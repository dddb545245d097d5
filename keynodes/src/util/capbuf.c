/* capbuf.c — kn_capbuf_write (capbuf.h). */
#include "keynode/capbuf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

size_t kn_capbuf_write(char *data, size_t size, size_t nmemb, void *ud)
{
	kn_capbuf *b = ud;
	if (nmemb && size > SIZE_MAX / nmemb)
		return 0;
	size_t len = size * nmemb;
	if (b->over || len > b->cap || b->n > b->cap - len) {
		b->over = 1;
		return 0;
	}
	char *p = realloc(b->p, b->n + len + 1);
	if (!p)
		return 0;
	memcpy(p + b->n, data, len);
	b->n += len;
	p[b->n] = '\0';
	b->p = p;
	return len;
}
