/* bench_ingest.c — events/s into PostgreSQL: through kn_store_events_append directly (one
 * statement per batch, batch sizes 1…2000) and through kn_ingest (enqueue from one thread, the
 * writer batching; batch_max 100…2000), each ended by kn_ingest_sync so only stored events count.
 * It starts nothing: run it against a cluster by hand (tests/integration/lib.sh's kn_pg_start, or
 * any database `keynode migrate` has prepared). Event lines are ~150-byte trajectory lines.
 * usage: KN_PG_URL=conninfo bench_ingest [RESULT_FILE]   (appends its lines to RESULT_FILE) */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "keynode/clock.h"
#include "store.h"

static const char yaml[] = "tasks:\n  - id: bench\n    intent: bench\n    start_url: http://127.0.0.1/\n"
                           "    key_nodes:\n      - url: { include: \"/x\" }\n";

static char *line_for(long i)
{
	char *l = malloc(200);
	snprintf(l, 200, "{\"t\": %ld.%03ld, \"type\": \"click\", \"tab\": \"T1\", \"url\": "
	         "\"http://127.0.0.1:8100/shop/item/%ld\", \"selector\": \"#add-to-cart\", \"text\": \"Add\"}",
	         i / 1000, i % 1000, i);
	return l;
}

static void emit(FILE *out, const char *what, double v, long n, int batch, const char *end)
{
	char line[200];
	snprintf(line, sizeof line, "%-8s batch=%-5d events=%-7ld %10.0f events/s%s", what, batch, n, v, end);
	fputs(line, stdout);
	if (out)
		fputs(line, out);
}

int main(int argc, char **argv)
{
	const char *url = getenv("KN_PG_URL");
	if (!url) {
		fprintf(stderr, "usage: KN_PG_URL=conninfo bench_ingest [RESULT_FILE]\n");
		return 2;
	}
	FILE *out = argc > 1 ? fopen(argv[1], "a") : NULL;
	kn_err err;
	kn_store *st;
	kn_taskset *set = NULL;
	int64_t v;
	if (kn_store_open(&st, url, &err) || kn_store_migrate(st, NULL, NULL, &err) ||
	    kn_taskset_load_buffer(&set, yaml, strlen(yaml), "bench.yaml", NULL, &err) ||
	    kn_store_taskset_put(st, "bench", "bench.yaml", set, NULL, NULL, &err) ||
	    kn_store_task_resolve(st, "bench:bench", &v, &err)) {
		fprintf(stderr, "bench_ingest: %s\n", err.msg);
		return 2;
	}
	kn_taskset_free(set);
	long tag = (long)time(NULL) ^ (long)getpid() << 16;
	const long N = 100000;
	char **lines = malloc((size_t)N * sizeof *lines);
	for (long i = 0; i < N; i++)
		lines[i] = line_for(i);
	char hdr[160];
	snprintf(hdr, sizeof hdr, "# bench_ingest %s, ~%zu-byte event lines, 2 vCPU shared\n", "kn_store/kn_ingest",
	         strlen(lines[0]));
	fputs(hdr, stdout);
	if (out)
		fputs(hdr, out);

	/* direct appends */
	static const int batches[] = {1, 10, 100, 500, 2000};
	for (size_t b = 0; b < sizeof batches / sizeof *batches; b++) {
		int bs = batches[b];
		long n = bs == 1 ? 5000 : bs == 10 ? 20000 : N;
		char run_id[64];
		snprintf(run_id, sizeof run_id, "bench-%lx-direct-%d", tag, bs);
		kn_store_run run = {run_id, v, "agent", NULL, "2026-11-23T00:00:00Z", NULL, 0};
		kn_store_run_start(st, &run, &err);
		double t0 = kn_time_mono_s();
		for (long i = 0; i < n; i += bs) {
			long m = n - i < bs ? n - i : bs;
			if (kn_store_events_append(st, run_id, i + 1, (const char *const *)lines + i, (size_t)m, &err)) {
				fprintf(stderr, "bench_ingest: %s\n", err.msg);
				return 1;
			}
		}
		emit(out, "direct", (double)n / (kn_time_mono_s() - t0), n, bs, "\n");
	}

	/* through kn_ingest */
	static const int ibatches[] = {100, 500, 2000};
	for (size_t b = 0; b < sizeof ibatches / sizeof *ibatches; b++) {
		char dir[] = "/tmp/kn-bench-spool-XXXXXX";
		if (!mkdtemp(dir))
			return 1;
		kn_ingest_opts o = {.conninfo = url, .spool_dir = dir, .batch_max = ibatches[b]};
		kn_ingest *in;
		if (kn_ingest_new(&in, &o, &err)) {
			fprintf(stderr, "bench_ingest: %s\n", err.msg);
			return 1;
		}
		char run_id[64];
		snprintf(run_id, sizeof run_id, "bench-%lx-ingest-%d", tag, ibatches[b]);
		kn_store_run run = {run_id, v, "agent", NULL, "2026-11-23T00:00:00Z", NULL, 0};
		double t0 = kn_time_mono_s();
		kn_ingest_run_start(in, &run, &err);
		for (long i = 0; i < N; i++)
			kn_ingest_event(in, run_id, i + 1, lines[i], &err);
		double t_enq = kn_time_mono_s() - t0;
		if (kn_ingest_sync(in, 300000, &err)) {
			fprintf(stderr, "bench_ingest: %s\n", err.msg);
			return 1;
		}
		double dt = kn_time_mono_s() - t0;
		kn_ingest_stats s;
		kn_ingest_get_stats(in, &s);
		kn_ingest_free(in);
		char p[200];
		snprintf(p, sizeof p, "%s/spool.log", dir);
		unlink(p);
		rmdir(dir);
		emit(out, "ingest", (double)N / dt, N, ibatches[b], " stored");
		char tail[160];
		snprintf(tail, sizeof tail, " (enqueue alone %.0f/s, %" PRIu64 " statements)\n", (double)N / t_enq,
		         s.batches);
		fputs(tail, stdout);
		if (out)
			fputs(tail, out);
	}
	for (long i = 0; i < N; i++)
		free(lines[i]);
	free(lines);
	kn_store_free(st);
	if (out)
		fclose(out);
	return 0;
}
