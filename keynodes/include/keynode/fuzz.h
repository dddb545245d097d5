/* fuzz.h — thefuzz's token_set_ratio as WebShop installs it (thefuzz 0.19.0 without
 * python-Levenshtein, so its ratio is difflib.SequenceMatcher's), with python-Levenshtein's Indel
 * ratio as the other scorer. keynodes/README.md "Purchase reward" states the rules. Pure and
 * thread-safe. */
#ifndef KEYNODE_FUZZ_H
#define KEYNODE_FUZZ_H

#include "keynode/error.h"

typedef enum kn_fuzz_scorer {
	KN_FUZZ_DIFFLIB, /* difflib.SequenceMatcher(None, a, b).ratio(): WebShop's pinned install */
	KN_FUZZ_INDEL    /* 1 − Indel distance / total length: thefuzz with python-Levenshtein */
} kn_fuzz_scorer;

/* thefuzz.fuzz.token_set_ratio(a, b) (force_ascii and full_process on, as by default) into *out:
 * 0..100. a and b are UTF-8 (an ill-formed byte counts as U+FFFD). KN_ENOMEM. */
int kn_fuzz_token_set_ratio(int *out, const char *a, const char *b, kn_fuzz_scorer scorer);

/* thefuzz's utils.full_process(s, force_ascii=True) into *out (the caller's, UTF-8): U+0080..U+00FF
 * removed, every character but letters, digits (str.isalnum) and "_" made a space, str.lower(),
 * strip(). KN_ENOMEM. */
int kn_fuzz_full_process(char **out, const char *s);

#endif
