/* webshop_diff.c — the keynode side of the WebShop reward differential suite (webshop_diff.py):
 * reads cases, one JSON object a line, and prints one result line each:
 *   {"id", "goal": {"type", "attributes": [], "options": [], "price_max"}, "read": the purchase
 *    read's JSON (purchase.h: title, attributes, options, price, bullets, description)}
 *     → "ID reward r_type title_score attributes_met options_met price_ok" (%.17g numbers);
 *   {"id", "ratio": [a, b], "scorer": "difflib" | "indel"} → "ID score" (token_set_ratio(a, b)).
 * An error prints "ID E message". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "keynode/fuzz.h"
#include "keynode/purchase.h"

static char *dup_str(json_t *j)
{
	return json_is_string(j) ? strdup(json_string_value(j)) : NULL;
}

static void reward_case(const char *id, json_t *goal, json_t *read)
{
	kn_purchase *p = calloc(1, sizeof *p);
	json_t *attrs = json_object_get(goal, "attributes"), *opts = json_object_get(goal, "options");
	p->type = dup_str(json_object_get(goal, "type"));
	p->attributes = calloc(json_array_size(attrs) + 1, sizeof *p->attributes);
	p->options = calloc(json_array_size(opts) + 1, sizeof *p->options);
	size_t i;
	json_t *x;
	json_array_foreach(attrs, i, x)
		p->attributes[p->n_attributes++] = dup_str(x);
	json_array_foreach(opts, i, x) {
		p->options[p->n_options].field = strdup("option");
		p->options[p->n_options++].value = dup_str(x);
	}
	p->price_max = json_number_value(json_object_get(goal, "price_max"));
	char *text = json_dumps(read, JSON_COMPACT);
	void *h = NULL;
	kn_purchase_read rd;
	kn_reward r;
	kn_err err = {0};
	if (!text || kn_purchase_read_parse(&h, &rd, text) != 0)
		printf("%s E bad read\n", id);
	else if (kn_purchase_reward(p, &rd, &r, &err) != 0)
		printf("%s E %s\n", id, err.msg);
	else
		printf("%s %.17g %.17g %.17g %zu %zu %d\n", id, r.reward, r.r_type, r.title_score,
		       r.attributes_met, r.options_met, r.price_ok);
	kn_purchase_read_free(h);
	free(text);
	kn_purchase_free(p);
}

int main(void)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	while ((n = getline(&line, &cap, stdin)) > 0) {
		json_error_t je;
		json_t *c = json_loadb(line, (size_t)n, 0, &je);
		const char *id = json_string_value(json_object_get(c, "id"));
		json_t *ratio = json_object_get(c, "ratio");
		if (!id) {
			printf("? E bad case line: %s\n", je.text);
		} else if (ratio) {
			const char *sc = json_string_value(json_object_get(c, "scorer"));
			int s;
			if (kn_fuzz_token_set_ratio(&s, json_string_value(json_array_get(ratio, 0)),
			                            json_string_value(json_array_get(ratio, 1)),
			                            sc && strcmp(sc, "indel") == 0 ? KN_FUZZ_INDEL
			                                                           : KN_FUZZ_DIFFLIB) != 0)
				printf("%s E out of memory\n", id);
			else
				printf("%s %d\n", id, s);
		} else {
			reward_case(id, json_object_get(c, "goal"), json_object_get(c, "read"));
		}
		json_decref(c);
	}
	free(line);
	return 0;
}
