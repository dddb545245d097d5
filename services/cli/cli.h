/* cli.h — the `keynode` command line: one function per subcommand, sharing option helpers.
 * Exit codes (docs/formats.md §5): 0 success, 1 the checked thing failed, 2 usage/environment. */
#ifndef KEYNODE_CLI_H
#define KEYNODE_CLI_H

#include <stdio.h>

#include "keynode/eval.h"
#include "config.h"
#include "llm.h"
#include "trace.h"

enum { KN_EXIT_OK = 0, KN_EXIT_FAIL = 1, KN_EXIT_USAGE = 2 };

int kn_cmd_validate(int argc, char **argv);
int kn_cmd_match(int argc, char **argv);
int kn_cmd_score(int argc, char **argv);
int kn_cmd_sites(int argc, char **argv);
int kn_cmd_watch(int argc, char **argv);
int kn_cmd_replay(int argc, char **argv);
int kn_cmd_import(int argc, char **argv);

/* Load a task file with the sites: of cfg (may be NULL) resolving WebArena placeholders; logs
 * one warn line per part of an imported task that could not be mapped (cmd names the command).
 * Returns kn_taskset_load_file's code; *out is the caller's. (cmd_import.c) */
int kn_cli_load_tasks(kn_taskset **out, const char *path, const kn_config *cfg, const char *cmd,
                      kn_err *err);
/* Attach the workflow files of dir (NULL: `workflows/` beside tasks_path when it exists) to set
 * (keynode/workflow.h), saying each bad file on stderr. KN_EXIT_OK or KN_EXIT_USAGE.
 * (workflows_opt.c) */
int kn_cli_attach_workflows(kn_taskset *set, const char *tasks_path, const char *dir,
                            const char *cmd);
/* "WxH" (100 to 10000 each) into *w, *h; 0 or -1. (workflows_opt.c) */
int kn_cli_parse_viewport(int *w, int *h, const char *text);
int kn_cmd_record(int argc, char **argv);
int kn_cmd_migrate(int argc, char **argv);
int kn_cmd_prune(int argc, char **argv); /* cmd_prune.c */
/* serve's retention (serve_prune.c): a thread pruning as cfg's `retention:` says, 5 s after start and
 * then hourly; *out NULL (and 0) when nothing is configured. _stop ends it between two batches and
 * frees it; _stop(NULL) is a no-op. */
typedef struct kn_serve_prune kn_serve_prune;
int kn_serve_prune_start(kn_serve_prune **out, const char *conninfo, const kn_config *cfg, kn_err *err);
void kn_serve_prune_stop(kn_serve_prune *p);
int kn_cmd_worker(int argc, char **argv);
int kn_cmd_serve(int argc, char **argv);
int kn_cmd_run(int argc, char **argv);
int kn_cmd_compare(int argc, char **argv);     /* cmd_compare.c */
int kn_cmd_leaderboard(int argc, char **argv); /* cmd_leaderboard.c */
int kn_cmd_judge_audit(int argc, char **argv); /* cmd_judge_audit.c */

/* Print "keynode CMD: message" to stderr and return KN_EXIT_USAGE. */
int kn_cli_usage_error(const char *cmd, const char *fmt, ...)
	KN_PRINTF(2, 3)
	;

/* Parse --mode / --threshold / --step-limit values into opts; 0 or -1 on a bad value. */
int kn_cli_parse_mode(kn_eval_opts *opts, const char *mode);
int kn_cli_parse_threshold(kn_eval_opts *opts, const char *text);
int kn_cli_parse_int(int *out, const char *text);

/* The semantic judge options match, score and watch share (semantic_opts.c): append
 * KN_CLI_SEMANTIC_LONGOPTS to the getopt_long table and KN_CLI_SEMANTIC_HELP to the help, hand
 * unknown option codes to kn_cli_semantic_option, then kn_cli_semantic_open once parsed. */
enum {
	KN_CLI_OPT_SEMANTIC = 0x1000, KN_CLI_OPT_LLM_URL, KN_CLI_OPT_LLM_MODEL, KN_CLI_OPT_LLM_KEY_ENV,
	KN_CLI_OPT_LLM_TIMEOUT, KN_CLI_OPT_LLM_PRICE, KN_CLI_OPT_VERDICT_CACHE, KN_CLI_OPT_CONFIG
};
#define KN_CLI_SEMANTIC_LONGOPTS                                                                  \
	{"semantic", required_argument, NULL, KN_CLI_OPT_SEMANTIC},                                  \
	{"llm-url", required_argument, NULL, KN_CLI_OPT_LLM_URL},                                    \
	{"llm-model", required_argument, NULL, KN_CLI_OPT_LLM_MODEL},                                \
	{"llm-key-env", required_argument, NULL, KN_CLI_OPT_LLM_KEY_ENV},                            \
	{"llm-timeout", required_argument, NULL, KN_CLI_OPT_LLM_TIMEOUT},                            \
	{"llm-price", required_argument, NULL, KN_CLI_OPT_LLM_PRICE},                                \
	{"verdict-cache", required_argument, NULL, KN_CLI_OPT_VERDICT_CACHE},                        \
	{"config", required_argument, NULL, KN_CLI_OPT_CONFIG}
#define KN_CLI_SEMANTIC_HELP                                                                      \
	"semantic judge (semantic key nodes):\n"                                                     \
	"  --semantic B       offline (default: token overlap, no network) or llm (any\n"             \
	"                     OpenAI-compatible chat completions endpoint; services/llm/README.md)\n" \
	"  --llm-url URL      endpoint base, e.g. http://127.0.0.1:8080 (POST URL/v1/chat/completions)\n" \
	"  --llm-model NAME   model name sent in each request\n"                                      \
	"  --llm-key-env VAR  environment variable holding the API key (default OPENAI_API_KEY; when\n" \
	"                     that default is unset no key is sent, as local servers need none)\n"    \
	"  --llm-timeout MS   per-request timeout in milliseconds (default 30000); 3 retries with\n"  \
	"                     backoff on connection errors, 5xx and 429 (Retry-After honoured)\n"     \
	"  --llm-price P[,C]  USD per 1000 prompt [and completion] tokens, to report the cost\n"      \
	"  --verdict-cache F  verdict cache file (JSON Lines; default\n"                              \
	"                     ~/.cache/keynode/verdicts.jsonl, \"off\" for none): a cached\n"         \
	"                     (model, rule, input) makes no request\n"                                \
	"  --config FILE      keynode.yaml: its semantic section (backend, threshold, llm) and\n"     \
	"                     verdict_cache give these options; flags given here override it\n"

typedef struct kn_cli_semantic {
	int llm;                                /* --semantic llm */
	const char *url, *model, *key_env, *cache, *llm_flag;
	long timeout_ms;
	double price_prompt, price_completion;
	int backend_set, price_set;             /* --semantic / --llm-price given */
	const char *config_path;                /* --config */
	kn_config *config;                      /* loaded by kn_cli_semantic_open; url… may point in */
	kn_llm *client;
	kn_verdict_file *verdicts;
} kn_cli_semantic;

/* Take option c with its argument: 1 when it was one of ours, 0 when not, -1 on a bad value
 * (said on stderr as a usage error of cmd). */
int kn_cli_semantic_option(kn_cli_semantic *s, const char *cmd, int c, const char *arg);

/* Load --config if given and take from its semantic section and verdict_cache what no flag set
 * (eo->threshold too, when still 0 — --threshold was not given), check the options and build
 * the judge into eo->semantic (offline: left NULL); the client's warnings (retries, cache) are
 * log lines. Returns KN_EXIT_OK, or KN_EXIT_USAGE having said why (a config error with its
 * file:line:col) and released everything. */
int kn_cli_semantic_open(kn_cli_semantic *s, const char *cmd, kn_eval_opts *eo);
void kn_cli_semantic_close(kn_cli_semantic *s);

/* The LLM usage as one line on f ("llm usage: …"), nothing for the offline judge; reached is the
 * sum of reached key nodes, for usd_efficiency (< 0: not shown). */
void kn_cli_semantic_report(kn_cli_semantic *s, FILE *f, double reached);

/* The same as a JSON object on f ({"backend": "llm", "model": …, "requests": …, "usd": …}), or
 * {"backend": "offline"}. */
void kn_cli_semantic_json(kn_cli_semantic *s, FILE *f, double reached);
/* That object as a jansson tree, the caller's (json_decref); NULL when out of memory. */
struct json_t *kn_cli_semantic_usage(kn_cli_semantic *s, double reached);

/* keynode.yaml's `blocked:` section as the rules of blocked detection (services/replay/blocked.h):
 * lists not given keep their defaults; cfg NULL: every default. The lists are borrowed from cfg,
 * which must outlive *out. Used by worker, watch and replay (blocked_opts.c). */
struct kn_blocked_rules;
void kn_cli_blocked_rules(struct kn_blocked_rules *out, const kn_config *cfg);
/* keynode.yaml's `replay:` waits (and element timeout) into ro, where set; cfg NULL: nothing.
 * Used by worker and replay (replay_waits.c). */
struct kn_replay_opts;
void kn_cli_replay_waits(struct kn_replay_opts *ro, const kn_config *cfg);
/* The run trace options of watch, run and replay (trace_opts.c): append KN_CLI_TRACE_LONGOPTS
 * and KN_CLI_TRACE_HELP, hand unknown option codes to kn_cli_trace_option (1 taken, 0 not ours,
 * -1 bad value: usage already printed). */
enum { KN_CLI_OPT_TRACE = 0x1100, KN_CLI_OPT_TRACE_DIR };
#define KN_CLI_TRACE_LONGOPTS                                                                     \
	{"trace", required_argument, NULL, KN_CLI_OPT_TRACE},                                        \
	{"trace-dir", required_argument, NULL, KN_CLI_OPT_TRACE_DIR}
#define KN_CLI_TRACE_HELP                                                                         \
	"trace (screenshots, element, console/network and key-node evidence per step;\n"           \
	"services/trace/README.md):\n"                                                              \
	"  --trace on|off|failures  off (default); on; failures: kept only when the run did not\n"  \
	"                     finish / the replay did not pass\n"                                   \
	"  --trace-dir DIR    where (implies --trace on); default: beside the trajectory or\n"      \
	"                     result (RUN.jsonl -> RUN.trace/); `keynode trace show DIR` reads it\n"
typedef struct kn_cli_trace {
	kn_trace_mode mode;
	int mode_given;
	const char *dir;
} kn_cli_trace;
int kn_cli_trace_option(kn_cli_trace *o, const char *cmd, int c, const char *arg);
/* The folder: --trace-dir, else `beside` (a file) with its extension replaced by ".trace", else
 * "trace-RUN_ID". */
void kn_cli_trace_default_dir(char *buf, size_t size, const kn_cli_trace *o, const char *beside,
                              const char *run_id);
/* A trace in dir when the mode is not off (*out NULL when off). KN_EXIT_OK or KN_EXIT_USAGE. */
int kn_cli_trace_open(kn_trace **out, const kn_cli_trace *o, const char *cmd, const char *dir,
                      const kn_task *task, const char *run_id, const char *kind);
/* keynode.yaml's `trace:` under the flags (serve, worker): the config's mode when --trace and
 * --trace-dir were not given, its dir when --trace-dir was not, its keep_days / max_mb when
 * *keep_days / *max_mb are 0 (then 14 days and 50 MB when the config says nothing either). */
void kn_cli_trace_config(kn_cli_trace *o, int *keep_days, int *max_mb, const kn_config *cfg);
/* The service's state folder for what (STATE_DIRECTORY/what, XDG_STATE_HOME/keynode/what,
 * ~/.local/state/keynode/what, else /var/lib/keynode/what); "spool" honours KEYNODE_SPOOL_DIR.
 * serve's spool and, beside it, the default traces folder serve and worker share. malloc'd. */
char *kn_cli_state_dir(const char *what);
#define kn_cli_default_spool() kn_cli_state_dir("spool")
/* Write the index (or drop the trace in failures mode when !failed) and say where it is. */
int kn_cli_trace_finish(kn_trace *t, const kn_eval *ev, const char *cmd, const char *reason,
                        int failed, int quiet);
int kn_cmd_trace(int argc, char **argv);

/* The options naming what watch, record and replay work on (target_opts.c): --browser ENDPOINT,
 * --tasks FILE, --task ID and --out PATH. Append KN_CLI_TARGET_LONGOPTS to the getopt_long table
 * and hand option codes to kn_cli_target_option (1 taken, 0 not ours). */
#define KN_CLI_TARGET_LONGOPTS                                                                    \
	{"browser", required_argument, NULL, 'b'}, {"tasks", required_argument, NULL, 't'},          \
	{"task", required_argument, NULL, 'i'}, {"out", required_argument, NULL, 'o'}
typedef struct kn_cli_target {
	const char *browser, *tasks, *task_id, *out; /* borrowed from argv; NULL when not given */
} kn_cli_target;
int kn_cli_target_option(kn_cli_target *o, int c, const char *arg);

#endif
