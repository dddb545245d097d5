/* run_rows.h — attempt rows (kn_run_row) as compact text, so a finished agent batch's rows are read
 * back without parsing a megabyte of JSON (a comparison of two batches of a year's data
 * spent most of its time in jansson; rundir_batch.c stores the packed text in agent_batch_stats).
 *
 * The text: a first line "keynode-rows 1", a head line (a JSON object, compact: one line), then one
 * line per row of 28 tab-separated fields in kn_run_row's order (task, attempt, status, end, reason,
 * eval_status, completed, functional, reward, reached, score, efficiency, total, missing, steps,
 * agent_s, overhead_start_s, overhead_end_s, exit_code, has_usage, usd, input_tokens,
 * output_tokens, model, user_agent, chromium_version, judged, judge; rows of 26 fields, packed before
 * the last two, read back with judged -1 and judge ""). Strings escape \ tab LF CR as \\ \t \n \r;
 * numbers are printed so that they read back bit for bit (%.17g). */
#ifndef KEYNODE_RUN_ROWS_H
#define KEYNODE_RUN_ROWS_H

#include <stddef.h>

#include <jansson.h>

#include "keynode/error.h"
#include "summary.h"

/* *out: the text of head (borrowed, may be NULL: {}) and rows[0..n), the caller's (free). KN_ENOMEM. */
int kn_run_rows_pack(char **out, const json_t *head, const kn_run_row *rows, size_t n, kn_err *err);

/* Read text back: *head (the caller's), *rows (calloc'd, n + 1 of them, the caller's) and *n. At
 * most max rows. Anything but what kn_run_rows_pack writes — another first line, a malformed
 * head, a row with a wrong number of fields, a bad escape, a string too long for its field, a
 * number that does not read whole, an unknown status, missing > total — is KN_EINVAL with the line
 * number (nothing returned); over max rows KN_ELIMIT. */
int kn_run_rows_unpack(const char *text, json_t **head, kn_run_row **rows, size_t *n, size_t max,
                       kn_err *err);

#endif
