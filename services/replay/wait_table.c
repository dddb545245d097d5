/* wait_table.c — the table of replay's waits (wait_table.h): the defaults documented in
 * services/replay/README.md "A step" and services/config/README.md. */
#include "wait_table.h"

const kn_replay_wait_def kn_replay_wait_table[KN_RWAIT__COUNT] = {
	[KN_RWAIT_ELEMENT] = {"element_timeout_ms", 5000, 1},
	[KN_RWAIT_SETTLE] = {"settle_ms", 10000, 1},
	[KN_RWAIT_COMMAND] = {"command_timeout_ms", 0, 1},
	[KN_RWAIT_QUIET] = {"quiet_ms", 100, 0},
	[KN_RWAIT_QUIET_MAX] = {"quiet_max_ms", 1000, 0},
	[KN_RWAIT_CONSEQUENCE] = {"consequence_ms", 500, 0},
	[KN_RWAIT_SCRIPT_QUIET] = {"script_quiet_ms", 250, 0},
	[KN_RWAIT_NETWORK_MAX] = {"network_max_ms", 1000, 0},
	[KN_RWAIT_POSTCONDITION] = {"postcondition_ms", 5000, 0},
	[KN_RWAIT_GRACE] = {"grace_ms", 2000, 0},
};
