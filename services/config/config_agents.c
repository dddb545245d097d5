/* config_agents.c — the `agents:` section of keynode.yaml: the agents a `keynode worker` may run
 * for agent jobs (POST /api/agent-runs names an agent, never a command line). A mapping of names
 * to command lines, each run by /bin/sh -c in the attempt's environment (README, "Evaluate your
 * agent on Mind2Web-Live"):
 *   agents:
 *     pw: "node /opt/agents/playwright.mjs"
 *     my-agent: "python3 /opt/agents/agent.py --model small"
 * A name is 1..64 of [A-Za-z0-9._-], not starting with '.'; a command is a non-empty string of
 * at most 4096 bytes without control characters. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_internal.h"

#define KN_CONFIG_AGENT_CMD_MAX 4096

static int name_ok(const node *k)
{
	if (k->type != N_SCALAR || k->len == 0 || k->len > 64 || strlen(k->val) != k->len || k->val[0] == '.')
		return 0;
	for (const char *p = k->val; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      *p == '-' || *p == '_' || *p == '.'))
			return 0;
	return 1;
}

int kn_config_load_agents(loader *l, kn_config *c, const node *m)
{
	if (m->type == N_SCALAR && m->plain && (m->len == 0 || strcmp(m->val, "~") == 0 ||
	                                        strcmp(m->val, "null") == 0))
		return 0; /* agents: (empty) — none */
	if (m->type != N_MAP)
		return kn_config_fail(l, KN_EINVAL, m->line, m->col,
		                      "agents: expected a mapping such as {pw: \"node agent.mjs\"}");
	size_t n = m->n / 2;
	if (n && !(c->agents = calloc(n, sizeof *c->agents)))
		return kn_config_fail(l, KN_ENOMEM, m->line, m->col, "out of memory");
	for (size_t i = 0; i < n; i++) {
		const node *k = m->kids[2 * i], *v = m->kids[2 * i + 1];
		if (!name_ok(k))
			return kn_config_fail(l, KN_EINVAL, k->line, k->col,
			                      "agents: a name is 1 to 64 letters, digits, '-', '_' or '.' "
			                      "(not first)");
		for (size_t j = 0; j < c->n_agents; j++)
			if (strcmp(c->agents[j].name, k->val) == 0)
				return kn_config_fail(l, KN_EINVAL, k->line, k->col, "agents.%s: repeated key", k->val);
		if (v->type != N_SCALAR || (v->plain && (v->len == 0 || strcmp(v->val, "~") == 0 ||
		                                         strcmp(v->val, "null") == 0)))
			return kn_config_fail(l, KN_EINVAL, v->line, v->col,
			                      "agents.%s: expected the agent's command line (a string)", k->val);
		if (v->len == 0 || v->len > KN_CONFIG_AGENT_CMD_MAX || strlen(v->val) != v->len)
			return kn_config_fail(l, KN_EINVAL, v->line, v->col,
			                      "agents.%s: a command of 1 to %d bytes without NUL", k->val,
			                      KN_CONFIG_AGENT_CMD_MAX);
		for (const char *p = v->val; *p; p++)
			if ((unsigned char)*p < 0x20 && *p != '\t')
				return kn_config_fail(l, KN_EINVAL, v->line, v->col,
				                      "agents.%s: control character in the command", k->val);
		struct kn_config_agent *a = &c->agents[c->n_agents];
		if (!(a->name = strdup(k->val)) || !(a->command = strdup(v->val))) {
			free(a->name);
			a->name = NULL;
			return kn_config_fail(l, KN_ENOMEM, v->line, v->col, "out of memory");
		}
		c->n_agents++;
	}
	return 0;
}

const char *kn_config_agent_command(const kn_config *c, const char *name)
{
	for (size_t i = 0; c && name && i < c->n_agents; i++)
		if (strcmp(c->agents[i].name, name) == 0)
			return c->agents[i].command;
	return NULL;
}
