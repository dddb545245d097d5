/* store_prune.c — retention (store_prune.h): each batch is one statement that picks at most N
 * candidates oldest first with FOR NO KEY UPDATE SKIP LOCKED (through the partial indexes of
 * schemas/sql/130_year.sql, so a batch never rescans what was pruned), deletes their events by the
 * primary key (run_id, seq) and marks the runs events_pruned, or clears the screenshots; it commits on
 * its own, so locks last one batch (tens of milliseconds) and ingest, the API and workers go on. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"
#include "store_prune.h"

const char *const kn_prune_kind_names[KN_PRUNE_KINDS] = {"agent events", "replay events", "screenshots"};

/* $1 kind, $2 days, $3 batch: runs picked, events deleted */
static const char sql_events_batch[] =
	"WITH r AS (SELECT id FROM runs WHERE kind = $1 AND events_pruned IS NULL AND ended IS NOT NULL"
	"  AND started < now() - make_interval(days => $2::int) AND ended < now() - make_interval(days => $2::int)"
	"  ORDER BY kind, started LIMIT $3::int FOR NO KEY UPDATE SKIP LOCKED),"
	" d AS (DELETE FROM events e USING r WHERE e.run_id = r.id RETURNING 1),"
	" u AS (UPDATE runs x SET events_pruned = clock_timestamp() FROM r WHERE x.id = r.id RETURNING 1)"
	" SELECT (SELECT count(*) FROM u), (SELECT count(*) FROM d)";
static const char sql_events_dry[] =
	"SELECT count(*), COALESCE(sum((SELECT count(*) FROM events e WHERE e.run_id = r.id)), 0) FROM runs r"
	" WHERE kind = $1 AND events_pruned IS NULL AND ended IS NOT NULL"
	"  AND started < now() - make_interval(days => $2::int) AND ended < now() - make_interval(days => $2::int)"
	"  AND $3::int > 0";
/* $1 days, $2 batch: replay results cleared, bytes freed */
static const char sql_shots_batch[] =
	"WITH p AS (SELECT id, octet_length(screenshot) AS n FROM replay_results WHERE screenshot IS NOT NULL"
	"  AND created < now() - make_interval(days => $1::int) ORDER BY created LIMIT $2::int"
	"  FOR NO KEY UPDATE SKIP LOCKED),"
	" u AS (UPDATE replay_results x SET screenshot = NULL FROM p WHERE x.id = p.id RETURNING p.n)"
	" SELECT count(*), COALESCE(sum(n), 0) FROM u";
static const char sql_shots_dry[] =
	"SELECT count(*), COALESCE(sum(octet_length(screenshot)), 0) FROM replay_results"
	" WHERE screenshot IS NOT NULL AND created < now() - make_interval(days => $1::int) AND $2::int > 0";

int kn_store_retention_any(const kn_store_retention *r)
{
	return r && (r->agent_events_days > 0 || r->replay_events_days > 0 || r->screenshots_days > 0);
}

/* One statement with n parameters answering (items, rows). */
static int two_counts(kn_store *st, const char *sql, int n, const char *const *p, int64_t *items,
                      int64_t *rows, kn_err *err)
{
	PGresult *res;
	int rc = kn_store_q(st, &res, sql, n, p, err);
	if (rc != 0)
		return rc;
	*items = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
	*rows = strtoll(PQgetvalue(res, 0, 1), NULL, 10);
	PQclear(res);
	return 0;
}

int kn_store_prune(kn_store *st, const kn_store_retention *r, int batch, int dry_run,
                   kn_store_prune_progress progress, void *ud, const volatile sig_atomic_t *stop,
                   kn_store_prune_totals *t, kn_err *err)
{
	memset(t, 0, sizeof *t);
	if (batch <= 0)
		batch = 500;
	const int days[KN_PRUNE_KINDS] = {r->agent_events_days, r->replay_events_days, r->screenshots_days};
	const char *const kinds[KN_PRUNE_KINDS] = {"agent", "replay", NULL};
	char db[16], bb[16];
	snprintf(bb, sizeof bb, "%d", batch);
	for (int k = 0; k < KN_PRUNE_KINDS; k++) {
		if (days[k] <= 0)
			continue;
		snprintf(db, sizeof db, "%d", days[k]);
		const char *p[3] = {kinds[k], db, bb};
		int shots = k == KN_PRUNE_SCREENSHOTS, n = shots ? 2 : 3; /* the screenshots' take no kind */
		const char *const *pk = shots ? p + 1 : p;
		int rc;
		if (dry_run) {
			rc = two_counts(st, shots ? sql_shots_dry : sql_events_dry, n, pk, &t->items[k], &t->rows[k], err);
			if (rc != 0)
				return rc;
		} else {
			for (;;) {
				if (stop && *stop)
					return 0;
				int64_t items = 0, rows = 0;
				rc = two_counts(st, shots ? sql_shots_batch : sql_events_batch, n, pk, &items, &rows, err);
				if (rc != 0)
					return rc;
				if (items == 0)
					break;
				t->items[k] += items;
				t->rows[k] += rows;
				if (progress)
					progress(ud, k, t, 0);
			}
		}
		if (progress)
			progress(ud, k, t, 1);
	}
	return 0;
}
