/* cmd_score.c — `keynode score`: score recorded runs (JSONL trajectories) against a task set and
 * print per-run results and the dataset metrics, as a table or as JSON/CSV for machines. */
#include <dirent.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "cli.h"
#include "keynode/fs.h"
#include "keynode/grow.h"
#include "keynode/judge_fingerprint.h"

static const char help[] =
	"usage: keynode score --tasks TASKFILE --runs FILE|DIR [--json|--csv] [--mode default|webcanvas]\n"
	"                     [--threshold X] [--step-limit N] [--out DIR]\n"
	"                     [--semantic offline|llm --llm-url URL --llm-model NAME …]\n"
	"\n"
	"Score recorded runs against a task set. A run is a JSONL trajectory whose header names its task\n"
	"(docs/formats.md §2); DIR means every *.jsonl file in it, in name order.\n"
	"\n"
	"options:\n"
	"  --tasks FILE       task file (native YAML or Mind2Web-Live JSON)\n"
	"  --runs FILE|DIR    trajectories to score\n"
	"  --json             {\"results\": [run results], \"summary\": {...}} (schemas/score-output.schema.json)\n"
	"  --csv              one CSV row per run\n"
	"  --mode M           default (evaluate after every event, semantic threshold) or webcanvas\n"
	"                     (upstream: evaluate each step before its action, fractional semantic scores)\n"
	"  --threshold X      semantic threshold in default mode (default 0.7)\n"
	"  --step-limit N     step budget; 0 = upstream max(10, 1.5 x reference length) capped at 25\n"
	"                     (the default; webcanvas mode: upstream's loop, +5 after an error URL,\n"
	"                     at most 26), -1 = none\n"
	"  --out DIR          also write each run result to DIR/<run>.json\n"
	"\n"
	KN_CLI_SEMANTIC_HELP
	"\n"
	"summary keys: key_node_completion_rate, average_step_score_rate, task_success_rate,\n"
	"task_near_success_rate, efficiency_score, tasks (over the runs scored), judged_key_nodes\n"
	"(key nodes whose score came from a semantic judge's verdict: each result lists them as\n"
	"\"judged\"), judged_successes and judged_success_share (successes resting on at least one),\n"
	"deterministic_floor (the success rate counting only successes without a judged key node;\n"
	"docs/scoring.md \"Judged and deterministic\"), unjudged (runs left\n"
	"out of the metrics because a judgement they depend on failed: the judge's HTTP error, timeout,\n"
	"unparsable answer or a score outside [0, 1]; status unjudged, fault judge, docs/scoring.md\n"
	"\"Unjudged\"; score them again once the judge answers), and\n"
	"functional_success_rate over the functional_tasks runs whose task has functional checks\n"
	"(WebArena-style answer/url/page checks; 0 when none); with purchase tasks, task_score\n"
	"(100 x mean reward) and reward_success_rate (reward 1) over reward_tasks (offline, nothing\n"
	"bought can be read: a purchase scores 0 here; `watch` reads it live). With --semantic llm the\n"
	"table ends with the LLM usage (judgements, cache hits, requests, tokens, cost) and --json has\n"
	"it as \"semantic\": {...}. Every result and --json's top level carry \"judge\", the judge\n"
	"fingerprint (backend, model, prompt_sha256, threshold, mode, keynode_version): results with\n"
	"different fingerprints were judged differently (keynode compare warns).\n"
	"exit: 0 every run scored, 1 a run could not be scored (bad trajectory, unknown task, a semantic\n"
	"judgement failed: some run may be unjudged), 2 usage\n";

enum { OUT_TABLE, OUT_JSON, OUT_CSV };

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Collect run files: the file itself, or DIR's *.jsonl sorted by name. */
static int list_runs(const char *path, char ***out, size_t *n)
{
	struct stat st;
	*out = NULL;
	*n = 0;
	if (stat(path, &st) != 0)
		return -1;
	size_t cap = 16;
	char **v = malloc(cap * sizeof *v);
	if (!v)
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		v[0] = strdup(path);
		*out = v;
		*n = v[0] ? 1 : 0;
		return v[0] ? 0 : -1;
	}
	DIR *d = opendir(path);
	if (!d) {
		free(v);
		return -1;
	}
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		size_t l = strlen(de->d_name);
		if (l < 7 || strcmp(de->d_name + l - 6, ".jsonl") != 0)
			continue;
		if (kn_grow(&v, *n, &cap, sizeof *v, 16))
			break;
		size_t pl = strlen(path) + l + 2;
		if (!(v[*n] = malloc(pl)))
			break;
		snprintf(v[*n], pl, "%s/%s", path, de->d_name);
		(*n)++;
	}
	closedir(d);
	qsort(v, *n, sizeof *v, cmp_str);
	*out = v;
	return 0;
}

struct row {
	kn_eval *ev;
	char *run;
};

/* One result per line; table columns as wide as their longest cell. */
static void print_rows(int format, const struct row *rows, size_t n)
{
	int wt = 4, wr = 3;
	for (size_t i = 0; i < n; i++) {
		int lt = (int)strlen(kn_eval_task(rows[i].ev)->id), lr = (int)strlen(rows[i].run);
		wt = lt > wt ? lt : wt;
		wr = lr > wr ? lr : wr;
	}
	if (format == OUT_CSV)
		puts("task,run,status,steps,reached,total,score,completion,efficiency,fault");
	else if (format == OUT_TABLE)
		printf("%-*s  %-*s  %-11s %5s %7s %5s %6s %10s\n", wt, "TASK", wr, "RUN", "STATUS", "STEPS",
		       "REACHED", "TOTAL", "SCORE", "EFFICIENCY");
	for (size_t i = 0; i < n; i++) {
		const kn_eval *ev = rows[i].ev;
		const char *id = kn_eval_task(ev)->id, *status = kn_status_name(kn_eval_status(ev));
		if (format == OUT_JSON) {
			if (i)
				fputs(",\n", stdout);
			kn_eval_write_result(ev, rows[i].run, stdout);
		} else if (format == OUT_CSV) {
			const char *fault = kn_eval_fault(ev);
			printf("%s,%s,%s,%d,%g,%zu,%.4f,%s,%.4f,%s\n", id, rows[i].run, status, kn_eval_steps(ev),
			       kn_eval_reached(ev), kn_eval_total(ev), kn_eval_score(ev),
			       kn_eval_completed(ev) ? "true" : "false", kn_eval_efficiency(ev), fault ? fault : "");
		} else {
			printf("%-*s  %-*s  %-11s %5d %7.2f %5zu %6.3f %10.3f\n", wt, id, wr, rows[i].run,
			       status, kn_eval_steps(ev), kn_eval_reached(ev), kn_eval_total(ev),
			       kn_eval_score(ev), kn_eval_efficiency(ev));
		}
	}
}

/* Score one trajectory file into *row. Returns 0, or 1 when it could not be scored (said why).
 * An event the semantic judge failed on adds to *judge_failures (the run is still scored). */
static int unwritable; /* a run result could not be written: exit 2 */

static int score_one(const char *file, const kn_taskset *set, const kn_eval_opts *eo,
                     const char *outdir, struct row *row, size_t *judge_failures)
{
	kn_traj_header hdr;
	kn_event *events;
	size_t n;
	kn_err err = {0};
	row->ev = NULL;
	row->run = NULL;
	if (kn_traj_read_file(file, &hdr, &events, &n, &err) != 0) {
		fprintf(stderr, "keynode score: %s\n", err.msg);
		return 1;
	}
	int rc = 1;
	const kn_task *task = kn_taskset_find(set, hdr.task);
	if (!task) {
		fprintf(stderr, "keynode score: %s: task '%s' is not in %s\n", file, hdr.task, set->source);
		goto out;
	}
	size_t failures = 0; /* the same scoring as POST /api/rescore's (kn_eval_run) */
	if (kn_eval_run(&row->ev, task, eo, events, n, &failures, &err) != 0) {
		fprintf(stderr, "keynode score: out of memory\n");
		goto out;
	}
	if (failures)
		fprintf(stderr, "keynode score: %s: %zu event%s not judged, the last: %s\n", file, failures,
		        failures == 1 ? "" : "s", err.msg);
	*judge_failures += failures;
	if (outdir) {
		char path[4096];
		snprintf(path, sizeof path, "%s/%s.json", outdir, hdr.run);
		FILE *f = strchr(hdr.run, '/') ? NULL : fopen(path, "w");
		int bad = !f || kn_eval_write_result(row->ev, hdr.run, f) != 0;
		if (f && fclose(f) != 0)
			bad = 1;
		if (bad) {
			fprintf(stderr, "keynode score: cannot write %s\n", path);
			unwritable = 1;
		}
	}
	row->run = hdr.run;
	hdr.run = NULL;
	rc = 0;
out:
	kn_traj_events_free(events, n);
	kn_traj_header_clear(&hdr);
	return rc;
}

/* One number of the summary: its name, its value, its decimals in the table, and the count it
 * stands on when it has one ("functional_tasks": N in JSON, "(N runs with functional checks)"). */
typedef struct sum_row {
	const char *key;
	double v;
	int decimals;
	const char *count_key, *count_what;
	size_t count;
} sum_row;

/* Judged and deterministic (docs/scoring.md): how many key nodes a semantic judge decided, the
 * share of successes resting on one, and the success rate without them. */
static void print_judged(int format, const kn_summary *sum)
{
	if (format == OUT_JSON) {
		printf(", \"judged_key_nodes\": %zu, \"judged_successes\": %zu, \"judged_success_share\": %.17g"
		       ", \"deterministic_floor\": %.17g", sum->n_judged_nodes, sum->n_judged_success,
		       sum->judged_success_share, sum->deterministic_floor);
		return;
	}
	printf("  %-26s%zu (%zu of %zu successes rest on one: share %.4f)\n", "judged_key_nodes",
	       sum->n_judged_nodes, sum->n_judged_success, sum->n_success, sum->judged_success_share);
	printf("  %-26s%.4f (success rate without judged key nodes)\n", "deterministic_floor",
	       sum->deterministic_floor);
}

/* The summary's numbers after "tasks", the same rows in both formats: JSON members (", \"k\": v")
 * or table lines; the purchase rewards (purchase.h) only when some run had one. */
static void print_summary(int format, const kn_summary *sum)
{
	const sum_row rows[] = {
		{"key_node_completion_rate", sum->key_node_completion_rate, 4, NULL, NULL, 0},
		{"average_step_score_rate", sum->average_step_score_rate, 4, NULL, NULL, 0},
		{"task_success_rate", sum->task_success_rate, 4, NULL, NULL, 0},
		{"task_near_success_rate", sum->task_near_success_rate, 4, NULL, NULL, 0},
		{"efficiency_score", sum->efficiency_score, 4, NULL, NULL, 0},
		{"functional_success_rate", sum->functional_success_rate, 4, "functional_tasks",
		 "functional checks", sum->n_functional_tasks},
		{"task_score", sum->task_score, 2, NULL, NULL, 0},
		{"reward_success_rate", sum->reward_success_rate, 4, "reward_tasks", "a purchase",
		 sum->n_reward_tasks},
	};
	size_t n = sizeof rows / sizeof *rows - (sum->n_reward_tasks ? 0 : 2);
	for (size_t i = 0; i < n; i++) {
		const sum_row *r = &rows[i];
		if (format == OUT_JSON) {
			printf(", \"%s\": %.17g", r->key, r->v);
			if (r->count_key)
				printf(", \"%s\": %zu", r->count_key, r->count);
		} else {
			printf("  %-26s%.*f", r->key, r->decimals, r->v);
			if (r->count_key)
				printf(" (%zu runs with %s)", r->count, r->count_what);
			putchar('\n');
		}
	}
	print_judged(format, sum);
}

int kn_cmd_score(int argc, char **argv)
{
	static const struct option opts[] = {
		{"tasks", required_argument, NULL, 't'},  {"runs", required_argument, NULL, 'r'},
		{"json", no_argument, NULL, 'j'},         {"csv", no_argument, NULL, 'c'},
		{"mode", required_argument, NULL, 'm'},   {"threshold", required_argument, NULL, 'T'},
		{"step-limit", required_argument, NULL, 'L'}, {"out", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},         KN_CLI_SEMANTIC_LONGOPTS,
		{NULL, 0, NULL, 0}};
	const char *tasks = NULL, *runs = NULL, *outdir = NULL;
	int format = OUT_TABLE, c, r;
	kn_eval_opts eo = {0};
	kn_cli_semantic so = {0};
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 't': tasks = optarg; break;
		case 'r': runs = optarg; break;
		case 'j': format = OUT_JSON; break;
		case 'c': format = OUT_CSV; break;
		case 'o': outdir = optarg; break;
		case 'm':
			if (kn_cli_parse_mode(&eo, optarg))
				return kn_cli_usage_error("score", "--mode must be default or webcanvas");
			break;
		case 'T':
			if (kn_cli_parse_threshold(&eo, optarg))
				return kn_cli_usage_error("score", "--threshold must be in (0, 1]");
			break;
		case 'L':
			if (kn_cli_parse_int(&eo.step_limit, optarg))
				return kn_cli_usage_error("score", "--step-limit must be an integer ≥ -1");
			break;
		case 'h': fputs(help, stdout); return KN_EXIT_OK;
		default:
			if ((r = kn_cli_semantic_option(&so, "score", c, optarg)) > 0)
				break;
			return r < 0 ? KN_EXIT_USAGE : kn_cli_usage_error("score", "bad option");
		}
	}
	if (!tasks || !runs)
		return kn_cli_usage_error("score", "--tasks and --runs are required");
	if (optind < argc)
		return kn_cli_usage_error("score", "unexpected argument '%s'", argv[optind]);

	kn_taskset *set;
	kn_err err = {0};
	if (outdir && kn_mkdirs(outdir, 0755, &err) != 0) {
		fprintf(stderr, "keynode score: --out: %s\n", err.msg);
		return KN_EXIT_USAGE;
	}
	if (kn_cli_semantic_open(&so, "score", &eo) != KN_EXIT_OK)
		return KN_EXIT_USAGE;
	/* after --config: its sites: resolve WebArena placeholders */
	r = kn_cli_load_tasks(&set, tasks, so.config, "score", &err);
	if (r != 0) {
		fprintf(stderr, "keynode score: %s\n", err.msg);
		kn_cli_semantic_close(&so);
		return r == KN_ENOTFOUND || r == KN_EIO ? KN_EXIT_USAGE : KN_EXIT_FAIL;
	}
	char **files;
	size_t nf;
	if (list_runs(runs, &files, &nf) != 0) {
		kn_taskset_free(set);
		kn_cli_semantic_close(&so);
		fprintf(stderr, "keynode score: cannot read runs from %s\n", runs);
		return KN_EXIT_USAGE;
	}
	kn_summary sum;
	kn_summary_init(&sum);
	struct row *rows = calloc(nf ? nf : 1, sizeof *rows);
	size_t nr = 0, judge_failures = 0;
	int failed = !rows;
	for (size_t i = 0; i < nf; i++) {
		if (rows && score_one(files[i], set, &eo, outdir, &rows[nr], &judge_failures) == 0)
			kn_summary_add(&sum, rows[nr++].ev);
		else
			failed = 1;
		free(files[i]);
	}
	free(files);
	if (format == OUT_JSON)
		fputs("{\"results\": [\n", stdout);
	print_rows(format, rows, nr);
	for (size_t i = 0; i < nr; i++) {
		kn_eval_free(rows[i].ev);
		free(rows[i].run);
	}
	free(rows);
	kn_summary_finish(&sum);
	if (format == OUT_JSON) {
		printf("],\n\"summary\": {\"tasks\": %zu, \"unjudged\": %zu", sum.tasks, sum.n_unjudged);
		print_summary(format, &sum);
		fputs("}", stdout);
		json_t *fp = kn_judge_fingerprint(&eo); /* the one judge of every result above */
		char *fps = fp ? json_dumps(fp, KN_RESULT_JSON_FLAGS) : NULL;
		printf(",\n\"judge\": %s", fps ? fps : "null");
		free(fps);
		json_decref(fp);
		if (so.client) {
			fputs(",\n\"semantic\": ", stdout);
			kn_cli_semantic_json(&so, stdout, sum.sum_reached);
		}
		fputs("}\n", stdout);
	} else if (format == OUT_TABLE) {
		printf("\nsummary over %zu runs (mode %s):\n", sum.tasks,
		       eo.mode == KN_MODE_WEBCANVAS ? "webcanvas" : "default");
		if (sum.n_unjudged)
			printf("  (%zu unjudged run%s left out: the judge failed on a key node they depend on)\n",
			       sum.n_unjudged, sum.n_unjudged == 1 ? "" : "s");
		print_summary(format, &sum);
		json_t *fp = kn_judge_fingerprint(&eo);
		char *fps = fp ? json_dumps(fp, KN_RESULT_JSON_FLAGS) : NULL;
		printf("  %-26s%s\n", "judge", fps ? fps : "unknown");
		free(fps);
		json_decref(fp);
		kn_cli_semantic_report(&so, stdout, sum.sum_reached);
	} else {
		kn_cli_semantic_report(&so, stderr, sum.sum_reached);
	}
	if (judge_failures)
		fprintf(stderr, "keynode score: %zu semantic judgement%s failed; %zu run%s unjudged (left out of "
		        "the metrics: score again once the judge answers)\n", judge_failures,
		        judge_failures == 1 ? "" : "s", sum.n_unjudged, sum.n_unjudged == 1 ? "" : "s");
	kn_cli_semantic_close(&so);
	kn_taskset_free(set);
	if (unwritable) /* a lost result is not a verdict */
		return KN_EXIT_USAGE;
	return failed || judge_failures ? KN_EXIT_FAIL : KN_EXIT_OK;
}
