/* fuzz_llm_answer.c — everything services/llm parses from outside: a chat-completion response
 * body, the message content alone, an error body, a verdict cache line; and the request body
 * built from arbitrary rule/input bytes. Besides not crashing, it checks the contracts: an
 * accepted score lies in [0, 1], a rejected one leaves it untouched; a cache line that parses
 * formats back to a line that parses to the same verdict; a request body is always JSON. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "llm.h"
#include "verdict.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_score(int rc, double score)
{
	if (rc == 0 ? !(score >= 0 && score <= 1) : (score != -1 || (rc != KN_EPROTO && rc != KN_ENOMEM)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = (const char *)data;
	kn_err err = {0};
	double score = -1;
	unsigned long pt = 0, ct = 0;
	char *reason = NULL;
	int rc = kn_llm_parse_response(in, size, &score, &reason, &pt, &ct, &err);
	check_score(rc, score);
	if (rc != 0 && reason)
		abort();
	free(reason);

	score = -1;
	rc = kn_llm_parse_content(in, size, &score, &reason, &err);
	check_score(rc, score);
	free(reason);

	char msg[64];
	kn_llm_error_message(msg, sizeof msg, in, size);
	for (const char *p = msg; *p; p++)
		if (*p < 0x20 || *p > 0x7E)
			abort();

	kn_verdict_line v;
	if (kn_verdict_parse_line(&v, in, size, &err) == 0) {
		if (!v.model || !v.rule || !v.input || !(v.score >= 0 && v.score <= 1) || v.prompt < 1)
			abort();
		char *line;
		size_t len;
		if (kn_verdict_format_line(&line, &len, v.model, v.prompt, v.rule, v.input, v.score,
		                           v.reason) == 0) {
			kn_verdict_line w;
			if (kn_verdict_parse_line(&w, line, len - 1, &err) != 0 || strcmp(v.model, w.model) ||
			    strcmp(v.rule, w.rule) || strcmp(v.input, w.input) || v.prompt != w.prompt ||
			    (!v.reason) != (!w.reason) || (v.reason && strcmp(v.reason, w.reason)))
				abort();
			kn_verdict_line_clear(&w);
			free(line);
		}
		kn_verdict_line_clear(&v);
	}

	/* "rule\ninput" (no newline: rule and input alike) → a request body that is JSON */
	char *buf = malloc(size + 1);
	if (!buf)
		return 0;
	if (size)
		memcpy(buf, data, size);
	buf[size] = '\0';
	char *nl = strchr(buf, '\n');
	const char *input = buf;
	if (nl) {
		*nl = '\0';
		input = nl + 1;
	}
	char *body = NULL;
	rc = kn_llm_request_body(&body, "m", buf, size & 1 ? buf : NULL, input);
	if (rc == 0) {
		json_t *j = json_loads(body, 0, NULL);
		if (!j)
			abort();
		json_decref(j);
	} else if (rc != KN_ENOMEM) {
		abort();
	}
	free(body);
	free(buf);
	return 0;
}
