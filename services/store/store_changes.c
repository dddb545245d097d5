/* store_changes.c — task changes with their maintenance log (store_changes.h, 140_task_changes.sql).
 * A change is one transaction: the task row is locked (FOR UPDATE) so two changes of one task are
 * serialised and the second sees that its base version is gone; the version, the log row and the
 * validation job are committed together or not at all. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "keynode/clock.h"
#include "keynode/task_change.h"
#include "store_changes.h"
#include "store_internal.h"
#include "store_workflows.h"

int kn_store_change_log(kn_store *st, const kn_store_change *c, int64_t task_version_id, const char *before,
                        const char *after, int workflow_version, int64_t job, int64_t *id, kn_err *err)
{
	json_t *b = before ? json_loads(before, JSON_DECODE_ANY, NULL) : NULL;
	json_t *a = after ? json_loads(after, JSON_DECODE_ANY, NULL) : NULL;
	json_t *diff = NULL;
	int rc = a ? kn_task_diff(&diff, b, a, err) : kn_err_set(err, KN_EINVAL, "no definition to log");
	json_decref(a);
	json_decref(b);
	if (rc)
		return rc;
	char *text = json_dumps(diff, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(diff);
	if (!text)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	char tb[24], vb[24], wb[24], eb[24], jb[24];
	const char *p[10] = {kn_store_i64(tb, c->task_id), c->kind, kn_store_i64(vb, task_version_id),
	                     workflow_version ? kn_store_i64(wb, workflow_version) : NULL, c->author, c->reason,
	                     c->evidence_replay ? kn_store_i64(eb, c->evidence_replay) : NULL,
	                     c->override ? "true" : "false", text, job ? kn_store_i64(jb, job) : NULL};
	int64_t row = 0;
	rc = kn_store_q_int64(st, &row,
		"INSERT INTO task_changes (task_id, kind, task_version, workflow_version, author, reason,"
		" evidence_replay, override, diff, validation_job)"
		" VALUES ($1, $2, $3, $4::int, $5, $6, $7, $8::boolean, $9::json, $10) RETURNING id", 10, p, err);
	free(text);
	if (id)
		*id = row;
	return rc;
}

/* The test hook of the kill -9 test (store_changes.h): a file says "paused", then a long sleep. */
static void test_pause(void)
{
	const char *f = getenv("KN_TEST_CHANGE_PAUSE");
	if (!f || !*f)
		return;
	FILE *fp = fopen(f, "w");
	if (fp)
		fclose(fp);
	kn_time_sleep_ms(120000);
}

int kn_store_change_write(kn_store *st, const kn_store_change *c, kn_store_change_out *out, kn_err *err)
{
	memset(out, 0, sizeof *out);
	if (!c->task == !c->workflow)
		return kn_err_set(err, KN_EINVAL, "a change is a task version or a workflow version");
	char tb[24];
	kn_store_i64(tb, c->task_id);
	int rc = kn_store_begin(st, err);
	if (rc)
		return rc;
	int64_t cur = 0, vid = 0;
	char *before = NULL, *after = NULL;
	const char *p1[1] = {tb};
	if ((rc = kn_store_q_int64(st, &cur, "SELECT current_version FROM tasks WHERE id = $1 FOR UPDATE", 1, p1,
	                           err)))
		goto fail;
	if (c->base_version && cur != c->base_version) {
		rc = kn_err_set(err, KN_EBUSY, "the task changed meanwhile (another version is current): reload it and "
		                "try again");
		goto fail;
	}
	int wfv = 0, wf_tv = 0, created = 0;
	if (c->task) {
		if ((rc = kn_store_task_version_add(st, c->task_id, c->task, &vid, &before, &after, err)))
			goto fail;
		created = vid != 0;
	} else {
		vid = cur;
		if ((rc = kn_store_workflow_put_task(st, c->task_id, c->workflow, c->workflow_body, c->workflow_len, &wfv,
		                                     &wf_tv, &created, err)))
			goto fail;
	}
	if (!created) { /* the same definition or text: nothing to log, nothing to check */
		kn_store_rollback(st);
		free(before), free(after);
		return 0;
	}
	test_pause();
	int64_t job = 0;
	if (c->validate && (rc = kn_store_job_enqueue(st, vid, "", &job, err)))
		goto fail;
	if ((rc = kn_store_change_log(st, c, vid, c->task ? before : c->wf_before, c->task ? after : c->wf_after,
	                              c->task ? 0 : wfv, job, &out->change_id, err)))
		goto fail;
	char vb[24];
	const char *pv[1] = {kn_store_i64(vb, vid)};
	int64_t number = 0;
	if ((rc = kn_store_q_int64(st, &number, "SELECT version FROM task_versions WHERE id = $1", 1, pv, err)))
		goto fail;
	if ((rc = kn_store_commit(st, err)))
		goto fail;
	free(before), free(after);
	out->created = 1;
	out->job = job;
	out->task_version = (int)number;
	out->workflow_version = wfv;
	return 0;
fail:
	kn_store_rollback(st);
	free(before), free(after);
	return rc;
}

int kn_store_task_current(kn_store *st, const char *ref, int64_t *task_id, int64_t *version_id,
                          char **definition, kn_err *err)
{
	*task_id = 0;
	if (definition)
		*definition = NULL;
	int rc = kn_store_task_resolve(st, ref, version_id, err);
	if (rc)
		return rc;
	char vb[24];
	const char *p[1] = {kn_store_i64(vb, *version_id)};
	PGresult *res;
	if ((rc = kn_store_q(st, &res, "SELECT task_id, definition::text FROM task_versions WHERE id = $1", 1, p, err)))
		return rc;
	if (PQntuples(res) != 1) {
		PQclear(res);
		return kn_err_set(err, KN_ENOTFOUND, "no task '%s'", ref);
	}
	*task_id = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
	if (definition && !(*definition = strdup(PQgetvalue(res, 0, 1))))
		rc = kn_err_set(err, KN_ENOMEM, "out of memory");
	PQclear(res);
	return rc;
}

/* One change row c (of task_changes) as the CHANGE object, v its task version. */
#define KN_CHANGE_JSON                                                                                     \
	"json_build_object('id', c.id, 'kind', c.kind, 'version', v.version, 'workflow_version',"             \
	" c.workflow_version, 'author', c.author, 'reason', c.reason, 'evidence_replay', c.evidence_replay,"  \
	" 'override', c.override, 'created', kn_ts(c.created), 'validation', (SELECT json_build_object("       \
	"  'job', j.id, 'status', COALESCE(r.status, j.state)) FROM jobs j LEFT JOIN replay_results r"         \
	"  ON r.id = j.replay_id WHERE j.id = c.validation_job), 'diff', c.diff)"

int kn_store_task_versions_json(kn_store *st, const char *ref, char **out, kn_err *err)
{
	*out = NULL;
	int64_t task_id, vid;
	int rc = kn_store_task_current(st, ref, &task_id, &vid, NULL, err);
	if (rc)
		return rc;
	char tb[24];
	const char *p[1] = {kn_store_i64(tb, task_id)};
	return kn_store_q_text(st, out,
		"SELECT json_build_object('task', t.task_key, 'taskset', s.name, 'current_version', cv.version,"
		" 'versions', COALESCE((SELECT json_agg(json_build_object('version', v.version, 'created',"
		"   kn_ts(v.created), 'hash', v.hash, 'key_nodes', v.key_nodes, 'current', v.id = t.current_version)"
		"   ORDER BY v.version DESC) FROM task_versions v WHERE v.task_id = t.id), '[]'::json),"
		" 'changes', COALESCE((SELECT json_agg(" KN_CHANGE_JSON " ORDER BY c.id DESC)"
		"   FROM task_changes c JOIN task_versions v ON v.id = c.task_version WHERE c.task_id = t.id),"
		"   '[]'::json))::text"
		" FROM tasks t JOIN tasksets s ON s.id = t.taskset_id JOIN task_versions cv ON cv.id = t.current_version"
		" WHERE t.id = $1",
		1, p, err);
}

int kn_store_taskset_changelog_json(kn_store *st, const char *name, int limit, char **out, kn_err *err)
{
	*out = NULL;
	char lb[24];
	const char *p[2] = {name, kn_store_i64(lb, limit)};
	int rc = kn_store_q_text(st, out,
		"SELECT json_build_object('taskset', s.name, 'changes', COALESCE((SELECT json_agg(x.o ORDER BY x.id DESC)"
		"  FROM (SELECT c.id, kn_json_merge(json_build_object('task', t.task_key), " KN_CHANGE_JSON ") AS o"
		"   FROM task_changes c JOIN tasks t ON t.id = c.task_id JOIN task_versions v ON v.id = c.task_version"
		"   WHERE t.taskset_id = s.id ORDER BY c.id DESC LIMIT $2::int) x), '[]'::json))::text"
		" FROM tasksets s WHERE s.name = $1",
		2, p, err);
	if (rc == KN_ENOTFOUND)
		return kn_err_set(err, KN_ENOTFOUND, "no task set '%s'", name);
	return rc;
}

int kn_store_replay_report_of(kn_store *st, int64_t replay_id, int64_t task_id, char **report, kn_err *err)
{
	char rb[24], tb[24];
	const char *p[2] = {kn_store_i64(rb, replay_id), kn_store_i64(tb, task_id)};
	int rc = kn_store_q_text(st, report,
		"SELECT r.report::text FROM replay_results r JOIN task_versions v ON v.id = r.task_version"
		" WHERE r.id = $1::bigint AND v.task_id = $2::bigint", 2, p, err);
	if (rc == KN_ENOTFOUND)
		return kn_err_set(err, KN_ENOTFOUND, "no replay %s of this task", rb);
	return rc;
}
