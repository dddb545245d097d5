/* store_snapshots.c — task-set snapshots and rescores (store_snapshots.h,
 * schemas/sql/150_snapshots.sql). The snapshots themselves are taken by the database (a deferred
 * trigger on tasks), so this file only finds and lists them, resolves a task inside one, and keeps
 * the rescores: which stored runs a rescore takes, their stored events back as kn_events, and the
 * rescored result with its columns read from the result JSON (one source of truth, as runs do). */
#include "store_snapshots.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "store_internal.h"

static const char sql_find[] =
	"SELECT x.id, x.version, x.hash, s.name FROM taskset_snapshots x JOIN tasksets s ON s.id = x.taskset_id"
	" WHERE s.name = $1 AND ($2 = 'latest' OR ($2 = 'version' AND x.version::text = $3)"
	"  OR ($2 = 'hash' AND x.hash LIKE $3 || '%'))"
	" ORDER BY x.version DESC LIMIT 1";

static const char sql_get[] =
	"SELECT x.id, x.version, x.hash, s.name FROM taskset_snapshots x JOIN tasksets s ON s.id = x.taskset_id"
	" WHERE x.id = $1";

/* One row of sql_find / sql_get into *out. */
static int take_row(kn_store *st, const char *sql, int n, const char *const *p, kn_store_snapshot *out,
                    kn_err *err)
{
	PGresult *res;
	int rc = kn_store_q(st, &res, sql, n, p, err);
	if (rc)
		return rc;
	if (PQntuples(res) != 1) {
		PQclear(res);
		return KN_ENOTFOUND;
	}
	out->id = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
	out->version = atoi(PQgetvalue(res, 0, 1));
	snprintf(out->hash, sizeof out->hash, "%s", PQgetvalue(res, 0, 2));
	snprintf(out->taskset, sizeof out->taskset, "%s", PQgetvalue(res, 0, 3));
	PQclear(res);
	return 0;
}

int kn_store_snapshot_find(kn_store *st, const char *taskset, const char *ref, kn_store_snapshot *out,
                           kn_err *err)
{
	memset(out, 0, sizeof *out);
	if (!taskset || !*taskset)
		return kn_err_set(err, KN_EINVAL, "a snapshot needs its task set's name");
	const char *kind = "latest";
	size_t n = ref ? strlen(ref) : 0, digits = strspn(ref ? ref : "", "0123456789"),
	       hex = strspn(ref ? ref : "", "0123456789abcdef");
	if (ref && strcmp(ref, "latest") != 0) {
		if (n > 0 && n <= 9 && digits == n && atoi(ref) > 0)
			kind = "version";
		else if (n >= 8 && n <= 64 && hex == n)
			kind = "hash";
		else
			return kn_err_set(err, KN_EINVAL, "a snapshot is its version (a positive integer), its hash "
			                  "(8 to 64 lowercase hex digits) or \"latest\"");
	}
	const char *p[3] = {taskset, kind, ref ? ref : ""};
	int rc = take_row(st, sql_find, 3, p, out, err);
	if (rc == KN_ENOTFOUND)
		return kn_err_set(err, KN_ENOTFOUND, "task set '%s' has no snapshot %s", taskset,
		                  ref ? ref : "yet");
	return rc;
}

int kn_store_snapshot_get(kn_store *st, int64_t id, kn_store_snapshot *out, kn_err *err)
{
	memset(out, 0, sizeof *out);
	char ib[24];
	const char *p[1] = {kn_store_i64(ib, id)};
	int rc = take_row(st, sql_get, 1, p, out, err);
	return rc == KN_ENOTFOUND ? kn_err_set(err, KN_ENOTFOUND, "no snapshot %s", ib) : rc;
}

json_t *kn_store_snapshot_ref(const kn_store_snapshot *s)
{
	return json_pack("{s:I, s:s, s:i, s:s}", "id", (json_int_t)s->id, "taskset", s->taskset, "version",
	                 s->version, "hash", s->hash);
}

/* Each snapshot with the tasks that changed since the one before it (a new task: "from" null) and
 * those that left the set; "key_nodes_changed" compares what the scorer reads
 * (kn_task_scoring_hash). */
static const char sql_list[] =
	"WITH s AS (SELECT id, name FROM tasksets WHERE name = $1),"
	" sn AS (SELECT x.* FROM taskset_snapshots x, s WHERE x.taskset_id = s.id ORDER BY x.version DESC LIMIT 1000),"
	" pv AS (SELECT sn.id AS snap, p.id AS prev FROM sn LEFT JOIN taskset_snapshots p"
	"  ON p.taskset_id = sn.taskset_id AND p.version = sn.version - 1)"
	" SELECT json_build_object('taskset', s.name, 'snapshots', COALESCE((SELECT json_agg(json_build_object("
	"  'id', sn.id, 'version', sn.version, 'hash', sn.hash, 'tasks', sn.tasks, 'created', kn_ts(sn.created),"
	"  'current', sn.version = (SELECT max(version) FROM taskset_snapshots WHERE taskset_id = sn.taskset_id),"
	"  'changed', COALESCE((SELECT json_agg(json_build_object('task', t.task_key, 'from', ov.version,"
	"    'to', cv.version, 'key_nodes_changed', ov.id IS NULL OR"
	"    kn_task_scoring_hash(ov.definition) <> kn_task_scoring_hash(cv.definition)) ORDER BY t.task_key)"
	"   FROM pv JOIN taskset_snapshot_tasks c ON c.snapshot = pv.snap JOIN tasks t ON t.id = c.task_id"
	"   JOIN task_versions cv ON cv.id = c.task_version"
	"   LEFT JOIN taskset_snapshot_tasks o ON o.snapshot = pv.prev AND o.task_id = c.task_id"
	"   LEFT JOIN task_versions ov ON ov.id = o.task_version"
	"   WHERE pv.snap = sn.id AND pv.prev IS NOT NULL AND o.task_version IS DISTINCT FROM c.task_version), '[]'),"
	"  'removed', COALESCE((SELECT json_agg(t.task_key ORDER BY t.task_key)"
	"   FROM pv JOIN taskset_snapshot_tasks o ON o.snapshot = pv.prev JOIN tasks t ON t.id = o.task_id"
	"   WHERE pv.snap = sn.id AND NOT EXISTS (SELECT 1 FROM taskset_snapshot_tasks c"
	"    WHERE c.snapshot = pv.snap AND c.task_id = o.task_id)), '[]')"
	"  ) ORDER BY sn.version DESC) FROM sn), '[]')) FROM s";

int kn_store_snapshots_json(kn_store *st, const char *taskset, char **out, kn_err *err)
{
	*out = NULL;
	const char *p[1] = {taskset};
	int rc = kn_store_q_text(st, out, sql_list, 1, p, err);
	return rc == KN_ENOTFOUND ? kn_err_set(err, KN_ENOTFOUND, "no task set '%s'", taskset) : rc;
}

int kn_store_snapshot_task_version(kn_store *st, int64_t snapshot, const char *ref, int64_t *version,
                                   kn_err *err)
{
	*version = 0;
	char sb[24];
	const char *p[2] = {kn_store_i64(sb, snapshot), ref};
	int rc = kn_store_q_int64(st, version,
		"SELECT c.task_version FROM taskset_snapshot_tasks c JOIN tasks t ON t.id = c.task_id"
		" JOIN tasksets s ON s.id = t.taskset_id"
		" WHERE c.snapshot = $1 AND (s.name || ':' || t.task_key = $2 OR t.task_key = $2)"
		" ORDER BY s.name || ':' || t.task_key = $2 DESC LIMIT 1", 2, p, err);
	return rc == KN_ENOTFOUND ? kn_err_set(err, KN_ENOTFOUND, "snapshot %s holds no task '%s'", sb, ref) : rc;
}

/* The runs of a rescore (store_snapshots.h): a run is done once both versions have its rescore. */
static const char sql_plan[] =
	"WITH f AS (SELECT task_id, task_version FROM taskset_snapshot_tasks WHERE snapshot = $1),"
	" g AS (SELECT task_id, task_version FROM taskset_snapshot_tasks WHERE snapshot = $2),"
	" c AS (SELECT r.id, r.kind, r.started, r.score, r.completion, r.events_pruned, t.task_key,"
	"  f.task_version AS fv, g.task_version AS gv"
	"  FROM f JOIN g USING (task_id) JOIN tasks t ON t.id = f.task_id"
	"  JOIN runs r ON r.task_version = f.task_version WHERE r.ended IS NOT NULL),"
	" todo AS (SELECT * FROM c WHERE events_pruned IS NULL AND"
	"  (SELECT count(*) FROM rescores x WHERE x.run_id = c.id AND x.task_version IN (c.fv, c.gv))"
	"   < CASE WHEN c.fv = c.gv THEN 1 ELSE 2 END),"
	" page AS (SELECT * FROM todo ORDER BY started, id LIMIT $3::int)"
	" SELECT json_build_object('runs', COALESCE((SELECT json_agg(json_build_object('run', p.id,"
	"  'task', p.task_key, 'kind', p.kind, 'from_version', p.fv, 'to_version', p.gv, 'from_v', a.version,"
	"  'to_v', b.version, 'key_nodes_same', kn_task_scoring_hash(a.definition) = kn_task_scoring_hash(b.definition),"
	"  'score', p.score, 'completion', p.completion) ORDER BY p.started, p.id)"
	"  FROM page p JOIN task_versions a ON a.id = p.fv JOIN task_versions b ON b.id = p.gv), '[]'),"
	" 'remaining', (SELECT count(*) FROM todo) - (SELECT count(*) FROM page),"
	" 'done_before', (SELECT count(*) FROM c WHERE events_pruned IS NULL) - (SELECT count(*) FROM todo),"
	" 'pruned', COALESCE((SELECT json_agg(id ORDER BY started, id) FROM (SELECT id, started FROM c"
	"  WHERE events_pruned IS NOT NULL ORDER BY started, id LIMIT 100) z), '[]'))";

int kn_store_rescore_plan_json(kn_store *st, int64_t from, int64_t to, int limit, char **out, kn_err *err)
{
	*out = NULL;
	char fb[24], tb[24], lb[24];
	const char *p[3] = {kn_store_i64(fb, from), kn_store_i64(tb, to), kn_store_i64(lb, limit)};
	return kn_store_q_text(st, out, sql_plan, 3, p, err);
}

int kn_store_run_events(kn_store *st, const char *run_id, kn_event **events, size_t *n, kn_err *err)
{
	*events = NULL;
	*n = 0;
	const char *p[1] = {run_id};
	PGresult *res;
	int rc = kn_store_q(st, &res, "SELECT seq, line FROM events WHERE run_id = $1 ORDER BY seq", 1, p, err);
	if (rc)
		return rc;
	size_t rows = (size_t)PQntuples(res);
	kn_event *v = calloc(rows ? rows : 1, sizeof *v);
	if (!v) {
		PQclear(res);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < rows && !rc; i++) {
		kn_err e = {0};
		if (kn_event_parse(&v[i], PQgetvalue(res, (int)i, 1), (size_t)PQgetlength(res, (int)i, 1), &e) != 0)
			rc = kn_err_set(err, KN_EINVAL, "run %s: event %s: %s", run_id, PQgetvalue(res, (int)i, 0), e.msg);
		else
			*n = i + 1;
	}
	PQclear(res);
	if (rc) {
		kn_traj_events_free(v, *n);
		*n = 0;
		return rc;
	}
	*events = v;
	return 0;
}

int kn_store_rescore_put(kn_store *st, const char *run_id, int64_t task_version, const char *result_json,
                         kn_err *err)
{
	char vb[24];
	const char *p[3] = {run_id, kn_store_i64(vb, task_version), result_json};
	return kn_store_q_idem(st, NULL,
		"WITH r AS (SELECT $3::json AS j)"
		" INSERT INTO rescores (run_id, task_version, status, steps, reached, total, score, completion,"
		"  efficiency, result, judge)"
		" SELECT $1, $2::bigint, COALESCE(j->>'status', 'error'), COALESCE((j->>'steps')::numeric::int, 0),"
		"  COALESCE((j->>'reached')::float8, 0), COALESCE((j->>'total')::numeric::int, 0),"
		"  COALESCE((j->>'score')::float8, 0), COALESCE((j->>'completion')::boolean, false),"
		"  COALESCE((j->>'efficiency')::float8, 0), j,"
		"  CASE WHEN json_typeof(j->'judge') = 'object' THEN (j->'judge')::jsonb END FROM r"
		" ON CONFLICT (run_id, task_version) DO UPDATE SET status = EXCLUDED.status, steps = EXCLUDED.steps,"
		"  reached = EXCLUDED.reached, total = EXCLUDED.total, score = EXCLUDED.score,"
		"  completion = EXCLUDED.completion, efficiency = EXCLUDED.efficiency, result = EXCLUDED.result,"
		"  judge = EXCLUDED.judge,"
		"  created = clock_timestamp()", 3, p, err);
}
