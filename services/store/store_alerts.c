/* store_alerts.c — alerts: recorded once per open dedupe key (a partial unique index makes the
 * dedupe race-free), announced with NOTIFY keynode_alerts carrying the ALERT JSON (pg_notify with a
 * parameter, sent at commit), their delivery attempts, acknowledgement and the API listing. */
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"

/* NOTIFY payloads must stay under 8000 bytes: a larger alert is announced by id and title only
 * (listeners fetch the rest). */
static const char sql_alert_put[] =
	"WITH ins AS (INSERT INTO alerts (dedupe_key, severity, title, detail)"
	"  VALUES ($1, $2, $3, $4::jsonb) ON CONFLICT (dedupe_key) WHERE acked_at IS NULL DO NOTHING"
	"  RETURNING *),"
	" j AS (SELECT ins.id, kn_alert_json(ROW(ins.*)::alerts)::text AS t, ins.severity, ins.title FROM ins)"
	" SELECT j.id, pg_notify('keynode_alerts', CASE WHEN octet_length(j.t) < 7900 THEN j.t"
	"  ELSE json_build_object('id', j.id, 'severity', j.severity, 'title', left(j.title, 200),"
	"  'truncated', true)::text END) FROM j";

int kn_store_alert_put(kn_store *st, const char *dedupe_key, const char *severity, const char *title,
                       const char *detail_json, int64_t *id, kn_err *err)
{
	if (id)
		*id = 0;
	if (!dedupe_key || !severity || !title)
		return kn_err_set(err, KN_EINVAL, "an alert needs a dedupe key, a severity and a title");
	const char *p[4] = {dedupe_key, severity, title, detail_json};
	PGresult *res;
	int rc = kn_store_q(st, &res, sql_alert_put, 4, p, err);
	if (rc != 0)
		return rc;
	int fresh = PQntuples(res) == 1;
	if (fresh && id)
		*id = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
	PQclear(res);
	return fresh;
}

int kn_store_alert_delivery(kn_store *st, int64_t id, const char *channel, int ok, int attempts,
                            const char *detail, kn_err *err)
{
	char ib[24], ab[24];
	const char *p[5] = {kn_store_i64(ib, id), channel, ok ? "true" : "false", kn_store_i64(ab, attempts),
	                    detail};
	int rc = kn_store_q(st, NULL,
		"INSERT INTO alert_deliveries (alert_id, channel, ok, attempts, detail)"
		" VALUES ($1, $2, $3::bool, $4::int, $5)", 5, p, err);
	if (rc == KN_EDB && strstr(err ? err->msg : "", "foreign key"))
		return kn_err_set(err, KN_ENOTFOUND, "no alert %s", ib);
	return rc;
}

int kn_store_alert_ack(kn_store *st, int64_t id, kn_err *err)
{
	char ib[24];
	const char *p[1] = {kn_store_i64(ib, id)};
	int64_t n = 0;
	int rc = kn_store_q_int64(st, &n,
		"WITH u AS (UPDATE alerts SET acked_at = clock_timestamp() WHERE id = $1 AND acked_at IS NULL"
		" RETURNING 1) SELECT (SELECT count(*) FROM alerts WHERE id = $1)", 1, p, err);
	if (rc != 0)
		return rc;
	return n ? 0 : kn_err_set(err, KN_ENOTFOUND, "no alert %s", ib);
}

/* Keyset paging by (created, id) (alerts_open_created / alerts_created_id, 130_year.sql). */
int kn_store_alerts_json(kn_store *st, int include_acked, const char *before, int limit, char **out,
                         kn_err *err)
{
	*out = NULL;
	if (limit <= 0)
		limit = 100;
	if (limit > 1000)
		limit = 1000;
	if (before) {
		int64_t n = 0;
		const char *c[1] = {before};
		int rc = kn_store_q_int64(st, &n, "SELECT count(*) FROM alerts WHERE id ="
		                          " (CASE WHEN $1 ~ '^[0-9]{1,18}$' THEN $1 END)::bigint", 1, c, err);
		if (rc != 0)
			return rc;
		if (n == 0)
			return kn_err_set(err, KN_EINVAL, "before: no alert '%s' (pass the previous page's "
			                  "next_before)", before);
	}
	char lb[24];
	const char *p[3] = {include_acked ? "true" : "false", kn_store_i64(lb, limit), before};
	return kn_store_q_text(st, out,
		"WITH page AS (SELECT * FROM alerts a WHERE ($1::bool OR acked_at IS NULL)"
		"  AND ($3::bigint IS NULL OR (a.created, a.id) < (SELECT c.created, c.id FROM alerts c WHERE c.id = $3::bigint))"
		"  ORDER BY created DESC, id DESC LIMIT $2::int + 1)"
		" SELECT json_build_object('alerts', COALESCE((SELECT json_agg(kn_alert_json(a) ORDER BY a.created DESC,"
		"  a.id DESC) FROM (SELECT * FROM page ORDER BY created DESC, id DESC LIMIT $2::int) a), '[]'),"
		" 'next_before', CASE WHEN (SELECT count(*) FROM page) > $2::int THEN"
		"  (SELECT id FROM page ORDER BY created DESC, id DESC OFFSET $2::int - 1 LIMIT 1) END)",
		3, p, err);
}
