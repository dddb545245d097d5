/* bench_semantic.c — quality and speed of the offline semantic judge on the hand-labelled
 * calibration set (tests/data/semantic/calibration.tsv): accuracy, precision, recall and false
 * positive rate at the default threshold (KN_SEMANTIC_THRESHOLD) on each split (dev: looked at
 * while building the judge; held: never tuned on; blind: written after the judge was built) and
 * on all pairs; a threshold sweep 0.50–0.90; judgments per CPU-second.
 * usage: bench_semantic CALIBRATION.tsv [RESULT_FILE] [--errors]
 *   appends one line of results to RESULT_FILE; --errors explains every misjudged pair. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "keynode/match.h"

typedef struct pair {
	char *rule, *input, *split, *note;
	int label;
	double score;
} pair;

typedef struct counts {
	int tp, fp, tn, fn;
} counts;

static double now(clockid_t clk)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Reads the TSV (header first; columns rule, input, label, split, note). */
static pair *load(const char *path, size_t *n)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char line[4096];
	pair *v = NULL;
	size_t cap = 0;
	*n = 0;
	int header = 1;
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (header || !*line) {
			header = 0;
			continue;
		}
		char *col[5] = { 0 }, *s = line;
		for (int i = 0; i < 5 && s; i++) {
			col[i] = s;
			s = strchr(s, '\t');
			if (s)
				*s++ = '\0';
		}
		if (!col[4] || (strcmp(col[2], "0") != 0 && strcmp(col[2], "1") != 0)) {
			fprintf(stderr, "bench_semantic: %s: bad line %zu\n", path, *n + 2);
			exit(1);
		}
		if (*n == cap) {
			cap = cap ? cap * 2 : 256;
			v = realloc(v, cap * sizeof *v);
			if (!v)
				exit(1);
		}
		v[*n] = (pair){ strdup(col[0]), strdup(col[1]), strdup(col[3]), strdup(col[4]), col[2][0] == '1', 0 };
		(*n)++;
	}
	fclose(f);
	return v;
}

static counts count(const pair *v, size_t n, const char *split, double thr)
{
	counts c = { 0 };
	for (size_t i = 0; i < n; i++) {
		if (split && strcmp(v[i].split, split) != 0)
			continue;
		int yes = v[i].score >= thr;
		if (v[i].label)
			yes ? c.tp++ : c.fn++;
		else
			yes ? c.fp++ : c.tn++;
	}
	return c;
}

static double pct(int a, int b)
{
	return b ? 100.0 * a / b : 0;
}

static void report(FILE *out, const char *name, counts c)
{
	int total = c.tp + c.fp + c.tn + c.fn;
	fprintf(out, "  %-9s %3d pairs: accuracy %5.1f%%  precision %5.1f%%  recall %5.1f%%  FPR %4.1f%%"
	        "  (TP %d FP %d TN %d FN %d)\n",
	        name, total, pct(c.tp + c.tn, total), pct(c.tp, c.tp + c.fp), pct(c.tp, c.tp + c.fn),
	        pct(c.fp, c.fp + c.tn), c.tp, c.fp, c.tn, c.fn);
}

int main(int argc, char **argv)
{
	const char *tsv = NULL, *results = NULL;
	int errors = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--errors") == 0)
			errors = 1;
		else if (!tsv)
			tsv = argv[i];
		else
			results = argv[i];
	}
	if (!tsv) {
		fprintf(stderr, "usage: bench_semantic CALIBRATION.tsv [RESULT_FILE] [--errors]\n");
		return 2;
	}
	size_t n;
	pair *v = load(tsv, &n);
	if (!v || !n) {
		fprintf(stderr, "bench_semantic: cannot read %s\n", tsv);
		return 1;
	}
	const kn_semantic *sem = kn_semantic_offline();
	const double thr = KN_SEMANTIC_THRESHOLD;
	for (size_t i = 0; i < n; i++) {
		kn_err err = { 0 };
		if (sem->judge(sem->ud, v[i].rule, NULL, v[i].input, &v[i].score, &err) < 0) {
			fprintf(stderr, "bench_semantic: %s\n", err.msg);
			return 1;
		}
	}

	counts dev = count(v, n, "dev", thr), held = count(v, n, "held", thr), blind = count(v, n, "blind", thr),
	       all = count(v, n, NULL, thr);
	printf("offline semantic judge on %s, threshold %.2f\n", tsv, thr);
	report(stdout, "dev", dev);
	report(stdout, "held-out", held);
	report(stdout, "blind", blind);
	report(stdout, "all", all);
	printf("  sweep (all pairs):\n");
	for (int k = 0; k <= 8; k++) {
		double t = 0.5 + 0.05 * k;
		counts c = count(v, n, NULL, t);
		int total = c.tp + c.fp + c.tn + c.fn;
		printf("    %.2f  accuracy %5.1f%%  precision %5.1f%%  recall %5.1f%%  FPR %4.1f%%\n", t,
		       pct(c.tp + c.tn, total), pct(c.tp, c.tp + c.fp), pct(c.tp, c.tp + c.fn), pct(c.fp, c.fp + c.tn));
	}
	if (errors) {
		printf("  misjudged at %.2f:\n", thr);
		for (size_t i = 0; i < n; i++) {
			if ((v[i].score >= thr) == v[i].label)
				continue;
			char *why = NULL;
			double s;
			kn_semantic_offline_explain(&why, &s, v[i].rule, NULL, v[i].input);
			printf("  [%s] label %d score %.3f  <%s> vs <%s>  (%s)\n%s", v[i].split, v[i].label,
			       v[i].score, v[i].rule, v[i].input, v[i].note, why ? why : "");
			free(why);
		}
	}

	/* speed: judge the whole set over and over for at least a CPU-second */
	size_t judged = 0;
	double t0 = now(CLOCK_PROCESS_CPUTIME_ID), w0 = now(CLOCK_MONOTONIC), cpu;
	do {
		for (size_t i = 0; i < n; i++) {
			double s;
			sem->judge(sem->ud, v[i].rule, NULL, v[i].input, &s, NULL);
		}
		judged += n;
	} while ((cpu = now(CLOCK_PROCESS_CPUTIME_ID) - t0) < 1.0);
	double wall = now(CLOCK_MONOTONIC) - w0, jn = (double)judged;
	printf("  speed: %.0f judgments per CPU-second (%.1f us each; %zu judgments, %.2f s CPU, %.2f s wall)\n",
	       jn / cpu, 1e6 * cpu / jn, judged, cpu, wall);

	if (results) {
		FILE *f = fopen(results, "a");
		if (!f) {
			fprintf(stderr, "bench_semantic: cannot append to %s\n", results);
			return 1;
		}
		struct utsname u;
		uname(&u);
		char date[32];
		time_t tt = time(NULL);
		strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&tt));
		int dn = dev.tp + dev.fp + dev.tn + dev.fn, hn = held.tp + held.fp + held.tn + held.fn,
		    bn = blind.tp + blind.fp + blind.tn + blind.fn, an = all.tp + all.fp + all.tn + all.fn;
		fprintf(f, "%s bench_semantic host=%s/%s pairs=%zu threshold=%.2f dev_acc=%.1f dev_fpr=%.1f "
		        "held_acc=%.1f held_fpr=%.1f blind_acc=%.1f blind_fpr=%.1f all_acc=%.1f all_prec=%.1f "
		        "all_rec=%.1f all_fpr=%.1f judgments_per_cpu_s=%.0f\n",
		        date, u.nodename, u.machine, n, thr, pct(dev.tp + dev.tn, dn), pct(dev.fp, dev.fp + dev.tn),
		        pct(held.tp + held.tn, hn), pct(held.fp, held.fp + held.tn), pct(blind.tp + blind.tn, bn),
		        pct(blind.fp, blind.fp + blind.tn), pct(all.tp + all.tn, an),
		        pct(all.tp, all.tp + all.fp), pct(all.tp, all.tp + all.fn), pct(all.fp, all.fp + all.tn),
		        jn / cpu);
		fclose(f);
	}
	for (size_t i = 0; i < n; i++) {
		free(v[i].rule);
		free(v[i].input);
		free(v[i].split);
		free(v[i].note);
	}
	free(v);
	return 0;
}
