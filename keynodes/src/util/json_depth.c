/* json_depth.c — kn_json_depth_exceeds (json_depth.h): one pass over the bytes, strings and their
 * escapes skipped, stopping at the first level past the limit. */
#include "keynode/json_depth.h"

int kn_json_depth_exceeds(const char *s, size_t len, int max)
{
	int depth = 0, in_str = 0;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if (in_str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_str = 0;
		} else if (c == '"') {
			in_str = 1;
		} else if (c == '[' || c == '{') {
			if (++depth > max)
				return 1;
		} else if ((c == ']' || c == '}') && depth > 0) {
			depth--;
		}
	}
	return 0;
}
