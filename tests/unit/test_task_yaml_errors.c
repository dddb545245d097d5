/* test_task_yaml_errors.c — the native YAML task loader, documents that do not load: every malformed
 * construct is an error whose message starts with the exact "name:line:col:" and names what is wrong.
 * Limits (size, depth, alias expansion) fail with KN_ELIMIT; where glibc allows it (no ASan), each
 * allocation is failed in turn to check KN_ENOMEM and the absence of leaks on every path. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "task_yaml_test.h"

/* ---- errors ---- */

static void test_errors_keynodes(void **state)
{
	(void)state;
	expect_error(TASK_HEAD KN "      - title: { exact: a }\n", KN_EINVAL,
	             NAME ":5:9: task 'shop-1' key node 1: unknown target 'title' (expected url, "
	             "element_path, element_value, answer, cache_data, page, request or websocket, and optionally id)");
	expect_error(TASK_HEAD KN "      - url: { include: a }\n      - url: { fuzzy: a }\n",
	             KN_EINVAL,
	             NAME ":6:16: task 'shop-1' key node 2: unknown matcher 'fuzzy' (expected exact, "
	             "include, semantic, regex or gold_in_pred); options for url: key, netloc");
	expect_error(TASK_HEAD KN "      - element_value: { exct: a }\n", KN_EINVAL,
	             NAME ":5:26: task 'shop-1' key node 1: unknown matcher 'exct' (expected exact, "
	             "include, semantic or regex); options for element_value: netloc, path");
	expect_error(TASK_HEAD KN "      - url: { include: a, exact: b }\n", KN_EINVAL,
	             NAME ":5:28: task 'shop-1' key node 1: two matchers 'include' and 'exact' (a key "
	             "node has exactly one of exact, include, semantic, regex or gold_in_pred)");
	expect_error(TASK_HEAD KN "      - url: { include: a }\n        answer: { exact: b }\n",
	             KN_EINVAL,
	             NAME ":6:9: task 'shop-1' key node 1: two targets 'url' and 'answer' (a key node "
	             "has exactly one of url, element_path, element_value, answer, cache_data, page, request or websocket)");
	expect_error(TASK_HEAD KN "      - url: { include: a }\n        url: { include: b }\n",
	             KN_EINVAL, NAME ":6:9: task 'shop-1' key node 1: duplicate key 'url'");
	expect_error(TASK_HEAD KN "      - url: { include: a, include: b }\n", KN_EINVAL,
	             NAME ":5:28: task 'shop-1' key node 1: duplicate key 'include'");
	expect_error(TASK_HEAD KN "      - url: { include: a, key: b, key: c }\n", KN_EINVAL,
	             NAME ":5:36: task 'shop-1' key node 1: duplicate key 'key'");
	expect_error(TASK_HEAD KN "      - id: only\n", KN_EINVAL,
	             NAME ":5:9: task 'shop-1' key node 1: no target (expected one of url, "
	             "element_path, element_value, answer, cache_data, page, request or websocket)");
	expect_error(TASK_HEAD KN "      - url: { key: q }\n", KN_EINVAL,
	             NAME ":5:14: task 'shop-1' key node 1: 'url' has no matcher (expected exact, "
	             "include, semantic, regex or gold_in_pred)");
	expect_error(TASK_HEAD KN "      - answer: { clean: true }\n", KN_EINVAL,
	             NAME ":5:17: task 'shop-1' key node 1: 'answer' has no matcher (expected exact, "
	             "include, semantic, regex, must_include or fuzzy)");
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
	             "start_url, reference_length, answer, key_nodes, steps, purchase, guard or end_on_guard)");
	expect_error(TASK_HEAD "    intent: again\n", KN_EINVAL,
	             NAME ":4:5: task 'shop-1': duplicate key 'intent'");
	expect_error(TASK_HEAD "    <<: { answer: a }\n", KN_EINVAL,
	             NAME ":4:5: task 'shop-1': unknown key '<<' (expected id, intent, start_url, "
	             "reference_length, answer, key_nodes, steps, purchase, guard or end_on_guard)");
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
	/* dialog: the answer to the dialog the step before opens */
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
	             NAME ":7:15: task 'shop-1' step 1: 'type' needs a value (or a secret)");
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
	expect_error(STEPS("      - scroll: { direction: left, pixels: 10 }\n"), KN_EINVAL,
	             NAME ":7:30: task 'shop-1' step 1: 'scroll' must be up or down, found 'left'");
	expect_error(STEPS("      - scroll: { pixels: 10 }\n"), KN_EINVAL, NAME ":7:17: task 'shop-1' step 1: 'scroll' needs a direction (up or down)");
	expect_error(STEPS("      - scroll: { direction: down, pixels: -5 }\n"), KN_EINVAL,
	             NAME ":7:44: task 'shop-1' step 1: 'scroll.pixels' must be a whole number from 0 to 100000, found the number -5");
	expect_error(STEPS("      - scroll: { direction: down, by: 5 }\n"), KN_EINVAL,
	             NAME ":7:36: task 'shop-1' step 1: unknown key 'by' in 'scroll' (expected direction or pixels)");
	expect_error(STEPS("      - scroll: { direction: down, direction: up }\n"), KN_EINVAL,
	             NAME ":7:36: task 'shop-1' step 1: duplicate key 'direction'");
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
	             NAME ":6:1: unknown key 'version' (expected tasks, guard or end_on_guard)");
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
	             "reference_length, answer, key_nodes, steps, purchase, guard or end_on_guard)");
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
