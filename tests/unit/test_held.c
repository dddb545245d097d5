/* test_held.c — replay validation of a guarded workflow (services/replay/held.h): a recorded held
 * request met by the same request held again; a held one whose quantity changed names the field
 * (and never quotes a secret); one not held at all (sent, or not sent) is reported by its spec. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "held.h"
#include "keynode/workflow.h"

static const char wf[] =
	"task: t\nsteps:\n  - goto: 'http://127.0.0.1:1/c.html'\n"
	"  - click: { selector: '#buy' }\n"
	"    after: { held: { method: POST, url: { include: '127.0.0.1:1/api/orders' },\n"
	"             body: { item: { exact: lamp }, qty: { exact: '2' } } } }\n"
	"  - click: { selector: '#next' }\n";

static kn_taskset *load(void)
{
	kn_taskset *set = NULL;
	kn_err err = {0};
	assert_int_equal(kn_workflow_load_buffer(&set, wf, strlen(wf), "w.yaml", &err), 0);
	return set;
}

static void test_met(void **state)
{
	(void)state;
	kn_taskset *set = load();
	kn_held_check h;
	assert_int_equal(kn_held_check_init(&h, &set->tasks[0]), 0);
	kn_field f[] = {{"item", "lamp"}, {"qty", "2"}, {"card.number", "4111111111111111"}};
	kn_request sent = {.method = "POST", .url = "http://127.0.0.1:1/api/orders", .fields = f, .n_fields = 3};
	char why[300] = "";
	kn_held_check_seen(&h, &sent); /* sent, not held: not the recorded one */
	assert_int_equal(kn_held_check_failed(&h, why, sizeof why), 2);
	assert_non_null(strstr(why, "the recorded request was not held: POST include '127.0.0.1:1/api/orders' +2 fields"));
	sent.held = 1;
	kn_held_check_seen(&h, &sent);
	assert_int_equal(kn_held_check_failed(&h, why, sizeof why), 0);
	kn_held_check_clear(&h);
	kn_taskset_free(set);
}

static void test_differs(void **state)
{
	(void)state;
	kn_taskset *set = load();
	kn_held_check h;
	assert_int_equal(kn_held_check_init(&h, &set->tasks[0]), 0);
	kn_field other[] = {{"path", "/x"}};
	kn_request beacon = {.method = "POST", .url = "http://127.0.0.1:1/api/beacon", .fields = other, .n_fields = 1, .held = 1};
	kn_held_check_seen(&h, &beacon); /* another held request: no difference to report */
	kn_field f[] = {{"item", "lamp"}, {"qty", "3"}};
	kn_request q = {.method = "POST", .url = "http://127.0.0.1:1/api/orders?x=1", .fields = f, .n_fields = 2, .held = 1};
	kn_held_check_seen(&h, &q);
	char why[300] = "";
	assert_int_equal(kn_held_check_failed(&h, why, sizeof why), 2);
	assert_string_equal(why, "the request held now differs from the recorded one: field 'qty' is '3', recorded exact '2'");
	kn_held_check_clear(&h);
	/* a field gone, and a secret never quoted */
	assert_int_equal(kn_held_check_init(&h, &set->tasks[0]), 0);
	kn_field g[] = {{"qty", "2"}};
	q.fields = g;
	q.n_fields = 1;
	kn_held_check_seen(&h, &q);
	assert_int_equal(kn_held_check_failed(&h, why, sizeof why), 2);
	assert_non_null(strstr(why, "field 'item' is missing (recorded 'lamp')"));
	kn_held_check_clear(&h);
	assert_int_equal(kn_held_check_init(&h, &set->tasks[0]), 0);
	kn_field c[] = {{"item", "4111 1111 1111 1111"}, {"qty", "2"}};
	q.fields = c;
	q.n_fields = 2;
	kn_held_check_seen(&h, &q);
	assert_int_equal(kn_held_check_failed(&h, why, sizeof why), 2);
	assert_null(strstr(why, "4111"));
	assert_non_null(strstr(why, "field 'item' is '[redacted]'"));
	kn_held_check_clear(&h);
	kn_taskset_free(set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_met), cmocka_unit_test(test_differs)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
