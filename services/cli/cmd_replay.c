/* cmd_replay.c — `keynode replay`: drive a browser through tasks' reference steps, the way an
 * agent would (trusted input on its own connection), and report each step's outcome; with
 * --validate, judge each task (passed / broken / error) in a fresh browser context scored by the
 * monitor, writing the report and the failure screenshot. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "keynode/redact.h"
#include "cli.h"
#include "keynode/workflow.h"
#include "keynode/fs.h"
#include "replay.h"

static const char help[] =
	"usage: keynode replay --browser WS_URL|http://HOST:PORT|DEVTOOLSACTIVEPORT_FILE --tasks TASKFILE\n"
	"                      [--task ID] [--out DIR] [--step-delay MS] [--answer-file FILE] [--quiet]\n"
	"                      [--validate] [--workflows DIR] [--viewport WxH] [--config FILE]\n"
	"                      [--trace on|off|failures] [--trace-dir DIR] [--no-repairs]   (with --validate)\n"
	"\n"
	"Drive the browser through each task's reference `steps` (goto, click, type, select, press,\n"
	"scroll, wait, back, forward, answer) in a new tab, with trusted Input.* events, waiting for\n"
	"each element (5 s) and for the page to load after each step (10 s). An element is located by\n"
	"the recorded selector, then by fallbacks (id, name, aria-label, role + text, href, text), then\n"
	"by healing (the most similar element above a threshold): a step found only that way is a\n"
	"drift warning, printed with the selector to use instead.\n"
	"\n"
	"Without --validate the replay acts as an agent in a new tab of the browser's default context,\n"
	"for a watcher (`keynode watch`) attached to the same browser. With --validate every task is\n"
	"judged on its own: a fresh browser context per task, the run watched and scored by keynode\n"
	"itself, verdict passed (every step worked, every key node reached), broken, or error (site or\n"
	"browser unreachable).\n"
	"\n"
	"options:\n"
	"  --task ID         only this task (default: every task that has steps)\n"
	"  --validate        judge each task (see above); with --out: DIR/<task>.json is the report,\n"
	"                    DIR/<task>.png the screenshot of a failure\n"
	"  --out DIR         write DIR/<task>.json with each step's outcome (or the report)\n"
	"  --step-delay MS   pause between steps (default 0)\n"
	"  --answer-file F   append each `answer` step's text to F as a line (what `keynode watch\n"
	"                    --answer-file F` reads)\n"
	"  --quiet           no per-step lines\n"
	"  --workflows DIR   reference workflows DIR/<task-id>.yaml (keynode record) replace the\n"
	"                    tasks' inline steps (default: workflows/ beside the task file, when\n"
	"                    present); a Mind2Web-Live file stays as published\n"
	"  --viewport WxH    browser viewport (default: the workflow's recorded one, else 1280x800)\n"
	"  --config FILE     keynode.yaml: its blocked: section says when a site refused service,\n"
	"                    its replay: section how long each step waits (elements, consequences)\n"
	"                    (default: the built-in signatures)\n"
	"  --no-repairs      (--validate) no repair proposals. By default a task whose step passed only\n"
	"                    by a fallback or healing, or whose URL / element key node was not reached\n"
	"                    but seen renamed or moved, gets proposals (the selector and hints, the key\n"
	"                    node, in the file's syntax), each replayed once more with every proposal\n"
	"                    applied in memory and printed \"verified by replay\" only when that step then\n"
	"                    passes without drift; never written to your files (report: \"repairs\")\n"
	"\n"
	"\n"
	KN_CLI_TRACE_HELP
	"                     replay: with --validate only, one trace per task: DIR/<task>/ (default\n"
	"                     <--out>/<task>.trace/, else trace-<run id>/); failures: kept unless passed\n"
	"\n"
	"exit: 0 every task replayed (passed), 1 a step failed (a task broken), 2 usage error, browser\n"
	"unreachable, a result that could not be written, or (--validate) a task's verdict was error\n";

static int write_result(const char *dir, const kn_task *task, const kn_replay_result *res)
{
	json_t *steps = json_array();
	for (size_t i = 0; i < res->n_steps; i++)
		json_array_append_new(steps, json_pack("{s:I, s:s, s:s, s:s?, s:s?}", "step", (json_int_t)(i + 1),
		                                       "verb", kn_step_verb_name(task->steps[i].verb), "outcome",
		                                       kn_step_outcome_name(res->steps[i].outcome), "locator",
		                                       res->steps[i].locator, "proposed_selector",
		                                       res->steps[i].proposed));
	json_t *j = json_pack("{s:s, s:s, s:o, s:i, s:s, s:s?}", "task", task->id, "status",
	                      res->failed_step ? "failed" : "passed", "steps", steps, "failed_step",
	                      res->failed_step, "detail", res->detail, "answer", res->answer);
	char path[4096];
	snprintf(path, sizeof path, "%s/%s.json", dir, task->id);
	int bad = !j || strchr(task->id, '/') || json_dump_file(j, path, JSON_INDENT(1)) != 0;
	if (bad)
		fprintf(stderr, "keynode replay: cannot write %s: %s\n", path, strerror(errno));
	json_decref(j);
	return bad;
}

/* --validate for one task: the verdict line, drift warnings, DIR/<task>.json and .png.
 * Returns the task's exit code: OK passed, FAIL broken, USAGE error. */
static int validate_one(kn_cdp_loop *loop, const char *ws, const kn_task *t, const kn_replay_opts *ro,
                        const char *dir, const kn_cli_trace *tro, int repairs, kn_format fmt)
{
	kn_validate_opts vo = {.replay = *ro, .fresh_context = 1, .repairs = repairs, .task_format = fmt};
	kn_replay_report *rep = NULL;
	kn_err err = {0};
	char tdir[4096], run_id[64];
	snprintf(run_id, sizeof run_id, "v-%ld-%.30s", (long)time(NULL), t->id);
	if (tro->dir)
		snprintf(tdir, sizeof tdir, "%s/%s", tro->dir, t->id);
	else if (dir)
		snprintf(tdir, sizeof tdir, "%s/%s.trace", dir, t->id);
	else
		snprintf(tdir, sizeof tdir, "trace-%s", run_id);
	vo.run_id = run_id;
	if (strchr(t->id, '/') && tro->mode != KN_TRACE_OFF)
		fprintf(stderr, "keynode replay: task id '%s' cannot be a folder name: no trace\n", t->id);
	else if (kn_cli_trace_open(&vo.trace, tro, "replay", tdir, t, run_id, "replay") != KN_EXIT_OK)
		return KN_EXIT_USAGE;
	int vr = kn_replay_validate(loop, ws, t, &vo, &rep, &err);
	int kept = vo.trace && access(tdir, F_OK) == 0;
	if (kept && ro->progress)
		fprintf(stderr, "keynode replay: trace in %s (keynode trace show %s)\n", tdir, tdir);
	kn_trace_free(vo.trace);
	if (vr != 0) {
		printf("%-24s error: %s\n", t->id, err.msg);
		return KN_EXIT_USAGE;
	}
	kn_replay_status st = kn_replay_report_status(rep);
	int unwritable = 0;
	const kn_replay_failure *fail = kn_replay_report_failure(rep);
	printf("%-24s %s", t->id, kn_replay_status_name(st));
	if (fail) { /* broken, error, or what refused service (services/replay/blocked.h) */
		if (fail->step)
			printf(" at step %d", fail->step);
		else if (fail->key_node)
			printf(" at key node %s", fail->key_node);
		printf(": %s", fail->reason ? fail->reason : "?");
		if (fail->detail)
			printf(" (%s)", fail->detail);
	}
	putchar('\n');
	int ds;
	const char *dsel = NULL, *dprop = NULL;
	size_t nd = kn_replay_report_drift(rep, 0, &ds, &dsel, &dprop);
	for (size_t i = 0; i < nd; i++) {
		kn_replay_report_drift(rep, i, &ds, &dsel, &dprop);
		if (dprop)
			printf("  drift: step %d selector %s no longer matches; use %s\n", ds, dsel ? dsel : "?", dprop);
		else
			printf("  drift: step %d selector %s still matches, but not what was recorded (see the report)\n",
			       ds, dsel ? dsel : "?");
	}
	kn_replay_report_print_repairs(rep, stdout);
	if (dir && strchr(t->id, '/') == NULL) {
		char path[4096];
		size_t png_len = 0;
		const unsigned char *png = kn_replay_report_screenshot(rep, &png_len);
		if (png && png_len) {
			snprintf(path, sizeof path, "%s/%s.png", dir, t->id);
			FILE *f = fopen(path, "wb");
			if (!f || fwrite(png, 1, png_len, f) != png_len) {
				fprintf(stderr, "keynode replay: cannot write %s: %s\n", path, strerror(errno));
				unwritable = 1;
			} else {
				char name[1024];
				snprintf(name, sizeof name, "%s.png", t->id);
				kn_replay_report_set_screenshot_name(rep, name);
			}
			if (f && fclose(f) != 0)
				unwritable = 1;
		}
		snprintf(path, sizeof path, "%s/%s.json", dir, t->id);
		FILE *f = fopen(path, "w");
		if (!f || fputs(kn_replay_report_json(rep), f) < 0 || fputc('\n', f) == EOF ||
		    fclose(f) != 0) {
			fprintf(stderr, "keynode replay: cannot write %s: %s\n", path, strerror(errno));
			unwritable = 1;
		}
	} else if (dir) {
		fprintf(stderr, "keynode replay: task id '%s' cannot be a file name\n", t->id);
		unwritable = 1;
	}
	kn_replay_report_free(rep);
	if (unwritable) /* a lost report must not read like a verdict */
		return KN_EXIT_USAGE;
	return st == KN_REPLAY_PASSED ? KN_EXIT_OK
	       : st == KN_REPLAY_BROKEN || st == KN_REPLAY_BLOCKED ? KN_EXIT_FAIL : KN_EXIT_USAGE;
}

int kn_cmd_replay(int argc, char **argv)
{
	static const struct option opts[] = {
		KN_CLI_TARGET_LONGOPTS,
		{"step-delay", required_argument, NULL, 'd'}, {"quiet", no_argument, NULL, 'q'},
		{"answer-file", required_argument, NULL, 'a'}, {"validate", no_argument, NULL, 'v'},
		{"workflows", required_argument, NULL, 'w'}, {"viewport", required_argument, NULL, 'V'},
		{"config", required_argument, NULL, 'c'}, {"no-repairs", no_argument, NULL, 'R'},
		{"help", no_argument, NULL, 'h'},          KN_CLI_TRACE_LONGOPTS, {NULL, 0, NULL, 0}};
	kn_cli_target tg = {0};
	const char *config_path = NULL;
	kn_config *cfg = NULL;
	kn_blocked_rules blocked;
	kn_replay_opts ro = {.progress = stderr};
	kn_cli_trace tro = {0};
	const char *answers = NULL, *workflows = NULL;
	int c, validate = 0, repairs = 1;
	while ((c = getopt_long(argc, argv, "hq", opts, NULL)) != -1) {
		switch (c) {
		case 'q': ro.progress = NULL; break;
		case 'a': answers = optarg; break;
		case 'v': validate = 1; break;
		case 'w': workflows = optarg; break;
		case 'V':
			if (kn_cli_parse_viewport(&ro.viewport_w, &ro.viewport_h, optarg))
				return kn_cli_usage_error("replay", "--viewport must be WIDTHxHEIGHT, e.g. 1280x800");
			break;
		case 'd':
			if (kn_cli_parse_int(&ro.step_delay_ms, optarg) || ro.step_delay_ms < 0)
				return kn_cli_usage_error("replay", "--step-delay must be milliseconds");
			break;
		case 'c': config_path = optarg; break;
		case 'R': repairs = 0; break;
		case 'h': fputs(help, stdout); return KN_EXIT_OK;
		default: {
			int tr = kn_cli_target_option(&tg, c, optarg);
			if (tr == 0)
				tr = kn_cli_trace_option(&tro, "replay", c, optarg);
			if (tr > 0)
				break;
			return tr < 0 ? KN_EXIT_USAGE : kn_cli_usage_error("replay", "bad option");
		}
		}
	}
	const char *browser = tg.browser, *tasks = tg.tasks, *task_id = tg.task_id, *out = tg.out;
	if (!browser || !tasks)
		return kn_cli_usage_error("replay", "--browser and --tasks are required");
	if (tro.mode != KN_TRACE_OFF && !validate)
		return kn_cli_usage_error("replay", "--trace needs --validate (a plain replay is an agent: the "
		                                    "`keynode watch --trace` scoring it traces it)");
	if (!repairs && !validate)
		return kn_cli_usage_error("replay", "--no-repairs needs --validate (only a validation proposes repairs)");
	if (optind < argc)
		return kn_cli_usage_error("replay", "unexpected argument '%s'", argv[optind]);

	kn_err err = {0};
	if (config_path && kn_config_load(&cfg, config_path, &err) != 0) {
		fprintf(stderr, "keynode replay: %s\n", err.msg);
		return KN_EXIT_USAGE;
	}
	kn_cli_blocked_rules(&blocked, cfg); /* keynode.yaml blocked: (blocked_opts.c) */
	ro.blocked = &blocked;
	kn_redact redact; /* keynode.yaml guard: and redact: */
	kn_config_redact_rules(&redact, cfg);
	ro.guard = cfg ? cfg->guard : NULL;
	ro.canary_timeout_ms = cfg ? cfg->canary_timeout_ms : 0;
	ro.redact = &redact;
	kn_cli_replay_waits(&ro, cfg); /* keynode.yaml replay: (replay_waits.c) */
	kn_taskset *set = NULL;
	int r = kn_taskset_load_file(&set, tasks, NULL, &err);
	if (r) {
		fprintf(stderr, "keynode replay: %s\n", err.msg);
		kn_config_free(cfg);
		return r == KN_ENOTFOUND || r == KN_EIO ? KN_EXIT_USAGE : KN_EXIT_FAIL;
	}
	int rc = KN_EXIT_USAGE;
	if (kn_cli_attach_workflows(set, tasks, workflows, "replay") != KN_EXIT_OK) {
		kn_taskset_free(set);
		kn_config_free(cfg);
		return KN_EXIT_USAGE;
	}
	char *ws = NULL;
	kn_cdp_loop *loop = NULL;
	kn_cdp *cdp = NULL;
	kn_replay_link link = {0};
	kn_cdp_link *k = &link.link;
	if (task_id && !kn_taskset_find(set, task_id)) {
		fprintf(stderr, "keynode replay: task '%s' is not in %s\n", task_id, tasks);
		goto done;
	}
	if ((out && kn_mkdirs(out, 0755, &err)) || (answers && kn_mkdirs_for(answers, 0755, &err))) {
		fprintf(stderr, "keynode replay: %s\n", err.msg);
		goto done;
	}
	if (answers && !(ro.answers = fopen(answers, "a"))) {
		fprintf(stderr, "keynode replay: cannot open %s\n", answers);
		goto done;
	}
	if (kn_cdp_discover(&ws, browser, 5000, &err) != 0) {
		fprintf(stderr, "keynode replay: browser unreachable: %s\n", err.msg);
		goto done;
	}
	kn_cdp_handlers h = kn_replay_link_handlers(&link);
	if (kn_cdp_loop_new(&loop, &err) || kn_cdp_connect(&cdp, loop, ws, NULL, &h, &err)) {
		fprintf(stderr, "keynode replay: %s\n", err.msg);
		goto done;
	}
	if (!kn_replay_link_wait_open(&link, loop, 10000)) {
		fprintf(stderr, "keynode replay: browser unreachable: %s\n", k->closed ? k->reason : "timed out");
		goto done;
	}
	int failed = 0, ran = 0, errored = 0;
	for (size_t i = 0; i < set->n_tasks && !k->closed; i++) {
		const kn_task *t = &set->tasks[i];
		if ((task_id && strcmp(t->id, task_id) != 0) || (!task_id && t->n_steps == 0))
			continue;
		ran++;
		if (validate) {
			int v = validate_one(loop, ws, t, &ro, out, &tro, repairs, set->format);
			failed |= v == KN_EXIT_FAIL;
			errored |= v == KN_EXIT_USAGE;
			continue;
		}
		kn_replay_result res;
		int rr = kn_replay_task(loop, cdp, &link, t, &ro, &res, &err);
		printf("%-24s %s%s%s\n", t->id, rr == 0 ? "passed" : "FAILED", rr ? ": " : "",
		       rr ? err.msg : "");
		failed |= rr != 0;
		if (out && write_result(out, t, &res))
			errored = 1;
		kn_replay_result_clear(&res);
	}
	if (k->closed) {
		fprintf(stderr, "keynode replay: %s\n", k->reason);
		goto done;
	}
	if (!ran)
		fprintf(stderr, "keynode replay: no task with steps to replay\n");
	rc = errored ? KN_EXIT_USAGE : failed || !ran ? KN_EXIT_FAIL : KN_EXIT_OK;
done:
	if (cdp && !k->closed)
		kn_cdp_close(cdp);
	kn_cdp_loop_free(loop);
	if (ro.answers)
		fclose(ro.answers);
	free(ws);
	kn_taskset_free(set);
	kn_config_free(cfg);
	return rc;
}
