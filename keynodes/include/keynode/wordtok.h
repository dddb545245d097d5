/* wordtok.h — NLTK's word_tokenize (English, NLTK 3.8's NLTKWordTokenizer after a Punkt
 * sentence split), as WebArena's must_include needs it for its one-token rule. The word rules are
 * NLTK's own regular expressions, run with PCRE2 in Unicode mode; the sentence split follows the
 * rules written down in keynodes/README.md "Word tokens" (Punkt's trained English parameters are
 * not used). Pure and thread-safe. */
#ifndef KEYNODE_WORDTOK_H
#define KEYNODE_WORDTOK_H

#include <stddef.h>

#include "keynode/error.h"

/* Call tok(ud, token, length) for each token of text in order (a non-zero return stops and is
 * returned). 0, KN_ENOMEM, or KN_EINVAL when a pattern fails. */
int kn_wordtok_each(const char *text, int (*tok)(void *ud, const char *s, size_t n), void *ud);

/* 1 when `token` is one of text's tokens, 0 when not, negative on error. */
int kn_wordtok_contains(const char *text, const char *token);

#endif
