/* fuzz.c — thefuzz 0.19.0's token_set_ratio (fuzz.h), the scorer WebShop's goal.py matches
 * attributes and options with: full_process (force_ascii), the token sets, and the best of three
 * ratios, each rounded half to even as Python's round(). The ratio is difflib's
 * SequenceMatcher.ratio() (its longest-match recursion, autojunk's "popular" characters when the
 * second string has 200 or more) or python-Levenshtein's Indel ratio. Works on code points. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "keynode/fuzz.h"
#include "keynode/pytext.h"

int kn_fuzz_full_process(char **out, const char *s)
{
	size_t n = strlen(s), k = 0;
	char *sub = malloc(n + 1);
	*out = NULL;
	if (!sub)
		return KN_ENOMEM;
	for (size_t i = 0; i < n;) {
		unsigned cp;
		size_t l = kn_py_next(s + i, n - i, &cp);
		if (cp >= 0x80 && cp <= 0xFF) { /* asciidammit: chr(128)..chr(255) deleted */
			i += l;
			continue;
		}
		if (cp != 0xFFFFFFFFu && (cp == '_' || kn_py_isalnum(cp))) {
			memcpy(sub + k, s + i, l);
			k += l;
		} else { /* re.sub(r"(?ui)\W", " ") */
			sub[k++] = ' ';
		}
		i += l;
	}
	char *low = NULL;
	int rc = kn_py_lower(&low, sub, k);
	free(sub);
	if (rc)
		return rc;
	/* strip(): only spaces can be at the ends now */
	size_t b = 0, e = strlen(low);
	while (b < e && low[b] == ' ')
		b++;
	while (e > b && low[e - 1] == ' ')
		e--;
	memmove(low, low + b, e - b);
	low[e - b] = '\0';
	*out = low;
	return 0;
}

/* --- the ratios, on code points --- */

typedef struct cps {
	uint32_t *v;
	size_t n;
} cps;

static int decode(cps *out, const char *s)
{
	size_t n = strlen(s);
	out->n = 0;
	out->v = malloc((n + 1) * sizeof *out->v);
	if (!out->v)
		return KN_ENOMEM;
	for (size_t i = 0; i < n;) {
		unsigned cp;
		i += kn_py_next(s + i, n - i, &cp);
		out->v[out->n++] = cp == 0xFFFFFFFFu ? 0xFFFD : cp;
	}
	return 0;
}

/* b's positions by character, as difflib's b2j: idx holds (character, position) sorted, so each
 * character's positions are one run; next[j] is the next position of b[j]'s character. */
typedef struct occ {
	uint32_t c;
	size_t j;
} occ;

typedef struct b2j {
	occ *idx;
	size_t *next;
	unsigned char *popular; /* per position: its character is popular (autojunk) */
} b2j;

static int by_char(const void *x, const void *y)
{
	const occ *p = x, *q = y;
	return p->c != q->c ? (p->c < q->c ? -1 : 1) : (p->j < q->j ? -1 : p->j > q->j);
}

/* The first position in b (n long) of character c, or SIZE_MAX when b has none or it is
 * popular. */
static size_t first_of(const b2j *m, size_t n, uint32_t c)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (m->idx[mid].c < c)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == n || m->idx[lo].c != c || m->popular[m->idx[lo].j])
		return SIZE_MAX;
	return m->idx[lo].j;
}

/* difflib's matching characters: the sum of get_matching_blocks() sizes. find_longest_match
 * keeps the earliest longest block (first in a, then in b) and extends it over equal neighbours;
 * b's popular characters (autojunk: more than 1 + len/100 of them once b has 200) start no block.
 * The same walk as difflib's over b2j, so its cost follows the matches, not |a|·|b|. -1 when out
 * of memory. */
static long difflib_matches(const cps *a, const cps *b)
{
	size_t la = a->n, lb = b->n, top = 0, sum = 0, gen = 1;
	b2j m = {malloc((lb + 1) * sizeof(occ)), malloc((lb + 1) * sizeof(size_t)), calloc(lb + 1, 1)};
	/* j2len of the row before and of this one: an entry counts when its stamp is the row's */
	size_t *len0 = calloc(lb + 1, sizeof *len0), *len1 = calloc(lb + 1, sizeof *len1);
	size_t *st0 = calloc(lb + 1, sizeof *st0), *st1 = calloc(lb + 1, sizeof *st1);
	size_t (*stack)[4] = malloc((la + lb + 2) * sizeof *stack);
	long r = -1;
	if (!m.idx || !m.next || !m.popular || !len0 || !len1 || !st0 || !st1 || !stack)
		goto done;
	for (size_t j = 0; j < lb; j++)
		m.idx[j] = (occ){b->v[j], j};
	qsort(m.idx, lb, sizeof *m.idx, by_char);
	for (size_t k = 0; k < lb;) {
		size_t e = k;
		while (e < lb && m.idx[e].c == m.idx[k].c)
			e++;
		int pop = lb >= 200 && e - k > lb / 100 + 1;
		for (size_t x = k; x < e; x++) {
			m.next[m.idx[x].j] = x + 1 < e ? m.idx[x + 1].j : SIZE_MAX;
			m.popular[m.idx[x].j] = (unsigned char)pop;
		}
		k = e;
	}
	stack[top][0] = 0, stack[top][1] = la, stack[top][2] = 0, stack[top][3] = lb;
	top++;
	while (top) {
		top--;
		size_t alo = stack[top][0], ahi = stack[top][1], blo = stack[top][2], bhi = stack[top][3];
		size_t bi = alo, bj = blo, bs = 0;
		gen += 2; /* no row of an earlier call is this call's row before */
		for (size_t i = alo; i < ahi; i++, gen++) {
			for (size_t j = first_of(&m, lb, a->v[i]); j != SIZE_MAX && j < bhi; j = m.next[j]) {
				if (j < blo)
					continue;
				size_t k = (j > blo && st0[j - 1] == gen - 1 ? len0[j - 1] : 0) + 1;
				len1[j] = k, st1[j] = gen;
				if (k > bs)
					bi = i + 1 - k, bj = j + 1 - k, bs = k;
			}
			size_t *t = len0;
			len0 = len1, len1 = t;
			t = st0;
			st0 = st1, st1 = t;
		}
		while (bi > alo && bj > blo && a->v[bi - 1] == b->v[bj - 1])
			bi--, bj--, bs++;
		while (bi + bs < ahi && bj + bs < bhi && a->v[bi + bs] == b->v[bj + bs])
			bs++;
		if (!bs)
			continue;
		sum += bs;
		if (alo < bi && blo < bj) {
			stack[top][0] = alo, stack[top][1] = bi, stack[top][2] = blo, stack[top][3] = bj;
			top++;
		}
		if (bi + bs < ahi && bj + bs < bhi) {
			stack[top][0] = bi + bs, stack[top][1] = ahi, stack[top][2] = bj + bs;
			stack[top][3] = bhi;
			top++;
		}
	}
	r = (long)sum;
done:
	free(m.idx), free(m.next), free(m.popular);
	free(len0), free(len1), free(st0), free(st1), free(stack);
	return r;
}

/* Longest common subsequence: the Indel distance is |a| + |b| − 2·LCS. -1 when out of memory. */
static long lcs(const cps *a, const cps *b)
{
	size_t *row = calloc(b->n + 1, sizeof *row);
	if (!row)
		return -1;
	for (size_t i = 1; i <= a->n; i++) {
		size_t diag = 0;
		for (size_t j = 1; j <= b->n; j++) {
			size_t up = row[j];
			row[j] = a->v[i - 1] == b->v[j - 1] ? diag + 1
			                                    : (row[j] > row[j - 1] ? row[j] : row[j - 1]);
			diag = up;
		}
	}
	long r = (long)row[b->n];
	free(row);
	return r;
}

/* thefuzz's fuzz.ratio(s1, s2): 100 when equal, 0 when either is empty, else
 * round(100 · ratio) (Python's round: halves to even). */
static int ratio(int *out, const char *s1, const char *s2, kn_fuzz_scorer scorer)
{
	if (strcmp(s1, s2) == 0) {
		*out = 100;
		return 0;
	}
	if (!*s1 || !*s2) {
		*out = 0;
		return 0;
	}
	cps a = {0}, b = {0};
	int rc = KN_ENOMEM;
	if (decode(&a, s1) == 0 && decode(&b, s2) == 0) {
		long m = scorer == KN_FUZZ_INDEL ? lcs(&a, &b) : difflib_matches(&a, &b);
		if (m >= 0) {
			double r = 2.0 * (double)m / (double)(a.n + b.n);
			*out = (int)nearbyint(100.0 * r); /* the default rounding: to nearest, ties to even */
			rc = 0;
		}
	}
	free(a.v), free(b.v);
	return rc;
}

/* --- token sets --- */

static int by_bytes(const void *x, const void *y)
{
	/* UTF-8 byte order is code point order: Python's sorted() of str */
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* The distinct space-separated words of s (modified in place), sorted, into w. */
static size_t word_set(char *s, char **w)
{
	size_t n = 0, u = 0;
	for (char *p = s; *p;) {
		while (*p == ' ')
			*p++ = '\0';
		if (!*p)
			break;
		w[n++] = p;
		while (*p && *p != ' ')
			p++;
	}
	qsort(w, n, sizeof *w, by_bytes);
	for (size_t i = 0; i < n; i++)
		if (u == 0 || strcmp(w[u - 1], w[i]) != 0)
			w[u++] = w[i];
	return u;
}

static int member(char *const *w, size_t n, const char *x)
{
	return bsearch(&x, w, n, sizeof *w, by_bytes) != NULL;
}

/* " ".join of the words of w that are (in = 1) or are not (in = 0) in other, after prefix and a
 * space when prefix is not empty; then strip()ped, as thefuzz builds its combined strings. */
static void join(char *out, const char *prefix, char *const *w, size_t n, char *const *other,
                 size_t no, int in)
{
	size_t k = strlen(prefix);
	memmove(out, prefix, k);
	for (size_t i = 0; i < n; i++) {
		if (member(other, no, w[i]) != in)
			continue;
		if (k)
			out[k++] = ' ';
		size_t l = strlen(w[i]);
		memcpy(out + k, w[i], l);
		k += l;
	}
	out[k] = '\0';
}

int kn_fuzz_token_set_ratio(int *out, const char *a, const char *b, kn_fuzz_scorer scorer)
{
	char *p1 = NULL, *p2 = NULL, *sect = NULL, *c12 = NULL, *c21 = NULL;
	char **w1 = NULL, **w2 = NULL;
	int rc = KN_ENOMEM;
	*out = 0;
	if (kn_fuzz_full_process(&p1, a) || kn_fuzz_full_process(&p2, b))
		goto done;
	rc = 0;
	if (!*p1 || !*p2) /* validate_string: nothing left is 0 */
		goto done;
	rc = KN_ENOMEM;
	size_t l1 = strlen(p1), l2 = strlen(p2), cap = l1 + l2 + 2;
	w1 = malloc((l1 / 2 + 1) * sizeof *w1), w2 = malloc((l2 / 2 + 1) * sizeof *w2);
	sect = malloc(cap), c12 = malloc(cap), c21 = malloc(cap);
	if (!w1 || !w2 || !sect || !c12 || !c21)
		goto done;
	size_t n1 = word_set(p1, w1), n2 = word_set(p2, w2);
	join(sect, "", w1, n1, w2, n2, 1);
	join(c12, sect, w1, n1, w2, n2, 0);
	join(c21, sect, w2, n2, w1, n1, 0);
	int r1, r2, r3;
	if ((rc = ratio(&r1, sect, c12, scorer)) || (rc = ratio(&r2, sect, c21, scorer)) ||
	    (rc = ratio(&r3, c12, c21, scorer)))
		goto done;
	*out = r1 > r2 ? r1 : r2;
	*out = r3 > *out ? r3 : *out;
done:
	free(p1), free(p2), free(sect), free(c12), free(c21), free(w1), free(w2);
	return rc;
}
