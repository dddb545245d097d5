/* wa_diff.c — the keynode side of the WebArena differential suite (webarena_diff.py): reads cases,
 * one JSON object a line {"id", "config": a WebArena task config, "events": [trajectory events],
 * "pages": [the text each program_html entry reads, in order]}, evaluates each with keynode's
 * importer and evaluator (WebArena sites from --site NAME=URL), and prints "ID VERDICT" a line
 * (1 pass, 0 fail, -1 no functional check, E on error). Usage: wa_diff [--semantics keynode]
 * --site N=U... < cases (--semantics keynode: keynode's own rules, to see where they differ);
 * wa_diff --import FILE --site N=U...: load FILE whole, print each unmapped part and the count of
 * fully mapped tasks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "keynode/eval.h"
#include "keynode/functional.h"
#include "keynode/task.h"

#define MAX_SITES 16

static int func_sem; /* 0 the task's; --semantics keynode forces keynode's rules (1 + sem) */

static int run_case(json_t *c, const kn_load_opts *o)
{
	char *cfg = json_dumps(json_object_get(c, "config"), JSON_COMPACT);
	kn_taskset *set = NULL;
	kn_eval *ev = NULL;
	kn_err err = {0};
	int verdict = -2;
	if (!cfg || kn_task_load_webarena(&set, cfg, strlen(cfg), "case", o, &err) != 0 ||
	    set->n_tasks != 1) {
		fprintf(stderr, "wa_diff: %s\n", err.msg);
		goto done;
	}
	kn_eval_opts eo = {.step_limit = -1, .func_sem = func_sem};
	if (kn_eval_new(&ev, &set->tasks[0], &eo) != 0)
		goto done;
	size_t i;
	json_t *e;
	json_array_foreach(json_object_get(c, "events"), i, e) {
		char *line = json_dumps(e, JSON_COMPACT);
		kn_event ke;
		int rc = line ? kn_event_parse(&ke, line, strlen(line), &err) : KN_ENOMEM;
		free(line);
		if (rc) {
			fprintf(stderr, "wa_diff: event %zu: %s\n", i, err.msg);
			goto done;
		}
		rc = kn_eval_feed(ev, &ke, &err);
		kn_event_clear(&ke);
		if (rc < 0)
			goto done;
	}
	json_t *pages = json_object_get(c, "pages");
	const kn_task *t = &set->tasks[0];
	for (size_t k = 0; k < t->n_keynodes; k++) {
		unsigned idx;
		if (t->keynodes[k].target != KN_TARGET_PAGE ||
		    sscanf(t->keynodes[k].id, "page%u", &idx) != 1)
			continue;
		json_t *txt = json_array_get(pages, idx - 1);
		if (kn_eval_page_result(ev, k, json_string_value(txt), txt ? NULL : "not read", &err) < 0)
			goto done;
	}
	verdict = kn_eval_functional(ev);
done:
	kn_eval_free(ev);
	kn_taskset_free(set);
	free(cfg);
	return verdict;
}

int main(int argc, char **argv)
{
	kn_site sites[MAX_SITES];
	size_t n = 0;
	const char *import = NULL;
	for (int i = 1; i + 1 < argc && n < MAX_SITES; i += 2) {
		if (strcmp(argv[i], "--import") == 0) {
			import = argv[i + 1];
			continue;
		}
		if (strcmp(argv[i], "--semantics") == 0) {
			func_sem = 1 + (strcmp(argv[i + 1], "keynode") == 0 ? KN_FUNC_SEM_KEYNODE
			                                                      : KN_FUNC_SEM_WEBARENA);
			continue;
		}
		char *eq = strcmp(argv[i], "--site") == 0 ? strchr(argv[i + 1], '=') : NULL;
		if (!eq) {
			fprintf(stderr, "usage: wa_diff [--semantics keynode|webarena] [--import FILE] "
			                "--site NAME=URL... < cases.jsonl\n");
			return 2;
		}
		*eq = '\0';
		sites[n++] = (kn_site){argv[i + 1], eq + 1};
	}
	kn_load_opts o = {.sites = sites, .n_sites = n};
	if (import) { /* the whole file as `keynode import` loads it: tasks, fully mapped, reasons */
		kn_taskset *set = NULL;
		kn_err err = {0};
		if (kn_taskset_load_file(&set, import, &o, &err) != 0) {
			fprintf(stderr, "wa_diff: %s\n", err.msg);
			return 1;
		}
		size_t full = 0;
		for (size_t i = 0; i < set->n_tasks; i++) {
			full += set->tasks[i].n_unmapped == 0;
			for (size_t k = 0; k < set->tasks[i].n_unmapped; k++)
				printf("unmapped %s %s\n", set->tasks[i].id, set->tasks[i].unmapped[k]);
		}
		printf("tasks %zu fully_mapped %zu\n", set->n_tasks, full);
		kn_taskset_free(set);
		return 0;
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	while ((len = getline(&line, &cap, stdin)) > 0) {
		json_error_t je;
		json_t *c = json_loadb(line, (size_t)len, 0, &je);
		const char *id = json_string_value(json_object_get(c, "id"));
		if (!c || !id) {
			fprintf(stderr, "wa_diff: bad case line: %s\n", je.text);
			json_decref(c);
			free(line);
			return 1;
		}
		int v = run_case(c, &o);
		if (v == -2)
			printf("%s E\n", id);
		else
			printf("%s %d\n", id, v);
		json_decref(c);
	}
	free(line);
	return 0;
}
