/* fuzz_repair.c — a URL key node's repair proposal (services/replay/repair.h kn_repair_url) on
 * arbitrary bytes: the input is "EXPECT\nURL\nRECORDED" (missing parts empty). The URLs come from
 * the page a replay visited (untrusted). Each matcher (exact, include, regex), with and without a
 * key, must return 0 or 1 with at most one of key / expect set, and never overrun. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "repair.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	char *url = strchr(buf, '\n');
	if (url)
		*url++ = '\0';
	char *rec = url ? strchr(url, '\n') : NULL;
	if (rec)
		*rec++ = '\0';
	static const kn_matcher ms[] = {KN_MATCH_EXACT, KN_MATCH_INCLUDE, KN_MATCH_REGEX};
	for (size_t m = 0; m < 3; m++)
		for (int k = 0; k < 2; k++) {
			kn_keynode kn = {.id = strdup("k"), .target = KN_TARGET_URL, .matcher = ms[m], .expect = strdup(buf),
			                 .key = k ? strdup("id") : NULL};
			kn_err err;
			if (kn.id && kn.expect && kn_keynode_prepare(&kn, &err) == 0) {
				char *key = NULL, *expect = NULL;
				int rc = kn_repair_url(&kn, url ? url : "", rec, &key, &expect);
				if (rc != 0 && rc != 1)
					abort();
				if (rc == 1 && (key != NULL) == (expect != NULL))
					abort();
				free(key);
				free(expect);
			}
			kn_keynode_clear(&kn);
		}
	free(buf);
	return 0;
}
