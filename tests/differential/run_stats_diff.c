/* run_stats_diff.c — the keynode side of the run-statistics differential test
 * (run_stats_diff.py): writes DIR/summary.json for a `keynode run` folder the test generated, with
 * exactly what `keynode run` calls at its end (services/cli/cmd_run.c): the attempts read back
 * with kn_rundir_load, counted with kn_run_totals_count, the plan described with
 * kn_run_task_describe (sites, content hashes) and kn_run_summary_write. The Python side checks
 * every number of that summary.json against its own implementation.
 *
 * usage: run_stats_diff DIR TASKFILE K [AGENT_NAME]   (exit 0 written, 1 failed) */
#include <stdio.h>
#include <stdlib.h>

#include "keynode/task.h"
#include "rundir.h"
#include "summary.h"
#include "task_digest.h"

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: run_stats_diff DIR TASKFILE K [AGENT_NAME]\n");
		return 2;
	}
	int k = atoi(argv[3]), rc = 1;
	kn_taskset *set = NULL;
	kn_rundir *d = NULL;
	kn_run_task *plan = NULL;
	kn_err err = {0};
	char sha[65];
	if (k < 1 || kn_taskset_load_file(&set, argv[2], NULL, &err) != 0 || kn_rundir_load(&d, argv[1], &err) != 0 ||
	    kn_sha256_file_hex(sha, argv[2], &err) != 0 || !(plan = calloc(set->n_tasks + 1, sizeof *plan))) {
		fprintf(stderr, "run_stats_diff: %s\n", err.msg[0] ? err.msg : "bad K or out of memory");
		goto done;
	}
	for (size_t i = 0; i < set->n_tasks; i++)
		kn_run_task_describe(&plan[i], &set->tasks[i]);
	kn_run_meta meta = {.tasks = plan, .n_tasks = set->n_tasks, .agent = "generated",
	                    .agent_name = argc > 4 ? argv[4] : NULL, .tasks_file = argv[2],
	                    .tasks_sha256 = sha, .started = "2026-11-27T10:00:00Z",
	                    .finished = "2026-11-27T11:00:00Z"};
	kn_run_totals t = {0};
	kn_run_totals_count(&t, d->rows, d->n_rows, set->n_tasks * (size_t)k);
	if (kn_run_summary_write(d->rows, d->n_rows, &t, k, &meta, argv[1], NULL, &err) != 0)
		fprintf(stderr, "run_stats_diff: %s\n", err.msg);
	else
		rc = 0;
done:
	free(plan);
	kn_rundir_free(d);
	kn_taskset_free(set);
	return rc;
}
