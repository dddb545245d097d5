/* end_reason.c — why a watched run ended (monitor.h kn_end): the closed set and its one name
 * table. The names are what users read in run results' "reason", the "end" stream message, logs
 * and progress lines; code compares the enum, never the text. */
#include <string.h>

#include "monitor.h"

static const char *const names[] = {
	[KN_END_STOPPED] = "stopped",         [KN_END_FINISHED] = "finished",
	[KN_END_STEPS] = "steps",             [KN_END_STEP_LIMIT] = "step limit",
	[KN_END_IDLE] = "idle",               [KN_END_BROWSER_GONE] = "browser disconnected",
	[KN_END_UNREACHABLE] = "unreachable", [KN_END_GUARD] = "guard",
	[KN_END_GUARD_INACTIVE] = "guard not active",
};

const char *kn_end_name(kn_end e)
{
	return (unsigned)e < sizeof names / sizeof names[0] ? names[e] : "stopped";
}

int kn_end_parse(kn_end *out, const char *name)
{
	for (size_t i = 0; name && i < sizeof names / sizeof names[0]; i++)
		if (strcmp(names[i], name) == 0) {
			*out = (kn_end)i;
			return 0;
		}
	return KN_EINVAL;
}

int kn_monitor_end_cause(const kn_monitor *m, kn_end *out)
{
	/* the monitor keeps the reason as its name from the table above */
	return kn_end_parse(out, kn_monitor_end_reason(m)) == 0;
}
