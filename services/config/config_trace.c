/* config_trace.c — the `trace:` section of keynode.yaml: the run traces `keynode serve`
 * keeps for the runs it watches and `keynode worker` keeps for the replays it runs, and their
 * retention (services/trace/README.md):
 *   trace:
 *     mode: failures        # on | off | failures (default off)
 *     dir: /var/lib/keynode/traces   # default: traces/ beside serve's spool folder; the worker's
 *                                    # default is the same folder when serve and worker share it
 *     keep_days: 14         # traces older than this are removed (1..36500, default 14)
 *     max_mb: 50            # a trace's screenshots stop at this many MB (1..100000, default 50)
 * serve's --trace, --trace-dir, --trace-keep-days and --trace-max-mb override these keys. */
#include <string.h>

#include "config_internal.h"

int kn_config_load_trace(loader *l, kn_config *c, const node *m)
{
	static const char *const names[] = { "mode", "dir", "keep_days", "max_mb" };
	const node *v[4];
	long x;
	int rc;
	if ((rc = kn_config_fields(l, m, "trace", names, 4, v)) != 0)
		return rc;
	if (v[0] && !kn_config_is_null(v[0])) {
		const node *n = v[0];
		const char *s = n->type == N_SCALAR ? n->val : "";
		/* YAML 1.1 reads a plain on/off as a boolean elsewhere: take the words as written */
		if (n->type != N_SCALAR || (strcmp(s, "on") != 0 && strcmp(s, "off") != 0 && strcmp(s, "failures") != 0))
			return kn_config_fail(l, KN_EINVAL, n->line, n->col, "trace.mode: expected on, off or failures");
		c->trace.mode = strcmp(s, "on") == 0 ? 1 : strcmp(s, "failures") == 0 ? 2 : 0;
		c->trace.mode_set = 1;
	}
	if (v[1] && !kn_config_is_null(v[1]) && (rc = kn_config_get_str(l, v[1], "trace.dir", &c->trace.dir, 1)) != 0)
		return rc;
	if (v[2] && !kn_config_is_null(v[2])) {
		if ((rc = kn_config_get_long(l, v[2], "trace.keep_days", 1, 36500, &x)) != 0)
			return rc;
		c->trace.keep_days = (int)x;
	}
	if (v[3] && !kn_config_is_null(v[3])) {
		if ((rc = kn_config_get_long(l, v[3], "trace.max_mb", 1, 100000, &x)) != 0)
			return rc;
		c->trace.max_mb = (int)x;
	}
	return 0;
}
