/* rundir.c — read a `keynode run` folder back (rundir.h). The attempts are the folders
 * <task>/<k> with k a positive number; their result.json is parsed by the same reader --resume and
 * the summary use (kn_run_row_load), so a folder anyone edited is refused with the file's name. */
#define _GNU_SOURCE /* asprintf */
#include "rundir.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "keynode/grow.h"

static int attempt_number(const char *name)
{
	long k = 0;
	for (const char *p = name; *p; p++) {
		if (*p < '0' || *p > '9' || k > 1000000)
			return 0;
		k = k * 10 + (*p - '0');
	}
	return *name && k > 0 && k <= 1000000 ? (int)k : 0;
}

static int is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The attempts of one task folder. */
static int read_task(kn_rundir *d, const char *task_dir, size_t *cap, kn_err *err)
{
	DIR *td = opendir(task_dir);
	if (!td)
		return 0; /* a file, or unreadable: not a task folder */
	struct dirent *e;
	int rc = 0;
	while (!rc && (e = readdir(td)) != NULL) {
		int k = attempt_number(e->d_name);
		if (!k)
			continue;
		char *path = NULL;
		if (asprintf(&path, "%s/%s/result.json", task_dir, e->d_name) < 0) {
			rc = kn_err_set(err, KN_ENOMEM, "out of memory");
			break;
		}
		if (d->n_rows == KN_RUNDIR_MAX_ATTEMPTS || kn_grow(&d->rows, d->n_rows, cap, sizeof *d->rows, 64)) {
			rc = d->n_rows == KN_RUNDIR_MAX_ATTEMPTS
			     ? kn_err_set(err, KN_ELIMIT, "%s: over %d attempts", d->path, KN_RUNDIR_MAX_ATTEMPTS)
			     : kn_err_set(err, KN_ENOMEM, "out of memory");
			free(path);
			break;
		}
		int lr = kn_run_row_load(&d->rows[d->n_rows], path, err);
		if (lr == 0) {
			d->rows[d->n_rows].attempt = k;
			if (k > d->repeat)
				d->repeat = k;
			d->n_rows++;
		} else if (lr != KN_ENOTFOUND) { /* no result.json: the attempt never finished */
			rc = lr;
		}
		free(path);
	}
	closedir(td);
	return rc;
}

static int read_summary(kn_rundir *d, kn_err *err)
{
	char *path = NULL;
	if (asprintf(&path, "%s/summary.json", d->path) < 0)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	json_error_t je;
	d->summary = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
	int rc = 0;
	if (!d->summary) {
		if (access(path, F_OK) == 0)
			rc = kn_err_set(err, KN_EINVAL, "%s:%d:%d: %s", path, je.line, je.column, je.text);
	} else if (!json_is_object(d->summary) || !json_is_object(json_object_get(d->summary, "attempts"))) {
		rc = kn_err_set(err, KN_EINVAL, "%s: not a keynode run summary (no \"attempts\" object)", path);
	}
	free(path);
	return rc;
}

static const char *str(const json_t *o, const char *k);

void kn_rundir_add_task(kn_rundir *d, const json_t *t)
{
	const char *id = str(t, "task"), *h = str(t, "sha256"), *site = str(t, "site");
	if (!id)
		return;
	kn_run_task *p = &d->tasks[d->n_tasks++];
	p->id = id;
	snprintf(p->site, sizeof p->site, "%s", site ? site : "");
	snprintf(p->sha256, sizeof p->sha256, "%s", h && strlen(h) == 64 ? h : "");
	d->hashes &= p->sha256[0] != '\0';
}

static const char *str(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

/* The plan and the account of the run from summary.json (when it has them). */
static int take_meta(kn_rundir *d)
{
	json_t *s = d->summary, *ts = json_object_get(s, "task_set"), *ag = json_object_get(s, "agent");
	json_t *rep = json_object_get(json_object_get(s, "reliability"), "repeat");
	if (json_is_integer(rep) && json_integer_value(rep) > d->repeat && json_integer_value(rep) <= 1000000)
		d->repeat = (int)json_integer_value(rep);
	d->meta.agent = str(ag, "command");
	d->meta.agent_name = str(ag, "name");
	d->meta.model = str(ag, "model");
	d->meta.tasks_file = str(ts, "file");
	d->meta.tasks_sha256 = str(ts, "sha256");
	d->meta.started = str(s, "started");
	d->meta.finished = str(s, "finished");
	d->meta.environment = json_object_get(s, "environment");
	json_t *list = json_object_get(ts, "tasks"), *t;
	size_t n = json_array_size(list), i;
	d->tasks = calloc((n ? n : d->n_rows) + 1, sizeof *d->tasks);
	if (!d->tasks)
		return KN_ENOMEM;
	d->hashes = n > 0;
	json_array_foreach(list, i, t)
		kn_rundir_add_task(d, t);
	if (d->n_tasks == 0) /* an older summary, or none: the tasks the attempts name */
		for (size_t k = 0; k < d->n_rows; k++)
			d->tasks[d->n_tasks++] = (kn_run_task){.id = d->rows[k].task};
	d->meta.tasks = d->tasks;
	d->meta.n_tasks = d->n_tasks;
	if (d->repeat < 1)
		d->repeat = 1;
	return 0;
}

int kn_rundir_load(kn_rundir **out, const char *dir, kn_err *err)
{
	*out = NULL;
	if (!is_dir(dir))
		return kn_err_set(err, errno == ENOENT || access(dir, F_OK) != 0 ? KN_ENOTFOUND : KN_EINVAL,
		                  "%s: %s", dir, access(dir, F_OK) != 0 ? "no such folder" : "not a folder");
	kn_rundir *d = calloc(1, sizeof *d);
	if (!d || !(d->path = strdup(dir))) {
		free(d);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	DIR *top = opendir(dir);
	if (!top) {
		kn_err_set(err, KN_EIO, "%s: %s", dir, strerror(errno));
		kn_rundir_free(d);
		return KN_EIO;
	}
	size_t cap = 0;
	int rc = 0;
	struct dirent *e;
	while (!rc && (e = readdir(top)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		char *sub = NULL;
		if (asprintf(&sub, "%s/%s", dir, e->d_name) < 0) {
			rc = kn_err_set(err, KN_ENOMEM, "out of memory");
			break;
		}
		if (is_dir(sub))
			rc = read_task(d, sub, &cap, err);
		free(sub);
	}
	closedir(top);
	if (!rc)
		rc = read_summary(d, err);
	if (!rc && !d->summary && d->n_rows == 0)
		rc = kn_err_set(err, KN_EINVAL, "%s: not a keynode run folder (no summary.json, no "
		                "<task>/<k>/result.json)", dir);
	if (!rc && take_meta(d) != 0)
		rc = kn_err_set(err, KN_ENOMEM, "out of memory");
	if (rc) {
		kn_rundir_free(d);
		return rc;
	}
	*out = d;
	return 0;
}

void kn_rundir_free(kn_rundir *d)
{
	if (!d)
		return;
	free(d->path);
	free(d->rows);
	free(d->tasks);
	json_decref(d->summary);
	free(d);
}
