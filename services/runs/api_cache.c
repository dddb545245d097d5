/* api_cache.c — answers the server thread gives without a query (api_cache.h).
 *
 * One generation counter says how current a cached answer is: a value is put together with the
 * generation read *before* its query ran, and answered only while the counter still holds that
 * value. The counter is bumped by the change listener (kn_store_listener: a NOTIFY per committed
 * statement on the tables behind the listings, and every (re)connection, since notifications may
 * have been missed) and by this process's own writes at once (kn_api_cache_bump), so a write
 * acknowledged by this serve is seen by the next read, and one committed by another process (a
 * worker's replay, another serve's run) as soon as its notification arrives — before that, a read
 * may still get the answer from before the commit. While the listener is down nothing is cached.
 * Finished runs never change and are cached without a generation (round robin). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "api_cache.h"
#include "store.h"

struct tasks_entry {
	char *site, *status;        /* NULL: the parameter was absent */
	char *json;
	uint64_t gen;
};

struct run_entry {
	char id[KN_RUN_ID_MAX];
	char *json;
};

struct kn_api_cache {
	pthread_mutex_t mu;
	uint64_t gen;
	int db;                     /* -1 unknown, 0 down, 1 up */
	struct tasks_entry tasks[KN_API_TASKS_CACHE];
	size_t tasks_next;
	struct run_entry runs[KN_API_RUN_CACHE];
	size_t runs_next;
	long health[KN_API_HEALTH_STATES];
	char *replays;
	uint64_t gauges_gen;        /* 0: none */
	kn_store_listener *listener;
};

static void on_change(void *ud, int up)
{
	kn_api_cache *c = ud;
	pthread_mutex_lock(&c->mu);
	c->gen++;
	c->db = up;
	pthread_mutex_unlock(&c->mu);
}

int kn_api_cache_new(kn_api_cache **out, const char *conninfo, kn_err *err)
{
	*out = NULL;
	kn_api_cache *c = calloc(1, sizeof *c);
	if (!c)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	pthread_mutex_init(&c->mu, NULL);
	c->gen = 1;
	c->db = -1;
	int rc = kn_store_listener_new(&c->listener, conninfo, "keynode_change", on_change, c, err);
	if (rc) {
		pthread_mutex_destroy(&c->mu);
		free(c);
		return rc;
	}
	*out = c;
	return 0;
}

void kn_api_cache_free(kn_api_cache *c)
{
	if (!c)
		return;
	kn_store_listener_free(c->listener);
	for (size_t i = 0; i < KN_API_TASKS_CACHE; i++) {
		free(c->tasks[i].site);
		free(c->tasks[i].status);
		free(c->tasks[i].json);
	}
	for (size_t i = 0; i < KN_API_RUN_CACHE; i++)
		free(c->runs[i].json);
	free(c->replays);
	pthread_mutex_destroy(&c->mu);
	free(c);
}

uint64_t kn_api_cache_gen(kn_api_cache *c)
{
	pthread_mutex_lock(&c->mu);
	/* while the listener is down no change is heard: 0 is never current */
	uint64_t g = c->db == 1 ? c->gen : 0;
	pthread_mutex_unlock(&c->mu);
	return g;
}

void kn_api_cache_bump(kn_api_cache *c)
{
	pthread_mutex_lock(&c->mu);
	c->gen++;
	pthread_mutex_unlock(&c->mu);
}

int kn_api_cache_db(kn_api_cache *c)
{
	pthread_mutex_lock(&c->mu);
	int db = c->db;
	pthread_mutex_unlock(&c->mu);
	return db;
}

static int same(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* the caller's copy of s (NULL stays NULL); *ok 0 when out of memory */
static char *copy(const char *s, int *ok)
{
	if (!s)
		return NULL;
	char *d = strdup(s);
	if (!d)
		*ok = 0;
	return d;
}

int kn_api_cache_tasks_get(kn_api_cache *c, const char *site, const char *status, char **out)
{
	int hit = 0;
	*out = NULL;
	pthread_mutex_lock(&c->mu);
	for (size_t i = 0; c->db == 1 && i < KN_API_TASKS_CACHE && !hit; i++) {
		struct tasks_entry *e = &c->tasks[i];
		if (e->json && e->gen == c->gen && same(e->site, site) && same(e->status, status))
			hit = (*out = strdup(e->json)) != NULL;
	}
	pthread_mutex_unlock(&c->mu);
	return hit;
}

void kn_api_cache_tasks_put(kn_api_cache *c, const char *site, const char *status,
                            const char *json, uint64_t gen)
{
	int ok = 1;
	char *s1 = copy(site, &ok), *s2 = copy(status, &ok), *j = copy(json, &ok);
	pthread_mutex_lock(&c->mu);
	if (ok && j && gen != 0 && gen == c->gen) {
		size_t k = c->tasks_next;
		for (size_t i = 0; i < KN_API_TASKS_CACHE; i++) /* the same listing: replace it */
			if (c->tasks[i].json && same(c->tasks[i].site, site) &&
			    same(c->tasks[i].status, status))
				k = i;
		if (k == c->tasks_next)
			c->tasks_next = (c->tasks_next + 1) % KN_API_TASKS_CACHE;
		struct tasks_entry *e = &c->tasks[k];
		free(e->site);
		free(e->status);
		free(e->json);
		*e = (struct tasks_entry){s1, s2, j, gen};
		s1 = s2 = j = NULL;
	}
	pthread_mutex_unlock(&c->mu);
	free(s1);
	free(s2);
	free(j);
}

int kn_api_cache_run_get(kn_api_cache *c, const char *id, char **out)
{
	int hit = 0;
	*out = NULL;
	pthread_mutex_lock(&c->mu);
	for (size_t i = 0; i < KN_API_RUN_CACHE && !hit; i++)
		if (c->runs[i].json && strcmp(c->runs[i].id, id) == 0)
			hit = (*out = strdup(c->runs[i].json)) != NULL;
	pthread_mutex_unlock(&c->mu);
	return hit;
}

void kn_api_cache_run_put(kn_api_cache *c, const char *id, const char *json)
{
	if (strlen(id) >= KN_RUN_ID_MAX)
		return;
	char *j = strdup(json);
	if (!j)
		return;
	pthread_mutex_lock(&c->mu);
	struct run_entry *e = &c->runs[c->runs_next];
	c->runs_next = (c->runs_next + 1) % KN_API_RUN_CACHE;
	free(e->json);
	e->json = j;
	memcpy(e->id, id, strlen(id) + 1);
	pthread_mutex_unlock(&c->mu);
}

int kn_api_cache_gauges_get(kn_api_cache *c, long health[KN_API_HEALTH_STATES], char **replays)
{
	int hit = 0;
	*replays = NULL;
	pthread_mutex_lock(&c->mu);
	if (c->db == 1 && c->gauges_gen == c->gen && c->replays &&
	    (*replays = strdup(c->replays)) != NULL) {
		memcpy(health, c->health, sizeof c->health);
		hit = 1;
	}
	pthread_mutex_unlock(&c->mu);
	return hit;
}

void kn_api_cache_gauges_put(kn_api_cache *c, const long health[KN_API_HEALTH_STATES],
                             const char *replays, uint64_t gen)
{
	char *r = strdup(replays);
	if (!r)
		return;
	pthread_mutex_lock(&c->mu);
	if (gen != 0 && gen == c->gen) {
		memcpy(c->health, health, sizeof c->health);
		free(c->replays);
		c->replays = r;
		r = NULL;
		c->gauges_gen = gen;
	}
	pthread_mutex_unlock(&c->mu);
	free(r);
}
