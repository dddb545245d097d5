/* store_changes.h — task changes and their maintenance log (schemas/sql/140_task_changes.sql):
 * a new task version or workflow version written together with its log row (author, reason, the
 * replay that verified it, the override flag, the diff) and the validation replay it queues, in
 * one transaction; and the log read back per task and per task set. Same conventions as store.h. */
#ifndef KEYNODE_STORE_CHANGES_H
#define KEYNODE_STORE_CHANGES_H

#include <stddef.h>
#include <stdint.h>

#include "keynode/error.h"
#include "keynode/task.h"
#include "store.h"

/* One change of one task. */
typedef struct kn_store_change {
	int64_t task_id;          /* tasks.id */
	int64_t base_version;     /* task_versions.id the change was made on: it must still be the current
	                           * one (else KN_EBUSY); 0: not checked */
	const char *kind;         /* upload | repair | edit | workflow */
	const char *author;       /* the token's name; NULL: unknown (a task set stored from the command line) */
	const char *reason;       /* NULL: none given */
	int64_t evidence_replay;  /* the replay that verified an applied proposal; 0: none */
	int override;             /* an unverified proposal applied on purpose */
	const kn_task *task;      /* a new task version: the task as it becomes; NULL: none */
	const kn_task *workflow;  /* a new workflow version: its body loaded (steps, viewport, recorded_at) */
	const char *workflow_body; /* … and the body as stored (UTF-8 without NUL) */
	size_t workflow_len;
	const char *wf_before, *wf_after; /* with workflow: the task's definition with the old and the new
	                                   * workflow's steps, for the diff (kn_store_task_json text) */
	int validate;             /* queue a validation replay of the task's new current version */
} kn_store_change;

typedef struct kn_store_change_out {
	int created;              /* 0: nothing changed (the same definition or workflow text), nothing written */
	int64_t change_id;        /* task_changes.id */
	int64_t job;              /* the validation replay's job id; 0: none queued */
	int task_version;         /* the task's version number after the change */
	int workflow_version;     /* the workflow version made; 0: none */
} kn_store_change_out;

/* Write c in one transaction: lock the task, check base_version, insert the task version (through
 * kn_store_task_version_add) or workflow version, the task_changes row with the diff, the validation
 * job, commit. With KN_TEST_CHANGE_PAUSE=FILE in the environment (tests only: the kill -9 test of
 * tests/integration/maintenance.sh) the version is inserted, FILE created and the call sleeps
 * 120 s before the log row, inside the open transaction. */
int kn_store_change_write(kn_store *st, const kn_store_change *c, kn_store_change_out *out, kn_err *err);

/* The log row of a version just inserted (task_version_id) inside the caller's transaction: the diff
 * of before (NULL: the first version) and after (kn_store_task_json text), c's record; *id (may
 * be NULL) the row's id. */
int kn_store_change_log(kn_store *st, const kn_store_change *c, int64_t task_version_id, const char *before,
                        const char *after, int workflow_version, int64_t job, int64_t *id, kn_err *err);

/* The task ref names: its tasks.id, its current task_versions.id and that version's definition
 * (*definition malloc'd, the caller's; NULL to skip). KN_ENOTFOUND: no such task. */
int kn_store_task_current(kn_store *st, const char *ref, int64_t *task_id, int64_t *version_id,
                          char **definition, kn_err *err);

/* GET /api/tasks/{id}/versions as JSON text (*out the caller's): {"task", "taskset",
 * "current_version", "versions": [{version, created, hash, key_nodes, current}], "changes": [CHANGE]}
 * newest first; CHANGE = {id, kind, version, workflow_version, author, reason, evidence_replay,
 * override, created, validation: {job, status}|null, diff}. KN_ENOTFOUND: no such task. */
int kn_store_task_versions_json(kn_store *st, const char *ref, char **out, kn_err *err);

/* GET /api/tasksets/{name}/changelog as JSON text: {"taskset", "changes": [CHANGE + "task"]},
 * newest first, at most limit. KN_ENOTFOUND: no such task set. */
int kn_store_taskset_changelog_json(kn_store *st, const char *name, int limit, char **out, kn_err *err);

/* The report of replay replay_id (replay_results.id) when it is one of the task task_id's replays
 * (any version): *report the caller's. KN_ENOTFOUND otherwise. */
int kn_store_replay_report_of(kn_store *st, int64_t replay_id, int64_t task_id, char **report, kn_err *err);

#endif
