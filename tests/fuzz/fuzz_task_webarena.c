/* fuzz_task_webarena.c — the WebArena config importer on arbitrary bytes (with two sites set, so
 * placeholder resolution runs): any input loads or fails with a message; never a crash, leak or
 * hang. What loads is complete, and its functional matchers run on a fixed answer and URL. */
#include <stdint.h>
#include <string.h>

#include "keynode/functional.h"
#include "keynode/task.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const kn_site sites[] = {{"SHOPPING", "http://127.0.0.1:7770/"}, {"A", ""}};
	kn_load_opts o = {.sites = sites, .n_sites = 2};
	kn_taskset *set = NULL;
	kn_err err;
	if (kn_task_load_webarena(&set, (const char *)data, size, "fuzz.json", &o, &err) == 0) {
		for (size_t t = 0; t < set->n_tasks; t++) {
			const kn_task *task = &set->tasks[t];
			if (!task->id || !task->intent)
				__builtin_trap();
			for (size_t k = 0; k < task->n_keynodes; k++) {
				const kn_keynode *kn = &task->keynodes[k];
				if (!kn->function || !kn->expect || !kn->functional)
					__builtin_trap();
				if (kn->target == KN_TARGET_PAGE && !kn->locator)
					__builtin_trap();
				(void)kn_func_must_include_all(kn->items, kn->n_items, "Quest 0 band", 1);
				(void)kn_func_gold_in_pred(kn->expect, "http://127.0.0.1:7770/a?q=1&q=2");
				(void)kn_func_exact(kn->expect, "\"N/A\"");
			}
		}
	} else if (set != NULL || strlen(err.msg) == 0) {
		__builtin_trap();
	}
	kn_taskset_free(set);
	return 0;
}
