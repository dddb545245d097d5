/* semantic.c — the offline semantic judge and the rule → phrase extraction it relies on.
 *
 * Mind2Web-Live writes semantic key nodes as rules for an LLM ("Decide whether are searching for
 * mens winter coat"). kn_semantic_extract_phrase() peels the lead-in off, leaving the phrase
 * that matters ("mens winter coat"); the offline judge then scores the share of the phrase's
 * words found among the input's words, after both are lower-cased, decoded and stripped of
 * punctuation. It works on whole tokens, so "womens" never satisfies "mens". This is the first,
 * deliberately simple judge: no network, deterministic, and conservative. */
#include <stdlib.h>
#include <string.h>

#include "keynode/match.h"
#include "keynode/url.h"

/* What may follow "Decide whether", longest first so "the content is to" wins over
 * "the content is". The last two also stand alone in native YAML rules ("searching for X"). */
static const char *const lead_ins[] = {
	"the content is to", "the content means", "the content is", "the place is",
	"are searching for", "is searching for", "is searchign for", /* sic, in example_130 */
	"are describing", "is describing", "searching for", "describing",
};

/* Words a phrase may carry that say nothing about what is searched for; dropped from the phrase
 * unless they are all it has. */
static const char *const stop_words[] = { "a", "an", "the", "of", "for", "and", "to", "in" };

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

typedef struct tokens {
	char *text;   /* normalised copy, NUL between tokens */
	char **tok;
	size_t n;
} tokens;

static void tokens_free(tokens *t)
{
	free(t->text);
	free(t->tok);
}

/* Length of a word-final "'s" (apostrophe ' or U+2019, then s) starting at s; 0 when there
 * is none. */
static size_t possessive_at(const unsigned char *s)
{
	size_t k = s[0] == '\'' ? 1 : (s[0] == 0xE2 && s[1] == 0x80 && s[2] == 0x99) ? 3 : 0;
	if (k && (s[k] == 's' || s[k] == 'S')) {
		unsigned char c = s[k + 1];
		if (c == '\0' || c < 0x80) {
			if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
				return k + 1;
		}
	}
	return 0;
}

/* Split s into lower-cased tokens: ASCII punctuation and spaces separate them, a trailing "'s"
 * is dropped and other apostrophes vanish ("don't" → "dont"). Non-ASCII bytes are word
 * characters. decode: percent/plus-decode first (the input may be a raw query value). */
static int tokenise(tokens *t, const char *s, int decode)
{
	memset(t, 0, sizeof *t);
	int rc = decode ? kn_url_unquote(&t->text, s, strlen(s), 1) : 0;
	if (rc < 0)
		return rc;
	if (!decode && !(t->text = strdup(s)))
		return KN_ENOMEM;

	unsigned char *r = (unsigned char *)t->text, *w = r;
	size_t cap = 0;
	while (*r) {
		size_t k;
		if ((k = possessive_at(r)) != 0) {
			r += k;
		} else if (*r == '\'') {
			r++;
		} else if (r[0] == 0xE2 && r[1] == 0x80 && r[2] == 0x99) {
			r += 3;
		} else if (*r < 0x80 && !((*r >= 'a' && *r <= 'z') || (*r >= 'A' && *r <= 'Z') ||
		                          (*r >= '0' && *r <= '9'))) {
			*w++ = '\0';
			r++;
			cap++;
		} else {
			*w++ = lower(*r++);
		}
	}
	*w = '\0';
	t->tok = malloc((cap + 1) * sizeof *t->tok);
	if (!t->tok) {
		tokens_free(t);
		return KN_ENOMEM;
	}
	for (char *q = t->text; q < (char *)w; q += strlen(q) + 1)
		if (*q)
			t->tok[t->n++] = q;
	return 0;
}

/* Equal, or equal once one side loses a trailing 's' (the whole plural rule). */
static int token_eq(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	if (na == nb)
		return memcmp(a, b, na) == 0;
	if (na == nb + 1 && a[na - 1] == 's')
		return memcmp(a, b, nb) == 0;
	if (nb == na + 1 && b[nb - 1] == 's')
		return memcmp(a, b, na) == 0;
	return 0;
}

static int is_stop_word(const char *w)
{
	for (size_t i = 0; i < sizeof stop_words / sizeof stop_words[0]; i++)
		if (strcmp(w, stop_words[i]) == 0)
			return 1;
	return 0;
}

static int offline_judge(void *ud, const char *rule, const char *phrase, const char *input,
                         double *score, kn_err *err)
{
	(void)ud;
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
	tokens want, have;
	rc = tokenise(&want, phrase, 0);
	free(own);
	if (rc < 0)
		return kn_err_set(err, rc, "semantic judge: %s", kn_strerror(rc));
	if ((rc = tokenise(&have, input, 1)) < 0) {
		tokens_free(&want);
		return kn_err_set(err, rc, "semantic judge: %s", kn_strerror(rc));
	}

	size_t content = 0;
	for (size_t i = 0; i < want.n; i++)
		content += !is_stop_word(want.tok[i]);
	size_t total = 0, found = 0;
	for (size_t i = 0; i < want.n; i++) {
		if (content && is_stop_word(want.tok[i]))
			continue;
		total++;
		for (size_t j = 0; j < have.n; j++)
			if (token_eq(want.tok[i], have.tok[j])) {
				found++;
				break;
			}
	}
	*score = total ? (double)found / (double)total : 0.0;
	tokens_free(&want);
	tokens_free(&have);
	return 0;
}

static const kn_semantic offline = { offline_judge, NULL, "offline" };

const kn_semantic *kn_semantic_offline(void)
{
	return &offline;
}
