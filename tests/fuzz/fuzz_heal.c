/* fuzz_heal.c — the replayer's healing on arbitrary bytes: the input is "SELECTOR\nCANDIDATES-JSON"
 * (no newline: the whole input is the selector). The selector is parsed into an expected
 * signature, the JSON (untrusted: it comes from the page) into candidates, and every candidate
 * is scored (scores must lie in [0, 1]) and compared with the step (agree.c: the selector line is
 * also its recorded text, href and dom_path; the relation, evidence and place must stay in range). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "heal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *nl = memchr(data, '\n', size);
	size_t sl = nl ? (size_t)(nl - (const char *)data) : size;
	char *sel = malloc(sl + 1);
	if (!sel)
		return 0;
	memcpy(sel, data, sl);
	sel[sl] = '\0';
	char tag[] = "a";
	kn_step st = {.verb = size & 1 ? KN_STEP_CLICK : KN_STEP_SELECT, .selector = sel, .text = sel,
	              .hint_href = size & 2 ? sel : NULL, .dom_path = size & 4 ? sel : NULL, .tag = size & 8 ? tag : NULL};
	kn_heal_sig e;
	if (kn_heal_expected(&e, &st) == 0) {
		kn_heal_sig *c = NULL;
		size_t n = 0;
		kn_err err;
		if (nl && kn_heal_parse_candidates(&c, &n, nl + 1, size - sl - 1, &err) == 0) {
			for (size_t i = 0; i < n; i++) {
				double s = kn_heal_score(&e, &c[i], NULL);
				if (!(s >= 0.0 && s <= 1.0))
					abort();
				char why[256];
				kn_heal_agreement a = kn_heal_agree(&st, &e, &c[i], why, sizeof why);
				kn_heal_name_rel rel = kn_heal_name_relation(sel, c[i].text, (int)(size & 1));
				int place = kn_heal_place(sel, c[i].path);
				if (a > KN_AGREE_NO || rel > KN_NAME_OTHER || strlen(why) >= sizeof why ||
				    place < -1 || place > 1)
					abort();
			}
			double best;
			kn_heal_best(&e, c, n, &best);
			kn_heal_sigs_free(c, n);
		}
		kn_heal_sig_clear(&e);
	}
	free(sel);
	return 0;
}
