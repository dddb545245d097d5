/* store_batch_stats.c — a finished agent batch's page and packed attempts, computed once and read back
 * as one row (schemas/sql/190_batch_stats.sql and 200_batch_rows.sql, store.h kn_store_batch_cache_get). The
 * reader computes on a miss and stores what it computed only under the claim (the row's token) it
 * read together with "every job done" from a row that existed (a finished batch without one gets one
 * first): any change to the batch since then (the migration's triggers give its row a new
 * token, in the changing transaction) makes the store a no-op, so a stored text is always what the
 * batch's rows make now. */
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"

/* finished (every job of the batch done), the row's token (NULL: none) and the cached text */
static const char sql_get_page[] =
	"SELECT NOT EXISTS (SELECT 1 FROM jobs j WHERE j.batch = b.id AND j.state <> 'done'), c.token, c.page"
	" FROM agent_batches b LEFT JOIN agent_batch_stats c ON c.batch = b.id WHERE b.id = $1";
static const char sql_get_rows[] =
	"SELECT NOT EXISTS (SELECT 1 FROM jobs j WHERE j.batch = b.id AND j.state <> 'done'), c.token, c.rows"
	" FROM agent_batches b LEFT JOIN agent_batch_stats c ON c.batch = b.id WHERE b.id = $1";
/* a finished batch without a row: one to claim (a change's row, made meanwhile, is waited for and kept) */
static const char sql_new[] =
	"INSERT INTO agent_batch_stats (batch, token) VALUES ($1, nextval('agent_batch_stats_token'))"
	" ON CONFLICT (batch) DO NOTHING";
static const char sql_set_page[] =
	"UPDATE agent_batch_stats SET page = $2, computed = clock_timestamp() WHERE batch = $1 AND token = $3";
static const char sql_set_rows[] =
	"UPDATE agent_batch_stats SET rows = $2, computed = clock_timestamp() WHERE batch = $1 AND token = $3";

/* One read: *finished, *claim (-1: no row) and *text. */
static int get(kn_store *st, const char *sql, const char *const *p, int *finished, int64_t *claim, char **text,
               kn_err *err)
{
	PGresult *res;
	int rc = kn_store_q(st, &res, sql, 1, p, err);
	if (rc)
		return rc;
	if (PQntuples(res) != 1) {
		PQclear(res);
		return kn_err_set(err, KN_ENOTFOUND, "no agent batch %s", p[0]);
	}
	*finished = strcmp(PQgetvalue(res, 0, 0), "t") == 0;
	*claim = PQgetisnull(res, 0, 1) ? -1 : strtoll(PQgetvalue(res, 0, 1), NULL, 10);
	if (*finished && !PQgetisnull(res, 0, 2) && !(*text = strdup(PQgetvalue(res, 0, 2))))
		rc = kn_err_set(err, KN_ENOMEM, "out of memory");
	PQclear(res);
	return rc;
}

int kn_store_batch_cache_get(kn_store *st, int64_t batch, kn_batch_cache what, char **text, int64_t *claim,
                             kn_err *err)
{
	*text = NULL;
	*claim = 0;
	char bb[24];
	const char *p[1] = {kn_store_i64(bb, batch)}, *sql = what == KN_BATCH_CACHE_PAGE ? sql_get_page : sql_get_rows;
	int finished = 0, rc = get(st, sql, p, &finished, claim, text, err);
	/* the claim is only good read together with "finished" from a row that exists: make it, read again */
	if (!rc && finished && *claim < 0 && !(rc = kn_store_q(st, NULL, sql_new, 1, p, err)))
		rc = get(st, sql, p, &finished, claim, text, err);
	if (rc || !finished || *claim < 0)
		*claim = 0;
	return rc;
}

int kn_store_batch_cache_put(kn_store *st, int64_t batch, kn_batch_cache what, int64_t claim, const char *text,
                             kn_err *err)
{
	if (claim <= 0)
		return 0;
	char bb[24], cb[24];
	const char *p[3] = {kn_store_i64(bb, batch), text, kn_store_i64(cb, claim)};
	return kn_store_q(st, NULL, what == KN_BATCH_CACHE_PAGE ? sql_set_page : sql_set_rows, 3, p, err);
}

/* the newest finished batch below $1 without its page or packed attempts */
static const char sql_missing[] =
	"SELECT b.id FROM agent_batches b LEFT JOIN agent_batch_stats c ON c.batch = b.id"
	" WHERE b.id < $1 AND (c.page IS NULL OR c.rows IS NULL)"
	" AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.batch = b.id AND j.state <> 'done')"
	" ORDER BY b.id DESC LIMIT 1";

int kn_store_batch_cache_missing(kn_store *st, int64_t below, int64_t *batch, kn_err *err)
{
	*batch = 0;
	char bb[24];
	const char *p[1] = {kn_store_i64(bb, below)};
	PGresult *res;
	int rc = kn_store_q(st, &res, sql_missing, 1, p, err);
	if (rc)
		return rc;
	if (PQntuples(res) == 1)
		*batch = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
	PQclear(res);
	return 0;
}
