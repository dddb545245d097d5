/* workflows_opt.c — what the commands taking `--workflows DIR` and `--out DIR` share: attaching
 * a folder of workflow files to a loaded task set (keynode/workflow.h; by default `workflows/`
 * beside the task file when that folder exists), and the --viewport WxH parser. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "log.h"
#include "keynode/workflow.h"

struct report {
	const char *cmd;
};

static void on_error(void *ud, const char *path, const kn_err *err)
{
	(void)path;
	fprintf(stderr, "keynode %s: %s\n", ((struct report *)ud)->cmd, err->msg);
}

int kn_cli_attach_workflows(kn_taskset *set, const char *tasks_path, const char *dir,
                            const char *cmd)
{
	char def[4096];
	if (!dir) {
		if (!tasks_path || !kn_workflows_default_dir(def, sizeof def, tasks_path))
			return KN_EXIT_OK;
		dir = def;
	}
	struct report r = {cmd};
	kn_err err = {0};
	size_t n = 0;
	int rc = kn_workflows_attach(set, dir, on_error, &r, &n, &err);
	if (rc == KN_ENOTFOUND || rc == KN_EIO) {
		fprintf(stderr, "keynode %s: workflows: %s\n", cmd, err.msg);
		return KN_EXIT_USAGE;
	}
	if (rc)
		return KN_EXIT_USAGE; /* each error already said */
	char q[512];
	kn_log_msg("info", cmd, "workflows attached", "dir=\"%s\" n=%zu", kn_log_quote(q, sizeof q, dir), n);
	return KN_EXIT_OK;
}

int kn_cli_parse_viewport(int *w, int *h, const char *text)
{
	int a = 0, b = 0, n = 0;
	if (sscanf(text, "%d%*[xX]%d%n", &a, &b, &n) != 2 || text[n] || a < 100 || a > 10000 ||
	    b < 100 || b > 10000)
		return -1;
	*w = a;
	*h = b;
	return 0;
}
