/* store_schedule.c — schedule fires for services/scheduler (store.h, "schedule fires"): the claim of
 * one (schedule, fire_time) and the replay jobs it enqueues, in one transaction, so that two `serve`
 * instances racing on the same fire enqueue exactly one set of jobs and a crash between the claim
 * and the jobs leaves neither. The claim is an INSERT … ON CONFLICT DO NOTHING on the primary key of
 * schedule_fires (schemas/sql/010_schedule.sql): a second inserter waits for the first to commit,
 * then inserts nothing. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"

#define KN_SCHEDULE_VERSIONS_MAX 100000 /* versions in one explicit selection */

/* "{1,2,3}" — a bigint[] literal; *out the caller's. */
static int int_array(char **out, const int64_t *v, size_t n, kn_err *err)
{
	char *s = malloc(n * 21 + 3), *p = s;
	if (!s)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	*p++ = '{';
	for (size_t i = 0; i < n; i++)
		p += sprintf(p, "%s%" PRId64, i ? "," : "", v[i]);
	*p++ = '}';
	*p = '\0';
	*out = s;
	return 0;
}

int kn_store_schedule_fire(kn_store *st, const char *schedule, int64_t fire_time, int catch_up,
                           const kn_store_schedule_sel *sel, size_t *enqueued, kn_err *err)
{
	char tb[24];
	char *arr = NULL;
	PGresult *res = NULL;
	int rc;
	if (enqueued)
		*enqueued = 0;
	if (!schedule || !*schedule || strlen(schedule) >= 64 || !sel)
		return kn_err_set(err, KN_EINVAL, "schedule fire: a schedule name of 1-63 bytes is required");
	if (sel->n_versions > KN_SCHEDULE_VERSIONS_MAX)
		return kn_err_set(err, KN_ELIMIT, "schedule fire: more than %d tasks selected",
		                  KN_SCHEDULE_VERSIONS_MAX);
	if (sel->n_versions && (rc = int_array(&arr, sel->versions, sel->n_versions, err)) != 0)
		return rc;
	if ((rc = kn_store_begin(st, err)) != 0) {
		free(arr);
		return rc;
	}
	const char *claim[3] = { schedule, kn_store_i64(tb, fire_time), catch_up ? "true" : "false" };
	if ((rc = kn_store_q(st, &res,
	                     "INSERT INTO schedule_fires (schedule, fire_time, catch_up)"
	                     " VALUES ($1, to_timestamp($2::bigint), $3::boolean)"
	                     " ON CONFLICT DO NOTHING RETURNING 1",
	                     3, claim, err)) != 0)
		goto fail;
	int won = PQntuples(res) == 1;
	PQclear(res);
	res = NULL;
	if (!won) {
		kn_store_rollback(st);
		free(arr);
		return 0;
	}
	if (sel->n_versions) {
		const char *p[2] = { schedule, arr };
		rc = kn_store_q(st, &res,
		                "INSERT INTO jobs (task_version, schedule)"
		                " SELECT v, $1 FROM unnest($2::bigint[]) WITH ORDINALITY AS u(v, i)"
		                " WHERE EXISTS (SELECT 1 FROM task_versions tv WHERE tv.id = u.v) ORDER BY i",
		                2, p, err);
	} else if (sel->taskset) {
		const char *p[2] = { schedule, sel->taskset };
		rc = kn_store_q(st, &res,
		                "INSERT INTO jobs (task_version, schedule)"
		                " SELECT t.current_version, $1 FROM tasks t JOIN tasksets s ON s.id = t.taskset_id"
		                " WHERE s.name = $2 AND t.active AND t.current_version IS NOT NULL ORDER BY t.id",
		                2, p, err);
	} else {
		const char *p[1] = { schedule };
		rc = kn_store_q(st, &res,
		                "INSERT INTO jobs (task_version, schedule)"
		                " SELECT t.current_version, $1 FROM tasks t"
		                " WHERE t.active AND t.current_version IS NOT NULL ORDER BY t.id",
		                1, p, err);
	}
	if (rc != 0)
		goto fail;
	long n = strtol(PQcmdTuples(res), NULL, 10);
	PQclear(res);
	res = NULL;
	char nb[24];
	const char *upd[3] = { schedule, tb, kn_store_i64(nb, n) };
	if ((rc = kn_store_q(st, NULL,
	                     "UPDATE schedule_fires SET jobs = $3::int"
	                     " WHERE schedule = $1 AND fire_time = to_timestamp($2::bigint)",
	                     3, upd, err)) != 0 ||
	    (rc = kn_store_commit(st, err)) != 0)
		goto fail;
	free(arr);
	if (enqueued)
		*enqueued = (size_t)n;
	return 1;
fail:
	PQclear(res);
	kn_store_rollback(st);
	free(arr);
	return rc;
}

int kn_store_schedule_last(kn_store *st, const char *schedule, int64_t *fire_time, kn_err *err)
{
	const char *p[1] = { schedule };
	int rc = kn_store_q_int64(st, fire_time,
	                          "SELECT extract(epoch FROM max(fire_time))::bigint FROM schedule_fires"
	                          " WHERE schedule = $1",
	                          1, p, err);
	if (rc == KN_ENOTFOUND)
		return kn_err_set(err, KN_ENOTFOUND, "schedule %.64s never fired", schedule ? schedule : "");
	return rc;
}
