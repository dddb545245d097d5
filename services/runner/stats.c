/* stats.c — intervals, pass@k and the paired comparison of run results (stats.h). Rows are grouped
 * by task once; every replicate then sums the WebCanvas numbers of the drawn tasks' attempts. */
#include "stats.h"

#include "keynode/resample.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const kn_stats_rate_names[KN_RATE_N] = {
	"key_node_completion_rate", "average_step_score_rate", "task_success_rate",
	"task_near_success_rate", "functional_success_rate", "reward_success_rate",
	"task_success_rate_planned"};

void kn_stats_summary_add(kn_summary *s, const kn_run_row *r)
{
	s->tasks++;
	s->sum_reached += r->reached;
	s->sum_total += r->total;
	s->sum_score += r->score;
	s->sum_eff += r->efficiency;
	s->n_success += (size_t)r->completed;
	s->n_near += r->missing == 1;
	if (r->judged > 0) {
		s->n_judged_nodes += (size_t)r->judged;
		s->n_judged_success += (size_t)r->completed;
	}
	s->n_judged_unknown += r->judged < 0;
	if (r->functional >= 0) {
		s->n_functional_tasks++;
		s->n_functional_ok += (size_t)r->functional;
	}
	if (r->reward >= 0) {
		s->n_reward_tasks++;
		s->sum_reward += r->reward;
		s->n_reward_full += r->reward >= 1.0;
	}
}

static int cmp_task(const void *a, const void *b)
{
	return strcmp(((const kn_stats_task *)a)->id, ((const kn_stats_task *)b)->id);
}

static kn_stats_task *find(const kn_stats *s, const char *id)
{
	kn_stats_task key = {.id = id};
	return bsearch(&key, s->tasks, s->n_tasks, sizeof key, cmp_task);
}

int kn_stats_build(kn_stats *out, const kn_run_row *rows, size_t n, const kn_run_task *plan,
                   size_t n_plan, int repeat)
{
	memset(out, 0, sizeof *out);
	out->repeat = repeat;
	size_t cap = plan ? n_plan : n;
	out->tasks = calloc(cap + 1, sizeof *out->tasks);
	out->slots = calloc(n + 1, sizeof *out->slots);
	if (!out->tasks || !out->slots) {
		kn_stats_clear(out);
		return KN_ENOMEM;
	}
	for (size_t i = 0; i < cap; i++) { /* the plan, then sorted and without duplicates */
		const char *id = plan ? plan[i].id : rows[i].task;
		out->tasks[out->n_tasks++] = (kn_stats_task){
			.id = id, .site = plan && plan[i].site[0] ? plan[i].site : "-",
			.sha256 = plan && plan[i].sha256[0] ? plan[i].sha256 : NULL, .planned = repeat > 0 ? (size_t)repeat : 0};
	}
	qsort(out->tasks, out->n_tasks, sizeof *out->tasks, cmp_task);
	size_t u = 0;
	for (size_t i = 0; i < out->n_tasks; i++)
		if (u == 0 || strcmp(out->tasks[u - 1].id, out->tasks[i].id) != 0)
			out->tasks[u++] = out->tasks[i];
	out->n_tasks = u;
	for (size_t i = 0; i < n; i++) { /* executable attempts per task: count, then place */
		kn_stats_task *t = find(out, rows[i].task);
		if (t && strcmp(rows[i].status, "done") == 0)
			t->n++;
	}
	size_t at = 0;
	for (size_t i = 0; i < out->n_tasks; i++) {
		out->tasks[i].rows = out->slots + at;
		at += out->tasks[i].n;
		out->tasks[i].n = 0;
	}
	for (size_t i = 0; i < n; i++) {
		const kn_run_row *r = &rows[i];
		kn_stats_task *t = find(out, r->task);
		if (!t)
			continue;
		if (strcmp(r->status, "done") == 0) {
			t->rows[t->n++] = r;
			t->successes += (size_t)r->completed;
			kn_stats_summary_add(&t->sum, r);
		} else if (strcmp(r->status, "blocked") == 0) {
			t->blocked++;
		} else if (strcmp(r->status, "unjudged") == 0) {
			t->unjudged++;
		} else if (strcmp(r->status, "error") == 0) {
			if (strncmp(r->reason, "unreachable", 11) == 0)
				t->unreachable++;
			else
				t->errors++;
		}
	}
	return 0;
}

void kn_stats_clear(kn_stats *s)
{
	free(s->tasks);
	free(s->slots);
	memset(s, 0, sizeof *s);
}

/* into += from (the sums only) */
static void summary_merge(kn_summary *into, const kn_summary *from)
{
	into->tasks += from->tasks;
	into->sum_reached += from->sum_reached;
	into->sum_total += from->sum_total;
	into->sum_score += from->sum_score;
	into->sum_eff += from->sum_eff;
	into->n_success += from->n_success;
	into->n_near += from->n_near;
	into->n_functional_tasks += from->n_functional_tasks;
	into->n_functional_ok += from->n_functional_ok;
	into->n_reward_tasks += from->n_reward_tasks;
	into->n_reward_full += from->n_reward_full;
	into->sum_reward += from->sum_reward;
	into->n_judged_nodes += from->n_judged_nodes;
	into->n_judged_success += from->n_judged_success;
	into->n_judged_unknown += from->n_judged_unknown;
}

void kn_stats_rates(double v[KN_RATE_N], int ok[KN_RATE_N], const kn_stats *s, const size_t *pick,
                    size_t n_pick, int attempt)
{
	kn_summary sum;
	kn_summary_init(&sum);
	size_t planned = 0, m = pick ? n_pick : s->n_tasks;
	for (size_t i = 0; i < m; i++) {
		const kn_stats_task *t = &s->tasks[pick ? pick[i] : i];
		planned += attempt > 0 ? 1 : t->planned;
		if (attempt <= 0) { /* the bootstrap's path: the task's sums, added once */
			summary_merge(&sum, &t->sum);
			continue;
		}
		for (size_t k = 0; k < t->n; k++)
			if (t->rows[k]->attempt == attempt)
				kn_stats_summary_add(&sum, t->rows[k]);
	}
	kn_summary_finish(&sum);
	v[KN_RATE_KNCR] = sum.key_node_completion_rate, ok[KN_RATE_KNCR] = sum.sum_total > 0;
	v[KN_RATE_ASSR] = sum.average_step_score_rate, ok[KN_RATE_ASSR] = sum.tasks > 0;
	v[KN_RATE_TSR] = sum.task_success_rate, ok[KN_RATE_TSR] = sum.tasks > 0;
	v[KN_RATE_TNSR] = sum.task_near_success_rate, ok[KN_RATE_TNSR] = sum.tasks > 0;
	v[KN_RATE_FSR] = sum.functional_success_rate, ok[KN_RATE_FSR] = sum.n_functional_tasks > 0;
	v[KN_RATE_RSR] = sum.reward_success_rate, ok[KN_RATE_RSR] = sum.n_reward_tasks > 0;
	v[KN_RATE_TSR_PLANNED] = planned ? (double)sum.n_success / (double)planned : 0;
	ok[KN_RATE_TSR_PLANNED] = planned > 0;
}


int kn_stats_ci95(double lo[KN_RATE_N], double hi[KN_RATE_N], int ok[KN_RATE_N], const kn_stats *a,
                  const kn_stats *b)
{
	size_t T = a->n_tasks, B = KN_STATS_RESAMPLES, m[KN_RATE_N] = {0};
	for (int r = 0; r < KN_RATE_N; r++)
		lo[r] = hi[r] = 0, ok[r] = 0;
	if (T == 0 || (b && b->n_tasks != T))
		return 0;
	size_t *pick = malloc(T * sizeof *pick);
	double *rep = malloc(B * KN_RATE_N * sizeof *rep);
	if (!pick || !rep) {
		free(pick), free(rep);
		return KN_ENOMEM;
	}
	uint64_t state = KN_STATS_SEED;
	for (size_t k = 0; k < B; k++) {
		for (size_t i = 0; i < T; i++)
			pick[i] = (size_t)(kn_splitmix64(&state) % T);
		double va[KN_RATE_N], vb[KN_RATE_N];
		int oa[KN_RATE_N], ob[KN_RATE_N];
		kn_stats_rates(va, oa, a, pick, T, 0);
		if (b)
			kn_stats_rates(vb, ob, b, pick, T, 0);
		for (int r = 0; r < KN_RATE_N; r++)
			if (oa[r] && (!b || ob[r]))
				rep[(size_t)r * B + m[r]++] = b ? vb[r] - va[r] : va[r];
	}
	for (int r = 0; r < KN_RATE_N; r++) {
		if (!m[r])
			continue;
		kn_percentile95(rep + (size_t)r * B, m[r], &lo[r], &hi[r]);
		ok[r] = 1;
	}
	free(pick), free(rep);
	return 0;
}

/* C(n-j, k) / C(n, k) for j failures (all = 0) or C(j, k) / C(n, k) for j successes (all = 1):
 * the product of (j' - i) / (n - i) over i < k. */
static double ratio(size_t n, size_t j, int k)
{
	double p = 1;
	for (size_t i = 0; i < (size_t)k; i++) {
		if (j <= i)
			return 0;
		p *= (double)(j - i) / (double)(n - i);
	}
	return p;
}

double kn_stats_pass_k(const kn_stats *s, int k, int all, size_t *n_tasks)
{
	double sum = 0;
	size_t m = 0;
	for (size_t i = 0; k > 0 && i < s->n_tasks; i++) {
		const kn_stats_task *t = &s->tasks[i];
		if (t->n < (size_t)k)
			continue;
		m++;
		sum += all ? ratio(t->n, t->successes, k) : 1.0 - ratio(t->n, t->n - t->successes, k);
	}
	*n_tasks = m;
	return m ? sum / (double)m : 0;
}

double kn_stats_sign_test(size_t wins, size_t losses)
{
	size_t n = wins + losses, lo = wins < losses ? wins : losses;
	if (n == 0)
		return 1;
	/* P(X <= lo), X ~ Binomial(n, 1/2), each term in logs (n may be thousands) */
	double tail = 0, ln2 = log(2.0);
	for (size_t i = 0; i <= lo; i++)
		tail += exp(lgamma((double)n + 1) - lgamma((double)i + 1) - lgamma((double)(n - i) + 1) -
		            (double)n * ln2);
	double p = 2 * tail;
	return p > 1 ? 1 : p;
}

double kn_stats_std(const double *v, size_t n)
{
	if (n < 2)
		return 0;
	double mean = 0, ss = 0;
	for (size_t i = 0; i < n; i++)
		mean += v[i];
	mean /= (double)n;
	for (size_t i = 0; i < n; i++)
		ss += (v[i] - mean) * (v[i] - mean);
	return sqrt(ss / (double)(n - 1));
}
