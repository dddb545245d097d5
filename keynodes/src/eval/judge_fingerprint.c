/* judge_fingerprint.c — the judge fingerprint (keynode/judge_fingerprint.h): the one place that
 * says which judge, prompt, threshold, mode and keynode version a score was made with, and the
 * comparison of two of them that keynode compare and leaderboard warn with. */
#include "keynode/judge_fingerprint.h"

#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "keynode/match.h"

#ifndef KN_VERSION
#define KN_VERSION "unknown"
#endif

/* The fields in the order they are compared and named. */
static const char *const fields[] = {"backend", "model", "prompt_sha256", "threshold", "mode",
                                     "keynode_version"};

json_t *kn_judge_fingerprint(const kn_eval_opts *opts)
{
	const kn_semantic *sem = opts && opts->semantic ? opts->semantic : kn_semantic_offline();
	const char *name = sem->name ? sem->name : "";
	int llm = strncmp(name, "llm:", 4) == 0, offline = sem == kn_semantic_offline();
	const char *backend = llm ? "llm" : offline ? "offline" : "custom";
	/* the offline judge has no model: its version is in prompt_sha256 (KN_SEMANTIC_OFFLINE_ID) */
	const char *model = llm ? name + 4 : offline ? NULL : name;
	double threshold = opts && opts->threshold > 0 ? opts->threshold : KN_SEMANTIC_THRESHOLD;
	return json_pack("{s:s, s:s?, s:s?, s:f, s:s, s:s}", "backend", backend, "model", model,
	                 "prompt_sha256", sem->prompt_sha256, "threshold", threshold, "mode",
	                 opts && opts->mode == KN_MODE_WEBCANVAS ? "webcanvas" : "default",
	                 "keynode_version", KN_VERSION);
}

const json_t *kn_judge_fingerprint_of(const json_t *result)
{
	const json_t *j = json_object_get(result, "judge");
	if (json_is_object(j))
		return j;
	j = json_object_get(json_object_get(result, "environment"), "judge");
	return json_is_object(j) ? j : NULL;
}

/* Field f of fingerprint j; an environment's older "semantic" is its backend. */
static const json_t *field(const json_t *j, const char *f)
{
	const json_t *v = json_object_get(j, f);
	if (!v && strcmp(f, "backend") == 0)
		v = json_object_get(j, "semantic");
	return v;
}

int kn_judge_fingerprint_diff(char *out, size_t cap, const json_t *a, const json_t *b)
{
	size_t used = 0;
	if (cap)
		out[0] = '\0';
	if (!json_is_object(a) || !json_is_object(b)) {
		if (cap)
			snprintf(out, cap, "unknown");
		return -1;
	}
	int n = 0;
	for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
		const json_t *x = field(a, fields[i]), *y = field(b, fields[i]);
		if ((!x && !y) || (x && y && json_equal(x, y)))
			continue;
		/* a null and a missing member say the same: not known */
		if ((!x || json_is_null(x)) && (!y || json_is_null(y)))
			continue;
		int w = snprintf(out + used, used < cap ? cap - used : 0, "%s%s", n ? ", " : "", fields[i]);
		if (w > 0)
			used += (size_t)w;
		if (used >= cap)
			used = cap ? cap - 1 : 0;
		n++;
	}
	return n;
}
