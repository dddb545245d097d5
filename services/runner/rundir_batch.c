/* rundir_batch.c — an agent batch of the job queue (POST /api/agent-runs) read as a run folder
 * (rundir.h, kn_rundir_from_batch), so its statistics and its comparison with another batch are
 * computed by the same code as a `keynode run` folder's: summary_stats.c and compare.c. Every
 * stored attempt's result.json is read by kn_run_row_from_json, as a folder's is (the store hands
 * over only the members it reads: kn_store_agent_batch_results_json). */
#define _GNU_SOURCE /* asprintf */
#include "rundir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"

static const char *str(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

/* d->rows and the environment from the batch's "results" (d->summary). */
static int take_results(kn_rundir *d, kn_err *err)
{
	json_t *list = json_object_get(d->summary, "results"), *r;
	size_t i, n = json_array_size(list);
	if (n > KN_RUNDIR_MAX_ATTEMPTS)
		return kn_err_set(err, KN_ELIMIT, "%s: over %d attempts", d->path, KN_RUNDIR_MAX_ATTEMPTS);
	if (!(d->rows = calloc(n + 1, sizeof *d->rows)))
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	json_array_foreach(list, i, r) {
		json_t *res = json_object_get(r, "result");
		json_int_t k = json_integer_value(json_object_get(r, "attempt"));
		kn_err e = {0};
		int rc = kn_run_row_from_json(&d->rows[d->n_rows], res, &e);
		if (rc || k < 1 || k > 1000000 || !str(r, "task"))
			continue; /* a result no worker could have stored: not an attempt */
		kn_run_row *row = &d->rows[d->n_rows++];
		snprintf(row->task, sizeof row->task, "%s", str(r, "task")); /* TASKSET:TASK, as the plan */
		row->attempt = (int)k;
		/* the batch's environment: the first attempt's whose browser answered (/json/version
		 * within its 2 s), else the first one's */
		json_t *env = json_object_get(res, "environment");
		if (json_is_object(env) && (!d->meta.environment ||
		    (json_is_null(json_object_get(d->meta.environment, "chromium_version")) &&
		     json_is_string(json_object_get(env, "chromium_version")))))
			d->meta.environment = env;
	}
	return 0;
}

int kn_rundir_from_batch(kn_rundir **out, kn_store *st, int64_t batch, int64_t snapshot, kn_err *err)
{
	*out = NULL;
	char *text = NULL;
	int rc = kn_store_agent_batch_results_json(st, batch, snapshot, &text, err);
	if (rc)
		return rc;
	kn_rundir *d = calloc(1, sizeof *d);
	json_error_t je;
	if (d)
		d->summary = json_loads(text, 0, &je);
	free(text);
	if (!d || !d->summary || asprintf(&d->path, "agent batch %lld", (long long)batch) < 0) {
		if (d)
			d->path = NULL;
		kn_rundir_free(d);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	json_t *tasks = json_object_get(d->summary, "tasks"), *t;
	size_t i, n = json_array_size(tasks);
	d->repeat = (int)json_integer_value(json_object_get(d->summary, "repeat"));
	if (d->repeat < 1)
		d->repeat = 1;
	d->meta.agent_name = str(d->summary, "agent");
	d->meta.started = str(d->summary, "created");
	if ((rc = take_results(d, err)) || !(d->tasks = calloc(n + 1, sizeof *d->tasks))) {
		kn_rundir_free(d);
		return rc ? rc : kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	d->hashes = 1;
	json_array_foreach(tasks, i, t)
		kn_rundir_add_task(d, t);
	d->meta.tasks = d->tasks;
	d->meta.n_tasks = d->n_tasks;
	*out = d;
	return 0;
}
