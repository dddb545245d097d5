/* wait_table.h — replay validation's waits and timeouts in one table: each one's keynode.yaml key
 * (under `replay:`), its default and its bounds.
 *
 * The config loader (services/config/config_replay.c) takes its keys and bounds from here, the
 * CLI (services/cli/replay_waits.c) copies keynode.yaml's values into kn_replay_opts by the same
 * index (kn_replay_opts_wait, replay.h), and the replayer (kn_replay_waits_resolve,
 * kn_replay_element_timeout) takes its defaults from here. It has no dependencies, so that the
 * config library can link it without the replayer. */
#ifndef KEYNODE_REPLAY_WAIT_TABLE_H
#define KEYNODE_REPLAY_WAIT_TABLE_H

/* One per setting, in the order keynode.yaml's documentation lists them. */
typedef enum kn_replay_wait_id {
	KN_RWAIT_ELEMENT,       /* element_timeout_ms: a step's element, located and actionable */
	KN_RWAIT_SETTLE,        /* settle_ms: the page settled after a step */
	KN_RWAIT_COMMAND,       /* command_timeout_ms: each DevTools command of validation's connection */
	KN_RWAIT_QUIET,         /* quiet_ms: the DOM held still this long */
	KN_RWAIT_QUIET_MAX,     /* quiet_max_ms: a DOM that never holds still, waited for no longer */
	KN_RWAIT_CONSEQUENCE,   /* consequence_ms: an action that changed nothing yet, given this long */
	KN_RWAIT_SCRIPT_QUIET,  /* script_quiet_ms: after a script's request, for what it does next */
	KN_RWAIT_NETWORK_MAX,   /* network_max_ms: requests in flight, waited for no longer */
	KN_RWAIT_POSTCONDITION, /* postcondition_ms: a recorded after: postcondition, until it holds */
	KN_RWAIT_GRACE,         /* grace_ms: before "key node not reached", for the page to finish */
	KN_RWAIT__COUNT
} kn_replay_wait_id;

typedef struct kn_replay_wait_def {
	const char *key; /* its key under keynode.yaml `replay:`, "settle_ms" */
	int def_ms;      /* the default; for command_timeout_ms 0: the DevTools connection's own
	                  * (KN_CDP_TIMEOUT_DEFAULT_MS, 30000) */
	int min_ms;      /* the least value keynode.yaml may give; 0: the wait can be turned off */
} kn_replay_wait_def;

/* The most keynode.yaml may give any of them (10 minutes). */
#define KN_RWAIT_MAX_MS 600000

/* Indexed by kn_replay_wait_id. */
extern const kn_replay_wait_def kn_replay_wait_table[KN_RWAIT__COUNT];

#endif
