/* store_recordings.c — workflows re-recorded from the dashboard (store_recordings.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_changes.h"
#include "store_internal.h"
#include "store_recordings.h"

#define RECORDING_JSON                                                                                   \
	"json_build_object('id', r.id, 'run', 'rec-' || r.id, 'task', r.task_ref, 'task_version', v.version,"  \
	" 'state', r.state, 'want', r.want, 'worker', r.worker, 'author', r.author, 'reason', r.reason,"      \
	" 'steps', r.steps, 'workflow_version', r.workflow_version, 'replay', r.replay, 'replay_status',"     \
	" r.replay_status, 'detail', r.detail, 'created', kn_ts(r.created), 'started', kn_ts(r.started),"      \
	" 'ended', kn_ts(r.ended))"

int kn_store_recording_new(kn_store *st, const char *ref, const char *author, const char *reason, int64_t *id,
                           kn_err *err)
{
	*id = 0;
	int64_t task_id = 0, vid = 0;
	int rc = kn_store_task_current(st, ref, &task_id, &vid, NULL, err);
	if (rc)
		return rc;
	char tb[24], vb[24];
	const char *p[5] = {kn_store_i64(tb, task_id), kn_store_i64(vb, vid), ref, author, reason};
	return kn_store_q_int64(st, id, "INSERT INTO recordings (task_id, task_version, task_ref, author, reason)"
	                        " VALUES ($1, $2, $3, $4, $5) RETURNING id", 5, p, err);
}

/* a recording whose worker has not polled for 15 s */
#define STALE "(state = 'recording' AND COALESCE(polled, started) < clock_timestamp() - interval '15 seconds')"

int kn_store_recording_want(kn_store *st, int64_t id, const char *want, char **state, kn_err *err)
{
	*state = NULL;
	char ib[24];
	const char *p[2] = {kn_store_i64(ib, id), want};
	/* a queued recording cancelled ends here; one recording takes the request; a finish before any
	 * worker claimed it has nothing to finish; a recording whose worker stopped polling 15 s ago (it
	 * died: nobody else holds its page) ends here too */
	int rc = kn_store_q_text(st, state,
		"UPDATE recordings SET want = $2,"
		" state = CASE WHEN state = 'queued' THEN 'cancelled' WHEN " STALE " THEN"
		"  CASE WHEN $2 = 'cancel' THEN 'cancelled' ELSE 'failed' END ELSE state END,"
		" ended = CASE WHEN state = 'queued' OR " STALE " THEN clock_timestamp() ELSE ended END,"
		" detail = CASE WHEN state = 'queued' THEN 'cancelled before a worker took it'"
		"  WHEN " STALE " THEN 'its worker stopped answering' ELSE detail END"
		" WHERE id = $1 AND (state = 'recording' OR (state = 'queued' AND $2 = 'cancel')) RETURNING state",
		2, p, err);
	if (rc != KN_ENOTFOUND)
		return rc;
	char *now = NULL;
	rc = kn_store_q_text(st, &now, "SELECT state FROM recordings WHERE id = $1", 1, p, err);
	if (rc)
		return rc == KN_ENOTFOUND ? kn_err_set(err, KN_ENOTFOUND, "no recording %lld", (long long)id) : rc;
	rc = kn_err_set(err, KN_EBUSY, "recording %lld is %s", (long long)id, now);
	free(now);
	return rc;
}

int kn_store_recording_json(kn_store *st, int64_t id, char **out, kn_err *err)
{
	char ib[24];
	const char *p[1] = {kn_store_i64(ib, id)};
	int rc = kn_store_q_text(st, out, "SELECT " RECORDING_JSON " FROM recordings r JOIN task_versions v"
	                         " ON v.id = r.task_version WHERE r.id = $1", 1, p, err);
	return rc == KN_ENOTFOUND ? kn_err_set(err, KN_ENOTFOUND, "no recording %lld", (long long)id) : rc;
}

int kn_store_recordings_json(kn_store *st, const char *ref, char **out, kn_err *err)
{
	int64_t task_id = 0, vid = 0;
	int rc = kn_store_task_current(st, ref, &task_id, &vid, NULL, err);
	if (rc)
		return rc;
	char tb[24];
	const char *p[2] = {kn_store_i64(tb, task_id), ref};
	return kn_store_q_text(st, out,
		"SELECT json_build_object('task', $2::text, 'recordings', COALESCE((SELECT json_agg(x.j ORDER BY x.id DESC)"
		" FROM (SELECT r.id, " RECORDING_JSON " AS j FROM recordings r JOIN task_versions v ON v.id = r.task_version"
		" WHERE r.task_id = $1 ORDER BY r.id DESC LIMIT 50) x), '[]'::json))", 2, p, err);
}

int kn_store_recording_claim(kn_store *st, const char *worker, kn_store_recording *out, kn_err *err)
{
	memset(out, 0, sizeof *out);
	const char *p[1] = {worker};
	PGresult *res;
	int rc = kn_store_q(st, &res,
		"UPDATE recordings SET state = 'recording', worker = $1, started = clock_timestamp() WHERE id ="
		" (SELECT id FROM recordings WHERE state = 'queued' ORDER BY id FOR UPDATE SKIP LOCKED LIMIT 1)"
		" RETURNING id, task_version, task_ref, author, reason", 1, p, err);
	if (rc)
		return rc;
	if (PQntuples(res) != 1) {
		PQclear(res);
		return 0;
	}
	out->id = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
	out->task_version = strtoll(PQgetvalue(res, 0, 1), NULL, 10);
	out->task_ref = strdup(PQgetvalue(res, 0, 2));
	out->author = PQgetisnull(res, 0, 3) ? NULL : strdup(PQgetvalue(res, 0, 3));
	out->reason = PQgetisnull(res, 0, 4) ? NULL : strdup(PQgetvalue(res, 0, 4));
	PQclear(res);
	if (!out->task_ref) {
		kn_store_recording_clear(out);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	return 1;
}

void kn_store_recording_clear(kn_store_recording *r)
{
	free(r->task_ref), free(r->author), free(r->reason);
	memset(r, 0, sizeof *r);
}

int kn_store_recording_asked(kn_store *st, int64_t id, char want[16], kn_err *err)
{
	want[0] = '\0';
	char ib[24], *w = NULL;
	const char *p[1] = {kn_store_i64(ib, id)};
	int rc = kn_store_q_text(st, &w, "UPDATE recordings SET polled = clock_timestamp() WHERE id = $1 RETURNING want",
	                         1, p, err);
	if (rc == KN_ENOTFOUND)
		return 0;
	if (!rc)
		snprintf(want, 16, "%s", w);
	free(w);
	return rc;
}

int kn_store_recording_set(kn_store *st, int64_t id, const char *state, int steps, const char *detail,
                           int workflow_version, int64_t replay, const char *replay_status, kn_err *err)
{
	char ib[24], sb[24], wb[24], rb[24];
	const char *p[7] = {kn_store_i64(ib, id), state, steps > 0 ? kn_store_i64(sb, steps) : NULL, detail,
	                    workflow_version > 0 ? kn_store_i64(wb, workflow_version) : NULL,
	                    replay > 0 ? kn_store_i64(rb, replay) : NULL, replay_status};
	return kn_store_q(st, NULL,
		"UPDATE recordings SET state = $2, steps = COALESCE($3::int, steps), detail = COALESCE($4, detail),"
		" workflow_version = COALESCE($5::int, workflow_version), replay = COALESCE($6::bigint, replay),"
		" replay_status = COALESCE($7, replay_status), ended = CASE WHEN $2 IN ('stored', 'failed', 'cancelled')"
		" THEN clock_timestamp() END WHERE id = $1 AND ended IS NULL", 7, p, err);
}
