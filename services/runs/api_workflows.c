/* api_workflows.c — POST /api/workflows and GET /api/tasks/{id}/workflow (api_workflows.h).
 *
 * The uploaded body is loaded with the same loader as a workflow file on disk
 * (kn_workflow_load_buffer), so a malformed upload gets the same "workflow.yaml:line:col: …"
 * message `keynode validate` prints; the task it is for is the file's own `task:` (qualified by
 * ?taskset=NAME when given) and must exist. A new version is written with its maintenance-log row
 * (author: the token's name, ?reason=TEXT; api_maint.c kn_api_workflow_change) in one transaction. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "api_fail.h"
#include "api_maint.h"
#include "api_workflows.h"
#include "keynode/workflow.h"
#include "store_workflows.h"

#define UPLOAD_NAME "workflow.yaml" /* the file name in error positions */

/* Map a store code to an answer; the message of a database error stays generic. */
void kn_api_workflow_post(kn_store *st, const kn_http_req *req, kn_http_resp *resp)
{
	kn_err err = {0};
	if (req->body_len == 0) {
		kn_http_resp_error(resp, 400, "empty body", "send a workflow file (keynode record)");
		return;
	}
	const char *nul = memchr(req->body, '\0', req->body_len);
	if (nul) { /* YAML has no NUL: say where, as the loader says where */
		size_t line = 1, col = 1;
		for (const char *p = req->body; p < nul; p++)
			line += *p == '\n', col = *p == '\n' ? 1 : col + 1;
		char msg[96];
		snprintf(msg, sizeof msg, "%s:%zu:%zu: a NUL byte", UPLOAD_NAME, line, col);
		kn_http_resp_error(resp, 422, "workflow does not load", msg);
		return;
	}
	const char *set = kn_http_query_get(req->query, "taskset");
	kn_taskset *wf = NULL;
	int rc = kn_workflow_load_buffer(&wf, req->body, req->body_len, UPLOAD_NAME, &err);
	if (rc) {
		kn_http_resp_error(resp, rc == KN_ENOMEM ? 500 : 422, "workflow does not load", err.msg);
		return;
	}
	const kn_task *t = &wf->tasks[0];
	char ref[600];
	if (snprintf(ref, sizeof ref, "%s%s%s", set && *set ? set : "", set && *set ? ":" : "", t->id) >=
	    (int)sizeof ref) {
		kn_taskset_free(wf);
		kn_http_resp_error(resp, 400, "bad request", "task id or taskset name too long");
		return;
	}
	int version = 0, task_version = 0, created = 0;
	const char *reason = kn_http_query_get(req->query, "reason");
	kn_store_change_out out;
	/* a new version goes with its maintenance-log row (api_maint.c); the same text again is
	 * answered with the version it already is */
	rc = kn_api_workflow_change(st, ref, t, req->body, req->body_len, req->author, reason && *reason ? reason : NULL,
	                            &out, &err);
	if (!rc && out.created)
		version = out.workflow_version, task_version = out.task_version, created = 1;
	else if (!rc)
		rc = kn_store_workflow_put(st, ref, t, req->body, req->body_len, &version, &task_version, &created,
		                           &err);
	size_t steps = t->n_steps;
	json_t *j = rc ? NULL : json_pack("{s:s, s:i, s:i, s:I, s:b}", "task", t->id, "version", version,
	                                  "task_version", task_version, "steps", (json_int_t)steps,
	                                  "created", created);
	kn_taskset_free(wf);
	if (rc) {
		kn_api_store_failed(resp, rc, &err, NULL);
		return;
	}
	kn_http_resp_json_value(resp, created ? 201 : 200, j);
}

void kn_api_workflow_get(kn_store *st, const kn_http_req *req, kn_http_resp *resp)
{
	kn_err err = {0};
	char *out = NULL;
	int rc = kn_store_workflow_json(st, req->id, &out, &err);
	if (rc)
		kn_api_store_failed(resp, rc, &err, NULL);
	else
		kn_http_resp_json(resp, 200, out);
}
