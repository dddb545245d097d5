/* purchase.h — WebShop's graded purchase reward (keynodes/README.md "Purchase reward"): what the
 * instruction asks for (product type, attributes, options, price limit), what was bought (read on
 * the live page), and r = r_type × (|attributes met| + |options met| + [price ≤ limit]) /
 * (|attributes| + |options| + 1), with WebShop's fuzzy matching (token_set_ratio > 85, the colour
 * normalisation) and its type rule. Pure functions; the spec is owned by its task. */
#ifndef KEYNODE_PURCHASE_H
#define KEYNODE_PURCHASE_H

#include <stddef.h>

#include "keynode/error.h"

typedef struct kn_purchase_option {
	char *field; /* "color": names the option on the page; matching is by value, as WebShop */
	char *value; /* "blue" */
} kn_purchase_option;

/* A task's `purchase:` (docs/formats.md §1, schemas/task.schema.json). */
typedef struct kn_purchase {
	char *type;                   /* product type, e.g. "trail running shoe" (its words count) */
	char **attributes;            /* lower-case attribute phrases */
	size_t n_attributes;
	kn_purchase_option *options;
	size_t n_options;
	double price_max;             /* 0: none (WebShop's default limit, 1,000,000) */
	char *buy;                    /* CSS selector of the buy / add-to-cart element; NULL: none */
	/* where the page shows what is bought (CSS selectors, defaults in purchase.c) */
	char *read_title, *read_attributes, *read_options, *read_price;
} kn_purchase;

/* What was read on the page. */
typedef struct kn_purchase_read {
	const char *title;
	const char *const *attributes; /* each attribute element's text */
	size_t n_attributes;
	const char *const *options;    /* selected option values */
	size_t n_options;
	const char *price;             /* price text ("$42.50"); NULL/unparsable scores 0 */
} kn_purchase_read;

typedef struct kn_reward {
	double reward;             /* in [0, 1] */
	double r_type;             /* 0, 0.1, 0.5 or 1 */
	double title_score;        /* share of the type's words in the title */
	size_t attributes_met, options_met;
	int price_ok;              /* 1 when the price is within the limit */
	double price;              /* parsed price, -1 when none */
} kn_reward;

/* The reward of `read` against spec; read NULL = nothing bought (all 0). */
void kn_purchase_reward(const kn_purchase *spec, const kn_purchase_read *read, kn_reward *out);

/* WebShop's fuzzy match (thefuzz token_set_ratio, rounded as thefuzz does): 0..100. */
int kn_purchase_token_set_ratio(const char *a, const char *b);

/* WebShop's normalize_color: the first colour name of its list found in s, else s (borrowed
 * or static). */
const char *kn_purchase_normalize_color(const char *s);

/* The JavaScript the monitor evaluates on the page to read what is bought: returns
 * {title, attributes: [], options: [], price} as JSON text. *out is the caller's. */
int kn_purchase_script(char **out, const kn_purchase *spec);

/* Parse that JSON into *read (strings borrowed from the returned handle; free it with
 * kn_purchase_read_free). KN_EINVAL on a bad shape. */
int kn_purchase_read_parse(void **handle, kn_purchase_read *read, const char *json);
void kn_purchase_read_free(void *handle);

/* The run result's "reward_parts" object (schemas/run-result.schema.json) for out; a new
 * jansson reference, NULL when out of memory. */
struct json_t *kn_reward_json(const kn_reward *out, const kn_purchase *spec, int purchased);

/* Release what a spec owns, and the spec. NULL is a no-op. */
void kn_purchase_free(kn_purchase *p);

#endif
