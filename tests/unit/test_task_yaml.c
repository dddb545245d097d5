/* test_task_yaml.c — the native YAML task loader, documents that load: the docs/formats.md §1 example
 * loads with every field, defaults and scalar rules hold, anchors work within limits. The errors are
 * in test_task_yaml_errors.c. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "task_yaml_test.h"

/* ---- documents that load ---- */

static void check_interfaces_example(const kn_taskset *set)
{
	assert_int_equal(set->n_tasks, 1);
	const kn_task *t = &set->tasks[0];
	assert_ptr_equal(kn_taskset_find(set, "shop-red-shoes"), t);
	assert_string_equal(t->id, "shop-red-shoes");
	assert_string_equal(t->intent, "Find red running shoes and add size 9 to the cart");
	assert_string_equal(t->start_url, "http://127.0.0.1:8100/shop/");
	assert_int_equal(t->reference_length, 5);
	assert_string_equal(t->answer, "42");
	assert_int_equal(t->line, 2);

	assert_int_equal(t->n_keynodes, 6);
	const kn_keynode *k = t->keynodes;
	assert_string_equal(k[0].id, "search");
	assert_int_equal(k[0].target, KN_TARGET_URL);
	assert_int_equal(k[0].matcher, KN_MATCH_INCLUDE);
	assert_string_equal(k[0].expect, "/shop/search");
	assert_string_equal(k[0].function, "url_included_match");
	assert_null(k[0].key);
	assert_null(k[0].netloc);
	assert_null(k[0].path);
	assert_null(k[0].regex);
	assert_int_equal(k[0].line, 8);
	assert_int_equal(k[0].column, 9);

	assert_string_equal(k[1].id, "k2");
	assert_int_equal(k[1].target, KN_TARGET_URL);
	assert_int_equal(k[1].matcher, KN_MATCH_SEMANTIC);
	assert_string_equal(k[1].key, "q");
	assert_string_equal(k[1].expect, "searching for red running shoes");
	assert_string_equal(k[1].function, "url_semantic_match");
	assert_non_null(k[1].semantic_phrase);
	assert_int_equal(k[1].line, 10);

	assert_string_equal(k[2].id, "k3");
	assert_int_equal(k[2].matcher, KN_MATCH_REGEX);
	assert_string_equal(k[2].expect, "^http://[^/]+/shop/item/[0-9]+$");
	assert_string_equal(k[2].function, "url_regex_match");
	assert_non_null(k[2].regex);

	assert_string_equal(k[3].id, "k4");
	assert_int_equal(k[3].target, KN_TARGET_ELEMENT_PATH);
	assert_int_equal(k[3].matcher, KN_MATCH_EXACT);
	assert_string_equal(k[3].expect, "#add-to-cart");
	assert_string_equal(k[3].function, "element_path_exactly_match");
	assert_string_equal(k[3].norm_selector, "#add-to-cart");

	assert_string_equal(k[4].id, "k5");
	assert_int_equal(k[4].target, KN_TARGET_ELEMENT_VALUE);
	assert_int_equal(k[4].matcher, KN_MATCH_EXACT);
	assert_string_equal(k[4].path, "#size");
	assert_string_equal(k[4].expect, "9");
	assert_string_equal(k[4].function, "element_value_exactly_match");
	assert_string_equal(k[4].norm_selector, "#size");

	assert_string_equal(k[5].id, "k6");
	assert_int_equal(k[5].target, KN_TARGET_ANSWER);
	assert_int_equal(k[5].matcher, KN_MATCH_INCLUDE);
	assert_string_equal(k[5].expect, "42");
	assert_string_equal(k[5].function, "final_answer_included_match");
	assert_int_equal(k[5].line, 14);
	assert_int_equal(k[5].column, 9);

	assert_int_equal(t->n_steps, 5);
	const kn_step *s = t->steps;
	assert_int_equal(s[0].verb, KN_STEP_GOTO);
	assert_string_equal(s[0].value, "http://127.0.0.1:8100/shop/");
	assert_null(s[0].selector);
	assert_int_equal(s[0].line, 16);
	assert_int_equal(s[1].verb, KN_STEP_TYPE);
	assert_string_equal(s[1].selector, "#q");
	assert_string_equal(s[1].value, "red running shoes");
	assert_int_equal(s[1].enter, 1);
	assert_int_equal(s[2].verb, KN_STEP_CLICK);
	assert_string_equal(s[2].selector, ".result:nth-child(1) a");
	assert_string_equal(s[2].text, "Red Runner");
	assert_null(s[2].value);
	assert_int_equal(s[3].verb, KN_STEP_SELECT);
	assert_string_equal(s[3].selector, "#size");
	assert_string_equal(s[3].value, "9");
	assert_int_equal(s[4].verb, KN_STEP_CLICK);
	assert_string_equal(s[4].selector, "#add-to-cart");
	assert_null(s[4].text);
	assert_int_equal(s[4].line, 20);
	assert_int_equal(kn_taskset_count_keynodes(set), 6);
}

static void test_interfaces_example(void **state)
{
	(void)state;
	size_t len;
	char *buf = read_file(KN_TESTS_DIR "/data/yaml/interfaces_example.yaml", &len);
	assert_non_null(buf);
	kn_taskset *set = NULL;
	kn_err err = { 0 };
	assert_int_equal(kn_task_load_yaml(&set, buf, len, "example.yaml", NULL, &err), 0);
	assert_string_equal(set->source, "example.yaml");
	check_interfaces_example(set);
	kn_taskset_free(set);
	free(buf);
}

/* The example as printed in docs/formats.md itself, so the documentation cannot drift. */
static void test_interfaces_doc_itself(void **state)
{
	(void)state;
	size_t len;
	char *doc = read_file(KN_TESTS_DIR "/../docs/formats.md", &len);
	assert_non_null(doc); /* part of the repository: never skipped */
	doc[len] = '\0';
	char *sec = strstr(doc, "## 1.");
	char *start = sec ? strstr(sec, "```yaml\n") : NULL;
	char *end = start ? strstr(start + 8, "```") : NULL;
	assert_non_null(end);
	kn_taskset *set = NULL;
	kn_err err = { 0 };
	size_t n = (size_t)(end - start - 8);
	int rc = kn_task_load_yaml(&set, start + 8, n, "formats.md", NULL, &err);
	if (rc)
		print_error("%s\n", err.msg);
	assert_int_equal(rc, 0);
	check_interfaces_example(set);
	kn_taskset_free(set);
	free(doc);
}

static void test_single_task_top_level(void **state)
{
	(void)state;
	kn_taskset *set = load_ok("# one task, no list\n"
	                          "id: solo\n"
	                          "intent: Open the returns page\n"
	                          "key_nodes:\n"
	                          "  - url: { include: /returns }\n");
	assert_int_equal(set->n_tasks, 1);
	assert_string_equal(set->tasks[0].id, "solo");
	assert_int_equal(set->tasks[0].line, 2);
	assert_null(set->tasks[0].start_url);
	assert_null(set->tasks[0].answer);
	assert_int_equal(set->tasks[0].n_steps, 0);
	assert_null(set->tasks[0].steps);
	kn_taskset_free(set);

	/* the same as a flow mapping, and with an explicit document marker */
	set = load_ok("--- {id: solo, intent: x, key_nodes: [{answer: {exact: yes}}]}\n...\n");
	assert_string_equal(set->tasks[0].keynodes[0].expect, "yes");
	assert_int_equal(set->tasks[0].keynodes[0].target, KN_TARGET_ANSWER);
	kn_taskset_free(set);
}

static void test_defaults(void **state)
{
	(void)state;
	kn_taskset *set = load_ok("tasks:\n"
	                          "  - id: a\n"
	                          "    intent: x\n"
	                          "    key_nodes:\n"
	                          "      - url: { include: a }\n"
	                          "      - id: named\n"
	                          "        url: { include: b }\n"
	                          "      - url: { include: c }\n"
	                          "    steps: [back, forward, {goto: 'http://h/'}]\n"
	                          "  - id: b\n"
	                          "    intent: y\n"
	                          "    reference_length: 0\n"
	                          "    key_nodes: [{url: {include: a}}]\n"
	                          "    steps: [back]\n"
	                          "  - id: c\n"
	                          "    intent: z\n"
	                          "    key_nodes: [{url: {include: a}}]\n");
	assert_int_equal(set->n_tasks, 3);
	const kn_task *t = &set->tasks[0];
	assert_string_equal(t->keynodes[0].id, "k1");
	assert_string_equal(t->keynodes[1].id, "named");
	assert_string_equal(t->keynodes[2].id, "k3"); /* by position, not by count of defaults */
	assert_int_equal(t->reference_length, 3);      /* number of steps */
	assert_int_equal(set->tasks[1].reference_length, 0); /* explicit 0 stays */
	assert_int_equal(set->tasks[2].reference_length, 0); /* no steps */
	assert_int_equal(set->tasks[2].n_steps, 0);
	assert_int_equal(kn_taskset_count_keynodes(set), 5);
	assert_null(kn_taskset_find(set, "d"));
	kn_taskset_free(set);
}

static void test_scalars(void **state)
{
	(void)state;
	kn_taskset *set = load_ok("tasks:\n"
	                          "  - id: 7\n"
	                          "    intent: 3.5\n"
	                          "    answer: 42\n"
	                          "    reference_length: 0x10\n"
	                          "    key_nodes:\n"
	                          "      - id: 0o17\n"
	                          "        element_value: { exact: 9, path: '#size' }\n"
	                          "      - answer: { exact: !!str true }\n"
	                          "      - answer: { include: \"null\" }\n"
	                          "      - answer: { exact: '' }\n"
	                          "      - answer: { exact: ! 12 }\n"
	                          "    steps:\n"
	                          "      - type: { selector: '#q', value: 1e3, enter: True }\n"
	                          "      - type: { selector: '#q', value: '', enter: !!bool false }\n"
	                          "  - id: !!str 8\n"
	                          "    intent: \"caf\\u00e9 \\\"quoted\\\"\"\n"
	                          "    reference_length: !!int 4\n"
	                          "    key_nodes: [{answer: {exact: -0.5}}]\n");
	const kn_task *t = &set->tasks[0];
	assert_string_equal(t->id, "7");
	assert_string_equal(t->intent, "3.5");
	assert_string_equal(t->answer, "42");
	assert_int_equal(t->reference_length, 16);
	assert_string_equal(t->keynodes[0].id, "0o17");
	assert_string_equal(t->keynodes[0].expect, "9");
	assert_string_equal(t->keynodes[1].expect, "true");
	assert_string_equal(t->keynodes[2].expect, "null");
	assert_string_equal(t->keynodes[3].expect, "");
	assert_string_equal(t->keynodes[4].expect, "12");
	assert_string_equal(t->steps[0].value, "1e3");
	assert_int_equal(t->steps[0].enter, 1);
	assert_string_equal(t->steps[1].value, "");
	assert_int_equal(t->steps[1].enter, 0);
	assert_string_equal(set->tasks[1].id, "8");
	assert_string_equal(set->tasks[1].intent, "caf\xc3\xa9 \"quoted\"");
	assert_int_equal(set->tasks[1].reference_length, 4);
	assert_string_equal(set->tasks[1].keynodes[0].expect, "-0.5");
	assert_non_null(kn_taskset_find(set, "8"));
	kn_taskset_free(set);

	/* block scalars and a UTF-8 byte order mark */
	set = load_ok("\xEF\xBB\xBFid: a\n"
	              "intent: |\n"
	              "  line one\n"
	              "  line two\n"
	              "key_nodes:\n"
	              "  - answer:\n"
	              "      semantic: >\n"
	              "        the order\n"
	              "        was shipped\n");
	assert_string_equal(set->tasks[0].intent, "line one\nline two\n");
	assert_string_equal(set->tasks[0].keynodes[0].expect, "the order was shipped\n");
	kn_taskset_free(set);
}

static void test_targets_and_options(void **state)
{
	(void)state;
	kn_taskset *set = load_ok(TASK_HEAD
	                          "    key_nodes:\n"
	                          "      - url: { exact: 'http://h/p', netloc: h }\n"
	                          "      - url: { key: '', include: /cart }\n"
	                          "      - url: { key: q, regex: '^red' }\n"
	                          "      - element_path: { include: '#orders', netloc: '' }\n"
	                          "      - element_path: { regex: '^#a' }\n"
	                          "      - element_value: { path: 'form  >  #email', include: '@x' }\n"
	                          "      - element_value: { semantic: shoes, netloc: shop }\n"
	                          "      - answer: { semantic: Decide whether the answer is 5 }\n"
	                          "      - answer: { regex: '[0-9]+' }\n"
	                          "      - cache_data: { include: shipped }\n"
	                          "      - cache_data: { exact: a }\n"
	                          "      - cache_data: { semantic: b }\n"
	                          "      - cache_data: { regex: c }\n");
	const kn_keynode *k = set->tasks[0].keynodes;
	assert_int_equal(set->tasks[0].n_keynodes, 13);
	assert_string_equal(k[0].function, "url_exactly_match");
	assert_string_equal(k[0].netloc, "h");
	assert_null(k[1].key); /* "" is the URL itself */
	assert_string_equal(k[2].key, "q");
	assert_non_null(k[2].regex);
	assert_string_equal(k[3].function, "element_path_included_match");
	assert_string_equal(k[3].netloc, ""); /* an explicit empty site token is kept */
	assert_string_equal(k[4].function, "element_path_regex_match");
	assert_string_equal(k[5].path, "form  >  #email");
	assert_string_equal(k[5].norm_selector, "form>#email");
	assert_string_equal(k[6].function, "element_value_semantic_match");
	assert_string_equal(k[7].function, "final_answer_semantic_match");
	assert_string_equal(k[8].function, "final_answer_regex_match");
	assert_int_equal(k[9].target, KN_TARGET_CACHE_DATA);
	assert_string_equal(k[9].function, "cache_data_included_match");
	assert_string_equal(k[10].function, "cache_data_exact_match");
	assert_string_equal(k[11].function, "cache_data_semantic_match");
	assert_string_equal(k[12].function, "cache_data_regex_match");
	for (size_t i = 0; i < 13; i++) {
		assert_int_equal(k[i].line, (int)i + 5);
		assert_int_equal(k[i].column, 9);
		assert_int_equal(k[i].xpath, 0);
	}
	kn_taskset_free(set);
}

static void test_steps(void **state)
{
	(void)state;
	kn_taskset *set = load_ok(TASK_HEAD ONE_NODE
	                          "    steps:\n"
	                          "      - goto: https://example.com/a?b=c\n"
	                          "      - click: { selector: 'a.buy', text: Buy, id: buy, name: b,\n"
	                          "                 aria_label: Buy now, role: button, href: /buy }\n"
	                          "      - type: { selector: '#q', value: shoes, role: searchbox }\n"
	                          "      - select: { selector: '#size', value: '9', name: size }\n"
	                          "      - press: Enter\n"
	                          "      - scroll: up\n"
	                          "      - scroll: down\n"
	                          "      - wait: 250\n"
	                          "      - wait: { selector: '#done', aria_label: Done }\n"
	                          "      - back\n"
	                          "      - forward\n"
	                          "      - back:\n"
	                          "      - forward: ~\n"
	                          "      - answer: 30 days\n"
	                          "      - answer: ''\n"
	                          "      - wait: 0\n");
	const kn_task *t = &set->tasks[0];
	assert_int_equal(t->n_steps, 16);
	assert_int_equal(t->reference_length, 16);
	const kn_step *s = t->steps;
	assert_int_equal(s[0].verb, KN_STEP_GOTO);
	assert_string_equal(s[0].value, "https://example.com/a?b=c");
	assert_int_equal(s[0].line, 7);
	assert_int_equal(s[1].verb, KN_STEP_CLICK);
	assert_string_equal(s[1].selector, "a.buy");
	assert_string_equal(s[1].text, "Buy");
	assert_string_equal(s[1].hint_id, "buy");
	assert_string_equal(s[1].hint_name, "b");
	assert_string_equal(s[1].hint_aria_label, "Buy now");
	assert_string_equal(s[1].hint_role, "button");
	assert_string_equal(s[1].hint_href, "/buy");
	assert_int_equal(s[2].verb, KN_STEP_TYPE);
	assert_string_equal(s[2].value, "shoes");
	assert_int_equal(s[2].enter, 0);
	assert_string_equal(s[2].hint_role, "searchbox");
	assert_null(s[2].hint_id);
	assert_int_equal(s[3].verb, KN_STEP_SELECT);
	assert_string_equal(s[3].hint_name, "size");
	assert_int_equal(s[4].verb, KN_STEP_PRESS);
	assert_string_equal(s[4].value, "Enter");
	assert_int_equal(s[5].verb, KN_STEP_SCROLL);
	assert_string_equal(s[5].value, "up");
	assert_string_equal(s[6].value, "down");
	assert_int_equal(s[7].verb, KN_STEP_WAIT);
	assert_int_equal(s[7].wait_ms, 250);
	assert_null(s[7].selector);
	assert_int_equal(s[8].verb, KN_STEP_WAIT);
	assert_string_equal(s[8].selector, "#done");
	assert_string_equal(s[8].hint_aria_label, "Done");
	assert_int_equal(s[8].wait_ms, 0);
	assert_int_equal(s[9].verb, KN_STEP_BACK);
	assert_int_equal(s[10].verb, KN_STEP_FORWARD);
	assert_int_equal(s[11].verb, KN_STEP_BACK);
	assert_int_equal(s[12].verb, KN_STEP_FORWARD);
	assert_null(s[12].value);
	assert_int_equal(s[13].verb, KN_STEP_ANSWER);
	assert_string_equal(s[13].value, "30 days");
	assert_string_equal(s[14].value, "");
	assert_int_equal(s[15].verb, KN_STEP_WAIT);
	assert_int_equal(s[15].line, 23);
	kn_taskset_free(set);
}

static void test_anchors_and_aliases(void **state)
{
	(void)state;
	kn_taskset *set = load_ok("tasks:\n"
	                          "  - id: a\n"
	                          "    intent: &intent Find the shoes\n"
	                          "    key_nodes: &nodes\n"
	                          "      - id: search\n"
	                          "        url: &inc { include: /search }\n"
	                          "      - element_path: { regex: &re '^#item-[0-9]+$' }\n"
	                          "    steps: &steps\n"
	                          "      - goto: http://h/\n"
	                          "      - click: &buy { selector: '#buy', role: button }\n"
	                          "  - id: b\n"
	                          "    intent: *intent\n"
	                          "    key_nodes: *nodes\n"
	                          "    steps: *steps\n"
	                          "  - id: c\n"
	                          "    intent: x\n"
	                          "    key_nodes:\n"
	                          "      - url: *inc\n"
	                          "      - answer: { regex: *re }\n"
	                          "    steps: [ {click: *buy}, back ]\n"
	                          "  - &d\n"
	                          "    id: d\n"
	                          "    intent: &intent redefined\n"
	                          "    key_nodes: [ {answer: {exact: *intent}} ]\n");
	assert_int_equal(set->n_tasks, 4);
	for (size_t i = 0; i < 2; i++) {
		const kn_task *t = &set->tasks[i];
		assert_string_equal(t->intent, "Find the shoes");
		assert_int_equal(t->n_keynodes, 2);
		assert_string_equal(t->keynodes[0].id, "search");
		assert_string_equal(t->keynodes[0].expect, "/search");
		assert_string_equal(t->keynodes[1].expect, "^#item-[0-9]+$");
		assert_non_null(t->keynodes[1].regex);
		/* positions are where the content is written */
		assert_int_equal(t->keynodes[0].line, 5);
		assert_int_equal(t->n_steps, 2);
		assert_int_equal(t->reference_length, 2);
		assert_string_equal(t->steps[1].selector, "#buy");
		assert_string_equal(t->steps[1].hint_role, "button");
	}
	/* each task owns its copy */
	assert_ptr_not_equal(set->tasks[0].keynodes[0].id, set->tasks[1].keynodes[0].id);
	const kn_task *c = &set->tasks[2];
	assert_string_equal(c->keynodes[0].expect, "/search");
	assert_string_equal(c->keynodes[1].expect, "^#item-[0-9]+$");
	assert_int_equal(c->keynodes[1].target, KN_TARGET_ANSWER);
	assert_string_equal(c->steps[0].selector, "#buy");
	assert_int_equal(c->steps[1].verb, KN_STEP_BACK);
	/* a redefined anchor names the latest node */
	assert_string_equal(set->tasks[3].keynodes[0].expect, "redefined");
	kn_taskset_free(set);
}

/* 1000 tasks sharing one key-node list: fine by default, KN_ELIMIT under a small alias budget. */
static void test_alias_budget(void **state)
{
	(void)state;
	size_t cap = 64 * 1024, len = 0;
	char *doc = malloc(cap);
	assert_non_null(doc);
	len += (size_t)snprintf(doc + len, cap - len, "tasks:\n"
	                        "  - {id: t0, intent: x, key_nodes: &k [{url: {include: a}}]}\n");
	for (int i = 1; i < 1000; i++)
		len += (size_t)snprintf(doc + len, cap - len,
		                        "  - {id: t%d, intent: x, key_nodes: *k}\n", i);
	kn_taskset *set = NULL;
	kn_err err = { 0 };
	assert_int_equal(kn_task_load_yaml(&set, doc, len, NAME, NULL, &err), 0);
	assert_int_equal(set->n_tasks, 1000);
	assert_int_equal(kn_taskset_count_keynodes(set), 1000);
	kn_taskset_free(set);

	/* each alias of [{url: {include: a}}] stands for 6 nodes; 100 of them fit in 600 */
	kn_load_opts opts = { .max_alias_nodes = 600 };
	expect_error_like(doc, len, &opts, KN_ELIMIT, NAME ":103:38: ",
	                  "aliases expand to more than 600 nodes (at alias '*k')");
	free(doc);
}

static void test_buffer_not_terminated(void **state)
{
	(void)state;
	const char doc[] = "id: a\nintent: x\nkey_nodes: [{url: {include: a}}]\n!!garbage[[[";
	kn_taskset *set = NULL;
	kn_err err = { 0 };
	size_t len = strlen("id: a\nintent: x\nkey_nodes: [{url: {include: a}}]\n");
	assert_int_equal(kn_task_load_yaml(&set, doc, len, NAME, NULL, &err), 0);
	assert_string_equal(set->tasks[0].id, "a");
	kn_taskset_free(set);
}

static void test_arguments(void **state)
{
	(void)state;
	kn_taskset *set = NULL;
	kn_err err = { 0 };
	/* a NULL err and a NULL name are fine */
	assert_int_equal(kn_task_load_yaml(&set, "id: a\n", 6, NULL, NULL, NULL), KN_EINVAL);
	assert_null(set);
	assert_int_equal(kn_task_load_yaml(&set, "id: a\n", 6, NULL, NULL, &err), KN_EINVAL);
	assert_string_equal(err.msg, "<yaml>:1:1: task 'a': missing 'intent'");
	assert_int_equal(kn_task_load_yaml(NULL, "", 0, NAME, NULL, &err), KN_EINVAL);
	assert_int_equal(kn_task_load_yaml(&set, NULL, 3, NAME, NULL, &err), KN_EINVAL);
	assert_null(set);
	assert_int_equal(kn_task_load_yaml(&set, NULL, 0, NAME, NULL, &err), KN_EINVAL);
	assert_string_equal(err.msg, NAME ":1:1: empty document (expected 'tasks:' or a single task)");
}

static void test_many_tasks(void **state)
{
	(void)state;
	size_t cap = 1 << 20, len = 0;
	char *doc = malloc(cap);
	assert_non_null(doc);
	len += (size_t)snprintf(doc + len, cap - len, "tasks:\n");
	for (int i = 0; i < 5000; i++)
		len += (size_t)snprintf(doc + len, cap - len,
		                        "  - id: task-%d\n    intent: x\n    key_nodes:\n"
		                        "      - url: { include: '/p/%d' }\n", i, i);
	kn_taskset *set = NULL;
	kn_err err = { 0 };
	assert_int_equal(kn_task_load_yaml(&set, doc, len, NAME, NULL, &err), 0);
	assert_int_equal(set->n_tasks, 5000);
	assert_string_equal(kn_taskset_find(set, "task-4999")->keynodes[0].expect, "/p/4999");
	assert_int_equal(set->tasks[4999].line, 2 + 4 * 4999);
	kn_taskset_free(set);

	/* a repeated id at the very end is found, with both places named */
	len += (size_t)snprintf(doc + len, cap - len, "  - id: task-17\n    intent: x\n"
	                        "    key_nodes: [{url: {include: a}}]\n");
	expect_error_like(doc, len, NULL, KN_EINVAL, NAME ":20002:9: task 5001: ",
	                  "duplicate task id 'task-17' (task 18 at line 70 has it too)");
	free(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_interfaces_example),
		cmocka_unit_test(test_interfaces_doc_itself),
		cmocka_unit_test(test_single_task_top_level),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_scalars),
		cmocka_unit_test(test_targets_and_options),
		cmocka_unit_test(test_steps),
		cmocka_unit_test(test_anchors_and_aliases),
		cmocka_unit_test(test_alias_budget),
		cmocka_unit_test(test_buffer_not_terminated),
		cmocka_unit_test(test_arguments),
		cmocka_unit_test(test_many_tasks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
