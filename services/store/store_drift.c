/* store_drift.c — the two replays a drift diff compares (services/runs/api_drift.c):
 * a task's failing replay (the latest broken one, or the one asked for) and the last replay that
 * passed before it, across the task's versions, with their reports. */
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"

#define KN_REPLAY_SIDE(t)                                                                          \
	"json_build_object('id', " t ".id, 'run', " t ".run_id, 'status', " t ".status, 'created',"    \
	" kn_ts(" t ".created), 'version', (SELECT version FROM task_versions WHERE id = " t ".task_version),"\
	" 'screenshot', " t ".screenshot IS NOT NULL, 'report', " t ".report)"

int kn_store_drift_pair_json(kn_store *st, const char *ref, int64_t replay_id, char **out, kn_err *err)
{
	*out = NULL;
	int64_t vid;
	int rc = kn_store_task_resolve(st, ref, &vid, err);
	if (rc != 0)
		return rc;
	char vb[24], rb[24];
	const char *p[2] = {kn_store_i64(vb, vid), replay_id > 0 ? kn_store_i64(rb, replay_id) : NULL};
	return kn_store_q_text(st, out,
		"WITH t AS (SELECT task_id FROM task_versions WHERE id = $1::bigint),"
		" mine AS (SELECT p.* FROM replay_results p JOIN task_versions v ON v.id = p.task_version"
		"  WHERE v.task_id = (SELECT task_id FROM t)),"
		" f AS (SELECT * FROM mine WHERE CASE WHEN $2::bigint IS NULL THEN status = 'broken'"
		"  ELSE id = $2::bigint END ORDER BY created DESC, id DESC LIMIT 1),"
		" ps AS (SELECT m.* FROM mine m, f WHERE m.status = 'passed' AND (m.created, m.id) < (f.created, f.id)"
		"  ORDER BY m.created DESC, m.id DESC LIMIT 1)"
		" SELECT json_build_object('health', (SELECT COALESCE(h.state, 'unknown') FROM t"
		"  LEFT JOIN task_health h ON h.task_id = t.task_id),"
		"  'failing', (SELECT " KN_REPLAY_SIDE("f") " FROM f),"
		"  'passing', (SELECT " KN_REPLAY_SIDE("ps") " FROM ps))::text",
		2, p, err);
}
