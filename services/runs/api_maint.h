/* api_maint.h — the maintenance loop's routes (services/http/API.md "Maintenance"):
 * apply a repair proposal, edit a key node or a step, and the versions and changelog they leave. */
#ifndef KEYNODE_API_MAINT_H
#define KEYNODE_API_MAINT_H

#include "server.h"
#include "store.h"
#include "store_changes.h"

/* POST /api/tasks/{id}/repairs {"replay": ID, "proposal": N|KEY, "override": false, "reason": "…"}:
 * proposal N (0-based, in the replay report's "repairs") or the one of key node KEY, applied to the
 * task's current version: a key-node proposal makes a new task version, a selector proposal a new
 * workflow version (or task version, for inline steps); logged with req->author, queued for a
 * validation replay. 201; 400 bad body; 404 no task / replay / proposal; 409 not verified without
 * override, no longer applies, nothing changes, or the task changed meanwhile. */
void kn_api_repair_post(kn_store *st, const kn_http_req *req, kn_http_resp *resp);

/* POST /api/tasks/{id}/edits {"key_node": ID | "step": N, "yaml": TEXT, "reason": "…"}: the key node
 * (task-file syntax) or step (workflow-file syntax) replaced, loaded as `keynode validate` loads it
 * (400 "key_node:LINE:COL: …" / "step:LINE:COL: …"); otherwise as repairs. */
void kn_api_edit_post(kn_store *st, const kn_http_req *req, kn_http_resp *resp);

/* A workflow uploaded (POST /api/workflows) for the task ref names, wf being body loaded: the next
 * workflow version with its maintenance-log row (kind workflow, the steps' diff against the
 * workflow it replaces, or the task's inline steps), one transaction (kn_store_change_write; no
 * validation replay is queued). out->created 0: the same text as the latest version. */
int kn_api_workflow_change(kn_store *st, const char *ref, const kn_task *wf, const char *body, size_t len,
                           const char *author, const char *reason, kn_store_change_out *out, kn_err *err);
/* The same with the replay that verified it (replay_results.id, the row's evidence_replay; 0: none):
 * a workflow re-recorded from the dashboard and replayed at once. */
int kn_api_workflow_change_verified(kn_store *st, const char *ref, const kn_task *wf, const char *body, size_t len,
                                    const char *author, const char *reason, int64_t evidence_replay,
                                    kn_store_change_out *out, kn_err *err);

/* GET /api/tasks/{id}/versions (kn_store_task_versions_json). */
void kn_api_versions_get(kn_store *st, const kn_http_req *req, kn_http_resp *resp);

/* GET /api/tasksets/{name}/changelog[?limit=N][&format=md|json]: JSON, or Markdown (format=md or
 * accept holding text/markdown) grouped by day, like a dataset's maintenance log. */
void kn_api_changelog_get(kn_store *st, const kn_http_req *req, kn_http_resp *resp);

/* The Markdown of a changelog JSON (kn_store_taskset_changelog_json's shape); *out the caller's.
 * Exposed for the unit test. KN_EINVAL when log is not that shape. */
int kn_api_changelog_markdown(char **out, json_t *log);

#endif
