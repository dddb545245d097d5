/* trace_opts.c — the --trace/--trace-dir options `watch`, `run` and `replay` share (cli.h), and
 * opening the trace they ask for (services/trace). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int kn_cli_trace_option(kn_cli_trace *o, const char *cmd, int c, const char *arg)
{
	if (c == KN_CLI_OPT_TRACE) {
		if (kn_trace_mode_parse(&o->mode, arg) != 0) {
			kn_cli_usage_error(cmd, "--trace must be on, off or failures");
			return -1;
		}
		o->mode_given = 1;
		return 1;
	}
	if (c == KN_CLI_OPT_TRACE_DIR) {
		o->dir = arg;
		if (!o->mode_given)
			o->mode = KN_TRACE_ON; /* a folder alone means "on" */
		return 1;
	}
	return 0;
}

int kn_cli_trace_open(kn_trace **out, const kn_cli_trace *o, const char *cmd, const char *dir,
                      const kn_task *task, const char *run_id, const char *kind)
{
	*out = NULL;
	if (o->mode == KN_TRACE_OFF)
		return KN_EXIT_OK;
	kn_trace_opts to = {.mode = o->mode, .kind = kind, .run_id = run_id, .task = task};
	kn_err err = {0};
	if (kn_trace_new(out, dir, &to, &err) != 0) {
		fprintf(stderr, "keynode %s: %s\n", cmd, err.msg);
		return KN_EXIT_USAGE;
	}
	return KN_EXIT_OK;
}

void kn_cli_trace_default_dir(char *buf, size_t size, const kn_cli_trace *o, const char *beside,
                              const char *run_id)
{
	if (o->dir) {
		snprintf(buf, size, "%s", o->dir);
		return;
	}
	if (!beside) {
		snprintf(buf, size, "trace-%s", run_id);
		return;
	}
	const char *slash = strrchr(beside, '/'), *dot = strrchr(beside, '.');
	int stem = dot && (!slash || dot > slash + 1) ? (int)(dot - beside) : (int)strlen(beside);
	snprintf(buf, size, "%.*s.trace", stem, beside);
}

int kn_cli_trace_finish(kn_trace *t, const kn_eval *ev, const char *cmd, const char *reason,
                        int failed, int quiet)
{
	if (!t)
		return 0;
	kn_err err = {0};
	int kept = 0;
	if (kn_trace_finish(t, ev, reason, NULL, failed, &kept, &err) != 0) {
		fprintf(stderr, "keynode %s: %s\n", cmd, err.msg);
		return -1;
	}
	if (!quiet && kept)
		fprintf(stderr, "keynode %s: trace in %s (keynode trace show %s)\n", cmd, kn_trace_dir(t),
		        kn_trace_dir(t));
	return 0;
}

void kn_cli_trace_config(kn_cli_trace *o, int *keep_days, int *max_mb, const kn_config *cfg)
{
	if (cfg && !o->mode_given && !o->dir && cfg->trace.mode_set)
		o->mode = (kn_trace_mode)cfg->trace.mode;
	if (cfg && !o->dir && cfg->trace.dir)
		o->dir = cfg->trace.dir;
	if (!*keep_days)
		*keep_days = cfg && cfg->trace.keep_days ? cfg->trace.keep_days : 14;
	if (!*max_mb)
		*max_mb = cfg && cfg->trace.max_mb ? cfg->trace.max_mb : 50;
}

char *kn_cli_state_dir(const char *what)
{
	const char *e;
	char buf[4096];
	if (strcmp(what, "spool") == 0 && (e = getenv("KEYNODE_SPOOL_DIR")) && *e)
		return strdup(e);
	if ((e = getenv("STATE_DIRECTORY")) && *e)
		snprintf(buf, sizeof buf, "%s/%s", e, what);
	else if ((e = getenv("XDG_STATE_HOME")) && *e)
		snprintf(buf, sizeof buf, "%s/keynode/%s", e, what);
	else if ((e = getenv("HOME")) && *e)
		snprintf(buf, sizeof buf, "%s/.local/state/keynode/%s", e, what);
	else
		snprintf(buf, sizeof buf, "/var/lib/keynode/%s", what);
	return strdup(buf);
}
