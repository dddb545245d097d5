/* rundir.h — a `keynode run` output folder read back (rundir.c), for keynode compare and keynode
 * leaderboard: every attempt's result.json (DIR/<task>/<k>/result.json; tries set aside as
 * <k>.error-N are not attempts) and what summary.json says about the run (its plan, the tasks'
 * hashes and sites, the agent, the environment), so folders written by any version compare.
 * An agent batch of the job queue reads the same way (rundir_batch.c), for the dashboard. */
#ifndef KEYNODE_RUN_RUNDIR_H
#define KEYNODE_RUN_RUNDIR_H

#include <stdint.h>

#include <jansson.h>

#include "keynode/error.h"
#include "summary.h"

#define KN_RUNDIR_MAX_ATTEMPTS 200000 /* result.json files read from one folder */

typedef struct kn_rundir {
	char *path;
	kn_run_row *rows;        /* every attempt with a result.json (any status), folder order */
	size_t n_rows;
	kn_run_task *tasks;      /* the plan: summary.json task_set.tasks, else the rows' tasks */
	size_t n_tasks;
	int hashes;              /* 1 when every planned task has a content hash */
	int repeat;              /* summary.json reliability.repeat, at least the highest k seen */
	json_t *summary;         /* summary.json, NULL when the folder has none; a batch: the store's
	                            kn_store_agent_batch_results_json without "results", with the batch's
	                            "environment" (the head of its packed rows; the strings borrow it) */
	kn_run_meta meta;        /* agent, model, task file and hash, dates, environment (borrowed) */
} kn_rundir;

/* Read the run folder dir. *out is the caller's (kn_rundir_free). Errors name the file:
 * KN_ENOTFOUND (no such folder), KN_EINVAL (not a run folder: neither summary.json nor any
 * <task>/<k>/result.json; a malformed result.json or summary.json, with its path), KN_ELIMIT,
 * KN_EIO, KN_ENOMEM. */
int kn_rundir_load(kn_rundir **out, const char *dir, kn_err *err);
void kn_rundir_free(kn_rundir *d);
/* Append planned task t ({task, site, sha256}; borrowed: d->tasks point into it) to d->tasks, which
 * has room; a task without an id is skipped, d->hashes cleared when it has no 64-hex-digit hash. */
void kn_rundir_add_task(kn_rundir *d, const json_t *t);

/* The folder's judge fingerprint (keynode/judge_fingerprint.h): summary.json's "judge" or its
 * environment's, else that of the first result.json with one. A new reference; NULL when none
 * says (results written before fingerprints: the judge is unknown). */
json_t *kn_rundir_judge(const kn_rundir *d);
/* kn_judge_fingerprint_diff of the two folders' fingerprints: the differing fields into out;
 * their number, 0 judged alike, -1 unknown (a folder without a fingerprint). */
int kn_rundir_judge_diff(char *out, size_t cap, const kn_rundir *a, const kn_rundir *b);

/* Read agent batch `batch` of the store (kn_store_agent_batch_results_json) as a run: its plan
 * (ids TASKSET:TASK, sites and the hashes of what the scorer reads of the task versions, so two
 * batches pair on tasks whose key nodes are the same), every stored attempt, K the
 * batch's repeat, the agent's name and the environment of the first attempt whose browser said
 * its version (else of the first attempt). path is "agent batch N".
 * A stored result that does not parse is left out. snapshot > 0: the attempts scored on that
 * snapshot's versions (their rescores; one without is left out). KN_ENOTFOUND no such batch, store
 * errors, KN_ENOMEM. */
struct kn_store;
int kn_rundir_from_batch(kn_rundir **out, struct kn_store *st, int64_t batch, int64_t snapshot, kn_err *err);

/* The GET /api/agent-runs/{id} answer of batch (services/http/API.md AGENT_BATCH with "stats"; view > 0:
 * on that snapshot), *out JSON text, the caller's. A finished batch on its own snapshot is computed
 * once (batch_page.c). KN_ENOTFOUND no such batch, store errors, KN_ENOMEM. */
int kn_batch_page(struct kn_store *st, int64_t batch, int64_t view, char **out, kn_err *err);
/* When batch is finished and its answer or its packed attempts are not stored yet: compute and store
 * them (the worker that stores the last attempt, or an idle one, so no reader waits for it). */
int kn_batch_page_warm(struct kn_store *st, int64_t batch, kn_err *err);

#endif
