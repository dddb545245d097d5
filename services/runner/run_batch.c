/* run_batch.c — running the plan of `keynode run` (run_batch.h): N threads each take the next
 * planned attempt and run it (kn_attempt_run) with retries of infrastructure errors, while the
 * calling thread only waits for signals and draws progress; then the summary of what finished and
 * the exit code. On SIGINT/SIGTERM every attempt is told to stop and finished attempts are kept. */
#define _GNU_SOURCE /* asprintf, pthread_tryjoin_np */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "keynode/clock.h"
#include "run_batch.h"
#include "task_digest.h"

struct slot {
	kn_run_batch *r;
	size_t index;           /* which --browser this slot uses */
	pthread_t thread;
	int joined;
};

static char *attempt_dir(const kn_run_batch *r, const kn_run_item *it)
{
	char name[256], *p = NULL;
	kn_runner_folder_name(name, sizeof name, it->task->id);
	return asprintf(&p, "%s/%s/%d", r->dir, name, it->k) < 0 ? NULL : p;
}

/* Move an errored try's folder aside so the retry starts empty (kept for the post-mortem). */
static void set_aside(const char *dir, int try)
{
	char *to = NULL;
	if (asprintf(&to, "%s.error-%d", dir, try) >= 0) {
		rename(dir, to);
		free(to);
	}
}

static void progress_line(kn_run_batch *r, const kn_run_item *it, const kn_attempt_report *rep)
{
	if (r->quiet || !r->plain)
		return;
	pthread_mutex_lock(&r->lock);
	fprintf(stderr, "keynode run: [%d/%zu] %s #%d %s%s%s score %.2f (%.1f s)\n", atomic_load(&r->done),
	        r->n_items, it->task->id, it->k,
	        rep->status == KN_ATTEMPT_DONE ? (rep->completed ? "success" : "not finished")
	                                       : kn_attempt_status_name(rep->status),
	        rep->reason[0] ? ": " : "", rep->reason, rep->score, rep->agent_s);
	pthread_mutex_unlock(&r->lock);
}

/* One planned attempt, tried again (its folder set aside) while it ends in an infrastructure error,
 * up to --retries times; its result row kept and the counters moved. */
static void run_item(kn_run_batch *r, struct slot *s, kn_run_item *it)
{
	char *dir = attempt_dir(r, it), *run_id = NULL, *ref = NULL;
	if (!dir || (r->server && asprintf(&ref, "%s:%s", r->taskset, it->task->id) < 0)) {
		free(dir);
		return;
	}
	kn_attempt_report rep = {0};
	for (int try = 0; try <= r->retries; try++) {
		if (try > 0)
			set_aside(dir, try);
		free(run_id);
		run_id = NULL;
		if (asprintf(&run_id, "%s-%s-%d%s", r->run_base, it->task->id, it->k, try ? "-retry" : "") < 0)
			break;
		kn_attempt_opts o = {.task = it->task, .agent_cmd = r->agent, .dir = dir, .run_id = run_id,
		                     .browser = r->n_browsers ? r->browsers[s->index] : NULL,
		                     .chromium = r->chromium, .pool = r->pool, .viewport_w = r->vw, .viewport_h = r->vh,
		                     .ws_received = r->ws_received,
		                     .timeout_s = r->timeout_s, .eval = r->eval, .stop = &r->stop,
		                     .blocked = &r->blocked, .server = r->server, .task_ref = ref,
		                     .guard = r->guard, .redact = &r->redact, .canary_timeout_ms = r->canary_timeout_ms,
		                     .trace = r->trace, .environment = r->environment};
		kn_err err = {0};
		if (kn_attempt_run(&rep, &o, &err) != 0) {
			pthread_mutex_lock(&r->lock);
			fprintf(stderr, "keynode run: %s #%d: %s\n", it->task->id, it->k, err.msg);
			pthread_mutex_unlock(&r->lock);
			rep.status = KN_ATTEMPT_ERROR;
			break;
		}
		if (rep.status != KN_ATTEMPT_ERROR || atomic_load(&r->stop))
			break;
	}
	char path[4200];
	snprintf(path, sizeof path, "%s/result.json", dir);
	if (rep.status != KN_ATTEMPT_INTERRUPTED && kn_run_row_load(&it->row, path, NULL) == 0) {
		it->row.attempt = it->k;
		it->has_row = 1;
	}
	atomic_fetch_add(&r->done, rep.status != KN_ATTEMPT_INTERRUPTED);
	atomic_fetch_add(&r->successes, rep.status == KN_ATTEMPT_DONE && rep.completed);
	atomic_fetch_add(&r->errors, rep.status == KN_ATTEMPT_ERROR);
	atomic_fetch_add(&r->unjudged, rep.status == KN_ATTEMPT_UNJUDGED);
	progress_line(r, it, &rep);
	free(ref);
	free(run_id);
	free(dir);
}

static void *slot_main(void *ud)
{
	struct slot *s = ud;
	kn_run_batch *r = s->r;
	for (;;) {
		if (atomic_load(&r->stop))
			break;
		size_t i = atomic_fetch_add(&r->next, 1);
		if (i >= r->n_items)
			break;
		if (r->items[i].skip)
			continue;
		atomic_fetch_add(&r->running, 1);
		run_item(r, s, &r->items[i]);
		atomic_fetch_sub(&r->running, 1);
	}
	return NULL;
}

static void fmt_dur(char *out, size_t cap, double s)
{
	long t = (long)(s + 0.5);
	if (t >= 3600)
		snprintf(out, cap, "%ldh%02ldm", t / 3600, t / 60 % 60);
	else
		snprintf(out, cap, "%ldm%02lds", t / 60, t % 60);
}

/* The live line on a terminal: done/total, running, successes, elapsed, ETA. */
static void draw(kn_run_batch *r, size_t todo)
{
	double el = kn_time_mono_s() - r->t0_mono;
	int done = atomic_load(&r->done);
	char e[32], eta[32] = "?";
	fmt_dur(e, sizeof e, el);
	if (done > 0 && (size_t)done < todo)
		fmt_dur(eta, sizeof eta, el / done * (double)(todo - (size_t)done));
	else if ((size_t)done >= todo)
		snprintf(eta, sizeof eta, "0m00s");
	int unjudged = atomic_load(&r->unjudged);
	char unj[32] = ""; /* said only during a judge outage */
	if (unjudged)
		snprintf(unj, sizeof unj, " · %d unjudged", unjudged);
	fprintf(stderr,
	        "\r\033[Kkeynode run: %zu/%zu done · %d running · %d successes · %d errors%s · %s · ETA %s",
	        (size_t)done + r->pre_done, r->n_items, atomic_load(&r->running), atomic_load(&r->successes),
	        atomic_load(&r->errors), unj, e, eta);
	fflush(stderr);
}

/* --warm: a pool of browsers opened on the start pages in the order the slots take them; none
 * (said on stderr) when it cannot be had: each attempt launches its own. */
static void start_pool(kn_run_batch *r, int warm, size_t todo)
{
	const char **urls = warm > 0 && !r->n_browsers && todo > 0 ? calloc(todo, sizeof *urls) : NULL;
	size_t n_urls = 0;
	for (size_t i = 0; urls && i < r->n_items; i++)
		if (!r->items[i].skip)
			urls[n_urls++] = r->items[i].task->start_url;
	kn_err err = {0};
	if (urls && kn_browser_pool_new(&r->pool, (size_t)warm < todo ? (size_t)warm : todo, urls, n_urls,
	                                r->chromium, &err) != 0)
		fprintf(stderr, "keynode run: no warm pool (%s): each attempt launches its browser\n", err.msg);
	free(urls);
}

/* Wait for every slot's thread, taking SIGINT/SIGTERM (blocked in sigs) meanwhile and drawing the
 * live line on a terminal. The signal taken, or 0. */
static int wait_slots(kn_run_batch *r, struct slot *slots, int started, const sigset_t *sigs, size_t todo)
{
	struct timespec tick = {0, 100 * 1000000L};
	int got = 0;
	for (;;) {
		int busy = 0;
		for (int i = 0; i < started; i++)
			if (!slots[i].joined && pthread_tryjoin_np(slots[i].thread, NULL) == 0)
				slots[i].joined = 1;
			else
				busy |= !slots[i].joined;
		if (!busy)
			break;
		int sig = sigtimedwait(sigs, NULL, &tick);
		if ((sig == SIGINT || sig == SIGTERM) && !got) {
			got = sig;
			atomic_store(&r->stop, 1);
			if (!r->quiet)
				fprintf(stderr, "%skeynode run: %s: stopping every agent and browser\n",
				        r->plain ? "" : "\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
		}
		if (!r->plain && !r->quiet)
			draw(r, todo);
	}
	if (!r->plain && !r->quiet) {
		draw(r, todo);
		fputc('\n', stderr);
	}
	return got;
}

int kn_run_batch_go(kn_run_batch *r, int parallel, int warm)
{
	size_t todo = r->n_items - r->pre_done;
	r->plain = !isatty(STDERR_FILENO);
	if (!r->quiet)
		fprintf(stderr, "keynode run: %zu attempts (%zu tasks × %d), %d at once, into %s\n", r->n_items,
		        r->n_items / (size_t)r->repeat, r->repeat, parallel, r->dir);
	if (r->pre_done && !r->quiet)
		fprintf(stderr, "keynode run: --resume: %zu attempts already have a result\n", r->pre_done);
	/* signals are taken by this thread only (sigtimedwait); the attempts see r->stop */
	sigset_t sigs, old;
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, &old);
	signal(SIGPIPE, SIG_IGN);
	kn_runner_adopt_orphans();
	pthread_mutex_init(&r->lock, NULL);
	r->t0_mono = kn_time_mono_s();
	int n_slots = (size_t)parallel < todo ? parallel : (int)todo, started = 0;
	if (warm < 0)
		warm = parallel < KN_BROWSER_POOL_MAX ? parallel : KN_BROWSER_POOL_MAX;
	start_pool(r, warm, todo);
	struct slot *slots = calloc((size_t)n_slots + 1, sizeof *slots);
	for (int i = 0; slots && i < n_slots; i++) {
		slots[i] = (struct slot){.r = r, .index = r->n_browsers ? (size_t)i % r->n_browsers : 0};
		if (pthread_create(&slots[i].thread, NULL, slot_main, &slots[i]) != 0)
			break;
		started++;
	}
	int got = wait_slots(r, slots, started, &sigs, todo);
	kn_browser_pool_free(r->pool); /* after every attempt: its browsers die with its threads */
	r->pool = NULL;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_mutex_destroy(&r->lock);
	free(slots);
	return got;
}

void kn_run_batch_summary(kn_run_batch *r, kn_run_meta *meta, const char *tasks_file, kn_run_totals *t)
{
	kn_run_row *rows = calloc(r->n_items + 1, sizeof *rows);
	*t = (kn_run_totals){.wall_s = kn_time_mono_s() - r->t0_mono};
	size_t n = 0;
	for (size_t i = 0; rows && i < r->n_items; i++)
		if (r->items[i].has_row)
			rows[n++] = r->items[i].row;
	kn_run_totals_count(t, rows, n, r->n_items);
	t->ran = t->finished - r->pre_done;
	char t_start[32], t_end[32];
	time_t now = time(NULL);
	strftime(t_start, sizeof t_start, "%Y-%m-%dT%H:%M:%SZ", gmtime(&r->t0));
	strftime(t_end, sizeof t_end, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	meta->agent = r->agent;
	meta->started = t_start;
	meta->finished = t_end;
	meta->tasks_file = tasks_file;
	size_t repeat = (size_t)r->repeat;
	kn_run_task *planned = calloc(r->n_items / repeat + 1, sizeof *planned);
	for (size_t i = 0; planned && i < r->n_items; i += repeat)
		if (kn_run_task_describe(&planned[meta->n_tasks++], r->items[i].task) != 0)
			planned[meta->n_tasks - 1].sha256[0] = '\0';
	meta->tasks = planned;
	kn_err err = {0};
	if (!rows || kn_run_summary_write(rows, n, t, r->repeat, meta, r->dir, r->quiet ? NULL : stdout, &err) != 0)
		fprintf(stderr, "keynode run: %s\n", rows ? err.msg : "out of memory");
	else if (!r->quiet)
		printf("results in %s (summary.json, summary.csv)\n", r->dir);
	meta->tasks = NULL; /* the pointers into this frame do not outlive it */
	meta->started = meta->finished = NULL;
	free(rows);
	free(planned);
}

int kn_run_batch_exit(int sig, const kn_run_totals *t)
{
	return sig == SIGINT ? 130 : sig == SIGTERM ? 143 : t->errors || t->blocked || t->unjudged ? 1 : 0;
}
