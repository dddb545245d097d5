/* task_digest.h — SHA-256 in hex, and a planned task's id, site and content hash for summary.json
 * (task_digest.c). */
#ifndef KEYNODE_RUN_TASK_DIGEST_H
#define KEYNODE_RUN_TASK_DIGEST_H

#include <stddef.h>

#include "keynode/error.h"
#include "keynode/task.h"
#include "summary.h"

/* The SHA-256 of len bytes at buf as 64 lowercase hex digits (out "" if OpenSSL fails). */
void kn_sha256_hex(char out[65], const void *buf, size_t len);

/* The SHA-256 of the file at path. KN_ENOTFOUND, KN_EIO with err. */
int kn_sha256_file_hex(char out[65], const char *path, kn_err *err);

/* out: task's id (borrowed: task must outlive out), site (kn_task_site) and the SHA-256 of its
 * canonical JSON (kn_store_task_json). KN_ENOMEM. */
int kn_run_task_describe(kn_run_task *out, const kn_task *task);

#endif
