/* folder.c — the folder name of a task's attempts (runner.h kn_runner_folder_name), shared by
 * `keynode run` (DIR/<task>/<k>) and the worker's agent jobs (DIR/<batch>/<task>/<k>), so a task
 * id from a file or the database can never name a path outside the run's folder. */
#include <stdio.h>

#include "runner.h"

void kn_runner_folder_name(char *out, size_t cap, const char *id)
{
	size_t i = 0;
	for (; id[i] && i + 1 < cap; i++) {
		char c = id[i];
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		         c == '-' || c == '_' || (c == '.' && i > 0);
		out[i] = ok ? c : '_';
	}
	out[i] = '\0';
	if (!i)
		snprintf(out, cap, "_");
}
