/* cmd_serve.c — `keynode serve`: the long-running service. Parses the options and the config,
 * starts the service (services/runs/serve.h: the HTTP/websocket server, the JSON API and live runs
 * registry, the durable write path kn_ingest and the store, alerts, the live view), the replay
 * scheduler (services/scheduler) and the retention thread (serve_prune.c); then serves until
 * SIGTERM/SIGINT, when live runs are stopped with their results written and the ingest queue is
 * flushed. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "log.h"
#include "scheduler.h"
#include "serve.h"

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

/* The service started from o, the scheduler and retention beside it, served until a signal; all
 * stopped in the order that keeps results. The exit code. */
static int serve(const kn_serve_opts *o, const kn_config *cfg)
{
	int exit_code = KN_EXIT_USAGE;
	kn_err err = {0};
	kn_serve *sv = NULL;
	kn_scheduler *sched = NULL;
	kn_serve_prune *prune = NULL;
	if (kn_serve_start(&sv, o) != 0)
		goto done;
	if (kn_scheduler_start(&sched, cfg, cfg->database_url, &err) != 0) {
		fprintf(stderr, "keynode serve: scheduler: %s\n", err.msg);
		goto done;
	}
	if (kn_serve_prune_start(&prune, cfg->database_url, cfg, &err) != 0) { /* retention: (serve_prune.c) */
		fprintf(stderr, "keynode serve: %s\n", err.msg);
		goto done;
	}
	struct sigaction sa = {0};
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	exit_code = kn_serve_run(sv, &stop_flag) ? KN_EXIT_USAGE : KN_EXIT_OK;
done:
	kn_serve_prune_stop(prune);
	kn_scheduler_free(sched);
	kn_serve_free(sv);
	return exit_code;
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
	const char *config_path = NULL, *spool_arg = NULL;
	int c, keep_days = 0, max_mb = 0; /* 0: keynode.yaml's */
	kn_serve_opts o = {0};
	kn_cli_trace tro = {0};
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'c': config_path = optarg; break;
		case 'l': o.listen = optarg; break;
		case 's': spool_arg = optarg; break;
		case 'L': o.log_requests = 1; break;
		case 'w': o.workflows = optarg; break;
		case 'A':
			if (!kn_config_address_ok(optarg))
				return kn_cli_usage_error("serve", "--advertise wants HOST:PORT (a name, an IPv4 "
				                          "address or [IPv6], and a port 1-65535)");
			o.advertise = optarg;
			break;
		case 'V':
			if (kn_cli_parse_int(&o.verdict_wait_ms, optarg) || o.verdict_wait_ms < 1 ||
			    o.verdict_wait_ms > 3600000)
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
	if (o.workflows && (stat(o.workflows, &wsb) != 0 || !S_ISDIR(wsb.st_mode)))
		return kn_cli_usage_error("serve", "--workflows %s is not a folder", o.workflows);

	kn_err err = {0};
	kn_config *cfg = NULL;
	if (config_path ? kn_config_load(&cfg, config_path, &err) : kn_config_new(&cfg, &err)) {
		fprintf(stderr, "keynode serve: %s\n", err.msg);
		return KN_EXIT_USAGE;
	}
	kn_cli_trace_config(&tro, &keep_days, &max_mb, cfg); /* trace: in keynode.yaml, under the flags */
	char *spool_base = spool_arg ? strdup(spool_arg) : kn_cli_default_spool();
	o.cfg = cfg;
	o.spool_base = spool_base;
	o.spool_fixed = spool_arg != NULL;
	o.trace_mode = (int)tro.mode;
	o.trace_dir = tro.dir;
	o.trace_keep_days = keep_days;
	o.trace_max_bytes = (long long)max_mb * 1024 * 1024;
	int exit_code = serve(&o, cfg);
	free(spool_base);
	kn_config_free(cfg);
	if (exit_code == KN_EXIT_OK)
		kn_log_msg("info", "serve", "stopped", NULL);
	return exit_code;
}
