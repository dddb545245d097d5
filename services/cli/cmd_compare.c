/* cmd_compare.c — `keynode compare DIR_A DIR_B`: is B better than A, or was the web different?
 * Two `keynode run` folders are compared pair by pair on the tasks both ran (same id and same
 * content hash; the others are listed, never mixed in): each rate's difference B − A with a
 * paired-bootstrap 95 % interval (services/runner/stats.h), the tasks B won and lost on per-task
 * success, and an exact sign test on them. Folders are read back with kn_rundir_load; the
 * comparison itself is kn_run_compare (services/runner/compare.c, also behind the dashboard's
 * GET /api/agent-runs/compare); this file prints it. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "compare.h"
#include "rundir.h"

static const char help[] =
	"usage: keynode compare DIR_A DIR_B [DIR…] [--json | --markdown]\n"
	"\n"
	"Compare two `keynode run` folders (A the baseline, B the change) on the tasks both ran: same\n"
	"task id and same task content (the SHA-256 in summary.json task_set; folders without it are\n"
	"matched by id, with a warning). Tasks only one ran, or whose content changed, are listed and\n"
	"left out. For every rate: A, B, B - A and its 95 % paired-bootstrap interval (tasks drawn with\n"
	"replacement, the same draw in both, every attempt of a drawn task together; 2000 draws, fixed\n"
	"seed). Per task, success is the share of its executable attempts that finished: B won a task\n"
	"when its share is higher, lost it when lower. The exact two-sided sign test on won against lost\n"
	"(McNemar's exact test when each task ran once) decides: p < 0.05 is a significant difference.\n"
	"Warnings say when the task sets, the environments or the repeats differ, and (also on stderr)\n"
	"when the folders were judged differently: their judge fingerprints (backend, model,\n"
	"prompt_sha256, threshold, mode, keynode_version) differ, naming the fields, or only one folder\n"
	"has one (both without: \"unknown\", no warning)\n"
	"(--json: \"judge\": {a, b, same, differs}). With more folders,\n"
	"each is compared with DIR_A (--json: an array of the comparisons).\n"
	"\n"
	"options:\n"
	"  --json        the comparison as JSON\n"
	"  --markdown    the comparison as a Markdown table (for a pull request or a paper's appendix)\n"
	"\n"
	"exit: 0 compared, 1 a file in a folder is malformed, 2 usage error or a folder not found\n";

static void print_list(FILE *f, const char *what, const json_t *l, int md)
{
	if (!json_array_size(l))
		return;
	fprintf(f, md ? "\n**%s** (%zu):" : "%s (%zu):", what, json_array_size(l));
	size_t i;
	json_t *v;
	json_array_foreach(l, i, v)
		fprintf(f, " %s%s", json_string_value(v), i + 1 < json_array_size(l) ? "," : "");
	fputc('\n', f);
}

static void print(FILE *f, json_t *j, int md)
{
	const json_t *a = json_object_get(j, "a"), *b = json_object_get(j, "b");
	const char *la = json_string_value(json_object_get(a, "name")), *lb = json_string_value(json_object_get(b, "name"));
	if (!la)
		la = json_string_value(json_object_get(a, "agent"));
	if (!lb)
		lb = json_string_value(json_object_get(b, "agent"));
	fprintf(f, md ? "### keynode compare\n\n- **A** `%s` (%s)\n- **B** `%s` (%s)\n- paired tasks: %lld\n\n"
	              : "A: %s (%s)\nB: %s (%s)\npaired tasks: %lld (same id and content)\n\n",
	        json_string_value(json_object_get(a, "dir")), la ? la : "agent unknown",
	        json_string_value(json_object_get(b, "dir")), lb ? lb : "agent unknown",
	        (long long)json_integer_value(json_object_get(j, "paired")));
	fprintf(f, md ? "| rate | A | B | B − A | 95 %% CI (paired bootstrap) |\n|---|---:|---:|---:|---|\n"
	              : "%-27s %8s %8s %9s   %s\n", "rate", "A", "B", "B - A", "95% CI (paired bootstrap)");
	const char *k;
	json_t *r;
	json_object_foreach(json_object_get(j, "rates"), k, r) {
		json_t *ci = json_object_get(r, "ci95");
		fprintf(f, md ? "| %s | %.4f | %.4f | %+.4f | [%+.4f, %+.4f] |\n" : "%-27s %8.4f %8.4f %+9.4f   [%+.4f, %+.4f]\n",
		        k, json_number_value(json_object_get(r, "a")), json_number_value(json_object_get(r, "b")),
		        json_number_value(json_object_get(r, "diff")), json_number_value(json_array_get(ci, 0)),
		        json_number_value(json_array_get(ci, 1)));
	}
	const json_t *s = json_object_get(j, "sign_test");
	fprintf(f, md ? "\nPer-task success: B won %lld, lost %lld, tied %lld; exact sign test p = %.4g.\n\n**Verdict:** %s\n"
	              : "\nper-task success: B won %lld, lost %lld, tied %lld; exact sign test p = %.4g\nverdict: %s\n",
	        (long long)json_integer_value(json_object_get(s, "won")),
	        (long long)json_integer_value(json_object_get(s, "lost")),
	        (long long)json_integer_value(json_object_get(s, "tied")),
	        json_number_value(json_object_get(s, "p_value")), json_string_value(json_object_get(j, "verdict")));
	json_t *won = json_array(), *lost = json_array();
	size_t i;
	json_t *t;
	json_array_foreach(json_object_get(j, "per_task"), i, t) {
		const char *o = json_string_value(json_object_get(t, "outcome"));
		if (strcmp(o, "won") == 0 || strcmp(o, "lost") == 0)
			json_array_append_new(strcmp(o, "won") == 0 ? won : lost, json_copy(json_object_get(t, "task")));
	}
	if (!md)
		fputc('\n', f);
	print_list(f, "won by B", won, md);
	print_list(f, "lost by B", lost, md);
	print_list(f, "only in A", json_object_get(j, "only_a"), md);
	print_list(f, "only in B", json_object_get(j, "only_b"), md);
	print_list(f, "content changed (left out)", json_object_get(j, "changed"), md);
	json_decref(won), json_decref(lost);
	json_array_foreach(json_object_get(j, "warnings"), i, t)
		fprintf(f, md ? "\n> warning: %s\n" : "warning: %s\n", json_string_value(t));
}

/* On stderr, whatever the format: the two folders were not judged alike, or only one of them says
 * how it was judged (the comparison's "judge" warning). */
static void warn_judge(const json_t *j)
{
	const json_t *jd = json_object_get(j, "judge");
	if (json_is_true(json_object_get(jd, "same")) ||
	    (json_is_null(json_object_get(jd, "a")) && json_is_null(json_object_get(jd, "b"))))
		return;
	const char *a = json_string_value(json_object_get(json_object_get(j, "a"), "dir")),
	           *b = json_string_value(json_object_get(json_object_get(j, "b"), "dir")),
	           *d = json_string_value(json_object_get(jd, "differs"));
	if (json_is_false(json_object_get(jd, "same")))
		fprintf(stderr, "keynode compare: warning: %s and %s were judged differently: %s differ\n",
		        a ? a : "A", b ? b : "B", d ? d : "?");
	else
		fprintf(stderr, "keynode compare: warning: the judge of %s is unknown (no judge fingerprint): "
		        "it may have been judged differently from %s\n",
		        json_is_null(json_object_get(jd, "a")) ? (a ? a : "A") : (b ? b : "B"),
		        json_is_null(json_object_get(jd, "a")) ? (b ? b : "B") : (a ? a : "A"));
}

int kn_cmd_compare(int argc, char **argv)
{
	enum { O_JSON = 0x100, O_MD };
	static const struct option opts[] = {{"json", no_argument, NULL, O_JSON},
	                                     {"markdown", no_argument, NULL, O_MD},
	                                     {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	int c, fmt = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case O_JSON: fmt = fmt == 2 ? -1 : 1; break;
		case O_MD: fmt = fmt == 1 ? -1 : 2; break;
		case 'h': fputs(help, stdout); return KN_EXIT_OK;
		default: return kn_cli_usage_error("compare", "bad option");
		}
	}
	if (fmt < 0)
		return kn_cli_usage_error("compare", "--json and --markdown exclude each other");
	if (argc - optind < 2)
		return kn_cli_usage_error("compare", "give two run folders, DIR_A DIR_B (more: each against DIR_A)");
	kn_rundir *base = NULL;
	kn_err err = {0};
	int rc = KN_EXIT_OK, lr = kn_rundir_load(&base, argv[optind], &err);
	json_t *all = json_array();
	for (int i = optind + 1; !lr && all && i < argc; i++) {
		kn_rundir *b = NULL;
		json_t *j = NULL;
		if ((lr = kn_rundir_load(&b, argv[i], &err)) == 0 && !(j = kn_run_compare(base, b, &err)))
			lr = KN_ENOMEM;
		if (j)
			warn_judge(j);
		json_array_append_new(all, j);
		kn_rundir_free(b);
	}
	if (lr || !all) {
		fprintf(stderr, "keynode compare: %s\n", all ? err.msg : "out of memory");
		rc = lr == KN_EINVAL ? KN_EXIT_FAIL : KN_EXIT_USAGE;
	} else if (fmt == 1) { /* one comparison: its object; more: an array of them */
		json_dumpf(json_array_size(all) == 1 ? json_array_get(all, 0) : all, stdout,
		           JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
		fputc('\n', stdout);
	} else {
		size_t i;
		json_t *j;
		json_array_foreach(all, i, j) {
			if (i)
				fputs(fmt == 2 ? "\n---\n\n" : "\n", stdout);
			print(stdout, j, fmt == 2);
		}
	}
	json_decref(all);
	kn_rundir_free(base);
	return rc;
}
