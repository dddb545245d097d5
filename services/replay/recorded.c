/* recorded.c — what a workflow recorded about a step's element (keynode/workflow.h: the selector,
 * its locator hints and the record-time fingerprint) as the "recorded" object of a replay report's
 * step, so that a drift diff can set it beside what the replay found there now. */
#include "replay.h"

json_t *kn_replay_step_recorded(const kn_step *st)
{
	if (!st || (!st->tag && !st->dom_path && !st->hint_test_id && !st->classes && !st->text &&
	            !st->hint_id && !st->hint_name && !st->hint_aria_label && !st->hint_href && !st->expect_url))
		return NULL; /* nothing but the selector, which the step already names */
	json_t *o = json_object();
	const char *keys[] = {"text", "test_id", "id", "name", "aria_label", "role", "href", "tag", "classes",
	                      "dom_path", "frame", "url"};
	const char *vals[] = {st->text, st->hint_test_id, st->hint_id, st->hint_name, st->hint_aria_label,
	                      st->hint_role, st->hint_href, st->tag, st->classes, st->dom_path, st->frame,
	                      st->expect_url};
	for (size_t i = 0; o && i < sizeof keys / sizeof *keys; i++)
		if (vals[i])
			json_object_set_new(o, keys[i], json_string(vals[i]));
	if (o && st->navigated)
		json_object_set_new(o, "navigated", json_boolean(st->navigated == 1));
	return o;
}
