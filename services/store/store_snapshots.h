/* store_snapshots.h — task-set snapshots and rescores (and 5;
 * schemas/sql/150_snapshots.sql). A snapshot is one state of a task set: the current version of
 * each active task and a hash over them, taken by the database itself at the commit of anything
 * that changes a task's current version, so every path that makes a version is covered. A rescore
 * is a stored run scored again, from its stored events, against another task version; the run's own
 * result is never changed. */
#ifndef KN_STORE_SNAPSHOTS_H
#define KN_STORE_SNAPSHOTS_H

#include <stddef.h>
#include <stdint.h>

#include "keynode/event.h"
#include "store.h"

/* A snapshot as the API shows it (SNAPSHOT in services/http/API.md). */
typedef struct kn_store_snapshot {
	int64_t id;
	int version;      /* 1, 2, … within its set */
	char hash[65];
	char taskset[129];
} kn_store_snapshot;

/* The snapshot of task set `taskset` that ref names: a version number ("3"), "latest" / NULL (the
 * newest), or its hash (64 hex digits, or a prefix of 8 or more). KN_ENOTFOUND when the set or the
 * snapshot does not exist, KN_EINVAL for a ref that is none of these. */
int kn_store_snapshot_find(kn_store *st, const char *taskset, const char *ref, kn_store_snapshot *out,
                           kn_err *err);
/* The snapshot with id `id` (KN_ENOTFOUND when none). */
int kn_store_snapshot_get(kn_store *st, int64_t id, kn_store_snapshot *out, kn_err *err);
/* {"id", "taskset", "version", "hash"} of s: the SNAPSHOT_REF of the API answers, the caller's
 * (json_decref; NULL when out of memory). */
struct json_t *kn_store_snapshot_ref(const kn_store_snapshot *s);

/* GET /api/tasksets/{name}/snapshots: {"taskset", "snapshots": [SNAPSHOT…]} newest first, each
 * with the tasks whose version changed since the snapshot before it. *out the caller's;
 * KN_ENOTFOUND when there is no such set. */
int kn_store_snapshots_json(kn_store *st, const char *taskset, char **out, kn_err *err);

/* The version id of task ref (TASK, or TASKSET:TASK) in snapshot `snapshot`: what a run pinned to
 * that snapshot runs against. KN_ENOTFOUND when the snapshot does not hold the task. */
int kn_store_snapshot_task_version(kn_store *st, int64_t snapshot, const char *ref, int64_t *version,
                                   kn_err *err);

/* The runs a rescore from snapshot `from` to snapshot `to` (same set) takes next: finished runs
 * whose task version is the one `from` holds for their task, whose events are kept and that have no
 * rescore on the version `to` holds yet, oldest first, at most limit. As JSON text (*out the
 * caller's): {"runs": [{"run", "task", "kind", "from_version", "to_version", "from_v", "to_v",
 * "key_nodes_same", "score", "completion"}…], "remaining": N (those left after these),
 * "pruned": [run ids whose events retention deleted]}. */
int kn_store_rescore_plan_json(kn_store *st, int64_t from, int64_t to, int limit, char **out, kn_err *err);

/* The stored events of run_id, parsed (kn_event_parse), in seq order; *events the caller's
 * (kn_traj_events_free). A line that does not parse is KN_EINVAL naming its seq. */
int kn_store_run_events(kn_store *st, const char *run_id, kn_event **events, size_t *n, kn_err *err);

/* Store the rescore of run_id on task_version: result_json is the run result (docs/formats.md
 * §3) its columns are read from; a rescore already there for that pair is replaced. */
int kn_store_rescore_put(kn_store *st, const char *run_id, int64_t task_version, const char *result_json,
                         kn_err *err);

#endif
