/* runner.h — one attempt of `keynode run`: a fresh browser, keynode's monitor attached and ready,
 * then any agent (any language, any browser library) as a child process group with the
 * KEYNODE_* environment, until it exits, times out, spends its step budget or loses its browser.
 *
 * An attempt is synchronous and owns everything it starts: its own kn_cdp_loop (driven from the
 * calling thread), its browser (kn_local_browser, tied to the calling thread), its agent process
 * group and the reader thread of the agent's output. When kn_attempt_run returns nothing it
 * started is running. Several attempts run at once on several threads. The folder layout and the
 * environment contract are in README.md. */
#ifndef KEYNODE_RUNNER_H
#define KEYNODE_RUNNER_H

#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdatomic.h>
#include <sys/types.h>

#include "cdp.h"
#include <jansson.h>

#include "keynode/eval.h"
#include "monitor.h"
#include "worker_browser.h"

#define KN_AGENT_LOG_CAP_DEFAULT (8u * 1024u * 1024u) /* agent.log: stdout+stderr kept, bytes */
#define KN_ANSWER_LINE_MAX 4096                      /* one answer line, bytes (longer: cut) */
#define KN_ANSWERS_MAX 100                           /* answer lines taken per attempt */

/* --- keynode serve's API as a client (remote.c), for `keynode run --server URL` --- */

typedef struct kn_remote kn_remote;


/* The server at url (http:// or https://) with token (NULL/empty: none; KEYNODE_API_TOKEN). *out
 * is the caller's (kn_remote_free); once made it is read-only and may be shared by threads. */
int kn_remote_new(kn_remote **out, const char *url, const char *token, kn_err *err);
void kn_remote_free(kn_remote *r);
/* One request: method "GET" or "POST", path "/api/…", body of len bytes (NULL: none) of
 * content_type (NULL: application/json). *status the HTTP status, *out (may be NULL) the answer
 * body, NUL-terminated, the caller's. KN_EIO when the server cannot be reached. */
int kn_remote_call(const kn_remote *r, const char *method, const char *path, const char *body,
                   size_t len, const char *content_type, int *status, char **out, kn_err *err);
/* The same with JSON in (body may be NULL) and out (*out the caller's); a non-2xx status is an
 * error naming the server's message; *status (may be NULL) the HTTP status. */
int kn_remote_json(const kn_remote *r, const char *method, const char *path, json_t *body,
                   json_t **out, int *status, kn_err *err);
/* POST /api/tasksets?name=NAME with the task file; *snapshot (may be NULL) the set's snapshot
 * version after it (0 when the server says none). */
int kn_remote_upload(const kn_remote *r, const char *file, const char *name, int *snapshot, kn_err *err);
/* Pin every later run to snapshot `snapshot` of task set `name` (POST /api/runs
 * {"snapshot"}), after checking with GET /api/tasksets/{name}/snapshots that it exists; hash (65
 * bytes) its hash. Call before sharing r. KN_ENOTFOUND when the set has no such snapshot. */
int kn_remote_pin(kn_remote *r, const char *name, int snapshot, char hash[65], kn_err *err);
/* How many of task set `name`'s tasks the server validated by replay within 7 days
 * (GET /api/tasksets/{name}/health): *out {"server", "taskset", "days", "validated", "tasks",
 * "statement": "validated within 7 days: X of Y tasks", "at"}, the caller's. KN_EPROTO when the
 * answer has no statement (a server without the route answers 404: an error naming it). */
int kn_remote_validation(const kn_remote *r, const char *name, json_t **out, kn_err *err);
/* The pinned snapshot version, 0 none. */
int kn_remote_snapshot(const kn_remote *r);

/* A run of one attempt on the server (attempt_remote.c). start: POST /api/runs {task, browser,
 * step_limit, snapshot (the pinned one, kn_remote_pin)} (step_limit 0: the default budget); KN_ETIMEOUT when serve's monitor did not attach (*out is
 * still set: free it). ended: 1 once the run ended on the server (polled at most every 0.5 s);
 * end_cause then KN_END_STEP_LIMIT, KN_END_UNREACHABLE or KN_END_BROWSER_GONE. finish: stop it
 * (if live), write its trajectory to traj (may be NULL), *result the run result (§3; the
 * caller's). */
typedef struct kn_remote_run kn_remote_run;
int kn_remote_run_start(kn_remote_run **out, const kn_remote *srv, const char *task_ref,
                        const char *browser_http, int step_limit, kn_err *err);
const char *kn_remote_run_id(const kn_remote_run *r);
int kn_remote_run_answer(kn_remote_run *r, const char *text);
int kn_remote_run_ended(kn_remote_run *r);
int kn_remote_run_end_cause(const kn_remote_run *r, kn_end *out); /* 1 once ended, 0 before */
int kn_remote_run_finish(kn_remote_run *r, FILE *traj, json_t **result, kn_err *err);
void kn_remote_run_free(kn_remote_run *r);

/* --- the warm pool (pool.c) --- */

#define KN_BROWSER_POOL_MAX 16
#define KN_BROWSER_POOL_FRESH_S 30.0 /* a pooled browser's first page older than this is reloaded */
typedef struct kn_browser_pool kn_browser_pool;

/* size (1..KN_BROWSER_POOL_MAX) browsers of chromium (NULL: kn_runner_chromium_default) kept
 * launched ahead of the attempts, each a fresh private Chromium (new profile) used by one attempt
 * only, launched on the start page of the next of urls (n_urls: the attempts to come, in order;
 * an entry may be NULL: about:blank). No more than n_urls are launched, but a take past that (a
 * retry) still gets one. Every browser dies with the pool's threads: free the pool only after
 * every attempt that took a browser ended. */
int kn_browser_pool_new(kn_browser_pool **out, size_t size, const char *const *urls, size_t n_urls,
                        const char *chromium, kn_err *err);
/* A ready, live browser for an attempt starting at url (waiting for one; a pooled browser that
 * died is replaced, never given; one launched on url preferred). *preloaded 1 when its first tab
 * is url, loaded less than KN_BROWSER_POOL_FRESH_S ago (kn_start_page_open's preloaded), else 0.
 * *out is the caller's: kn_local_browser_stop it. KN_EINVAL when *stop (may be NULL) became
 * non-zero while waiting; the launch's error when the browser could not be started. */
int kn_browser_pool_take(kn_browser_pool *p, const char *url, kn_local_browser *out, int *preloaded,
                         const atomic_int *stop, kn_err *err);
/* Stop the browsers still waiting, end the threads. NULL is a no-op. */
void kn_browser_pool_free(kn_browser_pool *p);

/* The live view of an attempt (services/live: kn_live_hub_attempt_watch): the attempt's
 * page shown to the dashboard's viewers, taken over by a maintainer while the site blocks the agent.
 * All on the attempt's thread and loop. begin: the agent is about to start on target_id; tick:
 * every slice with the agent's steps so far and whether the page blocks now (the monitor's verdict,
 * blocked.h) — 1 while a person holds the page (the agent is paused meanwhile); taken: asked at every
 * event, 1 while the events are the person's (monitor opts.human); end: the takeovers as JSON (a new
 * reference; NULL: none), result.json's "takeovers". */
typedef struct kn_attempt_watch {
	void (*begin)(void *ud, kn_cdp_loop *loop, const char *ws_url, const char *target_id,
	              const char *run_id, const kn_task *task);
	int (*tick)(void *ud, int steps, int blocked);
	int (*taken)(void *ud);
	json_t *(*end)(void *ud);
	void *ud;
} kn_attempt_watch;

typedef struct kn_attempt_opts {
	const kn_task *task;     /* borrowed */
	const char *agent_cmd;   /* run by /bin/sh -c */
	const char *dir;         /* the attempt's folder (created, with parents) */
	const char *run_id;      /* KEYNODE_RUN_ID, the run id in trajectory and result */
	const char *browser;     /* an existing browser's endpoint (a fresh context per attempt);
	                          * NULL: launch a private headless Chromium */
	const char *chromium;    /* binary of the launched browser; NULL: kn_runner_chromium_default() */
	kn_browser_pool *pool;   /* without browser: take the browser from this warm pool (its start
	                          * page then navigated) instead of launching one; NULL: launch */
	int viewport_w, viewport_h; /* 0: the browser's default */
	int ws_received;         /* 1: WebSocket messages received are events too (monitor.h) */
	double timeout_s;        /* agent wall-clock budget; <= 0: none */
	kn_eval_opts eval;       /* eval.step_limit is the step budget */
	const struct kn_blocked_rules *blocked; /* when the site refused service (blocked.h); NULL: defaults */
	const struct kn_guard *guard;   /* keynode.yaml's guard rules; NULL: none */
	int canary_timeout_ms;          /* keynode.yaml canary.timeout_ms (monitor.h); 0: the default */
	const struct kn_redact *redact; /* redaction rules; NULL: the defaults */
	size_t log_cap;          /* 0: KN_AGENT_LOG_CAP_DEFAULT */
	const atomic_int *stop;  /* becomes non-zero: stop everything now (SIGINT/SIGTERM) */
	const kn_remote *server; /* --server: the run is made by serve's monitor (POST /api/runs on
	                          * this attempt's browser) instead of one in this process; the
	                          * server's run id is the attempt's; NULL: local (attempt_remote.c) */
	const char *task_ref;    /* with server: the task as the server knows it (TASKSET:TASK) */
	int trace;               /* kn_trace_mode: the run trace in <dir>/trace/ (services/trace) */
	const char *environment; /* JSON text of kn_run_environment (provenance.h): result.json's
	                          * "environment", with this attempt's browser added; NULL: none */
	const kn_attempt_watch *watch; /* the live view (keynode worker's agent jobs); NULL: none */
} kn_attempt_opts;

typedef enum kn_attempt_status {
	KN_ATTEMPT_DONE,        /* the agent ran and was judged (success or not: see completed) */
	KN_ATTEMPT_ERROR,       /* infrastructure failed: not the agent's fault, excluded, retried */
	KN_ATTEMPT_INTERRUPTED, /* keynode run was stopped during the attempt */
	KN_ATTEMPT_BLOCKED,     /* the site refused service (evaluator status blocked: a challenge,
	                         * CAPTCHA, 403…) and the task was not finished: not the agent's
	                         * fault, excluded and counted apart, not retried */
	KN_ATTEMPT_UNJUDGED     /* a judgement the run depends on failed (evaluator status unjudged):
	                         * the judge's fault, excluded and counted apart; --resume runs it
	                         * again */
} kn_attempt_status;

/* What one attempt came to; also written as result.json's "attempt" object. */
typedef struct kn_attempt_report {
	kn_attempt_status status;
	char end[32];            /* "agent exited", "timeout", "step limit", "browser gone",
	                          * "browser not responding", "unreachable", "interrupted", or ""
	                          * when the agent never started */
	char reason[512];        /* why an error (empty otherwise) */
	int completed;           /* every key node reached */
	double score;
	int exit_code;           /* the agent's exit status; -1 when killed by a signal or not run */
	int exit_signal;         /* the signal that ended it, 0 when none */
	unsigned long long log_bytes; /* everything the agent printed */
	int log_truncated;
	int answers, answers_dropped;
	double t_browser_s, t_page_s, t_ready_s; /* attempt start → browser up, → start page loaded,
	                                          * → monitor ready */
	double overhead_start_s; /* attempt start → agent started */
	double overhead_end_s;   /* agent end → result written */
	double agent_s;          /* agent started → agent ended */
} kn_attempt_report;

/* Run one attempt (README.md). Fills rep; writes dir/{result.json,trajectory.jsonl,agent.log,
 * answers.txt}. Returns 0 when result.json was written (whatever the status), a negative code
 * when even that failed (err says why). */
int kn_attempt_run(kn_attempt_report *rep, const kn_attempt_opts *opts, kn_err *err);

const char *kn_attempt_status_name(kn_attempt_status s); /* "done", "error", "interrupted" */

/* A task id as a folder name (folder.c): [A-Za-z0-9._-], anything else '_', never starting with
 * a dot, "_" when empty; cut to cap-1 bytes. */
void kn_runner_folder_name(char *out, size_t cap, const char *id);

/* The browser an attempt launches when opts.chromium is NULL (browser_pick.c):
 * /usr/lib/chromium/chromium-headless-shell when installed (it starts in about half the time),
 * else /usr/lib/chromium/chromium. */
const char *kn_runner_chromium_default(void);

/* The usage an agent appended to KEYNODE_USAGE_FILE at path (usage.c): {input_tokens,
 * output_tokens, usd, models, lines, bad_lines}, the caller's; NULL when there is no such file or
 * it holds no line. */
json_t *kn_usage_read(const char *path);

/* mkdir -p path (0755). 0, or -1 with errno. */
int kn_runner_mkdirs(const char *path);

/* --- the agent process group (agent.c) --- */

typedef struct kn_agent_proc kn_agent_proc;

/* Start cmd under /bin/sh -c as the leader of a new process group, stdin /dev/null, stdout and
 * stderr into a pipe whose first cap bytes go to log_path, environment envp. The child dies
 * with the calling thread (PR_SET_PDEATHSIG). *out is the caller's (kn_agent_stop frees it). */
int kn_agent_start(kn_agent_proc **out, const char *cmd, char *const envp[], const char *log_path,
                   size_t cap, kn_err *err);

/* Make the calling process the subreaper of its descendants (PR_SET_CHILD_SUBREAPER): processes
 * an agent forked and left behind come back to us, so stopping a group also reaps them. Call
 * once, before any attempt. */
int kn_runner_adopt_orphans(void);

/* Pause (SIGSTOP) or resume (SIGCONT) the whole group: a person took over the attempt's page
 * from the live view. 0, or KN_EIO. NULL or exited: a no-op. */
int kn_agent_pause(kn_agent_proc *a, int pause);

/* 1 once the leader exited (reaped), 0 while it runs. */
int kn_agent_exited(kn_agent_proc *a);

/* Stop the whole process group: SIGTERM, SIGKILL after grace_ms, reap the leader, wait for the
 * output reader, then free a. Fills what the report needs (exit code/signal, log bytes). NULL is
 * a no-op. */
void kn_agent_stop(kn_agent_proc *a, int grace_ms, kn_attempt_report *rep);

/* --- the start page (start_page.c) --- */

/* On the browser at ws (a loop of the calling thread), open url in the first tab of the browser
 * context (NULL: the default) and wait until it loaded; size the window to vw×vh when given.
 * preloaded: the browser was launched with url as its first page (kn_local_browser_start_at), so
 * only the load is waited for (a failed one is navigated again to name the reason).
 * KN_EIO with the reason when the site is unreachable or answers 5xx, KN_ETIMEOUT when it did
 * not load in timeout_ms, KN_EINVAL when *stop became non-zero (may be NULL) while it waited.
 * url NULL: only the window. *target_out (may be NULL) gets the tab's id
 * (the caller's); *net_error (may be NULL) the browser's net error ("net::ERR_…", the caller's)
 * when the page failed to load with one, else NULL. */
int kn_start_page_open(kn_cdp_loop *loop, const char *ws, const char *context_id,
                       const char *url, int preloaded, int vw, int vh, int timeout_ms,
                       const atomic_int *stop, char **target_out, char **net_error, kn_err *err);

/* A fresh browser context on the browser at ws (*out: its id, the caller's), and its disposal
 * (best effort). For --browser: attempts sharing a browser each get their own context. */
int kn_browser_context_new(kn_cdp_loop *loop, const char *ws, char **out, kn_err *err);
void kn_browser_context_dispose(kn_cdp_loop *loop, const char *ws, const char *id);

#endif
