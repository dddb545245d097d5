/* target_opts.c — the --browser/--tasks/--task/--out options `watch`, `record` and `replay` share
 * (cli.h): the browser to attach to, the task file, the task and where to write. */
#include "cli.h"

int kn_cli_target_option(kn_cli_target *o, int c, const char *arg)
{
	switch (c) {
	case 'b': o->browser = arg; return 1;
	case 't': o->tasks = arg; return 1;
	case 'i': o->task_id = arg; return 1;
	case 'o': o->out = arg; return 1;
	default: return 0;
	}
}
