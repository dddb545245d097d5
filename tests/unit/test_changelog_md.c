/* test_changelog_md.c — the Markdown maintenance log of GET /api/tasksets/{name}/changelog?format=md
 * (services/runs/api_maint.c kn_api_changelog_markdown): days as sections, one line per change with
 * its author and reason, evidence (verified or an override), validation, each changed field as
 * before → after; text from the store cannot break a line or an inline code span; a log that is not
 * the changelog's shape is KN_EINVAL. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "api_maint.h"

static void test_markdown(void **state)
{
	(void)state;
	json_t *log = json_loads(
		"{\"taskset\": \"maint\", \"changes\": ["
		"{\"task\": \"t1\", \"kind\": \"repair\", \"version\": 3, \"workflow_version\": null, \"author\": \"alice\","
		" \"reason\": \"renamed\\nid\", \"evidence_replay\": 7, \"override\": true, \"created\": \"2026-11-29T04:31:07.123Z\","
		" \"validation\": {\"job\": 9, \"status\": \"passed\"},"
		" \"diff\": {\"key_nodes\": [{\"id\": \"size\", \"before\": {\"id\": \"size\", \"path\": \"#size\"},"
		"   \"after\": {\"id\": \"size\", \"path\": \"#a`b\"}}], \"steps\": [{\"step\": 2, \"before\": null,"
		"   \"after\": {\"verb\": \"back\"}}], \"fields\": [\"intent\"]}},"
		"{\"task\": \"t1\", \"kind\": \"upload\", \"version\": 1, \"author\": null, \"created\": \"2026-11-28T23:00:00.000Z\","
		" \"diff\": {\"key_nodes\": [], \"steps\": []}},"
		"{\"task\": \"t2\", \"kind\": \"upload\"}]}", 0, NULL);
	assert_non_null(log);
	char *md = NULL;
	assert_int_equal(kn_api_changelog_markdown(&md, log), 0);
	assert_string_equal(md,
		"# Maintenance log: task set maint\n\n"
		"## 2026-11-29\n\n"
		"- **04:31:07 UTC** `t1` version 3: repair by alice: renamed id\n"
		"  - evidence: replay 7, **applied by override: not verified**\n"
		"  - validation replay: job 9, passed\n"
		"  - key node `size`: path `#size` → `#a'b`\n"
		"  - step 2: added `{\"verb\":\"back\"}`\n"
		"  - also changed: `intent`\n"
		"\n## 2026-11-28\n\n"
		"- **23:00:00 UTC** `t1` version 1: upload by unknown\n");
	free(md);
	json_decref(log);

	log = json_loads("{\"taskset\": \"empty\", \"changes\": []}", 0, NULL);
	assert_int_equal(kn_api_changelog_markdown(&md, log), 0);
	assert_string_equal(md, "# Maintenance log: task set empty\n\nNo changes recorded.\n");
	free(md);
	json_decref(log);

	const char *bad[] = {"{}", "{\"taskset\": \"x\"}", "{\"taskset\": 1, \"changes\": []}", "[]"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		log = json_loads(bad[i], 0, NULL);
		md = (char *)1;
		assert_int_equal(kn_api_changelog_markdown(&md, log), KN_EINVAL);
		assert_null(md);
		json_decref(log);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_markdown)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
