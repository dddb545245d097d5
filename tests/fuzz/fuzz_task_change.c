/* fuzz_task_change.c — a key node or a step written alone (keynode/task_change.h), as
 * POST /api/tasks/{id}/edits receives it from a client (untrusted), on arbitrary bytes: both loaders
 * must answer with exactly one item or a clean error whose message starts with "key_node:" / "step:"
 * (the snippet's own position), never anything of the wrapper; and the diff of two definitions, the
 * input split at the first NUL into two JSON texts, must succeed on any two objects. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "keynode/task_change.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = (const char *)data;
	kn_taskset *set = NULL;
	kn_err err = {0};
	int rc = kn_keynode_from_snippet(&set, in, size, &err);
	if (rc == 0 && (!set || set->n_tasks != 1 || set->tasks[0].n_keynodes != 1))
		abort();
	if (rc != 0 && (set || strncmp(err.msg, "key_node", 8) != 0 || strstr(err.msg, ".wrapped")))
		abort();
	kn_taskset_free(set);
	set = NULL;
	rc = kn_step_from_snippet(&set, "t", in, size, &err);
	if (rc == 0 && (!set || set->n_tasks != 1 || set->tasks[0].n_steps != 1))
		abort();
	if (rc != 0 && (set || strncmp(err.msg, "step", 4) != 0 || strstr(err.msg, ".wrapped")))
		abort();
	kn_taskset_free(set);

	const char *nul = memchr(in, '\0', size);
	json_t *a = json_loadb(in, nul ? (size_t)(nul - in) : size, JSON_DECODE_ANY, NULL);
	json_t *b = nul ? json_loadb(nul + 1, size - (size_t)(nul - in) - 1, JSON_DECODE_ANY, NULL) : NULL;
	json_t *d = NULL;
	if (b && json_is_object(b)) {
		rc = kn_task_diff(&d, json_is_object(a) ? a : NULL, b, &err);
		if (rc != 0 && rc != KN_ENOMEM)
			abort();
		if (rc == 0 && (!json_is_array(json_object_get(d, "key_nodes")) || !json_is_array(json_object_get(d, "steps"))))
			abort();
	}
	json_decref(d);
	json_decref(a);
	json_decref(b);
	return 0;
}
