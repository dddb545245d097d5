/* store_workflows.h — reference workflows uploaded through the API (POST /api/workflows), kept in
 * PostgreSQL (schemas/sql/040_workflows.sql): per task, numbered versions of the workflow YAML,
 * each with the task version it was recorded against (the task's current version at upload), the
 * file's recorded_at, its step count and viewport. Same conventions as store.h. */
#ifndef KEYNODE_STORE_WORKFLOWS_H
#define KEYNODE_STORE_WORKFLOWS_H

#include <stddef.h>
#include <stdint.h>

#include "keynode/error.h"
#include "keynode/task.h"
#include "store.h"

/* Store body (len bytes of UTF-8 without NUL, the YAML as uploaded) as the next workflow version
 * of the task task_ref names (kn_store_task_resolve: "set:id" or an id), wf being that body loaded
 * (kn_workflow_load_buffer: its steps, viewport and recorded_at are kept in columns). The text of
 * the task's latest version again is no new version (*created 0). *version is the workflow
 * version, *task_version the task's version number it is recorded against. KN_ENOTFOUND: no such
 * task. */
int kn_store_workflow_put(kn_store *st, const char *task_ref, const kn_task *wf, const char *body,
                          size_t len, int *version, int *task_version, int *created, kn_err *err);

/* Same for the task whose tasks.id is task_id (inside the caller's transaction: store_changes.c). */
int kn_store_workflow_put_task(kn_store *st, int64_t task_id, const kn_task *wf, const char *body, size_t len,
                               int *version, int *task_version, int *created, kn_err *err);

/* The workflows of the task task_ref names as JSON text (*out, malloc'd, the caller's):
 * {"task", "task_version" (its current version number), "versions": [{version, task_version,
 * current (recorded against the current task version), recorded_at, uploaded, steps, viewport}]
 * newest first, "body" (the latest YAML, null when none)}. KN_ENOTFOUND: no such task. */
int kn_store_workflow_json(kn_store *st, const char *task_ref, char **out, kn_err *err);

/* The newest workflow version of a task, as kn_store_workflow_latest finds it. */
typedef struct kn_store_workflow {
	int version;           /* the workflow's version (1, 2, ...) */
	int task_version;      /* the task's version number it was recorded against */
	char recorded_at[64];  /* the file's recorded_at, "" when it does not say */
	char *body;            /* the YAML as uploaded (malloc'd, NUL-terminated, the caller's: free) */
	size_t len;
} kn_store_workflow;

/* The newest workflow uploaded for the task whose version task_version (task_versions.id) is,
 * whichever task version it was recorded against: what a replay worker drives. KN_ENOTFOUND
 * when the task has none (out zeroed). */
int kn_store_workflow_latest(kn_store *st, int64_t task_version, kn_store_workflow *out, kn_err *err);

#endif
