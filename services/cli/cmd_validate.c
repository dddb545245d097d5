/* cmd_validate.c — `keynode validate TASKFILE…`: load each file, report its task and key-node
 * counts by function, or the first error with its position. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"

static const char help[] =
	"usage: keynode validate [--json] TASKFILE...\n"
	"\n"
	"Check task files: native YAML (docs/formats.md §1) or Mind2Web-Live JSON, detected by content.\n"
	"Prints the number of tasks and key nodes (by match function) of each valid file, and the\n"
	"first error of an invalid one as FILE:LINE:COLUMN (YAML) or FILE: JSON-PATH (JSON).\n"
	"\n"
	"options:\n"
	"  --json    one JSON object per file: {\"file\", \"ok\", \"tasks\", \"key_nodes\", \"functions\", \"error\"}\n"
	"  --help    this text\n"
	"\n"
	"exit: 0 all files valid, 1 a file is invalid, 2 usage error\n";

/* Count key nodes per function name, in first-seen order. */
struct fcount {
	const char *name;
	size_t n;
};

static size_t count_functions(const kn_taskset *set, struct fcount *out, size_t cap)
{
	size_t nf = 0;
	for (size_t t = 0; t < set->n_tasks; t++)
		for (size_t k = 0; k < set->tasks[t].n_keynodes; k++) {
			const char *fn = set->tasks[t].keynodes[k].function;
			size_t i = 0;
			while (i < nf && strcmp(out[i].name, fn) != 0)
				i++;
			if (i == nf && nf < cap)
				out[nf++] = (struct fcount){fn, 0};
			if (i < nf)
				out[i].n++;
		}
	return nf;
}

int kn_cmd_validate(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	int json = 0, c;
	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(help, stdout);
			return KN_EXIT_OK;
		}
		if (c != 'j')
			return kn_cli_usage_error("validate", "bad option");
		json = 1;
	}
	if (optind >= argc)
		return kn_cli_usage_error("validate", "no task file given");
	int rc = KN_EXIT_OK;
	for (int i = optind; i < argc; i++) {
		kn_taskset *set;
		kn_err err = {0};
		int r = kn_taskset_load_file(&set, argv[i], NULL, &err);
		struct fcount fc[32];
		size_t nf = r == 0 ? count_functions(set, fc, 32) : 0;
		if (r != 0)
			rc = r == KN_ENOTFOUND || r == KN_EIO ? KN_EXIT_USAGE
			     : rc == KN_EXIT_USAGE            ? rc
			                                      : KN_EXIT_FAIL;
		if (json) {
			json_t *j = json_pack("{s:s, s:b}", "file", argv[i], "ok", r == 0);
			if (r == 0) {
				json_t *f = json_object();
				for (size_t k = 0; k < nf; k++)
					json_object_set_new(f, fc[k].name, json_integer((json_int_t)fc[k].n));
				json_object_set_new(j, "format",
				                    json_string(set->format == KN_FORMAT_YAML ? "yaml" : "mind2web-live"));
				json_object_set_new(j, "tasks", json_integer((json_int_t)set->n_tasks));
				json_object_set_new(j, "key_nodes",
				                    json_integer((json_int_t)kn_taskset_count_keynodes(set)));
				json_object_set_new(j, "functions", f);
			} else {
				json_object_set_new(j, "error", json_string(err.msg));
			}
			json_dumpf(j, stdout, JSON_COMPACT);
			putchar('\n');
			json_decref(j);
		} else if (r == 0) {
			printf("%s: ok: %zu tasks, %zu key nodes (%s)\n", argv[i], set->n_tasks,
			       kn_taskset_count_keynodes(set),
			       set->format == KN_FORMAT_YAML ? "native YAML" : "Mind2Web-Live JSON");
			for (size_t k = 0; k < nf; k++)
				printf("  %-30s %zu\n", fc[k].name, fc[k].n);
		} else {
			fprintf(stderr, "%s\n", err.msg);
		}
		kn_taskset_free(set);
	}
	return rc;
}
