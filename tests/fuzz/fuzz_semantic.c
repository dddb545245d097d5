/* fuzz_semantic.c — the offline semantic judge on arbitrary bytes. The input is "RULE\nINPUT"
 * (no newline: the whole input is both). Besides not crashing, it checks what the contract
 * promises: phrase extraction succeeds on any text, the score lies in [0, 1] whether the judge
 * extracts the phrase itself or is handed it, the two agree, and the explanation gives the
 * same score. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "keynode/match.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1);
	if (!buf)
		return 0;
	if (size)
		memcpy(buf, data, size);
	buf[size] = '\0';
	char *nl = memchr(buf, '\n', size);
	const char *rule = buf, *input = buf;
	if (nl) {
		*nl = '\0';
		input = nl + 1;
	}

	const kn_semantic *sem = kn_semantic_offline();
	char *phrase = NULL;
	int rc = kn_semantic_extract_phrase(&phrase, rule);
	if (rc == KN_ENOMEM) {
		free(buf);
		return 0;
	}
	if (rc != 0 || !phrase)
		abort();
	double a = -1, b = -1, c = -1;
	int ra = sem->judge(sem->ud, rule, NULL, input, &a, NULL);
	int rb = sem->judge(sem->ud, rule, phrase, input, &b, NULL);
	if (ra == 0 && !(a >= 0 && a <= 1))
		abort();
	if (rb == 0 && !(b >= 0 && b <= 1))
		abort();
	if (ra == 0 && rb == 0 && a != b)
		abort();
	char *why = NULL;
	if (kn_semantic_offline_explain(&why, &c, NULL, phrase, input) == 0) {
		if (!why || (rb == 0 && c != b))
			abort();
	}
	free(why);
	free(phrase);
	free(buf);
	return 0;
}
