/* fuzz_task_yaml.c — fuzz target for the native YAML task loader (task_yaml.c). Besides crashes,
 * leaks and sanitizer reports it aborts on broken contracts: a failure must leave *out NULL and
 * a message "fuzz.yaml:<line>:<col>: ..."; a success must give complete tasks. Small limits keep
 * each input cheap and put the limit paths within reach. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "keynode/task.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int message_ok(const char *msg)
{
	const char *p = msg + strlen("fuzz.yaml:");
	if (strncmp(msg, "fuzz.yaml:", strlen("fuzz.yaml:")) != 0)
		return 0;
	for (int part = 0; part < 2; part++) {
		if (*p < '1' || *p > '9')
			return 0;
		while (*p >= '0' && *p <= '9')
			p++;
		if (*p++ != ':')
			return 0;
	}
	return *p == ' ' && p[1] != '\0';
}

static void check_set(const kn_taskset *set)
{
	if (!set || set->format != KN_FORMAT_YAML || !set->source || set->n_tasks == 0)
		abort();
	for (size_t i = 0; i < set->n_tasks; i++) {
		const kn_task *t = &set->tasks[i];
		if (!t->id || !*t->id || !t->intent || t->n_keynodes == 0 || t->reference_length < 0 ||
		    kn_taskset_find(set, t->id) != t)
			abort();
		for (size_t k = 0; k < t->n_keynodes; k++) {
			const kn_keynode *kn = &t->keynodes[k];
			if (!kn->id || !kn->expect || !kn->function || kn->line < 1 || kn->column < 1 ||
			    (kn->matcher == KN_MATCH_REGEX) != (kn->regex != NULL))
				abort();
		}
		for (size_t s = 0; s < t->n_steps; s++) {
			const kn_step *st = &t->steps[s];
			int needs_selector = st->verb == KN_STEP_CLICK || st->verb == KN_STEP_TYPE ||
			                     st->verb == KN_STEP_SELECT;
			if ((needs_selector && !st->selector) || st->line < 1)
				abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	kn_taskset *set = (kn_taskset *)&set;
	kn_err err = { 0 };
	kn_load_opts opts = { .max_bytes = 1 << 16, .max_depth = 32, .max_alias_nodes = 2000 };
	int rc = kn_task_load_yaml(&set, (const char *)data, size, "fuzz.yaml", &opts, &err);
	if (rc == 0) {
		check_set(set);
		kn_taskset_free(set);
		return 0;
	}
	if (set != NULL || err.code != rc || !message_ok(err.msg) ||
	    (rc != KN_EINVAL && rc != KN_ELIMIT && rc != KN_ENOMEM))
		abort();
	return 0;
}
