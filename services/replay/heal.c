/* heal.c — locator healing (heal.h): the expected signature of a step's element derived from its
 * selector and hints, the page's candidates parsed from JSON, and the weighted similarity score.
 * Weights and threshold are explained in services/replay/README.md. */
#include <ctype.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "keynode/generated.h"
#include "keynode/selector.h"

#include "heal.h"

/* feature weights (README.md "Healing") */
#define W_TAG 1.0
#define W_ID 3.0
#define W_NAME 2.0
#define W_CLASSES 1.5
#define W_TEXT 3.0
#define W_ARIA 2.0
#define W_ROLE 1.0
#define W_HREF 2.0
#define W_PATH 1.0

#define LEV_MAX 128

void kn_heal_sig_clear(kn_heal_sig *s)
{
	if (!s)
		return;
	free(s->tag);
	free(s->id);
	free(s->name);
	free(s->aria);
	free(s->role);
	free(s->href);
	free(s->text);
	free(s->classes);
	free(s->path);
	memset(s, 0, sizeof *s);
}

void kn_heal_sigs_free(kn_heal_sig *s, size_t n)
{
	for (size_t i = 0; s && i < n; i++)
		kn_heal_sig_clear(&s[i]);
	free(s);
}

static int set(char **slot, const char *v, size_t n)
{
	free(*slot);
	*slot = NULL;
	if (!v)
		return 0;
	if (!(*slot = malloc(n + 1)))
		return KN_ENOMEM;
	memcpy(*slot, v, n);
	(*slot)[n] = '\0';
	return 0;
}

static int sets(char **slot, const char *v) { return set(slot, v, v ? strlen(v) : 0); }

/* Append " word" (or "word") to a space-separated list. */
static int append_word(char **list, const char *w, size_t n)
{
	size_t have = *list ? strlen(*list) : 0;
	char *p = realloc(*list, have + n + 2);
	if (!p)
		return KN_ENOMEM;
	if (have)
		p[have++] = ' ';
	memcpy(p + have, w, n);
	p[have + n] = '\0';
	*list = p;
	return 0;
}

/* ---- string similarity ---- */

/* Lower-cased, whitespace collapsed, trimmed copy (at most cap bytes of s). */
char *kn_heal_fold(const char *s, size_t cap)
{
	size_t n = strlen(s);
	char *o = malloc((n < cap ? n : cap) + 1), *w = o;
	if (!o)
		return NULL;
	int space = 0;
	for (size_t i = 0; i < n && (size_t)(w - o) < cap; i++) {
		unsigned char c = (unsigned char)s[i];
		if (isspace(c)) {
			space = w != o;
			continue;
		}
		if (space)
			*w++ = ' ';
		space = 0;
		if ((size_t)(w - o) < cap)
			*w++ = (char)tolower(c);
	}
	*w = '\0';
	return o;
}

static size_t levenshtein(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > LEV_MAX)
		la = LEV_MAX;
	if (lb > LEV_MAX)
		lb = LEV_MAX;
	size_t row[LEV_MAX + 1], prev;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t cur = row[j];
			size_t sub = prev + (a[i - 1] != b[j - 1]);
			size_t del = row[j] + 1, ins = row[j - 1] + 1;
			row[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
			prev = cur;
		}
	}
	return row[lb];
}

/* Tokens: runs of letters and digits (bytes >= 0x80 count as letters). */
size_t kn_heal_tokens(const char *s, const char **start, size_t *len, size_t max)
{
	size_t n = 0;
	for (const char *p = s; *p && n < max;) {
		while (*p && !isalnum((unsigned char)*p) && (unsigned char)*p < 0x80)
			p++;
		const char *b = p;
		while (*p && (isalnum((unsigned char)*p) || (unsigned char)*p >= 0x80))
			p++;
		if (p > b) {
			start[n] = b;
			len[n++] = (size_t)(p - b);
		}
	}
	return n;
}

static double dice(const char *a, const char *b)
{
	enum { MAXT = 64 };
	const char *sa[MAXT], *sb[MAXT];
	size_t la[MAXT], lb[MAXT];
	size_t na = kn_heal_tokens(a, sa, la, MAXT), nb = kn_heal_tokens(b, sb, lb, MAXT);
	if (!na || !nb)
		return 0;
	char used[MAXT] = {0};
	size_t common = 0;
	for (size_t i = 0; i < na; i++)
		for (size_t j = 0; j < nb; j++)
			if (!used[j] && la[i] == lb[j] && memcmp(sa[i], sb[j], la[i]) == 0) {
				used[j] = 1;
				common++;
				break;
			}
	return 2.0 * (double)common / (double)(na + nb);
}

double kn_heal_text_sim(const char *a, const char *b)
{
	if (!a || !b || !*a || !*b)
		return 0;
	char *fa = kn_heal_fold(a, 4096), *fb = kn_heal_fold(b, 4096);
	double s = 0;
	if (fa && fb && *fa && *fb) {
		if (strcmp(fa, fb) == 0) {
			s = 1;
		} else {
			size_t la = strlen(fa) < LEV_MAX ? strlen(fa) : LEV_MAX;
			size_t lb = strlen(fb) < LEV_MAX ? strlen(fb) : LEV_MAX;
			double lev = 1.0 - (double)levenshtein(fa, fb) / (double)(la > lb ? la : lb);
			double d = dice(fa, fb);
			s = lev > d ? lev : d;
			if (s < 0)
				s = 0;
		}
	}
	free(fa);
	free(fb);
	return s;
}

/* ---- signature pieces ---- */

/* A descriptor "tag#id.c1.c2" split into its parts. */
struct desc {
	char tag[32], id[128];
	const char *cls[16];
	size_t cls_len[16], n_cls;
};

static void copy_part(char *dst, size_t cap, const char *s, size_t n)
{
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

static void parse_desc(struct desc *d, const char *s, size_t n)
{
	memset(d, 0, sizeof *d);
	size_t i = 0;
	while (i < n && s[i] != '#' && s[i] != '.')
		i++;
	copy_part(d->tag, sizeof d->tag, s, i);
	for (char *p = d->tag; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	while (i < n) {
		char kind = s[i++];
		size_t b = i;
		while (i < n && s[i] != '#' && s[i] != '.')
			i++;
		if (kind == '#')
			copy_part(d->id, sizeof d->id, s + b, i - b);
		else if (d->n_cls < 16 && i > b) {
			d->cls[d->n_cls] = s + b;
			d->cls_len[d->n_cls++] = i - b;
		}
	}
}

/* Every part of expected descriptor e is in candidate descriptor c. */
static int desc_covers(const struct desc *c, const struct desc *e)
{
	if (*e->tag && strcmp(e->tag, "*") != 0 && strcmp(e->tag, c->tag) != 0)
		return 0;
	if (*e->id && strcmp(e->id, c->id) != 0)
		return 0;
	for (size_t i = 0; i < e->n_cls; i++) {
		int found = 0;
		for (size_t j = 0; j < c->n_cls && !found; j++)
			found = e->cls_len[i] == c->cls_len[j] && memcmp(e->cls[i], c->cls[j], e->cls_len[i]) == 0;
		if (!found)
			return 0;
	}
	return 1;
}

/* The space-separated words of s (NULL: none) as (start, length) pairs in w and len, the first max
 * of them; how many. */
static size_t split_words(const char **w, size_t *len, size_t max, const char *s)
{
	size_t n = 0;
	for (const char *p = s ? s : ""; *p && n < max;) {
		while (*p == ' ')
			p++;
		const char *b = p;
		while (*p && *p != ' ')
			p++;
		if (p > b) {
			w[n] = b;
			len[n++] = (size_t)(p - b);
		}
	}
	return n;
}

/* Path similarity: the share of the expected ancestors found, in order, among the candidate's. */
static double path_sim(const char *expected, const char *cand)
{
	enum { MAXP = 32 };
	const char *es[MAXP], *cs[MAXP];
	size_t el[MAXP], cl[MAXP];
	size_t ne = split_words(es, el, MAXP, expected), nc = split_words(cs, cl, MAXP, cand);
	if (!ne)
		return 0;
	size_t found = 0, at = 0;
	for (size_t i = 0; i < ne; i++) {
		struct desc e, c;
		parse_desc(&e, es[i], el[i]);
		for (size_t j = at; j < nc; j++) {
			parse_desc(&c, cs[j], cl[j]);
			if (desc_covers(&c, &e)) {
				found++;
				at = j + 1;
				break;
			}
		}
	}
	return (double)found / (double)ne;
}

/* The ancestor descriptors of a path, "html" and ">" left out: a recorded dom_path is written
 * "html > body > … > a", the element itself last (dropped), a page's or selector's path holds the
 * ancestors alone, separated by spaces. */
static size_t ancestors(const char **w, size_t *len, size_t max, const char *s)
{
	const char *t[64];
	size_t tl[64], n = split_words(t, tl, 64, s), k = 0;
	int arrows = 0;
	for (size_t i = 0; i < n; i++)
		arrows |= tl[i] == 1 && t[i][0] == '>';
	for (size_t i = 0; i < n && k < max; i++) {
		if ((tl[i] == 1 && t[i][0] == '>') || (tl[i] == 4 && strncmp(t[i], "html", 4) == 0))
			continue;
		w[k] = t[i];
		len[k++] = tl[i];
	}
	return arrows && k ? k - 1 : k;
}

int kn_heal_place(const char *expected, const char *cand)
{
	enum { MAXP = 32 };
	const char *es[MAXP], *cs[MAXP];
	size_t el[MAXP], cl[MAXP];
	size_t ne = ancestors(es, el, MAXP, expected), nc = ancestors(cs, cl, MAXP, cand);
	struct desc c[MAXP];
	for (size_t j = 0; j < nc; j++)
		parse_desc(&c[j], cs[j], cl[j]);
	size_t ids = 0, ids_found = 0, tags_found = 0, at = 0;
	int inner = 0; /* the innermost expected id: is it an ancestor of the candidate? */
	for (size_t i = 0; i < ne; i++) {
		struct desc e;
		parse_desc(&e, es[i], el[i]);
		if (*e.id) {
			int found = 0;
			for (size_t j = 0; j < nc && !found; j++)
				found = strcmp(e.id, c[j].id) == 0;
			ids++;
			ids_found += (size_t)found;
			inner = found;
			continue;
		}
		for (size_t j = at; j < nc; j++) /* tags in order */
			if (!*e.tag || strcmp(e.tag, "*") == 0 || strcmp(e.tag, c[j].tag) == 0) {
				tags_found++;
				at = j + 1;
				break;
			}
	}
	if (ids) /* landmarks with an id say where; "body", "ul", "div" say little */
		return inner ? 1 : ids_found == 0 ? -1 : 0;
	if (!ne)
		return 0;
	return 3 * tags_found >= 2 * ne ? 1 : 3 * tags_found < ne ? -1 : 0;
}

static double class_sim(const char *a, const char *b)
{
	enum { MAXC = 32 };
	const char *sa[MAXC], *sb[MAXC];
	size_t la[MAXC], lb[MAXC];
	size_t na = split_words(sa, la, MAXC, a), nb = split_words(sb, lb, MAXC, b);
	if (!na || !nb)
		return 0;
	size_t common = 0;
	for (size_t i = 0; i < na; i++)
		for (size_t j = 0; j < nb; j++)
			if (la[i] == lb[j] && memcmp(sa[i], sb[j], la[i]) == 0) {
				common++;
				break;
			}
	return (double)common / (double)(na + nb - common); /* Jaccard */
}

/* The part of an href after scheme and host ("http://h:1/a?b" → "/a?b"). */
const char *kn_heal_href_tail(const char *h)
{
	const char *p = strstr(h, "://");
	if (!p)
		return h;
	p = strchr(p + 3, '/');
	return p ? p : "/";
}

static int known(const char *s) { return s && *s; }

static int strcasecmp_ascii(const char *a, const char *b)
{
	for (; *a && tolower((unsigned char)*a) == tolower((unsigned char)*b); a++, b++)
		;
	return tolower((unsigned char)*a) - tolower((unsigned char)*b);
}

double kn_heal_score(const kn_heal_sig *e, const kn_heal_sig *c, kn_heal_detail *detail)
{
	kn_heal_detail d = {-1, -1, -1, -1, -1, -1, -1, -1, -1};
	double sum = 0, weight = 0;
#define FEATURE(field, w, expr)                                                                    \
	if (known(e->field)) {                                                                     \
		d.field = (expr);                                                                  \
		sum += (w) * d.field;                                                              \
		weight += (w);                                                                     \
	}
	FEATURE(tag, W_TAG, known(c->tag) && strcasecmp_ascii(e->tag, c->tag) == 0 ? 1.0 : 0.0)
	FEATURE(id, W_ID, kn_heal_text_sim(e->id, c->id))
	FEATURE(name, W_NAME, kn_heal_text_sim(e->name, c->name))
	FEATURE(classes, W_CLASSES, class_sim(e->classes, c->classes))
	FEATURE(text, W_TEXT, kn_heal_text_sim(e->text, c->text))
	FEATURE(aria, W_ARIA, kn_heal_text_sim(e->aria, c->aria))
	FEATURE(role, W_ROLE, known(c->role) && strcasecmp_ascii(e->role, c->role) == 0 ? 1.0 : 0.0)
	FEATURE(href, W_HREF, known(c->href) ? kn_heal_text_sim(kn_heal_href_tail(e->href), kn_heal_href_tail(c->href)) : 0.0)
	FEATURE(path, W_PATH, path_sim(e->path, c->path))
#undef FEATURE
	if (detail)
		*detail = d;
	if (weight == 0)
		return 0;
	return sum / (weight > KN_HEAL_MIN_WEIGHT ? weight : KN_HEAL_MIN_WEIGHT);
}

int kn_heal_best(const kn_heal_sig *e, const kn_heal_sig *cands, size_t n, double *score)
{
	int best = -1;
	double bs = -1;
	for (size_t i = 0; i < n; i++) {
		double s = kn_heal_score(e, &cands[i], NULL);
		if (s > bs) { /* ties: the first in document order */
			bs = s;
			best = (int)i;
		}
	}
	if (score)
		*score = best < 0 ? 0 : bs;
	return best;
}

/* ---- the expected signature from a selector ---- */

/* The selector is read through the selector grammar (keynode/selector.h); what its tokens say is
 * gathered here: the compound (CSS) or step (XPath) being read, then, when the next begins, that
 * one as an ancestor in the path; the last one read is the element itself. */
struct reading {
	kn_heal_sig got;  /* what the selector says: the element's fields, the ancestors' path */
	kn_heal_sig pend; /* the pending compound's attributes or the pending step's predicates */
	char tag[32], id[128], cls[256];
	size_t nc;
	int open, list;
	kn_selector_lang lang;
};

/* Unquote a '…' or "…" value (or take it bare) into a new string. */
static char *unquote(const char *v, size_t n)
{
	while (n && (*v == ' '))
		v++, n--;
	while (n && v[n - 1] == ' ')
		n--;
	if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0])
		v++, n -= 2;
	char *o = malloc(n + 1);
	if (o) {
		memcpy(o, v, n);
		o[n] = '\0';
	}
	return o;
}

static int take(char **slot, char *v)
{
	if (!v)
		return KN_ENOMEM;
	if (*slot) /* a hint or an earlier part already said */
		free(v);
	else
		*slot = v;
	return 0;
}

/* Move src's fields into dst where dst says nothing yet. */
static int merge(kn_heal_sig *dst, kn_heal_sig *src)
{
	char **d[] = {&dst->tag, &dst->id, &dst->name, &dst->aria, &dst->role, &dst->href, &dst->text, &dst->classes};
	char **f[] = {&src->tag, &src->id, &src->name, &src->aria, &src->role, &src->href, &src->text, &src->classes};
	int rc = 0;
	for (size_t i = 0; i < sizeof d / sizeof d[0]; i++)
		if (*f[i]) {
			if (!rc)
				rc = take(d[i], *f[i]);
			else
				free(*f[i]);
			*f[i] = NULL;
		}
	return rc;
}

/* One CSS attribute test [name=value] into the pending signature (another operator: no value). */
static int css_attr(kn_heal_sig *s, const kn_selector_token *t)
{
	if (t->op_len != 1 || t->op[0] != '=')
		return 0;
	size_t k = t->name_len;
	const char *a = t->name;
	char **slot = k == 2 && strncmp(a, "id", 2) == 0            ? &s->id
	              : k == 4 && strncmp(a, "name", 4) == 0        ? &s->name
	              : k == 10 && strncmp(a, "aria-label", 10) == 0 ? &s->aria
	              : k == 4 && strncmp(a, "role", 4) == 0        ? &s->role
	              : k == 4 && strncmp(a, "href", 4) == 0        ? &s->href
	                                                            : NULL;
	return slot ? take(slot, unquote(t->value, t->value_len)) : 0;
}

/* One XPath predicate body: @id='x', @name=…, text()='x', normalize-space()='x',
 * contains(text(), 'x'), contains(@class, 'x'). */
static int xpath_pred(kn_heal_sig *s, const char *p, size_t n)
{
	static const struct { const char *prefix; size_t off; } attrs[] = {
		{"@id", offsetof(kn_heal_sig, id)},     {"@name", offsetof(kn_heal_sig, name)},
		{"@aria-label", offsetof(kn_heal_sig, aria)}, {"@href", offsetof(kn_heal_sig, href)},
		{"@role", offsetof(kn_heal_sig, role)}, {"text()", offsetof(kn_heal_sig, text)},
		{"normalize-space()", offsetof(kn_heal_sig, text)},
		{"normalize-space(.)", offsetof(kn_heal_sig, text)},
		{"normalize-space(text())", offsetof(kn_heal_sig, text)}, {".", offsetof(kn_heal_sig, text)}};
	while (n && *p == ' ')
		p++, n--;
	if (n > 9 && strncmp(p, "contains(", 9) == 0) {
		const char *comma = memchr(p, ',', n);
		if (!comma || p[n - 1] != ')')
			return 0;
		size_t an = (size_t)(comma - p) - 9;
		const char *arg = p + 9;
		char *v = unquote(comma + 1, (size_t)(p + n - 1 - comma - 1));
		if (!v)
			return KN_ENOMEM;
		char **slot = an == 6 && strncmp(arg, "text()", 6) == 0   ? &s->text
		              : an == 6 && strncmp(arg, "@class", 6) == 0 ? &s->classes
		              : an == 1 && *arg == '.'                     ? &s->text
		                                                           : NULL;
		if (!slot) {
			free(v);
			return 0;
		}
		return take(slot, v);
	}
	const char *eq = memchr(p, '=', n);
	if (!eq)
		return 0;
	size_t kn = (size_t)(eq - p);
	while (kn && p[kn - 1] == ' ')
		kn--;
	for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++)
		if (strlen(attrs[i].prefix) == kn && strncmp(p, attrs[i].prefix, kn) == 0) {
			char *v = unquote(eq + 1, (size_t)(p + n - eq - 1));
			return take((char **)((char *)s + attrs[i].off), v);
		}
	if (kn == 6 && strncmp(p, "@class", 6) == 0)
		return take(&s->classes, unquote(eq + 1, (size_t)(p + n - eq - 1)));
	return 0;
}

/* One predicate body: "a and b" says each side. */
static int xpath_preds(kn_heal_sig *s, const char *body, size_t bn)
{
	size_t at = 0;
	for (size_t k = 0; k + 5 <= bn; k++)
		if (strncmp(body + k, " and ", 5) == 0) {
			int rc = xpath_pred(s, body + at, k - at);
			if (rc)
				return rc;
			at = k + 5;
			k += 4; /* " and and ": the second "and" is no separator sharing the first's space */
		}
	return xpath_pred(s, body + at, bn - at);
}

/* The pending compound or step is complete: the element itself (last) or an ancestor. */
static int flush(struct reading *r, int last)
{
	int rc = 0;
	if (last) {
		rc = merge(&r->got, &r->pend);
		if (!rc && *r->tag && strcmp(r->tag, "*") != 0 && !r->got.tag)
			rc = sets(&r->got.tag, r->tag);
		if (!rc && *r->id && !r->got.id)
			rc = sets(&r->got.id, r->id);
		if (!rc && *r->cls && !r->got.classes)
			rc = sets(&r->got.classes, r->cls);
	} else if (r->lang == KN_SELECTOR_CSS) {
		char d[420];
		int len = snprintf(d, sizeof d, "%s%s%s%s%s", r->tag, *r->id ? "#" : "", r->id, r->nc ? "." : "", r->cls);
		for (char *p = d; *p; p++)
			if (*p == ' ')
				*p = '.';
		if (len > 0)
			rc = append_word(&r->got.path, d, strlen(d));
	} else if (*r->tag || r->pend.id) { /* an XPath ancestor: its tag and @id (enough for the path) */
		char d[200];
		snprintf(d, sizeof d, "%s%s%.150s", strcmp(r->tag, "*") ? r->tag : "", r->pend.id ? "#" : "",
		         r->pend.id ? r->pend.id : "");
		if (*d)
			rc = append_word(&r->got.path, d, strlen(d));
	}
	kn_heal_sig_clear(&r->pend);
	r->tag[0] = r->id[0] = r->cls[0] = '\0';
	r->nc = 0;
	r->open = 0;
	return rc;
}

static int on_token(void *ud, const kn_selector_token *t)
{
	struct reading *r = ud;
	int rc = 0;
	switch (t->kind) {
	case KN_SELTOK_PART:
	case KN_SELTOK_COMPOUND:
	case KN_SELTOK_STEP:
		r->list |= t->kind == KN_SELTOK_COMPOUND && t->comb == ',';
		if (r->open)
			rc = flush(r, 0);
		r->open = t->kind != KN_SELTOK_PART;
		r->lang = t->lang;
		if (t->kind == KN_SELTOK_STEP) {
			copy_part(r->tag, sizeof r->tag, t->name, t->name_len);
			for (char *c = r->tag; *c; c++)
				*c = (char)tolower((unsigned char)*c);
		}
		return rc;
	case KN_SELTOK_TAG:
		kn_selector_unescape(r->tag, sizeof r->tag, t->name, t->name_len);
		return 0;
	case KN_SELTOK_ID:
		kn_selector_unescape(r->id, sizeof r->id, t->name, t->name_len);
		return 0;
	case KN_SELTOK_CLASS: {
		char c[256];
		size_t n = kn_selector_unescape(c, sizeof c, t->name, t->name_len);
		if (n < sizeof c && r->nc + n + 2 < sizeof r->cls) {
			if (r->nc)
				r->cls[r->nc++] = ' ';
			memcpy(r->cls + r->nc, c, n);
			r->nc += n;
			r->cls[r->nc] = '\0';
		}
		return 0;
	}
	case KN_SELTOK_ATTR:
		return css_attr(&r->pend, t);
	case KN_SELTOK_PRED:
		return xpath_preds(&r->pend, t->text, t->text_len);
	case KN_SELTOK_PSEUDO:
	default:
		return 0;
	}
}

/* What selector sel says about its element, into out where out says nothing yet. A selector list
 * names no single element: nothing. Past a syntax error, what came before it is used. */
static int read_selector(kn_heal_sig *out, const char *sel)
{
	char buf[4097];
	size_t n = strlen(sel);
	if (n > 4096)
		n = 4096;
	memcpy(buf, sel, n);
	buf[n] = '\0';
	struct reading r = {0};
	int rc = kn_selector_parse(buf, on_token, &r, NULL);
	if (rc == KN_EINVAL)
		rc = 0;
	if (!rc && r.open)
		rc = flush(&r, 1);
	if (!rc && !r.list) {
		rc = merge(out, &r.got);
		if (!rc && r.got.path && !out->path) {
			out->path = r.got.path;
			r.got.path = NULL;
		}
	}
	kn_heal_sig_clear(&r.pend);
	kn_heal_sig_clear(&r.got);
	return rc;
}

/* An id or class a framework or build made up (generated.h: React useId, hashed CSS-in-JS classes)
 * names nothing the next build keeps: the expected signature does not weigh it. The page's
 * candidates leave them out too (page_js.c, with generated.js: the same rules). */
static int drop_generated(kn_heal_sig *s)
{
	if (s->id && kn_generated_id(s->id)) {
		free(s->id);
		s->id = NULL;
	}
	if (!s->classes)
		return 0;
	char *kept = NULL;
	for (const char *p = s->classes; *p;) {
		size_t n = strcspn(p, " ");
		char w[256];
		if (n && n < sizeof w) {
			memcpy(w, p, n);
			w[n] = '\0';
			if (!kn_generated_class(w) && append_word(&kept, p, n)) {
				free(kept);
				return KN_ENOMEM;
			}
		}
		p += n + strspn(p + n, " ");
	}
	free(s->classes);
	s->classes = kept;
	return 0;
}

int kn_heal_expected(kn_heal_sig *out, const kn_step *st)
{
	memset(out, 0, sizeof *out);
	int rc = sets(&out->id, st->hint_id);
	if (!rc) rc = sets(&out->name, st->hint_name);
	if (!rc) rc = sets(&out->aria, st->hint_aria_label);
	if (!rc) rc = sets(&out->role, st->hint_role);
	if (!rc) rc = sets(&out->href, st->hint_href);
	if (!rc) rc = sets(&out->text, st->text);
	if (!rc && st->verb == KN_STEP_SELECT)
		rc = sets(&out->tag, "select");
	if (!rc && st->selector && *st->selector)
		rc = read_selector(out, st->selector);
	/* a recorded fingerprint (workflow.h) fills what the selector does not say */
	if (!rc && !out->tag) rc = sets(&out->tag, st->tag);
	if (!rc && !out->classes) rc = sets(&out->classes, st->classes);
	if (!rc && !out->path) rc = sets(&out->path, st->dom_path);
	/* the role a link or button hint implies for the tag, when nothing else says */
	if (!rc && !out->tag && out->role && strcmp(out->role, "link") == 0)
		rc = sets(&out->tag, "a");
	if (!rc)
		rc = drop_generated(out);
	if (rc) {
		kn_heal_sig_clear(out);
		return KN_ENOMEM;
	}
	return 0;
}

/* ---- candidates from the page ---- */

static int field(char **slot, json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	if (!json_is_string(v))
		return 0;
	const char *s = json_string_value(v);
	size_t n = json_string_length(v);
	if (n > KN_HEAL_MAX_FIELD) {
		n = KN_HEAL_MAX_FIELD;
		while (n && ((unsigned char)s[n] & 0xC0) == 0x80) /* at a UTF-8 boundary */
			n--;
	}
	if (memchr(s, '\0', n))
		n = strlen(s);
	return set(slot, s, n);
}

int kn_heal_parse_candidates(kn_heal_sig **out, size_t *n, const char *json, size_t len, kn_err *err)
{
	*out = NULL;
	*n = 0;
	if (len > KN_HEAL_MAX_JSON)
		return kn_err_set(err, KN_ELIMIT, "candidate list of %zu bytes exceeds %u", len, KN_HEAL_MAX_JSON);
	json_error_t je;
	json_t *root = json_loadb(json, len, JSON_REJECT_DUPLICATES, &je);
	if (!root)
		return kn_err_set(err, KN_EINVAL, "candidates: %s at %d:%d", je.text, je.line, je.column);
	if (!json_is_array(root)) {
		json_decref(root);
		return kn_err_set(err, KN_EINVAL, "candidates: expected an array");
	}
	size_t total = json_array_size(root), keep = total < KN_HEAL_MAX_CANDIDATES ? total : KN_HEAL_MAX_CANDIDATES;
	kn_heal_sig *c = calloc(keep ? keep : 1, sizeof *c);
	if (!c) {
		json_decref(root);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	int rc = 0;
	size_t got = 0;
	for (size_t i = 0; i < keep && !rc; i++) {
		json_t *o = json_array_get(root, i);
		if (!json_is_object(o)) {
			rc = kn_err_set(err, KN_EINVAL, "candidates[%zu]: expected an object", i);
			break;
		}
		kn_heal_sig *s = &c[got++];
		s->index = (int)i;
		if (field(&s->tag, o, "tag") || field(&s->id, o, "id") || field(&s->name, o, "name") ||
		    field(&s->aria, o, "aria") || field(&s->role, o, "role") || field(&s->href, o, "href") ||
		    field(&s->text, o, "text") || field(&s->classes, o, "classes") || field(&s->path, o, "path"))
			rc = kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	json_decref(root);
	if (rc) {
		kn_heal_sigs_free(c, got);
		return rc;
	}
	*out = c;
	*n = got;
	return 0;
}
