/* cmd_run.c — `keynode run`: run any agent over a task set on the live web. Plans K attempts per
 * task, runs N at once on N threads (services/runner: each attempt its own browser, monitor and
 * agent process group), retries infrastructure errors, shows progress, and writes the summary
 * (services/runner/summary.h). The main thread only waits for signals and draws progress: on
 * SIGINT/SIGTERM every attempt is told to stop, finished attempts are kept, the summary of what
 * finished is printed and the exit is 130/143. */
#define _GNU_SOURCE /* asprintf */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <glob.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "keynode/clock.h"
#include "keynode/redact.h"
#include "blocked.h"
#include "cli.h"
#include "runner.h"
#include "provenance.h"
#include "summary.h"
#include "task_digest.h"

static const char help[] =
	"usage: keynode run --tasks FILE --agent 'CMD …' [--task ID]… [--parallel N] [--repeat K]\n"
	"                   [--timeout S] [--retries R] [--out DIR] [--resume] [--browser ENDPOINT]…\n"
	"                   [--viewport WxH] [--step-limit N] [--mode default|webcanvas] [--chromium BIN] [--warm N]\n"
	"                   [--config FILE] [--agent-name NAME] [--model NAME]\n"
	"                   [--server URL [--taskset NAME] [--snapshot N]]\n"
	"                   [--trace on|off|failures]\n"
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
	"                    browsers (same machine or network). Folders and summary are the same\n"
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

struct item {
	const kn_task *task;
	int k;                  /* attempt number 1..K */
	int skip;               /* --resume: already has a result */
	kn_run_row row;
	int has_row;
};

struct run {
	int trace;              /* --trace (kn_trace_mode) */
	const char *environment; /* kn_run_environment as JSON text, for every attempt's result.json */
	struct item *items;
	size_t n_items;
	atomic_size_t next;
	atomic_int stop;
	atomic_int running, done, successes, errors, unjudged;
	pthread_mutex_t lock;   /* plain progress lines */
	const char *dir, *agent, *chromium, *run_base;
	const kn_remote *server; /* --server */
	const char *taskset;     /* with server: the set's name there */
	const char **browsers;
	size_t n_browsers;
	kn_browser_pool *pool;   /* --warm: browsers launched ahead of the attempts (pool.c) */
	int vw, vh, retries, plain, quiet;
	double timeout_s;
	kn_eval_opts eval;
	kn_blocked_rules blocked; /* --config: keynode.yaml blocked: (blocked_opts.c) */
	const struct kn_guard *guard; /* --config: keynode.yaml guard: and redact: (issue 23) */
	kn_redact redact;
	time_t t0;
	double t0_mono;
};

struct slot {
	struct run *r;
	size_t index;           /* which --browser this slot uses */
	pthread_t thread;
	int joined;
};

static char *attempt_dir(const struct run *r, const struct item *it)
{
	char name[256], *p = NULL;
	kn_runner_folder_name(name, sizeof name, it->task->id);
	return asprintf(&p, "%s/%s/%d", r->dir, name, it->k) < 0 ? NULL : p;
}

/* Move an errored try's folder aside so the retry starts empty (kept for the post-mortem). */
static void set_aside(const char *dir, int try)
{
	char *to = NULL;
	if (asprintf(&to, "%s.error-%d", dir, try) >= 0) {
		rename(dir, to);
		free(to);
	}
}

static void progress_line(struct run *r, const struct item *it, const kn_attempt_report *rep)
{
	if (r->quiet || !r->plain)
		return;
	pthread_mutex_lock(&r->lock);
	fprintf(stderr, "keynode run: [%d/%zu] %s #%d %s%s%s score %.2f (%.1f s)\n", atomic_load(&r->done),
	        r->n_items, it->task->id, it->k,
	        rep->status == KN_ATTEMPT_DONE ? (rep->completed ? "success" : "not finished")
	                                       : kn_attempt_status_name(rep->status),
	        rep->reason[0] ? ": " : "", rep->reason, rep->score, rep->agent_s);
	pthread_mutex_unlock(&r->lock);
}

static void run_item(struct run *r, struct slot *s, struct item *it)
{
	char *dir = attempt_dir(r, it), *run_id = NULL, *ref = NULL;
	if (!dir || (r->server && asprintf(&ref, "%s:%s", r->taskset, it->task->id) < 0)) {
		free(dir);
		return;
	}
	kn_attempt_report rep = {0};
	for (int try = 0; try <= r->retries; try++) {
		if (try > 0)
			set_aside(dir, try);
		free(run_id);
		run_id = NULL;
		if (asprintf(&run_id, "%s-%s-%d%s", r->run_base, it->task->id, it->k, try ? "-retry" : "") < 0)
			break;
		kn_attempt_opts o = {.task = it->task, .agent_cmd = r->agent, .dir = dir, .run_id = run_id,
		                     .browser = r->n_browsers ? r->browsers[s->index] : NULL,
		                     .chromium = r->chromium, .pool = r->pool, .viewport_w = r->vw, .viewport_h = r->vh,
		                     .timeout_s = r->timeout_s, .eval = r->eval, .stop = &r->stop,
		                     .blocked = &r->blocked, .server = r->server, .task_ref = ref,
		                     .guard = r->guard, .redact = &r->redact,
		                     .trace = r->trace, .environment = r->environment};
		kn_err err = {0};
		if (kn_attempt_run(&rep, &o, &err) != 0) {
			pthread_mutex_lock(&r->lock);
			fprintf(stderr, "keynode run: %s #%d: %s\n", it->task->id, it->k, err.msg);
			pthread_mutex_unlock(&r->lock);
			rep.status = KN_ATTEMPT_ERROR;
			break;
		}
		if (rep.status != KN_ATTEMPT_ERROR || atomic_load(&r->stop))
			break;
	}
	char path[4200];
	snprintf(path, sizeof path, "%s/result.json", dir);
	if (rep.status != KN_ATTEMPT_INTERRUPTED && kn_run_row_load(&it->row, path, NULL) == 0) {
		it->row.attempt = it->k;
		it->has_row = 1;
	}
	atomic_fetch_add(&r->done, rep.status != KN_ATTEMPT_INTERRUPTED);
	atomic_fetch_add(&r->successes, rep.status == KN_ATTEMPT_DONE && rep.completed);
	atomic_fetch_add(&r->errors, rep.status == KN_ATTEMPT_ERROR);
	atomic_fetch_add(&r->unjudged, rep.status == KN_ATTEMPT_UNJUDGED);
	progress_line(r, it, &rep);
	free(ref);
	free(run_id);
	free(dir);
}

static void *slot_main(void *ud)
{
	struct slot *s = ud;
	struct run *r = s->r;
	for (;;) {
		if (atomic_load(&r->stop))
			break;
		size_t i = atomic_fetch_add(&r->next, 1);
		if (i >= r->n_items)
			break;
		if (r->items[i].skip)
			continue;
		atomic_fetch_add(&r->running, 1);
		run_item(r, s, &r->items[i]);
		atomic_fetch_sub(&r->running, 1);
	}
	return NULL;
}

static void fmt_dur(char *out, size_t cap, double s)
{
	long t = (long)(s + 0.5);
	if (t >= 3600)
		snprintf(out, cap, "%ldh%02ldm", t / 3600, t / 60 % 60);
	else
		snprintf(out, cap, "%ldm%02lds", t / 60, t % 60);
}

/* The live line on a terminal: done/total, running, successes, elapsed, ETA. */
static void draw(struct run *r, size_t todo, size_t pre_done)
{
	double el = kn_time_mono_s() - r->t0_mono;
	int done = atomic_load(&r->done);
	char e[32], eta[32] = "?";
	fmt_dur(e, sizeof e, el);
	if (done > 0 && (size_t)done < todo)
		fmt_dur(eta, sizeof eta, el / done * (double)(todo - (size_t)done));
	else if ((size_t)done >= todo)
		snprintf(eta, sizeof eta, "0m00s");
	int unjudged = atomic_load(&r->unjudged);
	char unj[32] = ""; /* said only during a judge outage */
	if (unjudged)
		snprintf(unj, sizeof unj, " · %d unjudged", unjudged);
	fprintf(stderr,
	        "\r\033[Kkeynode run: %zu/%zu done · %d running · %d successes · %d errors%s · %s · ETA %s",
	        (size_t)done + pre_done, r->n_items, atomic_load(&r->running), atomic_load(&r->successes),
	        atomic_load(&r->errors), unj, e, eta);
	fflush(stderr);
}

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

/* DIR must be new or empty, unless --resume. Creates it. */
static int check_dir(const char *dir, int resume)
{
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *e;
		int empty = 1;
		while ((e = readdir(d)) != NULL)
			if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
				empty = 0;
		closedir(d);
		if (!empty && !resume)
			return kn_cli_usage_error("run", "%s is not empty: give --resume to continue that run, "
			                          "or another --out", dir);
		return 0;
	}
	if (kn_runner_mkdirs(dir) != 0) {
		fprintf(stderr, "keynode run: cannot create %s: %s\n", dir, strerror(errno));
		return KN_EXIT_USAGE;
	}
	return 0;
}

/* --resume: refuse to add attempts to a folder whose earlier ones ran in another environment
 * (summary.json "environment", and every attempt's own result.json "environment": a folder whose
 * summary was never written, or was deleted, is checked all the same), unless mix; with mix, now
 * records what differed. */
static int check_environment(const char *dir, json_t *now, int mix)
{
	char path[4200], diff[2048];
	snprintf(path, sizeof path, "%s/summary.json", dir);
	json_t *s = json_load_file(path, 0, NULL);
	int n = kn_run_environment_diff(diff, sizeof diff, json_object_get(s, "environment"), now);
	json_decref(s);
	glob_t g = {0};
	snprintf(path, sizeof path, "%s/*/*/result.json", dir);
	if (!n && glob(path, 0, NULL, &g) == 0)
		for (size_t i = 0; !n && i < g.gl_pathc; i++) {
			json_t *r = json_load_file(g.gl_pathv[i], 0, NULL);
			n = kn_run_environment_diff(diff, sizeof diff, json_object_get(r, "environment"), now);
			json_decref(r);
		}
	globfree(&g);
	if (n && !mix)
		return kn_cli_usage_error("run", "--resume: the attempts in %s ran in another environment (%s); "
		                          "give --mix-environments to resume all the same, or another --out", dir, diff);
	if (n)
		json_object_set_new(now, "mixed_with_earlier", json_string(diff));
	return KN_EXIT_OK;
}

/* Plan K attempts of every selected task; with --resume mark those with a kept result. */
static int plan(struct run *r, const kn_taskset *set, const char **ids, size_t n_ids, int repeat,
                int resume, const char *tasks)
{
	size_t nt = n_ids ? n_ids : set->n_tasks;
	r->items = calloc(nt * (size_t)repeat + 1, sizeof *r->items);
	if (!r->items)
		return KN_EXIT_USAGE;
	for (size_t i = 0; i < nt; i++) {
		const kn_task *t = n_ids ? kn_taskset_find(set, ids[i]) : &set->tasks[i];
		if (!t)
			return kn_cli_usage_error("run", "task '%s' is not in %s", ids[i], tasks);
		/* one folder per task: a task given twice runs once, two ids that make the same folder
		 * name are refused */
		char name[256], other[256];
		kn_runner_folder_name(name, sizeof name, t->id);
		int dup = 0;
		for (size_t j = 0; j < r->n_items && !dup; j += (size_t)repeat) {
			kn_runner_folder_name(other, sizeof other, r->items[j].task->id);
			if (strcmp(name, other) != 0)
				continue;
			if (r->items[j].task != t)
				return kn_cli_usage_error("run", "tasks '%s' and '%s' would share the folder %s",
				                          r->items[j].task->id, t->id, name);
			dup = 1;
		}
		if (dup)
			continue;
		for (int k = 1; k <= repeat; k++) {
			struct item *it = &r->items[r->n_items++];
			it->task = t;
			it->k = k;
			char *dir = resume ? attempt_dir(r, it) : NULL, path[4200];
			if (!dir)
				continue;
			snprintf(path, sizeof path, "%s/result.json", dir);
			if (kn_run_row_load(&it->row, path, NULL) == 0 && strcmp(it->row.status, "done") == 0) {
				it->row.attempt = k;
				it->skip = it->has_row = 1;
			}
			free(dir);
		}
	}
	return 0;
}

int kn_cmd_run(int argc, char **argv)
{
	enum { O_TASKS = 0x100, O_AGENT, O_TASK, O_PARALLEL, O_REPEAT, O_TIMEOUT, O_RETRIES, O_OUT,
	       O_RESUME, O_BROWSER, O_VIEWPORT, O_STEPS, O_MODE, O_CHROMIUM, O_QUIET, O_CONFIG, O_WARM,
	       O_SERVER, O_TASKSET, O_AGENT_NAME, O_MODEL, O_REGION, O_MIX, O_SNAPSHOT };
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
		{"config", required_argument, NULL, O_CONFIG},
		{"server", required_argument, NULL, O_SERVER},     {"taskset", required_argument, NULL, O_TASKSET},
		{"agent-name", required_argument, NULL, O_AGENT_NAME}, {"model", required_argument, NULL, O_MODEL},
		{"region", required_argument, NULL, O_REGION},     {"mix-environments", no_argument, NULL, O_MIX},
		{"snapshot", required_argument, NULL, O_SNAPSHOT},
		{"trace", required_argument, NULL, KN_CLI_OPT_TRACE},
		KN_CLI_SEMANTIC_LONGOPTS, /* its "config" comes after run's own: getopt_long takes run's */
		{NULL, 0, NULL, 0}};
	kn_cli_semantic so = {0};
	const char *tasks = NULL, *out = NULL, *config_path = NULL, *server = NULL;
	kn_run_meta meta = {0};
	const char *region = getenv("KEYNODE_REGION"), *region_opt = NULL;
	int mix = 0;
	json_t *environment = NULL;
	char *env_text = NULL;
	kn_config *cfg = NULL;
	kn_remote *remote = NULL;
	char *set_name = NULL;
	int parallel = 1, repeat = 1, resume = 0, c, timeout = 600, warm = -1, snapshot = 0;
	struct run r = {.retries = 1};
	const char **ids = calloc((size_t)argc + 1, sizeof *ids);
	r.browsers = calloc((size_t)argc + 1, sizeof *r.browsers);
	size_t n_ids = 0;
	if (!ids || !r.browsers) {
		free(ids), free(r.browsers);
		return KN_EXIT_USAGE;
	}
	int rc = KN_EXIT_USAGE;
	kn_taskset *set = NULL;
	struct slot *slots = NULL;
	char *dir_own = NULL, base[64];
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case O_TASKS: tasks = optarg; break;
		case O_AGENT: r.agent = optarg; break;
		case O_TASK: ids[n_ids++] = optarg; break;
		case O_OUT: out = optarg; break;
		case O_RESUME: resume = 1; break;
		case O_BROWSER: r.browsers[r.n_browsers++] = optarg; break;
		case O_CHROMIUM: r.chromium = optarg; break;
		case O_QUIET: r.quiet = 1; break;
		case O_CONFIG: config_path = so.config_path = optarg; break;
		case O_SERVER: server = optarg; break;
		case O_TASKSET: r.taskset = optarg; break;
		case O_AGENT_NAME: meta.agent_name = optarg; break;
		case O_MODEL: meta.model = optarg; break;
		case O_REGION: region = region_opt = optarg; break;
		case O_MIX: mix = 1; break;
		case O_SNAPSHOT:
			if (kn_cli_parse_int(&snapshot, optarg) || snapshot < 1)
				return kn_cli_usage_error("run", "--snapshot must be a snapshot version (a positive integer)");
			break;
		case O_PARALLEL:
			if (kn_cli_parse_int(&parallel, optarg) || parallel < 1 || parallel > 64) {
				kn_cli_usage_error("run", "--parallel must be 1..64");
				goto done;
			}
			break;
		case O_REPEAT:
			if (kn_cli_parse_int(&repeat, optarg) || repeat < 1 || repeat > 1000) {
				kn_cli_usage_error("run", "--repeat must be 1..1000");
				goto done;
			}
			break;
		case O_TIMEOUT:
			if (kn_cli_parse_int(&timeout, optarg) || timeout < 0) {
				kn_cli_usage_error("run", "--timeout must be seconds ≥ 0");
				goto done;
			}
			break;
		case O_WARM:
			if (kn_cli_parse_int(&warm, optarg) || warm < 0 || warm > KN_BROWSER_POOL_MAX) {
				kn_cli_usage_error("run", "--warm must be 0..%d", KN_BROWSER_POOL_MAX);
				goto done;
			}
			break;
		case O_RETRIES:
			if (kn_cli_parse_int(&r.retries, optarg) || r.retries < 0 || r.retries > 10) {
				kn_cli_usage_error("run", "--retries must be 0..10");
				goto done;
			}
			break;
		case O_VIEWPORT:
			if (parse_viewport(&r.vw, &r.vh, optarg)) {
				kn_cli_usage_error("run", "--viewport must be WIDTHxHEIGHT, e.g. 1280x720");
				goto done;
			}
			break;
		case O_STEPS:
			if (kn_cli_parse_int(&r.eval.step_limit, optarg)) {
				kn_cli_usage_error("run", "--step-limit must be an integer ≥ -1");
				goto done;
			}
			break;
		case O_MODE:
			if (kn_cli_parse_mode(&r.eval, optarg)) {
				kn_cli_usage_error("run", "--mode must be default or webcanvas");
				goto done;
			}
			break;
		case 'h':
			fputs(help, stdout);
			fputs(help_server, stdout);
			rc = KN_EXIT_OK;
			goto done;
		default: {
			int sr = kn_cli_semantic_option(&so, "run", c, optarg);
			if (sr > 0)
				break;
			if (sr < 0)
				goto done;
			kn_cli_trace tro = {0};
			int tr = kn_cli_trace_option(&tro, "run", c, optarg);
			if (tr > 0) {
				r.trace = (int)tro.mode;
				break;
			}
			if (tr == 0)
				kn_cli_usage_error("run", "bad option");
			goto done;
		}
		}
	}
	if (!tasks || !r.agent) {
		kn_cli_usage_error("run", "--tasks and --agent are required");
		goto done;
	}
	if (optind < argc) {
		kn_cli_usage_error("run", "unexpected argument '%s'", argv[optind]);
		goto done;
	}
	if (r.n_browsers && parallel > (int)r.n_browsers) {
		fprintf(stderr, "keynode run: --parallel %d with %zu --browser: one attempt per browser at a "
		        "time, so %zu at once\n", parallel, r.n_browsers, r.n_browsers);
		parallel = (int)r.n_browsers;
	}
	r.timeout_s = timeout;
	kn_err err = {0};
	if (config_path && kn_config_load(&cfg, config_path, &err) != 0) {
		fprintf(stderr, "keynode run: %s\n", err.msg);
		goto done;
	}
	kn_cli_blocked_rules(&r.blocked, cfg);
	kn_config_redact_rules(&r.redact, cfg);
	r.guard = cfg ? cfg->guard : NULL;
	if (!region_opt && cfg && cfg->region) /* --region, then KEYNODE_REGION, then keynode.yaml */
		region = region && *region ? region : cfg->region;
	if ((r.taskset || snapshot) && !server) {
		kn_cli_usage_error("run", "--taskset and --snapshot go with --server");
		goto done;
	}
	if (server) {
		if (kn_remote_new(&remote, server, getenv("KEYNODE_API_TOKEN"), &err) != 0) {
			kn_cli_usage_error("run", "%s", err.msg);
			goto done;
		}
		if (!r.taskset) { /* the file's name without folder and extension */
			const char *b = strrchr(tasks, '/');
			set_name = strdup(b ? b + 1 : tasks);
			char *dot = set_name ? strrchr(set_name, '.') : NULL;
			if (dot && dot != set_name)
				*dot = '\0';
			r.taskset = set_name;
		}
		/* issue 25: every attempt runs against one snapshot of the set, the one the upload left
		 * (or --snapshot N, without uploading), even if the set changes while they run */
		char hash[65];
		if (!r.taskset || (!snapshot && kn_remote_upload(remote, tasks, r.taskset, &snapshot, &err) != 0) ||
		    (snapshot && kn_remote_pin(remote, r.taskset, snapshot, hash, &err) != 0)) {
			fprintf(stderr, "keynode run: --server %s: %s\n", server, r.taskset ? err.msg : "out of memory");
			goto done;
		}
		if (snapshot)
			fprintf(stderr, "keynode run: task set %s snapshot %d (sha256 %s) on %s\n", r.taskset, snapshot,
			        hash, server);
		r.server = remote;
	}
	int lr = kn_cli_load_tasks(&set, tasks, NULL, "run", &err);
	if (lr) {
		fprintf(stderr, "keynode run: %s\n", err.msg);
		rc = lr == KN_ENOTFOUND || lr == KN_EIO ? KN_EXIT_USAGE : KN_EXIT_FAIL;
		goto done;
	}
	char file_sha[65];
	meta.tasks_sha256 = kn_sha256_file_hex(file_sha, tasks, NULL) == 0 ? file_sha : NULL;
	if (kn_cli_semantic_open(&so, "run", &r.eval) != KN_EXIT_OK)
		goto done;
	kn_run_env_opts eo = {.chromium = r.chromium ? r.chromium : kn_runner_chromium_default(),
	                      .browser = r.n_browsers ? r.browsers[0] : NULL, .viewport_w = r.vw,
	                      .viewport_h = r.vh, .region = region && *region ? region : NULL,
	                      .tasks_sha256 = meta.tasks_sha256, .eval = &r.eval, .probe = resume};
	if (!(environment = kn_run_environment(&eo)) || !(env_text = json_dumps(environment, JSON_COMPACT)))
		goto done;
	r.environment = env_text;
	meta.environment = environment;
	if (resume && (rc = check_environment(out, environment, mix)) != 0)
		goto done;
	rc = KN_EXIT_USAGE;
	r.t0 = time(NULL);
	snprintf(base, sizeof base, "r%ld", (long)r.t0);
	r.run_base = base;
	if (!out) {
		if (asprintf(&dir_own, "runs/run-%ld", (long)r.t0) < 0)
			goto done;
		out = dir_own;
	}
	r.dir = out;
	if ((rc = check_dir(out, resume)) != 0)
		goto done;
	rc = KN_EXIT_USAGE;
	if (plan(&r, set, ids, n_ids, repeat, resume, tasks) != 0)
		goto done;
	size_t pre_done = 0;
	for (size_t i = 0; i < r.n_items; i++)
		pre_done += r.items[i].skip;
	size_t todo = r.n_items - pre_done;
	r.plain = !isatty(STDERR_FILENO);
	if (!r.quiet)
		fprintf(stderr, "keynode run: %zu attempts (%zu tasks × %d), %d at once, into %s\n", r.n_items,
		        r.n_items / (size_t)repeat, repeat, parallel, out);
	if (pre_done && !r.quiet)
		fprintf(stderr, "keynode run: --resume: %zu attempts already have a result\n", pre_done);

	/* signals are taken by this thread only (sigtimedwait); the attempts see r.stop */
	sigset_t sigs, old;
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, &old);
	signal(SIGPIPE, SIG_IGN);
	kn_runner_adopt_orphans();
	pthread_mutex_init(&r.lock, NULL);
	r.t0_mono = kn_time_mono_s();
	int n_slots = (size_t)parallel < todo ? parallel : (int)todo, started = 0, got = 0;
	if (warm < 0)
		warm = parallel < KN_BROWSER_POOL_MAX ? parallel : KN_BROWSER_POOL_MAX;
	const char **urls = warm > 0 && !r.n_browsers && todo > 0 ? calloc(todo, sizeof *urls) : NULL;
	size_t n_urls = 0;
	for (size_t i = 0; urls && i < r.n_items; i++) /* the start pages in the order slots take them */
		if (!r.items[i].skip)
			urls[n_urls++] = r.items[i].task->start_url;
	if (urls && kn_browser_pool_new(&r.pool, (size_t)warm < todo ? (size_t)warm : todo, urls, n_urls,
	                                r.chromium, &err) != 0)
		fprintf(stderr, "keynode run: no warm pool (%s): each attempt launches its browser\n", err.msg);
	free(urls);
	slots = calloc((size_t)n_slots + 1, sizeof *slots);
	for (int i = 0; slots && i < n_slots; i++) {
		slots[i] = (struct slot){.r = &r, .index = r.n_browsers ? (size_t)i % r.n_browsers : 0};
		if (pthread_create(&slots[i].thread, NULL, slot_main, &slots[i]) != 0)
			break;
		started++;
	}
	struct timespec tick = {0, 100 * 1000000L};
	for (;;) {
		int busy = 0;
		for (int i = 0; i < started; i++)
			if (!slots[i].joined && pthread_tryjoin_np(slots[i].thread, NULL) == 0)
				slots[i].joined = 1;
			else
				busy |= !slots[i].joined;
		if (!busy)
			break;
		int sig = sigtimedwait(&sigs, NULL, &tick);
		if ((sig == SIGINT || sig == SIGTERM) && !got) {
			got = sig;
			atomic_store(&r.stop, 1);
			if (!r.quiet)
				fprintf(stderr, "%skeynode run: %s: stopping every agent and browser\n",
				        r.plain ? "" : "\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
		}
		if (!r.plain && !r.quiet)
			draw(&r, todo, pre_done);
	}
	if (!r.plain && !r.quiet) {
		draw(&r, todo, pre_done);
		fputc('\n', stderr);
	}
	kn_browser_pool_free(r.pool); /* after every attempt: its browsers die with its threads */
	r.pool = NULL;
	pthread_sigmask(SIG_SETMASK, &old, NULL);

	kn_run_row *rows = calloc(r.n_items + 1, sizeof *rows);
	kn_run_totals t = {.wall_s = kn_time_mono_s() - r.t0_mono};
	size_t n = 0;
	for (size_t i = 0; rows && i < r.n_items; i++)
		if (r.items[i].has_row)
			rows[n++] = r.items[i].row;
	kn_run_totals_count(&t, rows, n, r.n_items);
	t.ran = t.finished - pre_done;
	char t_start[32], t_end[32];
	time_t now = time(NULL);
	strftime(t_start, sizeof t_start, "%Y-%m-%dT%H:%M:%SZ", gmtime(&r.t0));
	strftime(t_end, sizeof t_end, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	meta.agent = r.agent;
	meta.started = t_start;
	meta.finished = t_end;
	meta.tasks_file = tasks;
	kn_run_task *planned = calloc(r.n_items / (size_t)repeat + 1, sizeof *planned);
	for (size_t i = 0; planned && i < r.n_items; i += (size_t)repeat)
		if (kn_run_task_describe(&planned[meta.n_tasks++], r.items[i].task) != 0)
			planned[meta.n_tasks - 1].sha256[0] = '\0';
	meta.tasks = planned;
	if (!rows || kn_run_summary_write(rows, n, &t, repeat, &meta, out, r.quiet ? NULL : stdout, &err) != 0)
		fprintf(stderr, "keynode run: %s\n", rows ? err.msg : "out of memory");
	else if (!r.quiet)
		printf("results in %s (summary.json, summary.csv)\n", out);
	free(rows);
	free(planned);
	rc = got == SIGINT ? 130 : got == SIGTERM ? 143 : t.errors || t.blocked || t.unjudged ? KN_EXIT_FAIL
	                                                                           : KN_EXIT_OK;
	pthread_mutex_destroy(&r.lock);
done:
	free(slots);
	free(r.items);
	kn_taskset_free(set);
	free(ids);
	free(r.browsers);
	free(dir_own);
	kn_config_free(cfg);
	kn_remote_free(remote);
	free(set_name);
	json_decref(environment);
	free(env_text);
	kn_cli_semantic_close(&so);
	return rc;
}
