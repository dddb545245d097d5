/* test_site.c — a task's own sites (keynode/site.h kn_task_own_site: start URLs, URL key nodes'
 * absolute and scheme-less values, " |OR| " lists, netloc tokens, ports, "www.", case) and the
 * network errors that mean unreachable (kn_net_error_unreachable); plus the evaluator's
 * unreachable status and its result fields. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "keynode/eval.h"
#include "keynode/site.h"

static kn_taskset *load(const char *doc)
{
	kn_taskset *set = NULL;
	kn_err err = {0};
	if (kn_task_load_yaml(&set, doc, strlen(doc), "t.yaml", NULL, &err) != 0)
		fail_msg("load: %s", err.msg);
	return set;
}

static const char *const shop =
	"tasks:\n"
	"  - id: t\n"
	"    intent: x\n"
	"    start_url: http://127.0.0.1:8100/shop/\n"
	"    key_nodes:\n"
	"      - url: { include: \"/shop/search.html\" }\n"
	"      - url: { include: \"http://127.0.0.1:9300/pay\" }\n"
	"      - url: { exact: \"https://Secure.Example.com/checkout\" }\n"
	"      - url: { include: \"www.tickets.org/buy\" }\n"
	"      - url: { include: \"10.1.2.3:7000/x\" }\n"
	"      - url: { include: \"item.html?id=7\" }\n"
	"      - url: { key: q, semantic: \"red shoes. in size 9\" }\n"
	"      - url: { regex: '^http://[^/]+/shop/item\\.html$' }\n"
	"      - element_path: { exact: \"#buy\", netloc: \"elsewhere\" }\n";

static void test_own_sites(void **state)
{
	(void)state;
	kn_taskset *set = load(shop);
	const kn_task *t = &set->tasks[0];
	/* the start URL's host and port */
	assert_true(kn_task_own_site(t, "http://127.0.0.1:8100/other/page?x=1"));
	assert_false(kn_task_own_site(t, "http://127.0.0.1:8101/shop/"));
	assert_false(kn_task_own_site(t, "https://127.0.0.1/shop/")); /* port 443 */
	/* an absolute key node URL: its own port */
	assert_true(kn_task_own_site(t, "http://127.0.0.1:9300/"));
	/* https without a port is 443; case and "www." do not matter */
	assert_true(kn_task_own_site(t, "https://secure.example.com/"));
	assert_true(kn_task_own_site(t, "https://www.SECURE.example.com:443/a"));
	assert_false(kn_task_own_site(t, "http://secure.example.com/")); /* port 80 */
	/* a scheme-less value's host: any port unless written */
	assert_true(kn_task_own_site(t, "http://tickets.org/"));
	assert_true(kn_task_own_site(t, "https://www.tickets.org:8443/z"));
	assert_true(kn_task_own_site(t, "http://10.1.2.3:7000/"));
	assert_false(kn_task_own_site(t, "http://10.1.2.3:7001/"));
	/* a page name, a phrase, a regex and an element node's netloc name no site */
	assert_false(kn_task_own_site(t, "http://item.html/"));
	assert_false(kn_task_own_site(t, "http://elsewhere.com/"));
	assert_false(kn_task_own_site(t, "http://unreachable.test/"));
	/* not URLs */
	assert_false(kn_task_own_site(t, "chrome-error://chromewebdata/"));
	assert_false(kn_task_own_site(t, "about:blank"));
	assert_false(kn_task_own_site(t, NULL));
	assert_false(kn_task_own_site(NULL, "http://127.0.0.1:8100/"));
	kn_taskset_free(set);
}

static void test_netloc_and_lists(void **state)
{
	(void)state;
	kn_taskset *set = load("tasks:\n"
	                       "  - id: t\n"
	                       "    intent: x\n"
	                       "    key_nodes:\n"
	                       "      - url: { include: \"/flights\", netloc: united }\n"
	                       "      - url: { exact: \"http://a.test:81/x |OR| http://b.test/y\" }\n");
	const kn_task *t = &set->tasks[0];
	assert_true(kn_task_own_site(t, "https://www.united.com/en/us"));
	assert_true(kn_task_own_site(t, "https://united.co.uk/"));
	assert_false(kn_task_own_site(t, "https://delta.com/"));
	assert_true(kn_task_own_site(t, "http://a.test:81/"));
	assert_true(kn_task_own_site(t, "http://b.test/"));
	assert_false(kn_task_own_site(t, "http://a.test/"));
	kn_taskset_free(set);
}

/* The site a task is reported under: start URL host, else the first URL key node naming a host,
 * else a netloc token, else none. */
static void test_task_site(void **state)
{
	(void)state;
	kn_taskset *set = load("tasks:\n"
	                       "  - id: a\n    intent: x\n    start_url: http://WWW.Shop.example:8100/s\n"
	                       "    key_nodes:\n      - url: { include: \"https://other.example/x\" }\n"
	                       "  - id: b\n    intent: x\n    key_nodes:\n"
	                       "      - element_path: { exact: \"#go\" }\n"
	                       "      - url: { include: \"/relative\", netloc: united }\n"
	                       "      - url: { exact: \"www.tickets.org/buy |OR| http://b.test/y\" }\n"
	                       "  - id: c\n    intent: x\n    key_nodes:\n"
	                       "      - url: { include: \"/flights\", netloc: united }\n"
	                       "  - id: d\n    intent: x\n    key_nodes:\n      - answer: { exact: \"42\" }\n");
	char site[64];
	const char *const want[] = {"shop.example", "tickets.org", "united", ""};
	for (size_t i = 0; i < 4; i++) {
		kn_task_site(site, sizeof site, &set->tasks[i]);
		assert_string_equal(site, want[i]);
	}
	kn_task_site(site, 5, &set->tasks[0]); /* cut to the buffer */
	assert_string_equal(site, "shop");
	kn_taskset_free(set);
}

static void test_net_errors(void **state)
{
	(void)state;
	const char *yes[] = {"net::ERR_NAME_NOT_RESOLVED", "net::ERR_CONNECTION_REFUSED",
	                     "net::ERR_CONNECTION_RESET", "net::ERR_CONNECTION_TIMED_OUT",
	                     "net::ERR_CERT_AUTHORITY_INVALID", "net::ERR_CERT_COMMON_NAME_INVALID",
	                     "net::ERR_SSL_PROTOCOL_ERROR", "net::ERR_EMPTY_RESPONSE",
	                     "net::ERR_ADDRESS_UNREACHABLE", "net::ERR_INTERNET_DISCONNECTED"};
	const char *no[] = {"net::ERR_ABORTED", "net::ERR_HTTP_RESPONSE_CODE_FAILURE",
	                    "net::ERR_BLOCKED_BY_CLIENT", "net::ERR_TOO_MANY_REDIRECTS",
	                    "net::ERR_UNSAFE_PORT", "", NULL};
	for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
		if (!kn_net_error_unreachable(yes[i]))
			fail_msg("%s should be unreachable", yes[i]);
	for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
		if (kn_net_error_unreachable(no[i]))
			fail_msg("%s should not be unreachable", no[i]);
}

/* The evaluator: unreachable makes an unfinished run an error with the evidence; a finished run
 * stays finished. */
static void test_eval_unreachable(void **state)
{
	(void)state;
	kn_taskset *set = load("tasks:\n"
	                       "  - id: t\n"
	                       "    intent: x\n"
	                       "    key_nodes:\n"
	                       "      - url: { include: \"/done\" }\n");
	kn_eval *ev = NULL;
	assert_int_equal(kn_eval_new(&ev, &set->tasks[0], NULL), 0);
	assert_null(kn_eval_unreachable(ev));
	assert_int_equal(kn_eval_set_unreachable(ev, "[1]"), KN_EINVAL);
	assert_int_equal(kn_eval_set_unreachable(ev, NULL), KN_EINVAL);
	assert_int_equal(kn_eval_set_unreachable(ev, "{\"url\": \"http://h/x\", \"error\": "
	                                             "\"net::ERR_CONNECTION_REFUSED\", \"step\": 1}"), 0);
	assert_int_equal(kn_eval_status(ev), KN_STATUS_ERROR);
	assert_non_null(kn_eval_unreachable(ev));
	json_t *j = kn_eval_result_json(ev, "r");
	assert_string_equal(json_string_value(json_object_get(j, "status")), "error");
	assert_string_equal(json_string_value(json_object_get(j, "reason")), "unreachable");
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "unreachable"), "error")),
	                    "net::ERR_CONNECTION_REFUSED");
	json_decref(j);
	kn_event nav = {.type = KN_EV_NAVIGATE, .url = "http://h/done", .how = "goto", .trusted = -1};
	assert_true(kn_eval_feed(ev, &nav, NULL) >= 0);
	assert_int_equal(kn_eval_status(ev), KN_STATUS_FINISHED);
	assert_null(kn_eval_unreachable(ev));
	j = kn_eval_result_json(ev, "r");
	assert_null(json_object_get(j, "reason"));
	assert_null(json_object_get(j, "unreachable"));
	json_decref(j);
	kn_eval_free(ev);
	kn_taskset_free(set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_own_sites),
		cmocka_unit_test(test_netloc_and_lists),
		cmocka_unit_test(test_net_errors),
		cmocka_unit_test(test_task_site),
		cmocka_unit_test(test_eval_unreachable),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
