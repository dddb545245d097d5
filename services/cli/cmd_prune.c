/* cmd_prune.c — `keynode prune`: delete what keynode.yaml's `retention:` (or the --*-days flags) says
 * is old from the service database, in short batches (services/store/store_prune.h), saying how far it
 * got as it goes; --dry-run counts instead. serve applies the same retention hourly (serve_prune.c). */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "keynode/clock.h"
#include "store.h"
#include "store_prune.h"

static const char help[] =
	"usage: keynode prune [--config keynode.yaml] [--database URL] [--dry-run] [--batch N]\n"
	"                     [--agent-events-days N] [--replay-events-days N] [--screenshots-days N]\n"
	"\n"
	"Delete old data from the service database as `retention:` in keynode.yaml says (each flag\n"
	"overrides its key): the events of finished agent runs and of finished replay runs that started\n"
	"more than N days ago (the runs, their results and key-node results stay, marked events_pruned),\n"
	"and the screenshots of replays older than N days. A live run is never touched; runs, replay\n"
	"results, health and alerts are never deleted. Deletes in batches of N runs (default 500), each\n"
	"its own short transaction, so serve, workers and ingest go on meanwhile; stop it at any time.\n"
	"\n"
	"options:\n"
	"  --config FILE              keynode.yaml: database.url and retention\n"
	"  --database URL             libpq connection string or URL (overrides the config and\n"
	"                             KEYNODE_DATABASE_URL)\n"
	"  --dry-run                  count what would be deleted; delete nothing\n"
	"  --batch N                  runs (or replay results) per batch, 1..100000 (default 500)\n"
	"  --agent-events-days N      events of agent runs older than N days (1..36500)\n"
	"  --replay-events-days N     events of replay runs older than N days (1..36500)\n"
	"  --screenshots-days N       failed replays' screenshots older than N days (1..36500)\n"
	"  --help                     this text\n"
	"\n"
	"prints a progress line per batch on stderr (at most one a second) and, per kind, \"prune: KIND:\n"
	"N runs, M events deleted\" (screenshots: \"N screenshots, B bytes\"; --dry-run: \"would delete\")\n"
	"exit: 0 done (also when nothing is configured), 1 a database error, 2 usage error or database\n"
	"unreachable\n";

static volatile sig_atomic_t stop_flag;
static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

struct progress {
	int dry_run;
	double last; /* monotonic seconds of the last progress line */
};

static void say(void *ud, int kind, const kn_store_prune_totals *t, int last)
{
	struct progress *pr = ud;
	int shots = kind == KN_PRUNE_SCREENSHOTS;
	if (!last) {
		if (kn_time_mono_s() - pr->last < 1)
			return;
		pr->last = kn_time_mono_s();
		fprintf(stderr, "prune: %s: %lld %s, %lld %s so far\n", kn_prune_kind_names[kind],
		        (long long)t->items[kind], shots ? "screenshots" : "runs", (long long)t->rows[kind],
		        shots ? "bytes" : "events");
		return;
	}
	printf("prune: %s: %lld %s, %lld %s %s\n", kn_prune_kind_names[kind], (long long)t->items[kind],
	       shots ? "screenshots" : "runs", (long long)t->rows[kind], shots ? "bytes" : "events",
	       pr->dry_run ? "would be deleted" : "deleted");
	fflush(stdout);
}

/* A --*-days value into *out: 0 or a usage error. */
static int days_opt(int *out, const char *name, const char *text)
{
	if (kn_cli_parse_int(out, text) || *out < 1 || *out > 36500)
		return kn_cli_usage_error("prune", "--%s must be an integer from 1 to 36500", name);
	return 0;
}

int kn_cmd_prune(int argc, char **argv)
{
	static const struct option opts[] = {
		{"config", required_argument, NULL, 'c'}, {"database", required_argument, NULL, 'd'},
		{"dry-run", no_argument, NULL, 'n'},      {"batch", required_argument, NULL, 'b'},
		{"agent-events-days", required_argument, NULL, 'A'},
		{"replay-events-days", required_argument, NULL, 'R'},
		{"screenshots-days", required_argument, NULL, 'S'},
		{"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0}};
	const char *config = NULL, *database = NULL;
	int dry_run = 0, batch = 500, c, rc;
	kn_store_retention flags = {0};
	while ((c = getopt_long(argc, argv, "c:d:nb:A:R:S:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c': config = optarg; break;
		case 'd': database = optarg; break;
		case 'n': dry_run = 1; break;
		case 'b':
			if (kn_cli_parse_int(&batch, optarg) || batch < 1 || batch > 100000)
				return kn_cli_usage_error("prune", "--batch must be an integer from 1 to 100000");
			break;
		case 'A': if (days_opt(&flags.agent_events_days, "agent-events-days", optarg)) return KN_EXIT_USAGE; break;
		case 'R': if (days_opt(&flags.replay_events_days, "replay-events-days", optarg)) return KN_EXIT_USAGE; break;
		case 'S': if (days_opt(&flags.screenshots_days, "screenshots-days", optarg)) return KN_EXIT_USAGE; break;
		case 'h': fputs(help, stdout); return KN_EXIT_OK;
		default: return kn_cli_usage_error("prune", "bad option");
		}
	}
	if (optind < argc)
		return kn_cli_usage_error("prune", "unexpected argument '%s'", argv[optind]);
	kn_err err = {0};
	kn_config *cfg = NULL;
	rc = config ? kn_config_load(&cfg, config, &err) : kn_config_new(&cfg, &err);
	if (rc != 0) {
		fprintf(stderr, "keynode prune: %s\n", err.msg);
		return KN_EXIT_USAGE;
	}
	kn_store_retention r = {
		flags.agent_events_days ? flags.agent_events_days : cfg->retention.agent_events_days,
		flags.replay_events_days ? flags.replay_events_days : cfg->retention.replay_events_days,
		flags.screenshots_days ? flags.screenshots_days : cfg->retention.screenshots_days};
	const char *url = database ? database : cfg->database_url;
	if (!url || !*url) {
		kn_config_free(cfg);
		return kn_cli_usage_error("prune", "no database: give --database, database.url in --config, "
		                          "or KEYNODE_DATABASE_URL");
	}
	if (!kn_store_retention_any(&r)) {
		kn_config_free(cfg);
		printf("prune: no retention configured (retention: in keynode.yaml, or --*-days): nothing to do\n");
		return KN_EXIT_OK;
	}
	kn_store *st;
	rc = kn_store_open(&st, url, &err);
	kn_config_free(cfg);
	if (rc != 0) {
		fprintf(stderr, "keynode prune: %s\n", err.msg);
		return KN_EXIT_USAGE;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	struct progress pr = {dry_run, kn_time_mono_s()};
	kn_store_prune_totals t;
	rc = kn_store_prune(st, &r, batch, dry_run, say, &pr, &stop_flag, &t, &err);
	kn_store_free(st);
	if (rc != 0) {
		fprintf(stderr, "keynode prune: %s\n", err.msg);
		return rc == KN_EIO ? KN_EXIT_USAGE : KN_EXIT_FAIL;
	}
	if (stop_flag)
		printf("prune: stopped; what was deleted stays deleted, run it again to go on\n");
	return KN_EXIT_OK;
}
