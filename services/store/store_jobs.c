/* store_jobs.c — replay validation's tables: replay results (report + screenshot), task health
 * with its transitions, and the replay job queue. Jobs are claimed with SELECT … FOR UPDATE SKIP
 * LOCKED under a lease; a worker whose lease ran out and whose job another worker claimed can
 * neither extend nor complete it: kn_store_job_complete checks the holder and writes the result
 * and the done mark in one transaction, or nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"

static const char *const health_names[] = {"unknown", "healthy", "flaky", "broken", "recovered", "error",
                                           "blocked"};

const char *kn_health_name(kn_health h)
{
	return (unsigned)h <= KN_HEALTH_BLOCKED ? health_names[h] : "unknown";
}

static kn_health health_parse(const char *s)
{
	for (int i = 0; i <= KN_HEALTH_BLOCKED; i++)
		if (strcmp(health_names[i], s) == 0)
			return (kn_health)i;
	return KN_HEALTH_UNKNOWN;
}

static const char sql_replay_put[] =
	"INSERT INTO replay_results (task_version, run_id, job_id, status, report, screenshot)"
	" VALUES ($1, $2, $3, $4, $5::jsonb, $6) RETURNING id";

int kn_store_replay_put(kn_store *st, int64_t task_version, const char *run_id, int64_t job_id,
                        const char *status, const char *report_json, const unsigned char *png,
                        size_t png_len, int64_t *id, kn_err *err)
{
	if (id)
		*id = 0;
	if (!status)
		return kn_err_set(err, KN_EINVAL, "a replay result needs a status");
	if (png && png_len > (size_t)1 << 30)
		return kn_err_set(err, KN_ELIMIT, "screenshot larger than 1 GiB");
	char vb[24], jb[24];
	const char *p[6] = {kn_store_i64(vb, task_version), run_id, job_id > 0 ? kn_store_i64(jb, job_id) : NULL,
	                    status, report_json, (const char *)png};
	int len[6] = {0, 0, 0, 0, 0, (int)png_len};
	int fmt[6] = {0, 0, 0, 0, 0, 1};
	PGresult *res;
	int rc = kn_store_qb(st, &res, sql_replay_put, 6, p, len, fmt, err);
	if (rc != 0)
		return rc;
	if (id)
		*id = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
	PQclear(res);
	return 0;
}

int kn_store_replay_screenshot(kn_store *st, int64_t replay_id, unsigned char **out, size_t *len,
                               kn_err *err)
{
	*out = NULL;
	*len = 0;
	char vb[24];
	const char *p[1] = {kn_store_i64(vb, replay_id)};
	int fmt[1] = {0};
	PGresult *res = NULL;
	if (PQstatus(st->conn) != CONNECTION_OK)
		return kn_err_set(err, KN_EIO, "database connection lost");
	/* Binary result format: the bytes as they are, no hex decoding. */
	res = PQexecParams(st->conn, "SELECT screenshot FROM replay_results WHERE id = $1", 1, NULL, p,
	                   NULL, fmt, 1);
	if (PQresultStatus(res) != PGRES_TUPLES_OK) {
		PQclear(res);
		return kn_store_q(st, NULL, "SELECT screenshot FROM replay_results WHERE id = $1", 1, p, err);
	}
	if (PQntuples(res) != 1 || PQgetisnull(res, 0, 0)) {
		PQclear(res);
		return kn_err_set(err, KN_ENOTFOUND, "no screenshot for replay %s", vb);
	}
	size_t n = (size_t)PQgetlength(res, 0, 0);
	*out = malloc(n ? n : 1);
	if (!*out) {
		PQclear(res);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	memcpy(*out, PQgetvalue(res, 0, 0), n);
	*len = n;
	PQclear(res);
	return 0;
}

int kn_store_health_get(kn_store *st, int64_t task_version, kn_health *state, int *consecutive_failures,
                        kn_err *err)
{
	*state = KN_HEALTH_UNKNOWN;
	*consecutive_failures = 0;
	char vb[24];
	const char *p[1] = {kn_store_i64(vb, task_version)};
	PGresult *res;
	int rc = kn_store_q(st, &res,
		"SELECT COALESCE(h.state, 'unknown'), COALESCE(h.consecutive_failures, 0) FROM task_versions v"
		" LEFT JOIN task_health h ON h.task_id = v.task_id WHERE v.id = $1", 1, p, err);
	if (rc != 0)
		return rc;
	if (PQntuples(res) != 1) {
		PQclear(res);
		return kn_err_set(err, KN_ENOTFOUND, "no task version %s", vb);
	}
	*state = health_parse(PQgetvalue(res, 0, 0));
	*consecutive_failures = atoi(PQgetvalue(res, 0, 1));
	PQclear(res);
	return 0;
}

static const char sql_health_set[] =
	"WITH t AS (SELECT task_id FROM task_versions WHERE id = $1),"
	" old AS (SELECT h.state FROM task_health h JOIN t ON h.task_id = t.task_id),"
	" up AS (INSERT INTO task_health (task_id, state, consecutive_failures) SELECT task_id, $2, $3::int FROM t"
	"  ON CONFLICT (task_id) DO UPDATE SET state = EXCLUDED.state,"
	"  consecutive_failures = EXCLUDED.consecutive_failures, updated = clock_timestamp(),"
	"  since = CASE WHEN task_health.state = EXCLUDED.state THEN task_health.since ELSE clock_timestamp() END"
	"  RETURNING task_id),"
	" tr AS (INSERT INTO health_transitions (task_id, from_state, to_state, evidence)"
	"  SELECT t.task_id, COALESCE((SELECT state FROM old), 'unknown'), $2, $4::jsonb FROM t"
	"  WHERE COALESCE((SELECT state FROM old), 'unknown') <> $2 RETURNING 1)"
	" SELECT (SELECT count(*) FROM up), (SELECT count(*) FROM tr)";

int kn_store_health_set(kn_store *st, int64_t task_version, kn_health state, int consecutive_failures,
                        const char *evidence_json, kn_err *err)
{
	if ((unsigned)state > KN_HEALTH_BLOCKED)
		return kn_err_set(err, KN_EINVAL, "bad health state %d", (int)state);
	char vb[24], cb[24];
	const char *p[4] = {kn_store_i64(vb, task_version), kn_health_name(state),
	                    kn_store_i64(cb, consecutive_failures), evidence_json};
	PGresult *res;
	/* Lock the health row first: the statement then reads the state as it is after any
	 * concurrent setter committed (a row updated in the same statement cannot be locked there). */
	int rc = kn_store_begin(st, err);
	if (rc != 0)
		return rc;
	if ((rc = kn_store_q(st, NULL, "SELECT 1 FROM task_health WHERE task_id = (SELECT task_id FROM"
	                     " task_versions WHERE id = $1) FOR UPDATE", 1, p, err)) ||
	    (rc = kn_store_q(st, &res, sql_health_set, 4, p, err))) {
		kn_store_rollback(st);
		return rc;
	}
	int found = PQntuples(res) == 1 && strcmp(PQgetvalue(res, 0, 0), "0") != 0;
	PQclear(res);
	if ((rc = kn_store_commit(st, err)) != 0) {
		kn_store_rollback(st);
		return rc;
	}
	return found ? 0 : kn_err_set(err, KN_ENOTFOUND, "no task version %s", vb);
}

int kn_store_health_json(kn_store *st, const char *task_ref, char **out, kn_err *err)
{
	*out = NULL;
	int64_t vid;
	int rc = kn_store_task_resolve(st, task_ref, &vid, err);
	if (rc != 0)
		return rc;
	char vb[24];
	const char *p[1] = {kn_store_i64(vb, vid)};
	return kn_store_q_text(st, out,
		"SELECT json_build_object('task', t.task_key, 'taskset', s.name,"
		" 'state', COALESCE(h.state, 'unknown'), 'consecutive_failures', COALESCE(h.consecutive_failures, 0),"
		" 'since', kn_ts(h.since), 'transitions', COALESCE((SELECT json_agg(json_build_object('from',"
		"  x.from_state, 'to', x.to_state, 'at', kn_ts(x.at), 'evidence', x.evidence) ORDER BY x.at DESC, x.id DESC)"
		"  FROM (SELECT * FROM health_transitions WHERE task_id = t.id ORDER BY at DESC, id DESC LIMIT 100) x),"
		"  '[]'))"
		" FROM task_versions v JOIN tasks t ON t.id = v.task_id JOIN tasksets s ON s.id = t.taskset_id"
		" LEFT JOIN task_health h ON h.task_id = t.id WHERE v.id = $1", 1, p, err);
}

int kn_store_job_enqueue(kn_store *st, int64_t task_version, const char *schedule, int64_t *id,
                         kn_err *err)
{
	char vb[24];
	const char *p[2] = {kn_store_i64(vb, task_version), schedule ? schedule : ""};
	int64_t v = 0;
	int rc = kn_store_q_int64(st, &v,
		"INSERT INTO jobs (task_version, schedule) VALUES ($1, $2) RETURNING id", 2, p, err);
	if (id)
		*id = v;
	return rc;
}

int kn_store_job_claim(kn_store *st, const char *worker, int lease_s, kn_store_job *job, kn_err *err)
{
	memset(job, 0, sizeof *job);
	if (!worker || !*worker || lease_s < 1)
		return kn_err_set(err, KN_EINVAL, "a claim needs a worker name and a lease of 1 s or more");
	char lb[24];
	const char *p[2] = {worker, kn_store_i64(lb, lease_s)};
	PGresult *res;
	int rc = kn_store_q(st, &res,
		"UPDATE jobs SET state = 'running', worker = $1, attempts = attempts + 1,"
		" lease_until = clock_timestamp() + make_interval(secs => $2::int)"
		" WHERE id = (SELECT id FROM jobs WHERE kind = 'replay' AND (state = 'queued'"
		"  OR (state = 'running' AND lease_until < clock_timestamp()))"
		"  ORDER BY id FOR UPDATE SKIP LOCKED LIMIT 1)"
		" RETURNING id, task_version, attempts, schedule", 2, p, err);
	if (rc != 0)
		return rc;
	int got = PQntuples(res) == 1;
	if (got) {
		job->id = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
		job->task_version = strtoll(PQgetvalue(res, 0, 1), NULL, 10);
		job->attempt = atoi(PQgetvalue(res, 0, 2));
		snprintf(job->schedule, sizeof job->schedule, "%s", PQgetvalue(res, 0, 3));
	}
	PQclear(res);
	return got;
}

int kn_store_job_heartbeat(kn_store *st, int64_t job_id, const char *worker, int lease_s, kn_err *err)
{
	char jb[24], lb[24];
	const char *p[3] = {kn_store_i64(jb, job_id), worker, kn_store_i64(lb, lease_s)};
	PGresult *res;
	int rc = kn_store_q_idem(st, &res, /* a second heartbeat only moves the lease again */
		"UPDATE jobs SET lease_until = clock_timestamp() + make_interval(secs => $3::int)"
		" WHERE id = $1 AND worker = $2 AND state = 'running' RETURNING id", 3, p, err);
	if (rc != 0)
		return rc;
	int ours = PQntuples(res) == 1;
	PQclear(res);
	return ours ? 0 : kn_err_set(err, KN_ENOTFOUND, "job %s is no longer leased to %s", jb, worker);
}

int kn_store_job_complete(kn_store *st, int64_t job_id, const char *worker, const char *status,
                          const char *run_id, const char *report_json, const unsigned char *png, size_t png_len,
                          int64_t *replay_id, kn_err *err)
{
	if (replay_id)
		*replay_id = 0;
	char jb[24];
	const char *p[2] = {kn_store_i64(jb, job_id), worker};
	int rc = kn_store_begin(st, err);
	if (rc != 0)
		return rc;
	int64_t version, rid;
	rc = kn_store_q_int64(st, &version,
		"SELECT task_version FROM jobs WHERE id = $1 AND worker = $2 AND state = 'running' FOR UPDATE",
		2, p, err);
	if (rc == KN_ENOTFOUND) {
		kn_store_rollback(st);
		return kn_err_set(err, KN_ENOTFOUND, "job %s is no longer leased to %s", jb, worker ? worker : "");
	}
	if (rc != 0 ||
	    (rc = kn_store_replay_put(st, version, run_id, job_id, status, report_json, png, png_len, &rid, err)))
		goto fail;
	char rb[24];
	const char *p2[2] = {jb, kn_store_i64(rb, rid)};
	if ((rc = kn_store_q(st, NULL, "UPDATE jobs SET state = 'done', finished = clock_timestamp(),"
	                     " lease_until = NULL, replay_id = $2 WHERE id = $1", 2, p2, err)) ||
	    (rc = kn_store_commit(st, err)))
		goto fail;
	if (replay_id)
		*replay_id = rid;
	return 0;
fail:
	kn_store_rollback(st);
	return rc;
}
