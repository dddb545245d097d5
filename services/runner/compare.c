/* compare.c — the paired comparison of two runs (compare.h): pair the plans, run the statistics of
 * stats.h on both sides over the same tasks in the same order, and say what makes the comparison
 * weaker. */
#include "compare.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

#define ALPHA 0.05

/* One folder of a comparison: its paired tasks and their statistics are the comparison's. */
typedef struct side {
	const kn_rundir *dir;
	kn_run_task *paired;     /* the paired tasks of this folder, same order in both */
	kn_stats st;
} side;

static void warn(json_t *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(json_t *w, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	json_array_append_new(w, json_string(buf));
}

/* Warnings for environments that differ, key by key. */
static void env_warnings(json_t *w, json_t *ea, json_t *eb)
{
	if (!ea && !eb)
		return;
	if (!ea || !eb) {
		warn(w, "environment recorded in %s only: the runs may differ in browser, region or version",
		     ea ? "A" : "B");
		return;
	}
	const char *k;
	json_t *va;
	json_object_foreach(ea, k, va) {
		json_t *vb = json_object_get(eb, k);
		if (json_equal(va, vb) || strcmp(k, "judge") == 0) /* the judge: judge_warning */
			continue;
		char *sa = json_dumps(va, JSON_COMPACT | JSON_ENCODE_ANY), *sb = vb ? json_dumps(vb, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
		warn(w, "environments differ: %s is %s in A, %s in B", k, sa ? sa : "?", sb ? sb : "absent");
		free(sa), free(sb);
	}
	json_object_foreach(eb, k, va)
		if (!json_object_get(ea, k))
			warn(w, "environments differ: %s is absent in A, set in B", k);
}

/* The comparison's "judge": both folders' fingerprints and the fields that differ ("unknown" when a
 * folder has none), with a warning when they were not judged alike or only one says how it was
 * judged (two folders that both predate fingerprints: "unknown", no warning — nothing tells them
 * apart). */
static void judge_warning(json_t *j, json_t *w, const kn_rundir *a, const kn_rundir *b)
{
	char diff[256];
	json_t *fa = kn_rundir_judge(a), *fb = kn_rundir_judge(b);
	int n = kn_rundir_judge_diff(diff, sizeof diff, a, b);
	if (n > 0)
		warn(w, "judged differently: %s differ%s (judge fingerprints): the rates compare the judges as "
		     "much as the agents", diff, n == 1 ? "s" : "");
	else if (n < 0 && (fa || fb))
		warn(w, "judge unknown in %s (results without a judge fingerprint): whether both were judged "
		     "alike cannot be told", !fa ? "A" : "B");
	json_object_set_new(j, "judge", json_pack("{s:o, s:o, s:o, s:s}", "a", fa ? fa : json_null(), "b",
	                                          fb ? fb : json_null(), "same", n < 0 ? json_null()
	                                          : json_boolean(n == 0), "differs", n < 0 ? "unknown" : diff));
}

static int cmp_run_task(const void *x, const void *y)
{
	return strcmp(((const kn_run_task *)x)->id, ((const kn_run_task *)y)->id);
}

static const kn_run_task *plan_find(const kn_rundir *d, const char *id)
{
	for (size_t i = 0; i < d->n_tasks; i++)
		if (strcmp(d->tasks[i].id, id) == 0)
			return &d->tasks[i];
	return NULL;
}

static json_t *id_list(const kn_rundir *a, const kn_rundir *b)
{
	json_t *l = json_array();
	for (size_t i = 0; i < a->n_tasks; i++) {
		int dup = 0;
		for (size_t k = 0; k < i && !dup; k++)
			dup = strcmp(a->tasks[k].id, a->tasks[i].id) == 0;
		if (!dup && !plan_find(b, a->tasks[i].id))
			json_array_append_new(l, json_string(a->tasks[i].id));
	}
	return l;
}

/* Pair the plans: paired tasks (into a->paired / b->paired, sorted), changed ones into changed. */
static int pair_tasks(side *a, side *b, json_t *changed, size_t *n_paired)
{
	size_t n = 0;
	a->paired = calloc(a->dir->n_tasks + 1, sizeof *a->paired);
	b->paired = calloc(a->dir->n_tasks + 1, sizeof *b->paired);
	if (!a->paired || !b->paired)
		return KN_ENOMEM;
	for (size_t i = 0; i < a->dir->n_tasks; i++) {
		const kn_run_task *ta = &a->dir->tasks[i], *tb = plan_find(b->dir, ta->id);
		int dup = 0;
		for (size_t k = 0; k < n && !dup; k++)
			dup = strcmp(a->paired[k].id, ta->id) == 0;
		if (!tb || dup)
			continue;
		if (ta->sha256[0] && tb->sha256[0] && strcmp(ta->sha256, tb->sha256) != 0) {
			json_array_append_new(changed, json_string(ta->id));
			continue;
		}
		a->paired[n] = *ta;
		b->paired[n++] = *tb;
	}
	qsort(a->paired, n, sizeof *a->paired, cmp_run_task);
	qsort(b->paired, n, sizeof *b->paired, cmp_run_task);
	*n_paired = n;
	return kn_stats_build(&a->st, a->dir->rows, a->dir->n_rows, a->paired, n, a->dir->repeat) ||
	       kn_stats_build(&b->st, b->dir->rows, b->dir->n_rows, b->paired, n, b->dir->repeat)
	       ? KN_ENOMEM : 0;
}

static json_t *side_json(const kn_rundir *d)
{
	return json_pack("{s:s, s:s?, s:s?, s:s?, s:i, s:I, s:s?}", "dir", d->path, "agent", d->meta.agent,
	                 "name", d->meta.agent_name, "model", d->meta.model, "repeat", d->repeat, "tasks",
	                 (json_int_t)d->n_tasks, "task_set_sha256", d->meta.tasks_sha256);
}

/* The whole comparison as JSON (what every output format is printed from). */
static json_t *compare(side *a, side *b, kn_err *err)
{
	json_t *warnings = json_array(), *changed = json_array();
	size_t np = 0;
	if (pair_tasks(a, b, changed, &np) != 0) {
		json_decref(warnings), json_decref(changed);
		kn_err_set(err, KN_ENOMEM, "out of memory");
		return NULL;
	}
	json_t *j = json_pack("{s:o, s:o, s:I, s:o, s:o, s:o}", "a", side_json(a->dir), "b", side_json(b->dir),
	                      "paired", (json_int_t)np, "only_a", id_list(a->dir, b->dir), "only_b",
	                      id_list(b->dir, a->dir), "changed", changed);
	double va[KN_RATE_N], vb[KN_RATE_N], lo[KN_RATE_N], hi[KN_RATE_N];
	int oa[KN_RATE_N], ob[KN_RATE_N], oc[KN_RATE_N];
	kn_stats_rates(va, oa, &a->st, NULL, 0, 0);
	kn_stats_rates(vb, ob, &b->st, NULL, 0, 0);
	if (!j || kn_stats_ci95(lo, hi, oc, &a->st, &b->st) != 0) {
		json_decref(j), json_decref(warnings);
		kn_err_set(err, KN_ENOMEM, "out of memory");
		return NULL;
	}
	json_t *rates = json_object(), *per = json_array();
	for (int r = 0; r < KN_RATE_N; r++)
		if (oa[r] && ob[r])
			json_object_set_new(rates, kn_stats_rate_names[r],
			                    json_pack("{s:f, s:f, s:f, s:[f, f]}", "a", va[r], "b", vb[r], "diff",
			                              vb[r] - va[r], "ci95", oc[r] ? lo[r] : 0.0, oc[r] ? hi[r] : 0.0));
	size_t won = 0, lost = 0, tied = 0, none = 0;
	for (size_t i = 0; i < np; i++) {
		const kn_stats_task *ta = &a->st.tasks[i], *tb = &b->st.tasks[i];
		const char *outcome = "tied";
		double pa = ta->n ? (double)ta->successes / (double)ta->n : 0,
		       pb = tb->n ? (double)tb->successes / (double)tb->n : 0;
		if (!ta->n || !tb->n)
			outcome = "not comparable", none++;
		else if (pb > pa)
			outcome = "won", won++;
		else if (pb < pa)
			outcome = "lost", lost++;
		else
			tied++;
		json_array_append_new(per, json_pack("{s:s, s:s, s:{s:I, s:I, s:f}, s:{s:I, s:I, s:f}, s:s}",
		                                     "task", ta->id, "site", ta->site, "a", "attempts",
		                                     (json_int_t)ta->n, "successes", (json_int_t)ta->successes,
		                                     "success_rate", pa, "b", "attempts", (json_int_t)tb->n,
		                                     "successes", (json_int_t)tb->successes, "success_rate", pb,
		                                     "outcome", outcome));
	}
	double p = kn_stats_sign_test(won, lost);
	int sig = p < ALPHA;
	char verdict[256];
	if (sig)
		snprintf(verdict, sizeof verdict, "B is %s than A on per-task success (exact sign test p = %.4g "
		         "< %.2f; won %zu, lost %zu)", won > lost ? "better" : "worse", p, ALPHA, won, lost);
	else
		snprintf(verdict, sizeof verdict, "no significant difference (exact sign test p = %.4g >= %.2f; "
		         "won %zu, lost %zu)", p, ALPHA, won, lost);
	/* warnings: what makes the comparison weaker */
	if (!a->dir->summary || !b->dir->summary)
		warn(warnings, "no summary.json in %s: tasks matched by id only, environment unknown",
		     !a->dir->summary ? a->dir->path : b->dir->path);
	else if (!a->dir->hashes || !b->dir->hashes)
		warn(warnings, "task content hashes missing in %s (summary.json written by an older keynode): "
		     "tasks matched by id only", !a->dir->hashes ? "A" : "B");
	if (json_array_size(json_object_get(j, "only_a")) || json_array_size(json_object_get(j, "only_b")) ||
	    json_array_size(changed))
		warn(warnings, "task sets differ: the tasks only one folder ran, or whose content changed, are "
		     "listed and left out");
	else if (a->dir->meta.tasks_sha256 && b->dir->meta.tasks_sha256 &&
	         strcmp(a->dir->meta.tasks_sha256, b->dir->meta.tasks_sha256) != 0)
		warn(warnings, "task files differ (SHA-256): the compared tasks are the same, the files' bytes "
		     "are not");
	if (a->dir->repeat != b->dir->repeat)
		warn(warnings, "repeats differ: %d attempts per task in A, %d in B", a->dir->repeat,
		     b->dir->repeat);
	if (none)
		warn(warnings, "%zu paired tasks have no executable attempt in A or B (errors, blocked): left "
		     "out of the sign test", none);
	if (np == 0)
		warn(warnings, "no task in common: nothing to compare");
	env_warnings(warnings, a->dir->meta.environment, b->dir->meta.environment);
	judge_warning(j, warnings, a->dir, b->dir);
	json_object_set_new(j, "rates", rates);
	json_object_set_new(j, "sign_test", json_pack("{s:I, s:I, s:I, s:I, s:f}", "won", (json_int_t)won,
	                                              "lost", (json_int_t)lost, "tied", (json_int_t)tied,
	                                              "not_comparable", (json_int_t)none, "p_value", p));
	json_object_set_new(j, "significant", json_boolean(sig));
	json_object_set_new(j, "verdict", json_string(verdict));
	json_object_set_new(j, "per_task", per);
	json_object_set_new(j, "bootstrap", json_pack("{s:i, s:I, s:s, s:s}", "resamples", KN_STATS_RESAMPLES,
	                                              "seed", (json_int_t)KN_STATS_SEED, "unit", "task (paired)",
	                                              "interval", "percentile, nearest rank"));
	json_object_set_new(j, "warnings", warnings);
	return j;
}

json_t *kn_run_compare(const kn_rundir *a, const kn_rundir *b, kn_err *err)
{
	side sa = {.dir = a}, sb = {.dir = b};
	json_t *j = compare(&sa, &sb, err);
	kn_stats_clear(&sa.st), kn_stats_clear(&sb.st);
	free(sa.paired), free(sb.paired);
	return j;
}
