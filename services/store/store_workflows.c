/* store_workflows.c — versioned reference workflows per task (store_workflows.h, 040_workflows.sql).
 * A version is inserted only when the text differs from the task's latest one (sha256 compared in
 * the database, as task versions are), so a retried or repeated upload is a no-op. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"
#include "store_workflows.h"

/* The task id (tasks.id) of the task ref names, as decimal text into buf (24 bytes). */
static int task_of(kn_store *st, const char *ref, char *buf, kn_err *err)
{
	int64_t version_id = 0, task_id = 0;
	int rc = kn_store_task_resolve(st, ref, &version_id, err);
	if (rc)
		return rc;
	char v[24];
	const char *p[1] = {kn_store_i64(v, version_id)};
	rc = kn_store_q_int64(st, &task_id, "SELECT task_id FROM task_versions WHERE id = $1", 1, p, err);
	if (rc == KN_ENOTFOUND)
		return kn_err_set(err, KN_ENOTFOUND, "no task '%s'", ref);
	if (rc)
		return rc;
	kn_store_i64(buf, task_id);
	return 0;
}

int kn_store_workflow_put(kn_store *st, const char *task_ref, const kn_task *wf, const char *body,
                          size_t len, int *version, int *task_version, int *created, kn_err *err)
{
	*version = *task_version = *created = 0;
	char task[24];
	int rc = task_of(st, task_ref, task, err);
	if (rc)
		return rc;
	return kn_store_workflow_put_task(st, strtoll(task, NULL, 10), wf, body, len, version, task_version,
	                                  created, err);
}

int kn_store_workflow_put_task(kn_store *st, int64_t task_id, const kn_task *wf, const char *body, size_t len,
                               int *version, int *task_version, int *created, kn_err *err)
{
	*version = *task_version = *created = 0;
	if (!wf || !body)
		return kn_err_set(err, KN_EINVAL, "no workflow");
	char task[24], steps[24], viewport[32];
	int rc;
	kn_store_i64(task, task_id);
	snprintf(steps, sizeof steps, "%zu", wf->n_steps);
	if (wf->viewport_w > 0)
		snprintf(viewport, sizeof viewport, "%dx%d", wf->viewport_w, wf->viewport_h);
	char *text = strndup(body, len);
	if (!text)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	const char *p[5] = {task, wf->recorded_at, steps, wf->viewport_w > 0 ? viewport : NULL, text};
	PGresult *res = NULL;
	rc = kn_store_q(st, &res,
		"WITH t AS (SELECT id, current_version FROM tasks WHERE id = $1),"
		" h AS (SELECT encode(sha256(convert_to($5, 'UTF8')), 'hex') AS hash),"
		" prev AS (SELECT w.version, w.hash, w.task_version FROM task_workflows w"
		"          WHERE w.task_id = $1 ORDER BY w.version DESC LIMIT 1),"
		" ins AS (INSERT INTO task_workflows (task_id, version, task_version, recorded_at, steps,"
		"                                     viewport, hash, body)"
		"         SELECT t.id, COALESCE((SELECT version FROM prev), 0) + 1, t.current_version, $2,"
		"                $3::int, $4, h.hash, $5 FROM t, h"
		"         WHERE NOT EXISTS (SELECT 1 FROM prev WHERE prev.hash = h.hash)"
		"         RETURNING version, task_version)"
		" SELECT COALESCE((SELECT version FROM ins), (SELECT version FROM prev)),"
		"        (SELECT tv.version FROM task_versions tv"
		"         WHERE tv.id = COALESCE((SELECT task_version FROM ins), (SELECT task_version FROM prev))),"
		"        (SELECT count(*) FROM ins)",
		5, p, err);
	free(text);
	if (rc)
		return rc;
	if (PQntuples(res) == 1 && !PQgetisnull(res, 0, 0)) {
		*version = atoi(PQgetvalue(res, 0, 0));
		*task_version = atoi(PQgetvalue(res, 0, 1));
		*created = atoi(PQgetvalue(res, 0, 2)) > 0;
	} else {
		rc = kn_err_set(err, KN_EDB, "the workflow was not stored");
	}
	PQclear(res);
	return rc;
}

int kn_store_workflow_json(kn_store *st, const char *task_ref, char **out, kn_err *err)
{
	*out = NULL;
	char task[24];
	int rc = task_of(st, task_ref, task, err);
	if (rc)
		return rc;
	const char *p[1] = {task};
	return kn_store_q_text(st, out,
		"SELECT json_build_object('task', t.task_key, 'task_version', cv.version,"
		" 'versions', COALESCE((SELECT json_agg(json_build_object('version', w.version,"
		"     'task_version', tv.version, 'current', w.task_version = t.current_version,"
		"     'recorded_at', w.recorded_at, 'uploaded', kn_ts(w.uploaded), 'steps', w.steps,"
		"     'viewport', w.viewport) ORDER BY w.version DESC)"
		"   FROM task_workflows w JOIN task_versions tv ON tv.id = w.task_version"
		"   WHERE w.task_id = t.id), '[]'::json),"
		" 'body', (SELECT w.body FROM task_workflows w WHERE w.task_id = t.id"
		"          ORDER BY w.version DESC LIMIT 1))::text"
		" FROM tasks t JOIN task_versions cv ON cv.id = t.current_version WHERE t.id = $1",
		1, p, err);
}

int kn_store_workflow_latest(kn_store *st, int64_t task_version, kn_store_workflow *out, kn_err *err)
{
	memset(out, 0, sizeof *out);
	char v[24];
	const char *p[1] = {kn_store_i64(v, task_version)};
	PGresult *res = NULL;
	int rc = kn_store_q(st, &res,
		"SELECT w.version, tv.version, w.recorded_at, w.body FROM task_versions cur"
		" JOIN task_workflows w ON w.task_id = cur.task_id"
		" JOIN task_versions tv ON tv.id = w.task_version"
		" WHERE cur.id = $1 ORDER BY w.version DESC LIMIT 1",
		1, p, err);
	if (rc)
		return rc;
	if (PQntuples(res) != 1) {
		PQclear(res);
		return KN_ENOTFOUND;
	}
	out->version = atoi(PQgetvalue(res, 0, 0));
	out->task_version = atoi(PQgetvalue(res, 0, 1));
	if (!PQgetisnull(res, 0, 2))
		snprintf(out->recorded_at, sizeof out->recorded_at, "%s", PQgetvalue(res, 0, 2));
	out->len = (size_t)PQgetlength(res, 0, 3);
	out->body = malloc(out->len + 1);
	if (out->body)
		memcpy(out->body, PQgetvalue(res, 0, 3), out->len + 1);
	PQclear(res);
	return out->body ? 0 : kn_err_set(err, KN_ENOMEM, "out of memory");
}
