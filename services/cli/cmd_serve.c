/* cmd_serve.c — `keynode serve`: the long-running service. Wires the pieces together: the HTTP/
 * websocket server (services/http), the JSON API and live runs registry (services/runs), the
 * durable write path kn_ingest and the store (services/store), alerts (services/alerts) and the
 * replay scheduler (services/scheduler); then serves until SIGTERM/SIGINT, when live runs are
 * stopped with their results written and the ingest queue is flushed. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "keynode/clock.h"
#include "keynode/redact.h"
#include "alerts.h"
#include "api.h"
#include "cli.h"
#include "log.h"
#include "live.h"
#include "live_hub.h"
#include "relay.h"
#include "runs.h"
#include "scheduler.h"
#include "server.h"
#include "store.h"
#include "store_serve.h"
#include "trace_routes.h"
#include "keynode/fs.h"
#include "verdict.h"

#define SPOOL_SLOTS 16 /* serves on one machine and database sharing the default spool */

static const char help[] =
	"usage: keynode serve [--config keynode.yaml] [--listen ADDR:PORT] [--spool-dir DIR]\n"
	"                     [--log-requests] [--workflows DIR] [--verdict-wait MS]\n"
	"                     [--trace on|off|failures] [--trace-dir DIR] [--trace-keep-days N]\n"
	"                     [--trace-max-mb N] [--advertise HOST:PORT]\n"
	"\n"
	"Run the keynode service: the HTTP/JSON API (services/http/API.md), live runs watched in\n"
	"browsers or fed by harnesses, the /api/stream websocket, /metrics, the dashboard at /, alerts\n"
	"and scheduled replays. The database must be migrated first (`keynode migrate`).\n"
	"\n"
	"options:\n"
	"  --config FILE     keynode.yaml (database.url, http.listen, http.token, semantic, alerts,\n"
	"                    schedules); environment variables override it (KEYNODE_DATABASE_URL,\n"
	"                    KEYNODE_API_TOKEN). Without it: defaults plus the environment.\n"
	"  --listen A:P      listen address (default http.listen, 127.0.0.1:8080; port 0 picks one)\n"
	"  --spool-dir DIR   where events wait on disk while the database is unreachable (default\n"
	"                    $KEYNODE_SPOOL_DIR, else $STATE_DIRECTORY/spool (systemd), else\n"
	"                    $XDG_STATE_HOME/keynode/spool, else ~/.local/state/keynode/spool);\n"
	"                    created (0700) when missing, one subfolder per database; a default\n"
	"                    spool in use by another serve: the next free one (KEY.2 … KEY.16)\n"
	"  --log-requests    one log line per request\n"
	"  --workflows DIR   a task file uploaded through POST /api/tasksets gets DIR/<task-id>.yaml\n"
	"                    (`keynode record`) as its tasks' reference steps; stored with the task\n"
	"                    version (a new workflow makes a new version)\n"
	"  --verdict-wait MS with the LLM judge: how long an ended run waits for the verdicts still\n"
	"                    awaited before recording them as missing (default semantic.llm.timeout_ms)\n"
	"  --trace M         the run trace of every watched run (screenshots, element, console and\n"
	"                    network, key-node evidence per step; the dashboard's trace page): off\n"
	"                    (default), on, or failures (kept only for runs that did not finish)\n"
	"  --trace-dir DIR   where traces are kept, one folder per run (default: traces/ beside the\n"
	"                    spool folder); GET /api/runs/{id}/trace serves them\n"
	"  --trace-keep-days N  traces older than N days are removed (default 14; swept hourly)\n"
	"  --trace-max-mb N  screenshots of one run stop at N MB (the steps say so; default 50)\n"
	"  --advertise H:P   where the other serves on the database reach this one (default\n"
	"                    http.advertise, else the listen address; a wildcard host: this machine's\n"
	"                    name). Calls for a run this serve runs that reach another are forwarded here\n"
	"\n"
	"Reads need the token unless the listener is loopback-only; writes always need it.\n"
	"Events are acknowledged once durable (committed, or spooled and fdatasync'ed). Runs a\n"
	"killed serve left live are ended at start and by a sweep every http.orphan_sweep_s (status\n"
	"error, reason \"service restarted\"). Several serves on one database forward a run's calls\n"
	"to the serve that runs it (http.advertise) and relay its live feed to each other.\n"
	"SIGTERM/SIGINT: live runs are stopped (results written), the ingest queue flushed, exit 0.\n"
	"exit: 0 after a clean stop, 2 bad config, port taken, database unreachable or not migrated\n";

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

struct serve {
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
	kn_stream *live_stream; /* /api/live's viewers (issue 26) */
	kn_runs_live *live;     /* … and the NOTIFY bridge to the pages' holders (services/runs/live.h) */
};

static void handle(void *ud, const kn_http_req *req, kn_http_resp *resp)
{
	struct serve *sv = ud;
	if (kn_http_trace_route(req->route)) /* files, not the database (trace_routes.c) */
		kn_http_trace_handle(sv->traces, req, resp);
	else
		kn_api_handle(sv->api, req, resp);
}

/* deferred requests, on the server's worker threads (which end before kn_server_run returns) */
static void handle_worker(void *ud, void **wctx, const kn_http_req *req, kn_http_resp *resp)
{
	kn_api_handle_worker(((struct serve *)ud)->api, wctx, req, resp);
}

static void worker_exit(void *ud, void *wctx)
{
	kn_api_worker_exit(((struct serve *)ud)->api, wctx);
}

static void before_metrics(void *ud)
{
	kn_api_before_metrics(((struct serve *)ud)->api);
}

static int durable(void *ud, uint64_t from, uint64_t upto, kn_err *err)
{
	return kn_api_durable(((struct serve *)ud)->api, from, upto, err);
}

/* A trace folder appeared or changed: its index row (kn_trace_scan callback). */
static void trace_indexed(void *ud, const char *run_id, const char *dir, json_t *idx, long long bytes)
{
	struct serve *sv = ud;
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
	struct serve *sv = ud;
	kn_err err = {0};
	char q[512];
	if (kn_store_trace_drop(sv->tst, run_id, &err) != 0)
		kn_log_msg("warn", "serve", "cannot drop a trace row", "run=%s detail=\"%s\"", run_id,
		           kn_log_quote(q, sizeof q, err.msg));
}

/* kn_server_opts.live_in: a live view viewer came, went or acts (services/runs/live.h). */
static void live_in(void *ud, const char *run, int what, const kn_live_input *in, const char *client)
{
	struct serve *sv = ud;
	kn_runs_live_in(sv->live, run, what, in, client);
}

/* kn_server_opts.live_can_take: may a viewer take run over now (services/runs/live.h). */
static int live_can_take(void *ud, const char *run, char *why, size_t cap)
{
	struct serve *sv = ud;
	return kn_runs_live_can_take(sv->live, run, why, cap);
}

static void server_tick(void *ud)
{
	struct serve *sv = ud;
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
	struct serve *sv = ud;
	if (sv->srv)
		kn_server_wake(sv->srv);
}

/* An alert this serve raised that the database did not record (id 0: unreachable) — a recorded one
 * reaches /api/stream through the relay's LISTEN keynode_alerts, like every other process's. */
static void on_alert(void *ud, const char *alert_json)
{
	struct serve *sv = ud;
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

int kn_cmd_serve(int argc, char **argv)
{
	static const struct option opts[] = {
		{"config", required_argument, NULL, 'c'}, {"listen", required_argument, NULL, 'l'},
		{"spool-dir", required_argument, NULL, 's'}, {"log-requests", no_argument, NULL, 'L'},
		{"workflows", required_argument, NULL, 'w'}, {"verdict-wait", required_argument, NULL, 'V'},
		{"help", no_argument, NULL, 'h'},          KN_CLI_TRACE_LONGOPTS,
		{"trace-keep-days", required_argument, NULL, 'K'}, {"trace-max-mb", required_argument, NULL, 'M'},
		{"advertise", required_argument, NULL, 'A'},
		{NULL, 0, NULL, 0}};
	const char *config_path = NULL, *listen = NULL, *spool_arg = NULL, *workflows = NULL, *adv = NULL;
	int log_requests = 0, c, verdict_wait = 0, keep_days = 0, max_mb = 0; /* 0: keynode.yaml's */
	kn_cli_trace tro = {0};
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'c': config_path = optarg; break;
		case 'l': listen = optarg; break;
		case 's': spool_arg = optarg; break;
		case 'L': log_requests = 1; break;
		case 'w': workflows = optarg; break;
		case 'A':
			if (!kn_config_address_ok(optarg))
				return kn_cli_usage_error("serve", "--advertise wants HOST:PORT (a name, an IPv4 "
				                          "address or [IPv6], and a port 1-65535)");
			adv = optarg;
			break;
		case 'V':
			if (kn_cli_parse_int(&verdict_wait, optarg) || verdict_wait < 1 || verdict_wait > 3600000)
				return kn_cli_usage_error("serve", "--verdict-wait wants milliseconds in [1, 3600000]");
			break;
		case 'h': fputs(help, stdout); return KN_EXIT_OK;
		case 'K':
			if (kn_cli_parse_int(&keep_days, optarg) || keep_days < 1 || keep_days > 36500)
				return kn_cli_usage_error("serve", "--trace-keep-days must be 1..36500");
			break;
		case 'M':
			if (kn_cli_parse_int(&max_mb, optarg) || max_mb < 1 || max_mb > 100000)
				return kn_cli_usage_error("serve", "--trace-max-mb must be 1..100000");
			break;
		default: {
			int tr = kn_cli_trace_option(&tro, "serve", c, optarg);
			if (tr > 0)
				break;
			return tr < 0 ? KN_EXIT_USAGE : kn_cli_usage_error("serve", "bad option");
		}
		}
	}
	if (optind < argc)
		return kn_cli_usage_error("serve", "unexpected argument '%s'", argv[optind]);
	struct stat wsb;
	if (workflows && (stat(workflows, &wsb) != 0 || !S_ISDIR(wsb.st_mode)))
		return kn_cli_usage_error("serve", "--workflows %s is not a folder", workflows);

	kn_err err = {0};
	char q[512]; /* a value quoted for a log line */
	kn_config *cfg = NULL;
	kn_http_token *tokens = NULL;
	int rc = config_path ? kn_config_load(&cfg, config_path, &err) : kn_config_new(&cfg, &err);
	if (rc) {
		fprintf(stderr, "keynode serve: %s\n", err.msg);
		return KN_EXIT_USAGE;
	}
	kn_cli_trace_config(&tro, &keep_days, &max_mb, cfg); /* trace: in keynode.yaml, under the flags */
	int exit_code = KN_EXIT_USAGE;
	struct serve sv = {0};
	kn_metrics *metrics = NULL;
	kn_ingest *ingest = NULL;
	kn_alerts *alerts = NULL;
	kn_scheduler *sched = NULL;
	kn_serve_prune *prune = NULL;
	kn_store_verdicts *verdicts = NULL;
	kn_llm *llm = NULL;
	kn_store *st = NULL;
	kn_runs_relay *relay = NULL;
	kn_live_hub *live_hub = NULL;
	kn_runs_sweeper *sweeper = NULL;
	int registered = 0;
	char advertise[KN_STORE_ADDRESS_MAX];
	char *spool_base = spool_arg ? strdup(spool_arg) : kn_cli_default_spool(), *spool = NULL;
	char owner[160], host[64] = "", key[64];
	const char *db = cfg->database_url;
	if (!db || !*db) {
		fprintf(stderr, "keynode serve: no database: set database.url in the config or "
		                "KEYNODE_DATABASE_URL\n");
		goto done;
	}
	/* one spool per database: records of one are never flushed into another */
	if (!spool_base || kn_ingest_spool_key(key, sizeof key, db, &err) != 0 ||
	    !(spool = malloc(strlen(spool_base) + strlen(key) + 8))) {
		fprintf(stderr, "keynode serve: %s\n", err.msg[0] ? err.msg : "out of memory");
		goto done;
	}
	sprintf(spool, "%s/%s", spool_base, key);
	if (tro.dir) { /* traces: --trace-dir, else traces/ beside the spool folder */
		sv.traces = strdup(tro.dir);
	} else if ((sv.traces = malloc(strlen(spool_base) + 8)) != NULL) {
		strcpy(sv.traces, spool_base);
		char *slash = strrchr(sv.traces, '/');
		strcpy(slash ? slash + 1 : sv.traces, "traces");
	}
	sv.keep_days = keep_days;
	sv.last_sweep = sv.last_scan = -1e9;
	if (sv.traces && kn_store_open(&sv.tst, db, &err) != 0) { /* the traces' rows: own connection */
		fprintf(stderr, "keynode serve: database unreachable: %s\n", err.msg);
		goto done;
	}
	if (tro.mode != KN_TRACE_OFF && (!sv.traces || kn_mkdirs(sv.traces, 0700, &err) != 0)) {
		fprintf(stderr, "keynode serve: %s\n", sv.traces ? err.msg : "out of memory");
		goto done;
	}
	{
		struct timespec now;
		clock_gettime(CLOCK_REALTIME, &now);
		gethostname(host, sizeof host - 1);
		snprintf(owner, sizeof owner, "s-%s-%ld-%lld%03ld", host, (long)getpid(),
		         (long long)now.tv_sec, now.tv_nsec / 1000000);
		/* an owner id travels in X-Kn-Forwarded and the live feed relay: A-Z a-z 0-9 . _ - only */
		for (char *o = owner; *o; o++)
			if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", *o))
				*o = '_';
	}
	if (kn_store_open(&st, db, &err) != 0) {
		fprintf(stderr, "keynode serve: database unreachable: %s\n", err.msg);
		goto done;
	}
	int version = 0;
	if (kn_store_schema_version(st, &version, &err) != 0 || version == 0) {
		fprintf(stderr, "keynode serve: the database is not migrated: run keynode migrate\n");
		goto done;
	}
	/* st stays open: it holds this process's owner lock (crash recovery) while serve lives; once
	 * the sweeper runs, only its thread uses st (it takes the lock again after a reconnect) */
	if (kn_store_owner_hold(st, owner, &err) != 0) {
		fprintf(stderr, "keynode serve: database: %s\n", err.msg);
		goto done;
	}

	if (kn_metrics_new(&metrics) != 0 || kn_stream_new(&sv.stream, 0, wake, &sv) != 0 ||
	    kn_stream_new(&sv.live_stream, 0, wake, &sv) != 0) {
		fprintf(stderr, "keynode serve: out of memory\n");
		goto done;
	}
	/* bind first: a taken port is reported before anything else starts */
	kn_server_opts so = {0};
	so.listen = listen ? listen : cfg->http_listen;
	so.token = cfg->http_token;
	/* http.tokens: the names the maintenance log records as authors (issue 25) */
	tokens = cfg->n_http_tokens ? calloc(cfg->n_http_tokens, sizeof *tokens) : NULL;
	for (size_t i = 0; tokens && i < cfg->n_http_tokens; i++)
		tokens[i] = (kn_http_token){cfg->http_tokens[i].name, cfg->http_tokens[i].token};
	so.tokens = tokens;
	so.n_tokens = tokens ? cfg->n_http_tokens : 0;
	so.metrics = metrics;
	so.stream = sv.stream;
	so.handle = handle;
	so.before_metrics = before_metrics;
	so.tick = server_tick;
	so.durable = durable;
	so.ud = &sv;
	so.log_requests = log_requests;
	so.hosts = (const char *const *)cfg->http_hosts;
	so.n_hosts = cfg->n_http_hosts;
	so.origins = (const char *const *)cfg->http_origins;
	so.n_origins = cfg->n_http_origins;
	so.proxies = (const char *const *)cfg->http_proxies;
	so.n_proxies = cfg->n_http_proxies;
	so.stream_idle_s = cfg->http_stream_idle_s;
	so.handle_worker = handle_worker;
	so.worker_exit = worker_exit;
	so.live = sv.live_stream; /* the live view (issue 26) */
	so.live_public = cfg->http_live_view_public;
	so.live_max_s = cfg->http_live_view_max_s;
	so.live_in = live_in;
	so.live_can_take = live_can_take;
	if (kn_server_new(&sv.srv, &so, &err) != 0) {
		fprintf(stderr, "keynode serve: %s\n", err.msg);
		goto done;
	}
	/* where the other serves forward calls for this serve's live runs (services/runs/README.md,
	 * "Several serves") */
	if (adv || cfg->http_advertise)
		snprintf(advertise, sizeof advertise, "%s", adv ? adv : cfg->http_advertise);
	else if (kn_server_advertise(sv.srv, host, advertise, sizeof advertise, &err) != 0) {
		fprintf(stderr, "keynode serve: %s\n", err.msg);
		goto done;
	}
	if (kn_store_serve_register(st, owner, advertise, &err) != 0) {
		fprintf(stderr, "keynode serve: database: %s%s\n", err.msg,
		        strstr(err.msg, "serve_instances") ? " (run keynode migrate)" : "");
		goto done;
	}
	registered = 1;
	if (kn_runs_relay_new(&relay, db, owner, sv.stream, &err) != 0) {
		fprintf(stderr, "keynode serve: live feed relay: %s\n", err.msg);
		goto done;
	}
	if (kn_runs_live_new(&sv.live, db, sv.stream, sv.live_stream, &err) != 0) {
		fprintf(stderr, "keynode serve: live view: %s\n", err.msg);
		goto done;
	}
	kn_ingest_opts io = {0};
	io.conninfo = db;
	io.spool_dir = spool;
	io.on_durable = wake; /* held answers (POST …/events) go out as soon as they are durable */
	io.on_durable_ud = &sv;
	/* without --spool-dir, a serve that finds the default spool in use takes the next free slot
	 * (KEY.2, KEY.3 …): several serves share a machine, and the one that takes the slot a dead
	 * serve left flushes what it holds (the same database) */
	for (int slot = 1;; slot++) {
		if (slot > 1)
			sprintf(spool, "%s/%s.%d", spool_base, key, slot);
		int irc = kn_ingest_new(&ingest, &io, &err);
		if (irc == 0)
			break;
		if (irc != KN_EBUSY || spool_arg || slot == SPOOL_SLOTS) {
			fprintf(stderr, "keynode serve: ingest: %s\n", err.msg);
			goto done;
		}
	}
	/* what a dead process left in the spool goes in before its runs are ended */
	if (kn_ingest_sync(ingest, 30000, &err) != 0)
		kn_log_msg("warn", "serve", "spool not flushed at start", "detail=\"%s\"",
		           kn_log_quote(q, sizeof q, err.msg));
	kn_alerts_opts ao = {0};
	ao.config = cfg;
	ao.conninfo = db;
	ao.on_alert = on_alert;
	ao.ud = &sv;
	if (kn_alerts_new(&alerts, &ao, &err) != 0) {
		fprintf(stderr, "keynode serve: alerts: %s\n", err.msg);
		goto done;
	}
	kn_runs_opts ro = {0};
	ro.ingest = ingest;
	ro.stream = sv.stream;
	ro.metrics = metrics;
	ro.alerts = alerts;
	ro.eval.threshold = cfg->semantic.threshold;
	ro.owner = owner;
	ro.max_events = cfg->http_max_run_events;
	ro.trace_mode = (int)tro.mode;
	ro.trace_root = sv.traces;
	ro.trace_max_bytes = (long long)max_mb * 1024 * 1024;
	kn_redact redact; /* keynode.yaml guard: and redact: (issue 23), for every watched run */
	kn_config_redact_rules(&redact, cfg);
	ro.guard = cfg->guard;
	ro.redact = &redact;
	ro.relay = relay;
	/* the live view of the runs this serve watches (issue 26; its viewers' side is sv.live) */
	kn_live_hub_opts lho = {.conninfo = db, .takeover_idle_s = cfg->http_takeover_idle_s};
	if (kn_live_hub_new(&live_hub, &lho, &err) != 0) {
		fprintf(stderr, "keynode serve: live view: %s\n", err.msg);
		goto done;
	}
	ro.live = live_hub;
	if (cfg->semantic.backend == KN_CONFIG_LLM) {
		/* the LLM judge with the PostgreSQL verdict cache (shared by every serve and worker) */
		const char *url = cfg->semantic.llm.url, *model = cfg->semantic.llm.model;
		if (!url || !model) {
			fprintf(stderr, "keynode serve: semantic.backend llm needs semantic.llm.url and "
			                "semantic.llm.model\n");
			goto done;
		}
		if (kn_store_verdicts_open(&verdicts, db, &err) != 0) {
			fprintf(stderr, "keynode serve: verdict cache: %s\n", err.msg);
			goto done;
		}
		const char *kenv = cfg->semantic.llm.api_key_env ? cfg->semantic.llm.api_key_env
		                                                 : "OPENAI_API_KEY";
		kn_llm_opts lo = {0};
		lo.url = url;
		lo.model = model;
		lo.api_key = getenv(kenv);
		lo.timeout_ms = cfg->semantic.llm.timeout_ms;
		lo.usd_per_1k_prompt = cfg->semantic.llm.price_prompt;
		lo.usd_per_1k_completion = cfg->semantic.llm.price_completion;
		lo.cache = kn_store_verdicts_store(verdicts);
		if (kn_llm_new(&llm, &lo, &err) != 0) {
			fprintf(stderr, "keynode serve: %s\n", err.msg);
			goto done;
		}
		ro.eval.semantic = kn_llm_semantic(llm);
		ro.llm = llm;
		ro.verdict_wait_ms = verdict_wait ? verdict_wait : (int)lo.timeout_ms;
		kn_log_msg("info", "serve", "semantic judge: llm", "model=\"%s\"", kn_log_quote(q, sizeof q, model));
	}
	if (kn_runs_new(&sv.runs, &ro, &err) != 0) {
		fprintf(stderr, "keynode serve: %s\n", err.msg);
		goto done;
	}
	/* runs a dead process left live: ended now (logged), then by the sweeper every period */
	kn_runs_sweep(st, &ro, NULL, NULL, &err);
	/* runs of serves that die while this one lives: ended within one period */
	kn_runs_sweeper_opts swo = {db, &ro, sv.runs, st, advertise, cfg->http_orphan_sweep_s};
	if (kn_runs_sweeper_new(&sweeper, &swo, &err) != 0) {
		fprintf(stderr, "keynode serve: %s\n", err.msg);
		goto done;
	}
	kn_api_opts apo = {db, sv.runs, ingest, metrics, 0, workflows, sv.traces, owner, so.token};
	if (kn_api_new(&sv.api, &apo, &err) != 0) {
		fprintf(stderr, "keynode serve: database unreachable: %s\n", err.msg);
		goto done;
	}
	if (kn_scheduler_start(&sched, cfg, db, &err) != 0) {
		fprintf(stderr, "keynode serve: scheduler: %s\n", err.msg);
		goto done;
	}
	if (kn_serve_prune_start(&prune, db, cfg, &err) != 0) { /* retention: (serve_prune.c) */
		fprintf(stderr, "keynode serve: %s\n", err.msg);
		goto done;
	}
	struct sigaction sa = {0};
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	kn_log_msg("info", "serve", "serving", "url=http://%s/ port=%d token=%s spool=\"%s\" owner=%s advertise=%s",
	           so.listen, kn_server_port(sv.srv), so.token && *so.token ? "set" : "unset",
	           kn_log_quote(q, sizeof q, spool), owner, advertise);
	rc = kn_server_run(sv.srv, &stop_flag);
	kn_log_msg("info", "serve", "stopping", NULL);
	exit_code = rc ? KN_EXIT_USAGE : KN_EXIT_OK;
done:
	kn_serve_prune_stop(prune);
	kn_scheduler_free(sched);
	kn_runs_sweeper_free(sweeper);
	kn_runs_free(sv.runs); /* results of live runs go to ingest */
	sv.runs = NULL;
	kn_live_hub_free(live_hub); /* after the runs: their pages are no longer shown */
	kn_runs_relay_free(relay); /* after the runs' end messages */
	if (registered && kn_store_serve_unregister(st, owner, &err) != 0)
		kn_log_msg("warn", "serve", "serve row not deleted", "detail=\"%s\"", kn_log_quote(q, sizeof q, err.msg));
	kn_alerts_free(alerts);
	kn_llm_free(llm);
	kn_store_verdicts_free(verdicts);
	if (ingest && kn_ingest_sync(ingest, 10000, &err) != 0)
		kn_log_msg("warn", "serve", "not everything reached the database: it stays in the spool",
		           "spool=\"%s\"", kn_log_quote(q, sizeof q, spool));
	kn_ingest_free(ingest);
	kn_api_free(sv.api);
	kn_server *srv = sv.srv;
	sv.srv = NULL;
	kn_server_free(srv);
	kn_runs_live_free(sv.live); /* after the server: no viewer calls in any more */
	kn_stream_free(sv.live_stream);
	kn_stream_free(sv.stream);
	kn_metrics_free(metrics);
	kn_store_free(st);
	free(spool);
	free(spool_base);
	free(sv.traces);
	kn_store_free(sv.tst);
	free(tokens);
	kn_config_free(cfg);
	if (exit_code == KN_EXIT_OK)
		kn_log_msg("info", "serve", "stopped", NULL);
	return exit_code;
}
