/* store_test.h — what the parts of store_test share (store_test.c holds them and main; the cmocka
 * tests live in store_test_tasks.c, store_test_runs.c and store_test_ingest.c, the durability modes
 * driven by store.sh in store_test_ingest.c). */
#ifndef KEYNODE_STORE_TEST_H
#define KEYNODE_STORE_TEST_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <libpq-fe.h>

#include "keynode/purchase.h"
#include "store.h"
#include "verdict.h"

extern const char *pg_url; /* env KN_PG_URL */
extern kn_store *st;       /* opened and migrated by the cmocka group setup */
extern const char yaml_v1[]; /* two tasks, the first with steps */

/* helpers (store_test.c); each fails the current cmocka test on error */
kn_taskset *load_yaml(const char *text);
json_t *parse(const char *text);
int64_t sql_int(const char *sql);
void sql_exec(const char *sql);
int64_t version_of(const char *ref);
void has_keys(const json_t *o, const char *const *keys);

/* the cmocka tests */
void test_migrate_rerun(void **state);
void test_migrate_failure_rolls_back(void **state);
void test_migrate_concurrent(void **state);
void test_task_versions(void **state);
void test_task_purchase(void **state);
void test_task_guard(void **state);
void test_injection_verbatim(void **state);
void test_events_once(void **state);
void test_run_finish_idempotent(void **state);
void test_jobs_lease(void **state);
void test_jobs_concurrent_claims(void **state);
void test_health(void **state);
void test_alerts_notify(void **state);
void test_verdicts(void **state);
void test_ingest_live(void **state);
void test_ingest_down_cap(void **state);
void test_connection_loss(void **state);

/* the durability modes (store_test_ingest.c); each returns the process's exit code */
int mode_outage(const char *dir, const char *ready, const char *go, long n);
int mode_spool_only(const char *dir, const char *ready, long n);
int mode_recover(const char *dir, long n);
int mode_version(void);

#endif
