/* main.c — `keynode` entry point: dispatches to the subcommands and holds the option helpers
 * they share. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "cli.h"
#include "log.h"

static const char usage[] =
	"usage: keynode COMMAND [OPTIONS]\n"
	"\n"
	"Judge web agents by the key nodes of their tasks (WebCanvas / Mind2Web-Live).\n"
	"\n"
	"commands:\n"
	"  validate TASKFILE...   check task files (native YAML or Mind2Web-Live JSON)\n"
	"  match                  apply one matcher to one value\n"
	"  judge-audit            measure semantic judges against labelled judgements (kappa, error rates)\n"
	"  import                 map WebArena task configs to keynode tasks; report what cannot map\n"
	"  score                  score recorded runs (JSONL trajectories) against a task set\n"
"  watch                  score an agent live in a running browser (CDP)\n"
	"  replay                 drive a browser through tasks' reference steps\n"
	"  record                 record a task's reference workflow from a demonstration\n"
	"  sites                  serve the local test sites (tests/sites/) over HTTP\n"
	"  serve                  run the service: HTTP/JSON API, live runs, stream, metrics\n"
	"  migrate                apply the service database schema migrations (PostgreSQL)\n"
	"  prune                  delete old events and screenshots from the database (retention)\n"
	"  worker                 claim and run replay jobs from the database (a worker process)\n"
	"  run                    run any agent over a task set: fresh browser per attempt, summary\n"
	"  compare                compare two `keynode run` folders task by task (paired, with intervals)\n"
	"  leaderboard            one row per `keynode run` folder: Markdown, CSV or JSON\n"
	"  trace                  show a run trace (--trace): steps, screenshots, key-node evidence\n"
	"\n"
	"Run `keynode COMMAND --help` for a command's options.\n"
	"--log-level debug|info|warn|error (before or after COMMAND; default: $KEYNODE_LOG, else info)\n"
	"sets the least level of the log lines on stderr: logfmt on a pipe, a readable line on a terminal.\n"
	"Exit codes: 0 success, 1 the checked thing failed, 2 usage or environment error.\n";

int kn_cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "keynode %s: ", cmd);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, " (try `keynode %s --help`)\n", cmd);
	va_end(ap);
	return KN_EXIT_USAGE;
}

int kn_cli_parse_mode(kn_eval_opts *opts, const char *mode)
{
	if (strcmp(mode, "default") == 0)
		opts->mode = KN_MODE_DEFAULT;
	else if (strcmp(mode, "webcanvas") == 0)
		opts->mode = KN_MODE_WEBCANVAS;
	else
		return -1;
	return 0;
}

int kn_cli_parse_threshold(kn_eval_opts *opts, const char *text)
{
	char *end;
	double v = strtod(text, &end);
	if (end == text || *end || !(v > 0 && v <= 1))
		return -1;
	opts->threshold = v;
	return 0;
}

int kn_cli_parse_int(int *out, const char *text)
{
	char *end;
	long v = strtol(text, &end, 10);
	if (end == text || *end || v < -1 || v > 1000000)
		return -1;
	*out = (int)v;
	return 0;
}

/* Take every --log-level LEVEL / --log-level=LEVEL out of argv (up to a "--", after which the
 * arguments are someone else's) and set the level; KEYNODE_LOG is checked first. 0, or
 * KN_EXIT_USAGE having said why. */
static int take_log_level(int *argc, char **argv)
{
	const char *env = getenv("KEYNODE_LOG");
	if (env && *env && kn_log_set_level(env) != 0) {
		fprintf(stderr, "keynode: KEYNODE_LOG=%s is not a log level (debug, info, warn, error)\n", env);
		return KN_EXIT_USAGE;
	}
	int out = 1, rest = 0;
	for (int i = 1; i < *argc; i++) {
		const char *a = argv[i], *v = NULL;
		if (!rest && strcmp(a, "--") == 0)
			rest = 1;
		if (rest || strncmp(a, "--log-level", 11) != 0 || (a[11] && a[11] != '=')) {
			argv[out++] = argv[i];
			continue;
		}
		v = a[11] == '=' ? a + 12 : i + 1 < *argc ? argv[++i] : "";
		if (kn_log_set_level(v) != 0) {
			fprintf(stderr, "keynode: --log-level %s is not a log level (debug, info, warn, error)\n", v);
			return KN_EXIT_USAGE;
		}
	}
	argv[out] = NULL;
	*argc = out;
	return 0;
}

int main(int argc, char **argv)
{
	if (take_log_level(&argc, argv) != 0)
		return KN_EXIT_USAGE;
	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		fputs(usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? KN_EXIT_USAGE : KN_EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0) {
		puts("keynode 0.1.0");
		return KN_EXIT_OK;
	}
	curl_global_init(CURL_GLOBAL_DEFAULT);
	int rc;
	const char *cmd = argv[1];
	if (strcmp(cmd, "validate") == 0)
		rc = kn_cmd_validate(argc - 1, argv + 1);
	else if (strcmp(cmd, "match") == 0)
		rc = kn_cmd_match(argc - 1, argv + 1);
	else if (strcmp(cmd, "import") == 0)
		rc = kn_cmd_import(argc - 1, argv + 1);
	else if (strcmp(cmd, "score") == 0)
		rc = kn_cmd_score(argc - 1, argv + 1);
	else if (strcmp(cmd, "watch") == 0)
		rc = kn_cmd_watch(argc - 1, argv + 1);
	else if (strcmp(cmd, "replay") == 0)
		rc = kn_cmd_replay(argc - 1, argv + 1);
	else if (strcmp(cmd, "record") == 0)
		rc = kn_cmd_record(argc - 1, argv + 1);
	else if (strcmp(cmd, "serve") == 0)
		rc = kn_cmd_serve(argc - 1, argv + 1);
	else if (strcmp(cmd, "migrate") == 0)
		rc = kn_cmd_migrate(argc - 1, argv + 1);
	else if (strcmp(cmd, "prune") == 0)
		rc = kn_cmd_prune(argc - 1, argv + 1);
	else if (strcmp(cmd, "sites") == 0)
		rc = kn_cmd_sites(argc - 1, argv + 1);
	else if (strcmp(cmd, "worker") == 0)
		rc = kn_cmd_worker(argc - 1, argv + 1);
	else if (strcmp(cmd, "run") == 0)
		rc = kn_cmd_run(argc - 1, argv + 1);
	else if (strcmp(cmd, "compare") == 0)
		rc = kn_cmd_compare(argc - 1, argv + 1);
	else if (strcmp(cmd, "leaderboard") == 0)
		rc = kn_cmd_leaderboard(argc - 1, argv + 1);
	else if (strcmp(cmd, "trace") == 0)
		rc = kn_cmd_trace(argc - 1, argv + 1);
	else if (strcmp(cmd, "judge-audit") == 0)
		rc = kn_cmd_judge_audit(argc - 1, argv + 1);
	else {
		fprintf(stderr, "keynode: unknown command '%s'\n\n%s", cmd, usage);
		rc = KN_EXIT_USAGE;
	}
	curl_global_cleanup();
	return rc;
}
