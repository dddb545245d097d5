/* attempt.c — one attempt of `keynode run` (runner.h), start to end on the calling thread:
 *   browser (launched, or a fresh context on --browser) → start page (start_page.c) → monitor
 *   attached and ready → agent process group (agent.c) → end (agent exit, timeout, step budget,
 *   browser gone, interrupt) → recorders flushed, page checks read → result.json → everything
 *   stopped.
 * The attempt's kn_cdp_loop is driven here in short slices; between them the answer file is read,
 * the agent reaped, the clocks checked and the live view (opts.watch: a worker's) told how
 * the page is — the agent paused while a person holds it. Infrastructure failures (no browser, start page down,
 * monitor not ready, agent not startable, browser crashed under the agent, the task's own site not
 * answering: reason "unreachable", from the start page or from the monitor) make the attempt an
 * `error` with a reason: the caller retries and excludes it. */
#define _GNU_SOURCE /* environ */
#include "runner.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "keynode/clock.h"
#include "keynode/site.h"
#include "keynode/utf8.h"
#include "canary.h"
#include "monitor.h"
#include "provenance.h"
#include "summary.h"
#include "worker_browser.h"

extern char **environ;

#define KN_READY_TIMEOUT_MS 15000
#define KN_START_PAGE_TIMEOUT_MS 30000
#define KN_AGENT_GRACE_MS 2000
#define KN_ANSWER_BYTES_MAX (1024 * 1024)
/* The browser process is asked a cheap browser-level command (Browser.getVersion) every
 * KN_PROBE_EVERY_MS on a connection of the attempt's own; one left unanswered for KN_PROBE_STALL_MS
 * means the browser froze (SIGSTOP, a hung browser process) or is too starved to serve anyone.
 * A renderer stuck in a page's script does not delay it: the browser process answers it. */
#define KN_PROBE_EVERY_MS 1000
#define KN_PROBE_STALL_MS 10000

const char *kn_attempt_status_name(kn_attempt_status s)
{
	switch (s) {
	case KN_ATTEMPT_DONE: return "done";
	case KN_ATTEMPT_ERROR: return "error";
	case KN_ATTEMPT_INTERRUPTED: return "interrupted";
	case KN_ATTEMPT_BLOCKED: return "blocked";
	case KN_ATTEMPT_UNJUDGED: return "unjudged";
	}
	return "?";
}

struct attempt {
	const kn_attempt_opts *o;
	kn_attempt_report *rep;
	kn_cdp_loop *loop;
	kn_monitor *mon;
	kn_remote_run *rr;       /* --server: the run is serve's (attempt_remote.c); mon is NULL */
	const char *run_id;      /* o->run_id, or the server's */
	char *unreachable;       /* the start page's "unreachable" evidence (JSON text), NULL: none */
	json_t *env;             /* result.json "environment" (provenance.h); NULL: none */
	char *usage;             /* KEYNODE_USAGE_FILE */
	int ready, ended;
	int watched;             /* o->watch began: its end is owed */
	json_t *takeovers;       /* what people did in the page (the watch's end); NULL: none */
	kn_cdp *probe;           /* the liveness probe's connection (NULL: none) */
	kn_cdp_link probe_link;
	int probe_pending;       /* a probe is unanswered, sent at probe_sent */
	double probe_sent, probe_last; /* last probe (or the connection's start) sent; last answer */
	FILE *answers;
	char line[KN_ANSWER_LINE_MAX + 1];
	size_t line_len, line_over, answer_bytes;
};

static void on_ready(void *ud, kn_monitor *m)
{
	(void)m;
	((struct attempt *)ud)->ready = 1;
}

static void on_end(void *ud, kn_monitor *m, const char *reason)
{
	(void)m;
	(void)reason;
	((struct attempt *)ud)->ended = 1;
}

static int stopping(const struct attempt *a)
{
	return a->o->stop && atomic_load(a->o->stop);
}

/* One answer line: NUL bytes and ill-formed UTF-8 become U+FFFD, a line over the cap is cut. */
static void take_answer(struct attempt *a)
{
	size_t n = a->line_len;
	a->line_len = 0;
	if (n == 0 && !a->line_over)
		return;
	a->line_over = 0;
	if (a->rep->answers >= KN_ANSWERS_MAX || (a->mon ? kn_monitor_ended(a->mon) : a->ended)) {
		a->rep->answers_dropped++;
		return;
	}
	char *text = malloc(n + 1);
	if (!text)
		return;
	for (size_t i = 0; i < n; i++)
		text[i] = a->line[i] ? a->line[i] : (char)0xFF; /* 0xFF is never UTF-8: repaired below */
	text[n] = '\0';
	if (n && text[n - 1] == '\r')
		text[--n] = '\0';
	if (kn_utf8_repair(&text, n) == 0 &&
	    (a->rr ? kn_remote_run_answer(a->rr, text) : kn_monitor_answer(a->mon, text)) == 0)
		a->rep->answers++;
	free(text);
}

/* Every complete new line of the answer file is an answer; at the end (last) an unterminated
 * last line is one too. */
static void read_answers(struct attempt *a, int last)
{
	int ch;
	if (!a->answers)
		return;
	clearerr(a->answers); /* the file grows: EOF now is not EOF later */
	while (a->answer_bytes < KN_ANSWER_BYTES_MAX && (ch = fgetc(a->answers)) != EOF) {
		a->answer_bytes++;
		if (ch != '\n') {
			if (a->line_len < KN_ANSWER_LINE_MAX)
				a->line[a->line_len++] = (char)ch;
			else
				a->line_over = 1;
			continue;
		}
		take_answer(a);
	}
	if (a->answer_bytes >= KN_ANSWER_BYTES_MAX && fgetc(a->answers) != EOF)
		a->rep->answers_dropped += a->rep->answers_dropped == 0; /* said once: the rest is ignored */
	if (last)
		take_answer(a);
}

int kn_runner_mkdirs(const char *path)
{
	char buf[4096];
	if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
		return -1;
	for (char *p = buf + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			if (mkdir(buf, 0755) != 0 && errno != EEXIST)
				return -1;
			*p = '/';
		}
	return mkdir(buf, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

static char *path_in(const char *dir, const char *name)
{
	char *p = NULL;
	return asprintf(&p, "%s/%s", dir, name) < 0 ? NULL : p;
}

/* The agent's environment: ours without any KEYNODE_* it had, plus the contract (docs/evaluate.md). */
static char **agent_env(const struct attempt *a, const char *ws, const char *http, const char *answer,
                        const char *context_id, const char *target_id)
{
	size_t n = 0;
	while (environ[n])
		n++;
	char **env = calloc(n + 16, sizeof *env);
	if (!env)
		return NULL;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "KEYNODE_", 8) != 0 && !(env[k++] = strdup(environ[i])))
			goto oom;
	const kn_task *t = a->o->task;
	const char *pairs[][2] = {
		{"KEYNODE_CDP_URL", http},          {"KEYNODE_CDP_WS", ws},
		{"KEYNODE_TASK_ID", t->id},         {"KEYNODE_TASK_INTENT", t->intent ? t->intent : ""},
		{"KEYNODE_START_URL", t->start_url ? t->start_url : ""},
		{"KEYNODE_ANSWER_FILE", answer},    {"KEYNODE_RUN_ID", a->run_id},
		{"KEYNODE_ATTEMPT_DIR", a->o->dir}, {"KEYNODE_BROWSER_CONTEXT_ID", context_id},
		{"KEYNODE_TARGET_ID", target_id},   {"KEYNODE_USAGE_FILE", a->usage}};
	for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
		if (!pairs[i][1])
			continue;
		if (asprintf(&env[k], "%s=%s", pairs[i][0], pairs[i][1]) < 0) {
			env[k] = NULL;
			goto oom;
		}
		k++;
	}
	return env;
oom:
	for (size_t i = 0; env[i]; i++)
		free(env[i]);
	free(env);
	return NULL;
}

static void env_free(char **env)
{
	for (size_t i = 0; env && env[i]; i++)
		free(env[i]);
	free(env);
}

/* http://HOST:PORT of a ws://HOST:PORT/devtools/browser/… URL. */
static char *http_of(const char *ws)
{
	const char *h = strncmp(ws, "ws://", 5) == 0 ? ws + 5 : ws;
	size_t n = strcspn(h, "/");
	char *p = NULL;
	return asprintf(&p, "http://%.*s", (int)n, h) < 0 ? NULL : p;
}

/* The attempt is an infrastructure error: prefix and detail say why. */
static void errorf(kn_attempt_report *rep, const char *prefix, const char *detail)
{
	rep->status = KN_ATTEMPT_ERROR;
	snprintf(rep->reason, sizeof rep->reason, "%s%.400s", prefix, detail);
}

static json_t *report_json(const kn_attempt_report *r)
{
	json_t *o = json_pack("{s:s, s:s?, s:s?, s:f, s:f, s:f, s:f, s:f, s:f, s:I, s:b, s:i, s:i}",
	                      "status", kn_attempt_status_name(r->status), "end", r->end[0] ? r->end : NULL,
	                      "reason", r->reason[0] ? r->reason : NULL, "browser_s", r->t_browser_s,
	                      "page_s", r->t_page_s,
	                      "ready_s", r->t_ready_s, "overhead_start_s", r->overhead_start_s,
	                      "overhead_end_s", r->overhead_end_s, "agent_s", r->agent_s, "log_bytes",
	                      (json_int_t)r->log_bytes, "log_truncated", r->log_truncated, "answers",
	                      r->answers, "answers_dropped", r->answers_dropped);
	const char *fault = kn_run_fault(kn_attempt_status_name(r->status), r->completed, r->reason);
	if (o && fault)
		json_object_set_new(o, "fault", json_string(fault));
	if (o && r->exit_code >= 0)
		json_object_set_new(o, "exit_code", json_integer(r->exit_code));
	if (o && r->exit_signal)
		json_object_set_new(o, "exit_signal", json_integer(r->exit_signal));
	return o;
}

/* The attempt is an error because the task's own site did not answer; u is the evidence
 * ({url, error, step}). */
static void unreachable_error(kn_attempt_report *rep, const json_t *u)
{
	rep->status = KN_ATTEMPT_ERROR;
	snprintf(rep->reason, sizeof rep->reason, "unreachable: %.80s at %.400s",
	         json_string_value(json_object_get(u, "error")), json_string_value(json_object_get(u, "url")));
}

/* The start page failed with net_error: when the site did not answer, the attempt is an
 * unreachable error with its evidence (the run result's too); else the error words as they are. */
static void start_page_error(struct attempt *a, const char *net_error, const char *msg)
{
	json_t *u = net_error && kn_net_error_unreachable(net_error)
	            ? json_pack("{s:s, s:s, s:i}", "url", a->o->task->start_url, "error", net_error, "step", 0)
	            : NULL;
	if (u && (a->unreachable = json_dumps(u, JSON_COMPACT)))
		unreachable_error(a->rep, u);
	else
		errorf(a->rep, "", msg);
	json_decref(u);
}

/* 1 when serve's run result has status `status` (blocked: the site refused service). */
static int remote_status(json_t *result, const char *status)
{
	const char *st = json_string_value(json_object_get(result, "status"));
	return st && strcmp(st, status) == 0;
}

/* The attempt is unjudged: the reason names the judge, the first key node and its error (u: the
 * run result's "unjudged" evidence). */
static void unjudged_attempt(kn_attempt_report *rep, const json_t *u)
{
	const json_t *k = json_array_get(json_object_get(u, "key_nodes"), 0);
	size_t n = json_array_size(json_object_get(u, "key_nodes"));
	const char *judge = json_string_value(json_object_get(u, "judge")),
	           *id = json_string_value(json_object_get(k, "id")),
	           *error = json_string_value(json_object_get(k, "error"));
	rep->status = KN_ATTEMPT_UNJUDGED;
	snprintf(rep->reason, sizeof rep->reason, "unjudged: the judge %.80s failed on key node %.40s%s: %.300s",
	         judge ? judge : "?", id ? id : "?", n > 1 ? " (and others)" : "", error ? error : "?");
}

/* result.json: the run result of the evaluator (docs/formats.md §3) plus "attempt"; an attempt
 * without a monitor gets the result of an empty run with status error. */
static int write_result(const struct attempt *a, const kn_eval *ev, json_t *remote, double t_end,
                        kn_err *err)
{
	char *path = path_in(a->o->dir, "result.json");
	kn_eval *empty = NULL;
	json_t *j = NULL;
	int rc = 0;
	if (remote) { /* serve's run result (--server) */
		a->rep->completed = json_is_true(json_object_get(remote, "completion"));
		a->rep->score = json_number_value(json_object_get(remote, "score"));
		j = json_deep_copy(remote);
	} else {
		if (!ev) {
			if (kn_eval_new(&empty, a->o->task, &a->o->eval) != 0) {
				free(path);
				return kn_err_set(err, KN_ENOMEM, "out of memory");
			}
			kn_eval_set_error(empty);
			if (a->unreachable)
				kn_eval_set_unreachable(empty, a->unreachable);
			ev = empty;
		}
		a->rep->completed = kn_eval_completed(ev);
		a->rep->score = kn_eval_score(ev);
		j = kn_eval_result_json(ev, a->run_id);
		kn_eval_free(empty);
	}
	a->rep->overhead_end_s = t_end > 0 ? kn_time_mono_s() - t_end : 0;
	/* an attempt the agent finished but the judge could not judge (status unjudged) is the
	 * judge's: decided here, where the result and its evidence are, for a local or a served run */
	if (j && a->rep->status == KN_ATTEMPT_DONE && remote_status(j, "unjudged"))
		unjudged_attempt(a->rep, json_object_get(j, "unjudged"));
	if (j) {
		json_object_set_new(j, "attempt", report_json(a->rep));
		if (a->env)
			json_object_set(j, "environment", a->env);
		if (a->takeovers)
			json_object_set(j, "takeovers", a->takeovers);
		json_t *usage = kn_usage_read(a->usage);
		if (usage)
			json_object_set_new(j, "usage", usage);
	}
	char tmp[4200];
	snprintf(tmp, sizeof tmp, "%s.tmp", path ? path : "");
	FILE *f = path && j ? fopen(tmp, "w") : NULL;
	rc = f && json_dumpf(j, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER) == 0 && fputc('\n', f) != EOF
		? 0 : KN_EIO;
	if (f && fclose(f) != 0)
		rc = KN_EIO;
	if (rc == 0 && rename(tmp, path) != 0)
		rc = KN_EIO;
	if (rc)
		kn_err_set(err, rc, "cannot write %s", path ? path : "result.json");
	json_decref(j);
	free(path);
	return rc;
}

/* Serve the loop in short slices until the monitor is ready, ended, or the time is up (with guard
 * rules the canary's bound on top: monitor.h). */
static void wait_ready(struct attempt *a)
{
	int canary_ms = a->o->canary_timeout_ms > 0 ? a->o->canary_timeout_ms : KN_CANARY_TIMEOUT_MS;
	for (double until = kn_time_mono_s() + (KN_READY_TIMEOUT_MS + canary_ms) / 1e3;
	     !a->ready && !a->ended && !stopping(a) && kn_time_mono_s() < until;)
		kn_cdp_loop_run_for(a->loop, 10);
}

/* The live view's turn after each slice: the agent is paused while a person holds its
 * page, and the time held is not the agent's (*held_s grows by it: the timeout excludes it). */
static void watch_tick(struct attempt *a, kn_agent_proc *agent, int *paused, double *t_pause, double *held_s)
{
	const kn_attempt_watch *w = a->o->watch;
	if (!a->watched || !w->tick)
		return;
	const kn_eval *ev = kn_monitor_eval(a->mon);
	int held = w->tick(w->ud, kn_eval_steps(ev), kn_eval_status(ev) == KN_STATUS_BLOCKED);
	if (held && !*paused) {
		*paused = kn_agent_pause(agent, 1) == 0;
		*t_pause = kn_time_mono_s();
	} else if (!held && *paused) {
		kn_agent_pause(agent, 0);
		*paused = 0;
		*held_s += kn_time_mono_s() - *t_pause;
	}
}

static void probe_reply(void *ud, kn_cdp *c, json_t *result, const char *error)
{
	(void)c;
	(void)result;
	(void)error; /* an error answer is an answer too: the browser is alive */
	struct attempt *a = ud;
	a->probe_pending = 0;
	a->probe_last = kn_time_mono_s();
}

/* Open the probe's connection once the monitor is ready; its opening counts as the first probe
 * (a browser frozen before it opens is caught too). A connection that cannot even be started
 * leaves the attempt without a probe, as before. */
static void probe_open(struct attempt *a, const char *ws)
{
	kn_cdp_handlers h = kn_cdp_link_handlers(&a->probe_link);
	a->probe_sent = kn_time_mono_s();
	if (kn_cdp_connect(&a->probe, a->loop, ws, NULL, &h, NULL) != 0)
		a->probe = NULL;
}

/* One turn of the probe: send one when due; 1 when the browser has left the connection's opening
 * or a probe unanswered for KN_PROBE_STALL_MS (it is frozen), 0 otherwise. A closed connection
 * is no stall: the monitor sees the browser gone. */
static int probe_stalled(struct attempt *a)
{
	if (!a->probe || a->probe_link.closed)
		return 0;
	double now = kn_time_mono_s();
	if (a->probe_pending || !a->probe_link.open)
		return now - a->probe_sent >= KN_PROBE_STALL_MS / 1e3;
	if (now - a->probe_last >= KN_PROBE_EVERY_MS / 1e3 &&
	    kn_cdp_send(a->probe, NULL, "Browser.getVersion", NULL, probe_reply, a) > 0) {
		a->probe_pending = 1;
		a->probe_sent = now;
	}
	return 0;
}

/* At the end (the agent exited, the timeout…): the browser must answer a probe now, within
 * what is left of KN_PROBE_STALL_MS since the pending one was sent; 1 when it does not. */
static int probe_final_stalled(struct attempt *a)
{
	if (!a->probe)
		return 0;
	a->probe_last = 0; /* a probe is due now */
	probe_stalled(a);
	while ((a->probe_pending || !a->probe_link.open) && !a->probe_link.closed && !stopping(a)) {
		if (probe_stalled(a))
			return 1;
		kn_cdp_loop_run_for(a->loop, 20);
	}
	return 0;
}

/* The browser stopped answering (probe_stalled): an infrastructure error, the run result's too. */
static void frozen_error(struct attempt *a)
{
	char why[96];
	snprintf(why, sizeof why, "the browser did not answer DevTools for %d s (frozen or starved)",
	         KN_PROBE_STALL_MS / 1000);
	errorf(a->rep, "", why);
	if (a->mon)
		kn_monitor_set_error(a->mon);
}

static void probe_close(struct attempt *a)
{
	if (a->probe && !a->probe_link.closed)
		kn_cdp_close(a->probe);
	a->probe = NULL;
}

/* From agent start to the end of the attempt; sets rep->end. */
static void supervise(struct attempt *a, kn_agent_proc *agent, double t_agent)
{
	kn_attempt_report *rep = a->rep;
	int paused = 0;
	double t_pause = 0, held_s = 0;
	for (;;) {
		kn_cdp_loop_run_for(a->loop, 20);
		watch_tick(a, agent, &paused, &t_pause, &held_s);
		read_answers(a, 0);
		if (kn_agent_exited(agent)) {
			snprintf(rep->end, sizeof rep->end, "agent exited");
			break;
		}
		if (a->rr && kn_remote_run_ended(a->rr))
			a->ended = 1;
		if (a->ended) {
			kn_end why = KN_END_STOPPED;
			if (!(a->rr ? kn_remote_run_end_cause(a->rr, &why) : kn_monitor_end_cause(a->mon, &why)))
				why = KN_END_STOPPED;
			int gone = why == KN_END_BROWSER_GONE;
			/* Ctrl-C on a terminal reaches the browser too (it shares our process group):
			 * give the interrupt a moment to be seen before calling the browser's end a crash */
			for (double until = kn_time_mono_s() + 0.3; gone && !stopping(a) && kn_time_mono_s() < until;)
				kn_cdp_loop_run_for(a->loop, 20);
			if (gone && stopping(a)) {
				snprintf(rep->end, sizeof rep->end, "interrupted");
				break;
			}
			snprintf(rep->end, sizeof rep->end, "%s", gone ? "browser gone"
			         : why == KN_END_UNREACHABLE ? "unreachable" : "step limit");
			break;
		}
		if (a->o->timeout_s > 0 && !paused && kn_time_mono_s() - t_agent - held_s >= a->o->timeout_s) {
			snprintf(rep->end, sizeof rep->end, "timeout");
			break;
		}
		if (stopping(a)) {
			snprintf(rep->end, sizeof rep->end, "interrupted");
			break;
		}
		if (probe_stalled(a)) { /* frozen: neither the agent's time nor its failure */
			snprintf(rep->end, sizeof rep->end, "browser not responding");
			break;
		}
	}
}

/* How a phase of the attempt ended: go on, an error (rep's reason set), or interrupted. */
enum phase { PHASE_OK, PHASE_ERROR, PHASE_INTERRUPTED };

/* 1. A fresh browser: a new context of o->browser, a pooled one, or one launched on the task's
 * start page. *ws, *context and lb are the caller's to free, dispose and stop, set or not. */
static enum phase open_browser(struct attempt *a, kn_local_browser *lb, int *pooled_page, char **ws,
                               char **context)
{
	const kn_attempt_opts *o = a->o;
	kn_err e = {0};
	if (o->browser) {
		if (kn_cdp_discover(ws, o->browser, 5000, &e) != 0 ||
		    kn_browser_context_new(a->loop, *ws, context, &e) != 0) {
			errorf(a->rep, "browser: ", e.msg);
			return PHASE_ERROR;
		}
	} else if (o->pool) {
		if (kn_browser_pool_take(o->pool, o->task->start_url, lb, pooled_page, o->stop, &e) != 0) {
			if (stopping(a))
				return PHASE_INTERRUPTED;
			errorf(a->rep, "browser: ", e.msg);
			return PHASE_ERROR;
		}
		*ws = strdup(lb->ws_url);
	} else if (kn_local_browser_start_at(lb, o->chromium ? o->chromium : kn_runner_chromium_default(),
	                                     o->task->start_url, &e) != 0) {
		errorf(a->rep, "browser: ", e.msg);
		return PHASE_ERROR;
	} else {
		*ws = strdup(lb->ws_url);
	}
	return PHASE_OK;
}

/* 3. keynode attached and recording: the trajectory (*tf) and answer files opened, the trace (*tr;
 * one that cannot start is noted in rep's reason, not fatal), serve's run (--server) or the local
 * monitor started, and waited for until ready. *tf and *tr are the caller's, set or not. */
static enum phase attach(struct attempt *a, const char *ws, const char *http, const char *traj,
                         const char *answer, FILE **tf, kn_trace **tr)
{
	const kn_attempt_opts *o = a->o;
	kn_attempt_report *rep = a->rep;
	kn_err e = {0};
	if (!(*tf = fopen(traj, "w")) || !(a->answers = fopen(answer, "w+"))) {
		errorf(rep, "cannot write in ", o->dir);
		return PHASE_ERROR;
	}
	char *tdir = o->trace ? path_in(o->dir, "trace") : NULL;
	if (tdir && kn_trace_new(tr, tdir, &(kn_trace_opts){.mode = (kn_trace_mode)o->trace, .kind = "run",
	                         .run_id = o->run_id, .task = o->task}, &e) != 0)
		errorf(rep, "trace: ", e.msg);
	free(tdir);
	kn_monitor_opts mo = {.task = o->task, .eval = o->eval, .run_id = o->run_id, .trajectory = *tf,
	                      .on_ready = on_ready, .on_end = on_end, .ud = a, .blocked = o->blocked,
	                      .trace = *tr, .guard = o->guard, .redact = o->redact, .ws_received = o->ws_received,
	                      .canary_timeout_ms = o->canary_timeout_ms,
	                      .human = o->watch ? o->watch->taken : NULL, .human_ud = o->watch ? o->watch->ud : NULL};
	if (o->server) { /* serve's monitor: it answers once every tab records */
		if (kn_remote_run_start(&a->rr, o->server, o->task_ref, http, o->eval.step_limit, &e) != 0) {
			errorf(rep, "server: ", e.msg);
			return PHASE_ERROR;
		}
		a->run_id = kn_remote_run_id(a->rr);
		a->ready = 1;
	} else if (kn_monitor_start(&a->mon, a->loop, ws, &mo, &e) != 0) {
		errorf(rep, "monitor: ", e.msg);
		return PHASE_ERROR;
	}
	wait_ready(a);
	if (stopping(a))
		return PHASE_INTERRUPTED;
	kn_end why;
	if (!a->ready && a->mon && kn_monitor_end_cause(a->mon, &why) && why == KN_END_GUARD_INACTIVE) {
		/* the guard's canary was not held (monitor.h): the agent must not start */
		errorf(rep, "guard not active: ", kn_monitor_end_detail(a->mon) ? kn_monitor_end_detail(a->mon)
		                                                                : "the canary was not held");
		return PHASE_ERROR;
	}
	if (!a->ready) {
		errorf(rep, "monitor: ", a->ended && a->mon ? kn_monitor_end_reason(a->mon) : "not ready in 15 s");
		return PHASE_ERROR;
	}
	return PHASE_OK;
}

/* 5. After the agent and the monitor ended: the attempt's status and reason from how it ended —
 * interrupted, the browser gone or frozen, the task's own site unreachable, an agent command that
 * could not start, the site blocking it — left done otherwise. remote: serve's run result, or NULL. */
static void end_status(struct attempt *a, json_t *remote)
{
	kn_attempt_report *rep = a->rep;
	const json_t *u = NULL;
	if (strcmp(rep->end, "interrupted") == 0)
		rep->status = KN_ATTEMPT_INTERRUPTED;
	else if (strcmp(rep->end, "browser gone") == 0)
		errorf(rep, "", "the browser went away while the agent worked");
	else if (strcmp(rep->end, "browser not responding") == 0)
		frozen_error(a);
	else if ((u = a->mon ? kn_eval_unreachable(kn_monitor_eval(a->mon)) : json_object_get(remote, "unreachable")))
		unreachable_error(rep, u); /* the task's own site did not answer: not the agent's failure */
	else if (rep->exit_code == 126 || rep->exit_code == 127)
		snprintf(rep->reason, sizeof rep->reason,
		         "agent could not start: exit %d from /bin/sh (command not found or not executable)",
		         rep->exit_code),
			rep->status = KN_ATTEMPT_ERROR;
	else if (a->mon ? kn_eval_status(kn_monitor_eval(a->mon)) == KN_STATUS_BLOCKED
	               : remote_status(remote, "blocked"))
		rep->status = KN_ATTEMPT_BLOCKED,
		snprintf(rep->reason, sizeof rep->reason, "blocked: the site refused service (result.json "
		         "\"blocked\" has the evidence)");
}

int kn_attempt_run(kn_attempt_report *rep, const kn_attempt_opts *o, kn_err *err)
{
	memset(rep, 0, sizeof *rep);
	rep->exit_code = -1;
	double t0 = kn_time_mono_s(), t_end = 0;
	struct attempt a = {.o = o, .rep = rep, .run_id = o->run_id};
	json_t *remote = NULL;
	kn_local_browser lb = {0};
	int pooled_page = 0; /* the pooled browser's first tab is the start page, fresh */
	char *ws = NULL, *http = NULL, *context = NULL, *target = NULL, *answer = NULL, *traj = NULL;
	char *log = NULL, **env = NULL, *net_error = NULL;
	FILE *tf = NULL;
	kn_agent_proc *agent = NULL;
	kn_err e = {0};
	int rc = 0;
	kn_trace *tr = NULL; /* --trace: <dir>/trace/ */

	if (kn_runner_mkdirs(o->dir) != 0)
		return kn_err_set(err, KN_EIO, "cannot create %s: %s", o->dir, strerror(errno));
	answer = path_in(o->dir, "answers.txt");
	traj = path_in(o->dir, "trajectory.jsonl");
	log = path_in(o->dir, "agent.log");
	a.usage = path_in(o->dir, "usage.jsonl");
	a.env = o->environment ? json_loads(o->environment, 0, NULL) : NULL;
	if (!answer || !traj || !log || !a.usage) {
		rc = kn_err_set(err, KN_ENOMEM, "out of memory");
		goto out;
	}
	if (kn_cdp_loop_new(&a.loop, &e) != 0) {
		errorf(rep, "cdp: ", e.msg);
		goto result;
	}
	/* 1. a fresh browser */
	enum phase ph = open_browser(&a, &lb, &pooled_page, &ws, &context);
	if (ph != PHASE_OK)
		goto phase_failed;
	rep->t_browser_s = kn_time_mono_s() - t0;
	if (!ws || !(http = http_of(ws))) {
		errorf(rep, "", "out of memory");
		goto result;
	}
	kn_run_environment_browser(a.env, http); /* this browser's product and user agent */
	/* 2. the start page, before keynode attaches: the agent starts on it */
	/* a launched browser loads the start page while it starts (kn_local_browser_start_at) */
	int preloaded = o->pool ? pooled_page : !o->browser && o->task->start_url && (strncmp(o->task->start_url, "http://", 7) == 0 ||
	                                                      strncmp(o->task->start_url, "https://", 8) == 0);
	if (kn_start_page_open(a.loop, ws, context, o->task->start_url, preloaded, o->viewport_w, o->viewport_h,
	                       KN_START_PAGE_TIMEOUT_MS, o->stop, &target, &net_error, &e) != 0) {
		if (stopping(&a))
			goto interrupted;
		start_page_error(&a, net_error, e.msg);
		goto result;
	}
	rep->t_page_s = kn_time_mono_s() - t0;
	if (stopping(&a))
		goto interrupted;
	/* 3. keynode attached and recording */
	if ((ph = attach(&a, ws, http, traj, answer, &tf, &tr)) != PHASE_OK)
		goto phase_failed;
	rep->t_ready_s = kn_time_mono_s() - t0;
	if (o->watch && o->watch->begin && a.mon) { /* the live view: this page, from now on */
		o->watch->begin(o->watch->ud, a.loop, ws, target, a.run_id, o->task);
		a.watched = 1;
	}
	probe_open(&a, ws);
	/* 4. the agent */
	if (!(env = agent_env(&a, ws, http, answer, context, target)) ||
	    kn_agent_start(&agent, o->agent_cmd, env, log, o->log_cap ? o->log_cap : KN_AGENT_LOG_CAP_DEFAULT,
	                   &e) != 0) {
		errorf(rep, "agent could not start: ", env ? e.msg : "out of memory");
		goto result;
	}
	double t_agent = kn_time_mono_s();
	rep->overhead_start_s = t_agent - t0;
	supervise(&a, agent, t_agent);
	t_end = kn_time_mono_s();
	rep->agent_s = t_end - t_agent;
	kn_agent_stop(agent, KN_AGENT_GRACE_MS, rep);
	agent = NULL;
	/* 5. the end: last answers, recorders flushed, page checks read */
	read_answers(&a, 1);
	/* a browser that froze just before the agent ended is caught here, before the monitor's
	 * stop (whose flush it would not answer) and before the verdict is taken for the agent's */
	if (strcmp(rep->end, "agent exited") == 0 || strcmp(rep->end, "timeout") == 0 ||
	    strcmp(rep->end, "step limit") == 0)
		if (probe_final_stalled(&a))
			snprintf(rep->end, sizeof rep->end, "browser not responding");
	probe_close(&a);
	if (a.rr) {
		fflush(tf);
		rewind(tf); /* the server's trajectory is the attempt's */
		if (kn_remote_run_finish(a.rr, tf, &remote, &e) != 0) {
			errorf(rep, "server: ", e.msg);
			goto result;
		}
	} else if (!a.ended) {
		kn_monitor_stop(a.mon, KN_END_STOPPED);
		for (double until = kn_time_mono_s() + 10; !a.ended && kn_time_mono_s() < until;)
			kn_cdp_loop_run_for(a.loop, 10);
	}
	end_status(&a, remote);
	goto result;
phase_failed:
	if (ph == PHASE_ERROR)
		goto result;
interrupted:
	rep->status = KN_ATTEMPT_INTERRUPTED;
	snprintf(rep->end, sizeof rep->end, "interrupted");
result:
	if (agent) {
		kn_agent_stop(agent, KN_AGENT_GRACE_MS, rep);
		agent = NULL;
	}
	if (tf)
		fflush(tf);
	if (a.rr && !remote) { /* an error before the end: the server's run is stopped all the same */
		kn_remote_run_finish(a.rr, NULL, &remote, NULL);
		json_decref(remote);
		remote = NULL;
	}
	if (a.watched && o->watch->end) /* after the monitor's end: its last events are judged */
		a.takeovers = o->watch->end(o->watch->ud);
	rc = write_result(&a, a.mon ? kn_monitor_eval(a.mon) : NULL, remote, t_end, err);
	for (int w = 0; a.mon && kn_trace_busy(tr) && w < 3000; w += 20) /* the last screenshot */
		kn_cdp_loop_run_for(a.loop, 20);
	if (tr && a.mon)
		kn_trace_finish(tr, kn_monitor_eval(a.mon), rep->end, NULL, !rep->completed, NULL, NULL);
out:
	probe_close(&a);
	kn_monitor_free(a.mon);
	kn_trace_free(tr); /* after the monitor: its pending captures have failed */
	kn_remote_run_free(a.rr);
	json_decref(remote);
	if (context && ws)
		kn_browser_context_dispose(a.loop, ws, context);
	kn_cdp_loop_free(a.loop);
	kn_local_browser_stop(&lb);
	if (tf)
		fclose(tf);
	if (a.answers)
		fclose(a.answers);
	env_free(env);
	free(ws), free(http), free(context), free(target), free(answer), free(traj), free(log);
	free(net_error), free(a.unreachable), free(a.usage);
	json_decref(a.env);
	json_decref(a.takeovers);
	return rc;
}
