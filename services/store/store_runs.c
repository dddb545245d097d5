/* store_runs.c — runs, their append-only events and key-node results. Every write is idempotent
 * so that kn_ingest (and any caller after KN_EIO) may simply send again: a run start is keyed by
 * the run id, events by (run, seq) with ON CONFLICT DO NOTHING, and a run's finish is recorded
 * once (a second finish changes nothing). Events go in one statement per batch: the lines travel
 * as one text[] parameter and are unnested with their ordinality, which gives the seq. Crash
 * recovery finds the live runs of owners that are gone (serve's, and dead workers' replay runs). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "keynode/clock.h"
#include "store_internal.h"

#define KN_EVENTS_BATCH_MAX 100000

int kn_store_run_start(kn_store *st, const kn_store_run *run, kn_err *err)
{
	if (!run || !run->id || !*run->id || !run->kind || !run->started)
		return kn_err_set(err, KN_EINVAL, "a run needs an id, a kind and a start time");
	char vb[24], sb[24];
	const char *p[7] = {run->id, kn_store_i64(vb, run->task_version), run->kind, run->browser,
	                    run->started, run->owner, run->snapshot > 0 ? kn_store_i64(sb, run->snapshot) : NULL};
	return kn_store_q(st, NULL,
		"INSERT INTO runs (id, task_version, kind, browser, started, owner, snapshot) VALUES ($1, $2, $3,"
		" $4, $5::timestamptz, $6, $7::bigint) ON CONFLICT (id) DO NOTHING", 7, p, err);
}

/* The PostgreSQL array literal {"a","b"} of lines: each element quoted, " and \ escaped. */
static char *array_literal(const char *const *lines, size_t n)
{
	size_t cap = 3;
	for (size_t i = 0; i < n; i++) {
		cap += 3;
		for (const char *c = lines[i]; *c; c++)
			cap += (*c == '"' || *c == '\\') ? 2 : 1;
	}
	char *buf = malloc(cap), *w = buf;
	if (!buf)
		return NULL;
	*w++ = '{';
	for (size_t i = 0; i < n; i++) {
		if (i)
			*w++ = ',';
		*w++ = '"';
		for (const char *c = lines[i]; *c; c++) {
			if (*c == '"' || *c == '\\')
				*w++ = '\\';
			*w++ = *c;
		}
		*w++ = '"';
	}
	*w++ = '}';
	*w = '\0';
	return buf;
}

int kn_store_events_append(kn_store *st, const char *run_id, int64_t first_seq,
                           const char *const *lines, size_t n, kn_err *err)
{
	if (!run_id || first_seq < 1)
		return kn_err_set(err, KN_EINVAL, "events need a run id and a seq from 1");
	if (n == 0)
		return 0;
	if (n > KN_EVENTS_BATCH_MAX)
		return kn_err_set(err, KN_ELIMIT, "more than %d events in one batch", KN_EVENTS_BATCH_MAX);
	for (size_t i = 0; i < n; i++)
		if (!lines[i])
			return kn_err_set(err, KN_EINVAL, "event %zu has no line", i);
	char *arr = array_literal(lines, n);
	if (!arr)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	char sb[24];
	const char *p[3] = {run_id, kn_store_i64(sb, first_seq), arr};
	/* The run is checked (and held against deletion) once per batch, not by a per-row foreign key. */
	int64_t found = 0;
	int rc = kn_store_q_int64(st, &found,
		"WITH r AS (SELECT id FROM runs WHERE id = $1 FOR KEY SHARE),"
		" i AS (INSERT INTO events (run_id, seq, line) SELECT r.id, $2::bigint + o - 1, l::json"
		"  FROM r, unnest($3::text[]) WITH ORDINALITY AS u(l, o) ON CONFLICT (run_id, seq) DO NOTHING)"
		" SELECT count(*) FROM r",
		3, p, err);
	free(arr);
	if (rc == 0 && !found)
		return kn_err_set(err, KN_ENOTFOUND, "no run '%s'", run_id);
	return rc;
}

/* One statement: the first finish sets the columns and the key-node rows; later ones match no
 * row and change nothing. Malformed fields of the result are stored as NULL, never an error:
 * the whole result is kept in `result` anyway. */
static const char sql_finish[] =
	"WITH r AS (SELECT $3::jsonb AS j),"
	" u AS (UPDATE runs SET ended = $2::timestamptz, result = $3::json,"
	"  status = COALESCE(CASE WHEN jsonb_typeof(r.j->'status') = 'string' THEN r.j->>'status' END, 'error'),"
	"  steps = CASE WHEN jsonb_typeof(r.j->'steps') = 'number' THEN (r.j->>'steps')::numeric::int END,"
	"  reached = CASE WHEN jsonb_typeof(r.j->'reached') = 'number' THEN (r.j->>'reached')::numeric::int END,"
	"  total = CASE WHEN jsonb_typeof(r.j->'total') = 'number' THEN (r.j->>'total')::numeric::int END,"
	"  score = CASE WHEN jsonb_typeof(r.j->'score') = 'number' THEN (r.j->>'score')::float8 END,"
	"  completion = CASE WHEN jsonb_typeof(r.j->'completion') = 'boolean' THEN (r.j->>'completion')::bool END,"
	"  efficiency = CASE WHEN jsonb_typeof(r.j->'efficiency') = 'number' THEN (r.j->>'efficiency')::float8 END,"
	"  judge = CASE WHEN jsonb_typeof(r.j->'judge') = 'object' THEN r.j->'judge' END"
	"  FROM r WHERE runs.id = $1 AND runs.ended IS NULL RETURNING runs.id),"
	" k AS (INSERT INTO keynode_results (run_id, node_id, function, score, reached_at_step)"
	"  SELECT u.id, e->>'id', e->>'function',"
	"   CASE WHEN jsonb_typeof(e->'score') = 'number' THEN (e->>'score')::float8 END,"
	"   CASE WHEN jsonb_typeof(e->'reached_at_step') = 'number' THEN (e->>'reached_at_step')::numeric::int END"
	"  FROM u, r, jsonb_array_elements(CASE WHEN jsonb_typeof(r.j->'key_nodes') = 'array'"
	"   THEN r.j->'key_nodes' ELSE '[]'::jsonb END) e"
	"  WHERE jsonb_typeof(e) = 'object' AND jsonb_typeof(e->'id') = 'string'"
	"  ON CONFLICT DO NOTHING RETURNING 1)"
	" SELECT (SELECT count(*) FROM u), (SELECT count(*) FROM k), EXISTS (SELECT 1 FROM runs WHERE id = $1)";

int kn_store_run_finish(kn_store *st, const char *run_id, const char *ended, const char *result_json,
                        kn_err *err)
{
	if (!run_id || !ended || !result_json)
		return kn_err_set(err, KN_EINVAL, "a run finish needs the run id, end time and result");
	const char *p[3] = {run_id, ended, result_json};
	PGresult *res;
	int rc = kn_store_q(st, &res, sql_finish, 3, p, err);
	if (rc != 0)
		return rc;
	int exists = PQntuples(res) == 1 && strcmp(PQgetvalue(res, 0, 2), "t") == 0;
	PQclear(res);
	if (!exists)
		return kn_err_set(err, KN_ENOTFOUND, "no run '%s'", run_id);
	return 0;
}

/* ---- crash recovery -------------------------------------------------------------------------- */

int kn_store_owner_hold(kn_store *st, const char *owner, kn_err *err)
{
	const char *p[1] = {owner};
	return kn_store_q(st, NULL, "SELECT pg_advisory_lock(kn_owner_lock($1))", 1, p, err);
}

int kn_store_owner_try_hold(kn_store *st, const char *owner, int *held, kn_err *err)
{
	const char *p[1] = {owner};
	int64_t got = 0;
	int rc = kn_store_q_int64(st, &got, "SELECT pg_try_advisory_lock(kn_owner_lock($1))::int", 1, p,
	                          err);
	*held = rc == 0 && got == 1;
	return rc;
}

int kn_store_orphans_take(kn_store *st, const char *me, const char *owners, char **out, kn_err *err)
{
	const char *p[2] = {me, owners};
	/* The owners are locked first (MATERIALIZED: once each), then their live runs listed. */
	return kn_store_q_text(st, out,
		"WITH dead AS MATERIALIZED (SELECT o.owner FROM (SELECT DISTINCT owner FROM runs"
		"  WHERE ended IS NULL AND owner IS NOT NULL AND owner <> $1"
		"  AND ($2::json IS NULL OR owner IN (SELECT json_array_elements_text($2::json)))) o"
		"  WHERE pg_try_advisory_lock(kn_owner_lock(o.owner)))"
		" SELECT json_build_object('runs', COALESCE(json_agg(json_build_object('id', r.id,"
		"  'task_version', r.task_version, 'task', t.task_key, 'owner', r.owner) ORDER BY r.started),"
		"  '[]')) FROM runs r JOIN dead d ON d.owner = r.owner"
		"  JOIN task_versions v ON v.id = r.task_version JOIN tasks t ON t.id = v.task_id"
		"  WHERE r.ended IS NULL",
		2, p, err);
}

int kn_store_orphans_release(kn_store *st, const char *me, kn_err *err)
{
	/* every advisory lock of this session but our own */
	const char *p[1] = {me};
	return kn_store_q(st, NULL,
		"SELECT pg_advisory_unlock(l.objid::bigint | (l.classid::bigint << 32)) FROM pg_locks l"
		" WHERE l.locktype = 'advisory' AND l.pid = pg_backend_pid() AND l.objsubid = 1"
		" AND (l.objid::bigint | (l.classid::bigint << 32)) <> kn_owner_lock($1)",
		1, p, err);
}

int kn_store_replay_orphans_end(kn_store *st, const char *me, const char *reason, size_t *n,
                                kn_err *err)
{
	if (n)
		*n = 0;
	char *list = NULL;
	const char *p[1] = {me};
	/* the owners whose lock could be taken are gone; their locks are released below */
	int rc = kn_store_q_text(st, &list,
		"WITH dead AS MATERIALIZED (SELECT o.owner FROM (SELECT DISTINCT owner FROM runs"
		"  WHERE ended IS NULL AND kind = 'replay' AND owner IS NOT NULL AND owner <> $1) o"
		"  WHERE pg_try_advisory_lock(kn_owner_lock(o.owner)))"
		" SELECT json_build_object('runs', COALESCE(json_agg(r.id), '[]')) FROM runs r"
		"  JOIN dead d ON d.owner = r.owner WHERE r.ended IS NULL AND r.kind = 'replay'",
		1, p, err);
	json_t *j = rc ? NULL : json_loads(list, 0, NULL), *id;
	free(list);
	size_t i;
	json_array_foreach(json_object_get(j, "runs"), i, id) {
		json_t *res = json_pack("{s:O, s:s, s:s}", "run", id, "status", "error", "reason", reason);
		char *text = res ? json_dumps(res, JSON_COMPACT) : NULL, ended[KN_TIME_MAX];
		json_decref(res);
		kn_time_rfc3339(ended, time(NULL));
		rc = text ? kn_store_run_finish(st, json_string_value(id), ended, text, err)
		          : kn_err_set(err, KN_ENOMEM, "out of memory");
		free(text);
		if (rc)
			break;
		if (n)
			++*n;
	}
	json_decref(j);
	kn_err ue = {0};
	if (kn_store_orphans_release(st, me, &ue) != 0 && !rc)
		rc = kn_err_set(err, ue.code, "%s", ue.msg);
	return rc;
}

int kn_store_run_import(kn_store *st, const kn_store_run *run, FILE *traj, const char *result_json,
                        kn_err *err)
{
	enum { BATCH = 500 };
	char *line = NULL, *lines[BATCH], started[64] = "", ended[KN_TIME_MAX];
	size_t cap = 0, n = 0;
	int64_t seq = 1;
	int r = 0, header = 1;
	kn_time_rfc3339(ended, time(NULL));
	rewind(traj);
	while (r == 0 && getline(&line, &cap, traj) > 0) {
		line[strcspn(line, "\n")] = '\0';
		if (!*line)
			continue;
		if (header) {
			header = 0;
			json_t *h = json_loads(line, 0, NULL);
			const char *t = json_string_value(json_object_get(h, "started"));
			snprintf(started, sizeof started, "%s", t ? t : ended);
			json_decref(h);
			kn_store_run start = *run;
			start.started = started;
			r = kn_store_run_start(st, &start, err);
			continue;
		}
		if (!(lines[n++] = strdup(line)))
			r = kn_err_set(err, KN_ENOMEM, "out of memory");
		if (n == BATCH || r) {
			if (r == 0)
				r = kn_store_events_append(st, run->id, seq, (const char *const *)lines, n, err);
			seq += (int64_t)n;
			while (n)
				free(lines[--n]);
		}
	}
	if (r == 0 && n)
		r = kn_store_events_append(st, run->id, seq, (const char *const *)lines, n, err);
	while (n)
		free(lines[--n]);
	free(line);
	if (r == 0 && !header)
		r = kn_store_run_finish(st, run->id, ended, result_json, err);
	return r;
}
