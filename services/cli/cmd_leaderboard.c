/* cmd_leaderboard.c — `keynode leaderboard DIR…`: one row per `keynode run` folder in the
 * Mind2Web-Live leaderboard layout (agent, model, completion rate, task success rate, each with
 * its 95 % interval, attempts, task-set SHA-256, date) as Markdown, CSV or JSON. The numbers are
 * recomputed from the attempts (kn_rundir_load, services/runner/stats.h), so a folder written by
 * an older keynode gets its intervals too. Beside them, how many of the task set's tasks a keynode
 * serve validated by scheduled replay within 7 days: asked now with --server (the set a `run
 * --server` folder recorded, or --taskset), else as recorded when the run ended. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "keynode/judge_fingerprint.h"
#include "runner.h"
#include "rundir.h"
#include "stats.h"

static const char help[] =
	"usage: keynode leaderboard DIR… [--markdown | --csv | --json] [--server URL [--taskset NAME]]\n"
	"\n"
	"One row per `keynode run` folder, best task success rate first: agent (--agent-name, else the\n"
	"command), model (--model), completion rate (key_node_completion_rate) and task success rate\n"
	"over executable attempts, each with its 95 % bootstrap interval over tasks (summary.json\n"
	"ci95), executable and planned attempts, the task file's SHA-256 and the date the run ended.\n"
	"Rows that ran different task sets are flagged on stderr: they do not rank against each other.\n"
	"So are rows judged differently from the first folder given (their judge fingerprints differ:\n"
	"judge_differs names the fields, \"unknown\" for results without one). Beside the success rate,\n"
	"the deterministic floor: the success rate counting only successes that rest on no judged key\n"
	"node (docs/scoring.md \"Judged and deterministic\"); unknown (null) when some result does not list\n"
	"its judged key nodes (judged_unknown counts them).\n"
	"\n"
	"options:\n"
	"  --markdown   a Markdown table, rates in percent (default)\n"
	"  --csv        one line per folder, rates as fractions, header line first\n"
	"  --json       an array of objects\n"
	"  --server URL ask keynode serve at URL (token: KEYNODE_API_TOKEN) how many of the task set's\n"
	"               tasks its scheduled replays validated within 7 days, and state it beside each\n"
	"               row's numbers (\"validated within 7 days: X of Y tasks\"); the set is the one a\n"
	"               `keynode run --server` folder names in summary.json \"validation\", or --taskset.\n"
	"               Without --server a row states what its folder recorded when the run ended\n"
	"  --taskset NAME  with --server: the task set's name there, for every row\n"
	"\n"
	"exit: 0 done, 1 a file in a folder is malformed, 2 usage error or a folder not found\n";

/* The statement beside a row's numbers: asked of srv now (set: --taskset, else the one the folder
 * recorded), else the folder's summary.json "validation"; NULL when neither says. A server that
 * cannot answer is a warning. The result is the caller's. */
static json_t *validation_of(const kn_rundir *d, const kn_remote *srv, const char *set)
{
	json_t *rec = json_object_get(d->summary, "validation");
	const char *name = set ? set : json_string_value(json_object_get(rec, "taskset"));
	json_t *now = NULL;
	kn_err err = {0};
	if (srv && name && kn_remote_validation(srv, name, &now, &err) != 0)
		fprintf(stderr, "keynode leaderboard: warning: %s: task-set health of %s: %s\n", d->path, name, err.msg);
	if (now)
		return now;
	return json_is_string(json_object_get(rec, "statement")) ? json_incref(rec) : NULL;
}

static json_t *row_of(const kn_rundir *d, kn_err *err)
{
	kn_stats st;
	if (kn_stats_build(&st, d->rows, d->n_rows, d->tasks, d->n_tasks, d->repeat) != 0) {
		kn_err_set(err, KN_ENOMEM, "out of memory");
		return NULL;
	}
	double v[KN_RATE_N], lo[KN_RATE_N], hi[KN_RATE_N];
	int ok[KN_RATE_N], cok[KN_RATE_N];
	kn_stats_rates(v, ok, &st, NULL, 0, 0);
	size_t exe = 0, planned = 0;
	for (size_t i = 0; i < st.n_tasks; i++)
		exe += st.tasks[i].n, planned += st.tasks[i].planned;
	json_t *r = NULL;
	if (kn_stats_ci95(lo, hi, cok, &st, NULL) == 0) {
		const char *date = d->meta.finished ? d->meta.finished : d->meta.started;
		r = json_pack("{s:s, s:s?, s:f, s:[f, f], s:f, s:[f, f], s:I, s:I, s:I, s:s?, s:s?, s:s}",
		              "agent", d->meta.agent_name ? d->meta.agent_name : d->meta.agent ? d->meta.agent : "-",
		              "model", d->meta.model, "completion_rate", v[KN_RATE_KNCR], "completion_rate_ci95",
		              lo[KN_RATE_KNCR], hi[KN_RATE_KNCR], "task_success_rate", v[KN_RATE_TSR],
		              "task_success_rate_ci95", lo[KN_RATE_TSR], hi[KN_RATE_TSR], "tasks",
		              (json_int_t)st.n_tasks, "attempts", (json_int_t)exe, "attempts_planned",
		              (json_int_t)planned, "task_set_sha256", d->meta.tasks_sha256, "date", date, "dir",
		              d->path);
	}
	if (!r)
		kn_err_set(err, KN_ENOMEM, "out of memory");
	kn_stats_clear(&st);
	/* the deterministic floor beside the success rate (docs/scoring.md), over the same attempts */
	kn_summary s;
	kn_stats_judged(&s, d->rows, d->n_rows);
	json_t *fp = kn_rundir_judge(d);
	if (r) { /* unknown (null) when some result does not say which key nodes were judged */
		json_object_set_new(r, "deterministic_floor", s.n_judged_unknown ? json_null()
		                                              : json_real(s.deterministic_floor));
		json_object_set_new(r, "judged_success_share", s.n_judged_unknown ? json_null()
		                                               : json_real(s.judged_success_share));
		json_object_set_new(r, "judged_key_nodes", json_integer((json_int_t)s.n_judged_nodes));
		if (s.n_judged_unknown) /* results that do not list their judged key nodes */
			json_object_set_new(r, "judged_unknown", json_integer((json_int_t)s.n_judged_unknown));
		json_object_set_new(r, "judge", fp ? fp : json_null());
	} else {
		json_decref(fp);
	}
	return r;
}

static int by_success(const void *x, const void *y)
{
	double a = json_number_value(json_object_get(*(json_t *const *)x, "task_success_rate")),
	       b = json_number_value(json_object_get(*(json_t *const *)y, "task_success_rate"));
	return a < b ? 1 : a > b ? -1 : 0;
}

static double num(const json_t *r, const char *k, int i)
{
	const json_t *v = json_object_get(r, k);
	return json_number_value(i < 0 ? v : json_array_get(v, (size_t)i));
}

static const char *s_or(const json_t *r, const char *k, const char *dflt)
{
	const char *s = json_string_value(json_object_get(r, k));
	return s ? s : dflt;
}

/* The row's "validated within 7 days: X of Y tasks", or dflt. */
static const char *vstate(const json_t *r, const char *dflt)
{
	const char *s = json_string_value(json_object_get(json_object_get(r, "validation"), "statement"));
	return s ? s : dflt;
}

static void csv_text(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s == '\n' || *s == '\r' ? ' ' : *s);
	}
	putchar('"');
}

/* Markdown cell text: no pipes or line breaks. */
static void md_text(const char *s)
{
	for (; *s; s++)
		putchar(*s == '|' ? '/' : *s == '\n' || *s == '\r' ? ' ' : *s);
}

static void print(json_t *rows, int fmt)
{
	size_t i;
	json_t *r;
	if (fmt == 1) {
		json_dumpf(rows, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
		putchar('\n');
		return;
	}
	if (fmt == 2) {
		puts("rank,agent,model,completion_rate,completion_rate_ci95_low,completion_rate_ci95_high,"
		     "task_success_rate,task_success_rate_ci95_low,task_success_rate_ci95_high,tasks,attempts,"
		     "attempts_planned,task_set_sha256,date,dir,deterministic_floor,judge_differs,validation");
		json_array_foreach(rows, i, r) {
			printf("%zu,", i + 1);
			csv_text(s_or(r, "agent", ""));
			putchar(',');
			csv_text(s_or(r, "model", ""));
			printf(",%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%lld,%lld,%lld,%s,%s,", num(r, "completion_rate", -1),
			       num(r, "completion_rate_ci95", 0), num(r, "completion_rate_ci95", 1),
			       num(r, "task_success_rate", -1), num(r, "task_success_rate_ci95", 0),
			       num(r, "task_success_rate_ci95", 1), (long long)json_integer_value(json_object_get(r, "tasks")),
			       (long long)json_integer_value(json_object_get(r, "attempts")),
			       (long long)json_integer_value(json_object_get(r, "attempts_planned")),
			       s_or(r, "task_set_sha256", ""), s_or(r, "date", ""));
			csv_text(s_or(r, "dir", ""));
			if (json_is_number(json_object_get(r, "deterministic_floor")))
				printf(",%.4f,", num(r, "deterministic_floor", -1));
			else
				fputs(",,", stdout); /* unknown */
			csv_text(s_or(r, "judge_differs", ""));
			putchar(',');
			csv_text(vstate(r, ""));
			putchar('\n');
		}
		return;
	}
	puts("| # | Agent | Model | Completion rate (%) | Task success rate (%) | Deterministic floor (%) | "
	     "Attempts | Task set | Date | Replay validation |");
	puts("|---:|---|---|---|---|---:|---:|---|---|---|");
	json_array_foreach(rows, i, r) {
		printf("| %zu | ", i + 1);
		md_text(s_or(r, "agent", "-"));
		fputs(" | ", stdout);
		md_text(s_or(r, "model", "-"));
		const char *sha = s_or(r, "task_set_sha256", "-");
		char floor[16] = "unknown";
		if (json_is_number(json_object_get(r, "deterministic_floor")))
			snprintf(floor, sizeof floor, "%.1f", 100 * num(r, "deterministic_floor", -1));
		printf(" | %.1f [%.1f, %.1f] | %.1f [%.1f, %.1f] | %s | %lld / %lld | `%.12s` | %.10s | ",
		       100 * num(r, "completion_rate", -1), 100 * num(r, "completion_rate_ci95", 0),
		       100 * num(r, "completion_rate_ci95", 1), 100 * num(r, "task_success_rate", -1),
		       100 * num(r, "task_success_rate_ci95", 0), 100 * num(r, "task_success_rate_ci95", 1), floor,
		       (long long)json_integer_value(json_object_get(r, "attempts")),
		       (long long)json_integer_value(json_object_get(r, "attempts_planned")), sha,
		       s_or(r, "date", "-"));
		md_text(vstate(r, "-"));
		puts(" |");
	}
	puts("\nRates over executable attempts; [95 % bootstrap interval over tasks]; deterministic floor: the "
	     "success rate counting only successes without a judged key node; attempts executable / planned.");
}

/* Each row's "judge_differs": the fingerprint fields in which its folder was judged differently
 * from the first folder given ("" alike, "unknown" when either has none), warned on stderr (an
 * unknown judge only beside a known one). */
static void judge_differs(json_t *rows)
{
	const json_t *first = json_object_get(json_array_get(rows, 0), "judge");
	size_t i;
	json_t *r;
	json_array_foreach(rows, i, r) {
		char diff[256];
		int n = i ? kn_judge_fingerprint_diff(diff, sizeof diff, first, json_object_get(r, "judge")) : 0;
		json_object_set_new(r, "judge_differs", json_string(n ? diff : ""));
		if (n > 0)
			fprintf(stderr, "keynode leaderboard: warning: %s was judged differently from %s: %s differ: its "
			        "row does not rank against it\n", s_or(r, "dir", "?"),
			        s_or(json_array_get(rows, 0), "dir", "?"), diff);
		else if (n < 0 && (json_is_object(first) || json_is_object(json_object_get(r, "judge"))))
			fprintf(stderr, /* both unknown: nothing tells them apart, "unknown" says it */ "keynode leaderboard: warning: the judge of %s or %s is unknown (no judge "
			        "fingerprint): they may have been judged differently\n", s_or(r, "dir", "?"),
			        s_or(json_array_get(rows, 0), "dir", "?"));
	}
}

int kn_cmd_leaderboard(int argc, char **argv)
{
	enum { O_JSON = 0x100, O_CSV, O_MD, O_SERVER, O_TASKSET };
	static const struct option opts[] = {{"json", no_argument, NULL, O_JSON},
	                                     {"csv", no_argument, NULL, O_CSV},
	                                     {"markdown", no_argument, NULL, O_MD},
	                                     {"server", required_argument, NULL, O_SERVER},
	                                     {"taskset", required_argument, NULL, O_TASKSET},
	                                     {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	int c, fmt = -1;
	const char *server = NULL, *set = NULL;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == O_SERVER || c == O_TASKSET) {
			*(c == O_SERVER ? &server : &set) = optarg;
			continue;
		}
		int want = c == O_JSON ? 1 : c == O_CSV ? 2 : c == O_MD ? 0 : -2;
		if (c == 'h') {
			fputs(help, stdout);
			return KN_EXIT_OK;
		}
		if (want == -2)
			return kn_cli_usage_error("leaderboard", "bad option");
		if (fmt >= 0 && fmt != want)
			return kn_cli_usage_error("leaderboard", "give one of --markdown, --csv, --json");
		fmt = want;
	}
	if (optind >= argc)
		return kn_cli_usage_error("leaderboard", "give one or more run folders");
	if (set && !server)
		return kn_cli_usage_error("leaderboard", "--taskset goes with --server");
	json_t *rows = json_array();
	int rc = rows ? KN_EXIT_OK : KN_EXIT_USAGE;
	kn_remote *srv = NULL;
	kn_err serr = {0};
	if (rc == KN_EXIT_OK && server && kn_remote_new(&srv, server, getenv("KEYNODE_API_TOKEN"), &serr) != 0) {
		json_decref(rows);
		return kn_cli_usage_error("leaderboard", "--server: %s", serr.msg);
	}
	for (int i = optind; rc == KN_EXIT_OK && i < argc; i++) {
		kn_rundir *d = NULL;
		kn_err err = {0};
		int lr = kn_rundir_load(&d, argv[i], &err);
		json_t *r = lr == 0 ? row_of(d, &err) : NULL;
		json_t *v = r ? validation_of(d, srv, set) : NULL;
		if (v)
			json_object_set_new(r, "validation", v);
		if (!r) {
			fprintf(stderr, "keynode leaderboard: %s\n", err.msg);
			rc = lr == KN_EINVAL ? KN_EXIT_FAIL : KN_EXIT_USAGE;
		} else {
			json_array_append_new(rows, r);
		}
		kn_rundir_free(d);
	}
	if (rc == KN_EXIT_OK) {
		size_t n = json_array_size(rows);
		int mixed = 0;
		for (size_t i = 0; i < n; i++) /* an unknown set differs from every set */
			mixed |= !json_is_string(json_object_get(json_array_get(rows, i), "task_set_sha256")) ||
			         strcmp(s_or(json_array_get(rows, i), "task_set_sha256", ""),
			                s_or(json_array_get(rows, 0), "task_set_sha256", "")) != 0;
		mixed &= n > 1;
		judge_differs(rows);
		json_t **v = calloc(n + 1, sizeof *v);
		for (size_t i = 0; v && i < n; i++)
			v[i] = json_incref(json_array_get(rows, i));
		if (v)
			qsort(v, n, sizeof *v, by_success);
		json_t *sorted = json_array();
		for (size_t i = 0; v && i < n; i++)
			json_array_append_new(sorted, v[i]);
		free(v);
		if (mixed)
			fprintf(stderr, "keynode leaderboard: warning: the folders ran different task sets (task_set "
			        "SHA-256 differs or is unknown): their rows do not rank against each other\n");
		print(sorted, fmt < 0 ? 0 : fmt);
		json_decref(sorted);
	}
	json_decref(rows);
	kn_remote_free(srv);
	return rc;
}
