/* bench_jobs.c — job claim throughput of the replay queue (services/store) with concurrent
 * claimers: N jobs with an empty body are enqueued, then T threads, each on its own connection,
 * claim (FOR UPDATE SKIP LOCKED with a lease) and complete (result + job done in one transaction)
 * until the queue is empty. Reports claims/s (wall), and checks the outcome: every job done exactly
 * once, no claim lost. The target is ≥ 500 claims/s with 4 claimers.
 * usage: bench_jobs CONNINFO [JOBS (default 5000)] [THREADS (default 4)] [RESULT_FILE] */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "keynode/clock.h"
#include "store.h"

static const char tasks_yaml[] =
	"tasks:\n"
	"  - id: bench-empty\n"
	"    intent: \"an empty job body for the claim benchmark\"\n"
	"    start_url: http://127.0.0.1:9/\n"
	"    key_nodes:\n"
	"      - id: k\n"
	"        url: { include: \"/\" }\n";

struct claimer {
	const char *conninfo;
	char name[32];
	long claimed, completed, errors;
	pthread_t th;
};

static void *claim_main(void *arg)
{
	struct claimer *c = arg;
	kn_err err = {0};
	kn_store *st = NULL;
	if (kn_store_open(&st, c->conninfo, &err) != 0) {
		fprintf(stderr, "bench_jobs: %s\n", err.msg);
		c->errors++;
		return NULL;
	}
	for (;;) {
		kn_store_job job;
		int r = kn_store_job_claim(st, c->name, 30, &job, &err);
		if (r == 0)
			break;
		if (r < 0) {
			fprintf(stderr, "bench_jobs: claim: %s\n", err.msg);
			c->errors++;
			break;
		}
		c->claimed++;
		int64_t replay;
		r = kn_store_job_complete(st, job.id, c->name, "passed", NULL, "{}", NULL, 0, &replay, &err);
		if (r == 0)
			c->completed++;
		else {
			fprintf(stderr, "bench_jobs: complete: %s\n", err.msg);
			c->errors++;
		}
	}
	kn_store_free(st);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: bench_jobs CONNINFO [JOBS] [THREADS] [RESULT_FILE]\n");
		return 2;
	}
	const char *conninfo = argv[1];
	long jobs = argc > 2 ? strtol(argv[2], NULL, 10) : 5000;
	int threads = argc > 3 ? (int)strtol(argv[3], NULL, 10) : 4;
	if (jobs < 1 || threads < 1 || threads > 64) {
		fprintf(stderr, "bench_jobs: bad JOBS or THREADS\n");
		return 2;
	}
	kn_err err = {0};
	kn_store *st = NULL;
	kn_taskset *set = NULL;
	int64_t set_id, version;
	size_t fresh;
	if (kn_store_open(&st, conninfo, &err) != 0 ||
	    kn_taskset_load_buffer(&set, tasks_yaml, sizeof tasks_yaml - 1, "bench.yaml", NULL, &err) != 0 ||
	    kn_store_taskset_put(st, "bench", "bench.yaml", set, &set_id, &fresh, &err) != 0 ||
	    kn_store_task_resolve(st, "bench:bench-empty", &version, &err) != 0) {
		fprintf(stderr, "bench_jobs: %s\n", err.msg);
		return 1;
	}
	double t0 = kn_time_mono_s();
	for (long i = 0; i < jobs; i++) {
		int64_t id;
		if (kn_store_job_enqueue(st, version, "bench", &id, &err) != 0) {
			fprintf(stderr, "bench_jobs: enqueue: %s\n", err.msg);
			return 1;
		}
	}
	double enq = kn_time_mono_s() - t0;

	struct claimer *cs = calloc((size_t)threads, sizeof *cs);
	t0 = kn_time_mono_s();
	for (int i = 0; i < threads; i++) {
		cs[i].conninfo = conninfo;
		snprintf(cs[i].name, sizeof cs[i].name, "bench-%d", i);
		pthread_create(&cs[i].th, NULL, claim_main, &cs[i]);
	}
	long claimed = 0, completed = 0, errors = 0;
	for (int i = 0; i < threads; i++) {
		pthread_join(cs[i].th, NULL);
		claimed += cs[i].claimed, completed += cs[i].completed, errors += cs[i].errors;
	}
	double wall = kn_time_mono_s() - t0;
	free(cs);

	struct utsname u;
	uname(&u);
	char line[512];
	snprintf(line, sizeof line,
	         "bench_jobs %s %s: %ld jobs, %d claimers: %.0f claim+complete/s (%.2f s), enqueue %.0f/s, "
	         "claimed %ld completed %ld errors %ld%s",
	         u.machine, u.release, jobs, threads, (double)completed / wall, wall, (double)jobs / enq, claimed,
	         completed, errors, claimed == jobs && completed == jobs && !errors ? "" : " MISMATCH");
	puts(line);
	if (argc > 4) {
		FILE *f = fopen(argv[4], "a");
		if (f) {
			fprintf(f, "%s\n", line);
			fclose(f);
		}
	}
	kn_taskset_free(set);
	kn_store_free(st);
	return claimed == jobs && completed == jobs && !errors ? 0 : 1;
}
