/* batch_page.c — the GET /api/agent-runs/{id} answer of an agent batch (rundir.h kn_batch_page): the
 * store's batch JSON (progress, metrics, per-task results) with "stats", the uncertainty of its
 * results computed by `keynode run`'s own code (the batch read as a run folder, kn_rundir_from_batch;
 * kn_stats_*, kn_run_summary_stats). A finished batch on its own snapshot is computed once and
 * kept (services/store/store_batch_stats.c): by the worker that stores its last attempt
 * (kn_batch_page_warm), else by the first serve that shows it. */
#include "rundir.h"

#include <stdlib.h>

#include "stats.h"
#include "store.h"

/* The uncertainty of a batch's results (summary.json's keys: ci95, bootstrap, per_repeat,
 * std_over_repeats, pass_at_k, pass_all_k, pass_k_tasks, per_site, denominators) and "rates", the
 * point values the intervals are around (the defined ones: summary.json's metrics). */
static int batch_stats(kn_store *st, int64_t id, int64_t snapshot, json_t **out, kn_err *err)
{
	kn_rundir *d = NULL;
	int rc = kn_rundir_from_batch(&d, st, id, snapshot, err);
	if (rc)
		return rc;
	kn_stats sts;
	double v[KN_RATE_N];
	int ok[KN_RATE_N], bad = kn_stats_build(&sts, d->rows, d->n_rows, d->tasks, d->n_tasks, d->repeat);
	json_t *rates = json_object();
	if (!bad) {
		kn_stats_rates(v, ok, &sts, NULL, 0, 0);
		for (int r = 0; rates && r < KN_RATE_N; r++)
			if (ok[r])
				json_object_set_new(rates, kn_stats_rate_names[r], json_real(v[r]));
		kn_stats_clear(&sts);
	}
	*out = json_object();
	if (bad || !rates || !*out || json_object_set_new(*out, "rates", json_incref(rates)) ||
	    json_object_set_new(*out, "judged", kn_stats_judged_json(d->rows, d->n_rows)) ||
	    kn_run_summary_stats(*out, d->rows, d->n_rows, d->repeat, &d->meta) != 0) {
		json_decref(*out);
		*out = NULL;
		rc = kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	json_decref(rates);
	kn_rundir_free(d);
	return rc;
}

/* The answer computed: the batch JSON with "stats" (*out JSON_COMPACT text). */
static int compute(kn_store *st, int64_t batch, int64_t view, char **out, kn_err *err)
{
	char *text = NULL;
	json_t *stats = NULL;
	int rc = kn_store_agent_batch_json(st, batch, view, &text, err);
	if (!rc)
		rc = batch_stats(st, batch, view, &stats, err);
	json_t *j = rc ? NULL : json_loads(text, 0, NULL);
	free(text);
	if (j && !json_object_set_new(j, "stats", stats))
		*out = json_dumps(j, JSON_COMPACT);
	else
		json_decref(stats);
	json_decref(j);
	return rc ? rc : *out ? 0 : kn_err_set(err, KN_ENOMEM, "out of memory");
}

/* warm: only a finished batch not stored yet is computed (and stored); *out stays NULL. */
static int page(kn_store *st, int64_t batch, int64_t view, int warm, char **out, kn_err *err)
{
	*out = NULL;
	int64_t claim = 0;
	int rc = view > 0 ? 0 : kn_store_batch_cache_get(st, batch, KN_BATCH_CACHE_PAGE, out, &claim, err);
	if (!rc && !*out && (claim || !warm) && !(rc = compute(st, batch, view, out, err)))
		rc = kn_store_batch_cache_put(st, batch, KN_BATCH_CACHE_PAGE, claim, *out, err);
	if (rc || warm) {
		free(*out);
		*out = NULL;
	}
	return rc;
}

int kn_batch_page(kn_store *st, int64_t batch, int64_t view, char **out, kn_err *err)
{
	return page(st, batch, view, 0, out, err);
}

int kn_batch_page_warm(kn_store *st, int64_t batch, kn_err *err)
{
	char *out = NULL, *rows = NULL;
	int64_t claim = 0; /* 0: the batch is not finished (what most calls, one per stored attempt, find) */
	kn_rundir *d = NULL;
	int rc = kn_store_batch_cache_get(st, batch, KN_BATCH_CACHE_ROWS, &rows, &claim, err);
	/* the packed attempts first (a page stored before they were kept has none), so a comparison's
	 * first read is fast too, and the page is then computed from them */
	if (!rc && claim > 0 && !rows)
		rc = kn_rundir_from_batch(&d, st, batch, 0, err);
	if (!rc && claim > 0)
		rc = page(st, batch, 0, 1, &out, err);
	kn_rundir_free(d);
	free(rows);
	return rc;
}
