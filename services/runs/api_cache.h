/* api_cache.h — the API's shared, invalidated answers (api_cache.c): the GET /api/tasks listings,
 * finished runs, the task-health and replay gauges of /metrics, and whether the database is
 * reachable. Thread-safe: the server thread reads, worker threads fill, the listener invalidates. */
#ifndef KEYNODE_API_CACHE_H
#define KEYNODE_API_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "keynode/error.h"
#include "metrics.h"
#include "store.h"

#define KN_API_TASKS_CACHE 16   /* GET /api/tasks listings kept (site × status combinations) */
#define KN_API_HEALTH_STATES 7

typedef struct kn_api_cache kn_api_cache;

/* Start the change listener on conninfo (schemas/sql/080_notify.sql). *out the caller's. */
int kn_api_cache_new(kn_api_cache **out, const char *conninfo, kn_err *err);
void kn_api_cache_free(kn_api_cache *c);

/* The generation: read it before a query whose answer is put; every change bumps it, and a
 * value put under an older generation is never answered. */
uint64_t kn_api_cache_gen(kn_api_cache *c);
/* A write of this process changed what the listings show: drop them now (the notification of the
 * same commit comes later). */
void kn_api_cache_bump(kn_api_cache *c);
/* 1 the database answers (the listener's connection is up), 0 it does not, -1 not known yet. */
int kn_api_cache_db(kn_api_cache *c);

/* GET /api/tasks?site=&status= (either NULL): 1 and *out (the caller's copy) when cached and
 * current, 0 when not. put keeps a copy of json computed under generation gen. */
int kn_api_cache_tasks_get(kn_api_cache *c, const char *site, const char *status, char **out);
void kn_api_cache_tasks_put(kn_api_cache *c, const char *site, const char *status,
                            const char *json, uint64_t gen);
/* A finished run's JSON (it never changes): 1 and *out (the caller's copy) when cached. */
int kn_api_cache_run_get(kn_api_cache *c, const char *id, char **out);
void kn_api_cache_run_put(kn_api_cache *c, const char *id, const char *json);
/* The /metrics gauges from the database: tasks per health state (the order of the states of
 * GET /api/tasks) and the replay counts as {"status": n} JSON. get: 1 and copies when current. */
int kn_api_cache_gauges_get(kn_api_cache *c, long health[KN_API_HEALTH_STATES], char **replays);
void kn_api_cache_gauges_put(kn_api_cache *c, const long health[KN_API_HEALTH_STATES],
                             const char *replays, uint64_t gen);

/* The /metrics gauges from the database (api_gauges.c). apply: set them from the cache on the
 * server thread, KN_ENOTFOUND when not current (then refresh them on a worker: two queries over
 * st; on a failure the gauges stay as they were). */
int kn_api_gauges_apply(kn_api_cache *c, kn_metrics *m);
void kn_api_gauges_refresh(kn_api_cache *c, kn_store *st, kn_metrics *m);

#endif
