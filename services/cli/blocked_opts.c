/* blocked_opts.c — keynode.yaml's `blocked:` section (services/config) turned into the rules of
 * blocked detection (services/replay/blocked.h), one way for every command that meets live sites:
 * `worker` (scheduled replays), `watch --config` and `replay --config`. */
#include <string.h>

#include "blocked.h"
#include "cli.h"

void kn_cli_blocked_rules(kn_blocked_rules *out, const kn_config *cfg)
{
	memset(out, 0, sizeof *out);
	if (!cfg)
		return;
	const struct kn_config_list *bl = cfg->blocked.lists;
	kn_blocked_list *rl[] = {&out->http_status, &out->challenge, &out->captcha_frames,
	                         &out->consent_walls, &out->consent_dismiss};
	for (int k = 0; k < KN_CONFIG_BLOCKED_LISTS; k++)
		*rl[k] = (kn_blocked_list){(const char *const *)bl[k].v, bl[k].n, bl[k].set};
	out->off = !cfg->blocked.enabled;
	out->geo_off = !cfg->blocked.geo;
}
