/* semantic.c — the offline semantic judge and the rule → phrase extraction it relies on.
 *
 * Mind2Web-Live writes semantic key nodes as rules for an LLM ("Decide whether are searching for
 * mens winter coat"). kn_semantic_extract_phrase() peels the lead-in off, leaving the phrase that
 * matters ("mens winter coat"). The offline judge then compares the phrase with the input (a query
 * value, a typed value, an answer) as two lists of tokens (semantic_tokens.c: folded, decoded,
 * stemmed, with numbers, units, currencies and durations parsed) and scores a weighted overlap:
 * how much of the phrase the input covers, less a little for words the input adds, less a lot for
 * words that turn it into something else (an accessory, another model, another place), and a
 * veto when a number, a gender, a place qualifier, a negation or an antonym contradicts the
 * phrase. keynodes/README.md ("Offline semantic judge") gives the rules and the weights; the
 * calibration set in tests/data/semantic/ measures them. No network, deterministic, thread-safe
 * (the Snowball stemmer is not, so every judgement makes its own). */
#include <libstemmer.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keynode/grow.h"
#include "keynode/match.h"
#include "semantic_internal.h"

/* What may follow "Decide whether", longest first so "the content is to" wins over
 * "the content is". The last ones also stand alone in native YAML rules ("searching for X"). */
static const char *const lead_ins[] = {
	"the content is about", "the content is to", "the content means", "the content is",
	"the place is", "the answer is", "are searching for", "is searching for",
	"is searchign for", /* sic, in example_130 */
	"are looking for", "is looking for", "are describing", "is describing", "searching for",
	"looking for", "describing",
};

static int is_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static unsigned char lower(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c - 'A' + 'a') : c;
}

/* When s starts with the words w (ASCII case-insensitive, any run of spaces between words)
 * followed by a space or the end, return what follows; else NULL. */
static const char *skip_words(const char *s, const char *w)
{
	while (*w) {
		if (*w == ' ') {
			if (!is_space((unsigned char)*s))
				return NULL;
			while (is_space((unsigned char)*s))
				s++;
			w++;
			continue;
		}
		if (lower((unsigned char)*s) != (unsigned char)*w)
			return NULL;
		s++, w++;
	}
	return *s == '\0' || is_space((unsigned char)*s) ? s : NULL;
}

int kn_semantic_extract_phrase(char **out, const char *rule)
{
	if (!out)
		return KN_EINVAL;
	*out = NULL;
	if (!rule)
		return KN_EINVAL;

	const char *s = rule, *p;
	while (is_space((unsigned char)*s))
		s++;
	int decide = 0;
	if ((p = skip_words(s, "decide whether")) != NULL) {
		s = p, decide = 1;
		while (is_space((unsigned char)*s))
			s++;
	}
	int lead = 0;
	for (size_t i = 0; i < sizeof lead_ins / sizeof lead_ins[0]; i++)
		if ((p = skip_words(s, lead_ins[i])) != NULL) {
			s = p, lead = 1;
			break;
		}

	const char *b = s, *e = s + strlen(s);
	while (b < e && is_space((unsigned char)*b))
		b++;
	while (e > b && (is_space((unsigned char)e[-1]) || strchr(".?!,;:", e[-1])))
		e--;
	if (b == e || (!decide && !lead)) {
		/* No lead-in, or nothing after it: the whole reference, trimmed. */
		b = rule, e = rule + strlen(rule);
		while (b < e && is_space((unsigned char)*b))
			b++;
		while (e > b && is_space((unsigned char)e[-1]))
			e--;
	}
	size_t n = (size_t)(e - b);
	char *buf = malloc(n + 1);
	if (!buf)
		return KN_ENOMEM;
	memcpy(buf, b, n);
	buf[n] = '\0';
	*out = buf;
	return 0;
}

/* ---- scoring ---- */

/* Weights of the phrase's tokens. */
#define W_NUMBER 2.0  /* numbers, quantities, durations, times */
#define W_GENDER 1.5  /* men, women, kids… */
#define W_PLAIN 1.0
#define W_GENERIC 0.5 /* restaurant, pack, store */
#define W_QUAL 0.3    /* ", IL", ", USA" */
/* What extra input tokens cost. */
#define X_HEAVY 0.35       /* a word that changes the thing: case, pro, beach, north */
#define X_LIGHT 0.05       /* any other word, when the phrase is fully covered… */
#define X_LIGHT_CAP 0.15
#define X_LIGHT_PART 0.10  /* …and when it is not (the input says something else instead) */
#define X_LIGHT_PART_CAP 0.30
#define VETO_FACTOR 0.25

/* Stems that contradict each other: one in the phrase, the other (without the first) in the
 * input vetoes. */
static const char *const antonyms[][2] = {
	{ "open", "close" },     { "in", "out" },         { "with", "without" },   { "avail", "unavail" },
	{ "wire", "wireless" },  { "top", "bottom" },     { "upper", "lower" },    { "north", "south" },
	{ "east", "west" },      { "befor", "after" },    { "abov", "below" },     { "arriv", "depart" },
	{ "arriv", "departur" }, { "inbound", "outbound" }, { "rent", "sale" },    { "buy", "sell" },
	{ "minimum", "maximum" }, { "increas", "decreas" }, { "includ", "exclud" }, { "accept", "reject" },
	{ "yes", "no" },         { "true", "fals" },      { "hot", "cold" },       { "front", "back" },
	{ "front", "rear" },     { "lowest", "highest" }, { "earliest", "latest" },
};

/* A growing text for explanations; stays NULL-safe when out of memory. */
typedef struct trace {
	char *p;
	size_t n, cap;
	int on, oom;
} trace;

static void tr_printf(trace *tr, const char *fmt, ...)
	KN_PRINTF(2, 3)
	;

static void tr_printf(trace *tr, const char *fmt, ...)
{
	if (!tr || !tr->on || tr->oom)
		return;
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (k < 0)
		return;
	if (kn_grow_to(&tr->p, tr->n + (size_t)k + 1, &tr->cap, 1, 256)) {
		tr->oom = 1;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(tr->p + tr->n, tr->cap - tr->n, fmt, ap);
	va_end(ap);
	tr->n += (size_t)k;
}

typedef struct judge_state {
	kn_semtext ph, in;
	const char **pj, **ij; /* stem of token i glued to token i+1 (two words), else NULL */
	unsigned char *matched, *consumed_p; /* per phrase token */
	unsigned char *covered, *consumed_i; /* per input token */
} judge_state;

static int same(double a, double b)
{
	double m = fmax(fabs(a), fabs(b));
	return fabs(a - b) <= 1e-9 * (m > 1 ? m : 1);
}

static int currency(unsigned u)
{
	return u >= U_USD && u <= U_CHF;
}

/* "5k" against another number: 5 km, 5000, $5k = $5,000. */
static int k_match(double vk, unsigned u, double v)
{
	if (u == U_KM)
		return same(vk, v);
	if (u == U_NONE)
		return same(vk * 1000, v) || same(vk, v);
	return currency(u) && same(vk * 1000, v);
}

static int numeric(const kn_semtok *k)
{
	return k->kind != SEM_WORD;
}

/* Does input token b satisfy phrase token a? Words by stem; quantities by value and unit (a bare
 * number matches any unit); durations by seconds; times by minutes, modulo 12 hours when one
 * side did not say am or pm. */
static int tok_match(const kn_semtok *a, const kn_semtok *b)
{
	if (a->kind == SEM_WORD || b->kind == SEM_WORD)
		return a->kind == b->kind && strcmp(a->stem, b->stem) == 0;
	if (a->kind != b->kind)
		return 0;
	if (a->kind == SEM_DUR)
		return same(a->value, b->value);
	if (a->kind == SEM_TIME)
		return same(a->value, b->value) ||
		       (!(a->flags & b->flags & SEM_F_AMPM) && same(fmod(a->value, 720), fmod(b->value, 720)));
	unsigned ua = a->unit, ub = b->unit;
	if (ua == U_K && ub != U_K)
		return k_match(a->value, ub, b->value);
	if (ub == U_K && ua != U_K)
		return k_match(b->value, ua, a->value);
	if (ua == ub || ua == U_NONE || ub == U_NONE)
		return same(a->value, b->value);
	return 0;
}

static double weight(const kn_semtok *k, int all_stop)
{
	if (numeric(k))
		return W_NUMBER;
	if (k->flags & SEM_F_STOP)
		return all_stop ? W_PLAIN : 0;
	if (k->flags & SEM_F_QUAL)
		return W_QUAL;
	if (k->flags & SEM_F_GENERIC)
		return W_GENERIC;
	if (k->gender)
		return W_GENDER;
	return W_PLAIN;
}

static int has_stem(const kn_semtok *t, size_t b, size_t e, const char *stem)
{
	for (size_t i = b; i < e; i++)
		if (t[i].kind == SEM_WORD && strcmp(t[i].stem, stem) == 0)
			return 1;
	return 0;
}

/* Why the phrase tokens [b, e) and the input contradict each other, or NULL. */
static const char *veto(const judge_state *s, size_t b, size_t e)
{
	const kn_semtok *P = s->ph.tok, *I = s->in.tok;
	size_t ni = s->in.n;
	for (size_t i = b; i < e; i++)
		if (numeric(&P[i]) && !s->matched[i])
			for (size_t j = 0; j < ni; j++)
				if (numeric(&I[j]) && !s->covered[j])
					return "different number";
	unsigned gp = 0, gi = 0;
	int qp = 0, qi = 0, qboth = 0, np = 0, nin = 0;
	for (size_t i = b; i < e; i++) {
		gp |= s->consumed_p[i] ? 0u : P[i].gender; /* not the "man" of "spider man" */
		np |= (P[i].flags & SEM_F_NEG) && !s->consumed_p[i];
		if ((P[i].flags & (SEM_F_QUAL | SEM_F_COUNTRY)) == SEM_F_QUAL) {
			qp = 1;
			for (size_t j = 0; j < ni; j++)
				qboth |= (I[j].flags & SEM_F_QUAL) && strcmp(I[j].stem, P[i].stem) == 0;
		}
	}
	for (size_t j = 0; j < ni; j++) {
		gi |= s->consumed_i[j] ? 0u : I[j].gender;
		nin |= (I[j].flags & SEM_F_NEG) && !s->consumed_i[j];
		qi |= (I[j].flags & (SEM_F_QUAL | SEM_F_COUNTRY)) == SEM_F_QUAL;
	}
	if (gp && gi && !(gp & gi))
		return "other gender or age group";
	if (qp && qi && !qboth)
		return "other state";
	if (np != nin)
		return "negation";
	for (size_t a = 0; a < sizeof antonyms / sizeof antonyms[0]; a++)
		for (int d = 0; d < 2; d++) {
			const char *x = antonyms[a][d], *y = antonyms[a][1 - d];
			if (has_stem(P, b, e, x) && has_stem(I, 0, ni, y) && !has_stem(I, 0, ni, x))
				return "opposite word";
		}
	return NULL;
}

/* Score of the phrase tokens [b, e) (one alternative) against the whole input. */
static double score_alt(judge_state *s, size_t b, size_t e, trace *tr)
{
	const kn_semtok *P = s->ph.tok, *I = s->in.tok;
	size_t ni = s->in.n;
	memset(s->covered, 0, ni + 1);
	memset(s->consumed_i, 0, ni + 1);
	memset(s->matched + b, 0, e - b);
	memset(s->consumed_p + b, 0, e - b);

	int all_stop = 1;
	for (size_t i = b; i < e; i++)
		all_stop &= P[i].kind == SEM_WORD && (P[i].flags & SEM_F_STOP) != 0;
#define COUNTS(i) (all_stop || numeric(&P[i]) || !(P[i].flags & SEM_F_STOP))

	/* token against token */
	for (size_t i = b; i < e; i++) {
		if (!COUNTS(i))
			continue;
		for (size_t j = 0; j < ni; j++)
			if (tok_match(&P[i], &I[j]))
				s->matched[i] = s->covered[j] = 1;
	}
	/* compounds: "coffee maker" ~ "coffeemaker", "spiderman" ~ "spider-man" */
	for (size_t i = b; i + 1 < e; i++) {
		if (!s->pj[i] || (s->matched[i] && s->matched[i + 1]))
			continue;
		for (size_t j = 0; j < ni; j++)
			if (I[j].kind == SEM_WORD && strcmp(s->pj[i], I[j].stem) == 0) {
				s->matched[i] = s->matched[i + 1] = s->consumed_p[i] = s->consumed_p[i + 1] = 1;
				s->covered[j] = 1;
			}
	}
	for (size_t i = b; i < e; i++) {
		if (s->matched[i] || P[i].kind != SEM_WORD || !COUNTS(i))
			continue;
		for (size_t j = 0; j + 1 < ni; j++)
			if (s->ij[j] && strcmp(s->ij[j], P[i].stem) == 0) {
				s->matched[i] = 1;
				s->covered[j] = s->covered[j + 1] = s->consumed_i[j] = s->consumed_i[j + 1] = 1;
			}
	}

	/* coverage: a missing token counts twice, so in a short phrase any missing word fails */
	double total = 0, got = 0, missing = 0;
	tr_printf(tr, "  phrase:");
	for (size_t i = b; i < e; i++) {
		double w = weight(&P[i], all_stop);
		if (w <= 0)
			continue;
		total += w;
		if (s->matched[i])
			got += w;
		else if (w >= W_PLAIN)
			missing += w;
		tr_printf(tr, " %s%s(%g)", s->matched[i] ? "+" : "-", P[i].raw, w);
	}
	tr_printf(tr, "\n");
	if (total <= 0)
		return 0;
	double cover = got / (total + missing);
	int full = got >= total;

	/* extras */
	size_t nlight = 0;
	double heavy = 0;
	tr_printf(tr, "  extras:");
	for (size_t j = 0; j < ni; j++) {
		if (s->covered[j] || (I[j].flags & (SEM_F_STOP | SEM_F_JUNK | SEM_F_QUAL | SEM_F_OR)))
			continue;
		if (I[j].flags & SEM_F_HEAVY)
			heavy += X_HEAVY;
		else
			nlight++;
		tr_printf(tr, " %s%s", I[j].raw, I[j].flags & SEM_F_HEAVY ? "(heavy)" : "");
	}
	double light = (double)nlight * (full ? X_LIGHT : X_LIGHT_PART);
	double cap = full ? X_LIGHT_CAP : X_LIGHT_PART_CAP;
	double score = cover - (light < cap ? light : cap) - heavy;
	const char *why = veto(s, b, e);
	if (why)
		score *= VETO_FACTOR;
	if (score < 0)
		score = 0;
	if (score > 1)
		score = 1;
	tr_printf(tr, "\n  cover %.3f, extras -%.3f, veto: %s → %.3f\n", cover,
	          (light < cap ? light : cap) + heavy, why ? why : "none", score);
	return score;
#undef COUNTS
}

static void state_free(judge_state *s)
{
	kn_semtok_free(&s->ph);
	kn_semtok_free(&s->in);
	free(s->pj);
	free(s->ij);
	free(s->matched);
	free(s->consumed_p);
	free(s->covered);
	free(s->consumed_i);
}

/* Stems of adjacent word pairs glued together, for compounds. */
static int joins(kn_semtext *t, const char ***out)
{
	*out = calloc(t->n + 1, sizeof **out);
	if (!*out)
		return KN_ENOMEM;
	for (size_t i = 0; i + 1 < t->n; i++) {
		const kn_semtok *a = &t->tok[i], *b = &t->tok[i + 1];
		if (a->kind != SEM_WORD || b->kind != SEM_WORD || ((a->flags | b->flags) & SEM_F_OR))
			continue;
		if (!((*out)[i] = kn_semtok_join(t, a->word, b->word)))
			return KN_ENOMEM;
	}
	return 0;
}

static void trace_tokens(trace *tr, const char *what, const kn_semtext *t)
{
	tr_printf(tr, "%s:", what);
	for (size_t i = 0; i < t->n; i++)
		tr_printf(tr, " %s%s", t->tok[i].raw, t->tok[i].flags & SEM_F_QUAL ? "(place)" : "");
	tr_printf(tr, "\n");
}

static int judge_run(const char *rule, const char *phrase, const char *input, double *score,
                     trace *tr, kn_err *err)
{
	if (!score || !input || (!rule && !phrase))
		return kn_err_set(err, KN_EINVAL, "semantic judge: missing rule or input");
	*score = 0;

	char *own = NULL;
	int rc;
	if (!phrase) {
		if ((rc = kn_semantic_extract_phrase(&own, rule)) < 0)
			return kn_err_set(err, rc, "semantic judge: %s", kn_strerror(rc));
		phrase = own;
	}
	struct sb_stemmer *st = sb_stemmer_new("english", NULL);
	judge_state s = { 0 };
	rc = st ? 0 : KN_ENOMEM;
	if (rc == 0)
		rc = kn_semtok_text(&s.ph, phrase, 0, st);
	if (rc == 0)
		rc = kn_semtok_text(&s.in, input, 1, st);
	if (rc == 0) {
		s.matched = calloc(s.ph.n + 1, 1);
		s.consumed_p = calloc(s.ph.n + 1, 1);
		s.covered = calloc(s.in.n + 1, 1);
		s.consumed_i = calloc(s.in.n + 1, 1);
		if (!s.matched || !s.consumed_p || !s.covered || !s.consumed_i)
			rc = KN_ENOMEM;
	}
	if (rc == 0)
		rc = joins(&s.ph, &s.pj);
	if (rc == 0)
		rc = joins(&s.in, &s.ij);
	if (rc == 0) {
		trace_tokens(tr, "phrase", &s.ph);
		trace_tokens(tr, "input", &s.in);
		/* "X or Y": the best alternative */
		double best = 0;
		for (size_t b = 0; b < s.ph.n;) {
			size_t e = b;
			while (e < s.ph.n && !(s.ph.tok[e].flags & SEM_F_OR))
				e++;
			if (e > b) {
				double sc = score_alt(&s, b, e, tr);
				if (sc > best)
					best = sc;
			}
			b = e + 1;
		}
		*score = best;
		tr_printf(tr, "score %.3f\n", best);
	}
	state_free(&s);
	if (st)
		sb_stemmer_delete(st);
	free(own);
	if (rc < 0)
		return kn_err_set(err, rc, "semantic judge: %s", kn_strerror(rc));
	return 0;
}

static int offline_judge(void *ud, const char *rule, const char *phrase, const char *input,
                         double *score, kn_err *err)
{
	(void)ud;
	return judge_run(rule, phrase, input, score, NULL, err);
}

int kn_semantic_offline_explain(char **out, double *score, const char *rule, const char *phrase,
                                const char *input)
{
	if (!out)
		return KN_EINVAL;
	*out = NULL;
	trace tr = { .on = 1 };
	int rc = judge_run(rule, phrase, input, score, &tr, NULL);
	if (rc == 0 && (tr.oom || !tr.p))
		rc = KN_ENOMEM;
	if (rc < 0) {
		free(tr.p);
		return rc;
	}
	*out = tr.p;
	return 0;
}

static const kn_semantic offline = {offline_judge, NULL, "offline", KN_SEMANTIC_OFFLINE_SHA256};

const kn_semantic *kn_semantic_offline(void)
{
	return &offline;
}
