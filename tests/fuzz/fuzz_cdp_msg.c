/* fuzz_cdp_msg.c — kn_cdp_decode on arbitrary bytes: every message a browser (or anything
 * posing as one on the debugging port) could send. Besides not crashing, it checks the contract:
 * a failure leaves nothing to free; a success is exactly one of reply (result object xor error
 * message) or event (non-empty method, params absent or an object); and what decoded, dumped
 * back to JSON, decodes again to the same kind, id, method and session. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cdp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	kn_cdp_msg m;
	kn_err err;
	if (kn_cdp_decode(&m, (const char *)data, size, &err) != 0) {
		if (m.root || m.params || m.method || err.code != KN_EPROTO)
			__builtin_trap();
		return 0;
	}
	if (!m.root)
		__builtin_trap();
	if (m.kind == KN_CDP_REPLY) {
		if (m.method || !m.params == !m.error || (m.params && !json_is_object(m.params)))
			__builtin_trap();
	} else if (m.kind == KN_CDP_EVENT) {
		if (!m.method || !*m.method || m.error || (m.params && !json_is_object(m.params)))
			__builtin_trap();
	} else
		__builtin_trap();

	char *again = json_dumps(m.root, JSON_COMPACT | JSON_ENCODE_ANY);
	if (again) {
		kn_cdp_msg m2;
		if (kn_cdp_decode(&m2, again, strlen(again), &err) != 0 || m2.kind != m.kind ||
		    m2.id != m.id || !same(m2.method, m.method) || !same(m2.session_id, m.session_id) ||
		    !same(m2.error, m.error))
			__builtin_trap();
		json_decref(m2.root);
		free(again);
	}
	json_decref(m.root);
	return 0;
}
