/* semantic_opts.c — the --semantic / --llm-* / --verdict-cache / --config options of match,
 * score and watch, parsed in one place, and the judge they build: the offline default, or a
 * services/llm client with the verdict cache file in front of it. With --config, keynode.yaml's
 * semantic section and verdict_cache fill in whatever the flags left unset. */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"

int kn_cli_semantic_option(kn_cli_semantic *s, const char *cmd, int c, const char *arg)
{
	char *end;
	switch (c) {
	case KN_CLI_OPT_SEMANTIC:
		if (strcmp(arg, "offline") == 0)
			s->llm = 0;
		else if (strcmp(arg, "llm") == 0)
			s->llm = 1;
		else
			return kn_cli_usage_error(cmd, "--semantic must be offline or llm"), -1;
		s->backend_set = 1;
		return 1;
	case KN_CLI_OPT_LLM_URL: s->url = arg; s->llm_flag = "--llm-url"; return 1;
	case KN_CLI_OPT_LLM_MODEL: s->model = arg; s->llm_flag = "--llm-model"; return 1;
	case KN_CLI_OPT_LLM_KEY_ENV:
		if (!*arg)
			return kn_cli_usage_error(cmd, "--llm-key-env needs a variable name"), -1;
		s->key_env = arg;
		s->llm_flag = "--llm-key-env";
		return 1;
	case KN_CLI_OPT_LLM_TIMEOUT: {
		long v = strtol(arg, &end, 10);
		if (end == arg || *end || v < 1 || v > 3600000)
			return kn_cli_usage_error(cmd, "--llm-timeout must be milliseconds in [1, 3600000]"), -1;
		s->timeout_ms = v;
		s->llm_flag = "--llm-timeout";
		return 1;
	}
	case KN_CLI_OPT_LLM_PRICE: {
		double p = strtod(arg, &end), q = 0;
		int ok = end != arg && p >= 0 && p < 1e6;
		if (ok && *end == ',') {
			const char *b = end + 1;
			q = strtod(b, &end);
			ok = end != b && q >= 0 && q < 1e6;
		} else if (ok) {
			q = p; /* one price for both */
		}
		if (!ok || *end)
			return kn_cli_usage_error(cmd, "--llm-price must be USD per 1000 tokens: P or P,C"), -1;
		s->price_prompt = p;
		s->price_completion = q;
		s->price_set = 1;
		s->llm_flag = "--llm-price";
		return 1;
	}
	case KN_CLI_OPT_VERDICT_CACHE:
		if (!*arg)
			return kn_cli_usage_error(cmd, "--verdict-cache needs a file (or off)"), -1;
		s->cache = arg;
		s->llm_flag = "--verdict-cache";
		return 1;
	case KN_CLI_OPT_CONFIG:
		if (!*arg)
			return kn_cli_usage_error(cmd, "--config needs a file"), -1;
		s->config_path = arg;
		return 1;
	default:
		return 0;
	}
}

/* Fill what no flag set from the loaded config; flags always win. */
static void take_config(kn_cli_semantic *s, const kn_config *c, kn_eval_opts *eo)
{
	if (!s->backend_set && c->semantic.backend_set)
		s->llm = c->semantic.backend == KN_CONFIG_LLM;
	if (eo->threshold == 0 && c->semantic.threshold_set)
		eo->threshold = c->semantic.threshold;
	if (!s->url)
		s->url = c->semantic.llm.url;
	if (!s->model)
		s->model = c->semantic.llm.model;
	if (!s->key_env)
		s->key_env = c->semantic.llm.api_key_env;
	if (!s->timeout_ms && c->semantic.llm.timeout_set)
		s->timeout_ms = c->semantic.llm.timeout_ms;
	if (!s->price_set && c->semantic.llm.price_set) {
		s->price_prompt = c->semantic.llm.price_prompt;
		s->price_completion = c->semantic.llm.price_completion;
	}
	if (!s->cache)
		s->cache = c->verdict_cache;
}

static int semantic_open(kn_cli_semantic *s, const char *cmd, kn_eval_opts *eo);

int kn_cli_semantic_open(kn_cli_semantic *s, const char *cmd, kn_eval_opts *eo)
{
	if (s->config_path) {
		kn_err err = {0};
		if (kn_config_load(&s->config, s->config_path, &err) != 0) {
			fprintf(stderr, "keynode %s: %s\n", cmd, err.msg);
			return KN_EXIT_USAGE;
		}
		/* an --llm-* flag without --semantic is fine when the file says backend: llm */
		take_config(s, s->config, eo);
	}
	int rc = semantic_open(s, cmd, eo);
	if (rc != KN_EXIT_OK)
		kn_cli_semantic_close(s);
	return rc;
}

static int semantic_open(kn_cli_semantic *s, const char *cmd, kn_eval_opts *eo)
{
	if (!s->llm) {
		if (s->llm_flag)
			return kn_cli_usage_error(cmd, "%s needs --semantic llm", s->llm_flag);
		return KN_EXIT_OK;
	}
	if (!s->url || !s->model)
		return kn_cli_usage_error(cmd, "--semantic llm needs --llm-url and --llm-model%s",
		                          s->config ? " (or semantic.llm.url and .model in --config)" : "");
	const char *var = s->key_env ? s->key_env : "OPENAI_API_KEY";
	const char *key = getenv(var);
	if (s->key_env && (!key || !*key))
		return kn_cli_usage_error(cmd, "%s: environment variable %s is not set",
		                          s->config && s->key_env == s->config->semantic.llm.api_key_env
		                                  ? "semantic.llm.api_key_env (--config)" : "--llm-key-env",
		                          var);

	kn_err err = {0};
	char *path = NULL;
	int explicit_cache = s->cache != NULL;
	if (!explicit_cache && kn_verdict_default_path(&path) != 0)
		fprintf(stderr, "keynode %s: no HOME or XDG_CACHE_HOME: verdicts are not cached\n", cmd);
	const char *cpath = explicit_cache ? (strcmp(s->cache, "off") == 0 ? NULL : s->cache) : path;
	if (cpath && kn_verdict_file_open(&s->verdicts, cpath, &err) != 0) {
		free(path);
		if (explicit_cache) {
			fprintf(stderr, "keynode %s: %s\n", cmd, err.msg);
			return KN_EXIT_USAGE;
		}
		fprintf(stderr, "keynode %s: %s: verdicts are not cached\n", cmd, err.msg);
	} else {
		free(path);
	}
	kn_llm_opts o = {0};
	o.url = s->url;
	o.model = s->model;
	o.api_key = key;
	o.timeout_ms = s->timeout_ms;
	o.usd_per_1k_prompt = s->price_prompt;
	o.usd_per_1k_completion = s->price_completion;
	o.cache = kn_verdict_file_store(s->verdicts);
	if (kn_llm_new(&s->client, &o, &err) != 0) {
		kn_cli_semantic_close(s);
		fprintf(stderr, "keynode %s: %s\n", cmd, err.msg);
		return KN_EXIT_USAGE;
	}
	eo->semantic = kn_llm_semantic(s->client);
	return KN_EXIT_OK;
}

void kn_cli_semantic_close(kn_cli_semantic *s)
{
	kn_llm_free(s->client);
	kn_verdict_file_free(s->verdicts);
	kn_config_free(s->config);
	s->client = NULL;
	s->verdicts = NULL;
	s->config = NULL;
}

void kn_cli_semantic_report(kn_cli_semantic *s, FILE *f, double reached)
{
	if (!s->client)
		return;
	kn_llm_stats st;
	kn_llm_stats_get(s->client, &st);
	fprintf(f, "llm usage (%s): %lu judgements, %lu cache hits, %lu requests (%lu retries), "
	        "%lu failed, %lu prompt + %lu completion tokens",
	        s->model, st.judgements, st.cache_hits, st.requests, st.retries, st.failures,
	        st.prompt_tokens, st.completion_tokens);
	if (s->price_prompt > 0 || s->price_completion > 0) {
		fprintf(f, ", cost $%.6f", st.usd);
		if (reached > 0)
			fprintf(f, ", usd_efficiency $%.6f per reached key node", st.usd / reached);
	}
	fputc('\n', f);
}

json_t *kn_cli_semantic_usage(kn_cli_semantic *s, double reached)
{
	if (!s->client)
		return json_pack("{s:s}", "backend", "offline");
	kn_llm_stats st;
	kn_llm_stats_get(s->client, &st);
	json_t *j = json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "backend", "llm",
	                      "model", s->model, "judgements", (json_int_t)st.judgements,
	                      "cache_hits", (json_int_t)st.cache_hits,
	                      "requests", (json_int_t)st.requests, "retries", (json_int_t)st.retries,
	                      "failures", (json_int_t)st.failures,
	                      "prompt_tokens", (json_int_t)st.prompt_tokens,
	                      "completion_tokens", (json_int_t)st.completion_tokens);
	if (j && (s->price_prompt > 0 || s->price_completion > 0)) {
		json_object_set_new(j, "usd", json_real(st.usd));
		json_object_set_new(j, "usd_efficiency", reached > 0 ? json_real(st.usd / reached) : json_null());
	}
	return j;
}

void kn_cli_semantic_json(kn_cli_semantic *s, FILE *f, double reached)
{
	if (!s->client) {
		fputs("{\"backend\": \"offline\"}", f);
		return;
	}
	json_t *j = kn_cli_semantic_usage(s, reached);
	char *out = j ? json_dumps(j, JSON_PRESERVE_ORDER) : NULL;
	fputs(out ? out : "{\"backend\": \"llm\"}", f);
	free(out);
	json_decref(j);
}
