/* prompt_digest.c — the SHA-256 of the LLM judge's prompt template (kn_llm_prompt_template), what
 * its kn_semantic carries as prompt_sha256 so that every result it judges can say which prompt
 * decided it (keynode/judge_fingerprint.h). Computed once, on first use. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <openssl/evp.h>

#include "llm.h"

static char digest[65];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void compute(void)
{
	const char *t = kn_llm_prompt_template();
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;
	if (EVP_Digest(t, strlen(t), md, &n, EVP_sha256(), NULL) != 1 || n != 32)
		return; /* stays "": the fingerprint then says null */
	for (unsigned int i = 0; i < n; i++)
		snprintf(digest + 2 * i, 3, "%02x", md[i]);
}

const char *kn_llm_prompt_sha256(void)
{
	pthread_once(&once, compute);
	return *digest ? digest : NULL;
}
