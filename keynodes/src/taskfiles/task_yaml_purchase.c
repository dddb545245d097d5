/* task_yaml_purchase.c — the `purchase:` mapping of a task (purchase.h) for the YAML task loader
 * (task_yaml.c): the product type asked for, attributes and options to match, price_max, whether
 * to buy, the fuzzy scorer, and `read:` (where the page shows title, attributes, options, price,
 * bullet points and description). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "task_yaml_internal.h"

/* ---- purchase: (purchase.h) ---- */

static const char *const purchase_keys[] = { "type", "attributes", "options", "price_max", "buy",
                                             "read", "scorer" };
static const char *const read_keys[] = { "title", "attributes", "options", "price", "bullets",
                                         "description" };

/* A list of texts (or one text) into *items. */
static int purchase_list(loader *l, const char *what, char ***items, size_t *n)
{
	yev e;
	int rc = kn_ty_next_event(l, &e);
	if (rc)
		return rc;
	int seq = e.type == YAML_SEQUENCE_START_EVENT;
	for (;;) {
		if (seq && (rc = kn_ty_next_event(l, &e)) != 0)
			return rc;
		if (seq && e.type == YAML_SEQUENCE_END_EVENT)
			return 0;
		if (*n >= 100)
			return kn_ty_fail(l, KN_ELIMIT, e.at, "'%s' has more than 100 entries", what);
		char **ni = realloc(*items, (*n + 1) * sizeof *ni);
		if (!ni)
			return kn_ty_oom(l);
		*items = ni;
		if ((rc = kn_ty_take_text(l, &e, what, 0, &ni[*n])) != 0)
			return rc;
		(*n)++;
		if (!seq)
			return 0;
	}
}

/* options: {field: value, …} */
static int purchase_options(loader *l, kn_purchase *p)
{
	yev k;
	int rc, end;
	if ((rc = kn_ty_open_mapping(l, "'options' must be a mapping of option name to value, "
	                                "such as { color: blue, size: \"9\" }; ", NULL)) != 0)
		return rc;
	for (;;) {
		if ((rc = kn_ty_read_key(l, &k, &end)) != 0)
			return rc;
		if (end)
			return 0;
		if (p->n_options >= 100)
			return kn_ty_fail(l, KN_ELIMIT, k.at, "'options' has more than 100 entries");
		kn_purchase_option *no = realloc(p->options, (p->n_options + 1) * sizeof *no);
		if (!no)
			return kn_ty_oom(l);
		p->options = no;
		no = &no[p->n_options];
		memset(no, 0, sizeof *no);
		p->n_options++;
		if (!(no->field = kn_ty_dupn(k.val, k.len)))
			return kn_ty_oom(l);
		if ((rc = kn_ty_read_text(l, "options value", 0, &no->value, NULL)) != 0)
			return rc;
	}
}

/* read: {title, attributes, options, price, bullets, description} — CSS selectors. */
static int purchase_read(loader *l, kn_purchase *p)
{
	int rc, w;
	unsigned seen = 0;
	if ((rc = kn_ty_open_mapping(l, "'read' must be a mapping of title, attributes, options, "
	                                "price, bullets and description to CSS selectors; ", NULL)) != 0)
		return rc;
	for (;;) {
		if ((rc = kn_ty_read_field(l, read_keys, 6, "read", &seen, NULL, &w)) != 0)
			return rc;
		if (w < 0)
			return 0;
		char **slots[] = { &p->read_title, &p->read_attributes, &p->read_options,
		                   &p->read_price, &p->read_bullets, &p->read_description };
		char **slot = slots[w];
		if ((rc = kn_ty_read_text(l, read_keys[w], 0, slot, NULL)) != 0)
			return rc;
	}
}

/* scorer: difflib | indel (fuzz.h) */
static int purchase_scorer(loader *l, kn_purchase *p)
{
	yev v;
	int rc = kn_ty_next_event(l, &v);
	if (rc)
		return rc;
	if (v.type == YAML_SCALAR_EVENT && strcmp(v.val, "difflib") == 0)
		p->scorer = KN_FUZZ_DIFFLIB;
	else if (v.type == YAML_SCALAR_EVENT && strcmp(v.val, "indel") == 0)
		p->scorer = KN_FUZZ_INDEL;
	else
		return kn_ty_fail(l, KN_EINVAL, v.at, "'scorer' must be difflib or indel, found %s",
		                  kn_ty_found(l, &v));
	return 0;
}

/* A task's purchase: mapping (keynodes/README.md "Purchase reward"). */
int kn_ty_parse_purchase(loader *l, kn_task *t)
{
	int rc, w;
	unsigned seen = 0;
	pos at;
	if ((rc = kn_ty_open_mapping(l, "'purchase' must be a mapping (type, attributes, options, "
	                                "price_max, buy, read, scorer); ", &at)) != 0)
		return rc;
	if (!(t->purchase = calloc(1, sizeof *t->purchase)))
		return kn_ty_oom(l);
	kn_purchase *p = t->purchase;
	for (;;) {
		if ((rc = kn_ty_read_field(l, purchase_keys, 7, "purchase", &seen, NULL, &w)) != 0)
			return rc;
		if (w < 0)
			break;
		if (w == 0)
			rc = kn_ty_read_text(l, "type", 0, &p->type, NULL);
		else if (w == 1)
			rc = purchase_list(l, "attributes", &p->attributes, &p->n_attributes);
		else if (w == 2)
			rc = purchase_options(l, p);
		else if (w == 4)
			rc = kn_ty_read_text(l, "buy", 0, &p->buy, NULL);
		else if (w == 5)
			rc = purchase_read(l, p);
		else if (w == 6)
			rc = purchase_scorer(l, p);
		else {
			yev v;
			if ((rc = kn_ty_next_event(l, &v)) != 0)
				return rc;
			char *endp = NULL;
			double d = v.type == YAML_SCALAR_EVENT && (v.kind == SK_INT || v.kind == SK_FLOAT)
			                   ? strtod(v.val, &endp) : -1;
			if (d <= 0 || !(d < 1e12))
				return kn_ty_fail(l, KN_EINVAL, v.at,
				                  "'price_max' must be a positive number, found %s",
				                  kn_ty_found(l, &v));
			p->price_max = d;
		}
		if (rc)
			return rc;
	}
	if (!p->type)
		return kn_ty_fail(l, KN_EINVAL, at,
		                  "'purchase' needs 'type' (the product type asked for)");
	return 0;
}
