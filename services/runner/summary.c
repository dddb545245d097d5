/* summary.c — gather attempt results and write the run summary (summary.h). The metrics are the
 * evaluator's own (kn_summary: WebCanvas names and formulas) fed from the numbers each result.json
 * holds, over executable attempts only; errors (infrastructure) and blocked attempts (the site
 * refused service) are listed apart and counted separately. */
#define _GNU_SOURCE /* open_memstream */
#include "summary.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "keynode/eval.h"

#define KN_RESULT_MAX (16u * 1024u * 1024u)

static void copy(char *dst, size_t cap, const char *src)
{
	snprintf(dst, cap, "%s", src ? src : "");
}

int kn_run_row_parse(kn_run_row *row, const char *buf, size_t len, kn_err *err)
{
	memset(row, 0, sizeof *row);
	json_error_t je;
	json_t *j = json_loadb(buf, len, 0, &je);
	if (!j)
		return kn_err_set(err, KN_EINVAL, "%d:%d: %s", je.line, je.column, je.text);
	json_t *a = json_object_get(j, "attempt"), *nodes = json_object_get(j, "key_nodes");
	const char *task = json_string_value(json_object_get(j, "task"));
	const char *st = json_string_value(json_object_get(a, "status"));
	int rc = 0;
	if (!json_is_object(j) || !task || !st || !json_is_array(nodes) ||
	    !json_is_number(json_object_get(j, "score")) || !json_is_number(json_object_get(j, "reached"))) {
		rc = kn_err_set(err, KN_EINVAL, "not a keynode run result (task, score, reached, key_nodes, "
		                "attempt.status)");
		goto done;
	}
	if (strcmp(st, "done") != 0 && strcmp(st, "error") != 0 && strcmp(st, "interrupted") != 0 &&
	    strcmp(st, "blocked") != 0) {
		rc = kn_err_set(err, KN_EINVAL, "attempt.status '%.40s' is not done, error, interrupted or "
		                "blocked", st);
		goto done;
	}
	copy(row->task, sizeof row->task, task);
	copy(row->status, sizeof row->status, st);
	copy(row->end, sizeof row->end, json_string_value(json_object_get(a, "end")));
	copy(row->reason, sizeof row->reason, json_string_value(json_object_get(a, "reason")));
	copy(row->eval_status, sizeof row->eval_status, json_string_value(json_object_get(j, "status")));
	row->completed = json_is_true(json_object_get(j, "completion"));
	json_t *fn = json_object_get(j, "functional");
	row->functional = json_is_boolean(fn) ? json_is_true(fn) : -1;
	json_t *rw = json_object_get(j, "reward");
	row->reward = json_is_number(rw) ? json_number_value(rw) : -1;
	row->reached = json_number_value(json_object_get(j, "reached"));
	row->score = json_number_value(json_object_get(j, "score"));
	row->efficiency = json_number_value(json_object_get(j, "efficiency"));
	row->steps = (int)json_integer_value(json_object_get(j, "steps"));
	row->total = (int)json_array_size(nodes);
	size_t i;
	json_t *n;
	json_array_foreach(nodes, i, n)
		row->missing += json_number_value(json_object_get(n, "score")) < 1.0;
	row->agent_s = json_number_value(json_object_get(a, "agent_s"));
	row->overhead_start_s = json_number_value(json_object_get(a, "overhead_start_s"));
	row->overhead_end_s = json_number_value(json_object_get(a, "overhead_end_s"));
	json_t *ec = json_object_get(a, "exit_code");
	row->exit_code = json_is_integer(ec) ? (int)json_integer_value(ec) : -1;
done:
	json_decref(j);
	return rc;
}

int kn_run_row_load(kn_run_row *row, const char *path, kn_err *err)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return errno == ENOENT ? kn_err_set(err, KN_ENOTFOUND, "%s: no such file", path)
		                       : kn_err_set(err, KN_EIO, "%s: %s", path, strerror(errno));
	char *buf = malloc(KN_RESULT_MAX);
	size_t len = buf ? fread(buf, 1, KN_RESULT_MAX, f) : 0;
	fclose(f);
	if (!buf)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	if (len == KN_RESULT_MAX) {
		free(buf);
		return kn_err_set(err, KN_ELIMIT, "%s: over %u bytes", path, KN_RESULT_MAX);
	}
	kn_err e = {0};
	int rc = kn_run_row_parse(row, buf, len, &e);
	free(buf);
	if (rc)
		kn_err_set(err, rc, "%s:%s", path, e.msg);
	return rc;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Median and 95th percentile (nearest rank) of v[0..n) (sorted in place). */
static void quantiles(double *v, size_t n, double *median, double *p95)
{
	*median = *p95 = 0;
	if (!n)
		return;
	qsort(v, n, sizeof *v, cmp_double);
	*median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	size_t r = (size_t)ceil(0.95 * (double)n);
	*p95 = v[r ? r - 1 : 0];
}

struct per_task {
	const char *task;
	size_t attempts, successes;
};

/* Per task: executable attempts and successes, in first-seen order. */
static size_t group_tasks(struct per_task *pt, const kn_run_row *rows, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(rows[i].status, "done") != 0)
			continue;
		size_t j = 0;
		while (j < k && strcmp(pt[j].task, rows[i].task) != 0)
			j++;
		if (j == k)
			pt[k++] = (struct per_task){.task = rows[i].task};
		pt[j].attempts++;
		pt[j].successes += rows[i].completed;
	}
	return k;
}

static void csv_field(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
	}
	fputc('"', f);
}

static int write_csv(const kn_run_row *rows, size_t n, const char *path)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return KN_EIO;
	fputs("task,attempt,status,end,eval_status,completion,score,reached,total,steps,efficiency,"
	      "functional,exit_code,agent_s,overhead_start_s,overhead_end_s,reason,reward\n", f);
	for (size_t i = 0; i < n; i++) {
		const kn_run_row *r = &rows[i];
		csv_field(f, r->task);
		fprintf(f, ",%d,%s,", r->attempt, r->status);
		csv_field(f, r->end);
		fprintf(f, ",%s,%d,%.4f,%g,%d,%d,%.4f,%s,%d,%.3f,%.3f,%.3f,", r->eval_status, r->completed,
		        r->score, r->reached, r->total, r->steps, r->efficiency,
		        r->functional < 0 ? "" : r->functional ? "1" : "0", r->exit_code, r->agent_s,
		        r->overhead_start_s, r->overhead_end_s);
		csv_field(f, r->reason);
		if (r->reward >= 0)
			fprintf(f, ",%.4f\n", r->reward);
		else
			fputs(",\n", f);
	}
	return fclose(f) == 0 ? 0 : KN_EIO;
}

int kn_run_summary_write(const kn_run_row *rows, size_t n, const kn_run_totals *t, int repeat,
                         const char *dir, FILE *out, kn_err *err)
{
	kn_summary s;
	kn_summary_init(&s);
	double *os = calloc(n + 1, sizeof *os), *oe = calloc(n + 1, sizeof *oe);
	struct per_task *pt = calloc(n + 1, sizeof *pt);
	json_t *excluded = json_array(), *tasks = json_array();
	if (!os || !oe || !pt || !excluded || !tasks) {
		free(os), free(oe), free(pt);
		json_decref(excluded), json_decref(tasks);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	size_t no = 0;
	for (size_t i = 0; i < n; i++) {
		const kn_run_row *r = &rows[i];
		if (strcmp(r->status, "done") != 0) {
			json_array_append_new(excluded, json_pack("{s:s, s:i, s:s, s:s}", "task", r->task,
			                                          "attempt", r->attempt, "status", r->status,
			                                          "reason", r->reason));
			continue;
		}
		/* kn_summary_add's sums, from the result's numbers */
		s.tasks++;
		s.sum_reached += r->reached;
		s.sum_total += r->total;
		s.sum_score += r->score;
		s.sum_eff += r->efficiency;
		s.n_success += (size_t)r->completed;
		s.n_near += r->missing == 1;
		if (r->functional >= 0) {
			s.n_functional_tasks++;
			s.n_functional_ok += (size_t)r->functional;
		}
		if (r->reward >= 0) {
			s.n_reward_tasks++;
			s.sum_reward += r->reward;
			s.n_reward_full += r->reward >= 1.0;
		}
		if (r->overhead_start_s > 0) {
			os[no] = r->overhead_start_s;
			oe[no++] = r->overhead_end_s;
		}
	}
	kn_summary_finish(&s);
	size_t nt = group_tasks(pt, rows, n), all = 0, any = 0;
	for (size_t i = 0; i < nt; i++) {
		all += pt[i].successes == pt[i].attempts;
		any += pt[i].successes > 0;
		json_array_append_new(tasks, json_pack("{s:s, s:I, s:I, s:f}", "task", pt[i].task, "attempts",
		                                       (json_int_t)pt[i].attempts, "successes",
		                                       (json_int_t)pt[i].successes, "success_rate",
		                                       (double)pt[i].successes / (double)pt[i].attempts));
	}
	double os_med, os_p95, oe_med, oe_p95;
	quantiles(os, no, &os_med, &os_p95);
	quantiles(oe, no, &oe_med, &oe_p95);
	double apm = t->wall_s > 0 ? (double)t->ran * 60.0 / t->wall_s : 0;
	json_t *j = json_pack(
		"{s:{s:I, s:I, s:I, s:I, s:I, s:I, s:I}, s:{s:I, s:f, s:f, s:f, s:f, s:f, s:f}, s:o,"
		" s:{s:i, s:I, s:f, s:f, s:o}, s:{s:f, s:f, s:f, s:f}, s:f, s:f}",
		"attempts", "planned", (json_int_t)t->planned, "finished", (json_int_t)t->finished,
		"executable", (json_int_t)t->executable, "successes", (json_int_t)t->successes, "errors",
		(json_int_t)t->errors, "blocked", (json_int_t)t->blocked, "interrupted",
		(json_int_t)t->interrupted,
		"metrics", "attempts", (json_int_t)s.tasks, "key_node_completion_rate",
		s.key_node_completion_rate, "average_step_score_rate", s.average_step_score_rate,
		"task_success_rate", s.task_success_rate, "task_near_success_rate",
		s.task_near_success_rate, "efficiency_score", s.efficiency_score,
		"functional_success_rate", s.functional_success_rate, "excluded", excluded,
		"reliability", "repeat", repeat, "tasks", (json_int_t)nt, "solved_all",
		nt ? (double)all / (double)nt : 0, "solved_any", nt ? (double)any / (double)nt : 0,
		"per_task", tasks, "overhead", "start_median_s", os_med, "start_p95_s", os_p95,
		"end_median_s", oe_med, "end_p95_s", oe_p95, "wall_s", t->wall_s, "attempts_per_minute", apm);
	json_t *m = json_object_get(j, "metrics");
	if (m && s.n_reward_tasks) { /* purchase rewards (keynodes/README.md "Purchase reward") */
		json_object_set_new(m, "task_score", json_real(s.task_score));
		json_object_set_new(m, "reward_success_rate", json_real(s.reward_success_rate));
		json_object_set_new(m, "reward_tasks", json_integer((json_int_t)s.n_reward_tasks));
	}
	char path[4200];
	int rc = 0;
	snprintf(path, sizeof path, "%s/summary.json", dir);
	FILE *f = j ? fopen(path, "w") : NULL;
	if (!f || json_dumpf(j, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6)) != 0 ||
	    fputc('\n', f) == EOF)
		rc = kn_err_set(err, KN_EIO, "cannot write %s", path);
	if (f && fclose(f) != 0 && !rc)
		rc = kn_err_set(err, KN_EIO, "cannot write %s", path);
	snprintf(path, sizeof path, "%s/summary.csv", dir);
	if (!rc && write_csv(rows, n, path) != 0)
		rc = kn_err_set(err, KN_EIO, "cannot write %s", path);
	if (out) {
		fprintf(out, "\n%-32s %8s %9s %10s\n", "task", "attempts", "successes", "mean score");
		for (size_t i = 0; i < nt; i++) {
			double sum = 0;
			for (size_t k = 0; k < n; k++)
				if (strcmp(rows[k].status, "done") == 0 && strcmp(rows[k].task, pt[i].task) == 0)
					sum += rows[k].score;
			fprintf(out, "%-32s %8zu %9zu %10.2f\n", pt[i].task, pt[i].attempts, pt[i].successes,
			        sum / (double)pt[i].attempts);
		}
		fprintf(out, "\n%zu attempts executable of %zu finished (%zu planned); excluded: %zu error, "
		        "%zu blocked; %zu interrupted\n", t->executable, t->finished, t->planned, t->errors,
		        t->blocked, t->interrupted);
		for (size_t k = 0; k < n; k++)
			if (strcmp(rows[k].status, "done") != 0)
				fprintf(out, "  excluded %s #%d: %s\n", rows[k].task, rows[k].attempt, rows[k].reason);
		fprintf(out, "  key_node_completion_rate  %.4f\n  average_step_score_rate   %.4f\n"
		        "  task_success_rate         %.4f\n  task_near_success_rate    %.4f\n"
		        "  efficiency_score          %.4f\n  functional_success_rate   %.4f\n",
		        s.key_node_completion_rate, s.average_step_score_rate, s.task_success_rate,
		        s.task_near_success_rate, s.efficiency_score, s.functional_success_rate);
		if (s.n_reward_tasks)
			fprintf(out, "  task_score                %.2f\n  reward_success_rate       %.4f (%zu "
			        "attempts with a purchase)\n", s.task_score, s.reward_success_rate,
			        s.n_reward_tasks);
		if (repeat > 1)
			fprintf(out, "  reliability (K=%d): solved in all K %.4f, in at least one %.4f\n", repeat,
			        nt ? (double)all / (double)nt : 0, nt ? (double)any / (double)nt : 0);
		fprintf(out, "  keynode overhead per attempt: start median %.3f s (p95 %.3f), end median %.3f s "
		        "(p95 %.3f); %.1f attempts/minute\n", os_med, os_p95, oe_med, oe_p95, apm);
	}
	json_decref(j);
	free(os), free(oe), free(pt);
	return rc;
}
