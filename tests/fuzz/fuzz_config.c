/* fuzz_config.c — fuzz target for the keynode.yaml loader (services/config). Besides crashes,
 * leaks and sanitizer reports it aborts on broken contracts: a failure must leave *out NULL and a
 * message "fuzz.yaml:<line>:<col>: ..."; a success must give values within their documented
 * ranges. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int message_ok(const char *msg)
{
	const char *p = msg + strlen("fuzz.yaml:");
	if (strncmp(msg, "fuzz.yaml:", strlen("fuzz.yaml:")) != 0)
		return 0;
	for (int part = 0; part < 2; part++) {
		if (*p < '1' || *p > '9')
			return 0;
		while (*p >= '0' && *p <= '9')
			p++;
		if (*p++ != ':')
			return 0;
	}
	return *p == ' ' && p[1] != '\0';
}

static void check(const kn_config *c)
{
	if (!c->http_listen || !*c->http_listen || !(c->semantic.threshold > 0 && c->semantic.threshold <= 1) ||
	    c->semantic.llm.timeout_ms < 1 || c->semantic.llm.timeout_ms > 3600000 ||
	    c->health_broken_after < 1 || c->health_broken_after > 1000 ||
	    c->semantic.llm.price_prompt < 0 || c->semantic.llm.price_completion < 0 ||
	    (c->n_browsers && !c->browsers) || (c->n_alerts && !c->alerts) ||
	    (c->n_schedules && !c->schedules))
		abort();
	for (size_t i = 0; i < c->n_browsers; i++)
		if (!c->browsers[i] || !*c->browsers[i])
			abort();
	for (size_t i = 0; i < c->n_alerts; i++)
		if (!c->alerts[i].url || !*c->alerts[i].url ||
		    (c->alerts[i].type != KN_ALERT_WEBHOOK && c->alerts[i].type != KN_ALERT_SLACK))
			abort();
	for (size_t i = 0; i < c->n_schedules; i++) {
		const kn_config_schedule *s = &c->schedules[i];
		if (!s->name || !*s->name || !s->cron || !*s->cron || !s->tasks || !*s->tasks)
			abort();
		for (size_t j = 0; j < i; j++)
			if (strcmp(c->schedules[j].name, s->name) == 0)
				abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	kn_config *c = (kn_config *)&c;
	kn_err err = { 0 };
	int rc = kn_config_load_buffer(&c, (const char *)data, size, "fuzz.yaml", &err);
	if (rc == 0) {
		if (!c)
			abort();
		check(c);
		kn_config_free(c);
		return 0;
	}
	if (c != NULL || err.code != rc || !message_ok(err.msg) ||
	    (rc != KN_EINVAL && rc != KN_ELIMIT && rc != KN_ENOMEM && rc != KN_EUNSUPPORTED))
		abort();
	return 0;
}
