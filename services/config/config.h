/* config.h — keynode.yaml, the service configuration (docs/formats.md §6), loaded into a plain struct.
 *
 * The loader stores values and checks their types and ranges; it does not act on them (nothing is
 * connected to; a cron expression is stored as text, checked with services/scheduler/cron.h's
 * kn_cron_check so that a bad one fails at load, and compiled by the scheduler). Errors name the
 * file, the 1-based line and column and the key path: "keynode.yaml:7:5: semantic.threshold: expected a number in (0, 1]". Unknown
 * and repeated keys are errors; anchors, aliases and tags are refused; size, depth and node count
 * are capped. README.md in this folder lists every key and its default. */
#ifndef KEYNODE_CONFIG_H
#define KEYNODE_CONFIG_H

#include <stddef.h>

#include "keynode/error.h"
#include "wait_table.h"

#define KN_CONFIG_MAX_BYTES (1u << 20) /* a larger file fails with KN_ELIMIT */
#define KN_CONFIG_MAX_DEPTH 16         /* nesting of mappings and sequences */
#define KN_CONFIG_MAX_NODES 20000      /* scalars, mappings and sequences together */

typedef enum kn_config_backend { KN_CONFIG_OFFLINE = 0, KN_CONFIG_LLM = 1 } kn_config_backend;
typedef enum kn_config_alert_type { KN_ALERT_WEBHOOK = 0, KN_ALERT_SLACK = 1 } kn_config_alert_type;

/* The lists of `blocked:`, in the order of their keys. */
typedef enum kn_config_blocked_list {
	KN_CONFIG_BLOCKED_HTTP_STATUS, KN_CONFIG_BLOCKED_CHALLENGE, KN_CONFIG_BLOCKED_CAPTCHA_FRAMES,
	KN_CONFIG_BLOCKED_CONSENT_WALLS, KN_CONFIG_BLOCKED_CONSENT_DISMISS, KN_CONFIG_BLOCKED_LISTS
} kn_config_blocked_list;

typedef struct kn_config_alert {
	kn_config_alert_type type;
	char *url;
} kn_config_alert;

typedef struct kn_config_schedule {
	char *name;  /* unique among schedules */
	char *cron;  /* a 5-field cron expression or macro, as written; kn_cron_check accepted it */
	char *tasks; /* "all" (default), a task set name, or — when the file gave a list — the refs
	              * joined by ", " (informational: use refs) */
	char **refs; /* the list form: task references "TASK" or "TASKSET:TASK"; n_refs 0 otherwise */
	size_t n_refs;
} kn_config_schedule;

/* Every string is NUL-terminated and owned by the config; NULL means "not set" where the comment
 * says so. The *_set flags say whether the file (not the default) gave the value. */
typedef struct kn_config {
	char *database_url;        /* NULL: not set; env KEYNODE_DATABASE_URL overrides */
	char *http_listen;         /* default "127.0.0.1:8080" */
	char *http_token;          /* NULL: not set; env KEYNODE_API_TOKEN overrides; its name is "default" */
	struct kn_config_token {   /* http.tokens: more tokens, each with the name the maintenance
	                            * log records as the author of a change */
		char *name, *token;
	} *http_tokens;
	size_t n_http_tokens;
	char **http_hosts;         /* names the Host header may carry (DNS-rebinding guard); none:
	                            * loopback names on a loopback listener, anything otherwise */
	size_t n_http_hosts;
	char **http_origins;       /* origins allowed to open /api/stream and call the API from a
	                            * browser ("http://dash.example:8080"); none: same origin only */
	size_t n_http_origins;
	char **http_proxies;       /* http.trusted_proxies: peer addresses whose X-Forwarded-Host,
	                            * -Proto and -For are believed (a load balancer); none: never */
	size_t n_http_proxies;
	int http_stream_idle_s;    /* [1, 3600]; a subscriber silent (no pong) this long is closed; 60 */
	long http_max_run_events;  /* [1, 1e8]; events one run may hold; default 1000000 */
	char *http_advertise;      /* HOST:PORT other serves forward a run's calls to;
	                            * NULL: the listen address (a wildcard host: this machine's name) */
	int http_live_view_public; /* http.live_view_public: watching a live page needs no token
	                            * (taking over always does); default false */
	int http_takeover_idle_s;  /* [10, 3600]; a takeover without input this long is handed back; 120 */
	int http_live_view_max_s;  /* [10, 86400]; a live view viewer is closed after this long; 3600 */
	int http_orphan_sweep_s;   /* [1, 3600]; every this many seconds a serve ends the live runs of
	                            * dead serves ("service restarted"); default 30 */
	char **browsers;           /* CDP endpoints; n_browsers may be 0 */
	size_t n_browsers;
	struct {
		kn_config_backend backend; /* default offline */
		int backend_set;
		double threshold;          /* in (0, 1]; default 0.7 */
		int threshold_set;
		struct {
			char *url, *model;      /* NULL: not set */
			char *api_key_env;      /* NULL: not set (the CLI then tries OPENAI_API_KEY) */
			long timeout_ms;        /* [1, 3600000]; default 30000 */
			int timeout_set;
			double price_prompt, price_completion; /* USD per 1000 tokens; default 0 */
			int price_set;
		} llm;
	} semantic;
	char *verdict_cache;       /* NULL: not set (the default cache file); "off": none */
	char *region;              /* where runs run from, a label for `keynode run`'s environment;
	                            * NULL: not set (--region and KEYNODE_REGION override) */
	kn_config_alert *alerts;
	size_t n_alerts;
	kn_config_schedule *schedules;
	size_t n_schedules;
	int health_broken_after;   /* [1, 1000]; default 2 */
	struct kn_config_site {
		char *name;            /* "SHOPPING": WebArena's __SHOPPING__ placeholder */
		char *url;             /* what it becomes */
	} *sites;                  /* `sites:` mapping, in file order; n_sites may be 0 */
	size_t n_sites;
	/* `blocked:` — when a replay counts as blocked, not broken (services/replay/blocked.h). A list
	 * with set = 0 means the built-in defaults; set = 1 exactly v (n may be 0). */
	struct kn_config_blocked {
		int enabled;           /* default 1 */
		int geo;               /* the geo-redirect rule; default 1 */
		struct kn_config_list {
			char **v;
			size_t n;
			int set;
		} lists[KN_CONFIG_BLOCKED_LISTS]; /* indexed by kn_config_blocked_list */
	} blocked;
	/* `agents:` {NAME: COMMAND} — what `keynode worker` may run for agent jobs (config_agents.c) */
	struct kn_config_agent {
		char *name;            /* 1..64 of [A-Za-z0-9._-] */
		char *command;         /* run by /bin/sh -c */
	} *agents;                 /* in file order; n_agents may be 0 */
	size_t n_agents;
	/* `trace:` — run and replay traces kept by serve and worker (config_trace.c) */
	struct kn_config_trace {
		int mode;              /* 0 off (default), 1 on, 2 failures (kn_trace_mode's values) */
		int mode_set;
		char *dir;             /* NULL: not set (serve: traces/ beside the spool folder) */
		int keep_days;         /* [1, 36500]; 0: not set (14) */
		int max_mb;            /* [1, 100000]; 0: not set (50) */
	} trace;
	/* `retention:` — what `keynode prune` and serve's hourly prune delete (config_retention.c,
	 * services/store/store_prune.h): ages in days, each in [1, 36500]; 0: not set (kept for ever) */
	struct kn_config_retention {
		int agent_events_days, replay_events_days, screenshots_days;
	} retention;
	/* `replay:` — what replay validation waits for (config_replay.c; keys, defaults and bounds in
	 * services/replay/wait_table.h): ms[KN_RWAIT_*] in ms, 0 not set (the default), -1 set to 0
	 * (that wait is off) */
	struct kn_config_replay {
		int ms[KN_RWAIT__COUNT];
	} replay;
	/* `guard:` and `end_on_guard:` (config_guard.c; keynode/guard.h): the rules every live run holds
	 * requests by, beside its task's and task set's; NULL: none given */
	struct kn_guard *guard;
	/* `canary: { timeout_ms }` (config_guard.c): how long the guard's canary may take before a
	 * guarded run starts (services/monitor/canary.h), 100..60000; 0: not set (5000) */
	int canary_timeout_ms;
	/* `redact:` (keynode/redact.h): extra secret names; enabled 1 by default */
	struct kn_config_redact {
		int enabled;
		char **fields, **headers;
		size_t n_fields, n_headers;
	} redact;
} kn_config;

/* The redaction rules of c (borrowing its lists) for kn_redact_*; c NULL: the defaults. */
struct kn_redact;
void kn_config_redact_rules(struct kn_redact *out, const kn_config *c);

/* Read and parse the file at path (errors named by path), then apply the environment overrides.
 * On success *out is the caller's (kn_config_free); on failure *out is NULL, err says why and the
 * return is KN_EIO (unreadable), KN_ELIMIT (a cap), KN_EINVAL or KN_ENOMEM. */
int kn_config_load(kn_config **out, const char *path, kn_err *err);

/* The same over len bytes of buf (need not be NUL-terminated), errors named by name. */
int kn_config_load_buffer(kn_config **out, const char *buf, size_t len, const char *name,
                          kn_err *err);

/* A config with every default and the environment overrides, as if from an empty file. */
int kn_config_new(kn_config **out, kn_err *err);

void kn_config_free(kn_config *cfg);

/* 1 when s is HOST:PORT as http.advertise takes it: a name or IPv4 address of [A-Za-z0-9._-]
 * (not starting with - or .), or [IPv6]; a port 1-65535 without a leading zero. */
int kn_config_address_ok(const char *s);

/* The command of the agent named name in `agents:`, or NULL (borrowed from c). */
const char *kn_config_agent_command(const kn_config *c, const char *name);

#endif
