/* purchase.c — WebShop's graded purchase reward (purchase.h), by the rules of
 * web_agent_site/engine/goal.py: the type reward from the share of the desired name's nouns in the
 * bought title (nouns by wordnet.h, spaCy's tagger in WebShop), attributes met by thefuzz's
 * token_set_ratio > 85 (fuzz.h) with an attribute read or as a substring of the lower-cased title,
 * bullet points joined by spaces (a line break read inside one is a boundary too), or description;
 * options the agent chose met by the same fuzzy match after normalize_color; the price limit on the
 * price as WebShop reads a price text; the reading script and its JSON. keynodes/README.md
 * "Purchase reward" lists where keynode differs (the tagger, no query/category match, a price
 * range). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "keynode/purchase.h"
#include "keynode/pytext.h"
#include "keynode/wordnet.h"
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

int kn_purchase_token_set_ratio(const char *a, const char *b)
{
	int r;
	return kn_fuzz_token_set_ratio(&r, a, b, KN_FUZZ_DIFFLIB) == 0 ? r : 0;
}

/* --- the type rule --- */

/* The lower-cased nouns of name into w (each the caller's), a list in order. Tokens as spaCy cuts
 * a name, roughly: runs of letters and digits (str.isalnum), a "." between two of them inside the
 * token ("d.o.n", "3.1"); the "s" of "'s" is no token. Numbers (ASCII digits and dots) are not
 * nouns, nor what kn_wordnet_is_noun says is not. Returns the count, or -1 out of memory. */
static long nouns(const kn_wordnet *wn, const char *name, char ***w)
{
	size_t n = strlen(name), cnt = 0;
	*w = calloc(n / 2 + 1, sizeof **w);
	if (!*w)
		return -1;
	for (size_t i = 0; i < n;) {
		unsigned cp, prev = 0;
		size_t l = kn_py_next(name + i, n - i, &cp);
		if (cp == 0xFFFFFFFFu || !kn_py_isalnum(cp)) {
			i += l;
			continue;
		}
		size_t b = i, e = i;
		int numeric = 1;
		while (e < n) {
			l = kn_py_next(name + e, n - e, &cp);
			if (cp == '.' && e + l < n) { /* a dot between two alnum characters stays inside */
				unsigned nx;
				kn_py_next(name + e + l, n - e - l, &nx);
				if (prev && nx != 0xFFFFFFFFu && kn_py_isalnum(nx)) {
					e += l;
					prev = cp;
					continue;
				}
			}
			if (cp == 0xFFFFFFFFu || !kn_py_isalnum(cp))
				break;
			numeric &= cp < 0x80 && cp >= '0' && cp <= '9';
			prev = cp;
			e += l;
		}
		i = e;
		int apos_s = e - b == 1 && (name[b] == 's' || name[b] == 'S') && b > 0 &&
		             (name[b - 1] == '\'' ||
		              (b >= 3 && memcmp(name + b - 3, "\xe2\x80\x99", 3) == 0));
		if (numeric || apos_s)
			continue;
		char *low = NULL;
		if (kn_py_lower(&low, name + b, e - b) != 0)
			return -1;
		if (!kn_wordnet_is_noun(wn, low)) {
			free(low);
			continue;
		}
		(*w)[cnt++] = low;
	}
	return (long)cnt;
}

static void free_words(char **w, long n)
{
	for (long i = 0; i < n; i++)
		free(w[i]);
	free(w);
}

int kn_purchase_title_score(double *out, const char *desired, const char *bought, kn_err *err)
{
	const kn_wordnet *wn;
	char **d = NULL, **b = NULL;
	long nd = -1, nb = -1;
	*out = 0;
	int rc = kn_wordnet_shared(&wn, err);
	if (rc)
		return rc;
	nd = nouns(wn, desired, &d);
	nb = nd < 0 ? -1 : nouns(wn, bought, &b);
	if (nd < 0 || nb < 0) {
		rc = kn_err_set(err, KN_ENOMEM, "out of memory");
	} else if (nd == 0) {
		*out = 0.2; /* WebShop: no desired noun */
	} else {
		/* len(set(bought) & set(desired)) / len(desired) */
		long hit = 0;
		for (long i = 0; i < nd; i++) {
			int seen = 0, found = 0;
			for (long k = 0; k < i && !seen; k++)
				seen = strcmp(d[k], d[i]) == 0;
			for (long k = 0; k < nb && !found && !seen; k++)
				found = strcmp(b[k], d[i]) == 0;
			hit += found;
		}
		*out = (double)hit / (double)nd;
	}
	free_words(d, nd < 0 ? 0 : nd);
	free_words(b, nb < 0 ? 0 : nb);
	return rc;
}

/* WebShop's r_type from title_score (keynode has no query or category to match). */
static double type_reward(double title_score)
{
	double r = title_score > 0.2 ? 1.0 : 0.5;
	if (title_score < 0.1)
		r = 0.1;
	if (title_score == 0.0)
		r = 0.0;
	return r;
}

/* --- attributes and price --- */

/* g in str.lower() of text (Python's `in`: a substring; byte-wise is code-point-wise on UTF-8). */
static int in_lower(const char *g, const char *text, int *found)
{
	char *low = NULL;
	if (!text)
		return 0;
	if (kn_py_lower(&low, text, strlen(text)) != 0)
		return KN_ENOMEM;
	*found = strstr(low, g) != NULL;
	free(low);
	return 0;
}

/* goal.py's " ".join(BulletPoints) of what the page shows. A line break inside an item read is a
 * bullet point boundary too: innerText puts one between block elements, so a reader whose selector
 * names the list (or a bullet with <br>) gets its points as lines, and goal.py's join of those
 * points is the same text with a single space there. So every run of ASCII whitespace holding a
 * line break becomes one space; other whitespace stays as read (goal.py does not trim). */
static char *joined(const char *const *items, size_t n)
{
	static const char ws[] = " \t\r\n\f\v";
	size_t len = 1;
	for (size_t i = 0; i < n; i++)
		len += strlen(items[i]) + 1;
	char *r = malloc(len), *p = r;
	if (!r)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (i)
			*p++ = ' ';
		for (const char *s = items[i]; *s;) {
			size_t run = strspn(s, ws);
			if (run && (memchr(s, '\n', run) || memchr(s, '\r', run))) {
				*p++ = ' ';
			} else if (run) {
				memcpy(p, s, run);
				p += run;
			} else {
				*p++ = *s;
				run = 1;
			}
			s += run;
		}
	}
	*p = '\0';
	return r;
}

static int attribute_met(const kn_purchase *spec, const kn_purchase_read *rd, const char *bullets,
                         const char *g, int *met)
{
	int rc = 0;
	*met = 0;
	for (size_t i = 0; i < rd->n_attributes && !*met; i++) {
		int r;
		if ((rc = kn_fuzz_token_set_ratio(&r, rd->attributes[i], g, spec->scorer)) != 0)
			return rc;
		*met = r > 85;
	}
	if (!*met && (rc = in_lower(g, rd->title ? rd->title : "", met)) != 0)
		return rc;
	if (!*met && (rc = in_lower(g, bullets, met)) != 0)
		return rc;
	if (!*met && (rc = in_lower(g, rd->description ? rd->description : "", met)) != 0)
		return rc;
	return 0;
}

double kn_purchase_price(const char *text)
{
	if (!text)
		return -1;
	const char *p = strchr(text, '$');
	p = p ? p + 1 : text; /* keynode: a text without "$" is one number */
	double v[2];
	int n = 0;
	while (n < 2) {
		/* re.sub(r"[^\d.]", "", piece) up to the next "$", then Decimal(): one decimal number */
		char num[64];
		size_t k = 0, digits = 0, dots = 0;
		for (; *p && *p != '$'; p++)
			if (((*p >= '0' && *p <= '9') || *p == '.') && k < sizeof num - 1) {
				digits += *p != '.';
				dots += *p == '.';
				num[k++] = *p;
			}
		num[k] = '\0';
		if (!digits || dots > 1)
			return -1;
		v[n++] = strtod(num, NULL);
		if (*p != '$')
			break;
		p++;
	}
	return n == 2 && v[0] > v[1] ? v[0] : v[n - 1];
}

int kn_purchase_reward(const kn_purchase *spec, const kn_purchase_read *rd, kn_reward *out,
                       kn_err *err)
{
	memset(out, 0, sizeof *out);
	out->price = -1;
	if (!spec || !rd)
		return 0;
	int rc = kn_purchase_title_score(&out->title_score, spec->type ? spec->type : "",
	                                 rd->title ? rd->title : "", err);
	char *bullets = rc ? NULL : joined(rd->bullets, rd->n_bullets);
	if (!rc && !bullets)
		rc = kn_err_set(err, KN_ENOMEM, "out of memory");
	for (size_t g = 0; !rc && g < spec->n_attributes; g++) {
		int met;
		rc = attribute_met(spec, rd, bullets, spec->attributes[g], &met);
		out->attributes_met += (size_t)met;
	}
	free(bullets);
	for (size_t g = 0; !rc && g < spec->n_options; g++) {
		const char *go = kn_purchase_normalize_color(spec->options[g].value);
		for (size_t i = 0; !rc && i < rd->n_options; i++) {
			int r;
			rc = kn_fuzz_token_set_ratio(&r, kn_purchase_normalize_color(rd->options[i]), go,
			                             spec->scorer);
			if (!rc && r > 85) {
				out->options_met++;
				break;
			}
		}
	}
	if (rc) {
		if (rc == KN_ENOMEM)
			kn_err_set(err, rc, "out of memory");
		memset(out, 0, sizeof *out);
		out->price = -1;
		return rc;
	}
	out->r_type = type_reward(out->title_score);
	out->price = kn_purchase_price(rd->price);
	out->price_ok = out->price >= 0 &&
	                out->price <= (spec->price_max > 0 ? spec->price_max : NO_LIMIT);
	double den = (double)(spec->n_attributes + spec->n_options + 1);
	out->reward = ((double)out->attributes_met + (double)out->options_met + out->price_ok) / den *
	              out->r_type;
	return 0;
}

/* --- reading the page --- */

#define DEF_TITLE "h1"
#define DEF_ATTRS ".attributes li"
#define DEF_OPTIONS "select, input[type=radio]:checked, input[type=checkbox]:checked"
#define DEF_PRICE ".price"
#define DEF_BULLETS ".bullets li"
#define DEF_DESCRIPTION ".description"

int kn_purchase_script(char **out, const kn_purchase *spec, const char *const *touched,
                       size_t n_touched)
{
	*out = NULL;
	json_t *sel = json_pack("[s, s, s, s, s, s, []]",
	                        spec->read_title ? spec->read_title : DEF_TITLE,
	                        spec->read_attributes ? spec->read_attributes : DEF_ATTRS,
	                        spec->read_options ? spec->read_options : DEF_OPTIONS,
	                        spec->read_price ? spec->read_price : DEF_PRICE,
	                        spec->read_bullets ? spec->read_bullets : DEF_BULLETS,
	                        spec->read_description ? spec->read_description : DEF_DESCRIPTION);
	for (size_t i = 0; sel && i < n_touched; i++)
		json_array_append_new(json_array_get(sel, 6), json_string(touched[i]));
	char *lit = sel ? json_dumps(sel, JSON_COMPACT) : NULL;
	json_decref(sel);
	if (!lit)
		return KN_ENOMEM;
	/* an option element counts when a touched selector names it or a label of it */
	static const char fmt[] =
		"(() => { const [ts, as, os, ps, bs, ds, touched] = %s;"
		" const txt = e => String(e.innerText !== undefined ? e.innerText : e.textContent).trim();"
		" const one = s => { const e = document.querySelector(s); return e ? txt(e) : null; };"
		" const all = s => [...document.querySelectorAll(s)].map(txt).filter(x => x);"
		" const acted = touched.map(s => { try { return document.querySelector(s); }"
		" catch (x) { return null; } }).filter(t => t);"
		" const chosen = e => acted.some(t => t === e || (t.localName === 'label' && t.control === e));"
		" const opts = [...document.querySelectorAll(os)].filter(chosen).map(e =>"
		" e.localName === 'select' ? (e.selectedOptions[0] ? e.selectedOptions[0].value : '') :"
		" (e.checked === false ? '' : e.value)).filter(x => x);"
		" return JSON.stringify({title: one(ts), attributes: all(as), options: opts, price: one(ps),"
		" bullets: all(bs), description: one(ds)}); })()";
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
	const char **attrs, **opts, **bullets;
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
	h->bullets = strings(json_object_get(j, "bullets"), &read->n_bullets);
	read->description = json_string_value(json_object_get(j, "description"));
	read->attributes = h->attrs;
	read->options = h->opts;
	read->bullets = h->bullets;
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
	free(h->bullets);
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
	free(p->read_bullets);
	free(p->read_description);
	free(p);
}
