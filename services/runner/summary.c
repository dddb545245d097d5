/* summary.c — gather attempt results and write the run summary (summary.h). The metrics are the
 * evaluator's own (kn_summary: WebCanvas names and formulas) fed from the numbers each result.json
 * holds, over executable attempts only; errors (infrastructure) and blocked attempts (the site
 * refused service) are listed apart and counted separately. */
#define _GNU_SOURCE /* open_memstream */
#include "summary.h"

#include <errno.h>
#include <stdint.h>
#include <sys/stat.h>
#include <stddef.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "keynode/eval.h"
#include "keynode/judge_fingerprint.h"
#include "stats.h"

#define KN_RESULT_MAX (16u * 1024u * 1024u)

static void copy(char *dst, size_t cap, const char *src)
{
	snprintf(dst, cap, "%s", src ? src : "");
}

static double clamp(double v, double hi)
{
	return v > 0 ? (v < hi ? v : hi) : 0;
}

int kn_run_row_parse(kn_run_row *row, const char *buf, size_t len, kn_err *err)
{
	memset(row, 0, sizeof *row);
	json_error_t je;
	json_t *j = json_loadb(buf, len, 0, &je);
	if (!j)
		return kn_err_set(err, KN_EINVAL, "%d:%d: %s", je.line, je.column, je.text);
	int rc = kn_run_row_from_json(row, j, err);
	json_decref(j);
	return rc;
}

int kn_run_row_from_json(kn_run_row *row, const json_t *j, kn_err *err)
{
	memset(row, 0, sizeof *row);
	json_t *a = json_object_get(j, "attempt"), *nodes = json_object_get(j, "key_nodes");
	const char *task = json_string_value(json_object_get(j, "task"));
	const char *st = json_string_value(json_object_get(a, "status"));
	if (!json_is_object(j) || !task || !st || !json_is_array(nodes) ||
	    !json_is_number(json_object_get(j, "score")) || !json_is_number(json_object_get(j, "reached")))
		return kn_err_set(err, KN_EINVAL, "not a keynode run result (task, score, reached, key_nodes, "
		                  "attempt.status)");
	if (strcmp(st, "done") != 0 && strcmp(st, "error") != 0 && strcmp(st, "interrupted") != 0 &&
	    strcmp(st, "blocked") != 0 && strcmp(st, "unjudged") != 0)
		return kn_err_set(err, KN_EINVAL, "attempt.status '%.40s' is not done, error, interrupted, "
		                  "blocked or unjudged", st);
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
	json_t *u = json_object_get(j, "usage");
	if (json_is_object(u)) {
		row->has_usage = 1;
		/* clamped: a folder anyone may edit must not overflow the run's sums */
		row->usd = clamp(json_number_value(json_object_get(u, "usd")), 1e9);
		row->input_tokens = (long long)clamp((double)json_integer_value(json_object_get(u, "input_tokens")), 1e13);
		row->output_tokens = (long long)clamp((double)json_integer_value(json_object_get(u, "output_tokens")), 1e13);
		copy(row->model, sizeof row->model, json_string_value(json_array_get(json_object_get(u, "models"), 0)));
	}
	json_t *judged = json_object_get(j, "judged");
	row->judged = json_is_array(judged) ? (int)json_array_size(judged) : -1;
	const json_t *fp = kn_judge_fingerprint_of(j);
	char *fps = fp ? json_dumps(fp, JSON_COMPACT | JSON_REAL_PRECISION(15)) : NULL;
	if (fps && strlen(fps) < sizeof row->judge)
		copy(row->judge, sizeof row->judge, fps);
	free(fps);
	json_t *env = json_object_get(j, "environment");
	copy(row->user_agent, sizeof row->user_agent, json_string_value(json_object_get(env, "user_agent")));
	copy(row->chromium_version, sizeof row->chromium_version,
	     json_string_value(json_object_get(env, "chromium_version")));
	return 0;
}

int kn_run_row_load(kn_run_row *row, const char *path, kn_err *err)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return errno == ENOENT ? kn_err_set(err, KN_ENOTFOUND, "%s: no such file", path)
		                       : kn_err_set(err, KN_EIO, "%s: %s", path, strerror(errno));
	/* sized by the file (a run folder is read back whole: compare, leaderboard), capped */
	struct stat st;
	size_t cap = fstat(fileno(f), &st) == 0 && st.st_size >= 0 && (uintmax_t)st.st_size < KN_RESULT_MAX
	             ? (size_t)st.st_size + 1 : KN_RESULT_MAX;
	char *buf = malloc(cap);
	size_t len = buf ? fread(buf, 1, cap, f) : 0;
	fclose(f);
	if (!buf)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	if (len == KN_RESULT_MAX || (len == cap && cap < KN_RESULT_MAX)) { /* grew while read, or too big */
		free(buf);
		return kn_err_set(err, KN_ELIMIT, "%s: over %u bytes or changing", path, KN_RESULT_MAX);
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
	      "functional,exit_code,agent_s,overhead_start_s,overhead_end_s,reason,reward,fault\n", f);
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
		const char *fault = kn_run_fault(r->status, r->completed, r->reason);
		if (r->reward >= 0)
			fprintf(f, ",%.4f", r->reward);
		else
			fputc(',', f);
		fprintf(f, ",%s\n", fault ? fault : "");
	}
	return fclose(f) == 0 ? 0 : KN_EIO;
}

const char *const kn_run_fault_names[KN_RUN_FAULTS] = {"agent", "site", "infrastructure", "judge"};

const char *kn_run_fault(const char *status, int completed, const char *reason)
{
	if (strcmp(status, "done") == 0)
		return completed ? NULL : kn_run_fault_names[0];
	if (strcmp(status, "blocked") == 0)
		return kn_run_fault_names[1];
	if (strcmp(status, "error") == 0) /* the task's own site did not answer: the site's */
		return strncmp(reason, "unreachable", 11) == 0 ? kn_run_fault_names[1] : kn_run_fault_names[2];
	if (strcmp(status, "unjudged") == 0)
		return kn_run_fault_names[3];
	return NULL; /* interrupted: nobody's, it is run again */
}

/* The index of fault f in kn_run_fault_names; KN_RUN_FAULTS for NULL. */
static size_t fault_index(const char *f)
{
	size_t i = 0;
	while (f && i < KN_RUN_FAULTS && strcmp(kn_run_fault_names[i], f) != 0)
		i++;
	return f ? i : KN_RUN_FAULTS;
}

void kn_run_totals_count(kn_run_totals *t, const kn_run_row *rows, size_t n, size_t planned)
{
	t->planned = planned;
	t->finished = n;
	t->executable = t->errors = t->blocked = t->unjudged = t->successes = 0;
	memset(t->faults, 0, sizeof t->faults);
	for (size_t i = 0; i < n; i++) {
		const kn_run_row *r = &rows[i];
		t->executable += strcmp(r->status, "done") == 0;
		t->errors += strcmp(r->status, "error") == 0;
		t->blocked += strcmp(r->status, "blocked") == 0;
		t->unjudged += strcmp(r->status, "unjudged") == 0;
		t->successes += strcmp(r->status, "done") == 0 && r->completed;
		size_t f = fault_index(kn_run_fault(r->status, r->completed, r->reason));
		if (f < KN_RUN_FAULTS)
			t->faults[f]++;
	}
	t->interrupted = planned > n ? planned - n : 0;
}

/* The distinct non-empty values of a row field (offset into kn_run_row), at most 16. */
static json_t *distinct(const kn_run_row *rows, size_t n, size_t off)
{
	json_t *a = json_array();
	for (size_t i = 0; a && i < n; i++) {
		const char *v = (const char *)&rows[i] + off;
		size_t k, seen = 0;
		json_t *x;
		json_array_foreach(a, k, x)
			seen |= strcmp(json_string_value(x), v) == 0;
		if (*v && !seen && json_array_size(a) < 16)
			json_array_append_new(a, json_string(v));
	}
	return a;
}

/* summary.json's account of the run: the agent, the task set with each task's hash and site,
 * when, and the environment (kn_run_meta) with the user agent(s) the attempts' browsers gave. */
static void put_meta(json_t *j, const kn_run_meta *m, const kn_run_row *rows, size_t n)
{
	if (!m)
		return;
	json_t *tasks = json_array(), *models = distinct(rows, n, offsetof(kn_run_row, model));
	for (size_t i = 0; tasks && i < m->n_tasks; i++)
		json_array_append_new(tasks, json_pack("{s:s, s:s?, s:s?}", "task", m->tasks[i].id, "sha256",
		                                       m->tasks[i].sha256[0] ? m->tasks[i].sha256 : NULL, "site",
		                                       m->tasks[i].site[0] ? m->tasks[i].site : NULL));
	const char *model = m->model ? m->model /* else the one model the usage files name */
	                    : json_array_size(models) == 1 ? json_string_value(json_array_get(models, 0)) : NULL;
	json_object_set_new(j, "agent", json_pack("{s:s?, s:s?, s:s?}", "command", m->agent, "name",
	                                          m->agent_name, "model", model));
	json_decref(models);
	json_object_set_new(j, "task_set", json_pack("{s:s?, s:s?, s:o}", "file", m->tasks_file, "sha256",
	                                             m->tasks_sha256, "tasks", tasks));
	if (m->started)
		json_object_set_new(j, "started", json_string(m->started));
	if (m->finished)
		json_object_set_new(j, "finished", json_string(m->finished));
	if (m->validation)
		json_object_set_new(j, "validation", json_deep_copy(m->validation));
	if (!m->environment)
		return;
	/* what the attempts' browsers said: one value, or every value when they differ */
	json_t *env = json_deep_copy(m->environment);
	const struct { const char *key, *keys; size_t off; } seen[] = {
		{"user_agent", "user_agents", offsetof(kn_run_row, user_agent)},
		{"chromium_version", "chromium_versions", offsetof(kn_run_row, chromium_version)}};
	for (size_t i = 0; env && i < sizeof seen / sizeof seen[0]; i++) {
		json_t *v = distinct(rows, n, seen[i].off);
		json_t *cur = json_object_get(env, seen[i].key);
		size_t k, known = 0;
		json_t *x;
		json_array_foreach(v, k, x)
			known |= json_equal(x, cur);
		if (json_is_string(cur) && !known && json_array_size(v)) /* the run's own, beside the attempts' */
			json_array_insert(v, 0, cur);
		if (json_array_size(v) == 1)
			json_object_set(env, seen[i].key, json_array_get(v, 0));
		else if (json_array_size(v) > 1)
			json_object_set(env, seen[i].keys, v);
		json_decref(v);
	}
	json_object_set_new(j, "environment", env);
	/* the judge fingerprint of the run's results (keynode/judge_fingerprint.h), at the top for
	 * compare and leaderboard */
	const json_t *fp = kn_judge_fingerprint_of(j);
	if (fp)
		json_object_set_new(j, "judge", json_deep_copy(fp));
}

/* summary.json "time" (the agent's seconds per executable attempt) and, when some attempt has a
 * usage (KEYNODE_USAGE_FILE), "cost": tokens and dollars over every finished attempt, dollars per
 * success, and WebCanvas's usd_efficiency_score — dollars over the key nodes reached (their
 * experiment_results.py: total token cost / sum of step scores), here over executable attempts. */
static void put_cost(json_t *j, const kn_run_row *rows, size_t n)
{
	double usd = 0, usd_exe = 0, reached = 0, *ag = calloc(n + 1, sizeof *ag);
	long long in = 0, out = 0;
	size_t with = 0, succ = 0, na = 0;
	for (size_t i = 0; ag && i < n; i++) {
		const kn_run_row *r = &rows[i];
		int exe = strcmp(r->status, "done") == 0;
		if (exe) {
			reached += r->reached;
			succ += (size_t)r->completed;
			ag[na++] = r->agent_s;
		}
		if (!r->has_usage)
			continue;
		with++;
		usd += r->usd;
		usd_exe += exe ? r->usd : 0;
		in += r->input_tokens;
		out += r->output_tokens;
	}
	double p50 = 0, p95 = 0;
	quantiles(ag, na, &p50, &p95);
	free(ag);
	json_object_set_new(j, "time", json_pack("{s:I, s:f, s:f}", "attempts", (json_int_t)na,
	                                         "agent_p50_s", p50, "agent_p95_s", p95));
	if (!with)
		return;
	json_object_set_new(j, "cost", json_pack("{s:I, s:I, s:I, s:f, s:f, s:o, s:f, s:o}",
	                                         "attempts_with_usage", (json_int_t)with, "input_tokens",
	                                         (json_int_t)in, "output_tokens", (json_int_t)out, "usd", usd,
	                                         "usd_executable", usd_exe, "usd_per_success",
	                                         succ ? json_real(usd / (double)succ) : json_null(),
	                                         "usd_efficiency_score", reached > 0 ? usd_exe / reached : 0.0,
	                                         "models", distinct(rows, n, offsetof(kn_run_row, model))));
}

/* "  [0.1234, 0.5678]" for a rate of ci (summary.json's ci95), "" when it has none. */
static const char *ci_text(char *buf, size_t cap, const json_t *ci, const char *rate)
{
	json_t *p = json_object_get(ci, rate);
	buf[0] = '\0';
	if (json_array_size(p) == 2)
		snprintf(buf, cap, "  95%% CI [%.4f, %.4f]", json_number_value(json_array_get(p, 0)),
		         json_number_value(json_array_get(p, 1)));
	return buf;
}

/* The numbers summary.json and the printed table share, gathered once over the rows. */
struct summary_calc {
	kn_summary s;            /* the evaluator's metrics over executable attempts */
	struct per_task *pt;     /* per task, first-seen order, nt of them (the caller frees pt) */
	size_t nt, all, any;     /* tasks; solved in every attempt; solved in at least one */
	double os_med, os_p95, oe_med, oe_p95; /* keynode's overhead per attempt at start and end */
	double apm;              /* attempts per minute of wall time */
};

/* Fill c from the rows: the metrics, the per-task counts and the overhead quantiles. 0, or
 * KN_ENOMEM with nothing to free. */
static int summary_calc(struct summary_calc *c, const kn_run_row *rows, size_t n, const kn_run_totals *t)
{
	memset(c, 0, sizeof *c);
	kn_summary_init(&c->s);
	double *os = calloc(n + 1, sizeof *os), *oe = calloc(n + 1, sizeof *oe);
	c->pt = calloc(n + 1, sizeof *c->pt);
	if (!os || !oe || !c->pt) {
		free(os), free(oe), free(c->pt);
		c->pt = NULL;
		return KN_ENOMEM;
	}
	size_t no = 0;
	for (size_t i = 0; i < n; i++) {
		const kn_run_row *r = &rows[i];
		if (strcmp(r->status, "done") != 0)
			continue;
		kn_stats_summary_add(&c->s, r);
		if (r->overhead_start_s > 0) {
			os[no] = r->overhead_start_s;
			oe[no++] = r->overhead_end_s;
		}
	}
	kn_summary_finish(&c->s);
	c->nt = group_tasks(c->pt, rows, n);
	for (size_t i = 0; i < c->nt; i++) {
		c->all += c->pt[i].successes == c->pt[i].attempts;
		c->any += c->pt[i].successes > 0;
	}
	quantiles(os, no, &c->os_med, &c->os_p95);
	quantiles(oe, no, &c->oe_med, &c->oe_p95);
	free(os), free(oe);
	c->apm = t->wall_s > 0 ? (double)t->ran * 60.0 / t->wall_s : 0;
	return 0;
}

/* summary.json "attempts": the counts of t, the unjudged and the faults by whose they are. A new
 * reference, NULL when out of memory. */
static json_t *attempts_json(const kn_run_totals *t)
{
	json_t *att = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "planned", (json_int_t)t->planned,
	                        "finished", (json_int_t)t->finished, "executable", (json_int_t)t->executable,
	                        "successes", (json_int_t)t->successes, "errors", (json_int_t)t->errors,
	                        "blocked", (json_int_t)t->blocked, "interrupted", (json_int_t)t->interrupted);
	json_t *faults = json_object();
	for (size_t f = 0; faults && f < KN_RUN_FAULTS; f++)
		json_object_set_new(faults, kn_run_fault_names[f], json_integer((json_int_t)t->faults[f]));
	json_object_set_new(att, "unjudged", json_integer((json_int_t)t->unjudged));
	json_object_set_new(att, "faults", faults);
	return att;
}

/* summary.json "metrics": the evaluator's rates, and the purchase rewards when some task has one
 * (keynodes/README.md "Purchase reward"). A new reference, NULL when out of memory. */
static json_t *metrics_json(const kn_summary *s)
{
	json_t *m = json_pack("{s:I, s:f, s:f, s:f, s:f, s:f, s:f}", "attempts", (json_int_t)s->tasks,
	                      "key_node_completion_rate", s->key_node_completion_rate, "average_step_score_rate",
	                      s->average_step_score_rate, "task_success_rate", s->task_success_rate,
	                      "task_near_success_rate", s->task_near_success_rate, "efficiency_score",
	                      s->efficiency_score, "functional_success_rate", s->functional_success_rate);
	if (m) { /* judged and deterministic (docs/scoring.md) */
		json_object_set_new(m, "judged_key_nodes", json_integer((json_int_t)s->n_judged_nodes));
		json_object_set_new(m, "judged_successes", json_integer((json_int_t)s->n_judged_success));
		json_object_set_new(m, "judged_success_share", json_real(s->judged_success_share));
		json_object_set_new(m, "deterministic_floor", json_real(s->deterministic_floor));
		if (s->n_judged_unknown)
			json_object_set_new(m, "judged_unknown", json_integer((json_int_t)s->n_judged_unknown));
	}
	if (m && s->n_reward_tasks) {
		json_object_set_new(m, "task_score", json_real(s->task_score));
		json_object_set_new(m, "reward_success_rate", json_real(s->reward_success_rate));
		json_object_set_new(m, "reward_tasks", json_integer((json_int_t)s->n_reward_tasks));
	}
	return m;
}

/* summary.json "excluded": every attempt that is not executable, with its reason and fault. A new
 * reference, NULL when out of memory. */
static json_t *excluded_json(const kn_run_row *rows, size_t n)
{
	json_t *excluded = json_array();
	for (size_t i = 0; excluded && i < n; i++) {
		const kn_run_row *r = &rows[i];
		if (strcmp(r->status, "done") != 0)
			json_array_append_new(excluded, json_pack("{s:s, s:i, s:s, s:s, s:s?}", "task", r->task,
			                                          "attempt", r->attempt, "status", r->status,
			                                          "reason", r->reason, "fault",
			                                          kn_run_fault(r->status, r->completed, r->reason)));
	}
	return excluded;
}

/* summary.json "reliability": over K repeats, the share of tasks solved in all and in any, and
 * each task's success rate. A new reference, NULL when out of memory. */
static json_t *reliability_json(const struct summary_calc *c, int repeat)
{
	json_t *tasks = json_array();
	for (size_t i = 0; tasks && i < c->nt; i++)
		json_array_append_new(tasks, json_pack("{s:s, s:I, s:I, s:f}", "task", c->pt[i].task, "attempts",
		                                       (json_int_t)c->pt[i].attempts, "successes",
		                                       (json_int_t)c->pt[i].successes, "success_rate",
		                                       (double)c->pt[i].successes / (double)c->pt[i].attempts));
	if (!tasks)
		return NULL;
	return json_pack("{s:i, s:I, s:f, s:f, s:o}", "repeat", repeat, "tasks", (json_int_t)c->nt, "solved_all",
	                 c->nt ? (double)c->all / (double)c->nt : 0, "solved_any",
	                 c->nt ? (double)c->any / (double)c->nt : 0, "per_task", tasks);
}

/* summary.json from its first key to its last, in the order readers know; NULL when out of memory. */
static json_t *summary_json(const struct summary_calc *c, const kn_run_row *rows, size_t n,
                            const kn_run_totals *t, int repeat)
{
	json_t *j = json_object();
	const struct { const char *key; json_t *v; } parts[] = {
		{"attempts", attempts_json(t)},
		{"metrics", metrics_json(&c->s)},
		{"excluded", excluded_json(rows, n)},
		{"reliability", reliability_json(c, repeat)},
		{"overhead", json_pack("{s:f, s:f, s:f, s:f}", "start_median_s", c->os_med, "start_p95_s", c->os_p95,
		                       "end_median_s", c->oe_med, "end_p95_s", c->oe_p95)},
		{"wall_s", json_real(t->wall_s)},
		{"attempts_per_minute", json_real(c->apm)}};
	int ok = j != NULL;
	for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
		ok &= json_object_set_new(j, parts[i].key, parts[i].v) == 0;
	if (!ok) {
		json_decref(j);
		return NULL;
	}
	return j;
}

/* Write j to path as indented JSON and a newline. 0, or KN_EIO with err set. */
static int write_json_file(const json_t *j, const char *path, kn_err *err)
{
	FILE *f = fopen(path, "w");
	int rc = 0;
	if (!f || json_dumpf(j, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6)) != 0 ||
	    fputc('\n', f) == EOF)
		rc = kn_err_set(err, KN_EIO, "cannot write %s", path);
	if (f && fclose(f) != 0 && !rc)
		rc = kn_err_set(err, KN_EIO, "cannot write %s", path);
	return rc;
}

/* The printed table: per task, its attempts, successes and mean score over executable attempts. */
static void print_tasks(FILE *out, const struct summary_calc *c, const kn_run_row *rows, size_t n)
{
	fprintf(out, "\n%-32s %8s %9s %10s\n", "task", "attempts", "successes", "mean score");
	for (size_t i = 0; i < c->nt; i++) {
		double sum = 0;
		for (size_t k = 0; k < n; k++)
			if (strcmp(rows[k].status, "done") == 0 && strcmp(rows[k].task, c->pt[i].task) == 0)
				sum += rows[k].score;
		fprintf(out, "%-32s %8zu %9zu %10.2f\n", c->pt[i].task, c->pt[i].attempts, c->pt[i].successes,
		        sum / (double)c->pt[i].attempts);
	}
}

/* The printed counts: executable, excluded by kind and by fault, and each excluded attempt. */
static void print_counts(FILE *out, const kn_run_totals *t, const kn_run_row *rows, size_t n)
{
	fprintf(out, "\n%zu attempts executable of %zu finished (%zu planned); excluded: %zu error, "
	        "%zu blocked, %zu unjudged; %zu interrupted\n", t->executable, t->finished, t->planned,
	        t->errors, t->blocked, t->unjudged, t->interrupted);
	fprintf(out, "  not a success, by whose it is: agent %zu, site %zu, infrastructure %zu, judge %zu\n",
	        t->faults[0], t->faults[1], t->faults[2], t->faults[3]);
	for (size_t k = 0; k < n; k++)
		if (strcmp(rows[k].status, "done") != 0)
			fprintf(out, "  excluded %s #%d: %s\n", rows[k].task, rows[k].attempt, rows[k].reason);
}

/* The printed rates with their 95 % intervals from j (summary.json), the success over every planned
 * attempt, pass@k and pass^k, the spread over repeats, the rate per site and the rewards. */
static void print_rates(FILE *out, const json_t *j, const kn_summary *s, int repeat, const char *vn)
{
	json_t *ci = json_object_get(j, "ci95"), *den = json_object_get(j, "denominators");
	const char *names[] = {"key_node_completion_rate", "average_step_score_rate", "task_success_rate",
	                       "task_near_success_rate", "efficiency_score", "functional_success_rate"};
	const double vals[] = {s->key_node_completion_rate, s->average_step_score_rate, s->task_success_rate,
	                       s->task_near_success_rate, s->efficiency_score, s->functional_success_rate};
	char buf[64];
	for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++)
		fprintf(out, "  %-25s %.4f%s%s\n", names[i], vals[i], ci_text(buf, sizeof buf, ci, names[i]), vn);
	json_t *pl = json_object_get(den, "planned");
	fprintf(out, "  task success over all %lld planned attempts (error, unreachable, blocked, missing "
	        "count as failures): %.4f%s%s\n", (long long)json_integer_value(json_object_get(pl, "attempts")),
	        json_number_value(json_object_get(pl, "task_success_rate")),
	        ci_text(buf, sizeof buf, pl, "ci95"), vn);
	for (int k = 1; k <= repeat && repeat > 1; k++) {
		char key[16];
		snprintf(key, sizeof key, "%d", k);
		json_t *pa = json_object_get(json_object_get(j, "pass_at_k"), key),
		       *pl2 = json_object_get(json_object_get(j, "pass_all_k"), key);
		if (json_is_number(pa))
			fprintf(out, "  pass@%d %.4f  pass^%d %.4f%s\n", k, json_number_value(pa), k,
			        json_number_value(pl2), vn);
	}
	json_t *sd = json_object_get(json_object_get(j, "std_over_repeats"), "task_success_rate");
	if (sd)
		fprintf(out, "  task_success_rate std over the %d repeats %.4f%s\n", repeat, json_number_value(sd), vn);
	if (json_object_size(json_object_get(j, "per_site")) > 1) {
		const char *site;
		json_t *o;
		json_object_foreach(json_object_get(j, "per_site"), site, o)
			fprintf(out, "  site %-30s %3lld tasks %4lld attempts  task_success_rate %.4f%s\n", site,
			        (long long)json_integer_value(json_object_get(o, "tasks")),
			        (long long)json_integer_value(json_object_get(o, "attempts")),
			        json_number_value(json_object_get(o, "task_success_rate")), vn);
	}
	fprintf(out, "  deterministic_floor       %.4f (successes without a judged key node; %zu of %zu "
	        "successes rest on one, %zu judged key nodes%s)\n", s->deterministic_floor, s->n_judged_success,
	        s->n_success, s->n_judged_nodes, s->n_judged_unknown ? "; some results do not say" : "");
	if (s->n_reward_tasks)
		fprintf(out, "  task_score                %.2f%s\n  reward_success_rate       %.4f (%zu "
		        "attempts with a purchase)%s\n", s->task_score, vn, s->reward_success_rate,
		        s->n_reward_tasks, vn);
}

/* The printed reliability over K repeats, agent time, cost (from j) and keynode's overhead. */
static void print_costs(FILE *out, const json_t *j, const struct summary_calc *c, int repeat)
{
	if (repeat > 1)
		fprintf(out, "  reliability (K=%d): solved in all K %.4f, in at least one %.4f\n", repeat,
		        c->nt ? (double)c->all / (double)c->nt : 0, c->nt ? (double)c->any / (double)c->nt : 0);
	json_t *cost = json_object_get(j, "cost"), *tm = json_object_get(j, "time");
	fprintf(out, "  agent time per attempt: median %.1f s, p95 %.1f s\n",
	        json_number_value(json_object_get(tm, "agent_p50_s")),
	        json_number_value(json_object_get(tm, "agent_p95_s")));
	if (cost)
		fprintf(out, "  cost: $%.4f (%lld input, %lld output tokens; %lld attempts with usage), $%.4f per "
		        "success, usd_efficiency_score %.4f\n", json_number_value(json_object_get(cost, "usd")),
		        (long long)json_integer_value(json_object_get(cost, "input_tokens")),
		        (long long)json_integer_value(json_object_get(cost, "output_tokens")),
		        (long long)json_integer_value(json_object_get(cost, "attempts_with_usage")),
		        json_number_value(json_object_get(cost, "usd_per_success")),
		        json_number_value(json_object_get(cost, "usd_efficiency_score")));
	fprintf(out, "  keynode overhead per attempt: start median %.3f s (p95 %.3f), end median %.3f s "
	        "(p95 %.3f); %.1f attempts/minute\n", c->os_med, c->os_p95, c->oe_med, c->oe_p95, c->apm);
}

int kn_run_summary_write(const kn_run_row *rows, size_t n, const kn_run_totals *t, int repeat,
                         const kn_run_meta *meta, const char *dir, FILE *out, kn_err *err)
{
	struct summary_calc c;
	if (summary_calc(&c, rows, n, t) != 0)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	json_t *j = summary_json(&c, rows, n, t, repeat);
	char path[4200];
	int rc = 0;
	if (j) {
		put_meta(j, meta, rows, n);
		put_cost(j, rows, n);
		if (kn_run_summary_stats(j, rows, n, repeat, meta) != 0)
			rc = kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	snprintf(path, sizeof path, "%s/summary.json", dir);
	if (!rc && !j)
		rc = kn_err_set(err, KN_EIO, "cannot write %s", path);
	else if (!rc)
		rc = write_json_file(j, path, err);
	snprintf(path, sizeof path, "%s/summary.csv", dir);
	if (!rc && write_csv(rows, n, path) != 0)
		rc = kn_err_set(err, KN_EIO, "cannot write %s", path);
	if (out) {
		print_tasks(out, &c, rows, n);
		print_counts(out, t, rows, n);
		/* the server's replay validation of the set, beside every number it qualifies */
		const char *st = meta ? json_string_value(json_object_get(meta->validation, "statement")) : NULL;
		char vn[160];
		snprintf(vn, sizeof vn, "%s%s%s", st ? "  [" : "", st ? st : "", st ? "]" : "");
		print_rates(out, j, &c.s, repeat, vn);
		print_costs(out, j, &c, repeat);
	}
	json_decref(j);
	free(c.pt);
	return rc;
}
