/* llm.h — the LLM semantic judge: any OpenAI-compatible `POST {url}/v1/chat/completions`
 * endpoint (hosted, vLLM, llama.cpp server, Ollama) behind the core's kn_semantic interface.
 *
 * A kn_llm asks the model for {"score": 0..1, "reason": "..."} about one (rule, input) pair,
 * parses the answer strictly (a JSON number in [0, 1], nothing is ever evaluated), retries
 * connection errors, 5xx and 429 with exponential backoff and jitter (429 honours Retry-After),
 * bounds each attempt with a timeout and the number of requests in flight with a counting
 * semaphore, looks verdicts up in a verdict store first (verdict.h: a hit makes no request) and
 * counts requests, tokens and cost. It is safe to call from several threads at once.
 * services/llm/README.md has the design, the prompt and the parsing rules. */
#ifndef KEYNODE_LLM_H
#define KEYNODE_LLM_H

#include <stddef.h>
#include <stdio.h>

#include "keynode/error.h"
#include "keynode/match.h"
#include "verdict.h"

/* Bumped whenever the prompt changes in a way that may change verdicts: cached verdicts of
 * another prompt version are not used. */
#define KN_LLM_PROMPT_VERSION 1

typedef struct kn_llm_opts {
	const char *url;       /* base URL, e.g. http://127.0.0.1:8080 (a trailing /v1 is accepted) */
	const char *model;     /* the "model" field of the request */
	const char *api_key;   /* sent as "Authorization: Bearer …"; NULL or "" → no header. Never logged */
	long timeout_ms;       /* per attempt, connect included; 0 → 30000 */
	int max_retries;       /* retries after the first attempt; 0 → 3, < 0 → none */
	long backoff_ms;       /* first retry delay before jitter, doubled each retry; 0 → 500 */
	long max_retry_after_s;/* a 429's Retry-After above this fails instead of waiting; 0 → 60 */
	int max_concurrency;   /* requests in flight at once; 0 → 4 */
	double usd_per_1k_prompt, usd_per_1k_completion; /* prices; 0 = unknown (cost 0) */
	const kn_verdict_store *cache; /* borrowed, may be NULL; must outlive the kn_llm */
} kn_llm_opts;

/* Usage accounting since kn_llm_new (Mind2Web-Live's usd_efficiency = usd / Σ reached). */
typedef struct kn_llm_stats {
	unsigned long judgements;  /* judge calls */
	unsigned long cache_hits;  /* … answered by the verdict store, no request */
	unsigned long requests;    /* HTTP attempts made (retries included) */
	unsigned long retries;     /* … of which were retries */
	unsigned long failures;    /* judge calls that returned an error */
	unsigned long prompt_tokens, completion_tokens; /* from the responses' "usage" */
	double usd;                /* tokens × prices */
} kn_llm_stats;

typedef struct kn_llm kn_llm;

/* New client. Copies what it needs from opts (except cache, borrowed). err says which option is
 * wrong (KN_EINVAL: no url or model, a url that is not http(s)://). */
int kn_llm_new(kn_llm **out, const kn_llm_opts *opts, kn_err *err);
void kn_llm_free(kn_llm *llm);

/* The kn_semantic view of llm (borrowed, lives as long as llm); name is "llm:<model>". */
const kn_semantic *kn_llm_semantic(kn_llm *llm);

/* Judge one pair: *score in [0, 1]. Errors: KN_ETIMEOUT (an attempt ran out of time), KN_EIO
 * (unreachable after the retries, an HTTP error status), KN_EPROTO (a malformed answer),
 * KN_ELIMIT (input too long, a body too large, Retry-After beyond the cap); err has the detail
 * (the API key never appears in it). phrase may be NULL. */
int kn_llm_judge(kn_llm *llm, const char *rule, const char *phrase, const char *input,
                 double *score, kn_err *err);

/* Make every judgement in flight now return soon (KN_EIO "cancelled": transfers are aborted,
 * backoffs cut short); later ones are not affected. For shutdown (kn_judge_queue_close); any
 * thread. */
void kn_llm_cancel(kn_llm *llm);

/* A consistent snapshot of the counters. */
void kn_llm_stats_get(kn_llm *llm, kn_llm_stats *out);

/* --- the pure parts (llm_answer.c), exposed for tests and the fuzz target --- */

/* The prompt template, what the provenance hashes (prompt_sha256 of a run's environment): the
 * system prompt, a blank line, and the user message with its JSON data left as placeholders. A
 * change to either message changes it. */
const char *kn_llm_prompt_template(void);

/* The SHA-256 of kn_llm_prompt_template as 64 hex digits (static storage; NULL when it could not
 * be computed): the LLM judge's prompt_sha256 (kn_semantic, judge_fingerprint.h). */
const char *kn_llm_prompt_sha256(void);

/* The request body for a judgement: {"model", "temperature": 0, "messages": [system, user]}.
 * *out (NUL-terminated JSON) is the caller's. */
int kn_llm_request_body(char **out, const char *model, const char *rule, const char *phrase,
                        const char *input);

/* Parse a chat-completion response body (len bytes, need not be NUL-terminated): the first
 * choice's message content must hold {"score": <number in [0,1]>, ...}. Token counts from
 * "usage" are stored even when the content is bad (they were paid for); missing ones are 0.
 * *reason (may be NULL to skip) is the caller's, NULL when the answer has none.
 * Returns 0 or KN_EPROTO / KN_ENOMEM with the detail in err. */
int kn_llm_parse_response(const char *body, size_t len, double *score, char **reason,
                          unsigned long *prompt_tokens, unsigned long *completion_tokens,
                          kn_err *err);

/* Parse the message content alone: a JSON object, optionally inside a ``` or ```json fence,
 * whose "score" is a number in [0, 1] and whose "reason", when present, is a string. */
int kn_llm_parse_content(const char *content, size_t len, double *score, char **reason,
                         kn_err *err);

/* The message of an OpenAI-style error body ({"error": {"message": …}} or {"error": "…"}),
 * flattened to printable ASCII and cut to fit outsz; "" when there is none. */
void kn_llm_error_message(char *out, size_t outsz, const char *body, size_t len);

#endif
