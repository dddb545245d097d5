/* test_site.c — a task's own sites (keynode/site.h kn_task_own_site: start URLs, URL key nodes'
 * absolute and scheme-less values, " |OR| " lists, key nodes' pages (Mind2Web-Live content.url),
 * netloc tokens, ports, "www.", case), over the published Mind2Web-Live files as they are, and the
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

#define M2W KN_SHARED_DIR "/data/mind2web-live/"

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

static kn_taskset *load_m2w(const char *doc)
{
	kn_taskset *set = NULL;
	kn_err err = {0};
	if (kn_task_load_mind2web(&set, doc, strlen(doc), "t.json", NULL, &err) != 0)
		fail_msg("load: %s", err.msg);
	return set;
}

/* A published Mind2Web-Live task names its site only in its key nodes' pages (content.url): a
 * URL fragment ("gamestop.") and a parameter value ("2630" of key store) name none. */
static void test_page_sites(void **state)
{
	(void)state;
	kn_taskset *set = load_m2w(
		"[{\"index\": 0, \"task\": \"x\", \"reference_task_length\": 8, \"evaluation\": ["
		" {\"match_function_name\": \"url_included_match\", \"content\": {\"key\": \"\","
		"  \"reference_answer\": \"gamestop.\", \"url\": \"https://www.gamestop.com/\"}},"
		" {\"match_function_name\": \"url_exactly_match\", \"content\": {\"key\": \"store\","
		"  \"reference_answer\": \"2630\", \"url\": \"https://www.gamestop.com/search/?store=2630\"}}]},"
		" {\"index\": 1, \"task\": \"y\", \"evaluation\": ["
		" {\"match_function_name\": \"url_included_match\", \"content\": {\"key\": \"attrs\","
		"  \"reference_answer\": \"WiFi.free\", \"url\": \"https://www.yelp.com/search?attrs=WiFi.free\"}},"
		" {\"match_function_name\": \"element_path_exactly_match\", \"content\": {"
		"  \"reference_answer\": \"#pay\", \"netloc\": \"yelp\", \"url\": \"http://127.0.0.1:8443/pay\"}}]},"
		" {\"index\": 2, \"task\": \"z\", \"evaluation\": ["
		" {\"match_function_name\": \"url_included_match\", \"content\": {\"key\": \"\","
		"  \"reference_answer\": \"/cart\", \"url\": \"\"}}]}]");
	const kn_task *t = &set->tasks[0];
	/* the page's host, any scheme and port (none written) */
	assert_true(kn_task_own_site(t, "https://www.gamestop.com/"));
	assert_true(kn_task_own_site(t, "http://GameStop.com:8080/x"));
	assert_false(kn_task_own_site(t, "https://www.bestbuy.com/"));
	assert_false(kn_task_own_site(t, "https://gamestop.example/")); /* "gamestop." is no host */
	char site[64];
	kn_task_site(site, sizeof site, t);
	assert_string_equal(site, "gamestop.com");
	/* a parameter's value ("WiFi.free" of key attrs) is no host; an element node's page counts,
	 * with its port when written */
	t = &set->tasks[1];
	assert_false(kn_task_own_site(t, "http://wifi.free/"));
	assert_true(kn_task_own_site(t, "https://yelp.com/biz"));
	assert_true(kn_task_own_site(t, "http://127.0.0.1:8443/"));
	assert_false(kn_task_own_site(t, "http://127.0.0.1:8444/"));
	kn_task_site(site, sizeof site, t);
	assert_string_equal(site, "yelp.com");
	/* an empty page names nothing */
	kn_task_site(site, sizeof site, &set->tasks[2]);
	assert_string_equal(site, "");
	assert_false(kn_task_own_site(&set->tasks[2], "http://127.0.0.1/cart"));
	kn_taskset_free(set);
}

/* kn_task_sites_each gives start URLs, then references, then pages, then netloc tokens. */
static int collect(void *ud, const char *host, long port, kn_site_from from)
{
	char *out = ud;
	size_t n = strlen(out);
	snprintf(out + n, 512 - n, "%d:%s:%ld ", (int)from, host, port);
	return 0;
}

static int stop_at_page(void *ud, const char *host, long port, kn_site_from from)
{
	(void)ud, (void)host, (void)port;
	return from == KN_SITE_FROM_PAGE ? 7 : 0;
}

static void test_sites_order(void **state)
{
	(void)state;
	kn_taskset *set = load("tasks:\n"
	                       "  - id: t\n    intent: x\n    start_url: https://Shop.test/s\n"
	                       "    key_nodes:\n"
	                       "      - url: { include: \"/flights\", netloc: united }\n"
	                       "      - url: { include: \"www.a.test:81/x |OR| b.test/y\" }\n"
	                       "      - url: { semantic: \"x.test\" }\n"
	                       "      - url: { key: q, exact: \"c.test\" }\n");
	kn_task *t = &set->tasks[0];
	char page[] = "http://www.Page.test/p";
	t->keynodes[2].ref_url = page; /* as the Mind2Web-Live loader sets it */
	char out[512] = "";
	assert_int_equal(kn_task_sites_each(t, collect, out), 0);
	assert_string_equal(out, "0:shop.test:443 1:a.test:81 1:b.test:0 2:page.test:0 3:united:0 ");
	assert_int_equal(kn_task_sites_each(t, stop_at_page, NULL), 7);
	assert_int_equal(kn_task_sites_each(NULL, stop_at_page, NULL), 0);
	t->keynodes[2].ref_url = NULL;
	kn_taskset_free(set);
}

/* The published files as they are: every task names a site, the host of every key node's page
 * is one of its own sites, and another host is not. */
static void check_published(const char *path, size_t want_tasks)
{
	kn_taskset *set = NULL;
	kn_err err = {0};
	if (kn_taskset_load_file(&set, path, NULL, &err) != 0)
		fail_msg("%s", err.msg);
	assert_int_equal(set->n_tasks, want_tasks);
	size_t with_site = 0, pages = 0;
	for (size_t i = 0; i < set->n_tasks; i++) {
		const kn_task *t = &set->tasks[i];
		char site[256];
		kn_task_site(site, sizeof site, t);
		with_site += site[0] != '\0';
		for (size_t k = 0; k < t->n_keynodes; k++) {
			const char *url = t->keynodes[k].ref_url;
			if (!url || !*url)
				continue;
			pages++;
			if (!kn_task_own_site(t, url))
				fail_msg("%s: task %s: its page %s is not its own site", path, t->id, url);
		}
		if (kn_task_own_site(t, "https://unrelated.invalid/"))
			fail_msg("%s: task %s: an unrelated host is its own site", path, t->id);
	}
	assert_int_equal(with_site, want_tasks);
	assert_int_equal(pages, kn_taskset_count_keynodes(set)); /* every key node has its page */
	kn_taskset_free(set);
}

static void test_published(void **state)
{
	(void)state;
	check_published(M2W "mind2web-live_test_20241024.json", 104);
	check_published(M2W "example_130.json", 130);
	/* test task 0 (GameStop): its site, and the hosts its agent might go to */
	kn_taskset *set = NULL;
	kn_err err = {0};
	assert_int_equal(kn_taskset_load_file(&set, M2W "mind2web-live_test_20241024.json", NULL, &err), 0);
	const kn_task *t = kn_taskset_find(set, "0");
	assert_non_null(t);
	assert_null(t->start_url);
	char site[64];
	kn_task_site(site, sizeof site, t);
	assert_string_equal(site, "gamestop.com");
	assert_true(kn_task_own_site(t, "https://www.gamestop.com/"));
	assert_true(kn_task_own_site(t, "https://www.gamestop.com/search/?store=2630"));
	assert_false(kn_task_own_site(t, "https://www.google.com/search?q=gamestop"));
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
		cmocka_unit_test(test_page_sites),
		cmocka_unit_test(test_sites_order),
		cmocka_unit_test(test_published),
		cmocka_unit_test(test_eval_unreachable),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
