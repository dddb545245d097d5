/* api_gauges.c — the /metrics gauges that come from the database: tasks per health state and
 * replay outcomes (workers are other processes, so they are counted in the database). They are
 * computed on a worker thread (kn_api_gauges_refresh, two queries) and kept in the API cache under
 * its generation; while nothing changed, /metrics sets them from there on the server thread
 * (kn_api_gauges_apply) and runs no query. */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "api_cache.h"
#include "store.h"

static const char *const states[KN_API_HEALTH_STATES] = {"healthy", "flaky", "broken",
                                                         "recovered", "error", "unknown",
                                                         "blocked"};

static void apply(kn_metrics *m, const long health[KN_API_HEALTH_STATES], const char *replays)
{
	for (size_t k = 0; k < KN_API_HEALTH_STATES; k++)
		kn_metrics_set_health(m, states[k], health[k]);
	json_t *j = json_loads(replays, 0, NULL);
	const char *status;
	json_t *n;
	json_object_foreach(j, status, n)
		kn_metrics_set_replays(m, status, (long)json_integer_value(n));
	json_decref(j);
}

int kn_api_gauges_apply(kn_api_cache *c, kn_metrics *m)
{
	long health[KN_API_HEALTH_STATES];
	char *replays = NULL;
	if (!kn_api_cache_gauges_get(c, health, &replays))
		return KN_ENOTFOUND;
	apply(m, health, replays);
	free(replays);
	return 0;
}

void kn_api_gauges_refresh(kn_api_cache *c, kn_store *st, kn_metrics *m)
{
	uint64_t gen = kn_api_cache_gen(c); /* before the queries: see api_cache.c */
	kn_err err = {0};
	char *out = NULL, *replays = NULL;
	if (kn_store_tasks_json(st, NULL, NULL, &out, &err) != 0)
		return; /* the next /metrics tries again; the gauges stay */
	long counts[KN_API_HEALTH_STATES] = {0};
	json_t *j = json_loads(out, 0, NULL);
	free(out);
	json_t *tasks = j ? json_object_get(j, "tasks") : NULL, *t;
	size_t i;
	json_array_foreach(tasks, i, t) {
		const char *h = json_string_value(json_object_get(t, "health"));
		for (size_t k = 0; h && k < KN_API_HEALTH_STATES; k++)
			if (strcmp(h, states[k]) == 0)
				counts[k]++;
	}
	json_decref(j);
	if (kn_store_replay_counts_json(st, &replays, &err) != 0)
		return;
	apply(m, counts, replays);
	kn_api_cache_gauges_put(c, counts, replays, gen);
	free(replays);
}
