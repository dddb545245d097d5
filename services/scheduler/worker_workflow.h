/* worker_workflow.h — which reference workflow a replay job of `keynode worker` drives.
 *
 * A task version may carry inline steps (a native YAML task, or a task file uploaded to a
 * `keynode serve --workflows DIR`); a maintainer may have uploaded workflows for the task through
 * the API (POST /api/workflows, versioned in PostgreSQL: store_workflows.h); the worker itself may
 * have been started with `--workflows DIR`. Precedence, most specific first:
 *   1. DIR/<task-id>.yaml of the worker's --workflows, when that file exists (the operator of this
 *      worker said so on its command line);
 *   2. the task's newest workflow uploaded through the API (whatever task version it was recorded
 *      against: the report says which);
 *   3. the task version's inline steps.
 * A workflow replaces the inline steps entirely (as a workflow file beside a task file does). */
#ifndef KEYNODE_WORKER_WORKFLOW_H
#define KEYNODE_WORKER_WORKFLOW_H

#include <stdint.h>

#include "keynode/error.h"
#include "keynode/task.h"
#include "worker.h"

/* Give task t (of task version task_version, tasks_versions.id) the steps it is to replay, by the
 * precedence above (dir NULL: no --workflows), and say which in *json (malloc'd, the caller's):
 * the report's "workflow" object, {"source": "file", "file"} | {"source": "stored", "version",
 * "task_version", "recorded_at"?} | {"source": "inline"}. A malformed file or stored workflow, or
 * no steps from any source, is KN_EINVAL with err saying which and where (the job's result is an
 * error at once); KN_EIO when the database connection was lost, KN_EDB when a query failed. */
int kn_worker_workflow_pick(kn_worker *w, kn_task *t, int64_t task_version, const char *dir, char **json,
                            kn_err *err);

#endif
