/* fuzz_labels.c — the labels file of `keynode judge-audit` (services/audit/labels.c) on arbitrary
 * bytes. Besides not crashing, it checks the contract: either items come back, every one with a
 * rule, a value, a target judge-audit can judge, a 0/1 label and a line within the input, or nothing
 * does and the error names the input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	kn_labels *l = NULL;
	kn_err err = {0};
	int rc = kn_labels_parse(&l, "fuzz", (const char *)data, size, &err);
	if (rc != 0) {
		if (l || (strncmp(err.msg, "fuzz", 4) != 0 && rc != KN_ENOMEM))
			abort();
		return 0;
	}
	if (!l || l->n == 0)
		abort();
	int last = 0;
	for (size_t i = 0; i < l->n; i++) {
		const kn_label_item *it = &l->items[i];
		if (!it->rule || !*it->rule || !it->value || (it->label != 0 && it->label != 1) ||
		    it->line <= last || (size_t)it->line > size ||
		    (it->target != KN_TARGET_URL && it->target != KN_TARGET_ELEMENT_VALUE &&
		     it->target != KN_TARGET_ANSWER) ||
		    (it->key && (!*it->key || it->target != KN_TARGET_URL)))
			abort();
		last = it->line;
	}
	kn_labels_free(l);
	return 0;
}
