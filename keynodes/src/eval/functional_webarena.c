/* functional_webarena.c — the `webarena` semantics of functional checks (functional.h): WebArena's
 * StringEvaluator and HTMLContentEvaluator rules with Python's str behaviour (pytext.h) and NLTK's
 * word tokens (wordtok.h), and its reddit_get_post_url rewrite. keynodes/README.md "Functional
 * semantics" lists where this differs from keynode's own rules (functional.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keynode/functional.h"
#include "keynode/pytext.h"
#include "keynode/wordtok.h"

int kn_func_wa_clean(char **out, const char *s)
{
	*out = NULL;
	if (!s)
		return KN_EINVAL;
	size_t b, e;
	kn_py_strip(s, strlen(s), &b, &e);
	if (e - b >= 2 && ((s[b] == '\'' && s[e - 1] == '\'') || (s[b] == '"' && s[e - 1] == '"')))
		b++, e--;
	else if (e - b == 1 && (s[b] == '\'' || s[b] == '"'))
		b++; /* Python: "'".startswith("'") and endswith("'"): [1:-1] is empty */
	return kn_py_lower(out, s + b, e - b);
}

/* clean(clean(s)) when twice, else clean(s). */
static int clean_n(char **out, const char *s, int twice)
{
	int rc = kn_func_wa_clean(out, s);
	if (rc || !twice)
		return rc;
	char *again = NULL;
	rc = kn_func_wa_clean(&again, *out);
	free(*out);
	*out = again;
	return rc;
}

static int exact(const char *ref, const char *pred, int twice)
{
	char *a = NULL, *b = NULL;
	int ok = kn_func_wa_clean(&a, ref) == 0 && clean_n(&b, pred, twice) == 0 && strcmp(a, b) == 0;
	free(a);
	free(b);
	return ok;
}

static int count_tok(void *ud, const char *s, size_t n)
{
	(void)s, (void)n;
	++*(size_t *)ud;
	return 0;
}

/* StringEvaluator.must_include(ref, pred, tokenize) with pred already cleaned as the caller
 * wants (it is cleaned once more here, as WebArena does). */
static int must_include(const char *ref, const char *pred, int tokenize)
{
	char *cr = NULL, *cp = NULL;
	int ok = 0;
	if (kn_func_wa_clean(&cr, ref) != 0 || kn_func_wa_clean(&cp, pred) != 0)
		goto done;
	size_t ntok = 0;
	if (tokenize && kn_py_len(cr) == 1 && kn_wordtok_each(cr, count_tok, &ntok) == 0 && ntok == 1)
		ok = kn_wordtok_contains(cp, cr) == 1;
	else
		ok = strstr(cp, cr) != NULL;
done:
	free(cr);
	free(cp);
	return ok;
}

int kn_func_wa_answer_exact(const char *ref, const char *answer)
{
	return ref && answer && exact(ref, answer, 1);
}

int kn_func_wa_answer_must_include(char *const *items, size_t n, const char *answer)
{
	char *pred = NULL;
	if (!answer || kn_func_wa_clean(&pred, answer) != 0)
		return 0;
	int ok = 1;
	for (size_t i = 0; i < n && ok; i++)
		ok = must_include(items[i], pred, n == 1);
	free(pred);
	return ok;
}

int kn_func_wa_page_exact(const char *ref, const char *content)
{
	char *u = NULL;
	if (!ref || !content || kn_py_html_unescape(&u, content) != 0)
		return 0;
	int ok = exact(ref, u, 0);
	free(u);
	return ok;
}

/* Any " |OR| " alternative of entry is included in pred (no token rule). */
static int any_alt(const char *entry, const char *pred)
{
	size_t or_len = strlen(KN_FUNC_OR);
	for (const char *b = entry;;) {
		const char *e = strstr(b, KN_FUNC_OR);
		size_t len = e ? (size_t)(e - b) : strlen(b);
		char *alt = malloc(len + 1);
		if (!alt)
			return 0;
		memcpy(alt, b, len);
		alt[len] = '\0';
		int ok = must_include(alt, pred, 0);
		free(alt);
		if (ok)
			return 1;
		if (!e)
			return 0;
		b = e + or_len;
	}
}

int kn_func_wa_page_must_include(char *const *items, size_t n, const char *content)
{
	char *u = NULL;
	if (!content || kn_py_html_unescape(&u, content) != 0)
		return 0;
	int ok = 1;
	for (size_t i = 0; i < n && ok; i++)
		ok = any_alt(items[i], u);
	free(u);
	return ok;
}

int kn_func_reddit_post_url(char **out, const char *url)
{
	*out = NULL;
	if (!url)
		return KN_EINVAL;
	/* urlparse: scheme "://" netloc path[;params]; path segments split at '/' */
	const char *colon = strstr(url, "://");
	const char *net = colon ? colon + 3 : NULL;
	const char *path = net ? net + strcspn(net, "/?#") : NULL;
	size_t plen = path ? strcspn(path, "?#") : 0;
	if (path) { /* urlparse's params: a ';' after the last '/' ends the path */
		const char *last = path;
		for (const char *c = path; c < path + plen; c++)
			if (*c == '/')
				last = c;
		const char *semi = memchr(last, ';', (size_t)(path + plen - last));
		if (semi)
			plen = (size_t)(semi - path);
	}
	const char *seg[4] = {0};
	size_t seglen[4] = {0}, nseg = 0;
	for (const char *p = path; p && p <= path + plen && nseg < 4;) {
		const char *slash = memchr(p, '/', (size_t)(path + plen - p));
		const char *e = slash ? slash : path + plen;
		seg[nseg] = p;
		seglen[nseg++] = (size_t)(e - p);
		if (!slash)
			break;
		p = slash + 1;
	}
	/* tok_url = path.split("/"): ["", "f", SUB, ID, …]; params (";…") leave the last segment */
	if (nseg == 4 && seglen[0] == 0 && seglen[1] == 1 &&
	    seg[1][0] == 'f') {
		size_t n = (size_t)(path - url) + 4 + seglen[2] + 1 + seglen[3] + 2;
		char *r = malloc(n);
		if (!r)
			return KN_ENOMEM;
		snprintf(r, n, "%.*s/f/%.*s/%.*s/", (int)(path - url), url, (int)seglen[2], seg[2],
		         (int)seglen[3], seg[3]);
		*out = r;
		return 0;
	}
	return (*out = strdup(url)) ? 0 : KN_ENOMEM;
}
