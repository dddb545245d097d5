/* config_replay.c — the `replay:` section of keynode.yaml: how long replay validation
 * (`keynode replay --validate --config`, `keynode worker`) waits for a step's element and for the
 * consequences of each action (services/replay/README.md "A step"). Every key is optional and in
 * milliseconds; 0 turns a wait off (element_timeout_ms, settle_ms, command_timeout_ms: at least 1;
 * keys, defaults and bounds: services/replay/wait_table.h):
 *   replay:
 *     element_timeout_ms: 5000   # a step's element, located and actionable
 *     settle_ms: 10000           # the page settled, else gone on once its document is in place,
 *                                # else "navigation timeout" (an error: slow is not changed)
 *     command_timeout_ms: 30000  # the browser answers each DevTools command within this, else a
 *                                # failing step is "browser timeout" (an error)
 *     quiet_ms: 100              # the DOM held still this long
 *     quiet_max_ms: 1000         # a DOM that never holds still is waited for no longer
 *     consequence_ms: 500        # an action that changed nothing yet gets this long to (a timer)
 *     script_quiet_ms: 250       # after a script's request ended, for what it does next
 *     network_max_ms: 1000       # requests in flight (polling) are waited for no longer
 *     postcondition_ms: 5000     # a recorded after: postcondition, until it holds
 *     grace_ms: 2000             # before "key node not reached", for the page to finish */
#include <stdio.h>

#include "config_internal.h"

int kn_config_load_replay(loader *l, kn_config *c, const node *m)
{
	const char *names[KN_RWAIT__COUNT];
	for (size_t i = 0; i < KN_RWAIT__COUNT; i++)
		names[i] = kn_replay_wait_table[i].key;
	const node *v[KN_RWAIT__COUNT];
	int rc;
	if ((rc = kn_config_fields(l, m, "replay", names, KN_RWAIT__COUNT, v)) != 0)
		return rc;
	for (size_t i = 0; i < KN_RWAIT__COUNT; i++) {
		if (!v[i] || kn_config_is_null(v[i]))
			continue;
		char key[48];
		long x;
		snprintf(key, sizeof key, "replay.%s", names[i]);
		if ((rc = kn_config_get_long(l, v[i], key, kn_replay_wait_table[i].min_ms, KN_RWAIT_MAX_MS, &x)) != 0)
			return rc;
		c->replay.ms[i] = x ? (int)x : -1; /* -1: set to 0, the wait is off */
	}
	return 0;
}
