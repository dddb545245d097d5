/* grow.c — kn_grow and kn_grow_to (grow.h). The array pointer is read and written through memcpy, so
 * one function serves arrays of any element type without casting a T ** to void **. */
#include "keynode/grow.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "keynode/error.h"

int kn_grow_to(void *arrp, size_t need, size_t *cap, size_t size, size_t first)
{
	if (need <= *cap)
		return 0;
	size_t nc = *cap ? *cap : first;
	while (nc && nc < need && nc <= SIZE_MAX / 2)
		nc *= 2;
	if (nc < need || size == 0 || nc > SIZE_MAX / size)
		return KN_ENOMEM;
	void *arr;
	memcpy(&arr, arrp, sizeof arr);
	void *p = realloc(arr, nc * size);
	if (!p)
		return KN_ENOMEM;
	memcpy(arrp, &p, sizeof p);
	*cap = nc;
	return 0;
}

int kn_grow(void *arrp, size_t n, size_t *cap, size_t size, size_t first)
{
	if (n < *cap)
		return 0;
	if (n == SIZE_MAX)
		return KN_ENOMEM;
	return kn_grow_to(arrp, n + 1, cap, size, first);
}
