/* rundir_batch.c — an agent batch of the job queue (POST /api/agent-runs) read as a run folder
 * (rundir.h, kn_rundir_from_batch), so its statistics and its comparison with another batch are
 * computed by the same code as a `keynode run` folder's: summary_stats.c and compare.c. Every
 * stored attempt's result.json is read by kn_run_row_from_json, as a folder's is (the store hands
 * over only the members it reads: kn_store_agent_batch_results_json); a finished batch's rows are
 * kept packed (run_rows.h), read back without JSON. */
#define _GNU_SOURCE /* asprintf */
#include "rundir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_rows.h"
#include "store.h"

static const char *str(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

/* d->rows and the environment from the store's "results" (d->summary), which then leaves the
 * summary: what stays is the head the rows are packed with. */
static int take_results(kn_rundir *d, kn_err *err)
{
	json_t *list = json_object_get(d->summary, "results"), *r, *batch_env = NULL;
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
		if (json_is_object(env) && (!batch_env ||
		    (json_is_null(json_object_get(batch_env, "chromium_version")) &&
		     json_is_string(json_object_get(env, "chromium_version")))))
			batch_env = env;
	}
	if (batch_env && json_object_set(d->summary, "environment", batch_env))
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	json_object_del(d->summary, "results");
	return 0;
}

/* The batch as the store's JSON computes it (d->summary, d->rows); *packed its packing when
 * packed is not NULL. */
static int from_json(kn_rundir *d, kn_store *st, int64_t batch, int64_t snapshot, char **packed, kn_err *err)
{
	char *text = NULL;
	int rc = kn_store_agent_batch_results_json(st, batch, snapshot, &text, err);
	if (rc)
		return rc;
	json_error_t je;
	d->summary = json_loads(text, 0, &je);
	free(text);
	if (!d->summary)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	if ((rc = take_results(d, err)) == 0 && packed)
		rc = kn_run_rows_pack(packed, d->summary, d->rows, d->n_rows, err);
	return rc;
}

/* The plan and the account from the head (d->summary). */
static int take_head(kn_rundir *d, kn_err *err)
{
	json_t *tasks = json_object_get(d->summary, "tasks"), *t;
	size_t i, n = json_array_size(tasks);
	d->repeat = (int)json_integer_value(json_object_get(d->summary, "repeat"));
	if (d->repeat < 1)
		d->repeat = 1;
	d->meta.agent_name = str(d->summary, "agent");
	d->meta.started = str(d->summary, "created");
	d->meta.environment = json_object_get(d->summary, "environment");
	if (!(d->tasks = calloc(n + 1, sizeof *d->tasks)))
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	d->hashes = 1;
	json_array_foreach(tasks, i, t)
		kn_rundir_add_task(d, t);
	d->meta.tasks = d->tasks;
	d->meta.n_tasks = d->n_tasks;
	return 0;
}

int kn_rundir_from_batch(kn_rundir **out, kn_store *st, int64_t batch, int64_t snapshot, kn_err *err)
{
	*out = NULL;
	kn_rundir *d = calloc(1, sizeof *d);
	if (!d || asprintf(&d->path, "agent batch %lld", (long long)batch) < 0) {
		free(d);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	/* a finished batch on its own snapshot: its rows packed once (store_batch_stats.c); a stored
	 * text that does not unpack (an older keynode's JSON) is computed again and replaced */
	char *text = NULL;
	int64_t claim = 0;
	int rc = snapshot > 0 ? 0 : kn_store_batch_cache_get(st, batch, KN_BATCH_CACHE_ROWS, &text, &claim, err);
	kn_err e = {0};
	if (!rc && (!text || kn_run_rows_unpack(text, &d->summary, &d->rows, &d->n_rows, KN_RUNDIR_MAX_ATTEMPTS, &e))) {
		free(text);
		text = NULL;
		if (!(rc = from_json(d, st, batch, snapshot, claim ? &text : NULL, err)) && text)
			rc = kn_store_batch_cache_put(st, batch, KN_BATCH_CACHE_ROWS, claim, text, err);
	}
	free(text);
	if (!rc)
		rc = take_head(d, err);
	if (rc) {
		kn_rundir_free(d);
		return rc;
	}
	*out = d;
	return 0;
}
