/* store_health.c — the replay history of a task set (store_health.h): the set's clock, then its
 * active tasks with their events in one read (replay_results_by_version finds the passing
 * replays, health_transitions_by_task the breaks). */
#include <stdlib.h>
#include <string.h>

#include "store_health.h"
#include "store_internal.h"

/* One statement, so the tasks and their events come from one snapshot of the database: a row per
 * active task (kind -1, its key), then its passing replays (0) and its breaks (1). A transition
 * into broken from any other state is a break (broken → broken is never recorded). Of the passing
 * replays only those that decide a number are sent — a task's first (its validity starts), the
 * last before each break (detection time) and its last (validated within N days) — so a year of
 * hourly replays costs a few rows per task here; the computation gives the same answer on them as
 * on all (the order is the computation's: by time, a pass before a break at the same ms). */
static const char sql_history[] =
	"WITH t AS (SELECT t.id, t.task_key, (row_number() OVER (ORDER BY t.task_key) - 1) AS i FROM tasks t"
	"  JOIN tasksets s ON s.id = t.taskset_id"
	"  WHERE s.name = $1 AND t.active AND t.current_version IS NOT NULL),"
	" e AS (SELECT t.i, 0 AS kind, floor(extract(epoch FROM r.created) * 1000)::bigint AS at"
	"  FROM t JOIN task_versions v ON v.task_id = t.id JOIN replay_results r ON r.task_version = v.id"
	"  WHERE r.status = 'passed'"
	"  UNION ALL SELECT t.i, 1, floor(extract(epoch FROM h.at) * 1000)::bigint"
	"  FROM t JOIN health_transitions h ON h.task_id = t.id"
	"  WHERE h.to_state = 'broken' AND h.from_state <> 'broken'),"
	" w AS (SELECT i, kind, at, lead(kind) OVER (PARTITION BY i ORDER BY at, kind) AS next_kind,"
	"  row_number() OVER (PARTITION BY i, kind ORDER BY at) AS nth FROM e)"
	" SELECT i, kind, at, task_key FROM ("
	"  SELECT t.i, -1 AS kind, 0::bigint AS at, t.task_key FROM t"
	"  UNION ALL SELECT i, kind, at, NULL FROM w WHERE kind = 1 OR nth = 1 OR next_kind IS DISTINCT FROM 0"
	" ) x ORDER BY i, kind < 0 DESC, at, kind";

void kn_store_history_clear(kn_store_history *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->ntasks; i++)
		free(h->tasks[i]);
	free(h->tasks);
	free(h->events);
	memset(h, 0, sizeof *h);
}

static int read_history(kn_store *st, const char *taskset, kn_store_history *h, kn_err *err)
{
	const char *p[1] = {taskset};
	PGresult *res;
	int rc = kn_store_q(st, &res, sql_history, 1, p, err);
	if (rc)
		return rc;
	size_t n = (size_t)PQntuples(res), nt = 0;
	for (size_t i = 0; i < n; i++)
		nt += PQgetvalue(res, (int)i, 1)[0] == '-';
	h->tasks = calloc(nt ? nt : 1, sizeof *h->tasks);
	h->events = calloc(n - nt ? n - nt : 1, sizeof *h->events);
	for (size_t i = 0; h->tasks && h->events && i < n && !rc; i++) {
		size_t task = (size_t)strtoull(PQgetvalue(res, (int)i, 0), NULL, 10);
		const char *kind = PQgetvalue(res, (int)i, 1);
		if (kind[0] == '-') {
			if (!(h->tasks[h->ntasks] = strdup(PQgetvalue(res, (int)i, 3))))
				rc = KN_ENOMEM;
			else
				h->ntasks++;
			continue;
		}
		kn_store_history_event *e = &h->events[h->nevents++];
		e->task = task;
		e->at_ms = (int64_t)strtoll(PQgetvalue(res, (int)i, 2), NULL, 10);
		e->broke = kind[0] == '1';
	}
	PQclear(res);
	return h->tasks && h->events && !rc ? 0 : kn_err_set(err, KN_ENOMEM, "out of memory");
}

int kn_store_taskset_history(kn_store *st, const char *taskset, kn_store_history *out, kn_err *err)
{
	memset(out, 0, sizeof *out);
	const char *p[1] = {taskset};
	int64_t found = 0;
	int rc = kn_store_q_int64(st, &found, "SELECT count(*) FROM tasksets WHERE name = $1", 1, p, err);
	if (rc)
		return rc;
	if (!found)
		return kn_err_set(err, KN_ENOTFOUND, "no task set '%s'", taskset);
	rc = kn_store_q_int64(st, &out->now_ms, "SELECT floor(extract(epoch FROM now()) * 1000)::bigint", 0,
	                      NULL, err);
	if (!rc)
		rc = read_history(st, taskset, out, err);
	if (rc)
		kn_store_history_clear(out);
	return rc;
}
