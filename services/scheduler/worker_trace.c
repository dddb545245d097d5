/* worker_trace.c — replay traces of `keynode worker` (worker_trace.h): open one per attempt under
 * the shared traces folder, drop the ones whose result is not stored, index the stored ones in
 * PostgreSQL (the `traces` rows serve's scan also writes: an upsert, so both may) and sweep old
 * traces at most hourly. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "keynode/clock.h"
#include "keynode/randid.h"
#include "store.h"
#include "worker_trace.h"

void kn_worker_trace_begin(kn_worker_trace *wt, kn_worker *w, const kn_worker_opts *o, const kn_task *task,
                           kn_validate_opts *vo)
{
	char rnd[24];
	kn_random_id(rnd, sizeof rnd, "", 4);
	wt->t = NULL;
	wt->open = 0;
	/* a file name whatever the task id holds: its safe characters, cut */
	char id[64];
	size_t n = 0;
	for (const char *p = task->id; p && *p && n + 1 < sizeof id; p++)
		id[n++] = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		          *p == '-' || *p == '_' ? *p : '_';
	id[n] = '\0';
	snprintf(wt->run_id, sizeof wt->run_id, "replay-%s-%lld-%s", id, (long long)time(NULL), rnd);
	vo->run_id = wt->run_id;
	vo->trace = NULL;
	if (!o->trace_root || o->trace_mode == KN_TRACE_OFF)
		return;
	kn_err err = {0};
	wt->t = kn_trace_open_kind(o->trace_root, wt->run_id, "replay", (kn_trace_mode)o->trace_mode, task,
	                           o->trace_max_bytes, &err);
	if (!wt->t)
		kn_worker_log(w, "warn", "replay not traced", "task=%s error=\"%s\"", task->id, err.msg);
	wt->open = wt->t != NULL;
	vo->trace = wt->t;
}

void kn_worker_trace_end(kn_worker_trace *wt)
{
	kn_trace_free(wt->t);
	wt->t = NULL;
}

static void drop_row(void *ud, const char *run_id)
{
	kn_worker *w = ud;
	kn_err err = {0};
	if (kn_store_trace_drop(kn_worker_store(w), run_id, &err) != 0)
		kn_worker_log(w, "warn", "trace row not dropped", "run=%s error=\"%s\"", run_id, err.msg);
}

void kn_worker_trace_discard(kn_worker_trace *wt, kn_worker *w, const kn_worker_opts *o)
{
	kn_worker_trace_end(wt);
	if (wt->open) {
		kn_trace_discard(o->trace_root, wt->run_id);
		drop_row(w, wt->run_id); /* serve's scan may have indexed it while it was written */
	}
	wt->open = 0;
}

struct indexed {
	kn_worker *w;
	int rc;
	kn_err err;
};

static void put_row(void *ud, const char *run_id, const char *dir, json_t *idx, long long bytes)
{
	struct indexed *x = ud;
	kn_store_trace t = {.run_id = run_id, .path = dir, .bytes = bytes};
	kn_trace_row_of(idx, &t.kind, &t.status, &t.steps, &t.shots, &t.skipped);
	x->rc = kn_store_trace_put(kn_worker_store(x->w), &t, &x->err);
}

void kn_worker_trace_index(kn_worker_trace *wt, kn_worker *w, const kn_worker_opts *o)
{
	static double last_sweep = -1e9; /* one worker per process (cmd_worker.c) */
	kn_worker_trace_end(wt);
	if (!wt->open)
		return;
	struct indexed x = {.w = w};
	/* none in failures mode when the replay passed: the folder is gone, nothing to index */
	if (kn_trace_scan_one(o->trace_root, wt->run_id, put_row, &x) && x.rc)
		kn_worker_log(w, "warn", "trace not indexed", "run=%s error=\"%s\"", wt->run_id, x.err.msg);
	wt->open = 0; /* kept: stored with its result */
	if (o->trace_keep_days > 0 && kn_time_mono_s() - last_sweep >= 3600) {
		last_sweep = kn_time_mono_s();
		int n = kn_trace_sweep(o->trace_root, o->trace_keep_days, drop_row, w);
		if (n)
			kn_worker_log(w, "info", "old traces removed", "traces=%d keep_days=%d", n, o->trace_keep_days);
	}
}
