/* store_agent_jobs.c — agent attempts as jobs of the replay queue (schemas/sql/060_agent_jobs.sql):
 * a batch (POST /api/agent-runs) is K jobs per task of kind 'agent', naming the agent by name;
 * a worker claims only jobs of the agents it knows, under the same lease and heartbeat
 * (kn_store_job_heartbeat) as a replay job, and completes a job by storing the attempt's
 * result.json and the done mark in one transaction, or nothing when the lease was lost: so an
 * attempt is stored exactly once however many workers ran it. A batch pins a task-set snapshot
 *: a set's batch makes its jobs from that snapshot's versions, so a version landing while it
 * runs changes none of them; its JSON can show it on another snapshot through the runs' rescores. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "store_internal.h"

int kn_store_agent_name_ok(const char *name)
{
	size_t n = name ? strlen(name) : 0;
	if (n == 0 || n > KN_STORE_AGENT_NAME_MAX || name[0] == '.')
		return 0;
	for (const char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      *p == '-' || *p == '_' || *p == '.'))
			return 0;
	return 1;
}

/* A set's batch runs the task versions of one snapshot of the set (its pin; $4 the
 * snapshot's id), whatever version lands while it runs. */
static const char sql_jobs_of_set[] =
	"INSERT INTO jobs (task_version, kind, batch, agent, attempt_no)"
	" SELECT c.task_version, 'agent', $1, $2, k FROM taskset_snapshot_tasks c,"
	" generate_series(1, $3::int) k WHERE c.snapshot = $4::bigint ORDER BY c.task_id, k";
/* The snapshot of a batch of listed tasks: the newest that holds every version its jobs run. */
static const char sql_batch_snapshot[] =
	"UPDATE agent_batches b SET snapshot = (SELECT c.snapshot FROM taskset_snapshot_tasks c"
	" WHERE c.task_version IN (SELECT task_version FROM jobs WHERE batch = b.id) GROUP BY c.snapshot"
	" HAVING count(*) = (SELECT count(DISTINCT task_version) FROM jobs WHERE batch = b.id)"
	" ORDER BY c.snapshot DESC LIMIT 1) WHERE b.id = $1";
/* The snapshot of set $1 named by $2 ('' the newest, else its version). */
static const char sql_set_snapshot[] =
	"SELECT x.id FROM taskset_snapshots x JOIN tasksets s ON s.id = x.taskset_id WHERE s.name = $1"
	" AND ($2 = '' OR x.version::text = $2) ORDER BY x.version DESC LIMIT 1";

static const char sql_jobs_of_version[] =
	"INSERT INTO jobs (task_version, kind, batch, agent, attempt_no)"
	" SELECT $4, 'agent', $1, $2, k FROM generate_series(1, $3::int) k"
	" WHERE NOT EXISTS (SELECT 1 FROM jobs WHERE batch = $1 AND task_version = $4) ORDER BY k";

int kn_store_agent_batch_new(kn_store *st, const char *agent, const char *const *refs, size_t n_refs,
                             const char *taskset, const char *snapshot, int repeat, int retries,
                             int64_t *batch, int64_t *snapshot_id, size_t *n_jobs, kn_err *err)
{
	*batch = 0;
	if (snapshot_id)
		*snapshot_id = 0;
	if (snapshot && (!taskset || !*snapshot || strspn(snapshot, "0123456789") != strlen(snapshot) ||
	                 strlen(snapshot) > 9))
		return kn_err_set(err, KN_EINVAL, "snapshot: a version (a positive integer) of the task set");
	if (n_jobs)
		*n_jobs = 0;
	if (!kn_store_agent_name_ok(agent))
		return kn_err_set(err, KN_EINVAL, "agent: a name of 1 to %d letters, digits, '-', '_' or '.'",
		                  KN_STORE_AGENT_NAME_MAX);
	if (repeat < 1 || repeat > 1000)
		return kn_err_set(err, KN_EINVAL, "repeat: an integer from 1 to 1000");
	if (retries < 0 || retries > 10)
		return kn_err_set(err, KN_EINVAL, "retries: an integer from 0 to 10");
	if (!taskset == !n_refs)
		return kn_err_set(err, KN_EINVAL, "give either tasks or a taskset");
	char rb[24], bb[24], tb[24];
	const char *p[3] = {agent, kn_store_i64(rb, repeat), kn_store_i64(tb, retries)};
	int64_t id = 0;
	size_t total = 0;
	int rc = kn_store_begin(st, err);
	if (rc)
		return rc;
	if ((rc = kn_store_q_int64(st, &id, "INSERT INTO agent_batches (agent, repeat, retries)"
	                           " VALUES ($1, $2::int, $3::int) RETURNING id", 3, p, err)))
		goto fail;
	kn_store_i64(bb, id);
	int64_t snap = 0;
	char sb[24] = "";
	if (taskset) {
		const char *ps[2] = {taskset, snapshot ? snapshot : ""};
		if ((rc = kn_store_q_int64(st, &snap, sql_set_snapshot, 2, ps, err))) {
			if (rc == KN_ENOTFOUND)
				rc = snapshot ? kn_err_set(err, KN_ENOTFOUND, "task set '%s' has no snapshot %s", taskset, snapshot)
				              : kn_err_set(err, KN_ENOTFOUND, "task set '%s' has no active task", taskset);
			goto fail;
		}
		kn_store_i64(sb, snap);
	}
	for (size_t i = 0; i < (taskset ? 1 : n_refs); i++) {
		char vb[24];
		int64_t version = 0;
		const char *q[4] = {bb, agent, rb, sb};
		if (!taskset) {
			if ((rc = kn_store_task_resolve(st, refs[i], &version, err)))
				goto fail;
			q[3] = kn_store_i64(vb, version);
		}
		PGresult *res;
		if ((rc = kn_store_q(st, &res, taskset ? sql_jobs_of_set : sql_jobs_of_version, 4, q, err)))
			goto fail;
		total += (size_t)atol(PQcmdTuples(res));
		PQclear(res);
	}
	if (total == 0) {
		rc = kn_err_set(err, KN_ENOTFOUND, "task set '%s' has no active task", taskset ? taskset : "");
		goto fail;
	}
	const char *pb[2] = {bb, sb};
	if (taskset ? (rc = kn_store_q(st, NULL, "UPDATE agent_batches SET snapshot = $2::bigint WHERE id = $1",
	                                2, pb, err))
	            : (rc = kn_store_q(st, NULL, sql_batch_snapshot, 1, pb, err)))
		goto fail;
	if (!taskset && snapshot_id) {
		PGresult *res;
		if ((rc = kn_store_q(st, &res, "SELECT snapshot FROM agent_batches WHERE id = $1", 1, pb, err)))
			goto fail;
		snap = PQntuples(res) == 1 && !PQgetisnull(res, 0, 0) ? strtoll(PQgetvalue(res, 0, 0), NULL, 10) : 0;
		PQclear(res);
	}
	if ((rc = kn_store_commit(st, err)))
		goto fail;
	if (snapshot_id)
		*snapshot_id = snap;
	*batch = id;
	if (n_jobs)
		*n_jobs = total;
	return 0;
fail:
	kn_store_rollback(st);
	return rc;
}

int kn_store_agent_job_claim(kn_store *st, const char *worker, int lease_s, const char *const *agents,
                             size_t n_agents, kn_store_agent_job *job, kn_err *err)
{
	memset(job, 0, sizeof *job);
	if (!worker || !*worker || lease_s < 1)
		return kn_err_set(err, KN_EINVAL, "a claim needs a worker name and a lease of 1 s or more");
	if (n_agents == 0)
		return 0;
	json_t *names = json_array();
	for (size_t i = 0; names && i < n_agents; i++)
		json_array_append_new(names, json_string(agents[i]));
	char *text = names ? json_dumps(names, JSON_COMPACT) : NULL, lb[24];
	json_decref(names);
	if (!text)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	const char *p[3] = {worker, kn_store_i64(lb, lease_s), text};
	PGresult *res;
	int rc = kn_store_q(st, &res,
		"UPDATE jobs SET state = 'running', worker = $1, attempts = attempts + 1,"
		" lease_until = clock_timestamp() + make_interval(secs => $2::int)"
		" WHERE id = (SELECT id FROM jobs WHERE kind = 'agent'"
		"  AND agent IN (SELECT json_array_elements_text($3::json))"
		"  AND (state = 'queued' OR (state = 'running' AND lease_until < clock_timestamp()))"
		"  ORDER BY id FOR UPDATE SKIP LOCKED LIMIT 1)"
		" RETURNING id, batch, task_version, attempts, attempt_no, agent,"
		"  (SELECT retries FROM agent_batches b WHERE b.id = jobs.batch),"
		"  (SELECT snapshot FROM agent_batches b WHERE b.id = jobs.batch)", 3, p, err);
	free(text);
	if (rc != 0)
		return rc;
	int got = PQntuples(res) == 1;
	if (got) {
		job->id = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
		job->batch = strtoll(PQgetvalue(res, 0, 1), NULL, 10);
		job->task_version = strtoll(PQgetvalue(res, 0, 2), NULL, 10);
		job->attempt = atoi(PQgetvalue(res, 0, 3));
		job->attempt_no = atoi(PQgetvalue(res, 0, 4));
		snprintf(job->agent, sizeof job->agent, "%s", PQgetvalue(res, 0, 5));
		job->retries = atoi(PQgetvalue(res, 0, 6));
		job->snapshot = PQgetisnull(res, 0, 7) ? 0 : strtoll(PQgetvalue(res, 0, 7), NULL, 10);
	}
	PQclear(res);
	return got;
}

int kn_store_agent_job_complete(kn_store *st, int64_t job_id, const char *worker, const char *result_json,
                                kn_err *err)
{
	char jb[24];
	const char *p[3] = {kn_store_i64(jb, job_id), worker, result_json};
	if (!worker || !result_json)
		return kn_err_set(err, KN_EINVAL, "a completion needs the worker and the result");
	int rc = kn_store_begin(st, err);
	if (rc)
		return rc;
	int64_t version;
	rc = kn_store_q_int64(st, &version,
		"SELECT task_version FROM jobs WHERE id = $1 AND worker = $2 AND state = 'running'"
		" AND kind = 'agent' FOR UPDATE", 2, p, err);
	if (rc == KN_ENOTFOUND) {
		kn_store_rollback(st);
		return kn_err_set(err, KN_ENOTFOUND, "job %s is no longer leased to %s", jb, worker);
	}
	/* status, completed and score are read from result.json itself: one source of truth */
	if (rc || (rc = kn_store_q(st, NULL,
		"WITH r AS (SELECT $3::jsonb AS j)"
		" INSERT INTO agent_results (job_id, batch, task_version, attempt_no, worker, status, completed,"
		"  score, retried, result)"
		" SELECT jobs.id, jobs.batch, jobs.task_version, jobs.attempt_no, $2,"
		"  COALESCE(r.j #>> '{attempt,status}', 'error'), COALESCE((r.j ->> 'completion')::boolean, false),"
		"  COALESCE((r.j ->> 'score')::double precision, 0), COALESCE((r.j #>> '{attempt,retried}')::int, 0),"
		"  r.j FROM jobs, r WHERE jobs.id = $1",
		3, p, err)) ||
	    (rc = kn_store_q(st, NULL, "UPDATE jobs SET state = 'done', finished = clock_timestamp(),"
	                     " lease_until = NULL WHERE id = $1", 1, p, err)) ||
	    (rc = kn_store_commit(st, err))) {
		kn_store_rollback(st);
		return rc;
	}
	return 0;
}

/* An attempt's result on snapshot $2 (NULL: as it ran): its own when it ran the version
 * $2 holds for its task, else its rescore on that version (POST /api/rescore), else none (src 2). */
#define KN_SQL_ON_SNAPSHOT \
	"  LEFT JOIN taskset_snapshot_tasks sv ON sv.snapshot = $2::bigint AND sv.task_id = v.task_id" \
	"  LEFT JOIN rescores rs ON rs.run_id = r.result ->> 'run' AND rs.task_version = sv.task_version"
#define KN_SQL_SRC \
	"CASE WHEN $2::bigint IS NULL OR sv.task_version = j.task_version THEN 0" \
	" WHEN rs.run_id IS NOT NULL THEN 1 ELSE 2 END"

/* The AGENT_BATCH shape of services/http/API.md. */
static const char sql_batch_json[] =
	"WITH b AS (SELECT * FROM agent_batches WHERE id = $1),"
	" a0 AS (SELECT j.id, j.task_version, j.attempt_no, j.state, j.worker, j.attempts, t.task_key,"
	"  s.name AS taskset, v.site, r.status AS status0, r.completed AS completed0, r.score AS score0,"
	"  r.result #>> '{attempt,reason}' AS reason, r.result #>> '{attempt,fault}' AS fault,"
	"  r.result #>> '{attempt,end}' AS end_reason, r.worker AS done_by, r.retried,"
	"  rs.completion AS rs_completed, rs.score AS rs_score, v.version AS ran_v,"
	"  (SELECT version FROM task_versions WHERE id = sv.task_version) AS view_v, " KN_SQL_SRC " AS src"
	"  FROM jobs j JOIN task_versions v ON v.id = j.task_version JOIN tasks t ON t.id = v.task_id"
	"  JOIN tasksets s ON s.id = t.taskset_id LEFT JOIN agent_results r ON r.job_id = j.id"
	KN_SQL_ON_SNAPSHOT
	"  WHERE j.batch = $1),"
	" a AS (SELECT a0.*, CASE WHEN src = 2 AND status0 = 'done' THEN NULL ELSE status0 END AS status,"
	"  CASE src WHEN 0 THEN completed0 WHEN 1 THEN rs_completed END AS completed,"
	"  CASE src WHEN 0 THEN score0 WHEN 1 THEN rs_score END AS score FROM a0),"
	" per AS (SELECT task_version, min(task_key) AS task_key, min(taskset) AS taskset, min(site) AS site,"
	"  count(*) FILTER (WHERE status = 'done') AS executable,"
	"  count(*) FILTER (WHERE status = 'done' AND completed) AS successes,"
	"  json_agg(json_build_object('attempt', attempt_no, 'job', id, 'state', state, 'status', status,"
	"   'completed', completed, 'score', score, 'end', end_reason, 'reason', reason, 'fault', fault,"
	"   'worker', COALESCE(done_by, worker), 'claims', attempts, 'retried', retried,"
	"   'task_version', ran_v, 'scored_on', CASE src WHEN 0 THEN ran_v WHEN 1 THEN view_v END)"
	"   ORDER BY attempt_no) AS attempts"
	"  FROM a GROUP BY task_version)"
	" SELECT json_build_object('id', b.id, 'agent', b.agent, 'repeat', b.repeat, 'retries', b.retries,"
	"  'created', kn_ts(b.created), 'snapshot', kn_snapshot_ref(b.snapshot),"
	"  'scored_on', kn_snapshot_ref($2::bigint),"
	"  'unscored', (SELECT count(*) FROM a WHERE src = 2 AND status0 = 'done'),"
	"  'jobs', (SELECT count(*) FROM a), 'queued', (SELECT count(*) FROM a WHERE state = 'queued'),"
	"  'running', (SELECT count(*) FROM a WHERE state = 'running'),"
	"  'done', (SELECT count(*) FROM a WHERE state = 'done'),"
	"  'metrics', (SELECT json_build_object('executable', count(*) FILTER (WHERE status = 'done'),"
	"   'errors', count(*) FILTER (WHERE status = 'error'), 'blocked', count(*) FILTER (WHERE status = 'blocked'),"
	"   'unjudged', count(*) FILTER (WHERE status = 'unjudged'),"
	"   'faults', json_build_object('agent', count(*) FILTER (WHERE fault = 'agent'),"
	"    'site', count(*) FILTER (WHERE fault = 'site'),"
	"    'infrastructure', count(*) FILTER (WHERE fault = 'infrastructure'),"
	"    'judge', count(*) FILTER (WHERE fault = 'judge')),"
	"   'successes', count(*) FILTER (WHERE status = 'done' AND completed),"
	"   'success_rate', CASE WHEN count(*) FILTER (WHERE status = 'done') > 0 THEN"
	"    (count(*) FILTER (WHERE status = 'done' AND completed))::float8 / count(*) FILTER (WHERE status = 'done') END,"
	"   'mean_score', avg(score) FILTER (WHERE status = 'done'),"
	"   'tasks_solved_all', (SELECT count(*) FROM per WHERE executable > 0 AND successes = executable),"
	"   'tasks_solved_any', (SELECT count(*) FROM per WHERE successes > 0)) FROM a),"
	"  'tasks', COALESCE((SELECT json_agg(json_build_object('task', task_key, 'taskset', taskset, 'site', site,"
	"   'executable', executable, 'successes', successes, 'success_rate', CASE WHEN executable > 0"
	"   THEN successes::float8 / executable END, 'attempts', attempts) ORDER BY task_key) FROM per), '[]'))"
	" FROM b";

int kn_store_agent_batch_json(kn_store *st, int64_t batch, int64_t snapshot, char **out, kn_err *err)
{
	*out = NULL;
	char bb[24], sb[24];
	const char *p[2] = {kn_store_i64(bb, batch), snapshot > 0 ? kn_store_i64(sb, snapshot) : NULL};
	int rc = kn_store_q_text(st, out, sql_batch_json, 2, p, err);
	return rc == KN_ENOTFOUND ? kn_err_set(err, KN_ENOTFOUND, "no agent batch %s", bb) : rc;
}

/* The plan's "sha256" is the hash of what the scorer reads (kn_task_scoring_hash): batches
 * pair on tasks whose key nodes are the same, whatever else of the task changed. On snapshot $2 an
 * attempt's result is its rescore's (members of the rescored result over the stored one) when it
 * ran another version; a done attempt without one is left out. */
static const char sql_batch_results[] =
	"SELECT json_build_object('id', b.id, 'agent', b.agent, 'repeat', b.repeat, 'created', kn_ts(b.created),"
	"  'snapshot', kn_snapshot_ref(b.snapshot),"
	"  'tasks', COALESCE((SELECT json_agg(json_build_object('task', s.name || ':' || t.task_key,"
	"   'site', v.site, 'sha256', kn_task_scoring_hash(v.definition), 'version', v.version)"
	"   ORDER BY s.name, t.task_key)"
	"   FROM task_versions v JOIN tasks t ON t.id = v.task_id JOIN tasksets s ON s.id = t.taskset_id"
	"   WHERE v.id IN (SELECT task_version FROM jobs WHERE batch = b.id)), '[]'),"
	"  'results', COALESCE((SELECT json_agg(json_build_object('task', s.name || ':' || t.task_key,"
	"   'attempt', r.attempt_no, 'result', jsonb_build_object('task', x.j->'task',"
	"    'status', x.j->'status', 'completion', x.j->'completion', 'functional', x.j->'functional',"
	"    'reward', x.j->'reward', 'reached', x.j->'reached', 'score', x.j->'score',"
	"    'efficiency', x.j->'efficiency', 'steps', x.j->'steps', 'usage', x.j->'usage',"
	"    'environment', x.j->'environment', 'judge', x.j->'judge', 'judged', x.j->'judged',"
	"    'attempt', jsonb_build_object('status', x.j#>'{attempt,status}',"
	"     'end', x.j#>'{attempt,end}', 'reason', x.j#>'{attempt,reason}', 'agent_s',"
	"     x.j#>'{attempt,agent_s}', 'overhead_start_s', x.j#>'{attempt,overhead_start_s}',"
	"     'overhead_end_s', x.j#>'{attempt,overhead_end_s}', 'exit_code', x.j#>'{attempt,exit_code}'),"
	"    'key_nodes', CASE WHEN jsonb_typeof(x.j->'key_nodes') = 'array' THEN (SELECT"
	"     COALESCE(jsonb_agg(jsonb_build_object('score', n->'score')), '[]') FROM"
	"     jsonb_array_elements(x.j->'key_nodes') n) ELSE x.j->'key_nodes' END))"
	"   ORDER BY s.name, t.task_key, r.attempt_no)"
	"   FROM agent_results r JOIN task_versions v ON v.id = r.task_version JOIN tasks t ON t.id = v.task_id"
	"   JOIN tasksets s ON s.id = t.taskset_id"
	"   LEFT JOIN taskset_snapshot_tasks sv ON sv.snapshot = $2::bigint AND sv.task_id = v.task_id"
	"   LEFT JOIN rescores rs ON rs.run_id = r.result ->> 'run' AND rs.task_version = sv.task_version"
	"    AND sv.task_version <> r.task_version"
	"   CROSS JOIN LATERAL (SELECT CASE WHEN rs.run_id IS NULL THEN r.result"
	"    ELSE r.result || rs.result::jsonb END AS j) x"
	"   WHERE r.batch = b.id AND ($2::bigint IS NULL OR sv.task_version = r.task_version"
	"    OR rs.run_id IS NOT NULL OR r.status <> 'done')), '[]'))"
	" FROM agent_batches b WHERE b.id = $1";

int kn_store_agent_batch_results_json(kn_store *st, int64_t batch, int64_t snapshot, char **out, kn_err *err)
{
	*out = NULL;
	char bb[24], sb[24];
	const char *p[2] = {kn_store_i64(bb, batch), snapshot > 0 ? kn_store_i64(sb, snapshot) : NULL};
	int rc = kn_store_q_text(st, out, sql_batch_results, 2, p, err);
	return rc == KN_ENOTFOUND ? kn_err_set(err, KN_ENOTFOUND, "no agent batch %s", bb) : rc;
}

/* The AGENT_BATCHES page of services/http/API.md: batches older than before (<= 0: from the
 * newest), newest first, at most limit, each with its progress and metrics; next_before the cursor
 * of the next page (the oldest id here) or null when none is older. */
static const char sql_batches_json[] =
	"WITH b AS (SELECT * FROM agent_batches WHERE $1::bigint <= 0 OR id < $1::bigint"
	"  ORDER BY id DESC LIMIT $2::int + 1),"
	" page AS (SELECT * FROM b ORDER BY id DESC LIMIT $2::int),"
	" s AS (SELECT p.id, p.agent, p.repeat, p.created, n.jobs, o.queued, o.running,"
	"  n.jobs - o.queued - o.running AS done, r.executable, r.successes, r.errors, r.blocked, r.unjudged"
	"  FROM page p"
	"  CROSS JOIN LATERAL (SELECT count(*) AS jobs FROM jobs j WHERE j.batch = p.id) n"
	"  CROSS JOIN LATERAL (SELECT count(*) FILTER (WHERE j.state = 'queued') AS queued,"
	"   count(*) FILTER (WHERE j.state = 'running') AS running"
	"   FROM jobs j WHERE j.batch = p.id AND j.state <> 'done') o"
	"  CROSS JOIN LATERAL (SELECT count(*) FILTER (WHERE r.status = 'done') AS executable,"
	"   count(*) FILTER (WHERE r.status = 'done' AND r.completed) AS successes,"
	"   count(*) FILTER (WHERE r.status = 'error') AS errors,"
	"   count(*) FILTER (WHERE r.status = 'blocked') AS blocked,"
	"   count(*) FILTER (WHERE r.status = 'unjudged') AS unjudged"
	"   FROM agent_results r WHERE r.batch = p.id) r)"
	" SELECT json_build_object('batches', COALESCE((SELECT json_agg(json_build_object('id', id,"
	"  'agent', agent, 'repeat', repeat, 'created', kn_ts(created), 'jobs', jobs, 'queued', queued,"
	"  'running', running, 'done', done, 'executable', executable, 'successes', successes,"
	"  'errors', errors, 'blocked', blocked, 'unjudged', unjudged, 'success_rate', CASE WHEN executable > 0 THEN"
	"  successes::float8 / executable END, 'url', '/api/agent-runs/' || id) ORDER BY id DESC) FROM s), '[]'),"
	"  'next_before', CASE WHEN (SELECT count(*) FROM b) > $2::int THEN (SELECT min(id) FROM page) END)";

int kn_store_agent_batches_json(kn_store *st, int64_t before, int limit, char **out, kn_err *err)
{
	*out = NULL;
	char bb[24], lb[24];
	const char *p[2] = {kn_store_i64(bb, before), kn_store_i64(lb, limit)};
	return kn_store_q_text(st, out, sql_batches_json, 2, p, err);
}
