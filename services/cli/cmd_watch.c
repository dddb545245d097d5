/* cmd_watch.c — `keynode watch`: attach to a browser, score one task live while an agent works,
 * write the trajectory as it happens and the run result at the end. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "keynode/redact.h"
#include "cli.h"
#include "judge_async.h"
#include "keynode/fs.h"
#include "keynode/until.h"
#include "monitor.h"

static const char help[] =
	"usage: keynode watch --browser WS_URL|http://HOST:PORT|DEVTOOLSACTIVEPORT_FILE --tasks TASKFILE\n"
	"                     --task ID [--out RESULT.json] [--trajectory RUN.jsonl]\n"
	"                     [--until finished|idle:SECONDS|steps:N] [--mode default|webcanvas]\n"
	"                     [--threshold X] [--step-limit N] [--run-id ID] [--answer-file FILE]\n"
	"                     [--quiet] [--ws-received] [--trace on|off|failures] [--trace-dir DIR]\n"
	"                     [--semantic offline|llm --llm-url URL --llm-model NAME …]\n"
	"\n"
	"Watch an agent working in a running browser and score the task live. keynode attaches to every\n"
	"tab and popup, records actions in an isolated world the page cannot see, and prints each key\n"
	"node as it is reached. The agent drives the browser over its own connection.\n"
	"\n"
	"options:\n"
	"  --browser E       CDP endpoint: ws://…/devtools/browser/…, http://HOST:PORT, or a\n"
	"                    DevToolsActivePort file\n"
	"  --tasks FILE      task file (native YAML or Mind2Web-Live JSON); --task ID picks the task\n"
	"  --out FILE        write the run result there (default: print it on stdout)\n"
	"  --trajectory F    write every event to F as it happens (JSONL, flushed per event)\n"
	"  --until U         end when: finished (all key nodes reached), idle:S (S seconds without an\n"
	"                    event), steps:N (N steps); default: until Ctrl-C. Several may be given.\n"
	"  --mode, --threshold   as for `keynode score`\n"
	"  --step-limit N    step budget: 0 (default) the upstream max(10, 1.5 x reference length)\n"
	"                    capped at 25, -1 none; once spent the run ends (status step_limit)\n"
	"  --run-id ID       run id in the trajectory and result (default: w-<time>)\n"
	"  --answer-file F   the agent's answers: every line appended to F is an `answer` event\n"
	"                    (agents report answers outside the browser; `keynode replay\n"
	"                    --answer-file F` writes there)\n"
	"  --quiet           no progress lines\n"
	"  --ws-received     WebSocket messages received are events too (default: sent only)\n"
	"\n"
	KN_CLI_SEMANTIC_HELP
	"\n"
	KN_CLI_TRACE_HELP
	"\n"
	"Ctrl-C ends the run cleanly with a result. A page of the task's own site (its start URL's or\n"
	"URL key nodes' host) that does not answer (DNS, refused connection, TLS error) ends the run:\n"
	"status error, reason unreachable, with the URL and the net error.\n"
	"exit: 0 the task was finished, 1 it was not (status unjudged too: a judgement it depends on\n"
	"failed; `keynode score` on --trajectory gives the verdict once the judge answers), 2 usage error,\n"
	"browser unreachable/disconnected\n"
	"or the task's site unreachable\n";

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

struct watch {
	kn_cdp_loop *loop;
	kn_monitor *mon;
	kn_cdp_timer *tick;
	FILE *answers;      /* --answer-file, read as it grows */
	char line[4096];
	size_t line_len;
	int quiet;
	kn_trace *trace;    /* --trace */
};

/* Turn every complete new line of the answer file into an answer event. */
static void read_answers(struct watch *w)
{
	int ch;
	if (!w->answers)
		return;
	clearerr(w->answers); /* the file grows: EOF now is not EOF later */
	while ((ch = fgetc(w->answers)) != EOF) {
		if (ch != '\n') {
			if (w->line_len + 1 < sizeof w->line)
				w->line[w->line_len++] = (char)ch;
			continue;
		}
		w->line[w->line_len] = '\0';
		if (w->line_len && !kn_monitor_ended(w->mon))
			kn_monitor_answer(w->mon, w->line);
		w->line_len = 0;
	}
}

static void watch_tick(void *ud)
{
	struct watch *w = ud;
	w->tick = NULL;
	read_answers(w);
	if (interrupted && w->mon && !kn_monitor_ended(w->mon))
		kn_monitor_stop(w->mon, KN_END_STOPPED);
	if (!kn_cdp_loop_stopped(w->loop))
		w->tick = kn_cdp_timer_start(w->loop, 100, watch_tick, w);
}

/* Every open tab is attached with its recorder: the agent may start (scripts wait for this line). */
static void on_ready(void *ud, kn_monitor *m)
{
	(void)m;
	struct watch *w = ud;
	if (!w->quiet)
		fprintf(stderr, "keynode watch: ready: every open tab is attached and recorded\n");
}

static void stop_loop(void *ud)
{
	struct watch *w = ud;
	kn_cdp_loop_stop(w->loop);
}

static void on_end(void *ud, kn_monitor *m, const char *reason)
{
	(void)m;
	(void)reason;
	struct watch *w = ud;
	kn_trace_settle(w->trace, w->loop, 3000, stop_loop, w); /* the last screenshot first */
}

/* The run result (docs/formats.md §3) on f; with the LLM judge, plus "llm": its usage during the
 * run (requests, tokens, cost: Mind2Web-Live's USD efficiency per run). */
static int write_result(FILE *f, const kn_eval *ev, const char *run_id, kn_cli_semantic *so)
{
	if (!so->client)
		return kn_eval_write_result(ev, run_id, f);
	json_t *j = kn_eval_result_json(ev, run_id);
	json_t *u = kn_cli_semantic_usage(so, kn_eval_reached(ev));
	if (j && u)
		json_object_set_new(j, "llm", u), u = NULL;
	int rc = j && json_dumpf(j, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER) == 0 && fputc('\n', f) != EOF
		? 0 : -1;
	json_decref(j);
	json_decref(u);
	return rc;
}

/* Make the folders of out, traj and answers, open the trajectory (*tf, written) and the answer
 * file (*answers_f, read from its current end: answers from before this run are not ours). 0, or -1
 * having said why on stderr. */
static int open_files(FILE **tf, FILE **answers_f, const char *out, const char *traj, const char *answers)
{
	kn_err derr = {0};
	if ((out && kn_mkdirs_for(out, 0755, &derr)) || (traj && kn_mkdirs_for(traj, 0755, &derr)) ||
	    (answers && kn_mkdirs_for(answers, 0755, &derr))) {
		fprintf(stderr, "keynode watch: %s\n", derr.msg);
		return -1;
	}
	if (traj && !(*tf = fopen(traj, "w"))) {
		fprintf(stderr, "keynode watch: cannot write %s\n", traj);
		return -1;
	}
	if (answers && !(*answers_f = fopen(answers, "a+"))) {
		fprintf(stderr, "keynode watch: cannot open %s\n", answers);
		return -1;
	}
	if (*answers_f)
		fseek(*answers_f, 0, SEEK_END);
	return 0;
}

/* After the loop: the run result to out (stdout when NULL), the judge's usage and the trace
 * finished, and the exit code: 2 when the browser went away or the site was unreachable, else 0
 * when the task was completed, 1 when not. */
static int finish(struct watch *w, const char *out, const char *run_id, kn_cli_semantic *so, int quiet)
{
	const kn_eval *ev = kn_monitor_eval(w->mon);
	FILE *of = out ? fopen(out, "w") : stdout;
	if (!of || write_result(of, ev, run_id, so) != 0)
		fprintf(stderr, "keynode watch: cannot write the result to %s\n", out ? out : "stdout");
	if (of && of != stdout)
		fclose(of);
	if (!quiet)
		kn_cli_semantic_report(so, stderr, kn_eval_reached(ev));
	kn_end why;
	int rc, gone = kn_monitor_end_cause(w->mon, &why) && why == KN_END_BROWSER_GONE;
	kn_cli_trace_finish(w->trace, ev, "watch", kn_monitor_end_reason(w->mon), !kn_eval_completed(ev), quiet);
	const json_t *unreachable = kn_eval_unreachable(ev);
	if (gone) {
		fprintf(stderr, "keynode watch: browser disconnected\n");
		rc = KN_EXIT_USAGE;
	} else if (kn_monitor_end_cause(w->mon, &why) && why == KN_END_GUARD_INACTIVE) {
		/* the guard did not prove itself: never "ready", so no agent should act (monitor README) */
		fprintf(stderr, "keynode watch: guard not active: %s; do not start the agent\n",
		        kn_monitor_end_detail(w->mon) ? kn_monitor_end_detail(w->mon) : "the canary was not held");
		rc = KN_EXIT_USAGE;
	} else if (unreachable) {
		fprintf(stderr, "keynode watch: site unreachable: %s at %s\n",
		        json_string_value(json_object_get(unreachable, "error")),
		        json_string_value(json_object_get(unreachable, "url")));
		rc = KN_EXIT_USAGE;
	} else {
		if (kn_eval_status(ev) == KN_STATUS_UNJUDGED) /* the judge's failure, not the agent's */
			fprintf(stderr, "keynode watch: unjudged: the judge failed on %zu key node%s the run "
			        "depends on (the result's \"unjudged\"); score its trajectory again once the judge "
			        "answers\n", kn_eval_unjudged(ev), kn_eval_unjudged(ev) == 1 ? "" : "s");
		rc = kn_eval_completed(ev) ? KN_EXIT_OK : KN_EXIT_FAIL;
	}
	return rc;
}

int kn_cmd_watch(int argc, char **argv)
{
	static const struct option opts[] = {
		KN_CLI_TARGET_LONGOPTS,
		{"trajectory", required_argument, NULL, 'j'}, {"until", required_argument, NULL, 'u'},
		{"mode", required_argument, NULL, 'm'},    {"threshold", required_argument, NULL, 'T'},
		{"run-id", required_argument, NULL, 'r'},  {"quiet", no_argument, NULL, 'q'},
		{"answer-file", required_argument, NULL, 'a'},
		{"step-limit", required_argument, NULL, 'L'}, {"ws-received", no_argument, NULL, 'W'},
		{"help", no_argument, NULL, 'h'},          KN_CLI_SEMANTIC_LONGOPTS, KN_CLI_TRACE_LONGOPTS,
		{NULL, 0, NULL, 0}};
	kn_cli_target tg = {0};
	const char *traj = NULL;
	const char *run_id = NULL, *answers = NULL;
	int quiet = 0, c, sr;
	kn_monitor_opts mo = {0};
	kn_until until = {0};
	kn_cli_semantic so = {0};
	kn_cli_judges judges = {0};
	kn_cli_trace tro = {0};
	while ((c = getopt_long(argc, argv, "hq", opts, NULL)) != -1) {
		switch (c) {
		case 'j': traj = optarg; break;
		case 'r': run_id = optarg; break;
		case 'a': answers = optarg; break;
		case 'q': quiet = 1; break;
		case 'W': mo.ws_received = 1; break;
		case 'u':
			if (kn_until_parse(&until, optarg) != 0)
				return kn_cli_usage_error("watch", "--until must be finished, idle:SECONDS or steps:N");
			break;
		case 'm':
			if (kn_cli_parse_mode(&mo.eval, optarg))
				return kn_cli_usage_error("watch", "--mode must be default or webcanvas");
			break;
		case 'T':
			if (kn_cli_parse_threshold(&mo.eval, optarg))
				return kn_cli_usage_error("watch", "--threshold must be in (0, 1]");
			break;
		case 'L':
			if (kn_cli_parse_int(&mo.eval.step_limit, optarg))
				return kn_cli_usage_error("watch", "--step-limit must be an integer ≥ -1");
			break;
		case 'h': fputs(help, stdout); return KN_EXIT_OK;
		default:
			if ((sr = kn_cli_target_option(&tg, c, optarg)) == 0 &&
			    (sr = kn_cli_semantic_option(&so, "watch", c, optarg)) == 0)
				sr = kn_cli_trace_option(&tro, "watch", c, optarg);
			if (sr > 0)
				break;
			return sr < 0 ? KN_EXIT_USAGE : kn_cli_usage_error("watch", "bad option");
		}
	}
	const char *browser = tg.browser, *tasks = tg.tasks, *task_id = tg.task_id, *out = tg.out;
	if (!browser || !tasks || !task_id)
		return kn_cli_usage_error("watch", "--browser, --tasks and --task are required");
	mo.until_finished = until.finished;
	mo.until_idle_s = until.idle_s;
	mo.until_steps = until.steps;
	if (optind < argc)
		return kn_cli_usage_error("watch", "unexpected argument '%s'", argv[optind]);

	kn_err err = {0};
	kn_taskset *set = NULL;
	if (kn_cli_semantic_open(&so, "watch", &mo.eval) != KN_EXIT_OK)
		return KN_EXIT_USAGE;
	kn_blocked_rules blocked; /* --config: its blocked: section (blocked_opts.c) */
	kn_cli_blocked_rules(&blocked, so.config);
	mo.blocked = &blocked;
	kn_redact redact; /* --config: keynode.yaml guard: and redact: */
	kn_config_redact_rules(&redact, so.config);
	mo.guard = so.config ? so.config->guard : NULL;
	mo.canary_timeout_ms = so.config ? so.config->canary_timeout_ms : 0;
	mo.redact = &redact;
	/* after --config: its sites: resolve WebArena placeholders */
	int r = kn_cli_load_tasks(&set, tasks, so.config, "watch", &err);
	if (r) {
		fprintf(stderr, "keynode watch: %s\n", err.msg);
		kn_cli_semantic_close(&so);
		return r == KN_ENOTFOUND || r == KN_EIO ? KN_EXIT_USAGE : KN_EXIT_FAIL;
	}
	int rc = KN_EXIT_USAGE;
	char *ws = NULL, idbuf[48];
	FILE *tf = NULL;
	struct watch w = {0};
	const kn_task *task = kn_taskset_find(set, task_id);
	if (!task) {
		fprintf(stderr, "keynode watch: task '%s' is not in %s\n", task_id, tasks);
		goto done;
	}
	if (kn_cdp_discover(&ws, browser, 5000, &err) != 0) {
		fprintf(stderr, "keynode watch: browser unreachable: %s\n", err.msg);
		goto done;
	}
	if (open_files(&tf, &w.answers, out, traj, answers) != 0)
		goto done;
	if (!run_id) {
		snprintf(idbuf, sizeof idbuf, "w-%ld", (long)time(NULL));
		run_id = idbuf;
	}
	char tdir[4096];
	kn_cli_trace_default_dir(tdir, sizeof tdir, &tro, traj ? traj : out, run_id);
	if (kn_cli_trace_open(&w.trace, &tro, "watch", tdir, task, run_id, "run") != KN_EXIT_OK)
		goto done;
	mo.trace = w.trace;
	mo.task = task;
	mo.run_id = run_id;
	mo.trajectory = tf;
	mo.progress = quiet ? NULL : stderr;
	mo.on_end = on_end;
	mo.on_ready = on_ready;
	w.quiet = quiet;
	mo.ud = &w;
	mo.verdict_wait_ms = (int)(so.timeout_ms > 0 ? so.timeout_ms : 30000);
	if (kn_cdp_loop_new(&w.loop, &err) != 0 ||
	    kn_cli_judges_start(&judges, &so, &mo.eval, w.loop, &err) != 0 ||
	    kn_monitor_start(&w.mon, w.loop, ws, &mo, &err) != 0) {
		fprintf(stderr, "keynode watch: %s\n", err.msg);
		goto done;
	}
	judges.mon = w.mon;
	if (!quiet)
		fprintf(stderr, "keynode watch: task %s \"%s\": %zu key nodes; watching %s (Ctrl-C ends)\n",
		        task->id, task->intent, task->n_keynodes, ws);
	struct sigaction sa = {0};
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	w.tick = kn_cdp_timer_start(w.loop, 100, watch_tick, &w);
	kn_cdp_loop_run(w.loop);

	rc = finish(&w, out, run_id, &so, quiet);
done:
	kn_cdp_timer_cancel(w.tick);
	kn_cli_judges_stop(&judges);
	kn_monitor_free(w.mon);
	kn_trace_free(w.trace); /* after the monitor: its pending captures have failed */
	kn_cdp_loop_free(w.loop);
	if (tf)
		fclose(tf);
	if (w.answers)
		fclose(w.answers);
	free(ws);
	kn_cli_semantic_close(&so);
	kn_taskset_free(set);
	return rc;
}
