/* worker_workflow.c — the reference workflow a replay job drives (worker_workflow.h): the
 * worker's --workflows file, else the newest workflow uploaded through the API, else the task's
 * inline steps. */
#include "worker_workflow.h"

#include <stdio.h>
#include <stdlib.h>

#include <jansson.h>

#include "keynode/workflow.h"
#include "store.h"
#include "store_workflows.h"

/* The stored workflow wf applied to t; *doc its description. */
static int apply_stored(kn_task *t, const kn_store_workflow *wf, json_t **doc, kn_err *err)
{
	char name[64];
	snprintf(name, sizeof name, "stored workflow version %d", wf->version);
	kn_taskset *set = NULL;
	int rc = kn_workflow_load_buffer(&set, wf->body, wf->len, name, err);
	if (rc == 0) {
		rc = kn_workflow_apply(t, &set->tasks[0], name, err);
		kn_taskset_free(set);
	}
	if (rc)
		return rc == KN_ENOMEM ? rc : KN_EINVAL;
	*doc = json_pack("{s:s, s:i, s:i}", "source", "stored", "version", wf->version, "task_version",
	                 wf->task_version);
	if (*doc && wf->recorded_at[0])
		json_object_set_new(*doc, "recorded_at", json_string(wf->recorded_at));
	return 0;
}

int kn_worker_workflow_pick(kn_worker *w, kn_task *t, int64_t task_version, const char *dir, char **json,
                            kn_err *err)
{
	*json = NULL;
	json_t *doc = NULL;
	int attached = 0, rc = 0;
	if (dir && (rc = kn_workflow_attach_task(t, dir, &attached, err)) != 0)
		return rc;
	if (attached) {
		doc = json_pack("{s:s, s:s}", "source", "file", "file", t->workflow_file);
	} else {
		kn_store_workflow wf;
		rc = kn_store_workflow_latest(kn_worker_store(w), task_version, &wf, err);
		if (rc == 0) {
			rc = apply_stored(t, &wf, &doc, err);
			free(wf.body);
			if (rc)
				return rc;
			kn_worker_log(w, "info", "replaying the stored workflow", "task=%s workflow_version=%d", t->id,
			              wf.version);
		} else if (rc == KN_ENOTFOUND && t->n_steps == 0) { /* an error result at once, not a retry */
			return kn_err_set(err, KN_EINVAL, "no steps to replay: the task has no inline steps and no workflow "
			                  "was uploaded (POST /api/workflows)%s", dir ? " or is in --workflows" : "");
		} else if (rc == KN_ENOTFOUND) {
			doc = json_pack("{s:s}", "source", "inline");
		} else {
			return rc;
		}
	}
	*json = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
	json_decref(doc);
	return *json ? 0 : kn_err_set(err, KN_ENOMEM, "out of memory");
}
