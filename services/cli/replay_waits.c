/* replay_waits.c — keynode.yaml's `replay:` section (services/config/config_replay.c) turned into
 * what replay validation waits for (services/replay/replay.h kn_replay_waits), one way for
 * `replay --config` and `worker`. Command-line options given after it win. */
#include "cli.h"
#include "replay.h"

void kn_cli_replay_waits(kn_replay_opts *ro, const kn_config *cfg)
{
	if (!cfg)
		return;
	const struct kn_config_replay *c = &cfg->replay;
	if (c->element_timeout_ms > 0)
		ro->element_timeout_ms = c->element_timeout_ms;
	if (c->command_timeout_ms > 0)
		ro->command_timeout_ms = c->command_timeout_ms;
	kn_replay_waits *w = &ro->wait;
	const int *from[] = {&c->settle_ms, &c->quiet_ms, &c->quiet_max_ms, &c->consequence_ms, &c->script_quiet_ms,
	                     &c->network_max_ms, &c->postcondition_ms, &c->grace_ms};
	int *to[] = {&w->settle_ms, &w->quiet_ms, &w->quiet_max_ms, &w->consequence_ms, &w->script_quiet_ms,
	             &w->network_max_ms, &w->postcondition_ms, &w->grace_ms};
	for (size_t i = 0; i < sizeof to / sizeof to[0]; i++)
		if (*from[i]) /* -1 (off) means the same to kn_replay_waits */
			*to[i] = *from[i];
}
