/* purchase.h — WebShop's graded purchase reward (keynodes/README.md "Purchase reward"): what the
 * instruction asks for (product type, attributes, options, price limit), what was bought (read on
 * the live page), and r = r_type × (|attributes met| + |options met| + [price ≤ limit]) /
 * (|attributes| + |options| + 1), by the rules of WebShop's web_agent_site/engine/goal.py: thefuzz's
 * token_set_ratio > 85 (fuzz.h), attributes also as substrings of the lower-cased title, bullet
 * points joined by spaces and description, the colour normalisation, the type rule on the nouns of
 * the two names (wordnet.h). Pure functions; the spec is owned by its task. */
#ifndef KEYNODE_PURCHASE_H
#define KEYNODE_PURCHASE_H

#include <stddef.h>

#include "keynode/error.h"
#include "keynode/fuzz.h"

typedef struct kn_purchase_option {
	char *field; /* "color": names the option on the page; matching is by value, as WebShop */
	char *value; /* "blue" */
} kn_purchase_option;

/* A task's `purchase:` (docs/formats.md §1, schemas/task.schema.json). */
typedef struct kn_purchase {
	char *type;                   /* product type, e.g. "trail running shoe" (its nouns count) */
	char **attributes;            /* attribute phrases (lower case: matched as written) */
	size_t n_attributes;
	kn_purchase_option *options;
	size_t n_options;
	double price_max;             /* 0: none (WebShop's default limit, 1,000,000) */
	char *buy;                    /* CSS selector of the buy / add-to-cart element; NULL: none */
	kn_fuzz_scorer scorer;        /* `scorer:` difflib (default, WebShop's install) or indel */
	/* where the page shows what is bought (CSS selectors, defaults in purchase.c) */
	char *read_title, *read_attributes, *read_options, *read_price;
	char *read_bullets, *read_description;
} kn_purchase;

/* What was read on the page. */
typedef struct kn_purchase_read {
	const char *title;
	const char *const *attributes; /* each attribute element's text (WebShop's Attributes) */
	size_t n_attributes;
	const char *const *options;    /* the values of the options the agent chose */
	size_t n_options;
	const char *price;             /* price text ("$42.50"); NULL/unparsable scores 0 */
	const char *const *bullets;    /* the bullet points (features), each item's text */
	size_t n_bullets;
	const char *description;       /* NULL: none */
} kn_purchase_read;

typedef struct kn_reward {
	double reward;             /* in [0, 1] */
	double r_type;             /* 0, 0.1, 0.5 or 1 */
	double title_score;        /* share of the type's nouns in the title's */
	size_t attributes_met, options_met;
	int price_ok;              /* 1 when the price is within the limit */
	double price;              /* parsed price, -1 when none */
} kn_reward;

/* The reward of `read` against spec into *out; read NULL = nothing bought (all 0). Errors (then
 * *out is all 0): KN_EIO when the WordNet lexicon cannot be read (err names the file and the
 * package), KN_ENOMEM. */
int kn_purchase_reward(const kn_purchase *spec, const kn_purchase_read *read, kn_reward *out,
                       kn_err *err);

/* title_score of WebShop's type rule: the share of the desired name's nouns (a list) found among
 * the bought name's nouns (a set); 0.2 when the desired name has none. KN_EIO (the lexicon),
 * KN_ENOMEM. */
int kn_purchase_title_score(double *out, const char *desired, const char *bought, kn_err *err);

/* WebShop's fuzzy match (thefuzz token_set_ratio with difflib's ratio, fuzz.h): 0..100; 0 when
 * out of memory. */
int kn_purchase_token_set_ratio(const char *a, const char *b);

/* WebShop's price of a price text: the numbers after each "$" (keynode: the whole text when there
 * is no "$"), every character but digits and "." dropped; one number is the price, two a range
 * (WebShop draws the price in it at random: keynode takes the larger, so a range is within the
 * limit only when all of it is); further numbers are ignored. -1 when unreadable (no digits, or
 * not one decimal number). */
double kn_purchase_price(const char *text);

/* WebShop's normalize_color: the first colour name of its list found in s, else s (borrowed
 * or static). */
const char *kn_purchase_normalize_color(const char *s);

/* The JavaScript the monitor evaluates on the page to read what is bought: returns
 * {title, attributes: [], options: [], price, bullets: [], description} as JSON text. Options are
 * read only from the elements the agent acted on: touched holds the selectors of its click and
 * select events (an element counts when a selector names it, or names a label of it); a
 * pre-selected option the agent never touched is not read. *out is the caller's. */
int kn_purchase_script(char **out, const kn_purchase *spec, const char *const *touched,
                       size_t n_touched);

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
