/* store_verdicts.c — the LLM judge's verdict cache in PostgreSQL: get/put by (model, prompt
 * version, rule, input), and kn_store_verdicts, the adapter that plugs it into services/llm's
 * kn_verdict_store. The adapter owns one connection behind a mutex (a kn_store is not
 * thread-safe); the store reconnects when the connection was lost. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"
#include "verdict.h"

int kn_store_verdict_get(kn_store *st, const char *model, int prompt, const char *rule,
                         const char *input, double *score, kn_err *err)
{
	*score = 0;
	if (!model || !rule || !input)
		return kn_err_set(err, KN_EINVAL, "a verdict key needs model, rule and input");
	char pb[24];
	const char *p[4] = {model, kn_store_i64(pb, prompt), rule, input};
	PGresult *res;
	int rc = kn_store_q(st, &res,
		"SELECT score FROM verdicts WHERE key = kn_verdict_key($1, $2::int, $3, $4)"
		" AND model = $1 AND prompt = $2::int AND rule = $3 AND input = $4", 4, p, err);
	if (rc != 0)
		return rc;
	int hit = PQntuples(res) == 1;
	if (hit)
		*score = strtod(PQgetvalue(res, 0, 0), NULL);
	PQclear(res);
	return hit;
}

int kn_store_verdict_put(kn_store *st, const char *model, int prompt, const char *rule,
                         const char *input, double score, const char *reason, kn_err *err)
{
	if (!model || !rule || !input)
		return kn_err_set(err, KN_EINVAL, "a verdict key needs model, rule and input");
	if (!(score >= 0 && score <= 1))
		return kn_err_set(err, KN_EINVAL, "a verdict score must be in [0, 1]");
	char pb[24], sb[40];
	snprintf(sb, sizeof sb, "%.17g", score);
	const char *p[6] = {model, kn_store_i64(pb, prompt), rule, input, sb, reason};
	return kn_store_q(st, NULL,
		"INSERT INTO verdicts (key, model, prompt, rule, input, score, reason)"
		" VALUES (kn_verdict_key($1, $2::int, $3, $4), $1, $2::int, $3, $4, $5::float8, $6)"
		" ON CONFLICT (key) DO UPDATE SET score = EXCLUDED.score, reason = EXCLUDED.reason,"
		" created = clock_timestamp()", 6, p, err);
}

struct kn_store_verdicts {
	pthread_mutex_t mu;
	kn_store *st;
	kn_verdict_store view;
};

static int verdicts_get(void *ud, const char *model, int prompt, const char *rule, const char *input,
                        double *score)
{
	kn_store_verdicts *v = ud;
	kn_err err;
	pthread_mutex_lock(&v->mu);
	int rc = kn_store_verdict_get(v->st, model, prompt, rule, input, score, &err);
	pthread_mutex_unlock(&v->mu);
	return rc;
}

static int verdicts_put(void *ud, const char *model, int prompt, const char *rule, const char *input,
                        double score, const char *reason, kn_err *err)
{
	kn_store_verdicts *v = ud;
	pthread_mutex_lock(&v->mu);
	int rc = kn_store_verdict_put(v->st, model, prompt, rule, input, score, reason, err);
	pthread_mutex_unlock(&v->mu);
	return rc;
}

int kn_store_verdicts_open(kn_store_verdicts **out, const char *conninfo, kn_err *err)
{
	*out = NULL;
	kn_store_verdicts *v = calloc(1, sizeof *v);
	if (!v)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	int rc = kn_store_open(&v->st, conninfo, err);
	if (rc != 0) {
		free(v);
		return rc;
	}
	pthread_mutex_init(&v->mu, NULL);
	v->view.get = verdicts_get;
	v->view.put = verdicts_put;
	v->view.ud = v;
	*out = v;
	return 0;
}

const struct kn_verdict_store *kn_store_verdicts_store(kn_store_verdicts *v)
{
	return &v->view;
}

void kn_store_verdicts_free(kn_store_verdicts *v)
{
	if (!v)
		return;
	kn_store_free(v->st);
	pthread_mutex_destroy(&v->mu);
	free(v);
}
