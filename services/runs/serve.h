/* serve.h — the `keynode serve` process, assembled: the HTTP/websocket server (services/http), the
 * live runs registry and JSON API (this folder), the durable write path kn_ingest with its spool,
 * the store, alerts, the live view, the LLM judge when configured and the orphan sweeper. The CLI
 * (services/cli/cmd_serve.c) parses options, loads the config, starts this, adds the scheduler and
 * retention threads, serves, and frees it on the way out. */
#ifndef KEYNODE_SERVE_H
#define KEYNODE_SERVE_H

#include <signal.h>

#include "config.h"
#include "keynode/error.h"

typedef struct kn_serve kn_serve;

typedef struct kn_serve_opts {
	const kn_config *cfg;     /* borrowed; outlives the serve */
	const char *listen;       /* --listen; NULL: http.listen */
	const char *spool_base;   /* folder holding one spool per database; NULL: out of memory */
	int spool_fixed;          /* --spool-dir given: that spool or an error, never the next free slot */
	const char *advertise;    /* --advertise; NULL: http.advertise, else the listen address */
	const char *workflows;    /* --workflows folder, or NULL */
	int log_requests;         /* one log line per request */
	int verdict_wait_ms;      /* --verdict-wait; 0: semantic.llm.timeout_ms */
	int trace_mode;           /* kn_trace_mode of every watched run */
	const char *trace_dir;    /* --trace-dir; NULL: traces/ beside spool_base */
	int trace_keep_days;      /* traces older than this are swept hourly */
	long long trace_max_bytes;/* screenshots of one run stop here */
} kn_serve_opts;

/* Start everything but the scheduler and retention, in the order that makes a failure cheap: the
 * database and its schema, this process's owner lock, the listener bound (a taken port is said
 * before anything else starts), its serve_instances row, the relay and live view, the ingest with
 * what a dead process left in the spool flushed, alerts, the judge, the registry, one sweep of
 * orphaned runs and the sweeper, the API. 0, or nonzero having said why on stderr as
 * "keynode serve: …"; either way *out is set and must be given to kn_serve_free. */
int kn_serve_start(kn_serve **out, const kn_serve_opts *o);

/* Serve until *stop is set (a signal handler) or the server fails; logs "serving" with the URL,
 * port, spool and owner, then "stopping". 0 after a clean stop. */
int kn_serve_run(kn_serve *sv, volatile sig_atomic_t *stop);

/* Stop and free, in the order that keeps results: the sweeper, the live runs (their results go to
 * ingest), the live view, the relay, the serve_instances row, alerts and judge, then the ingest
 * flushed (10 s; what is left stays in the spool, logged), the server and the rest. NULL: no-op. */
void kn_serve_free(kn_serve *sv);

#endif
