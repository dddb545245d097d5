/* config_retention.c — the `retention:` section of keynode.yaml: how old the stored
 * data `keynode prune` and serve's hourly prune delete may be (services/store/store_prune.h):
 *   retention:
 *     agent_events_days: 90    # events of finished agent runs started longer ago
 *     replay_events_days: 30   # events of finished replay runs
 *     screenshots_days: 30     # screenshots of failed replays
 * Each in [1, 36500]; a key not given keeps that kind for ever (the default: nothing is deleted
 * unless asked). Runs, results, replay results, health and alerts are never pruned. */
#include "config_internal.h"

int kn_config_load_retention(loader *l, kn_config *c, const node *m)
{
	static const char *const names[] = { "agent_events_days", "replay_events_days", "screenshots_days" };
	static const char *const paths[] = { "retention.agent_events_days", "retention.replay_events_days",
	                                     "retention.screenshots_days" };
	int *const dst[] = { &c->retention.agent_events_days, &c->retention.replay_events_days,
	                     &c->retention.screenshots_days };
	const node *v[3];
	long x;
	int rc;
	if ((rc = kn_config_fields(l, m, "retention", names, 3, v)) != 0)
		return rc;
	for (int i = 0; i < 3; i++) {
		if (!v[i] || kn_config_is_null(v[i]))
			continue;
		if ((rc = kn_config_get_long(l, v[i], paths[i], 1, 36500, &x)) != 0)
			return rc;
		*dst[i] = (int)x;
	}
	return 0;
}
