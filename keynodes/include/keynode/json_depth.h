/* json_depth.h — how deep a JSON text nests, read on its bytes before a parser sees it.
 *
 * jansson parses recursively and has no depth option of its own: a document of a million '['
 * would exhaust the stack. Every loader of JSON that crosses a trust boundary (task files, HTTP
 * request bodies) asks this first and refuses what nests too deep. */
#ifndef KEYNODE_JSON_DEPTH_H
#define KEYNODE_JSON_DEPTH_H

#include <stddef.h>

/* 1 when the JSON text s (len bytes, not necessarily NUL-terminated) opens more than max levels of
 * [ and { at once, counting outside strings; 0 otherwise. A closer with nothing open is not counted
 * (it cannot lower the count of what opens after it); the text need not be valid JSON. */
int kn_json_depth_exceeds(const char *s, size_t len, int max);

#endif
