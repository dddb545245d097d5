/* cmd_run.c — `keynode run`: run any agent over a task set on the live web. Parses the options,
 * loads the config, the task file and the judge, uploads the set to --server, records the
 * environment, then hands the batch to services/runner (run_batch.h): the plan of K attempts per
 * task (with --resume, those done kept), N at once on N threads with retries and progress, the
 * summary, and the exit code (130/143 when interrupted). */
#define _GNU_SOURCE /* asprintf */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "provenance.h"
#include "run_batch.h"
#include "runner.h"
#include "summary.h"
#include "task_digest.h"

static const char help[] =
	"usage: keynode run --tasks FILE --agent 'CMD …' [--task ID]… [--parallel N] [--repeat K]\n"
	"                   [--timeout S] [--retries R] [--out DIR] [--resume] [--browser ENDPOINT]…\n"
	"                   [--viewport WxH] [--step-limit N] [--mode default|webcanvas] [--chromium BIN] [--warm N]\n"
	"                   [--config FILE] [--agent-name NAME] [--model NAME]\n"
	"                   [--server URL [--taskset NAME] [--snapshot N]]\n"
	"                   [--trace on|off|failures] [--ws-received]\n"
	"\n"
	"Run any agent (any language, any browser library) over a task set and score every attempt\n"
	"live. For each attempt keynode starts a fresh private headless Chromium, opens the task's\n"
	"start page, attaches and waits until it records, then starts the agent with /bin/sh -c CMD\n"
	"in its own process group, stdin closed, output to agent.log (first 8 MiB kept), and this\n"
	"environment (README: \"Evaluate your agent on Mind2Web-Live\"):\n"
	"  KEYNODE_CDP_URL  http://HOST:PORT of the browser   KEYNODE_CDP_WS   its browser websocket\n"
	"  KEYNODE_TASK_ID, KEYNODE_TASK_INTENT, KEYNODE_START_URL (already open in the first tab;\n"
	"  empty when the task has none: the agent starts on a blank tab)\n"
	"  KEYNODE_ANSWER_FILE  every line appended there is an answer\n"
	"  KEYNODE_USAGE_FILE   JSON lines {\"model\",\"input_tokens\",\"output_tokens\",\"usd\"} (cost)\n"
	"  KEYNODE_RUN_ID, KEYNODE_ATTEMPT_DIR; with --browser: KEYNODE_BROWSER_CONTEXT_ID and\n"
	"  KEYNODE_TARGET_ID (the attempt's own context and tab)\n"
	"An attempt ends when the agent exits, at --timeout or when the step budget is spent (the whole\n"
	"process group gets SIGTERM, then SIGKILL), or when the browser is gone.\n"
	"An attempt whose site refused service and that did not finish (status blocked: a challenge, a\n"
	"CAPTCHA, a 403…) is excluded from the metrics and counted apart from errors, not retried.\n"
	"Tasks with purchase: add task_score (100 x mean reward) and reward_success_rate (reward 1)\n"
	"over reward_tasks to the summary, and a reward column to summary.csv.\n"
	"\n"
	"options:\n"
	"  --tasks FILE      task file (native YAML or Mind2Web-Live JSON)\n"
	"  --agent CMD       the agent's command line (run by /bin/sh -c)\n"
	"  --task ID         only this task (repeatable; default: every task)\n"
	"  --parallel N      attempts at once, each with its own browser (default 1; a browser\n"
	"                    takes ~220 MB on the test sites, more on real ones)\n"
	"  --repeat K        attempts per task (default 1): adds per-task success rate and the share of\n"
	"                    tasks solved in all K and in at least one\n"
	"  --timeout S       seconds an agent may work (default 600; 0: none)\n"
	"  --retries R       retries of an attempt that ended in an infrastructure error (default 1)\n"
	"  --out DIR         where DIR/<task>/<attempt>/{result.json,trajectory.jsonl,agent.log} and\n"
	"                    DIR/summary.{json,csv} go (default: runs/run-<time>); must be empty\n"
	"  --resume          DIR may hold an earlier run: attempts done are kept, others run again\n"
	"  --browser E       use this browser (ws://…, http://HOST:PORT) instead of launching one: each\n"
	"                    attempt gets a fresh browser context; repeatable, one attempt at a time per\n"
	"                    browser (keynode watches the whole browser)\n"
	"  --viewport WxH    window size of the attempt's browser\n"
	"  --step-limit N    step budget (0: upstream max(10, 1.5 x reference length) capped at 25;\n"
	"                    -1: none); past it the attempt ends\n"
	"  --mode M          default or webcanvas, as for `keynode score`\n"
	"  --warm N          keep N browsers launched ahead of the attempts (default: --parallel, at\n"
	"                    most 16; 0: launch each at its attempt's start). Each is a fresh private\n"
	"                    Chromium used by one attempt only; at most --parallel + N run at once\n"
	"  --chromium BIN    the browser to launch (default /usr/lib/chromium/chromium-headless-shell\n"
	"                    when installed, else /usr/lib/chromium/chromium)\n"
	"  --quiet           no progress\n"
	"  --config FILE     keynode.yaml: its blocked: section says when a site refused service\n"
	"                    (default: the built-in signatures); its region: labels the run\n"

;

static const char help_server[] = /* the rest of --help (one string would pass ISO C's 4095) */
	"  --ws-received     WebSocket messages received are events too (as watch's)\n"
	"  --agent-name NAME the agent's name in summary.json and `keynode leaderboard` (default: CMD)\n"
	"  --model NAME      the model the agent uses, for the same (default: the one model its usage\n"
	"                    lines name)\n"
	"  --region LABEL    where the run runs from, in the environment (default: $KEYNODE_REGION,\n"
	"                    else keynode.yaml region:)\n"
	"  --mix-environments  with --resume: go on although the earlier attempts ran in another\n"
	"                    environment (another Chromium, locale, time zone, region, task file,\n"
	"                    judge…; read from summary.json and from every attempt's result.json)\n"
	"  --semantic offline|llm, --llm-url URL, --llm-model NAME, --llm-key-env VAR,\n"
	"  --llm-timeout MS, --llm-price P[,C], --verdict-cache FILE\n"
	"                    the semantic judge of semantic key nodes, as in `keynode score --help`\n"
	"                    (--config: its semantic section); an LLM judge's model and the SHA-256\n"
	"                    of its prompt template are in the environment (judge)\n"

	"  --server URL      make each attempt's run on keynode serve at URL (token: KEYNODE_API_TOKEN):\n"
	"                    the task file is loaded there (POST /api/tasksets), then every attempt is\n"
	"                    POST /api/runs with its browser and step budget, so runs land in\n"
	"                    PostgreSQL and show live on the dashboard; serve must reach the attempts'\n"
	"                    browsers (same machine or network). Folders and summary are the same,\n"
	"                    plus the server's \"validated within 7 days: X of Y tasks\" (its scheduled\n"
	"                    replays, GET /api/tasksets/NAME/health) beside every number and in\n"
	"                    summary.json \"validation\"\n"
	"  --taskset NAME    with --server: the task set's name there (default: the file's name\n"
	"                    without its extension)\n"
	"  --snapshot N      with --server: run against snapshot N of the set there (its task versions;\n"
	"                    GET /api/tasksets/NAME/snapshots) without uploading the file; without it\n"
	"                    the upload's snapshot is pinned. Printed on stderr at the start\n"
	"  --trace M         the run trace of each attempt in <attempt>/trace/ (screenshots, element,\n"
	"                    console/network, key-node evidence per step; `keynode trace show`): off\n"
	"                    (default), on, or failures (kept only for attempts that did not finish)\n"
	"\n"
	"Every result.json and summary.json carry \"environment\" (keynode version and commit, Chromium\n"
	"version, user agent, headless, viewport, locale, time zone, OS, region, the task file's\n"
	"SHA-256, the judge). The agent may append JSON lines {\"model\", \"input_tokens\",\n"
	"\"output_tokens\", \"usd\"} to KEYNODE_USAGE_FILE: results get \"usage\", summary.json \"cost\".\n"
	"\n"
	"Errors (start page unreachable or 5xx, browser crashed or could not start, agent command not\n"
	"found, a page of the task's own site that does not answer: reason unreachable) are not the\n"
	"agent's fault: such attempts are retried, then reported apart and left out of the metrics.\n"
	"A semantic judgement the run depends on that failed (the judge's HTTP error, timeout, unparsable\n"
	"answer, a score outside [0, 1]) makes the attempt unjudged: the judge's fault, excluded and\n"
	"counted apart (summary.json attempts.unjudged); --resume runs it again. Every attempt that is\n"
	"not a success says whose it is (attempt.fault: agent, site, infrastructure, judge;\n"
	"summary.json attempts.faults).\n"
	"exit: 0 every attempt ran, 1 some attempt ended in error, was blocked or unjudged, 2 usage error,\n"
	"130/143 interrupted\n";


enum { O_TASKS = 0x100, O_AGENT, O_TASK, O_PARALLEL, O_REPEAT, O_TIMEOUT, O_RETRIES, O_OUT,
       O_RESUME, O_BROWSER, O_VIEWPORT, O_STEPS, O_MODE, O_CHROMIUM, O_QUIET, O_WS_RECEIVED, O_CONFIG, O_WARM,
       O_SERVER, O_TASKSET, O_AGENT_NAME, O_MODEL, O_REGION, O_MIX, O_SNAPSHOT };

static int parse_viewport(int *w, int *h, const char *s)
{
	char *end;
	long a = strtol(s, &end, 10);
	if (end == s || (*end != 'x' && *end != 'X'))
		return -1;
	const char *p = end + 1;
	long b = strtol(p, &end, 10);
	if (end == p || *end || a < 100 || b < 100 || a > 10000 || b > 10000)
		return -1;
	*w = (int)a, *h = (int)b;
	return 0;
}


/* Everything one `keynode run` holds between its steps; released by run_free. */
struct run_cli {
	kn_run_batch b;
	kn_cli_semantic so;
	kn_run_meta meta;
	const char *tasks, *out, *config_path, *server, *region, *region_opt;
	int mix, parallel, resume, timeout, warm, snapshot;
	const char **ids;
	size_t n_ids;
	kn_config *cfg;
	kn_remote *remote;
	kn_taskset *set;
	json_t *environment;
	char *env_text, *set_name, *dir_own;
	char base[64], file_sha[65];
};

/* A numeric option: 0 taken, KN_EXIT_USAGE having said why, 1 not one of these. */
static int number_option(struct run_cli *a, int c, const char *v)
{
	kn_run_batch *r = &a->b;
	switch (c) {
	case O_PARALLEL:
		if (kn_cli_parse_int(&a->parallel, v) || a->parallel < 1 || a->parallel > 64)
			return kn_cli_usage_error("run", "--parallel must be 1..64");
		return 0;
	case O_REPEAT:
		if (kn_cli_parse_int(&r->repeat, v) || r->repeat < 1 || r->repeat > 1000)
			return kn_cli_usage_error("run", "--repeat must be 1..1000");
		return 0;
	case O_TIMEOUT:
		if (kn_cli_parse_int(&a->timeout, v) || a->timeout < 0)
			return kn_cli_usage_error("run", "--timeout must be seconds ≥ 0");
		return 0;
	case O_WARM:
		if (kn_cli_parse_int(&a->warm, v) || a->warm < 0 || a->warm > KN_BROWSER_POOL_MAX)
			return kn_cli_usage_error("run", "--warm must be 0..%d", KN_BROWSER_POOL_MAX);
		return 0;
	case O_RETRIES:
		if (kn_cli_parse_int(&r->retries, v) || r->retries < 0 || r->retries > 10)
			return kn_cli_usage_error("run", "--retries must be 0..10");
		return 0;
	case O_VIEWPORT:
		if (parse_viewport(&r->vw, &r->vh, v))
			return kn_cli_usage_error("run", "--viewport must be WIDTHxHEIGHT, e.g. 1280x720");
		return 0;
	case O_STEPS:
		if (kn_cli_parse_int(&r->eval.step_limit, v))
			return kn_cli_usage_error("run", "--step-limit must be an integer ≥ -1");
		return 0;
	case O_MODE:
		if (kn_cli_parse_mode(&r->eval, v))
			return kn_cli_usage_error("run", "--mode must be default or webcanvas");
		return 0;
	default: return 1;
	}
}

/* The semantic judge's and --trace's options, else a bad option: 0 taken, else the exit code. */
static int other_option(struct run_cli *a, int c, const char *v)
{
	int sr = kn_cli_semantic_option(&a->so, "run", c, v);
	if (sr > 0)
		return 0;
	if (sr < 0)
		return KN_EXIT_USAGE;
	kn_cli_trace tro = {0};
	int tr = kn_cli_trace_option(&tro, "run", c, v);
	if (tr > 0) {
		a->b.trace = (int)tro.mode;
		return 0;
	}
	return tr == 0 ? kn_cli_usage_error("run", "bad option") : KN_EXIT_USAGE;
}

/* The command line into a: -1 to go on, else the exit code (--help, a usage error). */
static int parse_args(struct run_cli *a, int argc, char **argv)
{
	static const struct option opts[] = {
		{"tasks", required_argument, NULL, O_TASKS},       {"agent", required_argument, NULL, O_AGENT},
		{"task", required_argument, NULL, O_TASK},         {"parallel", required_argument, NULL, O_PARALLEL},
		{"repeat", required_argument, NULL, O_REPEAT},     {"timeout", required_argument, NULL, O_TIMEOUT},
		{"retries", required_argument, NULL, O_RETRIES},   {"out", required_argument, NULL, O_OUT},
		{"resume", no_argument, NULL, O_RESUME},           {"browser", required_argument, NULL, O_BROWSER},
		{"viewport", required_argument, NULL, O_VIEWPORT}, {"step-limit", required_argument, NULL, O_STEPS},
		{"mode", required_argument, NULL, O_MODE},         {"chromium", required_argument, NULL, O_CHROMIUM},
		{"warm", required_argument, NULL, O_WARM},
		{"quiet", no_argument, NULL, O_QUIET},             {"help", no_argument, NULL, 'h'},
		{"ws-received", no_argument, NULL, O_WS_RECEIVED},
		{"config", required_argument, NULL, O_CONFIG},
		{"server", required_argument, NULL, O_SERVER},     {"taskset", required_argument, NULL, O_TASKSET},
		{"agent-name", required_argument, NULL, O_AGENT_NAME}, {"model", required_argument, NULL, O_MODEL},
		{"region", required_argument, NULL, O_REGION},     {"mix-environments", no_argument, NULL, O_MIX},
		{"snapshot", required_argument, NULL, O_SNAPSHOT},
		{"trace", required_argument, NULL, KN_CLI_OPT_TRACE},
		KN_CLI_SEMANTIC_LONGOPTS, /* its "config" comes after run's own: getopt_long takes run's */
		{NULL, 0, NULL, 0}};
	kn_run_batch *r = &a->b;
	int c, rc;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case O_TASKS: a->tasks = optarg; break;
		case O_AGENT: r->agent = optarg; break;
		case O_TASK: a->ids[a->n_ids++] = optarg; break;
		case O_OUT: a->out = optarg; break;
		case O_RESUME: a->resume = 1; break;
		case O_BROWSER: r->browsers[r->n_browsers++] = optarg; break;
		case O_CHROMIUM: r->chromium = optarg; break;
		case O_QUIET: r->quiet = 1; break;
		case O_WS_RECEIVED: r->ws_received = 1; break;
		case O_CONFIG: a->config_path = a->so.config_path = optarg; break;
		case O_SERVER: a->server = optarg; break;
		case O_TASKSET: r->taskset = optarg; break;
		case O_AGENT_NAME: a->meta.agent_name = optarg; break;
		case O_MODEL: a->meta.model = optarg; break;
		case O_REGION: a->region = a->region_opt = optarg; break;
		case O_MIX: a->mix = 1; break;
		case O_SNAPSHOT:
			if (kn_cli_parse_int(&a->snapshot, optarg) || a->snapshot < 1)
				return kn_cli_usage_error("run", "--snapshot must be a snapshot version (a positive integer)");
			break;
		case 'h':
			fputs(help, stdout);
			fputs(help_server, stdout);
			return KN_EXIT_OK;
		default:
			if ((rc = number_option(a, c, optarg)) == 1)
				rc = other_option(a, c, optarg);
			if (rc)
				return rc;
		}
	}
	if (!a->tasks || !r->agent)
		return kn_cli_usage_error("run", "--tasks and --agent are required");
	if (optind < argc)
		return kn_cli_usage_error("run", "unexpected argument '%s'", argv[optind]);
	return -1;
}

/* --server: the task set uploaded there (or --snapshot N pinned) so every attempt runs against one
 * snapshot of it, even if the set changes while they run. -1 to go on, else the exit code. */
static int connect_server(struct run_cli *a, kn_err *err)
{
	kn_run_batch *r = &a->b;
	if (kn_remote_new(&a->remote, a->server, getenv("KEYNODE_API_TOKEN"), err) != 0)
		return kn_cli_usage_error("run", "%s", err->msg);
	if (!r->taskset) { /* the file's name without folder and extension */
		const char *b = strrchr(a->tasks, '/');
		a->set_name = strdup(b ? b + 1 : a->tasks);
		char *dot = a->set_name ? strrchr(a->set_name, '.') : NULL;
		if (dot && dot != a->set_name)
			*dot = '\0';
		r->taskset = a->set_name;
	}
	char hash[65];
	if (!r->taskset ||
	    (!a->snapshot && kn_remote_upload(a->remote, a->tasks, r->taskset, &a->snapshot, err) != 0) ||
	    (a->snapshot && kn_remote_pin(a->remote, r->taskset, a->snapshot, hash, err) != 0)) {
		fprintf(stderr, "keynode run: --server %s: %s\n", a->server, r->taskset ? err->msg : "out of memory");
		return KN_EXIT_USAGE;
	}
	if (a->snapshot)
		fprintf(stderr, "keynode run: task set %s snapshot %d (sha256 %s) on %s\n", r->taskset, a->snapshot,
		        hash, a->server);
	r->server = a->remote;
	return -1;
}

/* keynode.yaml (blocked:, guard:, redact:, region:), the server, the task file, the judge and the
 * environment every result.json records. -1 to go on, else the exit code. */
static int load(struct run_cli *a, kn_err *err)
{
	kn_run_batch *r = &a->b;
	if (r->n_browsers && a->parallel > (int)r->n_browsers) {
		fprintf(stderr, "keynode run: --parallel %d with %zu --browser: one attempt per browser at a "
		        "time, so %zu at once\n", a->parallel, r->n_browsers, r->n_browsers);
		a->parallel = (int)r->n_browsers;
	}
	r->timeout_s = a->timeout;
	if (a->config_path && kn_config_load(&a->cfg, a->config_path, err) != 0) {
		fprintf(stderr, "keynode run: %s\n", err->msg);
		return KN_EXIT_USAGE;
	}
	kn_cli_blocked_rules(&r->blocked, a->cfg);
	kn_config_redact_rules(&r->redact, a->cfg);
	r->guard = a->cfg ? a->cfg->guard : NULL;
	r->canary_timeout_ms = a->cfg ? a->cfg->canary_timeout_ms : 0;
	if (!a->region_opt && a->cfg && a->cfg->region) /* --region, then KEYNODE_REGION, then keynode.yaml */
		a->region = a->region && *a->region ? a->region : a->cfg->region;
	if ((r->taskset || a->snapshot) && !a->server)
		return kn_cli_usage_error("run", "--taskset and --snapshot go with --server");
	int rc;
	if (a->server && (rc = connect_server(a, err)) >= 0)
		return rc;
	int lr = kn_cli_load_tasks(&a->set, a->tasks, NULL, "run", err);
	if (lr) {
		fprintf(stderr, "keynode run: %s\n", err->msg);
		return lr == KN_ENOTFOUND || lr == KN_EIO ? KN_EXIT_USAGE : KN_EXIT_FAIL;
	}
	a->meta.tasks_sha256 = kn_sha256_file_hex(a->file_sha, a->tasks, NULL) == 0 ? a->file_sha : NULL;
	if (kn_cli_semantic_open(&a->so, "run", &r->eval) != KN_EXIT_OK)
		return KN_EXIT_USAGE;
	kn_run_env_opts eo = {.chromium = r->chromium ? r->chromium : kn_runner_chromium_default(),
	                      .browser = r->n_browsers ? r->browsers[0] : NULL, .viewport_w = r->vw,
	                      .viewport_h = r->vh, .region = a->region && *a->region ? a->region : NULL,
	                      .tasks_sha256 = a->meta.tasks_sha256, .eval = &r->eval, .probe = a->resume};
	if (!(a->environment = kn_run_environment(&eo)) ||
	    !(a->env_text = json_dumps(a->environment, JSON_COMPACT)))
		return KN_EXIT_USAGE;
	r->environment = a->env_text;
	a->meta.environment = a->environment;
	return -1;
}

/* The --out folder checked (and with --resume its environment) and the plan made (run_plan.c).
 * -1 to go on, else the exit code. */
static int plan(struct run_cli *a)
{
	kn_run_batch *r = &a->b;
	char why[4096];
	if (a->resume && kn_run_environment_check(a->out, a->environment, a->mix, why, sizeof why) != 0)
		return kn_cli_usage_error("run", "%s", why);
	r->t0 = time(NULL);
	snprintf(a->base, sizeof a->base, "r%ld", (long)r->t0);
	r->run_base = a->base;
	if (!a->out) {
		if (asprintf(&a->dir_own, "runs/run-%ld", (long)r->t0) < 0)
			return KN_EXIT_USAGE;
		a->out = a->dir_own;
	}
	r->dir = a->out;
	int prc = kn_run_dir_prepare(a->out, a->resume, why, sizeof why);
	if (prc == KN_EINVAL)
		return kn_cli_usage_error("run", "%s", why);
	if (prc) {
		fprintf(stderr, "keynode run: %s\n", why);
		return KN_EXIT_USAGE;
	}
	prc = kn_run_plan(r, a->set, a->ids, a->n_ids, a->resume, a->tasks, why, sizeof why);
	if (prc == KN_EINVAL)
		return kn_cli_usage_error("run", "%s", why);
	return prc ? KN_EXIT_USAGE : -1;
}

/* --server: how many of the set's tasks the server validated by replay within 7 days, for the
 * summary (printed beside every number). A server that cannot say is a warning, not a failure. */
static void server_validation(struct run_cli *a)
{
	kn_err err = {0};
	if (a->remote && kn_remote_validation(a->remote, a->b.taskset, &a->meta.validation, &err) != 0)
		fprintf(stderr, "keynode run: warning: --server %s: task-set health of %s: %s\n", a->server,
		        a->b.taskset, err.msg);
}

int kn_cmd_run(int argc, char **argv)
{
	struct run_cli a = {.b = {.retries = 1, .repeat = 1}, .parallel = 1, .timeout = 600, .warm = -1,
	                    .region = getenv("KEYNODE_REGION")};
	a.ids = calloc((size_t)argc + 1, sizeof *a.ids);
	a.b.browsers = calloc((size_t)argc + 1, sizeof *a.b.browsers);
	kn_err err = {0};
	int rc = KN_EXIT_USAGE;
	if (a.ids && a.b.browsers && (rc = parse_args(&a, argc, argv)) < 0 && (rc = load(&a, &err)) < 0 &&
	    (rc = plan(&a)) < 0) {
		int sig = kn_run_batch_go(&a.b, a.parallel, a.warm);
		server_validation(&a);
		kn_run_totals t;
		kn_run_batch_summary(&a.b, &a.meta, a.tasks, &t);
		rc = kn_run_batch_exit(sig, &t);
	}
	kn_run_batch_clear(&a.b);
	kn_taskset_free(a.set);
	free(a.ids);
	free(a.b.browsers);
	free(a.dir_own);
	kn_config_free(a.cfg);
	kn_remote_free(a.remote);
	free(a.set_name);
	json_decref(a.environment);
	json_decref(a.meta.validation);
	free(a.env_text);
	kn_cli_semantic_close(&a.so);
	return rc;
}
