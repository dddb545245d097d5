/* bench_eval.c — throughput of the core: events/s through kn_eval_feed with the Mind2Web-Live
 * test set loaded (a synthetic stream of 1,000,000 events built from the tasks' own key nodes, so
 * nodes are reached and URLs change as in real runs), and the time to load both task files.
 * usage: bench_eval SHARED_DIR [RESULT_FILE]   (appends one line of results to RESULT_FILE) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include <curl/curl.h>

#include "keynode/eval.h"

#define EVENTS 1000000
#define RUN_LEN 20

static double now(clockid_t clk)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* page + "?page=N", kept in pool for freeing */
static const char *page_url(char **pool, size_t *np, const char *page, int n)
{
	char buf[2048];
	snprintf(buf, sizeof buf, "%s?page=%d", page, n);
	return pool[(*np)++] = strdup(buf);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: bench_eval SHARED_DIR [RESULT_FILE]\n");
		return 2;
	}
	curl_global_init(CURL_GLOBAL_DEFAULT);
	char test_path[1024], ex_path[1024];
	snprintf(test_path, sizeof test_path, "%s/data/mind2web-live/mind2web-live_test_20241024.json", argv[1]);
	snprintf(ex_path, sizeof ex_path, "%s/data/mind2web-live/example_130.json", argv[1]);

	/* loading */
	kn_taskset *set = NULL;
	kn_err err;
	int loads = 50;
	double t0 = now(CLOCK_MONOTONIC);
	for (int i = 0; i < loads; i++) {
		kn_taskset_free(set);
		if (kn_taskset_load_file(&set, ex_path, NULL, &err)) {
			fprintf(stderr, "%s\n", err.msg);
			return 1;
		}
	}
	double load_ex = (now(CLOCK_MONOTONIC) - t0) / loads;
	kn_taskset_free(set);
	set = NULL;
	t0 = now(CLOCK_MONOTONIC);
	for (int i = 0; i < loads; i++) {
		kn_taskset_free(set);
		if (kn_taskset_load_file(&set, test_path, NULL, &err)) {
			fprintf(stderr, "%s\n", err.msg);
			return 1;
		}
	}
	double load_test = (now(CLOCK_MONOTONIC) - t0) / loads;

	/* the stream: runs of RUN_LEN events per task, round robin over the 104 tasks; each run
	 * visits its task's annotated URLs, types and clicks the reference selectors, and answers */
	kn_event *ev = calloc(EVENTS, sizeof *ev);
	size_t *task_of = calloc(EVENTS / RUN_LEN + 1, sizeof *task_of);
	char **pool = calloc(EVENTS, sizeof *pool);
	size_t np = 0;
	if (!ev || !task_of || !pool)
		return 1;
	for (size_t r = 0; r * RUN_LEN < EVENTS; r++) {
		const kn_task *t = &set->tasks[r % set->n_tasks];
		task_of[r] = r % set->n_tasks;
		for (size_t i = 0; i < RUN_LEN && r * RUN_LEN + i < EVENTS; i++) {
			kn_event *e = &ev[r * RUN_LEN + i];
			const kn_keynode *kn = &t->keynodes[i % t->n_keynodes];
			const char *page = kn->ref_url && *kn->ref_url ? kn->ref_url : "https://www.example.com/";
			e->trusted = -1;
			e->tab = "T1";
			switch (i % 5) {
			case 0: /* the agent navigates (sometimes to a page of its own) */
				e->type = KN_EV_NAVIGATE;
				e->how = i % 10 ? "link" : "goto";
				e->url = (r + i) % 3 ? page : page_url(pool, &np, page, (int)i);
				break;
			case 1:
				e->type = KN_EV_TYPE;
				e->url = page;
				e->selector = kn->path ? kn->path : "#search";
				e->value = kn->target == KN_TARGET_ELEMENT_VALUE ? kn->expect : "query text";
				break;
			case 2:
			case 3:
				e->type = KN_EV_CLICK;
				e->url = page;
				e->selector = kn->target == KN_TARGET_ELEMENT_PATH ? kn->expect : "div.result > a";
				e->text = "Result";
				break;
			default:
				e->type = i == RUN_LEN - 1 ? KN_EV_ANSWER : KN_EV_SCROLL;
				e->url = page;
				e->text = "answer";
			}
		}
	}

	double best = 0, reached = 0;
	for (int rep = 0; rep < 3; rep++) {
		reached = 0;
		double c0 = now(CLOCK_PROCESS_CPUTIME_ID);
		for (size_t r = 0; r * RUN_LEN < EVENTS; r++) {
			kn_eval *e;
			kn_eval_opts o = {.step_limit = -1};
			if (kn_eval_new(&e, &set->tasks[task_of[r]], &o))
				return 1;
			for (size_t i = 0; i < RUN_LEN && r * RUN_LEN + i < EVENTS; i++)
				kn_eval_feed(e, &ev[r * RUN_LEN + i], &err);
			reached += kn_eval_reached(e);
			kn_eval_free(e);
		}
		double rate = EVENTS / (now(CLOCK_PROCESS_CPUTIME_ID) - c0);
		best = rate > best ? rate : best;
	}
	struct utsname u;
	uname(&u);
	char line[512];
	snprintf(line, sizeof line,
	         "eval: %.0f events/s (best of 3, one core, CPU time; %d events, %zu tasks, %.0f key nodes "
	         "reached); load: test file %.2f ms, example_130 %.2f ms; machine: %s %s",
	         best, EVENTS, set->n_tasks, reached, load_test * 1e3, load_ex * 1e3, u.machine, u.release);
	puts(line);
	if (argc > 2) {
		FILE *f = fopen(argv[2], "a");
		if (f) {
			fprintf(f, "%s\n", line);
			fclose(f);
		}
	}
	for (size_t i = 0; i < np; i++)
		free(pool[i]);
	free(pool);
	free(ev);
	free(task_of);
	kn_taskset_free(set);
	curl_global_cleanup();
	return 0;
}
