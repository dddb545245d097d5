/* wordnet.h — which words of a product name are nouns, the words WebShop's type reward compares
 * (goal.py keeps the tokens spaCy tags NOUN or PROPN). keynode approximates the tagger with
 * WordNet's index files (Debian's wordnet-base: /usr/share/wordnet/index.{noun,adj,adv} and
 * noun.exc); keynodes/README.md "Purchase reward" states the rule and where it differs from spaCy.
 * The lexicon is read once, on first use, and then shared read-only (thread-safe). */
#ifndef KEYNODE_WORDNET_H
#define KEYNODE_WORDNET_H

#include "keynode/error.h"

#define KN_WORDNET_DIR "/usr/share/wordnet" /* where Debian's wordnet-base puts the files */

typedef struct kn_wordnet kn_wordnet;

/* Load index.noun, index.adj, index.adv and noun.exc from dir into *out (the caller's; free with
 * kn_wordnet_free). KN_EIO naming the missing file and the package to install, KN_ENOMEM. */
int kn_wordnet_load(kn_wordnet **out, const char *dir, kn_err *err);
void kn_wordnet_free(kn_wordnet *wn);

/* The process's lexicon from KN_WORDNET_DIR, loaded on the first call (later calls return the
 * same one, or the same error). *out is borrowed for the life of the process. */
int kn_wordnet_shared(const kn_wordnet **out, kn_err *err);

/* 1 when the lower-case word counts as a noun (a type word), 0 when not: a function word
 * (determiner, preposition, conjunction, pronoun: WordNet has none), a word WordNet knows only as
 * an adjective or adverb, or one tagged more often as an adjective or adverb than as a noun in
 * WordNet's sense-tagged corpus (the tagsense_cnt field), or one WordNet does not know ending like
 * an adjective (-able, -ible, -less, -ous, -ful, after at least 3 more letters); nouns by WordNet's
 * morphy rules (plurals: -s, -es, -ies, -men and noun.exc) and other words WordNet does not know
 * (names, brands) are nouns. */
int kn_wordnet_is_noun(const kn_wordnet *wn, const char *word);

#endif
