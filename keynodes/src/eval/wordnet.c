/* wordnet.c — the noun judgement of WebShop's type reward (wordnet.h) over WordNet's index files:
 * one open-addressing table of lemmas with their tagged-sense counts as noun, adjective and adverb
 * (the files stay in memory and the table points into them), noun.exc's irregular plurals, and
 * WordNet's morphy suffix rules for nouns. Loaded once per process by kn_wordnet_shared. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keynode/wordnet.h"

enum { NOUN, ADJ, ADV, N_POS };

typedef struct entry {
	const char *word;  /* NULL: a free slot */
	int tags[N_POS];   /* tagsense_cnt in index.<pos>, -1 when not there */
	const char *base;  /* noun.exc: the first base form, or NULL */
} entry;

struct kn_wordnet {
	entry *slots;
	size_t mask;
	char *files[4];
};

/* Determiners, prepositions, conjunctions and pronouns spaCy never tags as nouns; WordNet lists
 * only open-class words, so these are named here. */
static const char *const function_words[] = {
	"a", "about", "an", "and", "as", "at", "but", "by", "for", "from", "he", "her", "his", "i",
	"in", "into", "it", "its", "my", "nor", "of", "on", "onto", "or", "our", "per", "she", "than",
	"that", "the", "their", "these", "they", "this", "those", "to", "via", "we", "with",
	"without", "you", "your",
};

static size_t hash(const char *s)
{
	size_t h = 1469598103934665603u; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return h;
}

static entry *slot(const kn_wordnet *wn, const char *w)
{
	for (size_t i = hash(w) & wn->mask;; i = (i + 1) & wn->mask)
		if (!wn->slots[i].word || strcmp(wn->slots[i].word, w) == 0)
			return &wn->slots[i];
}

static entry *add(kn_wordnet *wn, const char *w)
{
	entry *e = slot(wn, w);
	if (!e->word) {
		e->word = w;
		e->tags[NOUN] = e->tags[ADJ] = e->tags[ADV] = -1;
	}
	return e;
}

static int read_file(char **out, const char *dir, const char *name, kn_err *err)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "rb");
	*out = NULL;
	if (!f)
		return kn_err_set(err, KN_EIO, "cannot read the WordNet lexicon %s: %s (the product-type "
		                  "rule needs it: install Debian's wordnet-base)", path, strerror(errno));
	long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
	char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
	int rc = n < 0 ? KN_EIO : buf ? 0 : KN_ENOMEM;
	if (!rc && (fseek(f, 0, SEEK_SET) != 0 || fread(buf, 1, (size_t)n, f) != (size_t)n))
		rc = KN_EIO;
	fclose(f);
	if (rc) {
		free(buf);
		return kn_err_set(err, rc, "cannot read the WordNet lexicon %s", path);
	}
	buf[n] = '\0';
	*out = buf;
	return 0;
}

/* index.<pos>: "lemma pos synset_cnt p_cnt ptr… sense_cnt tagsense_cnt offsets…" a line; the
 * licence lines start with a space. */
static void load_index(kn_wordnet *wn, char *buf, int pos)
{
	for (char *line = buf; *line;) {
		char *eol = strchr(line, '\n');
		if (eol)
			*eol = '\0';
		if (*line != ' ' && *line) {
			char *sp = strchr(line, ' ');
			if (sp) {
				*sp = '\0';
				long f[4] = {0};
				char *p = sp + 1, *end;
				p = strchr(p, ' '); /* skip pos */
				int ok = p != NULL;
				for (int k = 0; ok && k < 2; k++) { /* synset_cnt, p_cnt */
					f[k] = strtol(p, &end, 10);
					ok = end != p;
					p = end;
				}
				for (long k = 0; ok && k < f[1]; k++) { /* the pointer symbols */
					while (*p == ' ')
						p++;
					p += strcspn(p, " ");
				}
				for (int k = 2; ok && k < 4; k++) { /* sense_cnt, tagsense_cnt */
					f[k] = strtol(p, &end, 10);
					ok = end != p;
					p = end;
				}
				if (ok)
					add(wn, line)->tags[pos] = (int)f[3];
			}
		}
		line = eol ? eol + 1 : line + strlen(line);
	}
}

/* noun.exc: "inflected base…" a line. */
static void load_exc(kn_wordnet *wn, char *buf)
{
	for (char *line = buf; *line;) {
		char *eol = strchr(line, '\n');
		if (eol)
			*eol = '\0';
		char *sp = strchr(line, ' ');
		if (sp) {
			*sp = '\0';
			char *base = sp + 1;
			base[strcspn(base, " ")] = '\0';
			entry *e = add(wn, line);
			if (!e->base)
				e->base = base;
		}
		line = eol ? eol + 1 : line + strlen(line);
	}
}

int kn_wordnet_load(kn_wordnet **out, const char *dir, kn_err *err)
{
	static const char *const names[] = {"index.noun", "index.adj", "index.adv", "noun.exc"};
	kn_wordnet *wn = calloc(1, sizeof *wn);
	*out = NULL;
	if (!wn)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	size_t lines = 0;
	for (int i = 0; i < 4; i++) {
		int rc = read_file(&wn->files[i], dir, names[i], err);
		if (rc) {
			kn_wordnet_free(wn);
			return rc;
		}
		for (const char *p = wn->files[i]; (p = strchr(p, '\n')); p++)
			lines++;
	}
	size_t cap = 1024;
	while (cap < lines + lines / 2) /* a load factor of at most 2/3 */
		cap *= 2;
	wn->mask = cap - 1;
	if (!(wn->slots = calloc(cap, sizeof *wn->slots))) {
		kn_wordnet_free(wn);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	for (int pos = 0; pos < N_POS; pos++)
		load_index(wn, wn->files[pos], pos);
	load_exc(wn, wn->files[3]);
	*out = wn;
	return 0;
}

void kn_wordnet_free(kn_wordnet *wn)
{
	if (!wn)
		return;
	free(wn->slots);
	for (int i = 0; i < 4; i++)
		free(wn->files[i]);
	free(wn);
}

static pthread_once_t shared_once = PTHREAD_ONCE_INIT;
static kn_wordnet *shared_wn;
static kn_err shared_err;

static void load_shared(void)
{
	kn_wordnet_load(&shared_wn, KN_WORDNET_DIR, &shared_err);
}

int kn_wordnet_shared(const kn_wordnet **out, kn_err *err)
{
	pthread_once(&shared_once, load_shared);
	*out = shared_wn;
	if (shared_wn)
		return 0;
	if (err)
		*err = shared_err;
	return shared_err.code ? shared_err.code : KN_EIO;
}

static const entry *find(const kn_wordnet *wn, const char *w)
{
	const entry *e = slot(wn, w);
	return e->word ? e : NULL;
}

/* WordNet's morphy for nouns: the word, its noun.exc base, then the suffix rules; the first form
 * index.noun has, or NULL. */
static const entry *noun_lemma(const kn_wordnet *wn, const char *w)
{
	static const char *const suffix[][2] = {
		{"s", ""}, {"ses", "s"}, {"xes", "x"}, {"zes", "z"}, {"ches", "ch"}, {"shes", "sh"},
		{"men", "man"}, {"ies", "y"},
	};
	const entry *e = find(wn, w);
	if (e && e->tags[NOUN] >= 0)
		return e;
	if (e && e->base && (e = find(wn, e->base)) && e->tags[NOUN] >= 0)
		return e;
	size_t n = strlen(w);
	char form[256];
	for (size_t i = 0; i < sizeof suffix / sizeof suffix[0]; i++) {
		size_t ls = strlen(suffix[i][0]), lr = strlen(suffix[i][1]);
		if (n <= ls || n - ls + lr >= sizeof form || strcmp(w + n - ls, suffix[i][0]) != 0)
			continue;
		memcpy(form, w, n - ls);
		memcpy(form + n - ls, suffix[i][1], lr + 1);
		if ((e = find(wn, form)) && e->tags[NOUN] >= 0)
			return e;
	}
	return NULL;
}

/* A word WordNet does not know with an adjective's ending ("breathable", "stainless"-like
 * coinages): spaCy tags those as adjectives. */
static int adjective_suffix(const char *w)
{
	static const char *const suffix[] = {"able", "ible", "less", "ous", "ful"};
	size_t n = strlen(w);
	for (size_t i = 0; i < sizeof suffix / sizeof suffix[0]; i++) {
		size_t l = strlen(suffix[i]);
		if (n > l + 2 && strcmp(w + n - l, suffix[i]) == 0)
			return 1;
	}
	return 0;
}

int kn_wordnet_is_noun(const kn_wordnet *wn, const char *word)
{
	for (size_t i = 0; i < sizeof function_words / sizeof function_words[0]; i++)
		if (strcmp(word, function_words[i]) == 0)
			return 0;
	const entry *e = find(wn, word), *noun = noun_lemma(wn, word);
	int other = -1; /* the word's tagged senses as an adjective or adverb, -1: neither */
	if (e)
		other = e->tags[ADJ] > e->tags[ADV] ? e->tags[ADJ] : e->tags[ADV];
	if (!noun)
		return other < 0 && !adjective_suffix(word);
	return other <= noun->tags[NOUN];
}
