/* cmd_validate.c — `keynode validate TASKFILE…`: load each file, report its task and key-node
 * counts by function and the sites its tasks name (keynode/site.h, with every key node's page),
 * or the first error with its position; check the workflow files beside it (keynode/workflow.h)
 * and the selectors of inline steps. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "keynode/site.h"
#include "keynode/workflow.h"

static const char help[] =
	"usage: keynode validate [--json] [--workflows DIR] TASKFILE...\n"
	"\n"
	"Check task files: native YAML (docs/formats.md §1) or Mind2Web-Live JSON, detected by content.\n"
	"Prints the number of tasks and key nodes (by match function) of each valid file, and the\n"
	"first error of an invalid one as FILE:LINE:COLUMN (YAML) or FILE: JSON-PATH (JSON).\n"
	"\n"
	"options:\n"
	"  --json    one JSON object per file: {\"file\", \"ok\", \"tasks\", \"key_nodes\", \"functions\", \"error\",\n"
	"            \"workflows\", \"workflow_errors\", \"tasks_with_site\", \"task_sites\"};\n"
	"            task_sites: per task {\"task\", \"site\" (the one it is reported under, or\n"
	"            null), \"sites\" (every site it names: what \"unreachable\" is decided on),\n"
	"            \"pages\" (each key node's page, e.g. Mind2Web-Live's content.url: {\"k1\": URL},\n"
	"            a node without one left out)}\n"
	"  --workflows DIR  check the workflow files of DIR against the task file (default:\n"
	"            workflows/ beside each task file, when present): each must load, name a task of\n"
	"            the file, be called <task-id>.yaml and hold valid CSS/XPath selectors\n"
	"  --help    this text\n"
	"\n"
	"exit: 0 all files valid, 1 a file is invalid, 2 usage error\n";

/* Workflow and step-selector errors of one task file. */
struct wf_errs {
	json_t *list; /* --json: the messages */
	int n;
};

static void wf_error(void *ud, const char *path, const kn_err *err)
{
	(void)path;
	struct wf_errs *w = ud;
	w->n++;
	if (w->list)
		json_array_append_new(w->list, json_string(err->msg));
	else
		fprintf(stderr, "%s\n", err->msg);
}

/* Inline steps' selectors (workflow files checked theirs when loading). */
static void check_inline_selectors(const kn_taskset *set, struct wf_errs *w)
{
	for (size_t t = 0; t < set->n_tasks; t++) {
		if (set->tasks[t].workflow_file)
			continue;
		for (size_t i = 0; i < set->tasks[t].n_steps; i++) {
			const kn_step *st = &set->tasks[t].steps[i];
			kn_err e = {0}, m = {0};
			if (!st->selector || kn_selector_check(st->selector, &e) == 0)
				continue;
			kn_err_set(&m, KN_EINVAL, "%s:%d:%d: task '%s' step %zu: %s: '%.80s'", set->source,
			           st->line, st->column, set->tasks[t].id, i + 1, e.msg, st->selector);
			wf_error(w, set->source, &m);
		}
	}
}

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

/* kn_task_sites_each's sites of one task as JSON strings, without repeats: "host", "host:port"
 * when the site has one, "netloc:TOKEN" for a netloc token. */
static int add_site(void *ud, const char *host, long port, kn_site_from from)
{
	char buf[300];
	if (from == KN_SITE_FROM_NETLOC)
		snprintf(buf, sizeof buf, "netloc:%s", host);
	else if (port)
		snprintf(buf, sizeof buf, "%s:%ld", host, port);
	else
		snprintf(buf, sizeof buf, "%s", host);
	size_t i;
	json_t *v;
	json_array_foreach((json_t *)ud, i, v)
		if (strcmp(json_string_value(v), buf) == 0)
			return 0;
	json_array_append_new(ud, json_string(buf));
	return 0;
}

/* Per task: its reported site, every site it names, its key nodes' pages; *with_site counts the
 * tasks that name one. */
static json_t *task_sites_json(const kn_taskset *set, size_t *with_site)
{
	json_t *list = json_array();
	*with_site = 0;
	for (size_t t = 0; list && t < set->n_tasks; t++) {
		const kn_task *task = &set->tasks[t];
		char site[256];
		kn_task_site(site, sizeof site, task);
		*with_site += site[0] != '\0';
		json_t *sites = json_array(), *pages = json_object();
		kn_task_sites_each(task, add_site, sites);
		for (size_t k = 0; k < task->n_keynodes; k++)
			if (task->keynodes[k].ref_url && *task->keynodes[k].ref_url)
				json_object_set_new(pages, task->keynodes[k].id, json_string(task->keynodes[k].ref_url));
		json_array_append_new(list, json_pack("{s:s, s:s?, s:o, s:o}", "task", task->id, "site",
		                                      site[0] ? site : NULL, "sites", sites, "pages", pages));
	}
	return list;
}

int kn_cmd_validate(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'}, {"help", no_argument, NULL, 'h'},
		{"workflows", required_argument, NULL, 'w'}, {NULL, 0, NULL, 0}};
	int json = 0, c;
	const char *wdir = NULL;
	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(help, stdout);
			return KN_EXIT_OK;
		}
		if (c == 'w')
			wdir = optarg;
		else if (c != 'j')
			return kn_cli_usage_error("validate", "bad option");
		else
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
		struct wf_errs we = {json ? json_array() : NULL, 0};
		size_t nw = 0;
		char def[4096];
		const char *dir = wdir ? wdir : r == 0 && kn_workflows_default_dir(def, sizeof def, argv[i]) ? def : NULL;
		if (r == 0 && dir) {
			kn_err werr = {0};
			int wr = kn_workflows_attach(set, dir, wf_error, &we, &nw, &werr);
			if (wr == KN_ENOTFOUND || wr == KN_EIO) {
				kn_err_set(&werr, wr, "workflows: %s", werr.msg);
				wf_error(&we, dir, &werr);
				rc = KN_EXIT_USAGE;
			}
		}
		if (r == 0)
			check_inline_selectors(set, &we);
		if (we.n && rc == KN_EXIT_OK)
			rc = KN_EXIT_FAIL;
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
				json_object_set_new(j, "workflows", json_integer((json_int_t)nw));
				json_object_set_new(j, "workflow_errors", we.list);
				we.list = NULL;
				size_t ns;
				json_t *ts = task_sites_json(set, &ns);
				json_object_set_new(j, "tasks_with_site", json_integer((json_int_t)ns));
				json_object_set_new(j, "task_sites", ts);
				if (we.n)
					json_object_set_new(j, "ok", json_false());
			} else {
				json_object_set_new(j, "error", json_string(err.msg));
			}
			json_dumpf(j, stdout, JSON_COMPACT);
			putchar('\n');
			json_decref(j);
		} else if (r == 0) {
			printf("%s: %s: %zu tasks, %zu key nodes (%s)\n", argv[i], we.n ? "invalid workflows" : "ok", set->n_tasks,
			       kn_taskset_count_keynodes(set),
			       set->format == KN_FORMAT_YAML ? "native YAML" : "Mind2Web-Live JSON");
			for (size_t k = 0; k < nf; k++)
				printf("  %-30s %zu\n", fc[k].name, fc[k].n);
			size_t ns = 0, np = 0;
			char site[256];
			for (size_t t = 0; t < set->n_tasks; t++) {
				kn_task_site(site, sizeof site, &set->tasks[t]);
				ns += site[0] != '\0';
				for (size_t k = 0; k < set->tasks[t].n_keynodes; k++)
					np += set->tasks[t].keynodes[k].ref_url && *set->tasks[t].keynodes[k].ref_url;
			}
			printf("  sites: %zu of %zu tasks name one (%zu key nodes with a page)\n", ns, set->n_tasks, np);
			if (dir)
				printf("  workflows: %zu attached from %s%s\n", nw, dir, we.n ? ", with errors" : "");
		} else {
			fprintf(stderr, "%s\n", err.msg);
		}
		json_decref(we.list);
		kn_taskset_free(set);
	}
	return rc;
}
