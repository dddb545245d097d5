/* pytext.h — Python's str semantics on UTF-8 text, where WebArena's evaluator and WebShop's thefuzz
 * depend on them: str.isspace / strip(), str.isalnum(), str.lower() (full Unicode mappings, "İ"
 * becomes two code points), len() in code points, and html.unescape(). Tables are generated from a Python (keynodes/tools/
 * gen_pytext.py; the version is named in the generated files). Ill-formed UTF-8 bytes are kept
 * as they are and count as one character each. Pure and thread-safe. */
#ifndef KEYNODE_PYTEXT_H
#define KEYNODE_PYTEXT_H

#include <stddef.h>

#include "keynode/error.h"

/* The code point at s (n bytes available, n > 0) into *cp and its length in bytes; an
 * ill-formed byte gives *cp = 0xFFFFFFFF and length 1. */
size_t kn_py_next(const char *s, size_t n, unsigned *cp);

/* 1 when str.isspace() holds for the code point. */
int kn_py_isspace(unsigned cp);

/* 1 when str.isalnum() holds for the code point (what re's \w matches, "_" aside). */
int kn_py_isalnum(unsigned cp);

/* str.strip(): the offsets [*b, *e) of s (n bytes) without leading and trailing whitespace. */
void kn_py_strip(const char *s, size_t n, size_t *b, size_t *e);

/* str.lower() of the n bytes at s into *out (the caller's, NUL-terminated). KN_ENOMEM. */
int kn_py_lower(char **out, const char *s, size_t n);

/* 1 when str.lower() of some other code point is exactly cp (a lower-case letter). */
int kn_py_is_lowered(unsigned cp);

/* len(): code points in s. */
size_t kn_py_len(const char *s);

/* html.unescape(s) into *out (the caller's): named references of HTML5 (the longest known prefix
 * when no ';'), decimal and hex references with the HTML5 fix-ups. KN_ENOMEM. */
int kn_py_html_unescape(char **out, const char *s);

#endif
