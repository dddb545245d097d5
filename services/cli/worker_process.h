/* worker_process.h — the `keynode worker` process assembled around a kn_worker (services/scheduler/
 * worker.h): its options completed from keynode.yaml (traces, blocked lists, guard and redaction,
 * replay waits, agent jobs), then alerts, the live view, the dashboard's recordings and the agent
 * jobs wired in, run under a thread that takes SIGTERM and SIGINT. The CLI (cmd_worker.c) parses
 * the options, loads the config and calls kn_worker_config_apply, kn_worker_process_run and
 * kn_worker_config_clear in that order. */
#ifndef KEYNODE_WORKER_PROCESS_H
#define KEYNODE_WORKER_PROCESS_H

#include "blocked.h"
#include "config.h"
#include "keynode/redact.h"
#include "worker.h"
#include "worker_agent.h"

/* What the configuration lends the worker's options: it must outlive the worker. */
typedef struct kn_worker_config {
	kn_blocked_rules blocked;  /* keynode.yaml `blocked:` */
	kn_redact redact;          /* keynode.yaml `guard:` and `redact:` */
	char *trace_root;          /* where traces go; NULL: none */
	const char **agent_names, **agent_cmds; /* the config's agents, NULL-terminated */
} kn_worker_config;

/* Complete wo and agents from cfg: the browser and chromium defaults, the database, health, traces
 * (trace.dir created), blocked lists, guard and redaction, replay waits under the flags, and the
 * agent jobs of the config's agents (orphans of earlier agents adopted). Their borrowed parts live
 * in *wc, zeroed first. 0, or KN_EXIT_USAGE having said why on stderr as "keynode worker: …";
 * either way *wc must be given to kn_worker_config_clear. */
int kn_worker_config_apply(kn_worker_config *wc, kn_worker_opts *wo, kn_worker_agents *agents,
                           const kn_config *cfg);

/* Run the worker of wo until it stops (a signal, --once, --max-jobs) with alerts, the live view,
 * the dashboard's recordings and the agent jobs of agents (when it has some) wired in; stop signals
 * are blocked in every thread and taken by a thread of their own, SIGPIPE ignored. Alerts still
 * queued are drained (5 s) on the way out. KN_EXIT_OK, or KN_EXIT_USAGE having said why on stderr. */
int kn_worker_process_run(kn_worker_opts *wo, kn_worker_agents *agents, const kn_config *cfg);

/* Release what kn_worker_config_apply kept; a zeroed *wc is fine. */
void kn_worker_config_clear(kn_worker_config *wc);

#endif
