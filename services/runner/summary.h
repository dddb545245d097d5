/* summary.h — the results of a `keynode run` gathered from its attempts' result.json files: the
 * WebCanvas dataset metrics over executable attempts (errors and blocked attempts excluded and
 * counted apart, each with its reason),
 * reliability over --repeat, keynode's own overhead, and the summary.json / summary.csv / table
 * outputs. Reading results from disk is what lets --resume report attempts of an earlier run. */
#ifndef KEYNODE_RUN_SUMMARY_H
#define KEYNODE_RUN_SUMMARY_H

#include <stdio.h>

#include <jansson.h>

#include "keynode/error.h"

/* Whose an attempt's outcome is when it is not a success (docs/formats.md "Faults"): status (the
 * attempt's: done, error, blocked, unjudged, interrupted), whether the task was completed, and the
 * attempt's reason (an error whose reason is "unreachable…" is the site's). "agent", "site",
 * "infrastructure", "judge", or NULL for a success and an interrupted attempt. Static storage. */
const char *kn_run_fault(const char *status, int completed, const char *reason);
/* The faults in the order summary.json and the table list them, and their count. */
#define KN_RUN_FAULTS 4
extern const char *const kn_run_fault_names[KN_RUN_FAULTS];

/* One attempt as its result.json tells it. */
typedef struct kn_run_row {
	char task[256];
	int attempt;             /* 1..K */
	char status[16];         /* "done", "error", "interrupted", "blocked", "unjudged" */
	char end[32];
	char reason[512];
	char eval_status[24];    /* the evaluator's: finished, incomplete, step_limit, error… */
	int completed, functional; /* functional: 1, 0, or -1 when the task has no functional check */
	double reward;           /* purchase reward in [0, 1]; -1 when the task has no purchase */
	double reached, score, efficiency;
	int total, missing, steps;
	double agent_s, overhead_start_s, overhead_end_s;
	int exit_code;           /* -1: none */
	int has_usage;           /* the result has "usage" (KEYNODE_USAGE_FILE) */
	double usd;
	long long input_tokens, output_tokens;
	char model[64];          /* the first model the usage names; "" none */
	char user_agent[256];    /* environment.user_agent; "" none */
	char chromium_version[32]; /* environment.chromium_version; "" none */
	int judged;              /* key nodes the result lists in "judged"; -1: it has no such list */
	char judge[512];         /* the result's judge fingerprint, compact JSON; "" none (or too long) */
} kn_run_row;

/* Parse a result.json document (len bytes at buf) into row. KN_EINVAL with err for anything but a
 * run result with an "attempt" object. */
int kn_run_row_parse(kn_run_row *row, const char *buf, size_t len, kn_err *err);
/* The same from a parsed document j (borrowed). */
int kn_run_row_from_json(kn_run_row *row, const json_t *j, kn_err *err);

/* Read path and parse it. KN_ENOTFOUND when there is no such file. */
int kn_run_row_load(kn_run_row *row, const char *path, kn_err *err);

typedef struct kn_run_totals {
	size_t planned, finished, executable, errors, interrupted, successes;
	size_t blocked;          /* attempts the site refused service to (status blocked) */
	size_t unjudged;         /* attempts a failed judgement left without a verdict (status unjudged) */
	size_t faults[KN_RUN_FAULTS]; /* finished attempts that are not successes, by kn_run_fault */
	size_t ran;              /* attempts finished by this invocation (not kept by --resume) */
	double wall_s;           /* elapsed wall-clock of this invocation */
} kn_run_totals;

/* Count rows into *t (planned, finished, executable, errors, blocked, unjudged, successes,
 * interrupted, faults); planned is given, ran and wall_s are left as they are. */
void kn_run_totals_count(kn_run_totals *t, const kn_run_row *rows, size_t n, size_t planned);

/* A planned task: its id, its site (the start URL's host, else its first URL key node's:
 * kn_task_site) and the SHA-256 of its content (task_digest.c). */
typedef struct kn_run_task {
	const char *id;      /* borrowed */
	char site[256];      /* "" when none */
	char sha256[65];     /* hex; "" when unknown */
} kn_run_task;

/* What summary.json says about the run beside the numbers; every field may be NULL. */
typedef struct kn_run_meta {
	const kn_run_task *tasks;  /* the plan, n_tasks of them (NULL: the tasks the rows name) */
	size_t n_tasks;
	const char *agent, *agent_name, *model; /* --agent, --agent-name, --model */
	const char *tasks_file, *tasks_sha256;  /* the task file and the SHA-256 of its bytes */
	const char *started, *finished;         /* RFC 3339, UTC */
	json_t *environment;                    /* provenance (borrowed), written as is */
	/* the server's replay validation of the task set when the run ended (kn_remote_validation;
	 * borrowed): written as summary.json "validation", its statement printed beside every number */
	json_t *validation;
} kn_run_meta;

/* Write summary.json and summary.csv into dir and the table with the metrics to out (may be
 * NULL). rows: the finished attempts (done or error), any order. repeat: K. meta may be NULL. */
int kn_run_summary_write(const kn_run_row *rows, size_t n, const kn_run_totals *t, int repeat,
                         const kn_run_meta *meta, const char *dir, FILE *out, kn_err *err);

/* The uncertainty keys of summary.json (README.md "Uncertainty": ci95, bootstrap, per_repeat,
 * std_over_repeats, pass_at_k, pass_all_k, pass_k_tasks, per_site, denominators) added to j, from
 * rows planned as meta's tasks (NULL: the rows' tasks) `repeat` times each. KN_ENOMEM. */
int kn_run_summary_stats(json_t *j, const kn_run_row *rows, size_t n, int repeat,
                         const kn_run_meta *meta);

#endif
