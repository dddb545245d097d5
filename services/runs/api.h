/* api.h — the JSON API of `keynode serve` (services/http/API.md): the handler the HTTP server
 * calls for every data route. Reads answer from the store over worker threads' own connections
 * (hot listings and finished runs are cached in memory, api_cache.h); writes go to the runs
 * registry, the store (task sets, replay jobs, alert acks) or kn_ingest. */
#ifndef KEYNODE_API_H
#define KEYNODE_API_H

#include "runs.h"
#include "server.h"

#define KN_API_RUN_CACHE 512 /* finished runs' JSON kept in memory */

typedef struct kn_api kn_api;

typedef struct kn_api_opts {
	const char *conninfo;  /* the database (the API opens its own connection) */
	kn_runs *runs;         /* borrowed */
	kn_ingest *ingest;     /* borrowed; for /healthz and the metrics gauges */
	kn_metrics *metrics;   /* borrowed */
	int browser_timeout_ms;/* kn_cdp_discover; 0 → 5000 */
	const char *workflows_dir; /* POST /tasksets attaches DIR/<task-id>.yaml (keynode/workflow.h)
	                            * to the tasks it uploads; NULL: none (borrowed) */
	const char *trace_root;    /* run and replay traces (services/trace), for the drift diff
	                            * (api_drift.c); NULL: none (borrowed) */
	/* this serve's owner id and its token: a run's call for a run of another serve is forwarded
	 * there with them (forward.h); owner NULL: never forwarded (borrowed) */
	const char *owner, *token;
} kn_api_opts;

/* Start the cache's change listener on the database. *out the caller's (kn_api_free). */
int kn_api_new(kn_api **out, const kn_api_opts *opts, kn_err *err);
void kn_api_free(kn_api *a);

/* The kn_server_opts.handle callback (ud is the kn_api). Server thread only: answers from memory
 * (caches, /healthz) or defers the request to a worker lane (kn_http_resp.defer). */
void kn_api_handle(void *ud, const kn_http_req *req, kn_http_resp *resp);
/* The kn_server_opts.handle_worker and worker_exit callbacks: a deferred request answered over
 * the worker thread's own store connection (*wctx, opened at its first request). */
void kn_api_handle_worker(void *ud, void **wctx, const kn_http_req *req, kn_http_resp *resp);
void kn_api_worker_exit(void *ud, void *wctx);
/* POST /api/agent-runs, GET /api/agent-runs and GET /api/agent-runs/{id} (api_agent_runs.c) over
 * the store st. */
void kn_api_agent_runs(kn_store *st, const kn_http_req *req, kn_http_resp *resp);
/* GET /api/tasksets/{name}/health (api_taskset_health.c): the set's health over time. */
void kn_api_taskset_health(kn_store *st, const kn_http_req *req, kn_http_resp *resp);
/* GET /api/tasksets/{name}/snapshots and POST /api/rescore (api_snapshots.c); a rescore judges
 * semantic key nodes with judge's semantic judge and threshold (NULL: the offline judge). */
void kn_api_snapshots(kn_store *st, const kn_eval_opts *judge, const kn_http_req *req, kn_http_resp *resp);
/* The kn_server_opts.before_metrics callback: sets the gauges that need no query (runs, ingest);
 * the task-health and replay gauges are set through kn_api_handle. */
void kn_api_before_metrics(void *ud);
/* The kn_server_opts.durable callback: kn_ingest_poll on the API's ingest. */
int kn_api_durable(void *ud, uint64_t from, uint64_t upto, kn_err *err);
/* The kn_server_opts.tick callback: the registry's housekeeping (idle external runs). */
void kn_api_tick(void *ud);

#endif
