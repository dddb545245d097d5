/* task_change.h — the pieces of a task change made from the service: a key node or a
 * workflow step written alone, in task-file syntax, loaded by the same loaders `keynode validate`
 * uses (so an error says snippet:LINE:COL of the snippet itself), and the difference between two
 * stored definitions (kn_store_task_json's shape) as the maintenance log keeps it. Pure: no I/O. */
#ifndef KEYNODE_TASK_CHANGE_H
#define KEYNODE_TASK_CHANGE_H

#include <stddef.h>

#include <jansson.h>

#include "keynode/task.h"

#define KN_SNIPPET_MAX (64u * 1024u) /* bytes of one key node or step */

/* One key node in native task-file syntax ("url: {include: /x}", optionally "id: k2" and a
 * leading "- "), len bytes. On success *out is the caller's (kn_taskset_free): one task with
 * exactly one key node (prepared: a regex compiled). KN_EINVAL with "key_node:LINE:COL: …" (the
 * snippet's own lines and columns), KN_ELIMIT past KN_SNIPPET_MAX. */
int kn_keynode_from_snippet(kn_taskset **out, const char *yaml, size_t len, kn_err *err);

/* One workflow step in workflow-file syntax ("click: {selector: '#go'}" and optionally its
 * "after: {…}" line, optionally a leading "- ") for the task task_id: selectors checked as a
 * workflow file's are. On success *out is the caller's: one task with exactly one step. Errors as
 * above, "step:LINE:COL: …". */
int kn_step_from_snippet(kn_taskset **out, const char *task_id, const char *yaml, size_t len, kn_err *err);

/* What changed from before to after (definitions as kn_store_task_json writes them; before NULL:
 * the first version): {"key_nodes": [{"id", "before", "after"}…], "steps": [{"step", "before",
 * "after"}…]} listing only the key nodes (paired by id, in after's order, then the removed ones)
 * and steps (paired by position, numbered from 1) that differ; a missing side is null. Also
 * "fields": the names of the other top-level members that differ (intent, start_url, …). *out is
 * the caller's. KN_EINVAL when a side is not an object, KN_ENOMEM. */
int kn_task_diff(json_t **out, json_t *before, json_t *after, kn_err *err);

#endif
