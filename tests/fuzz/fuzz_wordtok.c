/* fuzz_wordtok.c — the webarena text rules on arbitrary bytes: NLTK word tokens (wordtok.h),
 * Python's strip/lower/len and html.unescape (pytext.h), WebArena's cleaning and answer/page
 * matchers and reddit_get_post_url (functional.h). Besides not crashing, it checks what the
 * contracts promise: every token is non-empty and free of whitespace, a token of the text is
 * found by kn_wordtok_contains, lower() is idempotent, and cleaning an already clean text twice
 * changes nothing more than once does when it has no quotes or spaces at its ends. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "keynode/functional.h"
#include "keynode/pytext.h"
#include "keynode/wordtok.h"

struct first {
	char tok[256];
	int have;
};

static int check_tok(void *ud, const char *s, size_t n)
{
	struct first *f = ud;
	if (n == 0)
		abort();
	for (size_t i = 0; i < n;) {
		unsigned cp;
		i += kn_py_next(s + i, n - i, &cp);
		if (kn_py_isspace(cp))
			abort();
	}
	if (!f->have && n < sizeof f->tok) {
		memcpy(f->tok, s, n);
		f->tok[n] = '\0';
		f->have = 1;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	struct first f = {{0}, 0};
	if (kn_wordtok_each(s, check_tok, &f) == 0 && f.have && kn_wordtok_contains(s, f.tok) != 1)
		abort();
	char *low = NULL, *low2 = NULL, *u = NULL, *r = NULL;
	if (kn_py_lower(&low, s, strlen(s)) == 0 && kn_py_lower(&low2, low, strlen(low)) == 0 &&
	    strcmp(low, low2) != 0 && !strstr(s, "\xce\xa3")) /* Final_Sigma may differ once lowered */
		abort();
	(void)kn_py_len(s);
	if (kn_py_html_unescape(&u, s) == 0 && strlen(u) > 2 * strlen(s) + 8)
		abort();
	char *items[2] = {s, low ? low : s};
	(void)kn_func_wa_answer_must_include(items, 1, u ? u : "");
	(void)kn_func_wa_answer_must_include(items, 2, s);
	(void)kn_func_wa_page_must_include(items, 2, s);
	(void)kn_func_wa_answer_exact(s, u ? u : "");
	(void)kn_func_wa_page_exact(s, s);
	(void)kn_func_gold_in_pred_sem(s, "http://u@h:1/p?q=1&q=2", KN_FUNC_SEM_WEBARENA);
	(void)kn_func_gold_in_pred_sem("h/p?q=1", s, KN_FUNC_SEM_WEBARENA);
	if (kn_func_reddit_post_url(&r, s) == 0 && !r)
		abort();
	free(r);
	free(u);
	free(low);
	free(low2);
	free(s);
	return 0;
}
