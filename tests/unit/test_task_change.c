/* test_task_change.c — keynode/task_change.h: a key node and a step written alone (a leading "- ", an
 * indented proposal's YAML, several lines), loaded as `keynode validate` loads them, with errors at the
 * snippet's own line and column; malformed snippets (empty, NUL, too long, two items, a list, a bad
 * selector, tabs) are clean errors; and the diff of two definitions (changed, added, removed key nodes,
 * steps by position, other fields). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keynode/task_change.h"

static void keynode_ok(const char *yaml, const char *id, kn_target target, const char *expect, const char *path)
{
	kn_taskset *set = NULL;
	kn_err err = {0};
	int rc = kn_keynode_from_snippet(&set, yaml, strlen(yaml), &err);
	if (rc)
		fail_msg("'%s': %s", yaml, err.msg);
	const kn_keynode *k = &set->tasks[0].keynodes[0];
	assert_string_equal(k->id, id);
	assert_int_equal(k->target, target);
	assert_string_equal(k->expect, expect);
	if (path)
		assert_string_equal(k->path, path);
	kn_taskset_free(set);
}

static void test_keynode_snippets(void **state)
{
	(void)state;
	keynode_ok("url: { include: \"/shop/item\" }", "k1", KN_TARGET_URL, "/shop/item", NULL);
	keynode_ok("- id: size\n  element_value: { path: \"#shoe-size\", exact: \"9\" }\n", "size",
	           KN_TARGET_ELEMENT_VALUE, "9", "#shoe-size");
	/* a proposal's YAML as repair.c writes it, indented as in a file */
	keynode_ok("      - id: \"size\"\n        element_value: { path: \"#x\", exact: \"9\" }\n", "size",
	           KN_TARGET_ELEMENT_VALUE, "9", "#x");
	keynode_ok("id: add\nelement_path:\n  exact: \"#add\"\n", "add", KN_TARGET_ELEMENT_PATH, "#add", NULL);
	keynode_ok("url: { regex: '^http://[^/]+/a$' }\r\n", "k1", KN_TARGET_URL, "^http://[^/]+/a$", NULL);
}

static void keynode_err(const char *yaml, size_t len, int want_rc, const char *want)
{
	kn_taskset *set = (kn_taskset *)1;
	kn_err err = {0};
	int rc = kn_keynode_from_snippet(&set, yaml, len, &err);
	assert_null(set);
	if (rc != want_rc || !strstr(err.msg, want))
		fail_msg("rc %d '%s', want %d '%s'", rc, err.msg, want_rc, want);
}

static void test_keynode_errors(void **state)
{
	(void)state;
	keynode_err("", 0, KN_EINVAL, "key_node:1:1: empty");
	keynode_err("url: { fuzzy: x }", 17, KN_EINVAL, "key_node:1:");
	keynode_err("element_path:\n  exact: \"#a\"\n  fuzzy: 1\n", 38, KN_EINVAL, "key_node:3:3: ");
	keynode_err("- id: a\n  url: { include: x }\n  fuzzy: 1\n", 38, KN_EINVAL, "key_node:3:3: ");
	keynode_err("url: { include: \"x\0y\" }", 23, KN_EINVAL, "key_node:1:19: a NUL byte");
	keynode_err("url: { regex: '(' }", 19, KN_EINVAL, "key_node:1:");
	keynode_err("url: [", 6, KN_EINVAL, "key_node:");
	keynode_err("\turl: { include: x }", 20, KN_EINVAL, "key_node:");
	/* two key nodes: the second is a list item of its own at the same level */
	keynode_err("- url: { include: a }\n- url: { include: b }\n", 44, KN_EINVAL, "key_node");
	static char big[KN_SNIPPET_MAX + 2];
	memset(big, 'a', sizeof big - 1);
	keynode_err(big, sizeof big - 1, KN_ELIMIT, "longer than");
	/* the wrapper's own task never shows in a message */
	kn_taskset *set = NULL;
	kn_err err = {0};
	assert_int_not_equal(kn_keynode_from_snippet(&set, "url: { include: 5, exact: 6 }", 29, &err), 0);
	assert_null(strstr(err.msg, "snippet"));
}

static void test_step_snippets(void **state)
{
	(void)state;
	kn_taskset *set = NULL;
	kn_err err = {0};
	const char *p = "  - select: { selector: \"#shoe-size\", value: \"9\", id: \"shoe-size\", name: \"size\" }\n"
	                "    after: { url: \"http://127.0.0.1:1/shop/item.html?id=3\" }\n";
	int rc = kn_step_from_snippet(&set, "shop \"red\" cart", p, strlen(p), &err);
	if (rc)
		fail_msg("%s", err.msg);
	assert_int_equal(set->tasks[0].steps[0].verb, KN_STEP_SELECT);
	assert_string_equal(set->tasks[0].steps[0].selector, "#shoe-size");
	assert_string_equal(set->tasks[0].steps[0].hint_name, "size");
	assert_string_equal(set->tasks[0].steps[0].expect_url, "http://127.0.0.1:1/shop/item.html?id=3");
	assert_string_equal(set->tasks[0].id, "shop \"red\" cart");
	kn_taskset_free(set);

	const struct {
		const char *yaml, *want;
	} bad[] = {
		{"click: { selector: \"#a[\" }", "step:1:"},
		{"click: { selector: \"#a\" }\n  after: { nope: 1 }", "step:2:"},
		{"fly: away", "step:1:"},
		{"- back\n- forward\n", "step"},
		{"", "step:1:1: empty"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		set = (kn_taskset *)1;
		rc = kn_step_from_snippet(&set, "t", bad[i].yaml, strlen(bad[i].yaml), &err);
		assert_null(set);
		if (rc == 0 || !strstr(err.msg, bad[i].want))
			fail_msg("'%s': rc %d '%s', want '%s'", bad[i].yaml, rc, err.msg, bad[i].want);
	}
	assert_int_equal(kn_step_from_snippet(&set, "", "back", 4, &err), KN_EINVAL);
}

static json_t *parse(const char *s)
{
	json_error_t je;
	json_t *j = json_loads(s, 0, &je);
	if (!j)
		fail_msg("%s: %s", s, je.text);
	return j;
}

static void test_diff(void **state)
{
	(void)state;
	json_t *a = parse("{\"id\":\"t\",\"intent\":\"i\",\"key_nodes\":[{\"id\":\"k1\",\"path\":\"#a\"},{\"id\":\"k2\",\"expect\":\"x\"},"
	                  "{\"id\":\"gone\"}],\"steps\":[{\"verb\":\"goto\"},{\"verb\":\"click\",\"selector\":\"#a\"}]}");
	json_t *b = parse("{\"id\":\"t\",\"intent\":\"j\",\"key_nodes\":[{\"id\":\"k1\",\"path\":\"#b\"},{\"id\":\"k2\",\"expect\":\"x\"},"
	                  "{\"id\":\"new\"}],\"steps\":[{\"verb\":\"goto\"},{\"verb\":\"click\",\"selector\":\"#b\"},{\"verb\":\"back\"}],"
	                  "\"viewport_w\":800}");
	json_t *d = NULL;
	kn_err err = {0};
	assert_int_equal(kn_task_diff(&d, a, b, &err), 0);
	char *s = json_dumps(d, JSON_COMPACT | JSON_SORT_KEYS);
	assert_string_equal(s,
		"{\"fields\":[\"intent\",\"viewport_w\"],"
		"\"key_nodes\":[{\"after\":{\"id\":\"k1\",\"path\":\"#b\"},\"before\":{\"id\":\"k1\",\"path\":\"#a\"},\"id\":\"k1\"},"
		"{\"after\":{\"id\":\"new\"},\"before\":null,\"id\":\"new\"},{\"after\":null,\"before\":{\"id\":\"gone\"},\"id\":\"gone\"}],"
		"\"steps\":[{\"after\":{\"selector\":\"#b\",\"verb\":\"click\"},\"before\":{\"selector\":\"#a\",\"verb\":\"click\"},\"step\":2},"
		"{\"after\":{\"verb\":\"back\"},\"before\":null,\"step\":3}]}");
	free(s);
	json_decref(d);
	/* the first version: everything added, no fields */
	assert_int_equal(kn_task_diff(&d, NULL, a, &err), 0);
	assert_int_equal(json_array_size(json_object_get(d, "key_nodes")), 3);
	assert_int_equal(json_array_size(json_object_get(d, "steps")), 2);
	assert_int_equal(json_array_size(json_object_get(d, "fields")), 0);
	json_decref(d);
	/* the same: nothing */
	assert_int_equal(kn_task_diff(&d, a, a, &err), 0);
	assert_int_equal(json_array_size(json_object_get(d, "key_nodes")) + json_array_size(json_object_get(d, "steps")), 0);
	json_decref(d);
	/* malformed sides: not objects, members of the wrong type */
	json_t *arr = parse("[1]"), *odd = parse("{\"key_nodes\": 5, \"steps\": {\"a\": 1}}");
	assert_int_equal(kn_task_diff(&d, arr, b, &err), KN_EINVAL);
	assert_null(d);
	assert_int_equal(kn_task_diff(&d, a, arr, &err), KN_EINVAL);
	assert_int_equal(kn_task_diff(&d, odd, b, &err), 0);
	assert_int_equal(json_array_size(json_object_get(d, "key_nodes")), 3);
	json_decref(d);
	assert_int_equal(kn_task_diff(&d, b, odd, &err), 0);
	assert_int_equal(json_array_size(json_object_get(d, "steps")), 3);
	json_decref(d);
	json_decref(arr), json_decref(odd), json_decref(a), json_decref(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keynode_snippets),
		cmocka_unit_test(test_keynode_errors),
		cmocka_unit_test(test_step_snippets),
		cmocka_unit_test(test_diff),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
