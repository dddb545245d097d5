/* bench_spool.c — the cost of the spool's fsync policy (services/store/spool.h): kn_ingest
 * acknowledges a record spooled while the database is down only after kn_spool_sync
 * (fdatasync), one sync covering every record appended before it. Measured: appends of ~150-byte
 * event records with no sync, with a sync after every record (a caller acknowledging one event
 * per request, the worst case), and with a sync every 20 and every 500 records (a POST of 20
 * events; a big batch). The directory must be on the disk the service spools to (not tmpfs).
 * usage: bench_spool DIR [N] [RESULT_FILE]   (DIR is created; spool.log in it is removed after) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "keynode/clock.h"
#include "spool.h"

static int round_(const char *dir, long n, long every, FILE *out)
{
	kn_err err;
	kn_spool *sp;
	if (kn_spool_open(&sp, dir, 0, &err) != 0) {
		fprintf(stderr, "bench_spool: %s\n", err.msg);
		return 1;
	}
	kn_spool_truncate(sp, &err);
	char text[200], run_id[] = "r-bench";
	kn_spool_rec r = {.kind = KN_SPOOL_EVENT, .run_id = run_id, .text = text};
	long syncs = 0;
	double t0 = kn_time_mono_s();
	for (long i = 1; i <= n; i++) {
		snprintf(text, sizeof text, "{\"t\": %ld.%03ld, \"type\": \"click\", \"tab\": \"T1\", \"url\": "
		         "\"http://127.0.0.1:8100/shop/item/%ld\", \"selector\": \"#add-to-cart\"}",
		         i / 1000, i % 1000, i);
		r.seq = i;
		if (kn_spool_append(sp, &r, &err) != 0) {
			fprintf(stderr, "bench_spool: %s\n", err.msg);
			return 1;
		}
		if (every && i % every == 0) {
			kn_spool_sync(sp, kn_spool_size(sp), &err);
			syncs++;
		}
	}
	double dt = kn_time_mono_s() - t0;
	char line[200];
	snprintf(line, sizeof line, "spool    sync_every=%-5ld records=%-7ld %10.0f records/s %8.1f us/sync\n",
	         every, n, (double)n / dt, syncs ? dt * 1e6 / (double)syncs : 0.0);
	fputs(line, stdout);
	if (out)
		fputs(line, out);
	kn_spool_truncate(sp, &err);
	kn_spool_close(sp);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: bench_spool DIR [N] [RESULT_FILE]\n");
		return 2;
	}
	long n = argc > 2 ? strtol(argv[2], NULL, 10) : 20000;
	FILE *out = argc > 3 ? fopen(argv[3], "a") : NULL;
	static const long every[] = {0, 1, 20, 500};
	int rc = 0;
	for (size_t i = 0; i < sizeof every / sizeof every[0] && !rc; i++)
		rc = round_(argv[1], every[i] == 1 ? n / 4 : n, every[i], out);
	if (out)
		fclose(out);
	char path[4096];
	snprintf(path, sizeof path, "%s/spool.log", argv[1]);
	unlink(path);
	snprintf(path, sizeof path, "%s/spool.lock", argv[1]);
	unlink(path);
	return rc;
}
