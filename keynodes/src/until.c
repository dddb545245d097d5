/* until.c — the one parser of a run's end condition (until.h). */
#include "keynode/until.h"

#include <stdlib.h>
#include <string.h>

#include "keynode/error.h"

int kn_until_parse(kn_until *out, const char *text)
{
	if (!text || !*text)
		return 0;
	char *end;
	if (strcmp(text, "finished") == 0) {
		out->finished = 1;
	} else if (strncmp(text, "idle:", 5) == 0) {
		double s = strtod(text + 5, &end);
		if (end == text + 5 || *end || !(s > 0 && s <= KN_UNTIL_IDLE_MAX_S))
			return KN_EINVAL;
		out->idle_s = s;
	} else if (strncmp(text, "steps:", 6) == 0) {
		long n = strtol(text + 6, &end, 10);
		if (end == text + 6 || *end || n < 1 || n > KN_UNTIL_STEPS_MAX)
			return KN_EINVAL;
		out->steps = (int)n;
	} else {
		return KN_EINVAL;
	}
	return 0;
}
