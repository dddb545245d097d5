/* purchase.c — WebShop's graded purchase reward (purchase.h), after web_agent_site/engine/goal.py:
 * the type reward from the title's share of the type's words, attributes met by a fuzzy match
 * (token_set_ratio > 85) with any attribute read or as a substring of the title or attribute
 * texts, options met by a fuzzy match of colour-normalised values, and the price limit; the
 * reading script and its JSON. keynodes/README.md "Purchase reward" lists where keynode differs
 * (no spaCy noun tagging, no query/category match). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "keynode/purchase.h"

#define NO_LIMIT 1000000.0 /* WebShop's price_upper when an instruction has none */

/* The colour names WebShop's normalize_color looks for, in its order (data, not code). */
static const char *const colors[] = {
	"alabaster", "apricot", "aqua", "ash", "asphalt", "azure", "banana", "beige", "black",
	"blue", "blush", "bordeaux", "bronze", "brown", "burgundy", "camel", "camo", "caramel",
	"champagne", "charcoal", "cheetah", "chestnut", "chocolate", "christmas", "coffee", "cognac",
	"copper", "coral", "cranberry", "cream", "crystal", "dark", "denim", "eggplant", "elephant",
	"espresso", "fuchsia", "gold", "granite", "grape", "graphite", "grass", "gray", "green",
	"grey", "heather", "indigo", "ivory", "ivy", "khaki", "lavender", "lemon", "leopard", "light",
	"lilac", "lime", "magenta", "maroon", "mauve", "merlot", "midnight", "mint", "mocha",
	"multicolor", "mushroom", "mustard", "natural", "navy", "nude", "olive", "orange", "peach",
	"pewter", "pink", "plum", "purple", "rainbow", "red", "rose", "royal", "rust", "sand",
	"sapphire", "seashell", "silver", "skull", "slate", "steel", "stone", "stonewash",
	"sunflower", "tan", "taupe", "teal", "tiger", "turquoise", "violet", "walnut", "wheat",
	"white", "wine", "yellow",
};

const char *kn_purchase_normalize_color(const char *s)
{
	for (size_t i = 0; s && i < sizeof colors / sizeof colors[0]; i++)
		if (strstr(s, colors[i]))
			return colors[i];
	return s;
}

/* thefuzz's full_process with force_ascii: non-ASCII dropped, non-word characters (not letters,
 * digits or '_') become spaces, lower case. Then the whitespace-separated words, sorted and
 * deduplicated, into w (pointers into buf). */
static size_t words(char *buf, const char *s, char **w, size_t cap)
{
	size_t k = 0, n = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p >= 0x80)
			continue;
		buf[k++] = (char)(isalnum(*p) || *p == '_' ? tolower(*p) : ' ');
	}
	buf[k] = '\0';
	for (char *tok = strtok(buf, " "); tok && n < cap; tok = strtok(NULL, " "))
		w[n++] = tok;
	for (size_t i = 1; i < n; i++) /* insertion sort: few words */
		for (size_t j = i; j > 0 && strcmp(w[j - 1], w[j]) > 0; j--) {
			char *t = w[j];
			w[j] = w[j - 1];
			w[j - 1] = t;
		}
	size_t u = 0;
	for (size_t i = 0; i < n; i++)
		if (u == 0 || strcmp(w[u - 1], w[i]) != 0)
			w[u++] = w[i];
	return u;
}

static int has_word(char *const *w, size_t n, const char *x)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(w[i], x) == 0)
			return 1;
	return 0;
}

/* Indel distance: |a| + |b| − 2·LCS(a, b). */
static size_t indel(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t *row = calloc(lb + 1, sizeof *row);
	if (!row)
		return la + lb;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = 0;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			row[j] = a[i - 1] == b[j - 1] ? diag + 1 : (row[j] > row[j - 1] ? row[j] : row[j - 1]);
			diag = up;
		}
	}
	size_t lcs = row[lb];
	free(row);
	return la + lb - 2 * lcs;
}

static double norm_score(size_t dist, size_t lensum)
{
	return lensum ? 100.0 - 100.0 * (double)dist / (double)lensum : 100.0;
}

/* Join the words of w not in other (sorted) with single spaces into out. */
static size_t join_diff(char *out, char *const *w, size_t n, char *const *other, size_t no)
{
	size_t k = 0;
	out[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (has_word(other, no, w[i]))
			continue;
		k += (size_t)sprintf(out + k, "%s%s", k ? " " : "", w[i]);
	}
	return k;
}

/* Python's round(): halves to even. */
static int py_round(double x)
{
	double f = floor(x), d = x - f;
	if (d > 0.5 || (d == 0.5 && fmod(f, 2) != 0))
		f += 1;
	return (int)f;
}

int kn_purchase_token_set_ratio(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *ba = malloc(la + 1), *bb = malloc(lb + 1), *da = malloc(la + 1), *db = malloc(lb + 1);
	char **wa = malloc((la / 2 + 1) * sizeof *wa), **wb = malloc((lb / 2 + 1) * sizeof *wb);
	int r = 0;
	if (!ba || !bb || !da || !db || !wa || !wb)
		goto done;
	size_t na = words(ba, a, wa, la / 2 + 1), nb = words(bb, b, wb, lb / 2 + 1);
	if (!na || !nb)
		goto done;
	size_t sect = 0, n_sect = 0;
	for (size_t i = 0; i < na; i++)
		if (has_word(wb, nb, wa[i]))
			sect += strlen(wa[i]) + (n_sect++ ? 1 : 0);
	size_t ab = join_diff(da, wa, na, wb, nb), ba_len = join_diff(db, wb, nb, wa, na);
	if (n_sect && (!ab || !ba_len)) { /* one is part of the other */
		r = 100;
		goto done;
	}
	size_t sect_ab = sect + (sect ? 1 : 0) + ab, sect_ba = sect + (sect ? 1 : 0) + ba_len;
	double best = norm_score(indel(da, db), sect_ab + sect_ba);
	if (sect) {
		double s1 = norm_score((sect ? 1 : 0) + ab, sect + sect_ab);
		double s2 = norm_score((sect ? 1 : 0) + ba_len, sect + sect_ba);
		best = s1 > best ? s1 : best;
		best = s2 > best ? s2 : best;
	}
	r = py_round(best);
done:
	free(ba), free(bb), free(da), free(db), free(wa), free(wb);
	return r;
}

static int contains_lower(const char *hay, const char *needle)
{
	if (!hay)
		return 0;
	char *low = strdup(hay);
	if (!low)
		return 0;
	for (char *p = low; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	int ok = strstr(low, needle) != NULL;
	free(low);
	return ok;
}

/* The type reward: the title's share of the type's words (WebShop uses the nouns; keynode all
 * words of `type`), then WebShop's steps (no query or category match here). */
static double type_reward(const char *type, const char *title, double *title_score)
{
	size_t lt = strlen(type), lti = strlen(title);
	char *bt = malloc(lt + 1), *bti = malloc(lti + 1);
	char **wt = malloc((lt / 2 + 1) * sizeof *wt), **wti = malloc((lti / 2 + 1) * sizeof *wti);
	*title_score = 0;
	if (bt && bti && wt && wti) {
		/* the type's words as a list (WebShop divides by its length), the title's as a set */
		size_t n = 0;
		for (const unsigned char *p = (const unsigned char *)type; *p;) {
			while (*p && !isalnum(*p))
				p++;
			const unsigned char *s = p;
			while (*p && isalnum(*p))
				p++;
			if (p > s)
				n++;
		}
		size_t nt = words(bt, type, wt, lt / 2 + 1), nti = words(bti, title, wti, lti / 2 + 1);
		size_t hit = 0;
		for (size_t i = 0; i < nt; i++)
			hit += has_word(wti, nti, wt[i]);
		*title_score = n ? (double)hit / (double)n : 0.2;
	}
	free(bt), free(bti), free(wt), free(wti);
	double r = *title_score > 0.2 ? 1.0 : 0.5;
	if (*title_score < 0.1)
		r = 0.1;
	if (*title_score == 0.0)
		r = 0.0;
	return r;
}

static double parse_price(const char *s)
{
	if (!s)
		return -1;
	const char *p = s;
	while (*p && !(*p >= '0' && *p <= '9'))
		p++;
	if (!*p)
		return -1;
	char num[64];
	size_t k = 0;
	for (; *p && k < sizeof num - 1 && ((*p >= '0' && *p <= '9') || *p == ',' || *p == '.'); p++)
		if (*p != ',')
			num[k++] = *p;
	num[k] = '\0';
	return strtod(num, NULL);
}

void kn_purchase_reward(const kn_purchase *spec, const kn_purchase_read *rd, kn_reward *out)
{
	memset(out, 0, sizeof *out);
	out->price = -1;
	if (!spec || !rd)
		return;
	const char *title = rd->title ? rd->title : "";
	out->r_type = type_reward(spec->type ? spec->type : "", title, &out->title_score);
	for (size_t g = 0; g < spec->n_attributes; g++) {
		const char *ga = spec->attributes[g];
		int met = 0;
		for (size_t i = 0; i < rd->n_attributes && !met; i++)
			met = kn_purchase_token_set_ratio(rd->attributes[i], ga) > 85;
		if (!met)
			met = contains_lower(title, ga);
		for (size_t i = 0; i < rd->n_attributes && !met; i++) /* the bullet points */
			met = contains_lower(rd->attributes[i], ga);
		out->attributes_met += (size_t)met;
	}
	for (size_t g = 0; g < spec->n_options; g++) {
		const char *go = kn_purchase_normalize_color(spec->options[g].value);
		for (size_t i = 0; i < rd->n_options; i++)
			if (kn_purchase_token_set_ratio(kn_purchase_normalize_color(rd->options[i]), go) > 85) {
				out->options_met++;
				break;
			}
	}
	out->price = parse_price(rd->price);
	out->price_ok = out->price >= 0 &&
	                out->price <= (spec->price_max > 0 ? spec->price_max : NO_LIMIT);
	double den = (double)(spec->n_attributes + spec->n_options + 1);
	out->reward = ((double)out->attributes_met + (double)out->options_met + out->price_ok) / den *
	              out->r_type;
}

/* --- reading the page --- */

#define DEF_TITLE "h1"
#define DEF_ATTRS ".attributes li"
#define DEF_OPTIONS "select, input[type=radio]:checked, input[type=checkbox]:checked"
#define DEF_PRICE ".price"

int kn_purchase_script(char **out, const kn_purchase *spec)
{
	*out = NULL;
	json_t *sel = json_pack("[s, s, s, s]", spec->read_title ? spec->read_title : DEF_TITLE,
	                        spec->read_attributes ? spec->read_attributes : DEF_ATTRS,
	                        spec->read_options ? spec->read_options : DEF_OPTIONS,
	                        spec->read_price ? spec->read_price : DEF_PRICE);
	char *lit = sel ? json_dumps(sel, JSON_COMPACT) : NULL;
	json_decref(sel);
	if (!lit)
		return KN_ENOMEM;
	static const char fmt[] =
		"(() => { const [ts, as, os, ps] = %s;"
		" const txt = e => String(e.innerText !== undefined ? e.innerText : e.textContent).trim();"
		" const one = s => { const e = document.querySelector(s); return e ? txt(e) : null; };"
		" const opts = [...document.querySelectorAll(os)].map(e => e.localName === 'select' ?"
		" (e.selectedOptions[0] ? e.selectedOptions[0].value : '') : e.value).filter(x => x);"
		" return JSON.stringify({title: one(ts), attributes: [...document.querySelectorAll(as)]"
		".map(txt).filter(x => x), options: opts, price: one(ps)}); })()";
	size_t n = strlen(lit) + sizeof fmt;
	char *r = malloc(n);
	if (r)
		snprintf(r, n, fmt, lit);
	free(lit);
	*out = r;
	return r ? 0 : KN_ENOMEM;
}

struct read_handle {
	json_t *j;
	const char **attrs, **opts;
};

static const char **strings(json_t *a, size_t *n)
{
	*n = 0;
	if (!json_is_array(a))
		return NULL;
	const char **r = calloc(json_array_size(a) + 1, sizeof *r);
	size_t i;
	json_t *x;
	json_array_foreach(a, i, x)
		if (r && json_is_string(x))
			r[(*n)++] = json_string_value(x);
	return r;
}

int kn_purchase_read_parse(void **handle, kn_purchase_read *read, const char *json)
{
	*handle = NULL;
	memset(read, 0, sizeof *read);
	json_t *j = json_loads(json, 0, NULL);
	if (!json_is_object(j)) {
		json_decref(j);
		return KN_EINVAL;
	}
	struct read_handle *h = calloc(1, sizeof *h);
	if (!h) {
		json_decref(j);
		return KN_ENOMEM;
	}
	h->j = j;
	read->title = json_string_value(json_object_get(j, "title"));
	read->price = json_string_value(json_object_get(j, "price"));
	h->attrs = strings(json_object_get(j, "attributes"), &read->n_attributes);
	h->opts = strings(json_object_get(j, "options"), &read->n_options);
	read->attributes = h->attrs;
	read->options = h->opts;
	*handle = h;
	return 0;
}

void kn_purchase_read_free(void *handle)
{
	struct read_handle *h = handle;
	if (!h)
		return;
	json_decref(h->j);
	free(h->attrs);
	free(h->opts);
	free(h);
}

struct json_t *kn_reward_json(const kn_reward *r, const kn_purchase *spec, int purchased)
{
	json_t *j = json_pack("{s:b, s:f, s:f, s:I, s:I, s:b}", "purchased", purchased, "type",
	                      r->r_type, "title_score", r->title_score, "attributes_met",
	                      (json_int_t)r->attributes_met, "options_met", (json_int_t)r->options_met,
	                      "price_ok", r->price_ok);
	if (!j)
		return NULL;
	/* the parts as shares, null when the instruction asks for none (WebShop's r_att, r_option) */
	json_object_set_new(j, "attribute", spec->n_attributes
	                    ? json_real((double)r->attributes_met / (double)spec->n_attributes)
	                    : json_null());
	json_object_set_new(j, "option", spec->n_options
	                    ? json_real((double)r->options_met / (double)spec->n_options)
	                    : json_null());
	json_object_set_new(j, "price", json_integer(r->price_ok));
	json_object_set_new(j, "price_read", r->price >= 0 ? json_real(r->price) : json_null());
	return j;
}

void kn_purchase_free(kn_purchase *p)
{
	if (!p)
		return;
	free(p->type);
	for (size_t i = 0; i < p->n_attributes; i++)
		free(p->attributes[i]);
	free(p->attributes);
	for (size_t i = 0; i < p->n_options; i++)
		free(p->options[i].field), free(p->options[i].value);
	free(p->options);
	free(p->buy);
	free(p->read_title);
	free(p->read_attributes);
	free(p->read_options);
	free(p->read_price);
	free(p);
}
