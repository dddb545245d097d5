/* provenance.h — where and with what a run ran (provenance.c): the `environment` object of every
 * attempt's result.json and of summary.json, and the check that keeps `keynode run --resume` from
 * mixing attempts made in different environments. */
#ifndef KEYNODE_RUN_PROVENANCE_H
#define KEYNODE_RUN_PROVENANCE_H

#include <stddef.h>

#include <jansson.h>

#include "keynode/eval.h"

typedef struct kn_run_env_opts {
	const char *chromium;     /* the binary keynode launches; NULL with browser */
	const char *browser;      /* --browser endpoint (http://HOST:PORT or ws://…); NULL: launched */
	int viewport_w, viewport_h; /* --viewport; 0: the browser's default */
	const char *region;       /* --region / KEYNODE_REGION; NULL: none */
	const char *tasks_sha256; /* the task file's SHA-256 */
	const kn_eval_opts *eval; /* mode, semantic judge */
	int probe;                /* run `chromium --version` now (--resume needs the version before
	                           * any attempt; otherwise each attempt's browser tells it) */
} kn_run_env_opts;

/* The environment of a run, known before it starts: keynode_version, keynode_commit,
 * chromium_version, chromium, headless, device_scale_factor, viewport, locale, time_zone, os,
 * region, tasks_sha256, judge (the judge fingerprint, keynode/judge_fingerprint.h: backend, model,
 * prompt_sha256, threshold, mode, keynode_version; plus semantic, the backend's older name, and with
 * an LLM judge prompt_version). A fact that cannot be known is null. The caller's; NULL when out
 * of memory. */
json_t *kn_run_environment(const kn_run_env_opts *o);

/* Add what the attempt's own browser says (GET http_base/json/version): browser_product and
 * user_agent; headless true when it says HeadlessChrome (new headless mode says Chrome, as a
 * headful browser does: then headless stays as it was). Nothing when it does not answer in 2 s. */
void kn_run_environment_browser(json_t *env, const char *http_base);

/* The keys (of those kn_run_environment sets, keynode_commit aside) whose values differ between
 * an earlier environment and now, as "key: EARLIER then, NOW now; …" into out (cap bytes). 0
 * when they agree (or earlier is not an object), else the number of keys that differ. */
int kn_run_environment_diff(char *out, size_t cap, const json_t *earlier, const json_t *now);

#endif
