/* cmd_record.c — `keynode record`: attach to a browser in which a person or any agent performs a
 * task once, and write the task's reference workflow (keynode/workflow.h) beside its task file.
 * The recording itself (steps, fingerprints, postconditions) is record_session.h's, shared with the
 * worker's recordings from the dashboard. With --propose, candidate key nodes in task-file syntax
 * are printed, ranked. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "keynode/clock.h"
#include "keynode/fs.h"
#include "keynode/until.h"
#include "keynode/workflow.h"
#include "record_session.h"

static const char help[] =
	"usage: keynode record --browser ENDPOINT --tasks TASKFILE --task ID [--out DIR] [--propose]\n"
	"                      [--until finished|idle:S|steps:N] [--viewport WxH] [--quiet]\n"
	"\n"
	"Attach to a browser (a headful Chromium started with --remote-debugging-port, or one an\n"
	"agent drives) in which the task is performed once, and write its reference workflow\n"
	"DIR/<task-id>.yaml (schemas/workflow.schema.json): every step (goto, click, type, select,\n"
	"press, scroll, back, forward, answer) with the locator fingerprint taken when it was recorded\n"
	"(selector, id, name, test id, aria-label, role, href, visible text, tag, classes, DOM path)\n"
	"and its observed postcondition (the URL after the step, whether it navigated, a field's\n"
	"value). Steps are printed as they are recorded. Recording ends on Ctrl-C, at --until, or when\n"
	"every key node of the task was reached. Under the task's guard rules a request the page sent\n"
	"that a rule held is written as its step's `after: {held: …}` (checked by replay validation)\n"
	"and the recording ends there (end_on_guard); a password, card number or CVC typed is written\n"
	"`secret: NAME`, never its value: a replay types $KN_SECRET_NAME.\n"
	"\n"
	"options:\n"
	"  --out DIR         where to write (default: workflows/ beside the task file); created when\n"
	"                    missing\n"
	"  --propose         print candidate key nodes in task-file syntax, ranked (query parameters\n"
	"                    set, paths reached, values typed, elements acted on, the answer)\n"
	"  --until U         also end at: finished (default, always on), idle:S (S seconds without an\n"
	"                    action), steps:N\n"
	"  --viewport WxH    the viewport every recorded tab is given (emulated while recording) and\n"
	"                    written into the workflow, which replays use (default 1280x800); `window`:\n"
	"                    leave the tabs as they are and write the page's own window size\n"
	"  --answer TEXT     the task's answer, recorded as the last step\n"
	"  --quiet           no step lines\n"
	"\n"
	"exit: 0 workflow written, 1 nothing was recorded, 2 usage error, browser unreachable or the\n"
	"workflow could not be written\n";

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
}

static int write_workflow(const kn_task *wf, const char *dir)
{
	kn_err derr = {0};
	if (kn_mkdirs(dir, 0755, &derr) != 0) { /* --out is created when missing */
		fprintf(stderr, "keynode record: %s\n", derr.msg);
		return KN_EXIT_USAGE;
	}
	char path[4096], when[KN_TIME_MAX];
	if (strchr(wf->id, '/') || wf->id[0] == '.' ||
	    (size_t)snprintf(path, sizeof path, "%s/%s.yaml", dir, wf->id) >= sizeof path) {
		fprintf(stderr, "keynode record: task id '%s' cannot be a file name\n", wf->id);
		return KN_EXIT_USAGE;
	}
	kn_time_rfc3339(when, time(NULL));
	FILE *f = fopen(path, "w");
	int bad = !f || kn_workflow_write(f, wf, when) != 0;
	if (f && fclose(f) != 0)
		bad = 1;
	if (bad) {
		fprintf(stderr, "keynode record: cannot write %s\n", path);
		return KN_EXIT_USAGE;
	}
	kn_taskset *check = NULL;
	kn_err err = {0};
	if (kn_workflow_load_file(&check, path, &err) != 0) { /* what was written must load */
		fprintf(stderr, "keynode record: %s\n", err.msg);
		return KN_EXIT_USAGE;
	}
	kn_taskset_free(check);
	printf("%s: %zu steps\n", path, wf->n_steps);
	return KN_EXIT_OK;
}


int kn_cmd_record(int argc, char **argv)
{
	static const struct option opts[] = {
		KN_CLI_TARGET_LONGOPTS,
		{"propose", no_argument, NULL, 'p'},       {"until", required_argument, NULL, 'u'},
		{"viewport", required_argument, NULL, 'V'}, {"quiet", no_argument, NULL, 'q'},
		{"answer", required_argument, NULL, 'a'},  {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0}};
	kn_cli_target tg = {0};
	const char *answer = NULL;
	int c, want_propose = 0, vw = 0, vh = 0;
	double idle_s = 0;
	kn_record_opts ro = {0};
	kn_until until = {0};
	FILE *progress = stdout;
	while ((c = getopt_long(argc, argv, "hq", opts, NULL)) != -1) {
		switch (c) {
		case 'p': want_propose = 1; break;
		case 'a': answer = optarg; break;
		case 'q': progress = NULL; break;
		case 'u':
			if (kn_until_parse(&until, optarg) != 0)
				return kn_cli_usage_error("record", "--until must be finished, idle:S or steps:N");
			break;
		case 'V':
			if (strcmp(optarg, "window") == 0)
				vw = vh = -1;
			else if (kn_cli_parse_viewport(&vw, &vh, optarg))
				return kn_cli_usage_error("record", "--viewport must be WIDTHxHEIGHT, e.g. 1280x800, or window");
			break;
		case 'h': fputs(help, stdout); return KN_EXIT_OK;
		default:
			if (kn_cli_target_option(&tg, c, optarg))
				break;
			return kn_cli_usage_error("record", "bad option");
		}
	}
	const char *browser = tg.browser, *tasks = tg.tasks, *task_id = tg.task_id, *out = tg.out;
	if (!browser || !tasks || !task_id)
		return kn_cli_usage_error("record", "--browser, --tasks and --task are required");
	if (vw == 0) /* recorded workflows carry one documented viewport, whatever the browser's window */
		vw = KN_VIEWPORT_DEFAULT_W, vh = KN_VIEWPORT_DEFAULT_H;
	ro.viewport_w = vw, ro.viewport_h = vh;
	idle_s = until.idle_s; /* counted here from the first event, not from attaching */
	ro.until_steps = until.steps; /* "finished" is always on */
	ro.progress = progress;
	ro.ready_note = " (Ctrl-C to end)";
	if (optind < argc)
		return kn_cli_usage_error("record", "unexpected argument '%s'", argv[optind]);
	kn_err err = {0};
	kn_taskset *set = NULL;
	int r = kn_taskset_load_file(&set, tasks, NULL, &err);
	if (r) {
		fprintf(stderr, "keynode record: %s\n", err.msg);
		return r == KN_ENOTFOUND || r == KN_EIO ? KN_EXIT_USAGE : KN_EXIT_FAIL;
	}
	const kn_task *task = kn_taskset_find(set, task_id);
	char dir[4096];
	if (out)
		snprintf(dir, sizeof dir, "%s", out);
	else
		kn_workflows_default_dir(dir, sizeof dir, tasks);
	int rc = KN_EXIT_USAGE;
	char *ws = NULL;
	kn_cdp_loop *loop = NULL;
	kn_record *rec = NULL;
	if (!task) {
		fprintf(stderr, "keynode record: task '%s' is not in %s\n", task_id, tasks);
		goto done;
	}
	if (kn_cdp_discover(&ws, browser, 5000, &err) != 0 || kn_cdp_loop_new(&loop, &err) != 0) {
		fprintf(stderr, "keynode record: browser unreachable: %s\n", err.msg);
		goto done;
	}
	if (kn_record_start(&rec, loop, ws, task, &ro, &err) != 0) {
		fprintf(stderr, "keynode record: %s\n", err.msg);
		goto done;
	}
	kn_monitor *m = kn_record_monitor(rec);
	signal(SIGINT, on_sigint);
	signal(SIGTERM, on_sigint);
	double done_at = 0;
	/* "finished" is checked here, not by the monitor: the step that reached the last key node
	 * still has its navigation (its postcondition) to come */
	while (!kn_monitor_ended(m) && !interrupted) {
		kn_cdp_loop_run_for(loop, 100);
		if (!done_at && kn_eval_completed(kn_monitor_eval(m))) {
			done_at = kn_time_mono_ms();
			if (progress)
				fprintf(progress, "every key node reached\n");
		}
		if (done_at && kn_time_mono_ms() - done_at > 1500) /* let the last step settle */
			break;
		double last = kn_record_last_event(rec);
		if (idle_s > 0 && last > 0 && kn_time_mono_ms() - last > idle_s * 1000)
			break;
	}
	const kn_task *wf = kn_record_finish(rec, loop, answer);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (wf->n_steps == 0) {
		fprintf(stderr, "keynode record: nothing was recorded\n");
		rc = KN_EXIT_FAIL;
		goto done;
	}
	int pw, ph;
	if (vw > 0 && kn_record_page_viewport(rec, &pw, &ph) && (pw != vw || ph != vh))
		fprintf(stderr, "keynode record: warning: the page's viewport was %dx%d, not the %dx%d written\n",
		        pw, ph, vw, vh);
	if (want_propose)
		kn_record_propose(rec, stdout);
	rc = write_workflow(wf, dir);
done:
	kn_record_free(rec);
	kn_cdp_loop_free(loop);
	free(ws);
	kn_taskset_free(set);
	return rc;
}
