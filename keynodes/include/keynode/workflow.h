/* workflow.h — reference workflows kept beside a task file (schemas/workflow.schema.json).
 *
 * A task file (native YAML, or a Mind2Web-Live JSON file kept byte-for-byte as published) says
 * what must be reached; its reference workflow — the steps a replay drives — can live in a
 * folder beside it, one file per task: `workflows/<task-id>.yaml`, written by `keynode record`.
 * A workflow file is YAML: {workflow: 1, task, recorded_at, viewport, start_url, steps}, its steps
 * in task-file syntax plus the record-time fingerprint (test_id, tag, classes, dom_path, frame)
 * and the observed postcondition (`after: {url, navigated, value, held}`; held: the request the
 * step sent that a guard rule held, as a request spec). A value typed into a secret field (a
 * password, a card number, a CVC: redact.h) is never written: the step says `secret: NAME` and a
 * replay types $KN_SECRET_NAME. Loading reuses the task-file YAML loader (kn_load_opts.workflow),
 * so errors carry file:line:col. */
#ifndef KEYNODE_WORKFLOW_H
#define KEYNODE_WORKFLOW_H

#include <stdio.h>

#include "keynode/selector.h" /* kn_selector_check */
#include "keynode/task.h"

#define KN_VIEWPORT_DEFAULT_W 1280
#define KN_VIEWPORT_DEFAULT_H 800

/* Load one workflow file. On success *out is the caller's (kn_taskset_free): one task holding
 * the id of the task it is for, its steps, viewport and start_url. Selectors are checked
 * (kn_selector_check): an invalid one is KN_EINVAL "file:line:col: step N: ...". */
int kn_workflow_load_file(kn_taskset **out, const char *path, kn_err *err);
/* Same from memory (name is used in messages). */
int kn_workflow_load_buffer(kn_taskset **out, const char *buf, size_t len, const char *name,
                            kn_err *err);

/* Called for each workflow file that cannot be attached (kn_workflows_attach); err says why. */
typedef void (*kn_workflow_error_fn)(void *ud, const char *path, const kn_err *err);

/* Attach every workflow file (`*.yaml`, `*.yml`) of dir to the task of set it names: the task's
 * steps are replaced by the workflow's, its viewport set (start_url too when the task has none),
 * task->workflow_file names the file. A file for a task id not in set, a file named otherwise
 * than `<task-id>.yaml`, a malformed file or an invalid selector is an error: with on_error NULL
 * the first one is returned; otherwise each is reported to on_error, the others still attached,
 * and KN_EINVAL returned at the end. *n (optional) counts the attached files. KN_ENOTFOUND when
 * dir cannot be opened. */
int kn_workflows_attach(kn_taskset *set, const char *dir, kn_workflow_error_fn on_error, void *ud,
                        size_t *n, kn_err *err);

/* Attach dir/<task-id>.yaml to t when that file exists (*attached 1), as kn_workflows_attach
 * does; 0 with *attached 0 when there is none (or the id cannot be a file name). An error of the
 * file (malformed, another task's, an invalid selector) is returned with err saying it. */
int kn_workflow_attach_task(kn_task *t, const char *dir, int *attached, kn_err *err);

/* Attach the loaded workflow wf (a task of kn_workflow_load_*) to t, as kn_workflow_attach_task
 * does for a file: t's steps are replaced by wf's (moved out of wf), its viewport set, start_url
 * too when t has none, t->workflow_file set to source (a file name or any label, e.g. "stored
 * workflow version 3"). KN_EINVAL when wf is another task's (err names both ids). */
int kn_workflow_apply(kn_task *t, kn_task *wf, const char *source, kn_err *err);

/* The default workflow folder of a task file: `workflows/` in the task file's folder. Writes it
 * to buf and returns 1 when that folder exists, else 0. */
int kn_workflows_default_dir(char *buf, size_t cap, const char *tasks_path);

/* Write task's steps as a workflow file (format 1) to f: recorded_at (RFC 3339, may be NULL),
 * the viewport (0: the default), every field of each step. 0 or KN_EIO. */
int kn_workflow_write(FILE *f, const kn_task *task, const char *recorded_at);
/* One step as kn_workflow_write writes it ("  - verb: {…}" and its "    after: {…}" line). */
void kn_workflow_write_step(FILE *f, const kn_step *st);
/* s as a YAML double-quoted scalar (escapes ", \, control characters). */
void kn_workflow_put_str(FILE *f, const char *s);

#endif
