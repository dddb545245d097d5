/* metrics.h — the service's Prometheus metrics (text format 0.0.4), thread-safe.
 *
 * One process-wide registry: counters, gauges and one latency histogram per API route, every
 * update under one mutex (updates are a few additions; the lock is never held while doing I/O).
 * Names are those of services/http/API.md. Gauges that live elsewhere (runs active, ingest
 * spool, database up, task health) are set by their owner before each render. */
#ifndef KEYNODE_HTTP_METRICS_H
#define KEYNODE_HTTP_METRICS_H

#include <stddef.h>

#include "request.h"

typedef struct kn_metrics kn_metrics;

/* *out the caller's (kn_metrics_free). */
int kn_metrics_new(kn_metrics **out);
void kn_metrics_free(kn_metrics *m);

/* One API request answered: route, status code, seconds it took. */
void kn_metrics_request(kn_metrics *m, kn_route route, int code, double seconds);
/* A run ended with status (the run result's "status": finished, incomplete, …). */
void kn_metrics_run_ended(kn_metrics *m, const char *status);
void kn_metrics_event(kn_metrics *m, int keynodes_reached);
/* Replay results with status so far, over every worker (counted in the database). */
void kn_metrics_set_replays(kn_metrics *m, const char *status, long n);
void kn_metrics_set_runs_active(kn_metrics *m, long n);
void kn_metrics_set_ingest(kn_metrics *m, long spooled, int db_up);
/* Tasks per health state (state names of kn_health_name). */
void kn_metrics_set_health(kn_metrics *m, const char *state, long n);

/* Render everything; *out is the caller's (free). */
int kn_metrics_render(kn_metrics *m, char **out, size_t *len);

#endif
