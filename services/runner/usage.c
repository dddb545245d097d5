/* usage.c — what the agent spent (runner.h kn_usage_read): an agent may append JSON lines
 * {"model", "input_tokens", "output_tokens", "usd"} to KEYNODE_USAGE_FILE, one per model call (or
 * one per attempt); keynode adds them up into the result's "usage". The file is the agent's
 * output, so it is read with caps and a bad line is counted, not trusted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner.h"

#define USAGE_MAX_BYTES (8u * 1024u * 1024u)
#define USAGE_LINE_MAX 4096
#define USAGE_MODELS_MAX 16
#define USAGE_TOKENS_MAX 1000000000000LL /* per line: more is not a usage line (and sums stay exact) */
#define USAGE_USD_MAX 1e9

json_t *kn_usage_read(const char *path)
{
	FILE *f = path ? fopen(path, "r") : NULL;
	if (!f)
		return NULL;
	char line[USAGE_LINE_MAX];
	size_t lines = 0, bad = 0, bytes = 0;
	double usd = 0;
	json_int_t in = 0, outt = 0;
	json_t *models = json_array();
	while (models && bytes < USAGE_MAX_BYTES && fgets(line, sizeof line, f)) {
		size_t n = strlen(line);
		bytes += n;
		if (n == sizeof line - 1 && line[n - 1] != '\n') { /* longer than a usage line: skip it */
			int c;
			while ((c = fgetc(f)) != EOF && c != '\n')
				bytes++;
			bad++;
			continue;
		}
		if (strspn(line, " \t\r\n") == n)
			continue;
		json_t *j = json_loads(line, 0, NULL), *mi = json_object_get(j, "input_tokens"),
		       *mo = json_object_get(j, "output_tokens"), *mu = json_object_get(j, "usd"),
		       *mm = json_object_get(j, "model");
		int ok = json_is_object(j) &&
		         (!mi || (json_is_integer(mi) && json_integer_value(mi) >= 0 &&
		                  json_integer_value(mi) <= USAGE_TOKENS_MAX)) &&
		         (!mo || (json_is_integer(mo) && json_integer_value(mo) >= 0 &&
		                  json_integer_value(mo) <= USAGE_TOKENS_MAX)) &&
		         (!mu || (json_is_number(mu) && json_number_value(mu) >= 0 &&
		                  json_number_value(mu) <= USAGE_USD_MAX)) &&
		         (!mm || json_is_string(mm)) && (mi || mo || mu);
		if (!ok) {
			bad++;
		} else {
			lines++;
			in += mi ? json_integer_value(mi) : 0;
			outt += mo ? json_integer_value(mo) : 0;
			usd += mu ? json_number_value(mu) : 0;
			size_t i, seen = 0;
			json_t *v;
			json_array_foreach(models, i, v)
				seen |= mm && strcmp(json_string_value(v), json_string_value(mm)) == 0;
			if (mm && !seen && json_array_size(models) < USAGE_MODELS_MAX)
				json_array_append_new(models, json_string(json_string_value(mm)));
		}
		json_decref(j);
	}
	fclose(f);
	if (!models || (lines == 0 && bad == 0)) {
		json_decref(models);
		return NULL;
	}
	return json_pack("{s:I, s:I, s:f, s:o, s:I, s:I}", "input_tokens", in, "output_tokens", outt, "usd", usd,
	                 "models", models, "lines", (json_int_t)lines, "bad_lines", (json_int_t)bad);
}
