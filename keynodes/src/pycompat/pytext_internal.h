/* pytext_internal.h — the generated tables behind pytext.c (pytext_lower.c, pytext_entities1.c and
 * pytext_entities2.c, written by keynodes/tools/gen_pytext.py). All sorted by their first field. */
#ifndef KEYNODE_PYTEXT_INTERNAL_H
#define KEYNODE_PYTEXT_INTERNAL_H

#include <stddef.h>

struct kn_py_lower {
	unsigned cp;
	const char *lower; /* UTF-8 of chr(cp).lower() */
};
struct kn_py_entity {
	const char *name;  /* "amp;", "amp", … as in html.entities.html5 */
	const char *value; /* UTF-8 */
};
struct kn_py_charref {
	unsigned num;
	const char *value;
};

extern const struct kn_py_lower kn_py_lower_table[];
extern const size_t kn_py_lower_count;
extern const unsigned kn_py_cased[][2], kn_py_case_ignorable[][2]; /* sorted [lo, hi] ranges */
extern const size_t kn_py_cased_count, kn_py_case_ignorable_count;
extern const unsigned kn_py_alnum[][2]; /* str.isalnum(), sorted [lo, hi] ranges */
extern const size_t kn_py_alnum_count;
extern const struct kn_py_entity kn_py_entity_table_1[], kn_py_entity_table_2[];
extern const size_t kn_py_entity_count_1, kn_py_entity_count_2;
extern const struct kn_py_charref kn_py_invalid_charref_table[];
extern const size_t kn_py_invalid_charref_count;
extern const unsigned kn_py_invalid_codepoint_table[];
extern const size_t kn_py_invalid_codepoint_count;

#endif
