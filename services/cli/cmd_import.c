/* cmd_import.c — `keynode import`: load WebArena task configs (or any task file) with the config's
 * sites: placeholders and report, per task, the key nodes each check became and what could not be
 * mapped; and kn_cli_load_tasks, the task loading score and watch share so WebArena configs work
 * there directly. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "log.h"

static const char help[] =
	"usage: keynode import [--config keynode.yaml] [--site NAME=URL]... [--strict] FILE\n"
	"\n"
	"Load WebArena task configs (a JSON list of {task_id, intent, start_url, eval}, or one such\n"
	"object; native YAML and Mind2Web-Live files load too) and print, as JSON, every task with the\n"
	"key nodes its checks became and the parts that could not be mapped, with the reason (a func:\n"
	"Python helper calling a site API, an unknown eval type, a __SITE__ placeholder with no site);\n"
	"`fully_mapped` counts the tasks with nothing unmapped.\n"
	"\n"
	"  --config FILE      keynode.yaml: its sites: {SHOPPING: \"http://…\"} resolve __SHOPPING__\n"
	"  --site NAME=URL    one more placeholder (overrides the config's)\n"
	"  --strict           exit 1 when any part could not be mapped\n"
	"\n"
	"WebArena task configs also load directly in score, watch and replay (format detected by\n"
	"content); give them --config for the sites.\n"
	"exit: 0 loaded (and, with --strict, fully mapped), 1 invalid or not fully mapped, 2 usage\n";

#define MAX_SITES 64

int kn_cli_load_tasks(kn_taskset **out, const char *path, const kn_config *cfg, const char *cmd,
                      kn_err *err)
{
	kn_site sites[MAX_SITES];
	size_t n = 0;
	for (size_t i = 0; cfg && i < cfg->n_sites && n < MAX_SITES; i++)
		sites[n++] = (kn_site){cfg->sites[i].name, cfg->sites[i].url};
	kn_load_opts o = {.sites = sites, .n_sites = n};
	int rc = kn_taskset_load_file(out, path, &o, err);
	for (size_t i = 0; rc == 0 && i < (*out)->n_tasks; i++) {
		const kn_task *t = &(*out)->tasks[i];
		char q[512];
		for (size_t j = 0; j < t->n_unmapped; j++)
			kn_log_msg("warn", cmd, "check not mapped", "task=%s detail=\"%s\"", t->id,
			           kn_log_quote(q, sizeof q, t->unmapped[j]));
	}
	return rc;
}

static json_t *task_json(const kn_task *t)
{
	json_t *nodes = json_array(), *un = json_array();
	for (size_t i = 0; i < t->n_keynodes; i++) {
		const kn_keynode *k = &t->keynodes[i];
		json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s}", "id", k->id, "function", k->function,
		                      "target", kn_target_name(k->target), "matcher",
		                      kn_matcher_name(k->matcher), "expect", k->expect);
		if (o && k->target == KN_TARGET_PAGE) {
			json_object_set_new(o, "url", json_string(k->page_url ? k->page_url
			                                          : k->page_from_last ? "reddit_post_of_last"
			                                                              : "last"));
			json_object_set_new(o, "locator", json_string(k->locator));
		}
		json_array_append_new(nodes, o);
	}
	for (size_t i = 0; i < t->n_unmapped; i++)
		json_array_append_new(un, json_string(t->unmapped[i]));
	json_t *r = json_pack("{s:s, s:s, s:s?, s:o, s:o}", "task", t->id, "intent", t->intent,
	                      "start_url", t->start_url, "key_nodes", nodes, "unmapped", un);
	if (r && t->n_more_start_urls) { /* WebArena " |AND| ": one more tab each */
		json_t *more = json_array();
		for (size_t i = 0; i < t->n_more_start_urls; i++)
			json_array_append_new(more, json_string(t->more_start_urls[i]));
		json_object_set_new(r, "more_start_urls", more);
	}
	return r;
}

int kn_cmd_import(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"config", required_argument, NULL, 'c'}, {"site", required_argument, NULL, 's'},
		{"strict", no_argument, NULL, 'S'},       {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0}};
	const char *config = NULL;
	kn_site extra[MAX_SITES];
	char *extra_buf[MAX_SITES];
	size_t n_extra = 0;
	int strict = 0, c, rc = KN_EXIT_USAGE;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'c': config = optarg; break;
		case 'S': strict = 1; break;
		case 's': {
			const char *eq = strchr(optarg, '=');
			if (!eq || eq == optarg || !eq[1] || n_extra == MAX_SITES) {
				for (size_t i = 0; i < n_extra; i++)
					free(extra_buf[i]);
				return kn_cli_usage_error("import", "--site wants NAME=URL (at most %d)",
				                          MAX_SITES);
			}
			char *b = strdup(optarg);
			if (!b)
				return KN_EXIT_USAGE;
			b[eq - optarg] = '\0';
			extra_buf[n_extra] = b;
			extra[n_extra] = (kn_site){b, b + (eq - optarg) + 1};
			n_extra++;
			break;
		}
		case 'h': fputs(help, stdout); return KN_EXIT_OK;
		default: return kn_cli_usage_error("import", "bad option");
		}
	}
	kn_config *cfg = NULL;
	kn_taskset *set = NULL;
	kn_err err = {0};
	if (optind != argc - 1) {
		rc = kn_cli_usage_error("import", "one task file is required");
		goto done;
	}
	if (config && kn_config_load(&cfg, config, &err) != 0) {
		fprintf(stderr, "keynode import: %s\n", err.msg);
		goto done;
	}
	kn_site sites[2 * MAX_SITES];
	size_t n = 0;
	for (size_t i = 0; i < n_extra; i++) /* first match wins: flags before the config */
		sites[n++] = extra[i];
	for (size_t i = 0; cfg && i < cfg->n_sites && n < 2 * MAX_SITES; i++)
		sites[n++] = (kn_site){cfg->sites[i].name, cfg->sites[i].url};
	kn_load_opts o = {.sites = sites, .n_sites = n};
	int r = kn_taskset_load_file(&set, argv[optind], &o, &err);
	if (r) {
		fprintf(stderr, "keynode import: %s\n", err.msg);
		rc = r == KN_ENOTFOUND || r == KN_EIO ? KN_EXIT_USAGE : KN_EXIT_FAIL;
		goto done;
	}
	json_t *tasks = json_array();
	size_t unmapped = 0, nodes = 0, full = 0;
	for (size_t i = 0; i < set->n_tasks; i++) {
		json_array_append_new(tasks, task_json(&set->tasks[i]));
		unmapped += set->tasks[i].n_unmapped;
		full += set->tasks[i].n_unmapped == 0;
		nodes += set->tasks[i].n_keynodes;
	}
	static const char *const formats[] = {"yaml", "mind2web", "webarena"};
	json_t *j = json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:o}", "source", argv[optind], "format",
	                      formats[set->format], "tasks", (json_int_t)set->n_tasks,
	                      "fully_mapped", (json_int_t)full, "key_nodes", (json_int_t)nodes,
	                      "unmapped", (json_int_t)unmapped, "results", tasks);
	if (!j || json_dumpf(j, stdout, JSON_INDENT(1)) != 0) {
		fprintf(stderr, "keynode import: cannot write the report\n");
		rc = KN_EXIT_FAIL;
	} else {
		fputc('\n', stdout);
		rc = strict && unmapped ? KN_EXIT_FAIL : KN_EXIT_OK;
	}
	json_decref(j);
done:
	for (size_t i = 0; i < n_extra; i++)
		free(extra_buf[i]);
	kn_taskset_free(set);
	kn_config_free(cfg);
	return rc;
}
