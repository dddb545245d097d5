/* cmd_replay.c — `keynode replay`: drive a browser through tasks' reference steps, the way an
 * agent would (trusted input on its own connection), and report each step's outcome. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "replay.h"

static const char help[] =
	"usage: keynode replay --browser WS_URL|http://HOST:PORT|DEVTOOLSACTIVEPORT_FILE --tasks TASKFILE\n"
	"                      [--task ID] [--out DIR] [--step-delay MS] [--answer-file FILE] [--quiet]\n"
	"\n"
	"Drive the browser through each task's reference `steps` (goto, click, type, select, press,\n"
	"scroll, wait, back, forward, answer) in a new tab, with trusted Input.* events, waiting for\n"
	"each element (5 s) and for the page to load after each step (10 s).\n"
	"\n"
	"options:\n"
	"  --task ID         only this task (default: every task that has steps)\n"
	"  --out DIR         write DIR/<task>.json with each step's outcome\n"
	"  --step-delay MS   pause between steps (default 0)\n"
	"  --answer-file F   append each `answer` step's text to F as a line (what `keynode watch\n"
	"                    --answer-file F` reads)\n"
	"  --quiet           no per-step lines\n"
	"\n"
	"exit: 0 every task replayed, 1 a step failed, 2 usage error or browser unreachable\n";

struct conn {
	int open, closed;
	char reason[128];
};

static void on_open(void *ud, kn_cdp *c)
{
	(void)c;
	((struct conn *)ud)->open = 1;
}

static void on_close(void *ud, kn_cdp *c, const char *reason)
{
	(void)c;
	struct conn *k = ud;
	k->closed = 1;
	snprintf(k->reason, sizeof k->reason, "%s", reason);
}

static void write_result(const char *dir, const kn_task *task, const kn_replay_result *res)
{
	json_t *steps = json_array();
	for (size_t i = 0; i < res->n_steps; i++)
		json_array_append_new(steps, json_pack("{s:I, s:s, s:s}", "step", (json_int_t)(i + 1), "verb",
		                                       kn_step_verb_name(task->steps[i].verb), "outcome",
		                                       kn_step_outcome_name(res->outcomes[i])));
	json_t *j = json_pack("{s:s, s:s, s:o, s:i, s:s, s:s?}", "task", task->id, "status",
	                      res->failed_step ? "failed" : "passed", "steps", steps, "failed_step",
	                      res->failed_step, "detail", res->detail, "answer", res->answer);
	char path[4096];
	snprintf(path, sizeof path, "%s/%s.json", dir, task->id);
	if (!j || strchr(task->id, '/') || json_dump_file(j, path, JSON_INDENT(1)) != 0)
		fprintf(stderr, "keynode replay: cannot write %s\n", path);
	json_decref(j);
}

int kn_cmd_replay(int argc, char **argv)
{
	static const struct option opts[] = {
		{"browser", required_argument, NULL, 'b'}, {"tasks", required_argument, NULL, 't'},
		{"task", required_argument, NULL, 'i'},    {"out", required_argument, NULL, 'o'},
		{"step-delay", required_argument, NULL, 'd'}, {"quiet", no_argument, NULL, 'q'},
		{"answer-file", required_argument, NULL, 'a'},
		{"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0}};
	const char *browser = NULL, *tasks = NULL, *task_id = NULL, *out = NULL;
	kn_replay_opts ro = {.progress = stderr};
	const char *answers = NULL;
	int c;
	while ((c = getopt_long(argc, argv, "hq", opts, NULL)) != -1) {
		switch (c) {
		case 'b': browser = optarg; break;
		case 't': tasks = optarg; break;
		case 'i': task_id = optarg; break;
		case 'o': out = optarg; break;
		case 'q': ro.progress = NULL; break;
		case 'a': answers = optarg; break;
		case 'd':
			if (kn_cli_parse_int(&ro.step_delay_ms, optarg) || ro.step_delay_ms < 0)
				return kn_cli_usage_error("replay", "--step-delay must be milliseconds");
			break;
		case 'h': fputs(help, stdout); return KN_EXIT_OK;
		default: return kn_cli_usage_error("replay", "bad option");
		}
	}
	if (!browser || !tasks)
		return kn_cli_usage_error("replay", "--browser and --tasks are required");
	if (optind < argc)
		return kn_cli_usage_error("replay", "unexpected argument '%s'", argv[optind]);

	kn_err err = {0};
	kn_taskset *set = NULL;
	int r = kn_taskset_load_file(&set, tasks, NULL, &err);
	if (r) {
		fprintf(stderr, "keynode replay: %s\n", err.msg);
		return r == KN_ENOTFOUND || r == KN_EIO ? KN_EXIT_USAGE : KN_EXIT_FAIL;
	}
	int rc = KN_EXIT_USAGE;
	char *ws = NULL;
	kn_cdp_loop *loop = NULL;
	kn_cdp *cdp = NULL;
	struct conn k = {0};
	if (task_id && !kn_taskset_find(set, task_id)) {
		fprintf(stderr, "keynode replay: task '%s' is not in %s\n", task_id, tasks);
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
	kn_cdp_handlers h = {.on_open = on_open, .on_close = on_close, .ud = &k};
	if (kn_cdp_loop_new(&loop, &err) || kn_cdp_connect(&cdp, loop, ws, NULL, &h, &err)) {
		fprintf(stderr, "keynode replay: %s\n", err.msg);
		goto done;
	}
	for (int waited = 0; !k.open && !k.closed && waited < 10000; waited += 50)
		kn_cdp_loop_run_for(loop, 50);
	if (!k.open) {
		fprintf(stderr, "keynode replay: browser unreachable: %s\n", k.closed ? k.reason : "timed out");
		goto done;
	}
	int failed = 0, ran = 0;
	for (size_t i = 0; i < set->n_tasks && !k.closed; i++) {
		const kn_task *t = &set->tasks[i];
		if ((task_id && strcmp(t->id, task_id) != 0) || (!task_id && t->n_steps == 0))
			continue;
		kn_replay_result res;
		ran++;
		int rr = kn_replay_task(loop, cdp, t, &ro, &res, &err);
		printf("%-24s %s%s%s\n", t->id, rr == 0 ? "passed" : "FAILED", rr ? ": " : "",
		       rr ? err.msg : "");
		failed |= rr != 0;
		if (out)
			write_result(out, t, &res);
		kn_replay_result_clear(&res);
	}
	if (k.closed) {
		fprintf(stderr, "keynode replay: %s\n", k.reason);
		goto done;
	}
	if (!ran)
		fprintf(stderr, "keynode replay: no task with steps to replay\n");
	rc = failed || !ran ? KN_EXIT_FAIL : KN_EXIT_OK;
done:
	if (cdp && !k.closed)
		kn_cdp_close(cdp);
	kn_cdp_loop_free(loop);
	if (ro.answers)
		fclose(ro.answers);
	free(ws);
	kn_taskset_free(set);
	return rc;
}
