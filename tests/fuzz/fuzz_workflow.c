/* fuzz_workflow.c — fuzz target for workflow files (keynodes/src/taskfiles/workflow.c through the task YAML
 * loader's workflow mode, and the selector syntax check). Beyond crashes and sanitizer reports it
 * aborts on broken contracts: a failure leaves *out NULL and says "fuzz.yaml:<line>...: ..."; a
 * success gives one task with an id and at least one step, every selector passing the check; the
 * writer's output of a loaded workflow loads again with the same steps. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keynode/workflow.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_roundtrip(const kn_task *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return;
	if (kn_workflow_write(f, t, "2026-01-01T00:00:00Z") != 0)
		abort();
	fclose(f);
	kn_taskset *again = NULL;
	kn_err err = {0};
	if (kn_workflow_load_buffer(&again, buf, len, "again.yaml", &err) != 0)
		abort(); /* what the writer wrote must load */
	const kn_task *u = &again->tasks[0];
	if (strcmp(u->id, t->id) != 0 || u->n_steps != t->n_steps)
		abort();
	for (size_t i = 0; i < t->n_steps; i++) {
		const kn_step *a = &t->steps[i], *b = &u->steps[i];
		if (a->verb != b->verb || !a->selector != !b->selector ||
		    (a->selector && strcmp(a->selector, b->selector) != 0) || a->navigated != b->navigated)
			abort();
	}
	kn_taskset_free(again);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	kn_taskset *set = (kn_taskset *)&set;
	kn_err err = {0};
	if (size > 1 << 16)
		return 0;
	int rc = kn_workflow_load_buffer(&set, (const char *)data, size, "fuzz.yaml", &err);
	if (rc == 0) {
		if (!set || set->n_tasks != 1 || !set->tasks[0].id || set->tasks[0].n_steps == 0)
			abort();
		for (size_t i = 0; i < set->tasks[0].n_steps; i++)
			if (set->tasks[0].steps[i].selector && kn_selector_check(set->tasks[0].steps[i].selector, NULL))
				abort();
		check_roundtrip(&set->tasks[0]);
		kn_taskset_free(set);
		return 0;
	}
	if (set != NULL || err.code != rc || strncmp(err.msg, "fuzz.yaml:", 10) != 0 ||
	    (rc != KN_EINVAL && rc != KN_ELIMIT && rc != KN_ENOMEM))
		abort();
	/* the selector check alone, on the raw bytes as one string */
	char *s = malloc(size + 1);
	if (s) {
		memcpy(s, data, size);
		s[size] = '\0';
		kn_selector_check(s, NULL);
		free(s);
	}
	return 0;
}
