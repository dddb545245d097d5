/* compare.h — the paired comparison of two runs on the tasks both ran: `keynode compare` prints it
 * (services/cli/cmd_compare.c) and the dashboard shows it for two agent batches
 * (GET /api/agent-runs/compare, services/runs/api_agent_runs.c). One implementation, so a batch
 * compared on the dashboard and the same attempts compared as folders give the same numbers.
 *
 * Tasks pair on id and content hash (kn_run_task.sha256; tasks without one pair on id, with a
 * warning); the others are listed (only_a, only_b, changed), never mixed in. For every rate: A,
 * B, B − A and its paired-bootstrap 95 % interval (stats.h); per task the share of executable
 * attempts that succeeded, won / lost / tied; the exact sign test on won against lost; warnings
 * when task sets, environments or repeats differ, and when the two were judged differently
 * ("judge": both judge fingerprints, whether they are the same and the fields that differ). The JSON shape is `keynode compare --json`'s
 * (README.md "Publishing results"). */
#ifndef KEYNODE_RUN_COMPARE_H
#define KEYNODE_RUN_COMPARE_H

#include <jansson.h>

#include "keynode/error.h"
#include "rundir.h"

/* The comparison of b (the change) with a (the baseline). Borrows a and b. NULL with err
 * (KN_ENOMEM) when out of memory. */
json_t *kn_run_compare(const kn_rundir *a, const kn_rundir *b, kn_err *err);

#endif
