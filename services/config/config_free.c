/* config_free.c — releasing a kn_config (config.h kn_config_free): every string and list the
 * loader (config.c) allocated. Kept apart so that config.c holds the loader alone. */
#include <stdlib.h>

#include "config.h"
#include "keynode/guard.h"

void kn_config_free(kn_config *c)
{
	if (!c)
		return;
	free(c->database_url);
	free(c->http_listen);
	free(c->http_token);
	for (size_t i = 0; i < c->n_http_tokens; i++)
		free(c->http_tokens[i].name), free(c->http_tokens[i].token);
	free(c->http_tokens);
	free(c->http_advertise);
	for (size_t i = 0; i < c->n_http_hosts; i++)
		free(c->http_hosts[i]);
	free(c->http_hosts);
	for (size_t i = 0; i < c->n_http_origins; i++)
		free(c->http_origins[i]);
	free(c->http_origins);
	for (size_t i = 0; i < c->n_http_proxies; i++)
		free(c->http_proxies[i]);
	free(c->http_proxies);
	for (size_t i = 0; i < c->n_sites; i++) {
		free(c->sites[i].name);
		free(c->sites[i].url);
	}
	free(c->sites);
	for (int k = 0; k < KN_CONFIG_BLOCKED_LISTS; k++) {
		for (size_t i = 0; i < c->blocked.lists[k].n; i++)
			free(c->blocked.lists[k].v[i]);
		free(c->blocked.lists[k].v);
	}
	for (size_t i = 0; i < c->n_browsers; i++)
		free(c->browsers[i]);
	free(c->browsers);
	free(c->semantic.llm.url);
	free(c->semantic.llm.model);
	free(c->semantic.llm.api_key_env);
	free(c->verdict_cache);
	free(c->region);
	for (size_t i = 0; i < c->n_alerts; i++)
		free(c->alerts[i].url);
	free(c->alerts);
	for (size_t i = 0; i < c->n_schedules; i++) {
		free(c->schedules[i].name);
		free(c->schedules[i].cron);
		free(c->schedules[i].tasks);
		for (size_t j = 0; j < c->schedules[i].n_refs; j++)
			free(c->schedules[i].refs[j]);
		free(c->schedules[i].refs);
	}
	free(c->schedules);
	for (size_t i = 0; i < c->n_agents; i++) {
		free(c->agents[i].name);
		free(c->agents[i].command);
	}
	free(c->agents);
	free(c->trace.dir);
	kn_guard_clear(c->guard);
	free(c->guard);
	for (size_t i = 0; i < c->redact.n_fields; i++)
		free(c->redact.fields[i]);
	free(c->redact.fields);
	for (size_t i = 0; i < c->redact.n_headers; i++)
		free(c->redact.headers[i]);
	free(c->redact.headers);
	free(c);
}
