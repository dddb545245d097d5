/* cmd_worker.c — `keynode worker`: a replay worker process (services/scheduler/worker.h) with its
 * configuration, its browser and its signals. SIGTERM and SIGINT are taken by a dedicated thread
 * (sigwait), which stops the worker: the replay in progress is abandoned to lease expiry and the
 * process exits 0. */
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "keynode/redact.h"
#include "alerts.h"
#include "keynode/fs.h"
#include "cli.h"
#include "live_hub.h"
#include "worker_record.h"
#include "log.h"
#include "runner.h"
#include "worker.h"
#include "worker_agent.h"

static const char help[] =
	"usage: keynode worker --config keynode.yaml [--browser ENDPOINT] [--id NAME] [--once]\n"
	"                      [--max-jobs N] [--lease S] [--poll MS] [--chromium PATH]\n"
	"                      [--element-timeout MS] [--settle-timeout MS] [--step-delay MS]\n"
	"                      [--workflows DIR] [--viewport WxH] [--agent-out DIR] [--agent-timeout S]\n"
	"\n"
	"Claim replay jobs from the database (database.url or KEYNODE_DATABASE_URL), replay each job's\n"
	"task in a fresh browser context, retry a failed replay once in a new context, store the result\n"
	"and move the task's health (healthy, flaky, broken, recovered, error), raising an alert on each\n"
	"transition. A job is leased and the lease kept alive by a heartbeat; a worker that dies loses\n"
	"nothing: its lease expires and another worker takes the job.\n"
	"\n"
	"options:\n"
	"  --config FILE        keynode.yaml (database, browsers, alerts, health.broken_after, trace:\n"
	"                       a trace per stored replay in trace.dir/<run id>/, as serve keeps them)\n"
	"  --browser ENDPOINT   CDP endpoint (ws://…, http://HOST:PORT or a DevToolsActivePort file);\n"
	"                       default the first of config `browsers`, else a local headless Chromium\n"
	"                       the worker starts and stops itself\n"
	"  --chromium PATH      local browser binary (default $KEYNODE_CHROMIUM, else\n"
	"                       /usr/lib/chromium/chromium)\n"
	"  --id NAME            worker id stored with its leases (default HOST:PID)\n"
	"  --once               exit when the queue is empty\n"
	"  --max-jobs N         exit after N jobs\n"
	"  --lease S            lease length in seconds (default 30; heartbeat every third)\n"
	"  --poll MS            pause after finding the queue empty (default 1000)\n"
	"  --element-timeout MS wait for a step's element (default 5000)\n"
	"  --settle-timeout MS  wait for the page to settle after a step (default 10000)\n"
	"  --step-delay MS      pause between steps (default 0)\n"
	"  --workflows DIR      replay DIR/<task-id>.yaml (`keynode record`) when it exists instead of\n"
	"                       the task's stored steps\n"
	"  --viewport WxH       browser viewport (default: the workflow's recorded one, else 1280x800)\n"
	"  --agent-out DIR      agent jobs (config `agents:`, POST /api/agent-runs): attempt folders go\n"
	"                       to DIR/<batch>/<task>/<k> (default runs/agent-jobs)\n"
	"  --agent-timeout S    seconds an agent may work (default 600; 0: none)\n"
	"With `agents: {NAME: \"command …\"}` in the config the worker also claims the agent jobs of\n"
	"those agents (only those: a job names an agent, never a command) when no replay job waits, and\n"
	"runs each as one `keynode run` attempt in its own fresh Chromium.\n"
	"When no replay job waits it also takes the workflow recordings started from the dashboard\n"
	"(POST /api/tasks/{id}/recordings): the task's start page, shown live to be taken over, recorded,\n"
	"replayed at Finish and stored as a new workflow version when that replay passes.\n"
	"\n"
	"exit: 0 stopped (SIGTERM/SIGINT, --once, --max-jobs), 2 usage error or database/browser\n"
	"unreachable\n";

struct sigctx {
	sigset_t set;
	kn_worker *w;
	int done, stop_requested;
	pthread_mutex_t mu;
};

static void *signal_main(void *arg)
{
	struct sigctx *s = arg;
	for (;;) {
		int sig = 0;
		if (sigwait(&s->set, &sig) != 0)
			continue;
		pthread_mutex_lock(&s->mu);
		int done = s->done;
		if (!done) {
			kn_log_msg("info", "worker", "stopping", "signal=%s", sig == SIGTERM ? "TERM" : "INT");
			s->stop_requested = 1;
			if (s->w) /* under the lock: the worker is not freed meanwhile */
				kn_worker_stop(s->w);
		}
		pthread_mutex_unlock(&s->mu);
		if (done)
			return NULL;
	}
}

static int parse_ms(int *out, const char *text, const char *what)
{
	if (kn_cli_parse_int(out, text) || *out < 1)
		return kn_cli_usage_error("worker", "%s must be a positive number", what);
	return 0;
}

int kn_cmd_worker(int argc, char **argv)
{
	enum { O_CHROMIUM = 0x100, O_LEASE, O_POLL, O_ELEMENT, O_SETTLE, O_DELAY, O_MAX, O_WORKFLOWS,
	       O_VIEWPORT, O_AGENT_OUT, O_AGENT_TIMEOUT };
	static const struct option opts[] = {
		{"config", required_argument, NULL, 'c'},   {"browser", required_argument, NULL, 'b'},
		{"id", required_argument, NULL, 'i'},       {"once", no_argument, NULL, '1'},
		{"max-jobs", required_argument, NULL, O_MAX}, {"chromium", required_argument, NULL, O_CHROMIUM},
		{"lease", required_argument, NULL, O_LEASE}, {"poll", required_argument, NULL, O_POLL},
		{"element-timeout", required_argument, NULL, O_ELEMENT},
		{"settle-timeout", required_argument, NULL, O_SETTLE},
		{"step-delay", required_argument, NULL, O_DELAY}, {"help", no_argument, NULL, 'h'},
		{"workflows", required_argument, NULL, O_WORKFLOWS}, {"viewport", required_argument, NULL, O_VIEWPORT},
		{"agent-out", required_argument, NULL, O_AGENT_OUT},
		{"agent-timeout", required_argument, NULL, O_AGENT_TIMEOUT}, {NULL, 0, NULL, 0}};
	kn_worker_agents agents = {.dir = "runs/agent-jobs", .timeout_s = 600};
	const char *config_path = NULL;
	kn_worker_opts wo = {0};
	kn_blocked_rules blocked = {0};
	int c, n;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'c': config_path = optarg; break;
		case 'b': wo.browser = optarg; break;
		case 'i': wo.id = optarg; break;
		case '1': wo.once = 1; break;
		case O_CHROMIUM: wo.chromium = optarg; break;
		case O_MAX:
			if (parse_ms(&n, optarg, "--max-jobs"))
				return KN_EXIT_USAGE;
			wo.max_jobs = n;
			break;
		case O_LEASE:
			if (parse_ms(&wo.lease_s, optarg, "--lease"))
				return KN_EXIT_USAGE;
			break;
		case O_POLL:
			if (parse_ms(&wo.poll_ms, optarg, "--poll"))
				return KN_EXIT_USAGE;
			break;
		case O_ELEMENT:
			if (parse_ms(&wo.validate.replay.element_timeout_ms, optarg, "--element-timeout"))
				return KN_EXIT_USAGE;
			break;
		case O_SETTLE:
			if (parse_ms(&wo.validate.replay.wait.settle_ms, optarg, "--settle-timeout"))
				return KN_EXIT_USAGE;
			break;
		case O_DELAY:
			if (kn_cli_parse_int(&wo.validate.replay.step_delay_ms, optarg) ||
			    wo.validate.replay.step_delay_ms < 0)
				return kn_cli_usage_error("worker", "--step-delay must be milliseconds");
			break;
		case O_WORKFLOWS: wo.workflows_dir = optarg; break;
		case O_AGENT_OUT: agents.dir = optarg; break;
		case O_AGENT_TIMEOUT:
			if (kn_cli_parse_int(&n, optarg) || n < 0)
				return kn_cli_usage_error("worker", "--agent-timeout must be seconds >= 0");
			agents.timeout_s = n;
			break;
		case O_VIEWPORT:
			if (kn_cli_parse_viewport(&wo.validate.replay.viewport_w, &wo.validate.replay.viewport_h, optarg))
				return kn_cli_usage_error("worker", "--viewport must be WIDTHxHEIGHT, e.g. 1280x800");
			break;
		case 'h': fputs(help, stdout); return KN_EXIT_OK;
		default: return kn_cli_usage_error("worker", "bad option");
		}
	}
	if (optind < argc)
		return kn_cli_usage_error("worker", "unexpected argument '%s'", argv[optind]);
	if (!config_path)
		return kn_cli_usage_error("worker", "--config is required");
	struct stat wsb;
	if (wo.workflows_dir && (stat(wo.workflows_dir, &wsb) != 0 || !S_ISDIR(wsb.st_mode)))
		return kn_cli_usage_error("worker", "--workflows %s is not a folder", wo.workflows_dir);

	kn_err err = {0};
	kn_config *cfg = NULL;
	if (kn_config_load(&cfg, config_path, &err) != 0) {
		fprintf(stderr, "keynode worker: %s\n", err.msg);
		return KN_EXIT_USAGE;
	}
	if (!cfg->database_url) {
		fprintf(stderr, "keynode worker: no database: set database.url in %s or KEYNODE_DATABASE_URL\n",
		        config_path);
		kn_config_free(cfg);
		return KN_EXIT_USAGE;
	}
	if (!wo.browser && cfg->n_browsers > 0)
		wo.browser = cfg->browsers[0];
	if (!wo.chromium && getenv("KEYNODE_CHROMIUM") && *getenv("KEYNODE_CHROMIUM"))
		wo.chromium = getenv("KEYNODE_CHROMIUM");
	wo.conninfo = cfg->database_url;
	wo.broken_after = cfg->health_broken_after;
	wo.validate.fresh_context = 1;
	/* keynode.yaml `trace:` (services/scheduler/worker_trace.h): where serve keeps its traces */
	kn_cli_trace tro = {0};
	int keep_days = 0, max_mb = 0;
	kn_cli_trace_config(&tro, &keep_days, &max_mb, cfg);
	char *trace_root = tro.mode == KN_TRACE_OFF ? NULL : tro.dir ? strdup(tro.dir) : kn_cli_state_dir("traces");
	kn_err terr = {0};
	if (tro.mode != KN_TRACE_OFF && (!trace_root || kn_mkdirs(trace_root, 0700, &terr) != 0)) {
		fprintf(stderr, "keynode worker: trace.dir: %s\n", trace_root ? terr.msg : "out of memory");
		free(trace_root);
		kn_config_free(cfg);
		return KN_EXIT_USAGE;
	}
	wo.trace_mode = (int)tro.mode, wo.trace_root = trace_root, wo.trace_keep_days = keep_days;
	wo.trace_max_bytes = (long long)max_mb * 1024 * 1024;
	/* keynode.yaml `blocked:` (services/replay/blocked.h): lists not given keep their defaults */
	kn_cli_blocked_rules(&blocked, cfg);
	wo.validate.replay.blocked = &blocked;
	kn_redact redact; /* keynode.yaml guard: and redact: */
	kn_config_redact_rules(&redact, cfg);
	wo.validate.replay.guard = cfg->guard;
	wo.validate.replay.redact = &redact;
	/* keynode.yaml `replay:` waits; --element-timeout and --settle-timeout win */
	int element_ms = wo.validate.replay.element_timeout_ms, settle_ms = wo.validate.replay.wait.settle_ms;
	kn_cli_replay_waits(&wo.validate.replay, cfg);
	if (element_ms)
		wo.validate.replay.element_timeout_ms = element_ms;
	if (settle_ms)
		wo.validate.replay.wait.settle_ms = settle_ms;
	/* agent jobs: the config's agents only (worker_agent.h) */
	const char **agent_names = calloc(cfg->n_agents + 1, sizeof *agent_names);
	const char **agent_cmds = calloc(cfg->n_agents + 1, sizeof *agent_cmds);
	for (size_t i = 0; agent_names && agent_cmds && i < cfg->n_agents; i++)
		agent_names[i] = cfg->agents[i].name, agent_cmds[i] = cfg->agents[i].command;
	if (cfg->n_agents && agent_names && agent_cmds) {
		agents.names = agent_names, agents.commands = agent_cmds, agents.n = cfg->n_agents;
		agents.chromium = wo.chromium;
		agents.region = getenv("KEYNODE_REGION") && *getenv("KEYNODE_REGION") ? getenv("KEYNODE_REGION")
		                                                                        : cfg->region;
		wo.other_job = kn_worker_agent_job;
		wo.other_ud = &agents;
		kn_runner_adopt_orphans(); /* what an agent leaves behind comes back to be stopped */
	}

	/* Block the stop signals in every thread (the ones created below inherit the mask) and take
	 * them on the signal thread; a broken pipe is an error return, never a death. */
	struct sigctx sc = {.w = NULL};
	pthread_mutex_init(&sc.mu, NULL);
	sigemptyset(&sc.set);
	sigaddset(&sc.set, SIGTERM);
	sigaddset(&sc.set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &sc.set, NULL);
	signal(SIGPIPE, SIG_IGN);
	pthread_t sig_thread;
	int sig_started = pthread_create(&sig_thread, NULL, signal_main, &sc) == 0;

	int rc = KN_EXIT_USAGE;
	kn_alerts *alerts = NULL;
	kn_worker *w = NULL;
	kn_live_hub *live = NULL;
	kn_alerts_opts ao = {.config = cfg, .conninfo = cfg->database_url};
	if (kn_alerts_new(&alerts, &ao, &err) != 0) {
		fprintf(stderr, "keynode worker: alerts: %s\n", err.msg);
		goto done;
	}
	wo.alerts = alerts;
	/* the live view (services/live): a replay can be watched and taken over from serve */
	kn_live_hub_opts lo = {.conninfo = cfg->database_url, .takeover_idle_s = cfg->http_takeover_idle_s};
	if (kn_live_hub_new(&live, &lo, &err) != 0) {
		fprintf(stderr, "keynode worker: live view: %s\n", err.msg);
		goto done;
	}
	wo.validate.watch = kn_live_hub_watch(live);
	agents.watch = kn_live_hub_attempt_watch(live); /* and an agent attempt, once its site blocks it */
	/* recordings from the dashboard (worker_record.h), then the agent jobs */
	kn_worker_recorder recorder = {.hub = live, .idle_s = cfg->http_takeover_idle_s, .validate = wo.validate,
	                               .next = wo.other_job, .next_ud = wo.other_ud};
	wo.other_job = kn_worker_record_job;
	wo.other_ud = &recorder;
	if (kn_worker_new(&w, &wo, &err) != 0) {
		fprintf(stderr, "keynode worker: %s\n", err.msg);
		goto done;
	}
	pthread_mutex_lock(&sc.mu);
	sc.w = w;
	if (sc.stop_requested) /* a signal came while the worker was starting */
		kn_worker_stop(w);
	pthread_mutex_unlock(&sc.mu);
	if (kn_worker_run(w, &err) != 0) {
		fprintf(stderr, "keynode worker: %s\n", err.msg);
		goto done;
	}
	rc = KN_EXIT_OK;
done:
	if (sig_started) {
		pthread_mutex_lock(&sc.mu);
		sc.done = 1;
		sc.w = NULL;
		pthread_mutex_unlock(&sc.mu);
		pthread_kill(sig_thread, SIGTERM); /* wakes its sigwait */
		pthread_join(sig_thread, NULL);
	}
	kn_worker_free(w);
	kn_live_hub_free(live); /* after the worker: its replays' timers are gone with them */
	if (alerts) {
		kn_alerts_drain(alerts, 5000, NULL);
		kn_alerts_free(alerts);
	}
	pthread_mutex_destroy(&sc.mu);
	free(agent_names);
	free(agent_cmds);
	free(trace_root);
	kn_config_free(cfg);
	return rc;
}
