/* store_query.c — the read side of the API: each function answers one GET of services/http/API.md
 * with one JSON text built in SQL (json_build_object / json_agg and the kn_* shape functions of
 * schemas/sql), so the HTTP layer only passes it on. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"

/* REPLAY (kn_replay_summary) with the task's version number it replayed and the
 * task-set snapshot it records (schemas/sql/150_snapshots.sql); p is the replay_results row. */
#define KN_SQL_REPLAY_JSON \
	"kn_json_merge(kn_replay_summary(p), json_build_object('task_version', (SELECT version FROM task_versions" \
	" WHERE id = p.task_version), 'snapshot', kn_snapshot_ref(p.snapshot)))"

#define KN_STR_(x) #x
#define KN_STR(x) KN_STR_(x)

int kn_store_tasks_json(kn_store *st, const char *site, const char *status, char **out, kn_err *err)
{
	const char *p[2] = {site, status};
	return kn_store_q_text(st, out,
		"SELECT json_build_object('tasks', COALESCE(json_agg(q.x ORDER BY q.name, q.task_key), '[]'))"
		" FROM (SELECT s.name, t.task_key, json_build_object('id', t.task_key, 'taskset', s.name,"
		"  'intent', v.intent, 'start_url', v.start_url, 'site', v.site, 'key_nodes', v.key_nodes,"
		"  'version', v.version, 'health', COALESCE(h.state, 'unknown'),"
		/* the newest run of each version by runs_by_version_started_id, then the newest of those:
		 * a few index probes per task, not a walk down every task's runs (130_year.sql) */
		"  'last_run', (SELECT json_build_object('id', r.id, 'score', r.score, 'status', r.status,"
		"    'started', kn_ts(r.started)) FROM task_versions rv CROSS JOIN LATERAL (SELECT x.* FROM runs x"
		"    WHERE x.task_version = rv.id ORDER BY x.started DESC, x.id DESC LIMIT 1) r"
		"    WHERE rv.task_id = t.id ORDER BY r.started DESC, r.id DESC LIMIT 1)) AS x"
		"  FROM tasks t JOIN tasksets s ON s.id = t.taskset_id"
		"  JOIN task_versions v ON v.id = t.current_version LEFT JOIN task_health h ON h.task_id = t.id"
		"  WHERE t.active"
		"  AND ($1::text IS NULL OR $1 IN (v.site, substring(v.start_url from '://(?:[^/?#@]*@)?([^/?#]*)')))"
		"  AND ($2::text IS NULL OR COALESCE(h.state, 'unknown') = $2)) q",
		2, p, err);
}

int kn_store_task_get_json(kn_store *st, const char *ref, char **out, kn_err *err)
{
	*out = NULL;
	int64_t vid;
	int rc = kn_store_task_resolve(st, ref, &vid, err);
	if (rc != 0)
		return rc;
	char vb[24];
	const char *p[1] = {kn_store_i64(vb, vid)};
	return kn_store_q_text(st, out,
		"SELECT kn_json_merge(v.definition, json_build_object('taskset', s.name, 'version', v.version,"
		"  'versions', (SELECT count(*) FROM task_versions x WHERE x.task_id = t.id),"
		"  'health', COALESCE(h.state, 'unknown'),"
		"  'runs', COALESCE((SELECT json_agg(kn_run_summary(r) ORDER BY r.started DESC, r.id DESC)"
		"    FROM (SELECT r.* FROM task_versions rv CROSS JOIN LATERAL (SELECT x.* FROM runs x"
		"    WHERE x.task_version = rv.id ORDER BY x.started DESC, x.id DESC LIMIT 20) r"
		"    WHERE rv.task_id = t.id ORDER BY r.started DESC, r.id DESC LIMIT 20) r), '[]'),"
		"  'replays', COALESCE((SELECT json_agg(" KN_SQL_REPLAY_JSON " ORDER BY p.created DESC, p.id DESC)"
		"    FROM (SELECT p.* FROM replay_results p JOIN task_versions pv ON pv.id = p.task_version"
		"    WHERE pv.task_id = t.id ORDER BY p.created DESC, p.id DESC LIMIT 20) p), '[]')))"
		" FROM task_versions v JOIN tasks t ON t.id = v.task_id JOIN tasksets s ON s.id = t.taskset_id"
		" LEFT JOIN task_health h ON h.task_id = t.id WHERE v.id = $1",
		1, p, err);
}

/* One page of runs or replays as JSON text: sql with $1 the version id of task_ref (NULL: every
 * task), $2 limit (50 when <= 0, at most 1000) and $3 the cursor before (NULL: the newest page);
 * cursor_sql counts the rows that $1 names, so an unknown cursor is KN_EINVAL, not an empty page. */
static int list_json(kn_store *st, const char *task_ref, const char *before, int limit,
                     const char *cursor_sql, const char *sql, char **out, kn_err *err)
{
	*out = NULL;
	if (limit <= 0)
		limit = 50;
	if (limit > 1000)
		limit = 1000;
	char vb[24] = "", lb[24];
	if (task_ref) {
		int64_t vid;
		int rc = kn_store_task_resolve(st, task_ref, &vid, err);
		if (rc != 0)
			return rc;
		kn_store_i64(vb, vid);
	}
	if (before) {
		int64_t n = 0;
		const char *c[1] = {before};
		int rc = kn_store_q_int64(st, &n, cursor_sql, 1, c, err);
		if (rc != 0)
			return rc;
		if (n == 0)
			return kn_err_set(err, KN_EINVAL, "before: no such row '%s' (pass the previous page's "
			                  "next_before)", before);
	}
	const char *p[3] = {task_ref ? vb : NULL, kn_store_i64(lb, limit), before};
	return kn_store_q_text(st, out, sql, 3, p, err);
}

/* Keyset paging by (started, id): every run through runs_started_id, a task's as a page per version
 * (runs_by_version_started_id) merged; two statements, since one that could do both lets the planner
 * sort every run (130_year.sql). */
int kn_store_runs_json(kn_store *st, const char *task_ref, const char *before, int limit, char **out,
                       kn_err *err)
{
	static const char *const all =
		"WITH page AS (SELECT r.* FROM runs r"
		"  WHERE $1::bigint IS NULL AND ($3::text IS NULL OR (r.started, r.id) < (SELECT c.started, c.id"
		"  FROM runs c WHERE c.id = $3)) ORDER BY r.started DESC, r.id DESC LIMIT $2::int + 1)";
	static const char *const task =
		"WITH cur AS (SELECT c.started, c.id FROM runs c WHERE c.id = $3),"
		" page AS (SELECT r.* FROM task_versions v CROSS JOIN LATERAL (SELECT x.* FROM runs x"
		"  WHERE x.task_version = v.id AND ($3::text IS NULL OR (x.started, x.id) < (SELECT started, id FROM cur))"
		"  ORDER BY x.started DESC, x.id DESC LIMIT $2::int + 1) r"
		"  WHERE v.task_id = (SELECT task_id FROM task_versions WHERE id = $1::bigint)"
		"  ORDER BY r.started DESC, r.id DESC LIMIT $2::int + 1)";
	static const char *const tail =
		" SELECT json_build_object('runs', COALESCE((SELECT json_agg(kn_run_summary(r) ORDER BY r.started DESC,"
		"  r.id DESC) FROM (SELECT * FROM page ORDER BY started DESC, id DESC LIMIT $2::int) r), '[]'),"
		" 'next_before', CASE WHEN (SELECT count(*) FROM page) > $2::int THEN"
		"  (SELECT id FROM page ORDER BY started DESC, id DESC OFFSET $2::int - 1 LIMIT 1) END)";
	char sql[2048];
	snprintf(sql, sizeof sql, "%s%s", task_ref ? task : all, tail);
	return list_json(st, task_ref, before, limit, "SELECT count(*) FROM runs WHERE id = $1", sql, out, err);
}

int kn_store_run_get_json(kn_store *st, const char *run_id, char **out, kn_err *err)
{
	const char *p[1] = {run_id};
	int rc = kn_store_q_text(st, out,
		"SELECT kn_json_merge(COALESCE(r.result, json_build_object('task', t.task_key, 'run', r.id,"
		"  'status', r.status)), json_build_object('kind', r.kind, 'browser', r.browser,"
		"  'started', kn_ts(r.started), 'ended', kn_ts(r.ended),"
		"  'task_version', v.version, 'snapshot', kn_snapshot_ref(r.snapshot),"
		"  'events', COALESCE((SELECT json_agg(e.line ORDER BY e.seq) FROM (SELECT x.line, x.seq"
		"   FROM events x WHERE x.run_id = r.id ORDER BY x.seq LIMIT " KN_STR(KN_STORE_RUN_EVENTS_INLINE)
		"   ) e), '[]'),"
		"  'events_total', (SELECT count(*) FROM events c WHERE c.run_id = r.id),"
		"  'events_next', (SELECT '/api/runs/' || r.id || '/events?after=' || s.seq FROM (SELECT x.seq"
		"   FROM events x WHERE x.run_id = r.id ORDER BY x.seq OFFSET " KN_STR(KN_STORE_RUN_EVENTS_INLINE)
		" - 1 LIMIT 1) s WHERE EXISTS (SELECT 1 FROM events n WHERE n.run_id = r.id AND n.seq > s.seq))))"
		" FROM runs r JOIN task_versions v ON v.id = r.task_version JOIN tasks t ON t.id = v.task_id"
		" WHERE r.id = $1",
		1, p, err);
	if (rc == KN_ENOTFOUND)
		return kn_err_set(err, KN_ENOTFOUND, "no run '%s'", run_id ? run_id : "");
	return rc;
}

int kn_store_replays_json(kn_store *st, const char *task_ref, const char *before, int limit,
                          char **out, kn_err *err)
{
	return list_json(st, task_ref, before, limit,
		"SELECT count(*) FROM replay_results WHERE id = (CASE WHEN $1 ~ '^[0-9]{1,18}$' THEN $1 END)::bigint",
		/* the API asks for one task's: a page per version (replay_results_by_version), merged */
		"WITH cur AS (SELECT c.created, c.id FROM replay_results c WHERE c.id = $3::bigint),"
		" page AS (SELECT p.* FROM task_versions v CROSS JOIN LATERAL (SELECT x.* FROM replay_results x"
		"  WHERE x.task_version = v.id AND ($3::bigint IS NULL OR (x.created, x.id) < (SELECT created, id FROM cur))"
		"  ORDER BY x.created DESC, x.id DESC LIMIT $2::int + 1) p"
		"  WHERE $1::bigint IS NULL OR v.task_id = (SELECT task_id FROM task_versions WHERE id = $1::bigint)"
		"  ORDER BY p.created DESC, p.id DESC LIMIT $2::int + 1)"
		" SELECT json_build_object('replays', COALESCE((SELECT json_agg(" KN_SQL_REPLAY_JSON " ORDER BY"
		"  p.created DESC, p.id DESC) FROM (SELECT * FROM page ORDER BY created DESC, id DESC LIMIT $2::int) p),"
		"  '[]'), 'next_before', CASE WHEN (SELECT count(*) FROM page) > $2::int THEN"
		"  (SELECT id FROM page ORDER BY created DESC, id DESC OFFSET $2::int - 1 LIMIT 1) END)",
		out, err);
}

int kn_store_replay_counts_json(kn_store *st, char **out, kn_err *err)
{
	*out = NULL;
	PGresult *res;
	int rc = kn_store_q(st, &res, "SELECT coalesce(json_object_agg(status, n), '{}')::text FROM"
	                    " (SELECT status, count(*) AS n FROM replay_results GROUP BY status) c",
	                    0, NULL, err);
	if (rc != 0)
		return rc;
	*out = strdup(PQgetvalue(res, 0, 0));
	PQclear(res);
	return *out ? 0 : kn_err_set(err, KN_ENOMEM, "out of memory");
}

int kn_store_events_json(kn_store *st, const char *run_id, int64_t after, int limit, char **out,
                         kn_err *err)
{
	*out = NULL;
	if (limit <= 0 || limit > KN_STORE_EVENTS_PAGE_MAX)
		return kn_err_set(err, KN_EINVAL, "limit must be in [1, %d]", KN_STORE_EVENTS_PAGE_MAX);
	char ab[24], lb[24];
	const char *p[3] = {run_id, kn_store_i64(ab, after < 0 ? 0 : after), kn_store_i64(lb, limit)};
	/* One page, by the primary key (run_id, seq): the cost does not grow with the run. */
	int rc = kn_store_q_text(st, out,
		"SELECT json_build_object('run', r.id, 'events', COALESCE((SELECT json_agg(json_build_object("
		"  'seq', e.seq, 'event', e.line) ORDER BY e.seq) FROM (SELECT x.seq, x.line FROM events x"
		"  WHERE x.run_id = r.id AND x.seq > $2::bigint ORDER BY x.seq LIMIT $3::int) e), '[]'),"
		" 'next_after', (SELECT m.seq FROM (SELECT x.seq FROM events x WHERE x.run_id = r.id"
		"  AND x.seq > $2::bigint ORDER BY x.seq OFFSET $3::int - 1 LIMIT 1) m"
		"  WHERE EXISTS (SELECT 1 FROM events n WHERE n.run_id = r.id AND n.seq > m.seq)))"
		" FROM runs r WHERE r.id = $1",
		3, p, err);
	if (rc == KN_ENOTFOUND)
		return kn_err_set(err, KN_ENOTFOUND, "no run '%s'", run_id ? run_id : "");
	return rc;
}
