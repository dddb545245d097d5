/* semantic_tokens.c — text → tokens for the offline semantic judge (semantic.c scores them).
 *
 * Both sides of a judgement go through the same steps, so whatever is normalised is normalised
 * symmetrically: (1) for an input, percent- and plus-decoding (twice, as upstream's unquote on an
 * already-parsed value does); (2) Unicode folding: Latin-1 Supplement and Latin Extended-A letters
 * lose their accents (é → e, ß → ss, Œ → oe), curly quotes and primes become ' and ", dashes
 * become -, exotic spaces become spaces, zero-width characters and combining accents vanish,
 * fullwidth ASCII becomes ASCII, Greek and Cyrillic capitals are lower-cased, other symbols
 * separate words, € £ ¥ ₹ become currency codes; (3) lexing into words (letters; a possessive
 * 's dropped, other apostrophes removed: don't → dont; single letters with dots joined:
 * D.C. → dc), numbers (25,000 → 25000; 2.5) and times (10:30), splitting letters from digits
 * (ps5 → ps 5); (4) quantities: a number takes a currency ($, USD, euros), a multiplier
 * (thousand, $25k), a unit (32" = 32 inch = 32in, 10 lbs, 1tb, 50%, 5th), or becomes a duration
 * (2h58min = 2 hours and 58 minutes = 10680 s) or a time (9 am = 9:00 AM); number words count
 * (five, twenty five, fifth); (5) words go through a small lexicon (synonyms, spelling variants,
 * irregular plurals, gender words, classes) and the Snowball English stemmer; (6) US state names
 * and codes, and a few countries, after a comma or at the end become place qualifiers
 * (", Texas" = ", TX"). The lexicon and the other word tables are in semantic_lexicon.c. */
#include <libstemmer.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keynode/error.h"
#include "keynode/grow.h"
#include "keynode/url.h"
#include "keynode/utf8.h"
#include "semantic_internal.h"

/* ---- the arena: every string of a token list, freed in one go ---- */

struct kn_semblock {
	kn_semblock *next;
	size_t used, cap;
	char data[];
};

static char *arena_alloc(kn_semtext *t, size_t n)
{
	kn_semblock *b = t->arena;
	if (!b || b->cap - b->used < n) {
		size_t cap = n > 4000 ? n : 4000;
		kn_semblock *nb = malloc(sizeof *nb + cap);
		if (!nb)
			return NULL;
		nb->next = b;
		nb->used = 0;
		nb->cap = cap;
		t->arena = b = nb;
	}
	char *p = b->data + b->used;
	b->used += n;
	return p;
}

static const char *arena_strndup(kn_semtext *t, const char *s, size_t n)
{
	char *p = arena_alloc(t, n + 1);
	if (!p)
		return NULL;
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

/* ---- units (their names are in semantic_lexicon.c) ---- */

static int is_currency(unsigned u)
{
	return u >= U_USD && u <= U_CHF;
}

static double unit_seconds(unsigned u)
{
	switch (u) {
	case U_SEC: return 1;
	case U_MIN: return 60;
	case U_HOUR: return 3600;
	case U_DAY: return 86400;
	case U_WEEK: return 7 * 86400.0;
	case U_MONTH: return 30 * 86400.0;
	case U_YEAR: return 365 * 86400.0;
	default: return 0;
	}
}

static double unit_multiplier(unsigned u)
{
	switch (u) {
	case U_E3: return 1e3;
	case U_E6: return 1e6;
	case U_E9: return 1e9;
	case U_E12: return 1e12;
	default: return 0;
	}
}

/* ---- step 1 and 2: decoding and folding ---- */

typedef struct sbuf {
	char *p;
	size_t n, cap;
} sbuf;

static int sbuf_put(sbuf *b, const char *s, size_t n)
{
	if (kn_grow_to(&b->p, b->n + n + 1, &b->cap, 1, 64))
		return KN_ENOMEM;
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = '\0';
	return 0;
}

/* U+00C0–U+00FF and U+0100–U+017F without their accents ('*' marks the two-letter ones). */
static const char *const latin1_fold[64] = {
	"a", "a", "a", "a", "a", "a", "ae", "c", "e", "e", "e", "e", "i", "i", "i", "i",
	"d", "n", "o", "o", "o", "o", "o", " x ", "o", "u", "u", "u", "u", "y", "th", "ss",
	"a", "a", "a", "a", "a", "a", "ae", "c", "e", "e", "e", "e", "i", "i", "i", "i",
	"d", "n", "o", "o", "o", "o", "o", " ", "o", "u", "u", "u", "u", "y", "th", "y",
};
static const char latin_ext_a_fold[] =
	"aaaaaaccccccccdd" "ddeeeeeeeeeegggg" "gggghhhhiiiiiiii" "ii**jjkkklllllll"
	"lllnnnnnnnnnoooo" "oo**rrrrrrssssss" "ssttttttuuuuuuuu" "uuuuwwyyyzzzzzzs";

/* What code point cp (≥ 0x80) becomes: a replacement ("" drops it), or NULL to keep it as is
 * (after lower-casing Greek and Cyrillic). tmp holds one-character answers. */
static const char *fold_cp(uint32_t *cp, char tmp[2])
{
	uint32_t c = *cp;
	tmp[1] = '\0';
	if (c >= 0xC0 && c <= 0xFF)
		return latin1_fold[c - 0xC0];
	if (c >= 0x100 && c <= 0x17F) {
		if (c == 0x132 || c == 0x133)
			return "ij";
		if (c == 0x152 || c == 0x153)
			return "oe";
		tmp[0] = latin_ext_a_fold[c - 0x100];
		return tmp;
	}
	switch (c) {
	case 0xA0: return " ";
	case 0xA3: return " gbp ";
	case 0xA5: return " jpy ";
	case 0xAD: return "";
	case 0xB4: case 0x2BC: case 0x2018: case 0x2019: case 0x201A: case 0x201B: case 0x2032:
		return "'";
	case 0x201C: case 0x201D: case 0x201E: case 0x201F: case 0x2033:
		return "\"";
	case 0x20AC: return " eur ";
	case 0x20B9: return " inr ";
	case 0x2212: return "-";
	case 0x200B: case 0x200C: case 0x200D: case 0x2060: case 0xFEFF:
		return "";
	case 0x218: case 0x219: return "s";
	case 0x21A: case 0x21B: return "t";
	}
	if (c < 0xC0) /* C1 controls and the other Latin-1 symbols (© ® ° « »…) */
		return " ";
	if ((c >= 0x300 && c <= 0x36F) || (c >= 0xFE00 && c <= 0xFE0F))
		return ""; /* combining accents (decomposed é), variation selectors */
	if (c >= 0x2010 && c <= 0x2015)
		return "-";
	if ((c >= 0x2000 && c <= 0x2BFF) || (c >= 0x3000 && c <= 0x303F) || (c >= 0xE000 && c <= 0xF8FF) ||
	    (c >= 0xFFF0 && c <= 0xFFFF) || (c >= 0x1F000 && c <= 0x1FAFF))
		return " "; /* punctuation, symbols, arrows, CJK punctuation, private use, U+FFFD, emoji */
	if (c >= 0xFF01 && c <= 0xFF5E) {
		tmp[0] = (char)(c - 0xFEE0); /* fullwidth ASCII */
		return tmp;
	}
	if ((c >= 0x391 && c <= 0x3A9 && c != 0x3A2) || (c >= 0x410 && c <= 0x42F))
		*cp = c + 0x20;
	else if (c >= 0x400 && c <= 0x40F)
		*cp = c + 0x50;
	return NULL;
}

/* Fold s[0..len) (step 2). ASCII case is kept: the lexer needs to see capitals. */
static int fold(sbuf *out, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	int rc = sbuf_put(out, "", 0);
	while (rc == 0 && i < len) {
		size_t run = i;
		while (run < len && p[run] < 0x80 && p[run] != 0)
			run++;
		if (run > i) {
			rc = sbuf_put(out, s + i, run - i);
			i = run;
			continue;
		}
		if (p[i] == 0)
			break;
		uint32_t cp;
		size_t k = kn_utf8_decode(p + i, len - i, &cp);
		if (cp == KN_UTF8_BAD)
			cp = 0xFFFD;
		char tmp[2], enc[4];
		const char *rep = fold_cp(&cp, tmp);
		if (rep)
			rc = sbuf_put(out, rep, strlen(rep));
		else
			rc = sbuf_put(out, enc, kn_utf8_encode(enc, cp));
		i += k;
	}
	return rc;
}

/* ---- step 3: lexing ---- */

enum { P_WORD, P_NUM, P_TIME, P_SYM };

typedef struct piece {
	const char *text; /* P_WORD: lower-case, apostrophes removed (arena) */
	double value;     /* P_NUM: the number; P_TIME: minutes after midnight */
	unsigned char type, sym, comma, caps, glued;
} piece;

static int is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static int is_ascii_letter(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Word characters: ASCII letters and every byte of a kept non-ASCII character. */
static int is_letter(unsigned char c)
{
	return is_ascii_letter(c) || c >= 0x80;
}

static int is_alnum(unsigned char c)
{
	return is_letter(c) || is_digit(c);
}

static unsigned char lower(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c - 'A' + 'a') : c;
}

typedef struct pieces {
	piece *p;
	size_t n, cap;
} pieces;

static int pieces_push(pieces *ps, const piece *x)
{
	if (kn_grow(&ps->p, ps->n, &ps->cap, sizeof *ps->p, 32))
		return KN_ENOMEM;
	ps->p[ps->n++] = *x;
	return 0;
}

/* Split the folded text f into pieces (step 3). */
static int lex(kn_semtext *t, const char *fs, pieces *ps)
{
	const unsigned char *f = (const unsigned char *)fs;
	size_t len = strlen(fs), i = 0, prev_end = (size_t)-1;
	int comma = 0, rc = 0;
	char *w = malloc(len + 1);
	if (!w)
		return KN_ENOMEM;
	while (rc == 0 && f[i]) {
		unsigned char c = f[i];
		size_t start = i;
		piece x = { 0 };
		if (is_letter(c)) {
			size_t wl = 0;
			int upper = 0, lowers = 0;
			while (f[i]) {
				unsigned char d = f[i];
				if (is_letter(d)) {
					upper += d >= 'A' && d <= 'Z';
					lowers += d >= 'a' && d <= 'z';
					w[wl++] = (char)lower(d);
					i++;
				} else if (d == '\'' && is_letter(f[i + 1])) {
					if ((f[i + 1] == 's' || f[i + 1] == 'S') && !is_alnum(f[i + 2])) {
						i += 2; /* possessive: men's → men */
						break;
					}
					i++; /* don't → dont */
				} else {
					break;
				}
			}
			/* single letters with dots: D.C. → dc, a.m. → am */
			if (wl == 1 && is_ascii_letter((unsigned char)w[0]) && f[i] == '.' &&
			    is_ascii_letter(f[i + 1]) && !is_alnum(f[i + 2])) {
				while (f[i] == '.' && is_ascii_letter(f[i + 1]) && !is_alnum(f[i + 2])) {
					upper += f[i + 1] >= 'A' && f[i + 1] <= 'Z';
					lowers += f[i + 1] >= 'a' && f[i + 1] <= 'z';
					w[wl++] = (char)lower(f[i + 1]);
					i += 2;
				}
				if (f[i] == '.')
					i++;
			}
			x.type = P_WORD;
			x.caps = upper > 0 && lowers == 0;
			if (!(x.text = arena_strndup(t, w, wl)))
				rc = KN_ENOMEM;
		} else if (is_digit(c)) {
			double v = 0;
			size_t nd = 0;
			while (is_digit(f[i]))
				v = v * 10 + (f[i++] - '0'), nd++;
			if (nd <= 2 && f[i] == ':' && is_digit(f[i + 1]) && is_digit(f[i + 2]) &&
			    !is_digit(f[i + 3])) {
				x.type = P_TIME;
				x.value = v * 60 + (f[i + 1] - '0') * 10 + (f[i + 2] - '0');
				i += 3;
			} else {
				/* thousands separators: 25,000 and 1,234,567 (groups of exactly three) */
				while (nd <= 3 && f[i] == ',' && is_digit(f[i + 1]) && is_digit(f[i + 2]) &&
				       is_digit(f[i + 3]) && !is_digit(f[i + 4])) {
					v = v * 1000 + (f[i + 1] - '0') * 100 + (f[i + 2] - '0') * 10 + (f[i + 3] - '0');
					i += 4;
				}
				if (f[i] == '.' && is_digit(f[i + 1])) {
					double scale = 0.1;
					for (i++; is_digit(f[i]); i++, scale /= 10)
						v += (f[i] - '0') * scale;
				}
				x.type = P_NUM;
				x.value = v;
			}
		} else if (c == '$' || c == '"' || c == '%') {
			x.type = P_SYM;
			x.sym = c;
			i++;
		} else {
			comma |= c == ',';
			i++;
			continue;
		}
		x.glued = start == prev_end;
		x.comma = (unsigned char)comma;
		comma = 0;
		prev_end = i;
		if (rc == 0)
			rc = pieces_push(ps, &x);
	}
	free(w);
	return rc;
}

/* ---- steps 4 and 5: tokens ---- */

static int push_tok(kn_semtext *t, const kn_semtok *k)
{
	if (t->n >= KN_SEM_MAX_TOKENS)
		return 0;
	if (kn_grow(&t->tok, t->n, &t->cap, sizeof *t->tok, 16))
		return KN_ENOMEM;
	t->tok[t->n++] = *k;
	return 0;
}

static const char *stem_of(kn_semtext *t, const char *w)
{
	const sb_symbol *s = sb_stemmer_stem(t->stemmer, (const sb_symbol *)w, (int)strlen(w));
	if (!s)
		return NULL;
	return arena_strndup(t, (const char *)s, (size_t)sb_stemmer_length(t->stemmer));
}

/* One word, already canonical: classify and stem it. word: as written (NULL: w). */
static int emit_plain(kn_semtext *t, const char *w, size_t n, const char *word, unsigned layout)
{
	kn_semtok k = { 0 };
	k.kind = SEM_WORD;
	k.flags = layout;
	if (!(k.raw = arena_strndup(t, w, n)))
		return KN_ENOMEM;
	k.word = word ? word : k.raw;
	const kn_semlex *e = kn_semlex_find(k.raw);
	if (e) {
		k.flags |= e->flags & (SEM_F_STOP | SEM_F_JUNK | SEM_F_GENERIC | SEM_F_HEAVY | SEM_F_NEG |
		                       SEM_F_AMBIG | SEM_F_COUNTRY);
		k.gender = e->gender;
		k.code = e->code;
	}
	if (!(k.stem = stem_of(t, k.raw)))
		return KN_ENOMEM;
	return push_tok(t, &k);
}

/* A word through the lexicon: its canonical form may be several words (nyc → new york city). */
static int emit_word(kn_semtext *t, const char *w, unsigned layout)
{
	const kn_semlex *e = kn_semlex_find(w);
	if (!e || !e->canon)
		return emit_plain(t, w, strlen(w), w, layout);
	const char *c = e->canon;
	int rc = 0;
	int one = !strchr(c, ' ');
	while (rc == 0 && *c) {
		size_t n = strcspn(c, " ");
		rc = emit_plain(t, c, n, one ? w : NULL, layout);
		layout &= ~(unsigned)SEM_F_COMMA;
		c += n;
		c += *c == ' ';
	}
	return rc;
}

static unsigned unit_of(const piece *x)
{
	if (x->type != P_WORD)
		return U_NONE;
	const kn_semlex *e = kn_semlex_find(x->text);
	return e ? e->unit : U_NONE;
}

static int emit_quantity(kn_semtext *t, kn_semtok *k)
{
	char buf[64];
	if (k->kind == SEM_TIME)
		snprintf(buf, sizeof buf, "%02d:%02d%s", (int)fmod(k->value / 60, 100), (int)fmod(k->value, 60),
		         k->flags & SEM_F_AMPM ? "" : "?");
	else if (k->kind == SEM_DUR)
		snprintf(buf, sizeof buf, "%.10gs", k->value);
	else
		snprintf(buf, sizeof buf, "%.10g%s", k->value, kn_semtok_unit_name(k->unit));
	if (!(k->word = k->raw = k->stem = arena_strndup(t, buf, strlen(buf))))
		return KN_ENOMEM;
	return push_tok(t, k);
}

/* The number (or time) starting at piece *p with value v, and what follows it: a multiplier,
 * a currency, am/pm, a unit, or more of a duration (step 4). cur: a currency seen before it. */
static int number(kn_semtext *t, const pieces *ps, size_t *p, double v, unsigned type, int ordinal,
                  unsigned cur, unsigned layout)
{
	const piece *pc = ps->p;
	size_t np = ps->n, q = *p + 1;
	kn_semtok k = { 0 };
	k.flags = layout;
	k.kind = SEM_NUM;
	k.value = v;
	unsigned u = q < np ? unit_of(&pc[q]) : U_NONE;

	if (type == P_TIME) {
		k.kind = SEM_TIME;
		if (u == U_AM || u == U_PM) {
			k.value = fmod(v, 720) + (u == U_PM ? 720 : 0);
			k.flags |= SEM_F_AMPM;
			q++;
		}
		*p = q;
		return emit_quantity(t, &k);
	}
	if (ordinal) {
		k.unit = U_ORD;
		*p = q;
		return emit_quantity(t, &k);
	}
	/* multipliers: 25 thousand, $25k, $1.5m */
	if (unit_multiplier(u) > 0) {
		k.value *= unit_multiplier(u);
		q++;
	} else if (cur && q < np && pc[q].type == P_WORD && pc[q].glued) {
		const char *s = pc[q].text;
		double m = strcmp(s, "k") == 0 ? 1e3 : strcmp(s, "m") == 0 || strcmp(s, "mm") == 0 ? 1e6
		         : strcmp(s, "b") == 0 || strcmp(s, "bn") == 0 ? 1e9 : 0;
		if (m > 0)
			k.value *= m, q++;
	}
	u = q < np ? unit_of(&pc[q]) : U_NONE;
	if (is_currency(u)) { /* 25,000 dollars; $49.99 USD */
		cur = u;
		q++;
	}
	if (cur) {
		k.unit = (unsigned char)cur;
		*p = q;
		return emit_quantity(t, &k);
	}
	if ((u == U_AM || u == U_PM) && v >= 1 && v <= 12 && v == floor(v)) { /* 9 am */
		k.kind = SEM_TIME;
		k.value = fmod(v, 12) * 60 + (u == U_PM ? 720 : 0);
		k.flags |= SEM_F_AMPM;
		*p = q + 1;
		return emit_quantity(t, &k);
	}
	if (q < np) {
		const piece *y = &pc[q];
		size_t len = y->type == P_WORD ? strlen(y->text) : 0;
		/* one-letter units and "in" only when glued to the number (2h, 32in, not "2 in 1") */
		int glue_only = len == 1 || (len > 0 && strcmp(y->text, "in") == 0) || u == U_K || u == U_P ||
		                u == U_X || u == U_ORD;
		if (y->type == P_SYM && y->sym == '"' && y->glued) {
			k.unit = U_INCH;
			q++;
		} else if (y->type == P_SYM && y->sym == '%') {
			k.unit = U_PCT;
			q++;
		} else if (u != U_NONE && (y->glued || !glue_only)) {
			if (u == U_SEC && len == 1) {
				q++; /* the 1990s */
			} else if (unit_seconds(u) > 0) {
				/* a duration, maybe several parts: 2h58min, 2 hours and 58 minutes */
				double secs = v * unit_seconds(u);
				unsigned last = u;
				q++;
				for (;;) {
					size_t r = q;
					if (r < np && pc[r].type == P_WORD && strcmp(pc[r].text, "and") == 0)
						r++;
					if (r + 1 >= np || pc[r].type != P_NUM || pc[r + 1].type != P_WORD)
						break;
					unsigned u2 = unit_of(&pc[r + 1]);
					size_t l2 = strlen(pc[r + 1].text);
					if (l2 == 1 && !pc[r + 1].glued)
						break;
					if (u2 == U_M && last == U_HOUR)
						u2 = U_MIN; /* 2h58m */
					if (u2 == U_SEC && l2 == 1 && last != U_MIN)
						break;
					if (unit_seconds(u2) <= 0 || unit_seconds(u2) >= unit_seconds(last))
						break;
					secs += pc[r].value * unit_seconds(u2);
					last = u2;
					q = r + 2;
				}
				k.kind = SEM_DUR;
				k.value = secs;
			} else if (unit_multiplier(u) == 0 && u != U_AM && u != U_PM) {
				k.unit = (unsigned char)u;
				q++;
			}
		}
	}
	*p = q;
	return emit_quantity(t, &k);
}

/* The value of a number word at *p ("twenty" "five" → 25, advancing *p), or -1. */
static double number_word(const pieces *ps, size_t *p, int *ordinal)
{
	const kn_semlex *e = kn_semlex_find(ps->p[*p].text);
	if (!e || !(e->flags & SEM_F_NUMWORD))
		return -1;
	*ordinal = (e->flags & SEM_F_ORDINAL) != 0;
	double v = e->num;
	if ((e->flags & SEM_F_TENS) && *p + 1 < ps->n && ps->p[*p + 1].type == P_WORD) {
		const kn_semlex *f = kn_semlex_find(ps->p[*p + 1].text);
		if (f && (f->flags & SEM_F_NUMWORD) && !(f->flags & (SEM_F_TENS | SEM_F_ORDINAL)) &&
		    f->num >= 1 && f->num <= 9) {
			v += f->num;
			(*p)++;
		}
	}
	return v;
}

static int build(kn_semtext *t, const pieces *ps)
{
	unsigned cur = U_NONE; /* a currency sign or code waiting for its number */
	int rc = 0;
	for (size_t p = 0; rc == 0 && p < ps->n;) {
		const piece *x = &ps->p[p];
		unsigned layout = (x->comma ? SEM_F_COMMA : 0u) | (x->caps ? SEM_F_CAPS : 0u);
		if (x->type == P_SYM) {
			cur = x->sym == '$' ? U_USD : U_NONE;
			p++;
			continue;
		}
		if (x->type == P_WORD) {
			unsigned u = unit_of(x);
			if (is_currency(u) && p + 1 < ps->n && ps->p[p + 1].type == P_NUM) {
				cur = u; /* USD 25,000 */
				p++;
				continue;
			}
			int ordinal = 0;
			double v = number_word(ps, &p, &ordinal);
			if (v >= 0) {
				rc = number(t, ps, &p, v, P_NUM, ordinal, cur, layout);
			} else {
				rc = emit_word(t, x->text, layout);
				p++;
			}
			cur = U_NONE;
			continue;
		}
		rc = number(t, ps, &p, x->value, x->type, 0, cur, layout);
		cur = U_NONE;
	}
	return rc;
}

/* ---- step 6: place qualifiers, alternatives ---- */

/* Does a qualifier end at token e (exclusive)? The end of the text or a number (a zip) next. */
static int ends_place(const kn_semtext *t, size_t e)
{
	return e == t->n || t->tok[e].kind != SEM_WORD;
}

static void qualifiers(kn_semtext *t)
{
	size_t w = 0;
	for (size_t i = 0; i < t->n; i++) {
		kn_semtok *k = &t->tok[i];
		if (k->kind == SEM_WORD && i > 0) {
			/* several words: ", New York", ", United States" */
			for (size_t m = 0; m < kn_semlex_nplaces; m++) {
				size_t j = 0;
				while (j < 3 && kn_semlex_places[m].words[j] && i + j < t->n &&
				       t->tok[i + j].kind == SEM_WORD &&
				       strcmp(t->tok[i + j].raw, kn_semlex_places[m].words[j]) == 0)
					j++;
				if (j < 3 && kn_semlex_places[m].words[j])
					continue;
				if (!(k->flags & SEM_F_COMMA) && !ends_place(t, i + j))
					continue;
				k->word = k->raw = k->stem = k->code = kn_semlex_places[m].code;
				k->flags = (k->flags & (SEM_F_COMMA | SEM_F_CAPS)) | SEM_F_QUAL |
				           (kn_semlex_places[m].country ? SEM_F_COUNTRY : 0u);
				k->gender = 0;
				for (size_t d = 1; d < j; d++)
					t->tok[i + d].kind = 0xFF; /* dropped below */
				break;
			}
			if (!(k->flags & SEM_F_QUAL) && k->code) {
				/* one word: a state name or code, usa, uk; an ambiguous code (in, or, me) only
				 * after a comma or in capitals at the end */
				int at_end = ends_place(t, i + 1);
				if ((k->flags & SEM_F_COMMA) || (at_end && (!(k->flags & SEM_F_AMBIG) || (k->flags & SEM_F_CAPS)))) {
					k->raw = k->stem = k->code;
					k->flags = (k->flags & (SEM_F_COMMA | SEM_F_CAPS | SEM_F_COUNTRY)) | SEM_F_QUAL;
				}
			}
		}
		if (k->kind == SEM_WORD && !(k->flags & SEM_F_QUAL)) {
			k->code = NULL;
			if (strcmp(k->raw, "or") == 0)
				k->flags |= SEM_F_OR;
		}
		if (k->kind != 0xFF)
			t->tok[w++] = *k;
	}
	t->n = w;
}

/* ---- the whole pipeline ---- */

int kn_semtok_text(kn_semtext *t, const char *s, int decode, struct sb_stemmer *stemmer)
{
	memset(t, 0, sizeof *t);
	t->stemmer = stemmer;
	size_t len = strnlen(s, KN_SEM_MAX_TEXT);
	char *dec = NULL, *dec2 = NULL;
	int rc = 0;
	if (decode) {
		if ((rc = kn_url_unquote(&dec, s, len, 1)) < 0)
			return rc;
		if (strchr(dec, '%')) {
			if ((rc = kn_url_unquote(&dec2, dec, strlen(dec), 0)) < 0) {
				free(dec);
				return rc;
			}
			free(dec);
			dec = dec2;
		}
		s = dec;
		len = strlen(dec);
	}
	sbuf f = { 0 };
	pieces ps = { 0 };
	rc = fold(&f, s, len);
	if (rc == 0)
		rc = lex(t, f.p, &ps);
	if (rc == 0)
		rc = build(t, &ps);
	if (rc == 0)
		qualifiers(t);
	free(ps.p);
	free(f.p);
	free(dec);
	return rc;
}

void kn_semtok_free(kn_semtext *t)
{
	if (!t)
		return;
	free(t->tok);
	for (kn_semblock *b = t->arena, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	memset(t, 0, sizeof *t);
}

const char *kn_semtok_join(kn_semtext *t, const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	char *w = arena_alloc(t, na + nb + 1);
	if (!w)
		return NULL;
	memcpy(w, a, na);
	memcpy(w + na, b, nb + 1);
	const kn_semlex *e = kn_semlex_find(w);
	if (e && e->canon && !strchr(e->canon, ' '))
		return stem_of(t, e->canon);
	return stem_of(t, w);
}
