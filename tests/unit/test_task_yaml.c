/* test_task_yaml.c — the native YAML task loader: the docs/formats.md §1 example loads with every
 * field, defaults and scalar rules hold, anchors work within limits, and every malformed construct
 * is an error whose message starts with the exact "name:line:col:" and names what is wrong.
 * Limits (size, depth, alias expansion) fail with KN_ELIMIT; where glibc allows it (no ASan), each
 * allocation is failed in turn to check KN_ENOMEM and the absence of leaks on every path. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keynode/task.h"

#define NAME "t.yaml"

/* ---- helpers ---- */

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = malloc((1 << 20) + 1);
	*len = buf ? fread(buf, 1, 1 << 20, f) : 0;
	fclose(f);
	return buf;
}

static int load(kn_taskset **out, const char *doc, const kn_load_opts *opts, kn_err *err)
{
	return kn_task_load_yaml(out, doc, strlen(doc), NAME, opts, err);
}

static kn_taskset *load_ok(const char *doc)
{
	kn_taskset *set = NULL;
	kn_err err = { 0 };
	int rc = load(&set, doc, NULL, &err);
	if (rc != 0)
		print_error("unexpected error %d: %s\n", rc, err.msg);
	assert_int_equal(rc, 0);
	assert_non_null(set);
	assert_int_equal(set->format, KN_FORMAT_YAML);
	assert_string_equal(set->source, NAME);
	return set;
}

/* The load fails with code and exactly this message. */
static void expect_error(const char *doc, int code, const char *msg)
{
	kn_taskset *set = (kn_taskset *)&set; /* must be reset to NULL */
	kn_err err = { 0 };
	int rc = load(&set, doc, NULL, &err);
	if (rc != code || strcmp(err.msg, msg) != 0)
		print_error("document:\n%s\n", doc);
	assert_string_equal(err.msg, msg);
	assert_int_equal(rc, code);
	assert_int_equal(err.code, code);
	assert_null(set);
}

/* The load fails with code; the message starts with prefix and contains words. len SIZE_MAX: the
 * whole string. */
static void expect_error_like(const char *doc, size_t len, const kn_load_opts *opts, int code,
                              const char *prefix, const char *words)
{
	kn_taskset *set = (kn_taskset *)&set;
	if (len == SIZE_MAX)
		len = strlen(doc);
	kn_err err = { 0 };
	int rc = kn_task_load_yaml(&set, doc, len, NAME, opts, &err);
	if (rc != code || strncmp(err.msg, prefix, strlen(prefix)) != 0 || !strstr(err.msg, words))
		print_error("got %d '%s', want %d '%s...%s...'\n", rc, err.msg, code, prefix, words);
	assert_int_equal(rc, code);
	assert_true(strncmp(err.msg, prefix, strlen(prefix)) == 0);
	assert_non_null(strstr(err.msg, words));
	assert_null(set);
}

/* A task with one key node, for wrapping the piece under test. */
#define TASK_HEAD "tasks:\n  - id: shop-1\n    intent: x\n"
#define ONE_NODE "    key_nodes:\n      - url: { include: a }\n"
#define KN "    key_nodes:\n"

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

/* ---- errors ---- */

static void test_errors_keynodes(void **state)
{
	(void)state;
	expect_error(TASK_HEAD KN "      - title: { exact: a }\n", KN_EINVAL,
	             NAME ":5:9: task 'shop-1' key node 1: unknown target 'title' (expected url, "
	             "element_path, element_value, answer, cache_data or page, and optionally id)");
	expect_error(TASK_HEAD KN "      - url: { include: a }\n      - url: { fuzzy: a }\n",
	             KN_EINVAL,
	             NAME ":6:16: task 'shop-1' key node 2: unknown matcher 'fuzzy' (expected exact, "
	             "include, semantic or regex); options for url: key, netloc");
	expect_error(TASK_HEAD KN "      - element_value: { exct: a }\n", KN_EINVAL,
	             NAME ":5:26: task 'shop-1' key node 1: unknown matcher 'exct' (expected exact, "
	             "include, semantic or regex); options for element_value: netloc, path");
	expect_error(TASK_HEAD KN "      - url: { include: a, exact: b }\n", KN_EINVAL,
	             NAME ":5:28: task 'shop-1' key node 1: two matchers 'include' and 'exact' (a key "
	             "node has exactly one of exact, include, semantic or regex)");
	expect_error(TASK_HEAD KN "      - url: { include: a }\n        answer: { exact: b }\n",
	             KN_EINVAL,
	             NAME ":6:9: task 'shop-1' key node 1: two targets 'url' and 'answer' (a key node "
	             "has exactly one of url, element_path, element_value, answer, cache_data or page)");
	expect_error(TASK_HEAD KN "      - url: { include: a }\n        url: { include: b }\n",
	             KN_EINVAL, NAME ":6:9: task 'shop-1' key node 1: duplicate key 'url'");
	expect_error(TASK_HEAD KN "      - url: { include: a, include: b }\n", KN_EINVAL,
	             NAME ":5:28: task 'shop-1' key node 1: duplicate key 'include'");
	expect_error(TASK_HEAD KN "      - url: { include: a, key: b, key: c }\n", KN_EINVAL,
	             NAME ":5:36: task 'shop-1' key node 1: duplicate key 'key'");
	expect_error(TASK_HEAD KN "      - id: only\n", KN_EINVAL,
	             NAME ":5:9: task 'shop-1' key node 1: no target (expected one of url, "
	             "element_path, element_value, answer, cache_data or page)");
	expect_error(TASK_HEAD KN "      - url: { key: q }\n", KN_EINVAL,
	             NAME ":5:14: task 'shop-1' key node 1: 'url' has no matcher (expected exact, "
	             "include, semantic or regex)");
	expect_error(TASK_HEAD KN "      - url: /cart\n", KN_EINVAL,
	             NAME ":5:14: task 'shop-1' key node 1: 'url' must be a mapping with one matcher, "
	             "such as { include: \"...\" }; found the text '/cart'");
	expect_error(TASK_HEAD KN "      - url\n", KN_EINVAL,
	             NAME ":5:9: task 'shop-1' key node 1: a key node is a mapping with one target, "
	             "such as url: { include: \"/cart\" }; found the text 'url'");
	expect_error(TASK_HEAD KN "      - answer: { exact: a, key: q }\n", KN_EINVAL,
	             NAME ":5:29: task 'shop-1' key node 1: option 'key' applies only to url key "
	             "nodes");
	expect_error(TASK_HEAD KN "      - url: { include: a, path: '#x' }\n", KN_EINVAL,
	             NAME ":5:28: task 'shop-1' key node 1: option 'path' applies only to "
	             "element_value key nodes");
	expect_error(TASK_HEAD KN "      - element_value: { include: a, path: '' }\n",
	             KN_EINVAL, NAME ":5:44: task 'shop-1' key node 1: 'path' is empty");
	expect_error(TASK_HEAD KN "      - answer: { semantic: '' }\n", KN_EINVAL,
	             NAME ":5:29: task 'shop-1' key node 1: 'semantic' is empty");
	expect_error(TASK_HEAD KN "      - answer: { exact: [a] }\n", KN_EINVAL,
	             NAME ":5:26: task 'shop-1' key node 1: 'exact' must be text, found a list");
	expect_error(TASK_HEAD KN "      - answer: { exact: }\n", KN_EINVAL,
	             NAME ":5:26: task 'shop-1' key node 1: 'exact' must be text, found nothing "
	             "(null)");
	expect_error(TASK_HEAD KN "      - answer: { exact: false }\n", KN_EINVAL,
	             NAME ":5:26: task 'shop-1' key node 1: 'exact' must be text, found the boolean "
	             "false (quote it to mean the text)");
	expect_error(TASK_HEAD KN "      - id: ''\n        url: { include: a }\n", KN_EINVAL,
	             NAME ":5:13: task 'shop-1' key node 1: 'id' is empty");
	/* regex errors come from PCRE2, positioned at the pattern */
	expect_error_like(TASK_HEAD KN "      - url: { regex: '([a-' }\n", SIZE_MAX, NULL,
	                  KN_EINVAL, NAME ":5:23: task 'shop-1' key node 1: bad regex", "");
	/* element_path has no semantic matcher (as in Mind2Web-Live) */
	expect_error(TASK_HEAD KN "      - element_path: { semantic: the cart button }\n",
	             KN_EINVAL,
	             NAME ":5:35: task 'shop-1' key node 1: matcher 'semantic' is not available for "
	             "target 'element_path'");
	expect_error(TASK_HEAD KN "      - url: { include: a }\n      - id: k1\n"
	             "        url: { include: b }\n",
	             KN_EINVAL,
	             NAME ":6:9: task 'shop-1' key node 2: duplicate key node id 'k1' (key node 1 has "
	             "it too)");
	expect_error(TASK_HEAD KN "      - { [url]: a }\n", KN_EINVAL,
	             NAME ":5:11: task 'shop-1' key node 1: a key must be a plain name, found a list");
}

static void test_errors_tasks(void **state)
{
	(void)state;
	expect_error("tasks:\n  - intent: x\n" ONE_NODE, KN_EINVAL, NAME ":2:5: task 1: missing 'id'");
	expect_error("tasks:\n  - id: a\n" ONE_NODE, KN_EINVAL,
	             NAME ":2:5: task 'a': missing 'intent'");
	expect_error(TASK_HEAD, KN_EINVAL,
	             NAME ":2:5: task 'shop-1': missing 'key_nodes' (at least one key node is "
	             "required)");
	expect_error(TASK_HEAD "    key_nodes: []\n", KN_EINVAL,
	             NAME ":4:16: task 'shop-1': 'key_nodes' is empty (at least one key node is "
	             "required)");
	expect_error(TASK_HEAD KN, KN_EINVAL,
	             NAME ":4:15: task 'shop-1': 'key_nodes' must be a list of key nodes, found "
	             "nothing (null)");
	expect_error(TASK_HEAD "    key_nodes: { url: { include: a } }\n", KN_EINVAL,
	             NAME ":4:16: task 'shop-1': 'key_nodes' must be a list of key nodes, found a "
	             "mapping");
	expect_error(TASK_HEAD "    reference_length: -3\n" ONE_NODE, KN_EINVAL,
	             NAME ":4:23: task 'shop-1': 'reference_length' must be a whole number from 0 to "
	             "2147483647, found the number -3");
	expect_error(TASK_HEAD "    reference_length: 2.5\n" ONE_NODE, KN_EINVAL,
	             NAME ":4:23: task 'shop-1': 'reference_length' must be a whole number from 0 to "
	             "2147483647, found the number 2.5");
	expect_error(TASK_HEAD "    reference_length: five\n" ONE_NODE, KN_EINVAL,
	             NAME ":4:23: task 'shop-1': 'reference_length' must be a whole number from 0 to "
	             "2147483647, found the text 'five'");
	expect_error(TASK_HEAD "    reference_length: '5'\n" ONE_NODE, KN_EINVAL,
	             NAME ":4:23: task 'shop-1': 'reference_length' must be a whole number from 0 to "
	             "2147483647, found the text '5'");
	expect_error(TASK_HEAD "    reference_length: 99999999999999999999999\n" ONE_NODE, KN_EINVAL,
	             NAME ":4:23: task 'shop-1': 'reference_length' must be a whole number from 0 to "
	             "2147483647, found the number 99999999999999999999999");
	expect_error("tasks:\n  - id: a\n    intent: x\n" ONE_NODE
	             "  - id: b\n    intent: x\n" ONE_NODE
	             "  - id: a\n    intent: y\n" ONE_NODE,
	             KN_EINVAL, NAME ":10:9: task 3: duplicate task id 'a' (task 1 at line 2 has it "
	             "too)");
	expect_error("tasks:\n  - id: 7\n    intent: x\n" ONE_NODE
	             "  - id: '7'\n    intent: x\n" ONE_NODE,
	             KN_EINVAL, NAME ":6:9: task 2: duplicate task id '7' (task 1 at line 2 has it "
	             "too)");
	expect_error("tasks:\n  - id: a\n    intent: [x]\n" ONE_NODE, KN_EINVAL,
	             NAME ":3:13: task 'a': 'intent' must be text, found a list");
	expect_error("tasks:\n  - id: a\n    intent: ''\n" ONE_NODE, KN_EINVAL,
	             NAME ":3:13: task 'a': 'intent' is empty");
	expect_error("tasks:\n  - id: {a: 1}\n", KN_EINVAL,
	             NAME ":2:9: task 1: 'id' must be text, found a mapping");
	expect_error("tasks:\n  - id: true\n", KN_EINVAL,
	             NAME ":2:9: task 1: 'id' must be text, found the boolean true (quote it to mean "
	             "the text)");
	expect_error("tasks:\n  - id: ~\n", KN_EINVAL,
	             NAME ":2:9: task 1: 'id' must be text, found nothing (null)");
	expect_error("tasks:\n  - id: a\n    answer: [42]\n", KN_EINVAL,
	             NAME ":3:13: task 'a': 'answer' must be text, found a list");
	expect_error(TASK_HEAD "    start_url: /shop/\n", KN_EINVAL,
	             NAME ":4:16: task 'shop-1': 'start_url' must be an absolute URL such as "
	             "http://host/path, found '/shop/'");
	expect_error(TASK_HEAD "    keynodes: []\n", KN_EINVAL,
	             NAME ":4:5: task 'shop-1': unknown key 'keynodes' (expected id, intent, "
	             "start_url, reference_length, answer, key_nodes, steps or purchase)");
	expect_error(TASK_HEAD "    intent: again\n", KN_EINVAL,
	             NAME ":4:5: task 'shop-1': duplicate key 'intent'");
	expect_error(TASK_HEAD "    <<: { answer: a }\n", KN_EINVAL,
	             NAME ":4:5: task 'shop-1': unknown key '<<' (expected id, intent, start_url, "
	             "reference_length, answer, key_nodes, steps or purchase)");
	/* long values are shortened in messages */
#define A40 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	expect_error("tasks:\n  - id: " A40 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n", KN_EINVAL,
	             NAME ":2:5: task '" A40 "aaaaaaaaaaaaaaaaaaaaaaaaaaaa...': missing 'intent'");
#undef A40
	/* control characters from escapes do not break the one-line message */
	expect_error("tasks:\n  - id: \"a\\nb\"\n", KN_EINVAL,
	             NAME ":2:5: task 'a?b': missing 'intent'");
}

static void test_errors_steps(void **state)
{
	(void)state;
#define STEPS(s) TASK_HEAD ONE_NODE "    steps:\n" s
	expect_error(STEPS("      - hover: { selector: a }\n"), KN_EINVAL,
	             NAME ":7:9: task 'shop-1' step 1: unknown step verb 'hover' (expected goto, "
	             "click, type, select, press, scroll, wait, back, forward, answer or dialog)");
	expect_error(STEPS("      - back\n      - reload\n"), KN_EINVAL,
	             NAME ":8:9: task 'shop-1' step 2: unknown step verb 'reload' (expected goto, "
	             "click, type, select, press, scroll, wait, back, forward, answer or dialog)");
	/* dialog (issue 12): the answer to the dialog the step before opens */
	expect_error(STEPS("      - dialog: maybe\n"), KN_EINVAL,
	             NAME ":7:17: task 'shop-1' step 1: 'dialog' answer must be accept or dismiss, found 'maybe'");
	expect_error(STEPS("      - dialog: { text: x }\n"), KN_EINVAL,
	             NAME ":7:17: task 'shop-1' step 1: 'dialog' answer must be accept or dismiss, found ''");
	expect_error(STEPS("      - dialog: { answer: accept, prompt: x }\n"), KN_EINVAL,
	             NAME ":7:35: task 'shop-1' step 1: unknown key 'prompt' in 'dialog' (expected answer or text)");
	expect_error(STEPS("      - dialog: { answer: accept, answer: dismiss }\n"), KN_EINVAL,
	             NAME ":7:35: task 'shop-1' step 1: duplicate key 'answer'");
	expect_error(STEPS("      - dialog: [accept]\n"), KN_EINVAL,
	             NAME ":7:17: task 'shop-1' step 1: 'dialog' must be accept, dismiss or { answer: accept, "
	             "text: \"…\" }, found a list");
	expect_error(STEPS("      - dialog\n"), KN_EINVAL,
	             NAME ":7:9: task 'shop-1' step 1: 'dialog' needs a value (write '- dialog: ...')");
	expect_error(STEPS("      - goto\n"), KN_EINVAL,
	             NAME ":7:9: task 'shop-1' step 1: 'goto' needs a value (write '- goto: ...')");
	expect_error(STEPS("      - goto: shop/index.html\n"), KN_EINVAL,
	             NAME ":7:15: task 'shop-1' step 1: 'goto' must be an absolute URL such as "
	             "http://host/path, found 'shop/index.html'");
	expect_error(STEPS("      - back: 1\n"), KN_EINVAL,
	             NAME ":7:15: task 'shop-1' step 1: 'back' takes no value (write '- back'), found "
	             "the number 1");
	expect_error(STEPS("      - click: '#buy'\n"), KN_EINVAL,
	             NAME ":7:16: task 'shop-1' step 1: 'click' must be a mapping such as { selector: "
	             "\"#buy\" }, found the text '#buy'");
	expect_error(STEPS("      - click: { text: Buy }\n"), KN_EINVAL,
	             NAME ":7:16: task 'shop-1' step 1: 'click' needs a selector");
	expect_error(STEPS("      - click: { selector: '' }\n"), KN_EINVAL,
	             NAME ":7:28: task 'shop-1' step 1: 'selector' is empty");
	expect_error(STEPS("      - type: { selector: '#q' }\n"), KN_EINVAL,
	             NAME ":7:15: task 'shop-1' step 1: 'type' needs a value");
	expect_error(STEPS("      - select: { selector: '#q', text: x }\n"), KN_EINVAL,
	             NAME ":7:35: task 'shop-1' step 1: unknown key 'text' in 'select' (expected "
	             "selector, value, id, name, aria_label, role or href)");
	expect_error(STEPS("      - click: { selector: '#q', value: x }\n"), KN_EINVAL,
	             NAME ":7:34: task 'shop-1' step 1: unknown key 'value' in 'click' (expected "
	             "selector, text, id, name, aria_label, role or href)");
	expect_error(STEPS("      - wait: { selector: '#q', enter: true }\n"), KN_EINVAL,
	             NAME ":7:33: task 'shop-1' step 1: unknown key 'enter' in 'wait' (expected "
	             "selector, id, name, aria_label, role or href)");
	expect_error(STEPS("      - type: { selector: '#q', value: x, enter: yes }\n"), KN_EINVAL,
	             NAME ":7:50: task 'shop-1' step 1: 'enter' must be true or false, found the text "
	             "'yes'");
	expect_error(STEPS("      - click: { selector: a, role: '' }\n"), KN_EINVAL,
	             NAME ":7:37: task 'shop-1' step 1: 'role' is empty");
	expect_error(STEPS("      - click: { selector: a, selector: b }\n"), KN_EINVAL,
	             NAME ":7:31: task 'shop-1' step 1: duplicate key 'selector'");
	expect_error(STEPS("      - scroll: left\n"), KN_EINVAL,
	             NAME ":7:17: task 'shop-1' step 1: 'scroll' must be up or down, found 'left'");
	expect_error(STEPS("      - press: ''\n"), KN_EINVAL,
	             NAME ":7:16: task 'shop-1' step 1: 'press' is empty");
	expect_error(STEPS("      - wait: 1.5\n"), KN_EINVAL,
	             NAME ":7:15: task 'shop-1' step 1: 'wait' must be milliseconds or a mapping such "
	             "as { selector: \"#done\" }, found the number 1.5");
	expect_error(STEPS("      - wait: -1\n"), KN_EINVAL,
	             NAME ":7:15: task 'shop-1' step 1: 'wait' must be a whole number from 0 to "
	             "9223372036854775807, found the number -1");
	expect_error(STEPS("      - wait: 2s\n"), KN_EINVAL,
	             NAME ":7:15: task 'shop-1' step 1: 'wait' must be milliseconds or a mapping such "
	             "as { selector: \"#done\" }, found the text '2s'");
	expect_error(STEPS("      - click: { selector: a }\n        text: Buy\n"), KN_EINVAL,
	             NAME ":8:9: task 'shop-1' step 1: unexpected key 'text' after 'click' (a step has "
	             "one verb; its options go in the verb's mapping)");
	expect_error(STEPS("      - {}\n"), KN_EINVAL,
	             NAME ":7:9: task 'shop-1' step 1: empty step (expected one of goto, click, type, "
	             "select, press, scroll, wait, back, forward, answer or dialog)");
	expect_error(STEPS("      - [back]\n"), KN_EINVAL,
	             NAME ":7:9: task 'shop-1' step 1: a step is a verb such as '- goto: URL' or '- "
	             "back', found a list");
	expect_error(TASK_HEAD ONE_NODE "    steps: back\n", KN_EINVAL,
	             NAME ":6:12: task 'shop-1': 'steps' must be a list of steps, found the text "
	             "'back'");
#undef STEPS
}

static void test_errors_document(void **state)
{
	(void)state;
	const char *empty = NAME ":1:1: empty document (expected 'tasks:' or a single task)";
	expect_error("", KN_EINVAL, empty);
	expect_error("# only a comment\n\n", KN_EINVAL, empty);
	expect_error("{}\n", KN_EINVAL, empty);
	expect_error("---\n...\n", KN_EINVAL,
	             NAME ":2:1: empty document (expected 'tasks:' or a single task)");
	expect_error("- id: a\n", KN_EINVAL,
	             NAME ":1:1: expected a mapping holding 'tasks:' or a single task at the top "
	             "level, found a list");
	expect_error("hello\n", KN_EINVAL,
	             NAME ":1:1: expected a mapping holding 'tasks:' or a single task at the top "
	             "level, found the text 'hello'");
	expect_error("tasks:\n  - id: a\n    intent: x\n" ONE_NODE "version: 2\n", KN_EINVAL,
	             NAME ":6:1: unknown top-level key 'version' (a file with 'tasks:' holds only that "
	             "list)");
	expect_error("tasks: []\ntasks: []\n", KN_EINVAL, NAME ":1:8: 'tasks' is empty");
	expect_error("tasks: [{id: a, intent: x, key_nodes: [{url: {include: a}}]}]\ntasks: []\n",
	             KN_EINVAL, NAME ":2:1: duplicate key 'tasks'");
	expect_error("tasks:\n", KN_EINVAL,
	             NAME ":1:7: 'tasks' must be a list of tasks, found nothing (null)");
	expect_error("tasks:\n  - shop-1\n", KN_EINVAL,
	             NAME ":2:5: task 1 must be a mapping, found the text 'shop-1'");
	expect_error("id: a\n---\nid: b\n", KN_EINVAL,
	             NAME ":2:1: a second YAML document; a task file holds one");
	expect_error("? [a]\n: b\n", KN_EINVAL, NAME ":1:3: a key must be a plain name, found a list");
	expect_error("version: 1\ntasks: []\n", KN_EINVAL,
	             NAME ":1:1: task 1: unknown key 'version' (expected id, intent, start_url, "
	             "reference_length, answer, key_nodes, steps or purchase)");
}

static void test_errors_yaml_syntax(void **state)
{
	(void)state;
	expect_error("tasks:\n\t- id: a\n", KN_EINVAL,
	             NAME ":2:1: invalid YAML: found character that cannot start any token while "
	             "scanning for the next token (tabs cannot indent YAML; use spaces)");
	expect_error("tasks:\n  - id: a\n    intent: \"x\n", KN_EINVAL,
	             NAME ":4:1: invalid YAML: found unexpected end of stream while scanning a quoted "
	             "scalar started at 3:13");
	expect_error("a: b\n c: d\n", KN_EINVAL,
	             NAME ":2:3: invalid YAML: mapping values are not allowed in this context");
	expect_error("tasks: [a, b\n", KN_EINVAL,
	             NAME ":2:1: invalid YAML: did not find expected ',' or ']' while parsing a flow "
	             "sequence started at 1:8");
	expect_error("id: *nowhere\n", KN_EINVAL,
	             NAME ":1:5: alias '*nowhere' has no anchor '&nowhere' before it");
	expect_error("a: &x [*x]\n", KN_EINVAL, NAME ":1:8: alias '*x' has no anchor '&x' before it");
}

static void test_errors_encoding(void **state)
{
	(void)state;
	expect_error("tasks:\n  - id: caf\xff\n", KN_EINVAL,
	             NAME ":2:12: invalid text: invalid leading UTF-8 octet (0xFF); a task file is "
	             "UTF-8");
	expect_error("tasks:\n  - id: caf\xe9\n", KN_EINVAL,
	             NAME ":2:12: invalid text: incomplete UTF-8 octet sequence; a task file is UTF-8");
	expect_error("id: \xc3\x28\n", KN_EINVAL,
	             NAME ":1:6: invalid text: invalid trailing UTF-8 octet (0x28); a task file is "
	             "UTF-8");
	expect_error("\xff\xfei\0d\0", KN_EINVAL, /* UTF-16: only up to the first NUL is passed */
	             NAME ":1:1: invalid text: invalid leading UTF-8 octet (0xFF); a task file is "
	             "UTF-8");
	expect_error_like("id: a\0b\n", 8, NULL, KN_EINVAL, NAME ":1:6: ",
	                  "invalid text: control characters are not allowed (0x0)");
	expect_error("id: a\x01\n", KN_EINVAL,
	             NAME ":1:6: invalid text: control characters are not allowed (0x1); a task file "
	             "is UTF-8");
	expect_error("id: \"a\\0b\"\n", KN_EINVAL, NAME ":1:5: text contains a NUL character");
}

static void test_errors_tags(void **state)
{
	(void)state;
	const char *core = " (only the core tags !!str, !!int, !!float, !!bool, !!null, !!seq and "
	                   "!!map are accepted)";
	char want[512];
	snprintf(want, sizeof want, NAME ":1:5: unsupported tag '!foo'%s", core);
	expect_error("id: !foo a\n", KN_EINVAL, want);
	snprintf(want, sizeof want, NAME ":1:5: unsupported tag '!!binary'%s", core);
	expect_error("id: !!binary aGVsbG8=\n", KN_EINVAL, want);
	snprintf(want, sizeof want, NAME ":1:5: unsupported tag '!!python/object'%s", core);
	expect_error("id: !!python/object a\n", KN_EINVAL, want);
	/* tags are checked anywhere, even in a value the schema would refuse anyway */
	snprintf(want, sizeof want, NAME ":2:9: unsupported tag '!x'%s", core);
	expect_error("tasks:\n  - a: [!x b]\n", KN_EINVAL, want);
	expect_error("id: !!int abc\n", KN_EINVAL, NAME ":1:5: 'abc' is not a valid !!int");
	expect_error("id: !!bool yes\n", KN_EINVAL, NAME ":1:5: 'yes' is not a valid !!bool");
	expect_error("id: !!null a\n", KN_EINVAL, NAME ":1:5: 'a' is not a valid !!null");
	expect_error("id: !!seq a\n", KN_EINVAL, NAME ":1:5: tag !!seq on a scalar");
	expect_error("tasks: !!map [a]\n", KN_EINVAL, NAME ":1:8: unsupported tag '!!map' on a list");
	expect_error("tasks: !!set {a}\n", KN_EINVAL,
	             NAME ":1:8: unsupported tag '!!set' on a mapping");
	expect_error("tasks: !!omap [a]\n", KN_EINVAL, NAME ":1:8: unsupported tag '!!omap' on a list");
}

/* ---- limits ---- */

static void test_billion_laughs(void **state)
{
	(void)state;
	const char *doc = "a: &a [lol,lol,lol,lol,lol,lol,lol,lol,lol]\n"
	                  "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
	                  "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
	                  "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
	                  "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
	                  "f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n"
	                  "g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n"
	                  "h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\n"
	                  "i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]\n";
	expect_error(doc, KN_ELIMIT,
	             NAME ":5:8: aliases expand to more than 10000 nodes (at alias '*d')");

	/* the same shape inside a task, and a much wider one; both stop at the budget */
	expect_error("id: a\n"
	             "intent: &x [lol,lol,lol,lol,lol,lol,lol,lol,lol,lol]\n"
	             "answer: &y [*x,*x,*x,*x,*x,*x,*x,*x,*x,*x]\n"
	             "key_nodes: &z [*y,*y,*y,*y,*y,*y,*y,*y,*y,*y]\n"
	             "steps: [*z,*z,*z,*z,*z,*z,*z,*z,*z,*z]\n",
	             KN_ELIMIT, NAME ":5:30: aliases expand to more than 10000 nodes (at alias '*z')");

	size_t cap = 1 << 16, len = 0;
	char *big = malloc(cap);
	assert_non_null(big);
	len += (size_t)snprintf(big + len, cap - len, "l0: &l0 [x,x,x,x,x,x,x,x,x,x]\n");
	for (int i = 1; i < 60; i++) {
		len += (size_t)snprintf(big + len, cap - len, "l%d: &l%d [", i, i);
		for (int j = 0; j < 10; j++)
			len += (size_t)snprintf(big + len, cap - len, "*l%d%s", i - 1, j < 9 ? "," : "]\n");
	}
	expect_error_like(big, len, NULL, KN_ELIMIT, NAME ":4:38: ",
	                  "aliases expand to more than 10000 nodes (at alias '*l2')");
	/* with no budget the counts saturate rather than wrap, and nothing is expanded before the
	 * schema refuses the document */
	kn_load_opts opts = { .max_alias_nodes = SIZE_MAX };
	expect_error_like(big, len, &opts, KN_EINVAL, NAME ":1:1: ", "task 1: unknown key 'l0'");
	free(big);
}

static void test_deep_nesting(void **state)
{
	(void)state;
	char doc[4096];
	size_t n = 0;
	n += (size_t)snprintf(doc, sizeof doc, "tasks: ");
	for (int i = 0; i < 1000; i++)
		doc[n++] = '[';
	doc[n] = '\0';
	/* depth 1 is the top mapping, so the 64th '[' is the 65th level */
	expect_error_like(doc, n, NULL, KN_ELIMIT, NAME ":1:71: ", "nesting deeper than 64 levels");

	/* block style */
	n = 0;
	for (int i = 0; i < 80; i++)
		n += (size_t)snprintf(doc + n, sizeof doc - n, "%*sk%d:\n", i, "", i);
	expect_error_like(doc, n, NULL, KN_ELIMIT, NAME ":65:65: ", "nesting deeper than 64 levels");

	/* the option applies to valid documents too: this one is 6 levels deep */
	kn_load_opts opts = { .max_depth = 5 };
	const char *valid = TASK_HEAD ONE_NODE;
	expect_error_like(valid, strlen(valid), &opts, KN_ELIMIT, NAME ":5:14: ",
	                  "nesting deeper than 5 levels");
	opts.max_depth = 6;
	kn_taskset *set = NULL;
	kn_err err = { 0 };
	assert_int_equal(load(&set, valid, &opts, &err), 0);
	kn_taskset_free(set);
}

static void test_oversize(void **state)
{
	(void)state;
	const char *doc = TASK_HEAD ONE_NODE;
	size_t len = strlen(doc);
	kn_load_opts opts = { .max_bytes = len - 1 };
	char want[128];
	snprintf(want, sizeof want, "document is %zu bytes, more than the limit of %zu", len, len - 1);
	expect_error_like(doc, len, &opts, KN_ELIMIT, NAME ":1:1: ", want);
	opts.max_bytes = len;
	kn_taskset *set = NULL;
	kn_err err = { 0 };
	assert_int_equal(load(&set, doc, &opts, &err), 0);
	kn_taskset_free(set);
	/* the default limit: the buffer is never read, so a short one can claim to be huge */
	expect_error_like(doc, (size_t)KN_LOAD_MAX_BYTES + 1, NULL, KN_ELIMIT, NAME ":1:1: ",
	                  "more than the limit of 67108864");
}

/* ---- allocation failures ----
 * With glibc, malloc & co. can be replaced by the program; the replacement fails the n-th
 * allocation and counts live blocks. ASan replaces them itself, so there the test is skipped
 * (ASan/LeakSanitizer already check the error paths the other tests take). */
#if defined(__SANITIZE_ADDRESS__)
#define KN_HAVE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KN_HAVE_ASAN 1
#endif
#endif

#if defined(__GLIBC__) && !defined(KN_HAVE_ASAN)
#define KN_TORTURE 1
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);

static int torture_on;
static long torture_count, torture_fail_at, torture_live;

static int torture_fails(void)
{
	return torture_on && ++torture_count == torture_fail_at;
}

void *malloc(size_t n)
{
	if (torture_fails())
		return NULL;
	void *p = __libc_malloc(n);
	torture_live += torture_on && p;
	return p;
}

void *calloc(size_t n, size_t size)
{
	if (torture_fails())
		return NULL;
	void *p = __libc_calloc(n, size);
	torture_live += torture_on && p;
	return p;
}

void *realloc(void *p, size_t n)
{
	if (torture_fails())
		return NULL;
	void *q = __libc_realloc(p, n);
	if (torture_on && !p && q)
		torture_live++;
	return q;
}

void free(void *p)
{
	torture_live -= torture_on && p;
	__libc_free(p);
}
#endif

static void torture(const char *doc, int ok_code)
{
#ifdef KN_TORTURE
	long failures = 0;
	for (long at = 1;; at++) {
		kn_taskset *set = NULL;
		kn_err err = { 0 };
		torture_count = torture_live = 0;
		torture_fail_at = at;
		torture_on = 1;
		int rc = load(&set, doc, NULL, &err);
		if (rc == 0)
			kn_taskset_free(set);
		torture_on = 0;
		int injected = torture_count >= at;
		if (torture_live != 0 ||
		    (injected && rc != KN_ENOMEM && rc != ok_code) ||
		    (!injected && rc != ok_code) || (rc != 0 && set))
			print_error("failing allocation %ld of %ld: rc %d (%s), %ld blocks leaked\n", at,
			            torture_count, rc, err.msg, torture_live);
		assert_int_equal(torture_live, 0);
		if (rc != 0)
			assert_null(set);
		if (!injected) {
			assert_int_equal(rc, ok_code);
			break;
		}
		if (rc != ok_code)
			assert_int_equal(rc, KN_ENOMEM);
		failures++;
	}
	assert_true(failures > 50);
#else
	(void)doc;
	(void)ok_code;
	skip();
#endif
}

static void test_allocation_failures(void **state)
{
	(void)state;
	torture("tasks:\n"
	        "  - id: a\n"
	        "    intent: &i Find the shoes\n"
	        "    start_url: http://h/\n"
	        "    answer: '42'\n"
	        "    key_nodes: &k\n"
	        "      - id: s\n"
	        "        url: { include: /search, key: q, netloc: h }\n"
	        "      - element_path: { exact: 'div > a' }\n"
	        "      - element_value: { path: '#size', semantic: Decide whether it is 9 }\n"
	        "      - answer: { regex: '^4[0-9]$' }\n"
	        "    steps:\n"
	        "      - goto: http://h/\n"
	        "      - click: { selector: a, text: b, id: c, name: d,\n"
	        "                 aria_label: e, role: f, href: g }\n"
	        "      - type: { selector: a, value: b, enter: true }\n"
	        "      - wait: 10\n"
	        "      - back\n"
	        "  - { id: b, intent: *i, key_nodes: *k, steps: [ {answer: x} ] }\n",
	        0);
	/* and a document that fails late, after building most of the set */
	torture("tasks:\n"
	        "  - id: a\n"
	        "    intent: &i x\n"
	        "    key_nodes: &k [ {url: {regex: 'a+'}}, {element_path: {exact: b}} ]\n"
	        "  - { id: b, intent: *i, key_nodes: *k, steps: [ {scroll: sideways} ] }\n",
	        KN_EINVAL);
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
		cmocka_unit_test(test_errors_keynodes),
		cmocka_unit_test(test_errors_tasks),
		cmocka_unit_test(test_errors_steps),
		cmocka_unit_test(test_errors_document),
		cmocka_unit_test(test_errors_yaml_syntax),
		cmocka_unit_test(test_errors_encoding),
		cmocka_unit_test(test_errors_tags),
		cmocka_unit_test(test_billion_laughs),
		cmocka_unit_test(test_deep_nesting),
		cmocka_unit_test(test_oversize),
		cmocka_unit_test(test_allocation_failures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
