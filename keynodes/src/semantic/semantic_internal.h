/* semantic_internal.h — the token model shared by semantic_tokens.c (text → tokens) and
 * semantic.c (tokens → score), with the word tables in semantic_lexicon.c. Not a public header:
 * nothing outside keynodes/src includes it.
 *
 * A text becomes a list of tokens: words (folded, lower-cased, mapped through a small lexicon of
 * synonyms and spelling variants, Snowball-stemmed, classified) and quantities (a number with its
 * unit, a duration in seconds, a time of day in minutes). Every string a token points to lives in
 * the token list's arena and dies with kn_semtok_free. */
#ifndef KEYNODE_SEMANTIC_INTERNAL_H
#define KEYNODE_SEMANTIC_INTERNAL_H

#include <stddef.h>

struct sb_stemmer;

/* Token kinds. */
enum { SEM_WORD, SEM_NUM, SEM_DUR, SEM_TIME };

/* Token flags (also used by the lexicon). */
#define SEM_F_STOP    0x0001u /* says nothing about the target (a, the, for, near) */
#define SEM_F_JUNK    0x0002u /* boilerplate of an input (www, com, search): never an extra */
#define SEM_F_GENERIC 0x0004u /* a generic head (restaurant, pack, store): counts half */
#define SEM_F_QUAL    0x0008u /* a place qualifier after a comma (", IL", ", Texas", ", USA") */
#define SEM_F_HEAVY   0x0010u /* changes the product or place when added (case, pro, beach, north) */
#define SEM_F_NEG     0x0020u /* a negator (not, no, without, non, don't) */
#define SEM_F_COMMA   0x0040u /* a comma came right before it */
#define SEM_F_CAPS    0x0080u /* written in capitals */
#define SEM_F_AMPM    0x0100u /* SEM_TIME: am/pm was given */
#define SEM_F_OR      0x0200u /* the word "or" separating alternatives */
#define SEM_F_AMBIG   0x0400u /* lexicon: a state code that is also a common word (in, or, me) */
#define SEM_F_COUNTRY 0x0800u /* lexicon: a country qualifier (usa, uk) */
#define SEM_F_ORDINAL 0x1000u /* lexicon: an ordinal number word (fifth) */
#define SEM_F_TENS    0x2000u /* lexicon: twenty…ninety (may take a unit word after it) */
#define SEM_F_NUMWORD 0x4000u /* lexicon: a number word */

/* Gender and age groups, as bits; kids cover boys, girls and babies, unisex covers everything. */
#define KN_G_MEN   0x01u
#define KN_G_WOMEN 0x02u
#define KN_G_BOY   0x04u
#define KN_G_GIRL  0x08u
#define KN_G_BABY  0x10u
#define KN_G_KID   (KN_G_BOY | KN_G_GIRL | KN_G_BABY)
#define KN_G_ALL   0x1Fu

/* Units of a SEM_NUM. U_NONE is a bare number; currencies, lengths, weights… must agree when both
 * sides name one. U_K is the "5k"/"4k" suffix (5 km, or ×1000 next to a plain number or money). */
enum {
	U_NONE, U_INCH, U_FT, U_CM, U_MM, U_M, U_KM, U_MI, U_LB, U_OZ, U_KG, U_G, U_L, U_ML, U_GAL,
	U_QT, U_TB, U_GB, U_MB, U_HZ, U_KHZ, U_MHZ, U_GHZ, U_W, U_V, U_MAH, U_MP, U_PCT, U_ORD, U_K,
	U_P, U_X,
	/* currencies */
	U_USD, U_EUR, U_GBP, U_JPY, U_CAD, U_AUD, U_INR, U_CHF,
	/* multipliers (thousand, million…): never a token's unit */
	U_E3, U_E6, U_E9, U_E12,
	/* durations (a token of kind SEM_DUR carries seconds) */
	U_SEC, U_MIN, U_HOUR, U_DAY, U_WEEK, U_MONTH, U_YEAR,
	/* times of day */
	U_AM, U_PM,
	U_COUNT
};

typedef struct kn_semtok {
	const char *word; /* words: as written (folded, lower-case), what compounds are glued from */
	const char *raw;  /* folded lower-case word after the lexicon; quantities: canonical text */
	const char *stem; /* what words are compared by: the Snowball stem of raw */
	const char *code; /* a state or country code the word stands for ("texas" → "tx"), or NULL */
	double value;     /* SEM_NUM: the number; SEM_DUR: seconds; SEM_TIME: minutes after midnight */
	unsigned flags;   /* SEM_F_* */
	unsigned char kind, unit, gender;
} kn_semtok;

typedef struct kn_semblock kn_semblock;

typedef struct kn_semtext {
	kn_semtok *tok;
	size_t n, cap;
	kn_semblock *arena; /* the strings of the tokens */
	struct sb_stemmer *stemmer; /* borrowed */
} kn_semtext;

/* Longest text (bytes) looked at on either side, and most tokens kept from it; the rest is
 * ignored, which bounds the work of one judgement (the comparison is quadratic in the token
 * counts: at most 1024 × 1024). */
#define KN_SEM_MAX_TEXT 16384
#define KN_SEM_MAX_TOKENS 1024

/* Tokenise s into t (which the caller frees with kn_semtok_free, also after an error).
 * decode: percent- and plus-decode first (an input may be a raw query value). stemmer is borrowed
 * and used from this thread only. Returns 0 or KN_ENOMEM. */
int kn_semtok_text(kn_semtext *t, const char *s, int decode, struct sb_stemmer *stemmer);
void kn_semtok_free(kn_semtext *t);

/* The stem of the compound made by gluing two words ("coffee" + "maker" → stem of
 * "coffeemaker"), in t's arena; NULL when out of memory. */
const char *kn_semtok_join(kn_semtext *t, const char *a, const char *b);

/* A unit's name for explanations ("inch", "usd"). */
const char *kn_semtok_unit_name(unsigned unit);

/* ---- the lexicon (semantic_lexicon.c) ---- */

/* One word of the lexicon with all its roles. */
typedef struct kn_semlex {
	const char *w;     /* the word as folded and lower-cased */
	const char *canon; /* what it stands for (words separated by spaces), or NULL */
	unsigned flags;    /* SEM_F_* */
	unsigned char gender, unit;
	const char *code;  /* state or country code */
	int num;           /* number words: the value */
} kn_semlex;

/* The lexicon entry of a folded, lower-cased word, or NULL. */
const kn_semlex *kn_semlex_find(const char *w);

/* Place names of several words (district of columbia, new york, united states), as qualifiers:
 * their state or country code. */
typedef struct kn_semplace {
	const char *words[3];
	const char *code;
	int country;
} kn_semplace;
extern const kn_semplace kn_semlex_places[];
extern const size_t kn_semlex_nplaces;

/* Lexicon self-check for the unit tests: 1 when the table is sorted as bsearch needs. */
int kn_semtok_lexicon_sorted(void);

#endif
