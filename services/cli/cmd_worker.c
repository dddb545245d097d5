/* cmd_worker.c — `keynode worker`: parses the options and the config, then runs the replay worker
 * process (worker_process.h: the worker of services/scheduler/worker.h with alerts, the live view,
 * recordings and agent jobs). SIGTERM and SIGINT stop the worker: the replay in progress is
 * abandoned to lease expiry and the process exits 0. */
#include <getopt.h>
#include <stdio.h>
#include <sys/stat.h>

#include "cli.h"
#include "worker.h"
#include "worker_agent.h"
#include "worker_process.h"

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
	kn_worker_config wc;
	int rc = kn_worker_config_apply(&wc, &wo, &agents, cfg);
	if (rc == 0)
		rc = kn_worker_process_run(&wo, &agents, cfg);
	kn_worker_config_clear(&wc);
	kn_config_free(cfg);
	return rc;
}
