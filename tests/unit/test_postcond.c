/* test_postcond.c — what a replay step waits for (services/replay): a recorded postcondition URL
 * agrees with the URL reached when path, fragment and query parameter names are the same
 * (kn_replay_url_agrees: another host, parameter order and values aside), and the wait bounds
 * resolve to their documented defaults, 0 meaning the default and a negative one "off"
 * (kn_replay_waits_resolve). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "replay_internal.h"

static void test_url_agrees(void **state)
{
	(void)state;
	assert_true(kn_replay_url_agrees("http://127.0.0.1:8100/shop/cart.html?size=L&item=3",
	                                 "http://shop.example:9/shop/cart.html?item=4&size=M"));
	assert_true(kn_replay_url_agrees("http://a/x#top", "https://b/x#top"));
	assert_false(kn_replay_url_agrees("http://a/shop/cart.html", "http://a/shop/item.html"));
	assert_false(kn_replay_url_agrees("http://a/cart?size=L", "http://a/cart?colour=L"));
	assert_false(kn_replay_url_agrees("http://a/cart?size=L", "http://a/cart"));
	assert_false(kn_replay_url_agrees("http://a/x#top", "http://a/x#end"));
	assert_true(kn_replay_url_agrees("", ""));
	assert_true(kn_replay_url_agrees("not a url", "not a url"));
	/* more parameters than the form keeps, and an enormous URL: no overflow, a stable answer */
	char big[5000];
	memset(big, 'a', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	memcpy(big, "http://h/p?", 11);
	for (size_t i = 11; i + 3 < sizeof big; i += 3) /* the last byte stays the terminator */
		big[i] = '&', big[i + 1] = 'k', big[i + 2] = '=';
	assert_true(kn_replay_url_agrees(big, big));
}

static void test_waits_resolve(void **state)
{
	(void)state;
	kn_replay_waits w = kn_replay_waits_resolve(NULL);
	assert_int_equal(w.settle_ms, 10000);
	assert_int_equal(w.quiet_ms, 100);
	assert_int_equal(w.quiet_max_ms, 1000);
	assert_int_equal(w.consequence_ms, 500);
	assert_int_equal(w.script_quiet_ms, 250);
	assert_int_equal(w.network_max_ms, 1000);
	assert_int_equal(w.postcondition_ms, 5000);
	assert_int_equal(w.grace_ms, 2000);
	kn_replay_waits in = {.quiet_ms = 40, .consequence_ms = -1, .grace_ms = 7};
	w = kn_replay_waits_resolve(&in);
	assert_int_equal(w.quiet_ms, 40);
	assert_int_equal(w.consequence_ms, 0); /* off */
	assert_int_equal(w.grace_ms, 7);
	assert_int_equal(w.settle_ms, 10000);
}

/* Every entry of the wait table (wait_table.h) sets its own field of kn_replay_opts, which is how
 * keynode.yaml's replay: reaches the replayer; a step's element is waited for 5 s by default. */
static void test_wait_table(void **state)
{
	(void)state;
	kn_replay_opts o = {0};
	int *seen[KN_RWAIT__COUNT];
	for (int i = 0; i < KN_RWAIT__COUNT; i++) {
		assert_non_null(kn_replay_wait_table[i].key);
		seen[i] = kn_replay_opts_wait(&o, (kn_replay_wait_id)i);
		assert_non_null(seen[i]);
		for (int j = 0; j < i; j++)
			assert_ptr_not_equal(seen[i], seen[j]);
		*seen[i] = 100 + i;
	}
	assert_int_equal(o.element_timeout_ms, 100 + KN_RWAIT_ELEMENT);
	assert_int_equal(o.command_timeout_ms, 100 + KN_RWAIT_COMMAND);
	assert_int_equal(o.wait.grace_ms, 100 + KN_RWAIT_GRACE);
	assert_int_equal(kn_replay_element_timeout(&o), 100 + KN_RWAIT_ELEMENT);
	o.element_timeout_ms = 0;
	assert_int_equal(kn_replay_element_timeout(&o), 5000);
	kn_replay_waits w = kn_replay_waits_resolve(NULL);
	assert_int_equal(w.postcondition_ms, kn_replay_wait_table[KN_RWAIT_POSTCONDITION].def_ms);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_url_agrees),
		cmocka_unit_test(test_waits_resolve),
		cmocka_unit_test(test_wait_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
