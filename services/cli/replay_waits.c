/* replay_waits.c — keynode.yaml's `replay:` section (services/config/config_replay.c) turned into
 * what replay validation waits for (services/replay/replay.h kn_replay_waits), one way for
 * `replay --config` and `worker`. Command-line options given after it win. */
#include "cli.h"
#include "replay.h"

void kn_cli_replay_waits(kn_replay_opts *ro, const kn_config *cfg)
{
	if (!cfg)
		return;
	for (int i = 0; i < KN_RWAIT__COUNT; i++)
		if (cfg->replay.ms[i]) /* -1 (off) means the same to kn_replay_opts */
			*kn_replay_opts_wait(ro, (kn_replay_wait_id)i) = cfg->replay.ms[i];
}
