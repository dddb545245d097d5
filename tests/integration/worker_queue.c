/* worker_queue.c — the producer side of the job queue for tests/integration/worker.sh, through the
 * real store (services/store): load a task file into the database under a task-set name (printing
 * each task's id and current version), and enqueue replay jobs for a version. What a scheduler or
 * `POST /api/replays` does, without the service.
 * usage: worker_queue put CONNINFO SETNAME TASKFILE     → "TASK VERSION" per line
 *        worker_queue enqueue CONNINFO VERSION N [SCHEDULE] → the job ids, one per line
 * exit: 0 done, 1 a store error (said on stderr), 2 usage */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"

static int put(kn_store *st, const char *name, const char *file)
{
	kn_err err = {0};
	kn_taskset *set = NULL;
	int64_t set_id;
	size_t fresh;
	if (kn_taskset_load_file(&set, file, NULL, &err) != 0 ||
	    kn_store_taskset_put(st, name, file, set, &set_id, &fresh, &err) != 0) {
		fprintf(stderr, "worker_queue: %s\n", err.msg);
		kn_taskset_free(set);
		return 1;
	}
	int rc = 0;
	for (size_t i = 0; i < set->n_tasks && !rc; i++) {
		char ref[512];
		int64_t version;
		snprintf(ref, sizeof ref, "%s:%s", name, set->tasks[i].id);
		if (kn_store_task_resolve(st, ref, &version, &err) != 0) {
			fprintf(stderr, "worker_queue: %s: %s\n", ref, err.msg);
			rc = 1;
		} else {
			printf("%s %" PRId64 "\n", set->tasks[i].id, version);
		}
	}
	kn_taskset_free(set);
	return rc;
}

static int enqueue(kn_store *st, const char *version_text, const char *n_text, const char *schedule)
{
	char *end;
	long long version = strtoll(version_text, &end, 10);
	long n = strtol(n_text, &end, 10);
	if (version <= 0 || n <= 0 || n > 1000000 || *end) {
		fprintf(stderr, "worker_queue: bad VERSION or N\n");
		return 2;
	}
	for (long i = 0; i < n; i++) {
		kn_err err = {0};
		int64_t id;
		if (kn_store_job_enqueue(st, version, schedule, &id, &err) != 0) {
			fprintf(stderr, "worker_queue: enqueue: %s\n", err.msg);
			return 1;
		}
		printf("%" PRId64 "\n", id);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 5 || (strcmp(argv[1], "put") != 0 && strcmp(argv[1], "enqueue") != 0)) {
		fprintf(stderr, "usage: worker_queue put CONNINFO SETNAME TASKFILE\n"
		                "       worker_queue enqueue CONNINFO VERSION N [SCHEDULE]\n");
		return 2;
	}
	kn_err err = {0};
	kn_store *st = NULL;
	if (kn_store_open(&st, argv[2], &err) != 0) {
		fprintf(stderr, "worker_queue: %s\n", err.msg);
		return 1;
	}
	int rc = strcmp(argv[1], "put") == 0 ? put(st, argv[3], argv[4])
	                                     : enqueue(st, argv[3], argv[4], argc > 5 ? argv[5] : "test");
	kn_store_free(st);
	return rc;
}
