/* fuzz_task_mind2web.c — the Mind2Web-Live JSON loader on arbitrary bytes: any input either
 * loads or fails with an error message; never a crash, leak or hang. A loaded task's sites
 * (keynode/site.h: its reference answers read as hosts, its key nodes' pages) are asked about too:
 * the site it is reported under fits its buffer, a page is asked whether it is the task's own. */
#include <stdint.h>
#include <string.h>

#include "keynode/site.h"
#include "keynode/task.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	kn_taskset *set = NULL;
	kn_err err;
	if (kn_task_load_mind2web(&set, (const char *)data, size, "fuzz.json", NULL, &err) == 0) {
		/* everything loaded must be complete */
		for (size_t t = 0; t < set->n_tasks; t++)
			for (size_t k = 0; k < set->tasks[t].n_keynodes; k++)
				if (!set->tasks[t].keynodes[k].function || !set->tasks[t].keynodes[k].expect)
					__builtin_trap();
		for (size_t t = 0; t < set->n_tasks; t++) {
			const kn_task *task = &set->tasks[t];
			if ((unsigned)kn_task_own_site(task, "https://www.example.com/a") > 1 ||
			    (task->start_url && (unsigned)kn_task_own_site(task, task->start_url) > 1))
				__builtin_trap();
			for (size_t k = 0; k < task->n_keynodes; k++)
				if (task->keynodes[k].ref_url && (unsigned)kn_task_own_site(task, task->keynodes[k].ref_url) > 1)
					__builtin_trap();
			char site[16];
			memset(site, 'x', sizeof site);
			kn_task_site(site, sizeof site, task);
			if (!memchr(site, '\0', sizeof site))
				__builtin_trap();
		}
	} else if (set != NULL || strlen(err.msg) == 0) {
		__builtin_trap();
	}
	kn_taskset_free(set);
	return 0;
}
