/* run_plan.c — what `keynode run` settles before any attempt starts (run_batch.h): the --out
 * folder (new, empty, or with --resume an earlier run), that an earlier run's attempts ran in the
 * same environment, and the plan of K attempts per task with the ones already done kept. */
#define _GNU_SOURCE /* asprintf */
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "provenance.h"
#include "run_batch.h"

int kn_run_dir_prepare(const char *dir, int resume, char *why, size_t cap)
{
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *e;
		int empty = 1;
		while ((e = readdir(d)) != NULL)
			if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
				empty = 0;
		closedir(d);
		if (!empty && !resume) {
			snprintf(why, cap, "%s is not empty: give --resume to continue that run, or another --out", dir);
			return KN_EINVAL;
		}
		return 0;
	}
	if (kn_runner_mkdirs(dir) != 0) {
		snprintf(why, cap, "cannot create %s: %s", dir, strerror(errno));
		return KN_EIO;
	}
	return 0;
}

int kn_run_environment_check(const char *dir, json_t *now, int mix, char *why, size_t cap)
{
	char path[4200], diff[2048];
	snprintf(path, sizeof path, "%s/summary.json", dir);
	json_t *s = json_load_file(path, 0, NULL);
	int n = kn_run_environment_diff(diff, sizeof diff, json_object_get(s, "environment"), now);
	json_decref(s);
	glob_t g = {0};
	snprintf(path, sizeof path, "%s/*/*/result.json", dir);
	if (!n && glob(path, 0, NULL, &g) == 0)
		for (size_t i = 0; !n && i < g.gl_pathc; i++) {
			json_t *r = json_load_file(g.gl_pathv[i], 0, NULL);
			n = kn_run_environment_diff(diff, sizeof diff, json_object_get(r, "environment"), now);
			json_decref(r);
		}
	globfree(&g);
	if (n && !mix) {
		snprintf(why, cap, "--resume: the attempts in %s ran in another environment (%s); "
		         "give --mix-environments to resume all the same, or another --out", dir, diff);
		return KN_EINVAL;
	}
	if (n)
		json_object_set_new(now, "mixed_with_earlier", json_string(diff));
	return 0;
}

/* With resume: attempt it is kept when its result.json says done. */
static void mark_kept(const kn_run_batch *b, kn_run_item *it)
{
	char name[256], *dir = NULL, path[4200];
	kn_runner_folder_name(name, sizeof name, it->task->id);
	if (asprintf(&dir, "%s/%s/%d", b->dir, name, it->k) < 0)
		return;
	snprintf(path, sizeof path, "%s/result.json", dir);
	if (kn_run_row_load(&it->row, path, NULL) == 0 && strcmp(it->row.status, "done") == 0) {
		it->row.attempt = it->k;
		it->skip = it->has_row = 1;
	}
	free(dir);
}

int kn_run_plan(kn_run_batch *b, const kn_taskset *set, const char **ids, size_t n_ids, int resume,
                const char *tasks_file, char *why, size_t cap)
{
	size_t nt = n_ids ? n_ids : set->n_tasks, repeat = (size_t)b->repeat;
	b->items = calloc(nt * repeat + 1, sizeof *b->items);
	if (!b->items)
		return KN_ENOMEM;
	for (size_t i = 0; i < nt; i++) {
		const kn_task *t = n_ids ? kn_taskset_find(set, ids[i]) : &set->tasks[i];
		if (!t) {
			snprintf(why, cap, "task '%s' is not in %s", ids[i], tasks_file);
			return KN_EINVAL;
		}
		/* one folder per task: a task given twice runs once, two ids that make the same folder
		 * name are refused */
		char name[256], other[256];
		kn_runner_folder_name(name, sizeof name, t->id);
		int dup = 0;
		for (size_t j = 0; j < b->n_items && !dup; j += repeat) {
			kn_runner_folder_name(other, sizeof other, b->items[j].task->id);
			if (strcmp(name, other) != 0)
				continue;
			if (b->items[j].task != t) {
				snprintf(why, cap, "tasks '%s' and '%s' would share the folder %s", b->items[j].task->id,
				         t->id, name);
				return KN_EINVAL;
			}
			dup = 1;
		}
		if (dup)
			continue;
		for (int k = 1; k <= b->repeat; k++) {
			kn_run_item *it = &b->items[b->n_items++];
			it->task = t;
			it->k = k;
			if (resume)
				mark_kept(b, it);
		}
	}
	for (size_t i = 0; i < b->n_items; i++)
		b->pre_done += b->items[i].skip;
	return 0;
}

void kn_run_batch_clear(kn_run_batch *b)
{
	free(b->items);
	b->items = NULL;
	b->n_items = b->pre_done = 0;
}
