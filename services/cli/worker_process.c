/* worker_process.c — the `keynode worker` process around a kn_worker (worker_process.h): its
 * options completed from keynode.yaml, then alerts, the live view, the dashboard's recordings and
 * the agent jobs wired in, run with SIGTERM and SIGINT taken by a dedicated thread (sigwait) that
 * stops the worker: the replay in progress is abandoned to lease expiry. */
#include "worker_process.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alerts.h"
#include "cli.h"
#include "keynode/fs.h"
#include "live_hub.h"
#include "log.h"
#include "runner.h"
#include "worker_record.h"

/* keynode.yaml `trace:` (services/scheduler/worker_trace.h): where serve keeps its traces, created.
 * 0, or KN_EXIT_USAGE having said why. */
static int apply_trace(kn_worker_config *wc, kn_worker_opts *wo, const kn_config *cfg)
{
	kn_cli_trace tro = {0};
	int keep_days = 0, max_mb = 0;
	kn_cli_trace_config(&tro, &keep_days, &max_mb, cfg);
	wc->trace_root = tro.mode == KN_TRACE_OFF ? NULL : tro.dir ? strdup(tro.dir) : kn_cli_state_dir("traces");
	kn_err terr = {0};
	if (tro.mode != KN_TRACE_OFF && (!wc->trace_root || kn_mkdirs(wc->trace_root, 0700, &terr) != 0)) {
		fprintf(stderr, "keynode worker: trace.dir: %s\n", wc->trace_root ? terr.msg : "out of memory");
		return KN_EXIT_USAGE;
	}
	wo->trace_mode = (int)tro.mode, wo->trace_root = wc->trace_root, wo->trace_keep_days = keep_days;
	wo->trace_max_bytes = (long long)max_mb * 1024 * 1024;
	return 0;
}

/* Agent jobs of the config's agents only (worker_agent.h): a job names an agent, never a command. */
static void apply_agents(kn_worker_config *wc, kn_worker_opts *wo, kn_worker_agents *agents,
                         const kn_config *cfg)
{
	wc->agent_names = calloc(cfg->n_agents + 1, sizeof *wc->agent_names);
	wc->agent_cmds = calloc(cfg->n_agents + 1, sizeof *wc->agent_cmds);
	for (size_t i = 0; wc->agent_names && wc->agent_cmds && i < cfg->n_agents; i++)
		wc->agent_names[i] = cfg->agents[i].name, wc->agent_cmds[i] = cfg->agents[i].command;
	if (cfg->n_agents && wc->agent_names && wc->agent_cmds) {
		agents->names = wc->agent_names, agents->commands = wc->agent_cmds, agents->n = cfg->n_agents;
		agents->chromium = wo->chromium;
		agents->region = getenv("KEYNODE_REGION") && *getenv("KEYNODE_REGION") ? getenv("KEYNODE_REGION")
		                                                                          : cfg->region;
		wo->other_job = kn_worker_agent_job;
		wo->other_ud = agents;
		kn_runner_adopt_orphans(); /* what an agent leaves behind comes back to be stopped */
	}
}

int kn_worker_config_apply(kn_worker_config *wc, kn_worker_opts *wo, kn_worker_agents *agents,
                           const kn_config *cfg)
{
	memset(wc, 0, sizeof *wc);
	if (!wo->browser && cfg->n_browsers > 0)
		wo->browser = cfg->browsers[0];
	if (!wo->chromium && getenv("KEYNODE_CHROMIUM") && *getenv("KEYNODE_CHROMIUM"))
		wo->chromium = getenv("KEYNODE_CHROMIUM");
	wo->conninfo = cfg->database_url;
	wo->broken_after = cfg->health_broken_after;
	wo->validate.fresh_context = 1;
	if (apply_trace(wc, wo, cfg) != 0)
		return KN_EXIT_USAGE;
	/* keynode.yaml `blocked:` (services/replay/blocked.h): lists not given keep their defaults */
	kn_cli_blocked_rules(&wc->blocked, cfg);
	wo->validate.replay.blocked = &wc->blocked;
	kn_config_redact_rules(&wc->redact, cfg); /* keynode.yaml guard: and redact: */
	wo->validate.replay.guard = cfg->guard;
	wo->validate.replay.canary_timeout_ms = cfg->canary_timeout_ms;
	wo->validate.replay.redact = &wc->redact;
	/* keynode.yaml `replay:` waits; --element-timeout and --settle-timeout win */
	int element_ms = wo->validate.replay.element_timeout_ms, settle_ms = wo->validate.replay.wait.settle_ms;
	kn_cli_replay_waits(&wo->validate.replay, cfg);
	if (element_ms)
		wo->validate.replay.element_timeout_ms = element_ms;
	if (settle_ms)
		wo->validate.replay.wait.settle_ms = settle_ms;
	apply_agents(wc, wo, agents, cfg);
	return 0;
}

void kn_worker_config_clear(kn_worker_config *wc)
{
	free(wc->agent_names);
	free(wc->agent_cmds);
	free(wc->trace_root);
	memset(wc, 0, sizeof *wc);
}

struct sigctx {
	sigset_t set;
	kn_worker *w;
	int done, stop_requested;
	pthread_mutex_t mu;
	pthread_t thread;
	int started;
};

/* The signal thread: each SIGTERM/SIGINT stops the worker (or marks the stop for a worker still
 * starting) until done is set. */
static void *signal_main(void *arg)
{
	struct sigctx *s = arg;
	for (;;) {
		int sig = 0;
		if (sigwait(&s->set, &sig) != 0)
			continue;
		pthread_mutex_lock(&s->mu);
		int done = s->done;
		if (!done) {
			kn_log_msg("info", "worker", "stopping", "signal=%s", sig == SIGTERM ? "TERM" : "INT");
			s->stop_requested = 1;
			if (s->w) /* under the lock: the worker is not freed meanwhile */
				kn_worker_stop(s->w);
		}
		pthread_mutex_unlock(&s->mu);
		if (done)
			return NULL;
	}
}

/* Block the stop signals in every thread (the ones created later inherit the mask) and take them
 * on the signal thread; a broken pipe is an error return, never a death. */
static void signals_start(struct sigctx *sc)
{
	pthread_mutex_init(&sc->mu, NULL);
	sigemptyset(&sc->set);
	sigaddset(&sc->set, SIGTERM);
	sigaddset(&sc->set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &sc->set, NULL);
	signal(SIGPIPE, SIG_IGN);
	sc->started = pthread_create(&sc->thread, NULL, signal_main, sc) == 0;
}

/* End the signal thread, which forgets the worker; the signals stay blocked. */
static void signals_stop(struct sigctx *sc)
{
	if (!sc->started)
		return;
	pthread_mutex_lock(&sc->mu);
	sc->done = 1;
	sc->w = NULL;
	pthread_mutex_unlock(&sc->mu);
	pthread_kill(sc->thread, SIGTERM); /* wakes its sigwait */
	pthread_join(sc->thread, NULL);
	sc->started = 0;
}

/* The worker made from wo, with its alerts, live view, recordings and agent jobs, run to its end;
 * sc learns the worker so that a signal stops it, and is stopped before anything is freed. KN_EXIT_OK, or KN_EXIT_USAGE having said why. */
static int run_worker(struct sigctx *sc, kn_worker_opts *wo, kn_worker_agents *agents, const kn_config *cfg)
{
	int rc = KN_EXIT_USAGE;
	kn_err err = {0};
	kn_alerts *alerts = NULL;
	kn_worker *w = NULL;
	kn_live_hub *live = NULL;
	kn_alerts_opts ao = {.config = cfg, .conninfo = cfg->database_url};
	if (kn_alerts_new(&alerts, &ao, &err) != 0) {
		fprintf(stderr, "keynode worker: alerts: %s\n", err.msg);
		goto done;
	}
	wo->alerts = alerts;
	/* the live view (services/live): a replay can be watched and taken over from serve */
	kn_live_hub_opts lo = {.conninfo = cfg->database_url, .takeover_idle_s = cfg->http_takeover_idle_s};
	if (kn_live_hub_new(&live, &lo, &err) != 0) {
		fprintf(stderr, "keynode worker: live view: %s\n", err.msg);
		goto done;
	}
	wo->validate.watch = kn_live_hub_watch(live);
	agents->watch = kn_live_hub_attempt_watch(live); /* and an agent attempt, once its site blocks it */
	/* recordings from the dashboard (worker_record.h), then the agent jobs */
	kn_worker_recorder recorder = {.hub = live, .idle_s = cfg->http_takeover_idle_s, .validate = wo->validate,
	                               .next = wo->other_job, .next_ud = wo->other_ud};
	wo->other_job = kn_worker_record_job;
	wo->other_ud = &recorder;
	if (kn_worker_new(&w, wo, &err) != 0) {
		fprintf(stderr, "keynode worker: %s\n", err.msg);
		goto done;
	}
	pthread_mutex_lock(&sc->mu);
	sc->w = w;
	if (sc->stop_requested) /* a signal came while the worker was starting */
		kn_worker_stop(w);
	pthread_mutex_unlock(&sc->mu);
	if (kn_worker_run(w, &err) != 0) {
		fprintf(stderr, "keynode worker: %s\n", err.msg);
		goto done;
	}
	rc = KN_EXIT_OK;
done:
	signals_stop(sc); /* before the worker is freed; a later signal stays blocked */
	kn_worker_free(w);
	kn_live_hub_free(live); /* after the worker: its replays' timers are gone with them */
	if (alerts) {
		kn_alerts_drain(alerts, 5000, NULL);
		kn_alerts_free(alerts);
	}
	return rc;
}

int kn_worker_process_run(kn_worker_opts *wo, kn_worker_agents *agents, const kn_config *cfg)
{
	struct sigctx sc = {.w = NULL};
	signals_start(&sc);
	int rc = run_worker(&sc, wo, agents, cfg); /* stops the signal thread on its way out */
	pthread_mutex_destroy(&sc.mu);
	return rc;
}
