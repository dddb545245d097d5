/* test_config.c — keynode.yaml (services/config): deploy/keynode.example.yaml loads with every
 * value checked, an empty file gives every default, the environment overrides the database URL and
 * the API token, and every error path fails with the exact "file:line:col: key.path: ..." message
 * and code. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kn_test.h"
#include "config.h"
#include "keynode/guard.h"
#include "keynode/redact.h"

#define EXAMPLE KN_TESTS_DIR "/../deploy/keynode.example.yaml"

static kn_config *load(const char *text)
{
	kn_config *c = NULL;
	kn_err err = { 0 };
	int rc = kn_config_load_buffer(&c, text, strlen(text), "k.yaml", &err);
	if (rc != 0)
		print_error("unexpected error %d: %s\n", rc, err.msg);
	assert_int_equal(rc, 0);
	assert_non_null(c);
	return c;
}

/* text must fail with code and a message equal to want. */
static void fails(const char *text, int code, const char *want)
{
	kn_config *c = (kn_config *)&c;
	kn_err err = { 0 };
	int rc = kn_config_load_buffer(&c, text, strlen(text), "k.yaml", &err);
	if (rc != code || strcmp(err.msg, want) != 0)
		print_error("for:\n%s\ngot %d '%s'\nwant %d '%s'\n", text, rc, err.msg, code, want);
	assert_int_equal(rc, code);
	assert_string_equal(err.msg, want);
	assert_int_equal(err.code, code);
	assert_null(c);
}

static void test_example(void **state)
{
	(void)state;
	unsetenv("KEYNODE_DATABASE_URL");
	unsetenv("KEYNODE_API_TOKEN");
	kn_config *c = NULL;
	kn_err err = { 0 };
	int rc = kn_config_load(&c, EXAMPLE, &err);
	if (rc)
		print_error("%s\n", err.msg);
	assert_int_equal(rc, 0);
	assert_string_equal(c->database_url, "postgresql://keynode@127.0.0.1:5432/keynode");
	assert_string_equal(c->http_listen, "127.0.0.1:8080");
	assert_string_equal(c->http_token, "change-me");
	assert_int_equal(c->n_browsers, 2);
	assert_string_equal(c->browsers[0], "http://127.0.0.1:9222");
	assert_string_equal(c->browsers[1], "http://127.0.0.1:9223");
	assert_int_equal(c->semantic.backend, KN_CONFIG_LLM);
	assert_true(c->semantic.backend_set);
	assert_double_equal(c->semantic.threshold, 0.8, 1e-12);
	assert_true(c->semantic.threshold_set);
	assert_string_equal(c->semantic.llm.url, "http://127.0.0.1:8081");
	assert_string_equal(c->semantic.llm.model, "qwen2.5-7b-instruct");
	assert_string_equal(c->semantic.llm.api_key_env, "KEYNODE_LLM_KEY");
	assert_int_equal(c->semantic.llm.timeout_ms, 20000);
	assert_true(c->semantic.llm.timeout_set);
	assert_double_equal(c->semantic.llm.price_prompt, 0.15, 1e-12);
	assert_double_equal(c->semantic.llm.price_completion, 0.6, 1e-12);
	assert_true(c->semantic.llm.price_set);
	assert_string_equal(c->verdict_cache, "/var/cache/keynode/verdicts.jsonl");
	assert_string_equal(c->region, "eu-west");
	assert_int_equal(c->n_alerts, 2);
	assert_int_equal(c->alerts[0].type, KN_ALERT_WEBHOOK);
	assert_string_equal(c->alerts[0].url, "http://127.0.0.1:9000/hooks/keynode");
	assert_int_equal(c->alerts[1].type, KN_ALERT_SLACK);
	assert_string_equal(c->alerts[1].url, "https://hooks.slack.com/services/T000/B000/XXXX");
	assert_int_equal(c->n_schedules, 2);
	assert_string_equal(c->schedules[0].name, "nightly");
	assert_string_equal(c->schedules[0].cron, "0 3 * * *");
	assert_string_equal(c->schedules[0].tasks, "all");
	assert_string_equal(c->schedules[1].name, "hourly-shop");
	assert_string_equal(c->schedules[1].cron, "15 * * * *");
	assert_string_equal(c->schedules[1].tasks, "shop");
	assert_int_equal(c->health_broken_after, 3);
	kn_config_free(c);
}

static void check_defaults(const kn_config *c)
{
	assert_null(c->database_url);
	assert_string_equal(c->http_listen, "127.0.0.1:8080");
	assert_null(c->http_token);
	assert_int_equal(c->n_browsers, 0);
	assert_int_equal(c->semantic.backend, KN_CONFIG_OFFLINE);
	assert_false(c->semantic.backend_set);
	assert_double_equal(c->semantic.threshold, 0.7, 1e-12);
	assert_false(c->semantic.threshold_set);
	assert_null(c->semantic.llm.url);
	assert_null(c->semantic.llm.model);
	assert_null(c->semantic.llm.api_key_env);
	assert_int_equal(c->semantic.llm.timeout_ms, 30000);
	assert_false(c->semantic.llm.timeout_set);
	assert_false(c->semantic.llm.price_set);
	assert_null(c->verdict_cache);
	assert_null(c->region);
	assert_int_equal(c->n_alerts, 0);
	assert_int_equal(c->n_schedules, 0);
	assert_int_equal(c->health_broken_after, 2);
}

static void test_defaults(void **state)
{
	(void)state;
	unsetenv("KEYNODE_DATABASE_URL");
	unsetenv("KEYNODE_API_TOKEN");
	static const char *const empties[] = {
		"", "# only a comment\n", "---\n", "~\n", "{}\n",
		"database:\nhttp: {}\nbrowsers: []\nsemantic: {llm: ~}\nalerts:\nschedules: []\nhealth: {}\n",
	};
	for (size_t i = 0; i < sizeof empties / sizeof *empties; i++) {
		kn_config *c = load(empties[i]);
		check_defaults(c);
		kn_config_free(c);
	}
	kn_config *c = NULL;
	assert_int_equal(kn_config_new(&c, NULL), 0);
	check_defaults(c);
	kn_config_free(c);
	kn_config_free(NULL);

	/* one price for both kinds of token; a schedule without tasks runs all */
	c = load("semantic: {llm: {price: 0.5}}\nschedules: [{name: a, cron: '* * * * *'}]\n");
	assert_double_equal(c->semantic.llm.price_prompt, 0.5, 1e-12);
	assert_double_equal(c->semantic.llm.price_completion, 0.5, 1e-12);
	assert_string_equal(c->schedules[0].tasks, "all");
	assert_int_equal(c->schedules[0].n_refs, 0);
	kn_config_free(c);
	/* tasks as a list of task references */
	c = load("schedules: [{name: a, cron: '@hourly', tasks: [shop-1, 'forum:f-2']}]\n");
	assert_int_equal(c->schedules[0].n_refs, 2);
	assert_string_equal(c->schedules[0].refs[0], "shop-1");
	assert_string_equal(c->schedules[0].refs[1], "forum:f-2");
	assert_string_equal(c->schedules[0].tasks, "shop-1, forum:f-2");
	kn_config_free(c);
	c = load("semantic: {threshold: 1, llm: {price: {completion: 2}}}\n");
	assert_double_equal(c->semantic.threshold, 1.0, 1e-12);
	assert_double_equal(c->semantic.llm.price_prompt, 0, 1e-12);
	assert_double_equal(c->semantic.llm.price_completion, 2, 1e-12);
	kn_config_free(c);
}

static void test_env(void **state)
{
	(void)state;
	setenv("KEYNODE_DATABASE_URL", "postgresql://env@db/kn", 1);
	setenv("KEYNODE_API_TOKEN", "env-token", 1);
	kn_config *c = load("database: {url: 'postgresql://file/kn'}\nhttp: {token: file}\n");
	assert_string_equal(c->database_url, "postgresql://env@db/kn");
	assert_string_equal(c->http_token, "env-token");
	kn_config_free(c);
	c = load("");
	assert_string_equal(c->database_url, "postgresql://env@db/kn");
	assert_string_equal(c->http_token, "env-token");
	kn_config_free(c);
	assert_int_equal(kn_config_new(&c, NULL), 0);
	assert_string_equal(c->http_token, "env-token");
	kn_config_free(c);
	/* an empty variable does not override */
	setenv("KEYNODE_DATABASE_URL", "", 1);
	unsetenv("KEYNODE_API_TOKEN");
	c = load("database: {url: 'postgresql://file/kn'}\nhttp: {token: file}\n");
	assert_string_equal(c->database_url, "postgresql://file/kn");
	assert_string_equal(c->http_token, "file");
	kn_config_free(c);
	unsetenv("KEYNODE_DATABASE_URL");
	/* the LLM key is never read by the loader: there is no key for it */
	fails("semantic: {llm: {api_key: sk-x}}\n", KN_EINVAL,
	      "k.yaml:1:18: semantic.llm.api_key: unknown key");
}

static void test_errors_keys(void **state)
{
	(void)state;
	fails("databse: {url: x}\n", KN_EINVAL, "k.yaml:1:1: databse: unknown key");
	fails("http:\n  lsten: x\n", KN_EINVAL, "k.yaml:2:3: http.lsten: unknown key");
	fails("http: {listen: a, listen: b}\n", KN_EINVAL, "k.yaml:1:19: http.listen: repeated key");
	fails("semantic: {}\nsemantic: {}\n", KN_EINVAL, "k.yaml:2:1: semantic: repeated key");
	fails("semantic:\n  llm:\n    modle: m\n", KN_EINVAL,
	      "k.yaml:3:5: semantic.llm.modle: unknown key");
	fails("semantic: {llm: {price: {prompt: 1, cached: 2}}}\n", KN_EINVAL,
	      "k.yaml:1:37: semantic.llm.price.cached: unknown key");
	fails("alerts:\n  - {type: slack, url: u, channel: c}\n", KN_EINVAL,
	      "k.yaml:2:27: alerts[0].channel: unknown key");
	fails("schedules: [{name: a, cron: b, every: c}]\n", KN_EINVAL,
	      "k.yaml:1:32: schedules[0].every: unknown key");
	fails("health: {broken: 1}\n", KN_EINVAL, "k.yaml:1:10: health.broken: unknown key");
	fails("? [a]\n: b\n", KN_EINVAL, "k.yaml:1:3: a mapping key must be a plain string");
}

static void test_errors_types(void **state)
{
	(void)state;
	fails("- a\n", KN_EINVAL, "k.yaml:1:1: top level: expected a mapping");
	fails("database: x\n", KN_EINVAL, "k.yaml:1:11: database: expected a mapping");
	fails("database: {url: [a]}\n", KN_EINVAL, "k.yaml:1:17: database.url: expected a string");
	fails("database: {url: ''}\n", KN_EINVAL, "k.yaml:1:17: database.url: must not be empty");
	fails("http: {listen: {a: b}}\n", KN_EINVAL, "k.yaml:1:16: http.listen: expected a string");
	fails("http: {token: \"a\\0b\"}\n", KN_EINVAL,
	      "k.yaml:1:15: http.token: contains a NUL character");
	fails("browsers: http://x\n", KN_EINVAL, "k.yaml:1:11: browsers: expected a sequence");
	fails("browsers: [a, {b: c}]\n", KN_EINVAL, "k.yaml:1:15: browsers[1]: expected a string");
	fails("browsers: [a, ~]\n", KN_EINVAL, "k.yaml:1:15: browsers[1]: expected a string");
	fails("semantic: [offline]\n", KN_EINVAL, "k.yaml:1:11: semantic: expected a mapping");
	fails("semantic: {backend: gpt}\n", KN_EINVAL,
	      "k.yaml:1:21: semantic.backend: expected offline or llm");
	fails("semantic: {backend: [llm]}\n", KN_EINVAL,
	      "k.yaml:1:21: semantic.backend: expected offline or llm");
	static const char *const thresholds[] = { "0", "1.5", "-0.1", "'0.8'", "high", "nan",
		                                  "inf", "[0.8]", "0.8x" };
	for (size_t i = 0; i < sizeof thresholds / sizeof *thresholds; i++) {
		char text[64];
		snprintf(text, sizeof text, "semantic:\n  threshold: %s\n", thresholds[i]);
		fails(text, KN_EINVAL, "k.yaml:2:14: semantic.threshold: expected a number in (0, 1]");
	}
	fails("semantic: {llm: x}\n", KN_EINVAL, "k.yaml:1:17: semantic.llm: expected a mapping");
	fails("semantic: {llm: {url: ''}}\n", KN_EINVAL,
	      "k.yaml:1:23: semantic.llm.url: must not be empty");
	fails("semantic: {llm: {api_key_env: [A]}}\n", KN_EINVAL,
	      "k.yaml:1:31: semantic.llm.api_key_env: expected a string");
	fails("semantic: {llm: {timeout_ms: 0}}\n", KN_EINVAL,
	      "k.yaml:1:30: semantic.llm.timeout_ms: expected an integer in [1, 3600000]");
	fails("semantic: {llm: {timeout_ms: 1.5}}\n", KN_EINVAL,
	      "k.yaml:1:30: semantic.llm.timeout_ms: expected an integer in [1, 3600000]");
	fails("semantic: {llm: {timeout_ms: '100'}}\n", KN_EINVAL,
	      "k.yaml:1:30: semantic.llm.timeout_ms: expected an integer in [1, 3600000]");
	fails("semantic: {llm: {price: -1}}\n", KN_EINVAL,
	      "k.yaml:1:25: semantic.llm.price: expected USD per 1000 tokens, a number in [0, 1000000)");
	fails("semantic: {llm: {price: {prompt: x}}}\n", KN_EINVAL,
	      "k.yaml:1:34: semantic.llm.price.prompt: expected USD per 1000 tokens, a number in [0, 1000000)");
	fails("verdict_cache: [off]\n", KN_EINVAL, "k.yaml:1:16: verdict_cache: expected a string");
	fails("alerts: {type: slack}\n", KN_EINVAL, "k.yaml:1:9: alerts: expected a sequence");
	fails("alerts: [~]\n", KN_EINVAL, "k.yaml:1:10: alerts[0]: expected a mapping");
	fails("alerts: [slack]\n", KN_EINVAL, "k.yaml:1:10: alerts[0]: expected a mapping");
	fails("alerts:\n  - {type: email, url: u}\n", KN_EINVAL,
	      "k.yaml:2:12: alerts[0].type: expected webhook or slack");
	fails("alerts:\n  - {type: {a: b}, url: u}\n", KN_EINVAL,
	      "k.yaml:2:12: alerts[0].type: expected webhook or slack");
	fails("alerts:\n  - {type: slack}\n", KN_EINVAL, "k.yaml:2:5: alerts[0]: missing key url");
	fails("alerts:\n  - {url: u}\n", KN_EINVAL, "k.yaml:2:5: alerts[0]: missing key type");
	fails("alerts: [{type: webhook, url: [u]}]\n", KN_EINVAL,
	      "k.yaml:1:31: alerts[0].url: expected a string");
	fails("schedules: [{cron: x}]\n", KN_EINVAL, "k.yaml:1:13: schedules[0]: missing key name");
	fails("schedules: [{name: x}]\n", KN_EINVAL, "k.yaml:1:13: schedules[0]: missing key cron");
	fails("schedules: [{name: x, cron: ''}]\n", KN_EINVAL,
	      "k.yaml:1:29: schedules[0].cron: must not be empty");
	fails("schedules: [{name: x, cron: '0 25 * * *'}]\n", KN_EINVAL,
	      "k.yaml:1:29: schedules[0].cron: field 2 (hour): 25 out of range 0-23");
	fails("schedules: [{name: x, cron: a}]\n", KN_EINVAL,
	      "k.yaml:1:29: schedules[0].cron: expected 5 fields (minute hour day-of-month month "
	      "day-of-week), got 1");
	fails("schedules: [{name: x, cron: '@every 5m'}]\n", KN_EINVAL,
	      "k.yaml:1:29: schedules[0].cron: unknown macro '@every' (expected @yearly, @annually, "
	      "@monthly, @weekly, @daily, @midnight or @hourly, alone)");
	fails("schedules: [{name: x, cron: '@reboot'}]\n", KN_EUNSUPPORTED,
	      "k.yaml:1:29: schedules[0].cron: @reboot is not a schedule");
	fails("schedules: [{name: x, cron: '@daily', tasks: []}]\n", KN_EINVAL,
	      "k.yaml:1:46: schedules[0].tasks: expected at least one task reference");
	fails("schedules: [{name: x, cron: '@daily', tasks: [a, [t]]}]\n", KN_EINVAL,
	      "k.yaml:1:50: schedules[0].tasks[1]: expected a string");
	fails("schedules: [{name: x, cron: '@daily', tasks: {a: b}}]\n", KN_EINVAL,
	      "k.yaml:1:46: schedules[0].tasks: expected a string");
	fails("schedules:\n  - {name: x, cron: '* * * * *'}\n  - {name: x, cron: '@daily'}\n", KN_EINVAL,
	      "k.yaml:3:12: schedules[1].name: schedule name 'x' is used twice");
	fails("health: {broken_after: 0}\n", KN_EINVAL,
	      "k.yaml:1:24: health.broken_after: expected an integer in [1, 1000]");
	fails("health: {broken_after: two}\n", KN_EINVAL,
	      "k.yaml:1:24: health.broken_after: expected an integer in [1, 1000]");
	fails("health: {broken_after: 99999999999999999999}\n", KN_EINVAL,
	      "k.yaml:1:24: health.broken_after: expected an integer in [1, 1000]");
}

static void test_errors_document(void **state)
{
	(void)state;
	fails("http: {listen: a\n", KN_EINVAL,
	      "k.yaml:2:1: invalid YAML: did not find expected ',' or '}' while parsing a flow mapping "
	      "started at 1:7");
	fails("a: b\nc\nd: e\n", KN_EINVAL,
	      "k.yaml:3:1: invalid YAML: could not find expected ':' while scanning a simple key "
	      "started at 2:1");
	fails("http:\n\tlisten: a\n", KN_EINVAL,
	      "k.yaml:2:1: invalid YAML: found character that cannot start any token while "
	      "scanning for the next token (tabs cannot indent YAML; use spaces)");
	fails("{}\n---\n{}\n", KN_EINVAL, "k.yaml:2:1: a config file holds one YAML document");
	fails("http: &h {listen: a}\n", KN_EUNSUPPORTED,
	      "k.yaml:1:7: anchors are not supported in a config file");
	fails("x: &a b\nhttp: {listen: *a}\n", KN_EUNSUPPORTED,
	      "k.yaml:1:4: anchors are not supported in a config file");
	fails("http: {listen: *a}\n", KN_EUNSUPPORTED,
	      "k.yaml:1:16: aliases are not supported in a config file");
	fails("http: !!map {listen: a}\n", KN_EUNSUPPORTED,
	      "k.yaml:1:7: tags are not supported in a config file");
	fails("semantic: {threshold: !!float 0.5}\n", KN_EUNSUPPORTED,
	      "k.yaml:1:23: tags are not supported in a config file");
	fails("http: {listen: \"\xff\"}\n", KN_EINVAL,
	      "k.yaml:1:17: invalid text: invalid leading UTF-8 octet (0xFF); a config file is UTF-8");
}

static void test_limits(void **state)
{
	(void)state;
	/* nesting: the 17th level fails, at its own position */
	char deep[128] = "a: ";
	for (int i = 0; i < 17; i++)
		strcat(deep, "[");
	fails(deep, KN_ELIMIT, "k.yaml:1:19: nested deeper than 16 levels");

	/* node count */
	size_t n = 30000, len = 0;
	char *big = malloc(n * 3 + 32);
	assert_non_null(big);
	len += (size_t)sprintf(big, "browsers: [");
	for (size_t i = 0; i < n; i++)
		len += (size_t)sprintf(big + len, "a,");
	strcpy(big + len, "a]\n");
	fails(big, KN_ELIMIT, "k.yaml:1:40006: more than 20000 YAML nodes");
	free(big);

	/* size */
	size_t sz = KN_CONFIG_MAX_BYTES + 1;
	char *huge = malloc(sz);
	assert_non_null(huge);
	memset(huge, '#', sz);
	kn_config *c = (kn_config *)&c;
	kn_err err = { 0 };
	assert_int_equal(kn_config_load_buffer(&c, huge, sz, "k.yaml", &err), KN_ELIMIT);
	assert_string_equal(err.msg, "k.yaml:1:1: larger than 1048576 bytes");
	assert_null(c);
	free(huge);

	/* a file that is not there */
	c = (kn_config *)&c;
	assert_int_equal(kn_config_load(&c, "/nonexistent/keynode.yaml", &err), KN_EIO);
	assert_string_equal(err.msg, "/nonexistent/keynode.yaml: cannot open: No such file or directory");
	assert_null(c);
}

/* agents: {NAME: COMMAND} (config_agents.c): loaded in file order; every malformed entry named */
static void test_agents(void **state)
{
	(void)state;
	kn_config *c = load("agents:\n  pw: \"node agent.mjs --fast\"\n  my.agent_2: python3 a.py\n");
	assert_int_equal(c->n_agents, 2);
	assert_string_equal(c->agents[0].name, "pw");
	assert_string_equal(c->agents[0].command, "node agent.mjs --fast");
	assert_string_equal(kn_config_agent_command(c, "my.agent_2"), "python3 a.py");
	assert_null(kn_config_agent_command(c, "nobody"));
	kn_config_free(c);
	c = load("agents:\n");
	assert_int_equal(c->n_agents, 0);
	kn_config_free(c);
	fails("agents: [a]\n", KN_EINVAL, "k.yaml:1:9: agents: expected a mapping such as {pw: \"node agent.mjs\"}");
	fails("agents:\n  \"node x.mjs\": \"true\"\n", KN_EINVAL,
	      "k.yaml:2:3: agents: a name is 1 to 64 letters, digits, '-', '_' or '.' (not first)");
	fails("agents: {.hidden: x}\n", KN_EINVAL,
	      "k.yaml:1:10: agents: a name is 1 to 64 letters, digits, '-', '_' or '.' (not first)");
	fails("agents: {a: x, a: y}\n", KN_EINVAL, "k.yaml:1:16: agents.a: repeated key");
	fails("agents: {a: [x]}\n", KN_EINVAL, "k.yaml:1:13: agents.a: expected the agent's command line (a string)");
	fails("agents: {a: }\n", KN_EINVAL, "k.yaml:1:13: agents.a: expected the agent's command line (a string)");
	fails("agents: {a: ''}\n", KN_EINVAL, "k.yaml:1:13: agents.a: a command of 1 to 4096 bytes without NUL");
	fails("agents: {a: \"x\\ny\"}\n", KN_EINVAL, "k.yaml:1:13: agents.a: control character in the command");
	fails("agents: {a: \"x\\0y\"}\n", KN_EINVAL, "k.yaml:1:13: agents.a: a command of 1 to 4096 bytes without NUL");
}

/* trace: {mode, dir, keep_days, max_mb} (config_trace.c): values, defaults left unset, errors named */
static void test_trace(void **state)
{
	(void)state;
	kn_config *c = load("trace:\n  mode: failures\n  dir: /srv/traces\n  keep_days: 7\n  max_mb: 20\n");
	assert_int_equal(c->trace.mode, 2);
	assert_int_equal(c->trace.mode_set, 1);
	assert_string_equal(c->trace.dir, "/srv/traces");
	assert_int_equal(c->trace.keep_days, 7);
	assert_int_equal(c->trace.max_mb, 20);
	kn_config_free(c);
	c = load("trace: {mode: on}\n");
	assert_int_equal(c->trace.mode, 1);
	assert_null(c->trace.dir);
	assert_int_equal(c->trace.keep_days, 0); /* not set: the users' default (14) */
	kn_config_free(c);
	c = load("trace:\n");
	assert_int_equal(c->trace.mode_set, 0);
	kn_config_free(c);
	fails("trace: {mode: yes}\n", KN_EINVAL, "k.yaml:1:15: trace.mode: expected on, off or failures");
	fails("trace: {mode: [on]}\n", KN_EINVAL, "k.yaml:1:15: trace.mode: expected on, off or failures");
	fails("trace: {keep_days: 0}\n", KN_EINVAL, "k.yaml:1:20: trace.keep_days: expected an integer in [1, 36500]");
	fails("trace: {max_mb: 1e3}\n", KN_EINVAL, "k.yaml:1:17: trace.max_mb: expected an integer in [1, 100000]");
	fails("trace: {dir: ''}\n", KN_EINVAL, "k.yaml:1:14: trace.dir: must not be empty");
	fails("trace: {size: 1}\n", KN_EINVAL, "k.yaml:1:9: trace.size: unknown key");
	fails("trace: [on]\n", KN_EINVAL, "k.yaml:1:8: trace: expected a mapping");
}

/* retention: {agent_events_days, replay_events_days, screenshots_days} (config_retention.c): values,
 * unset = 0 (kept for ever), errors named */
static void test_retention(void **state)
{
	(void)state;
	kn_config *c = load("retention:\n  agent_events_days: 90\n  replay_events_days: 30\n  screenshots_days: 7\n");
	assert_int_equal(c->retention.agent_events_days, 90);
	assert_int_equal(c->retention.replay_events_days, 30);
	assert_int_equal(c->retention.screenshots_days, 7);
	kn_config_free(c);
	c = load("retention: {replay_events_days: 36500}\n");
	assert_int_equal(c->retention.agent_events_days, 0); /* not set: kept for ever */
	assert_int_equal(c->retention.replay_events_days, 36500);
	assert_int_equal(c->retention.screenshots_days, 0);
	kn_config_free(c);
	c = load("retention:\n");
	assert_int_equal(c->retention.agent_events_days + c->retention.replay_events_days + c->retention.screenshots_days, 0);
	kn_config_free(c);
	fails("retention: {agent_events_days: 0}\n", KN_EINVAL,
	      "k.yaml:1:32: retention.agent_events_days: expected an integer in [1, 36500]");
	fails("retention: {screenshots_days: '7'}\n", KN_EINVAL,
	      "k.yaml:1:31: retention.screenshots_days: expected an integer in [1, 36500]");
	fails("retention: {traces_days: 7}\n", KN_EINVAL, "k.yaml:1:13: retention.traces_days: unknown key");
	fails("retention: [7]\n", KN_EINVAL, "k.yaml:1:12: retention: expected a mapping");
}

/* replay: the waits of replay validation (config_replay.c): values, 0 = off (-1), unset = 0, errors named */
static void test_replay(void **state)
{
	(void)state;
	kn_config *c = load("replay:\n  element_timeout_ms: 7000\n  quiet_ms: 0\n  grace_ms: 1500\n");
	assert_int_equal(c->replay.ms[KN_RWAIT_ELEMENT], 7000);
	assert_int_equal(c->replay.ms[KN_RWAIT_QUIET], -1); /* set to 0: that wait is off */
	assert_int_equal(c->replay.ms[KN_RWAIT_GRACE], 1500);
	assert_int_equal(c->replay.ms[KN_RWAIT_SETTLE], 0); /* not set: the default */
	assert_int_equal(c->replay.ms[KN_RWAIT_CONSEQUENCE], 0);
	kn_config_free(c);
	kn_err err = {0}; /* the example documents every key with its default */
	assert_int_equal(kn_config_load(&c, EXAMPLE, &err), 0);
	assert_int_equal(c->replay.ms[KN_RWAIT_SETTLE], 10000);
	assert_int_equal(c->replay.ms[KN_RWAIT_CONSEQUENCE], 500);
	assert_int_equal(c->replay.ms[KN_RWAIT_POSTCONDITION], 5000);
	assert_int_equal(c->replay.ms[KN_RWAIT_COMMAND], 30000);
	for (int i = 0; i < KN_RWAIT__COUNT; i++) /* as the table has them (wait_table.h) */
		if (kn_replay_wait_table[i].def_ms)
			assert_int_equal(c->replay.ms[i], kn_replay_wait_table[i].def_ms);
	kn_config_free(c);
	c = load("replay: {command_timeout_ms: 3000}\n");
	assert_int_equal(c->replay.ms[KN_RWAIT_COMMAND], 3000);
	kn_config_free(c);
	fails("replay: {command_timeout_ms: 0}\n", KN_EINVAL,
	      "k.yaml:1:30: replay.command_timeout_ms: expected an integer in [1, 600000]");
	fails("replay: {settle_ms: 0}\n", KN_EINVAL, "k.yaml:1:21: replay.settle_ms: expected an integer in [1, 600000]");
	fails("replay: {quiet_ms: -5}\n", KN_EINVAL, "k.yaml:1:20: replay.quiet_ms: expected an integer in [0, 600000]");
	fails("replay: {grace: 1}\n", KN_EINVAL, "k.yaml:1:10: replay.grace: unknown key");
	fails("replay: 5\n", KN_EINVAL, "k.yaml:1:9: replay: expected a mapping");
}

/* guard:, end_on_guard:, redact: (config_guard.c) */
static void test_guard(void **state)
{
	(void)state;
	kn_config *c = load("guard:\n  - { method: POST, url: { include: /api/orders }, respond: { status: 403, body: x } }\n"
	                    "  - { body: { qty: { exact: '2' } }, respond: error }\nend_on_guard: false\n"
	                    "redact: { fields: [unfiltered], headers: [x-sid] }\n");
	assert_non_null(c->guard);
	assert_int_equal(c->guard->n, 2);
	assert_int_equal(c->guard->rules[0].status, 403);
	assert_int_equal(c->guard->rules[0].line, 2);
	assert_int_equal(c->guard->rules[1].fail, 1);
	assert_int_equal(c->guard->end_on_guard, 0);
	kn_redact r;
	kn_config_redact_rules(&r, c);
	assert_int_equal(r.off, 0);
	assert_true(kn_redact_field(&r, "_wp_unfiltered_html_comment", "x"));
	assert_true(kn_redact_header(&r, "X-Sid"));
	kn_config_free(c);
	c = load("redact: { enabled: false }\n");
	assert_null(c->guard);
	kn_config_redact_rules(&r, c);
	assert_int_equal(r.off, 1);
	kn_config_free(c);
	fails("guard: { method: POST }\n", KN_EINVAL, "k.yaml:1:8: guard: expected a list of rules");
	fails("guard:\n  - { url: { fuzzy: a } }\n", KN_EINVAL,
	      "k.yaml:2:5: guard[0]: url.fuzzy: unknown matcher (expected exact, include, semantic or regex)");
	fails("guard:\n  - { respond: later }\n", KN_EINVAL, "k.yaml:2:5: guard[0]: respond: expected error or {status, body}");
	fails("end_on_guard: maybe\n", KN_EINVAL, "k.yaml:1:15: end_on_guard: expected true or false");
	fails("redact: { words: [a] }\n", KN_EINVAL, "k.yaml:1:11: redact.words: unknown key");
}

/* http.trusted_proxies: a list of peer addresses; none by default. */
static void test_proxies(void **state)
{
	(void)state;
	kn_config *c = load("http: { trusted_proxies: [10.0.0.5, \"::1\"] }\n");
	assert_int_equal(c->n_http_proxies, 2);
	assert_string_equal(c->http_proxies[0], "10.0.0.5");
	assert_string_equal(c->http_proxies[1], "::1");
	kn_config_free(c);
	c = load("http: {}\n");
	assert_int_equal(c->n_http_proxies, 0);
	kn_config_free(c);
	fails("http: { trusted_proxies: 10.0.0.5 }\n", KN_EINVAL,
	      "k.yaml:1:26: http.trusted_proxies: expected a sequence");
}

/* http.tokens: named tokens, checked at load. */
static void test_tokens(void **state)
{
	(void)state;
	kn_config *c = load("http: { token: t0, tokens: [ {name: alice, token: ta}, {name: ci.bot-2, token: tb} ] }\n");
	assert_int_equal(c->n_http_tokens, 2);
	assert_string_equal(c->http_tokens[0].name, "alice");
	assert_string_equal(c->http_tokens[0].token, "ta");
	assert_string_equal(c->http_tokens[1].name, "ci.bot-2");
	kn_config_free(c);
	c = load("http: { tokens: [] }\n");
	assert_int_equal(c->n_http_tokens, 0);
	kn_config_free(c);
	fails("http: { tokens: x }\n", KN_EINVAL, "k.yaml:1:17: http.tokens: expected a sequence");
	fails("http: { tokens: [x] }\n", KN_EINVAL, "k.yaml:1:18: http.tokens[0]: expected a mapping {name, token}");
	fails("http: { tokens: [{name: a}] }\n", KN_EINVAL, "k.yaml:1:18: http.tokens[0]: missing key token");
	fails("http: { tokens: [{token: a}] }\n", KN_EINVAL, "k.yaml:1:18: http.tokens[0]: missing key name");
	fails("http: { tokens: [{name: a, token: b, x: 1}] }\n", KN_EINVAL,
	      "k.yaml:1:38: http.tokens[0].x: unknown key");
	fails("http: { tokens: [{name: default, token: b}] }\n", KN_EINVAL,
	      "k.yaml:1:25: http.tokens[0].name: 1 to 64 bytes of A-Z a-z 0-9 . _ -, and not \"default\"");
	fails("http: { tokens: [{name: 'a b', token: b}] }\n", KN_EINVAL,
	      "k.yaml:1:25: http.tokens[0].name: 1 to 64 bytes of A-Z a-z 0-9 . _ -, and not \"default\"");
	fails("http: { tokens: [{name: a, token: b}, {name: a, token: c}] }\n", KN_EINVAL,
	      "k.yaml:1:46: http.tokens[1].name: 'a' is already used");
	fails("http: { tokens: [{name: a, token: b}, {name: c, token: b}] }\n", KN_EINVAL,
	      "k.yaml:1:56: http.tokens[1].token: the same token as http.tokens[0]");
	fails("http: { tokens: [{name: a, token: ''}] }\n", KN_EINVAL,
	      "k.yaml:1:35: http.tokens[0].token: must not be empty");
}

/* http.advertise and http.orphan_sweep_s: checked at load. */
static void test_advertise(void **state)
{
	(void)state;
	kn_config *c = load("http: { advertise: \"api1.internal:8080\", orphan_sweep_s: 5 }\n");
	assert_string_equal(c->http_advertise, "api1.internal:8080");
	assert_int_equal(c->http_orphan_sweep_s, 5);
	kn_config_free(c);
	c = load("http: {}\n");
	assert_null(c->http_advertise);
	assert_int_equal(c->http_orphan_sweep_s, 30);
	kn_config_free(c);
	static const char *const good[] = {"10.0.0.11:8080", "[::1]:8080", "a:1",
	                                   "api-2.example_x:65535", NULL};
	for (size_t i = 0; good[i]; i++)
		if (!kn_config_address_ok(good[i]))
			fail_msg("refused '%s'", good[i]);
	static const char *const bad[] = {"", ":8080", "host", "host:", "host:0", "host:65536",
	                                  "host:08080", "host:80x", "ho st:80", "h/x:80", "-h:80",
	                                  "[::1:80", "[]:80", "[fe80::1%eth0]:1", "http://h:80",
	                                  "h:123456", NULL};
	for (size_t i = 0; bad[i]; i++)
		if (kn_config_address_ok(bad[i]))
			fail_msg("accepted '%s'", bad[i]);
	fails("http: { advertise: \"10.0.0.11\" }\n", KN_EINVAL,
	      "k.yaml:1:20: http.advertise: expected HOST:PORT (a name, an IPv4 address or [IPv6], and a port 1-65535)");
	fails("http: { advertise: \"\" }\n", KN_EINVAL, "k.yaml:1:20: http.advertise: must not be empty");
	fails("http: { orphan_sweep_s: 0 }\n", KN_EINVAL, "k.yaml:1:25: http.orphan_sweep_s: expected an integer in [1, 3600]");
}

/* http.live_view_public and http.takeover_idle_s (the live view): checked at load. */
static void test_live_view(void **state)
{
	(void)state;
	kn_config *c = load("http: {}\n");
	assert_int_equal(c->http_live_view_public, 0);
	assert_int_equal(c->http_takeover_idle_s, 120);
	assert_int_equal(c->http_live_view_max_s, 3600);
	kn_config_free(c);
	c = load("http: { live_view_public: true, takeover_idle_s: 30, live_view_max_s: 60 }\n");
	assert_int_equal(c->http_live_view_public, 1);
	assert_int_equal(c->http_takeover_idle_s, 30);
	assert_int_equal(c->http_live_view_max_s, 60);
	kn_config_free(c);
	fails("http: { live_view_public: yes }\n", KN_EINVAL, "k.yaml:1:27: http.live_view_public: expected true or false");
	fails("http: { takeover_idle_s: 5 }\n", KN_EINVAL, "k.yaml:1:26: http.takeover_idle_s: expected an integer in [10, 3600]");
	fails("http: { live_view_max_s: 0 }\n", KN_EINVAL, "k.yaml:1:26: http.live_view_max_s: expected an integer in [10, 86400]");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_example),
		cmocka_unit_test(test_proxies), cmocka_unit_test(test_tokens),
		cmocka_unit_test(test_advertise),
		cmocka_unit_test(test_live_view),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_env),
		cmocka_unit_test(test_errors_keys),
		cmocka_unit_test(test_errors_types),
		cmocka_unit_test(test_errors_document),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_agents),
		cmocka_unit_test(test_trace),
		cmocka_unit_test(test_retention),
		cmocka_unit_test(test_replay),
		cmocka_unit_test(test_guard),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
