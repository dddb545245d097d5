/* store_serve.c — the serves on one database (store_serve.h, schemas/sql/120_serve_instances.sql):
 * each serve's row with the address other serves forward a run's calls to, where a run lives, the
 * rows of dead serves cleared under the owner lock test of crash recovery (020_run_owner.sql), and
 * kn_store_notifier: a thread that sends NOTIFY payloads for the live feed of runs other serves
 * show (services/runs/README.md, "Several serves"). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "keynode/clock.h"
#include "log.h"
#include "store_internal.h"
#include "store_serve.h"

#define NOTIFY_BATCH 256 /* payloads per statement */

int kn_store_serve_register(kn_store *st, const char *owner, const char *address, kn_err *err)
{
	if (!owner || !*owner || strlen(owner) >= KN_STORE_OWNER_MAX || !address || !*address ||
	    strlen(address) >= KN_STORE_ADDRESS_MAX)
		return kn_err_set(err, KN_EINVAL, "a serve row needs an owner id and an address");
	const char *p[2] = {owner, address};
	return kn_store_q_idem(st, NULL,
		"INSERT INTO serve_instances (owner, address) VALUES ($1, $2)"
		" ON CONFLICT (owner) DO UPDATE SET address = EXCLUDED.address",
		2, p, err);
}

int kn_store_serve_unregister(kn_store *st, const char *owner, kn_err *err)
{
	const char *p[1] = {owner};
	return kn_store_q(st, NULL, "DELETE FROM serve_instances WHERE owner = $1", 1, p, err);
}

int kn_store_serve_forget_dead(kn_store *st, const char *me, const char *owners, size_t *n,
                               kn_err *err)
{
	if (n)
		*n = 0;
	const char *p[2] = {me, owners};
	int64_t gone = 0;
	/* the owners are locked first (MATERIALIZED: once each), as in kn_store_orphans_take (store_runs.c) */
	int rc = kn_store_q_int64(st, &gone,
		"WITH dead AS MATERIALIZED (SELECT owner FROM serve_instances"
		"  WHERE owner <> $1 AND ($2::json IS NULL OR owner IN (SELECT json_array_elements_text($2::json)))"
		"  AND pg_try_advisory_lock(kn_owner_lock(owner))),"
		" d AS (DELETE FROM serve_instances s USING dead WHERE s.owner = dead.owner RETURNING 1)"
		" SELECT count(*) FROM d",
		2, p, err);
	kn_err ue = {0};
	if (kn_store_orphans_release(st, me, &ue) != 0 && !rc)
		rc = kn_err_set(err, ue.code, "%s", ue.msg);
	if (!rc && n)
		*n = (size_t)gone;
	return rc;
}

int kn_store_dead_owners(kn_store *st, const char *me, char **out, kn_err *err)
{
	const char *p[1] = {me};
	int rc = kn_store_q_text(st, out,
		"WITH o AS (SELECT DISTINCT owner FROM runs WHERE ended IS NULL AND owner IS NOT NULL"
		"  UNION SELECT owner FROM serve_instances),"
		" dead AS MATERIALIZED (SELECT owner FROM o WHERE owner <> $1"
		"  AND pg_try_advisory_lock(kn_owner_lock(owner)))"
		" SELECT COALESCE(json_agg(owner ORDER BY owner), '[]')::text FROM dead",
		1, p, err);
	kn_err ue = {0};
	if (kn_store_orphans_release(st, me, &ue) != 0 && !rc) {
		free(*out);
		*out = NULL;
		rc = kn_err_set(err, ue.code, "%s", ue.msg);
	}
	return rc;
}

int kn_store_run_home_get(kn_store *st, const char *run_id, kn_store_run_home *out, kn_err *err)
{
	memset(out, 0, sizeof *out);
	const char *p[1] = {run_id};
	PGresult *res;
	int rc = kn_store_q(st, &res,
		"SELECT (r.ended IS NOT NULL)::int, COALESCE(r.owner, ''), COALESCE(s.address, '')"
		" FROM runs r LEFT JOIN serve_instances s ON s.owner = r.owner WHERE r.id = $1",
		1, p, err);
	if (rc)
		return rc;
	if (PQntuples(res) != 1) {
		PQclear(res);
		return kn_err_set(err, KN_ENOTFOUND, "no run '%s'", run_id);
	}
	out->ended = strcmp(PQgetvalue(res, 0, 0), "1") == 0;
	snprintf(out->owner, sizeof out->owner, "%s", PQgetvalue(res, 0, 1));
	snprintf(out->address, sizeof out->address, "%s", PQgetvalue(res, 0, 2));
	PQclear(res);
	return 0;
}

/* ---- the notifier ----------------------------------------------------------------------------- */

struct item {
	struct item *next;
	char *payload;
};

struct kn_store_notifier {
	char *conninfo;
	char channel[64];
	size_t max, queued;
	unsigned long dropped;
	struct item *head, *tail;
	int stop;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t thread;
};

static void items_free(struct item *it)
{
	while (it) {
		struct item *next = it->next;
		free(it->payload);
		free(it);
		it = next;
	}
}

/* Send the payloads of list (at most NOTIFY_BATCH) as one statement. */
static int notify_batch(kn_store *st, const char *channel, struct item *list, kn_err *err)
{
	json_t *a = json_array();
	for (struct item *it = list; it && a; it = it->next)
		if (json_array_append_new(a, json_string(it->payload)) != 0) {
			json_decref(a);
			a = NULL;
		}
	char *text = a ? json_dumps(a, JSON_COMPACT) : NULL;
	json_decref(a);
	if (!text)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	const char *p[2] = {channel, text};
	int rc = kn_store_q(st, NULL,
		"SELECT count(pg_notify($1, t.m)) FROM json_array_elements_text($2::json)"
		" WITH ORDINALITY AS t(m, i)",
		2, p, err);
	free(text);
	return rc;
}

static void *notifier_main(void *arg)
{
	kn_store_notifier *n = arg;
	kn_store *st = NULL;
	int warned = 0;
	pthread_mutex_lock(&n->mu);
	for (;;) {
		while (!n->stop && !n->head)
			pthread_cond_wait(&n->cv, &n->mu);
		if (!n->head)
			break; /* stopped, nothing left */
		/* take up to a batch */
		struct item *list = n->head, *last = list;
		size_t k = 1;
		while (last->next && k < NOTIFY_BATCH) {
			last = last->next;
			k++;
		}
		n->head = last->next;
		if (!n->head)
			n->tail = NULL;
		last->next = NULL;
		n->queued -= k;
		int stopping = n->stop;
		pthread_mutex_unlock(&n->mu);
		kn_err err = {0};
		int rc = st ? 0 : kn_store_open(&st, n->conninfo, &err);
		if (!rc)
			rc = notify_batch(st, n->channel, list, &err);
		items_free(list);
		if (rc && !warned) {
			char q[300];
			kn_log_msg("warn", "store", "live feed notifications dropped", "channel=%s detail=\"%s\"",
			           n->channel, kn_log_quote(q, sizeof q, err.msg));
			warned = 1;
		} else if (!rc) {
			warned = 0;
		}
		pthread_mutex_lock(&n->mu);
		if (rc) {
			n->dropped += (unsigned long)k;
			if (!stopping && !n->stop) { /* the database is away: wait a little before the next try */
				struct timespec until;
				kn_time_deadline(&until, CLOCK_REALTIME, 1000);
				pthread_cond_timedwait(&n->cv, &n->mu, &until);
			}
			if (n->stop) { /* no more tries at the end */
				items_free(n->head);
				n->head = n->tail = NULL;
				n->queued = 0;
			}
		}
	}
	pthread_mutex_unlock(&n->mu);
	kn_store_free(st);
	return NULL;
}

int kn_store_notifier_new(kn_store_notifier **out, const char *conninfo, const char *channel,
                          size_t max, kn_err *err)
{
	*out = NULL;
	if (!conninfo || !channel || !*channel || strlen(channel) >= 64 ||
	    strspn(channel, "abcdefghijklmnopqrstuvwxyz_0123456789") != strlen(channel))
		return kn_err_set(err, KN_EINVAL, "bad notifier options (channel: lowercase identifier)");
	kn_store_notifier *n = calloc(1, sizeof *n);
	if (!n || !(n->conninfo = strdup(conninfo))) {
		free(n);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	snprintf(n->channel, sizeof n->channel, "%s", channel);
	n->max = max ? max : 4096;
	pthread_mutex_init(&n->mu, NULL);
	pthread_cond_init(&n->cv, NULL);
	if (pthread_create(&n->thread, NULL, notifier_main, n) != 0) {
		pthread_cond_destroy(&n->cv);
		pthread_mutex_destroy(&n->mu);
		free(n->conninfo);
		free(n);
		return kn_err_set(err, KN_ENOMEM, "cannot start the notifier thread");
	}
	*out = n;
	return 0;
}

int kn_store_notifier_send(kn_store_notifier *n, const char *payload, kn_err *err)
{
	size_t len = payload ? strlen(payload) : 0;
	if (!payload || len > KN_STORE_NOTIFY_MAX)
		return kn_err_set(err, KN_EINVAL, "a notification payload holds at most %d bytes",
		                  KN_STORE_NOTIFY_MAX);
	struct item *it = malloc(sizeof *it);
	if (!it || !(it->payload = strdup(payload))) {
		free(it);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	it->next = NULL;
	pthread_mutex_lock(&n->mu);
	if (n->queued >= n->max || n->stop) {
		n->dropped++;
		pthread_mutex_unlock(&n->mu);
		items_free(it);
		return kn_err_set(err, KN_ELIMIT, "notification queue full");
	}
	if (n->tail)
		n->tail->next = it;
	else
		n->head = it;
	n->tail = it;
	n->queued++;
	pthread_cond_signal(&n->cv);
	pthread_mutex_unlock(&n->mu);
	return 0;
}

void kn_store_notifier_free(kn_store_notifier *n)
{
	if (!n)
		return;
	pthread_mutex_lock(&n->mu);
	n->stop = 1;
	pthread_cond_broadcast(&n->cv);
	pthread_mutex_unlock(&n->mu);
	pthread_join(n->thread, NULL);
	if (n->dropped)
		kn_log_msg("warn", "store", "live feed notifications dropped in all", "channel=%s n=%lu",
		           n->channel, n->dropped);
	items_free(n->head);
	pthread_cond_destroy(&n->cv);
	pthread_mutex_destroy(&n->mu);
	free(n->conninfo);
	free(n);
}
