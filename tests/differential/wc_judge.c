/* wc_judge.c — the semantic judge both sides of the WebCanvas differential suite (webcanvas_diff.py)
 * share: keynode's offline judge, deterministic. Reads one JSON array [rule, input] a line and
 * prints the judge's raw score (%.17g, before any clamping or rounding: the oracle applies
 * upstream's own), or "E message". The oracle never sees keynode's scoring rules, only this score. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "keynode/match.h"

int main(void)
{
	const kn_semantic *sem = kn_semantic_offline();
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	while ((n = getline(&line, &cap, stdin)) > 0) {
		json_t *j = json_loadb(line, (size_t)n, 0, NULL);
		const char *rule = json_string_value(json_array_get(j, 0));
		const char *input = json_string_value(json_array_get(j, 1));
		char *phrase = NULL;
		double score = 0;
		kn_err err = {0};
		if (!rule || !input)
			puts("E expected [rule, input]");
		else if (kn_semantic_extract_phrase(&phrase, rule) != 0)
			puts("E no phrase");
		else if (sem->judge(sem->ud, rule, phrase, input, &score, &err) != 0)
			printf("E %s\n", err.msg);
		else
			printf("%.17g\n", score);
		fflush(stdout);
		free(phrase);
		json_decref(j);
	}
	free(line);
	return 0;
}
