/* grow.h — the one grow-by-doubling step of a dynamic array (a pointer, a count and a capacity),
 * instead of a hand-written realloc loop in every module that appends: one element at a time
 * (kn_grow) or room for a given count at once (kn_grow_to: a byte buffer taking a string). */
#ifndef KEYNODE_GROW_H
#define KEYNODE_GROW_H

#include <stddef.h>

/* Make room for element n of the array whose pointer is at arrp (the address of a T *, passed as
 * void *) holding n elements of size bytes with capacity *cap: when n == *cap the capacity doubles
 * (to first when it was 0) and the array is reallocated. 0, or KN_ENOMEM with the array and *cap
 * unchanged (also when the new size would overflow). */
int kn_grow(void *arrp, size_t n, size_t *cap, size_t size, size_t first);

/* Make room for need elements in the same kind of array: when need > *cap the capacity doubles (from
 * first when it was 0) until it holds need, and the array is reallocated once. 0, or KN_ENOMEM with
 * the array and *cap unchanged (also when the new size would overflow, or first is 0). */
int kn_grow_to(void *arrp, size_t need, size_t *cap, size_t size, size_t first);

#endif
