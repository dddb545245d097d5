/* fuzz_purchase.c — the purchase read's JSON (kn_purchase_read_parse) and the reward on arbitrary
 * bytes: the input is a read (JSON), or anything else split at the first newline into two texts
 * for token_set_ratio and the colour normalisation. Besides not crashing, it checks what the
 * contracts promise: a reward in [0, 1], r_type one of 0, 0.1, 0.5, 1, a ratio in [0, 100] and
 * symmetric. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "keynode/purchase.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	char a1[] = "waterproof", a2[] = "lightweight", f1[] = "color", v1[] = "blue", f2[] = "size",
	     v2[] = "9", type[] = "trail running shoe";
	char *attrs[] = {a1, a2};
	kn_purchase_option opts[] = {{f1, v1}, {f2, v2}};
	kn_purchase spec = {.type = type, .attributes = attrs, .n_attributes = 2,
	                    .options = opts, .n_options = 2, .price_max = 60};
	void *h = NULL;
	kn_purchase_read rd;
	if (kn_purchase_read_parse(&h, &rd, s) == 0) {
		kn_reward r;
		if (kn_purchase_reward(&spec, &rd, &r, NULL) != 0)
			abort(); /* the WordNet lexicon is installed where this runs */
		if (!(r.reward >= 0 && r.reward <= 1) ||
		    !(r.r_type == 0 || r.r_type == 0.1 || r.r_type == 0.5 || r.r_type == 1))
			abort();
		kn_purchase_read_free(h);
	}
	char *nl = strchr(s, '\n');
	const char *b = nl ? nl + 1 : "blue";
	if (nl)
		*nl = '\0';
	/* difflib's ratio is not symmetric (its matching blocks depend on the order); Indel's is */
	int x = kn_purchase_token_set_ratio(s, b), y, z;
	if (x < 0 || x > 100 || kn_fuzz_token_set_ratio(&y, s, b, KN_FUZZ_INDEL) ||
	    kn_fuzz_token_set_ratio(&z, b, s, KN_FUZZ_INDEL) || y != z || y < 0 || y > 100)
		abort();
	(void)kn_purchase_normalize_color(s);
	free(s);
	return 0;
}
