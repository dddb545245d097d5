/* api_workflows.h — the workflow routes of services/http/API.md ("Reference workflows"):
 * POST /api/workflows uploads a reference workflow (keynode record's YAML) for the task its `task:`
 * names; GET /api/tasks/{id}/workflow lists the task's workflow versions. Called by kn_api_handle. */
#ifndef KEYNODE_API_WORKFLOWS_H
#define KEYNODE_API_WORKFLOWS_H

#include "server.h"
#include "store.h"

/* POST /api/workflows[?taskset=NAME]: the body is one workflow file. 201 {task, version,
 * task_version, steps, created: true} for a new version, 200 (created false) when the text equals
 * the task's latest; 400 empty body; 422 with "file:line:col: …" when it does not load (malformed
 * YAML, an unknown key, an invalid selector); 404 no such task; 503/500 store errors. */
void kn_api_workflow_post(kn_store *st, const kn_http_req *req, kn_http_resp *resp);

/* GET /api/tasks/{id}/workflow: kn_store_workflow_json's answer (200), 404 no such task. */
void kn_api_workflow_get(kn_store *st, const kn_http_req *req, kn_http_resp *resp);

#endif
