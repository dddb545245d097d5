/* summary_stats.c — the uncertainty keys of summary.json (summary.h, kn_run_summary_stats): the
 * numbers come from stats.c, this file only lays them out. Keys are added, never renamed
 * (docs/formats.md "keynode run's output folder", schemas/run-summary.schema.json). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "summary.h"

/* {rate: value} for the defined rates below `upto`. */
static json_t *rates_json(const double v[KN_RATE_N], const int ok[KN_RATE_N], int upto)
{
	json_t *o = json_object();
	for (int r = 0; o && r < upto; r++)
		if (ok[r])
			json_object_set_new(o, kn_stats_rate_names[r], json_real(v[r]));
	return o;
}

static json_t *pair(double lo, double hi)
{
	return json_pack("[f, f]", lo, hi);
}

static json_t *per_repeat(const kn_stats *st, json_t *std)
{
	json_t *arr = json_array();
	int R = st->repeat > 0 ? st->repeat : 0;
	double *col = calloc((size_t)KN_RATE_N * (size_t)R + 1, sizeof *col);
	size_t m[KN_RATE_N] = {0};
	for (int k = 1; arr && col && k <= R; k++) {
		double v[KN_RATE_N];
		int ok[KN_RATE_N];
		kn_stats_rates(v, ok, st, NULL, 0, k);
		size_t att = 0;
		for (size_t i = 0; i < st->n_tasks; i++)
			for (size_t a = 0; a < st->tasks[i].n; a++)
				att += st->tasks[i].rows[a]->attempt == k;
		json_t *o = rates_json(v, ok, KN_RATE_N);
		json_object_set_new(o, "repeat", json_integer(k));
		json_object_set_new(o, "attempts", json_integer((json_int_t)att));
		json_array_append_new(arr, o);
		for (int r = 0; r < KN_RATE_N; r++)
			if (ok[r])
				col[(size_t)r * (size_t)R + m[r]++] = v[r];
	}
	for (int r = 0; col && r < KN_RATE_N; r++)
		if (m[r] >= 2)
			json_object_set_new(std, kn_stats_rate_names[r],
			                    json_real(kn_stats_std(col + (size_t)r * (size_t)R, m[r])));
	free(col);
	return arr;
}

static json_t *per_site(const kn_stats *st)
{
	json_t *o = json_object();
	size_t *pick = calloc(st->n_tasks + 1, sizeof *pick);
	for (size_t i = 0; o && pick && i < st->n_tasks; i++) {
		const char *site = st->tasks[i].site;
		if (json_object_get(o, site))
			continue;
		size_t np = 0, att = 0, succ = 0, err = 0, unr = 0, blk = 0, unj = 0;
		for (size_t k = i; k < st->n_tasks; k++) {
			const kn_stats_task *t = &st->tasks[k];
			if (strcmp(t->site, site) != 0)
				continue;
			pick[np++] = k;
			att += t->n, succ += t->successes, err += t->errors, unr += t->unreachable,
				blk += t->blocked, unj += t->unjudged;
		}
		double v[KN_RATE_N];
		int ok[KN_RATE_N];
		kn_stats_rates(v, ok, st, pick, np, 0);
		json_t *s = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "tasks", (json_int_t)np, "attempts",
		                      (json_int_t)att, "successes", (json_int_t)succ, "errors", (json_int_t)err,
		                      "unreachable", (json_int_t)unr, "blocked", (json_int_t)blk, "unjudged",
		                      (json_int_t)unj);
		json_t *rs = rates_json(v, ok, KN_RATE_N);
		json_object_update(s, rs);
		json_decref(rs);
		json_object_set_new(o, site, s);
	}
	free(pick);
	return o;
}

static json_t *denominators(const kn_stats *st, const double v[KN_RATE_N], const int ok[KN_RATE_N],
                            const double lo[KN_RATE_N], const double hi[KN_RATE_N],
                            const int cok[KN_RATE_N])
{
	size_t planned = 0, exe = 0, succ = 0, err = 0, unr = 0, blk = 0, unj = 0;
	for (size_t i = 0; i < st->n_tasks; i++) {
		const kn_stats_task *t = &st->tasks[i];
		planned += t->planned, exe += t->n, succ += t->successes, err += t->errors,
			unr += t->unreachable, blk += t->blocked, unj += t->unjudged;
	}
	size_t left = exe + err + unr + blk + unj, missing = planned > left ? planned - left : 0;
	json_t *p = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:f}", "attempts", (json_int_t)planned,
	                      "successes", (json_int_t)succ, "errors", (json_int_t)err, "unreachable",
	                      (json_int_t)unr, "blocked", (json_int_t)blk, "missing", (json_int_t)missing,
	                      "task_success_rate", ok[KN_RATE_TSR_PLANNED] ? v[KN_RATE_TSR_PLANNED] : 0.0);
	if (p)
		json_object_set_new(p, "unjudged", json_integer((json_int_t)unj));
	if (p && cok[KN_RATE_TSR_PLANNED])
		json_object_set_new(p, "ci95", pair(lo[KN_RATE_TSR_PLANNED], hi[KN_RATE_TSR_PLANNED]));
	json_t *e = json_pack("{s:I, s:I, s:f}", "attempts", (json_int_t)exe, "successes",
	                      (json_int_t)succ, "task_success_rate", ok[KN_RATE_TSR] ? v[KN_RATE_TSR] : 0.0);
	if (e && cok[KN_RATE_TSR])
		json_object_set_new(e, "ci95", pair(lo[KN_RATE_TSR], hi[KN_RATE_TSR]));
	return json_pack("{s:o, s:o}", "executable", e, "planned", p);
}

int kn_run_summary_stats(json_t *j, const kn_run_row *rows, size_t n, int repeat,
                         const kn_run_meta *meta)
{
	kn_stats st;
	if (kn_stats_build(&st, rows, n, meta ? meta->tasks : NULL, meta ? meta->n_tasks : 0, repeat))
		return KN_ENOMEM;
	double v[KN_RATE_N], lo[KN_RATE_N], hi[KN_RATE_N];
	int ok[KN_RATE_N], cok[KN_RATE_N];
	kn_stats_rates(v, ok, &st, NULL, 0, 0);
	if (kn_stats_ci95(lo, hi, cok, &st, NULL) != 0) {
		kn_stats_clear(&st);
		return KN_ENOMEM;
	}
	json_t *ci = json_object(), *std = json_object(), *pk = json_object(), *pa = json_object(),
	       *pn = json_object();
	for (int r = 0; ci && r < KN_RATE_TSR_PLANNED; r++)
		if (cok[r])
			json_object_set_new(ci, kn_stats_rate_names[r], pair(lo[r], hi[r]));
	for (int k = 1; pk && pa && pn && k <= repeat; k++) {
		char key[16];
		size_t nt = 0;
		snprintf(key, sizeof key, "%d", k);
		double at = kn_stats_pass_k(&st, k, 0, &nt), all = kn_stats_pass_k(&st, k, 1, &nt);
		json_object_set_new(pk, key, nt ? json_real(at) : json_null());
		json_object_set_new(pa, key, nt ? json_real(all) : json_null());
		json_object_set_new(pn, key, json_integer((json_int_t)nt));
	}
	int bad = json_object_set_new(j, "ci95", ci) |
	          json_object_set_new(j, "bootstrap",
	                              json_pack("{s:i, s:I, s:s, s:s, s:I}", "resamples", KN_STATS_RESAMPLES,
	                                        "seed", (json_int_t)KN_STATS_SEED, "unit", "task",
	                                        "interval", "percentile, nearest rank", "tasks",
	                                        (json_int_t)st.n_tasks)) |
	          json_object_set_new(j, "per_repeat", per_repeat(&st, std)) |
	          json_object_set_new(j, "std_over_repeats", std) |
	          json_object_set_new(j, "pass_at_k", pk) | json_object_set_new(j, "pass_all_k", pa) |
	          json_object_set_new(j, "pass_k_tasks", pn) |
	          json_object_set_new(j, "per_site", per_site(&st)) |
	          json_object_set_new(j, "denominators", denominators(&st, v, ok, lo, hi, cok));
	kn_stats_clear(&st);
	return bad ? KN_ENOMEM : 0;
}
