/* serve.c — the `keynode serve` process assembled (serve.h): start-up in the order that makes a
 * failure cheap, the server's callbacks (routing to the API or the trace files, the tick that indexes
 * and sweeps traces, the live view's viewers, alerts the database did not record), and the shutdown
 * that keeps every live run's result. services/cli/cmd_serve.c only parses options and calls this. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "keynode/clock.h"
#include "keynode/fs.h"
#include "keynode/redact.h"
#include "alerts.h"
#include "api.h"
#include "live.h"
#include "live_hub.h"
#include "log.h"
#include "relay.h"
#include "runs.h"
#include "serve.h"
#include "server.h"
#include "store.h"
#include "store_serve.h"
#include "trace.h"
#include "trace_routes.h"
#include "verdict.h"

#define SPOOL_SLOTS 16 /* serves on one machine and database sharing the default spool */

struct kn_serve {
	const kn_config *cfg;
	const char *db;    /* cfg->database_url */
	kn_server *srv;
	kn_stream *stream;
	kn_runs *runs;
	kn_api *api; /* set once everything runs; the server is created (bound) before it */
	char *traces;      /* --trace-dir: run traces (services/trace) */
	int keep_days;     /* --trace-keep-days */
	double last_sweep; /* monotonic seconds of the last retention sweep */
	double last_scan;  /* … of the last look for new traces to index */
	long long scanned; /* epoch seconds: traces indexed up to here */
	kn_store *tst;     /* the traces' index rows (schemas/sql/050_traces.sql); server thread only */
	kn_stream *live_stream; /* /api/live's viewers */
	kn_runs_live *live;     /* … and the NOTIFY bridge to the pages' holders (live.h) */
	kn_metrics *metrics;
	kn_ingest *ingest;
	kn_alerts *alerts;
	kn_store_verdicts *verdicts;
	kn_llm *llm;
	kn_store *st;      /* holds this process's owner lock; the sweeper's once it runs */
	kn_runs_relay *relay;
	kn_live_hub *live_hub;
	kn_runs_sweeper *sweeper;
	int registered;    /* the serve_instances row exists */
	kn_http_token *tokens;
	kn_runs_opts ro;   /* the sweeper keeps a pointer to it */
	kn_redact redact;  /* ro.redact */
	const char *listen, *token;
	char *spool;
	char advertise[KN_STORE_ADDRESS_MAX];
	char owner[160], host[64];
};

/* "keynode serve: …" on stderr; returns -1. */
static int say(const char *fmt, ...) KN_PRINTF(1, 2);
static int say(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("keynode serve: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	return -1;
}

static void handle(void *ud, const kn_http_req *req, kn_http_resp *resp)
{
	kn_serve *sv = ud;
	if (kn_http_trace_route(req->route)) /* files, not the database (trace_routes.c) */
		kn_http_trace_handle(sv->traces, req, resp);
	else
		kn_api_handle(sv->api, req, resp);
}

/* deferred requests, on the server's worker threads (which end before kn_server_run returns) */
static void handle_worker(void *ud, void **wctx, const kn_http_req *req, kn_http_resp *resp)
{
	kn_api_handle_worker(((kn_serve *)ud)->api, wctx, req, resp);
}

static void worker_exit(void *ud, void *wctx)
{
	kn_api_worker_exit(((kn_serve *)ud)->api, wctx);
}

static void before_metrics(void *ud)
{
	kn_api_before_metrics(((kn_serve *)ud)->api);
}

static int durable(void *ud, uint64_t from, uint64_t upto, kn_err *err)
{
	return kn_api_durable(((kn_serve *)ud)->api, from, upto, err);
}

/* A trace folder appeared or changed: its index row (kn_trace_scan callback). */
static void trace_indexed(void *ud, const char *run_id, const char *dir, json_t *idx, long long bytes)
{
	kn_serve *sv = ud;
	kn_store_trace t = {.run_id = run_id, .path = dir, .bytes = bytes};
	kn_trace_row_of(idx, &t.kind, &t.status, &t.steps, &t.shots, &t.skipped);
	kn_err err = {0};
	char q[512];
	if (kn_store_trace_put(sv->tst, &t, &err) != 0)
		kn_log_msg("warn", "serve", "cannot index a trace", "run=%s detail=\"%s\"", run_id,
		           kn_log_quote(q, sizeof q, err.msg));
}

static void trace_removed(void *ud, const char *run_id)
{
	kn_serve *sv = ud;
	kn_err err = {0};
	char q[512];
	if (kn_store_trace_drop(sv->tst, run_id, &err) != 0)
		kn_log_msg("warn", "serve", "cannot drop a trace row", "run=%s detail=\"%s\"", run_id,
		           kn_log_quote(q, sizeof q, err.msg));
}

/* kn_server_opts.live_in: a live view viewer came, went or acts (live.h). */
static void live_in(void *ud, const char *run, int what, const kn_live_input *in, const char *client)
{
	kn_serve *sv = ud;
	kn_runs_live_in(sv->live, run, what, in, client);
}

/* kn_server_opts.live_can_take: may a viewer take run over now (live.h). */
static int live_can_take(void *ud, const char *run, char *why, size_t cap)
{
	kn_serve *sv = ud;
	return kn_runs_live_can_take(sv->live, run, why, cap);
}

static void server_tick(void *ud)
{
	kn_serve *sv = ud;
	kn_api_tick(sv->api);
	kn_runs_live_tick(sv->live);
	if (sv->traces && sv->tst && kn_time_mono_s() - sv->last_scan >= 2) { /* new traces: index rows */
		sv->last_scan = kn_time_mono_s();
		long long now = (long long)time(NULL);
		kn_trace_scan(sv->traces, sv->scanned, trace_indexed, sv);
		sv->scanned = now - 1; /* an index written in the second of the scan is seen again */
	}
	if (sv->traces && kn_time_mono_s() - sv->last_sweep >= 3600) { /* trace retention, hourly */
		sv->last_sweep = kn_time_mono_s();
		kn_trace_sweep(sv->traces, sv->keep_days, sv->tst ? trace_removed : NULL, sv);
	}
}

static void wake(void *ud)
{
	kn_serve *sv = ud;
	if (sv->srv)
		kn_server_wake(sv->srv);
}

/* An alert this serve raised that the database did not record (id 0: unreachable) — a recorded one
 * reaches /api/stream through the relay's LISTEN keynode_alerts, like every other process's. */
static void on_alert(void *ud, const char *alert_json)
{
	kn_serve *sv = ud;
	json_t *a = json_loads(alert_json, 0, NULL);
	if (json_integer_value(json_object_get(a, "id")) > 0) {
		json_decref(a);
		return;
	}
	json_t *m = json_pack("{s:s, s:o}", "type", "alert", "alert", a ? a : json_null());
	char *t = m ? json_dumps(m, JSON_COMPACT) : NULL;
	if (t)
		kn_stream_publish(sv->stream, NULL, t);
	free(t);
	json_decref(m);
}

/* The spool path, the trace folder (and its index connection) and this process's owner id. */
static int start_paths(kn_serve *sv, const kn_serve_opts *o, char *key, size_t key_cap, kn_err *err)
{
	/* one spool per database: records of one are never flushed into another */
	if (!o->spool_base || kn_ingest_spool_key(key, key_cap, sv->db, err) != 0 ||
	    !(sv->spool = malloc(strlen(o->spool_base) + strlen(key) + 8)))
		return say("%s", err->msg[0] ? err->msg : "out of memory");
	sprintf(sv->spool, "%s/%s", o->spool_base, key);
	if (o->trace_dir) { /* traces: --trace-dir, else traces/ beside the spool folder */
		sv->traces = strdup(o->trace_dir);
	} else if ((sv->traces = malloc(strlen(o->spool_base) + 8)) != NULL) {
		strcpy(sv->traces, o->spool_base);
		char *slash = strrchr(sv->traces, '/');
		strcpy(slash ? slash + 1 : sv->traces, "traces");
	}
	sv->keep_days = o->trace_keep_days;
	sv->last_sweep = sv->last_scan = -1e9;
	if (sv->traces && kn_store_open(&sv->tst, sv->db, err) != 0) /* the traces' rows: own connection */
		return say("database unreachable: %s", err->msg);
	if (o->trace_mode != KN_TRACE_OFF && (!sv->traces || kn_mkdirs(sv->traces, 0700, err) != 0))
		return say("%s", sv->traces ? err->msg : "out of memory");
	struct timespec now = kn_time_wall();
	gethostname(sv->host, sizeof sv->host - 1);
	snprintf(sv->owner, sizeof sv->owner, "s-%s-%ld-%lld%03ld", sv->host, (long)getpid(),
	         (long long)now.tv_sec, now.tv_nsec / 1000000);
	/* an owner id travels in X-Kn-Forwarded and the live feed relay: A-Z a-z 0-9 . _ - only */
	for (char *p = sv->owner; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", *p))
			*p = '_';
	if (kn_store_open(&sv->st, sv->db, err) != 0)
		return say("database unreachable: %s", err->msg);
	int version = 0;
	if (kn_store_schema_version(sv->st, &version, err) != 0 || version == 0)
		return say("the database is not migrated: run keynode migrate");
	/* st stays open: it holds this process's owner lock (crash recovery) while serve lives; once
	 * the sweeper runs, only its thread uses st (it takes the lock again after a reconnect) */
	if (kn_store_owner_hold(sv->st, sv->owner, err) != 0)
		return say("database: %s", err->msg);
	return 0;
}

/* Bind the listener (a taken port is reported before anything else starts). */
static int start_server(kn_serve *sv, const kn_serve_opts *o, kn_err *err)
{
	const kn_config *cfg = sv->cfg;
	if (kn_metrics_new(&sv->metrics) != 0 || kn_stream_new(&sv->stream, 0, wake, sv) != 0 ||
	    kn_stream_new(&sv->live_stream, 0, wake, sv) != 0)
		return say("out of memory");
	kn_server_opts so = {0};
	so.listen = sv->listen = o->listen ? o->listen : cfg->http_listen;
	so.token = sv->token = cfg->http_token;
	/* http.tokens: the names the maintenance log records as authors */
	sv->tokens = cfg->n_http_tokens ? calloc(cfg->n_http_tokens, sizeof *sv->tokens) : NULL;
	for (size_t i = 0; sv->tokens && i < cfg->n_http_tokens; i++)
		sv->tokens[i] = (kn_http_token){cfg->http_tokens[i].name, cfg->http_tokens[i].token};
	so.tokens = sv->tokens;
	so.n_tokens = sv->tokens ? cfg->n_http_tokens : 0;
	so.metrics = sv->metrics;
	so.stream = sv->stream;
	so.handle = handle;
	so.before_metrics = before_metrics;
	so.tick = server_tick;
	so.durable = durable;
	so.ud = sv;
	so.log_requests = o->log_requests;
	so.hosts = (const char *const *)cfg->http_hosts;
	so.n_hosts = cfg->n_http_hosts;
	so.origins = (const char *const *)cfg->http_origins;
	so.n_origins = cfg->n_http_origins;
	so.proxies = (const char *const *)cfg->http_proxies;
	so.n_proxies = cfg->n_http_proxies;
	so.stream_idle_s = cfg->http_stream_idle_s;
	so.handle_worker = handle_worker;
	so.worker_exit = worker_exit;
	so.live = sv->live_stream; /* the live view */
	so.live_public = cfg->http_live_view_public;
	so.live_max_s = cfg->http_live_view_max_s;
	so.live_in = live_in;
	so.live_can_take = live_can_take;
	if (kn_server_new(&sv->srv, &so, err) != 0)
		return say("%s", err->msg);
	return 0;
}

/* This serve's serve_instances row (where the other serves forward calls for its live runs,
 * README.md "Several serves"), the live feed relay and the live view's NOTIFY bridge. */
static int start_peers(kn_serve *sv, const kn_serve_opts *o, kn_err *err)
{
	const kn_config *cfg = sv->cfg;
	if (o->advertise || cfg->http_advertise)
		snprintf(sv->advertise, sizeof sv->advertise, "%s", o->advertise ? o->advertise : cfg->http_advertise);
	else if (kn_server_advertise(sv->srv, sv->host, sv->advertise, sizeof sv->advertise, err) != 0)
		return say("%s", err->msg);
	if (kn_store_serve_register(sv->st, sv->owner, sv->advertise, err) != 0)
		return say("database: %s%s", err->msg,
		           strstr(err->msg, "serve_instances") ? " (run keynode migrate)" : "");
	sv->registered = 1;
	if (kn_runs_relay_new(&sv->relay, sv->db, sv->owner, sv->stream, err) != 0)
		return say("live feed relay: %s", err->msg);
	if (kn_runs_live_new(&sv->live, sv->db, sv->stream, sv->live_stream, err) != 0)
		return say("live view: %s", err->msg);
	return 0;
}

/* The ingest on this database's spool: without --spool-dir, a serve that finds the default spool
 * in use takes the next free slot (KEY.2, KEY.3 …): several serves share a machine, and the one
 * that takes the slot a dead serve left flushes what it holds (the same database). Then what a
 * dead process left in the spool goes in before its runs are ended. */
static int start_ingest(kn_serve *sv, const kn_serve_opts *o, const char *key, kn_err *err)
{
	kn_ingest_opts io = {0};
	io.conninfo = sv->db;
	io.spool_dir = sv->spool;
	io.on_durable = wake; /* held answers (POST …/events) go out as soon as they are durable */
	io.on_durable_ud = sv;
	for (int slot = 1;; slot++) {
		if (slot > 1)
			sprintf(sv->spool, "%s/%s.%d", o->spool_base, key, slot);
		int irc = kn_ingest_new(&sv->ingest, &io, err);
		if (irc == 0)
			break;
		if (irc != KN_EBUSY || o->spool_fixed || slot == SPOOL_SLOTS)
			return say("ingest: %s", err->msg);
	}
	char q[512];
	if (kn_ingest_sync(sv->ingest, 30000, err) != 0)
		kn_log_msg("warn", "serve", "spool not flushed at start", "detail=\"%s\"",
		           kn_log_quote(q, sizeof q, err->msg));
	return 0;
}

/* semantic.backend llm: the LLM judge with the PostgreSQL verdict cache (shared by every serve and
 * worker), set into the runs' options. */
static int start_judge(kn_serve *sv, const kn_serve_opts *o, kn_err *err)
{
	const kn_config *cfg = sv->cfg;
	const char *url = cfg->semantic.llm.url, *model = cfg->semantic.llm.model;
	if (!url || !model)
		return say("semantic.backend llm needs semantic.llm.url and semantic.llm.model");
	if (kn_store_verdicts_open(&sv->verdicts, sv->db, err) != 0)
		return say("verdict cache: %s", err->msg);
	const char *kenv = cfg->semantic.llm.api_key_env ? cfg->semantic.llm.api_key_env : "OPENAI_API_KEY";
	kn_llm_opts lo = {0};
	lo.url = url;
	lo.model = model;
	lo.api_key = getenv(kenv);
	lo.timeout_ms = cfg->semantic.llm.timeout_ms;
	lo.usd_per_1k_prompt = cfg->semantic.llm.price_prompt;
	lo.usd_per_1k_completion = cfg->semantic.llm.price_completion;
	lo.cache = kn_store_verdicts_store(sv->verdicts);
	if (kn_llm_new(&sv->llm, &lo, err) != 0)
		return say("%s", err->msg);
	sv->ro.eval.semantic = kn_llm_semantic(sv->llm);
	sv->ro.llm = sv->llm;
	sv->ro.verdict_wait_ms = o->verdict_wait_ms ? o->verdict_wait_ms : (int)lo.timeout_ms;
	char q[512];
	kn_log_msg("info", "serve", "semantic judge: llm", "model=\"%s\"", kn_log_quote(q, sizeof q, model));
	return 0;
}

/* Alerts, the live runs registry (with its live view and judge), the orphaned runs a dead process
 * left live ended now and by the sweeper every http.orphan_sweep_s, then the API. */
static int start_runs(kn_serve *sv, const kn_serve_opts *o, kn_err *err)
{
	const kn_config *cfg = sv->cfg;
	kn_alerts_opts ao = {.config = cfg, .conninfo = sv->db, .on_alert = on_alert, .ud = sv};
	if (kn_alerts_new(&sv->alerts, &ao, err) != 0)
		return say("alerts: %s", err->msg);
	kn_runs_opts *ro = &sv->ro;
	ro->ingest = sv->ingest;
	ro->stream = sv->stream;
	ro->metrics = sv->metrics;
	ro->alerts = sv->alerts;
	ro->eval.threshold = cfg->semantic.threshold;
	ro->owner = sv->owner;
	ro->max_events = cfg->http_max_run_events;
	ro->trace_mode = o->trace_mode;
	ro->trace_root = sv->traces;
	ro->trace_max_bytes = o->trace_max_bytes;
	kn_config_redact_rules(&sv->redact, cfg); /* keynode.yaml guard: and redact:, every watched run */
	ro->guard = cfg->guard;
	ro->canary_timeout_ms = cfg->canary_timeout_ms;
	ro->redact = &sv->redact;
	ro->relay = sv->relay;
	/* the live view of the runs this serve watches (its viewers' side is sv->live) */
	kn_live_hub_opts lho = {.conninfo = sv->db, .takeover_idle_s = cfg->http_takeover_idle_s};
	if (kn_live_hub_new(&sv->live_hub, &lho, err) != 0)
		return say("live view: %s", err->msg);
	ro->live = sv->live_hub;
	if (cfg->semantic.backend == KN_CONFIG_LLM && start_judge(sv, o, err) != 0)
		return -1;
	if (kn_runs_new(&sv->runs, ro, err) != 0)
		return say("%s", err->msg);
	/* runs a dead process left live: ended now (logged), then by the sweeper every period */
	kn_runs_sweep(sv->st, ro, NULL, NULL, err);
	/* runs of serves that die while this one lives: ended within one period */
	kn_runs_sweeper_opts swo = {sv->db, ro, sv->runs, sv->st, sv->advertise, cfg->http_orphan_sweep_s};
	if (kn_runs_sweeper_new(&sv->sweeper, &swo, err) != 0)
		return say("%s", err->msg);
	kn_api_opts apo = {sv->db, sv->runs, sv->ingest, sv->metrics, 0, o->workflows, sv->traces, sv->owner,
	                   sv->token};
	if (kn_api_new(&sv->api, &apo, err) != 0)
		return say("database unreachable: %s", err->msg);
	return 0;
}

int kn_serve_start(kn_serve **out, const kn_serve_opts *o)
{
	kn_serve *sv = calloc(1, sizeof *sv);
	*out = sv;
	if (!sv)
		return say("out of memory");
	sv->cfg = o->cfg;
	sv->db = o->cfg->database_url;
	if (!sv->db || !*sv->db)
		return say("no database: set database.url in the config or KEYNODE_DATABASE_URL");
	kn_err err = {0};
	char key[64];
	if (start_paths(sv, o, key, sizeof key, &err) != 0 || start_server(sv, o, &err) != 0 ||
	    start_peers(sv, o, &err) != 0 || start_ingest(sv, o, key, &err) != 0 ||
	    start_runs(sv, o, &err) != 0)
		return -1;
	return 0;
}

int kn_serve_run(kn_serve *sv, volatile sig_atomic_t *stop)
{
	char q[512];
	kn_log_msg("info", "serve", "serving", "url=http://%s/ port=%d token=%s spool=\"%s\" owner=%s advertise=%s",
	           sv->listen, kn_server_port(sv->srv), sv->token && *sv->token ? "set" : "unset",
	           kn_log_quote(q, sizeof q, sv->spool), sv->owner, sv->advertise);
	int rc = kn_server_run(sv->srv, stop);
	kn_log_msg("info", "serve", "stopping", NULL);
	return rc;
}

void kn_serve_free(kn_serve *sv)
{
	if (!sv)
		return;
	kn_err err = {0};
	char q[512];
	kn_runs_sweeper_free(sv->sweeper);
	kn_runs_free(sv->runs); /* results of live runs go to ingest */
	sv->runs = NULL;
	kn_live_hub_free(sv->live_hub); /* after the runs: their pages are no longer shown */
	kn_runs_relay_free(sv->relay); /* after the runs' end messages */
	if (sv->registered && kn_store_serve_unregister(sv->st, sv->owner, &err) != 0)
		kn_log_msg("warn", "serve", "serve row not deleted", "detail=\"%s\"", kn_log_quote(q, sizeof q, err.msg));
	kn_alerts_free(sv->alerts);
	kn_llm_free(sv->llm);
	kn_store_verdicts_free(sv->verdicts);
	if (sv->ingest && kn_ingest_sync(sv->ingest, 10000, &err) != 0)
		kn_log_msg("warn", "serve", "not everything reached the database: it stays in the spool",
		           "spool=\"%s\"", kn_log_quote(q, sizeof q, sv->spool));
	kn_ingest_free(sv->ingest);
	kn_api_free(sv->api);
	kn_server *srv = sv->srv;
	sv->srv = NULL;
	kn_server_free(srv);
	kn_runs_live_free(sv->live); /* after the server: no viewer calls in any more */
	kn_stream_free(sv->live_stream);
	kn_stream_free(sv->stream);
	kn_metrics_free(sv->metrics);
	kn_store_free(sv->st);
	free(sv->spool);
	free(sv->traces);
	kn_store_free(sv->tst);
	free(sv->tokens);
	free(sv);
}
