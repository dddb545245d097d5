/* store_traces.c — the index rows of run traces (schemas/sql/050_traces.sql): one row per
 * trace folder `keynode serve --trace` keeps, upserted when its index.json appears, deleted when
 * retention removes the folder. */
#include <stdio.h>
#include <stdlib.h>

#include "store_internal.h"

static const char sql_trace_put[] =
	"INSERT INTO traces (run_id, path, kind, status, steps, shots, skipped, bytes)"
	" VALUES ($1, $2, $3, $4, $5::int, $6::int, $7::int, $8::bigint)"
	" ON CONFLICT (run_id) DO UPDATE SET path = EXCLUDED.path, kind = EXCLUDED.kind,"
	"  status = EXCLUDED.status, steps = EXCLUDED.steps, shots = EXCLUDED.shots,"
	"  skipped = EXCLUDED.skipped, bytes = EXCLUDED.bytes, indexed = now()";

int kn_store_trace_put(kn_store *st, const kn_store_trace *t, kn_err *err)
{
	if (!t || !t->run_id || !t->path || !t->kind || !t->status)
		return kn_err_set(err, KN_EINVAL, "a trace row needs a run id, a path, a kind and a status");
	char steps[24], shots[24], skipped[24], bytes[32];
	snprintf(steps, sizeof steps, "%d", t->steps);
	snprintf(shots, sizeof shots, "%d", t->shots);
	snprintf(skipped, sizeof skipped, "%d", t->skipped);
	snprintf(bytes, sizeof bytes, "%lld", t->bytes);
	const char *p[8] = {t->run_id, t->path, t->kind, t->status, steps, shots, skipped, bytes};
	PGresult *res;
	int rc = kn_store_q(st, &res, sql_trace_put, 8, p, err);
	if (rc == 0)
		PQclear(res);
	return rc;
}

int kn_store_trace_drop(kn_store *st, const char *run_id, kn_err *err)
{
	const char *p[1] = {run_id};
	PGresult *res;
	int rc = kn_store_q(st, &res, "DELETE FROM traces WHERE run_id = $1", 1, p, err);
	if (rc == 0)
		PQclear(res);
	return rc;
}
