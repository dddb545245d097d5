/* agree.c — does the element a locator found match what the step recorded of it (heal.h
 * kn_heal_agree)? Healing and fallbacks score similarity, which is how they find an element whose
 * selector changed; but similarity alone accepts "another item of the same kind" — the sibling
 * article in the same list, the product whose name shares two of three words, the "View source"
 * link with the same href as "Edit". The recorded accessible name is a hard constraint (a
 * different name is a different thing), the recorded href a soft one (same control, new target:
 * a drift worth reporting, and the step's postcondition says whether it still leads where it
 * did). Pure functions, unit-tested in tests/unit/test_heal.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heal.h"

enum { MAXT = 64 };

static int stopword(const char *w, size_t n)
{
	static const char *const words[] = {"and", "the", "a", "an", "of", "to", "for", "in", "on", "or",
	                                    "with", "amp"};
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strlen(words[i]) == n && memcmp(words[i], w, n) == 0)
			return 1;
	return 0;
}

static int numeric(const char *w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (w[i] < '0' || w[i] > '9')
			return 0;
	return 1;
}

/* Content words of folded text f. Small numbers (up to three digits) are counters more often than
 * names — "Cart 2" is the cart link with another count, "Inbox (12)" the inbox — and are left out
 * when words remain; a year or a longer number ("Trail budget 2026") names the thing. */
static size_t words(const char *f, const char **w, size_t *len)
{
	const char *t[MAXT];
	size_t tl[MAXT], n = kn_heal_tokens(f, t, tl, MAXT), k = 0, kept = 0;
	for (size_t i = 0; i < n; i++)
		kept += !stopword(t[i], tl[i]) && !(numeric(t[i], tl[i]) && tl[i] <= 3);
	for (size_t i = 0; i < n; i++)
		if (!stopword(t[i], tl[i]) && !(kept && numeric(t[i], tl[i]) && tl[i] <= 3)) {
			w[k] = t[i];
			len[k++] = tl[i];
		}
	return k;
}

/* Every word of a is in b, and (unless any_extra) b's other words are numbers (a counter). */
static int covered(const char **a, const size_t *la, size_t na, const char **b, const size_t *lb,
                   size_t nb, int any_extra)
{
	char used[MAXT] = {0};
	for (size_t i = 0; i < na; i++) {
		size_t j = 0;
		while (j < nb && (used[j] || la[i] != lb[j] || memcmp(a[i], b[j], la[i]) != 0))
			j++;
		if (j == nb)
			return 0;
		used[j] = 1;
	}
	for (size_t j = 0; j < nb && !any_extra; j++)
		if (!used[j] && !numeric(b[j], lb[j]))
			return 0;
	return 1;
}

/* names_agree, or (within) every word of a is in b. */
static int compare_names(const char *a, const char *b, int within)
{
	char *fa = kn_heal_fold(a, 1024), *fb = kn_heal_fold(b, 1024);
	int ok = 1;
	if (fa && fb) {
		const char *wa[MAXT], *wb[MAXT];
		size_t la[MAXT], lb[MAXT];
		size_t na = words(fa, wa, la), nb = words(fb, wb, lb);
		if (na == 0 || nb == 0) /* only punctuation or stop words: compare the text itself */
			ok = strcmp(fa, fb) == 0;
		else
			ok = covered(wa, la, na, wb, lb, nb, within) || covered(wb, lb, nb, wa, la, na, 0);
	}
	free(fa);
	free(fb);
	return ok;
}

int kn_heal_names_agree(const char *a, const char *b) { return compare_names(a, b, 0); }

int kn_heal_hrefs_agree(const char *a, const char *b)
{
	a = kn_heal_href_tail(a);
	b = kn_heal_href_tail(b);
	while (a[0] == '.' && a[1] == '/')
		a += 2;
	while (b[0] == '.' && b[1] == '/')
		b += 2;
	if (strcmp(a, b) == 0)
		return 1;
	size_t na = strlen(a), nb = strlen(b);
	const char *lng = na > nb ? a : b, *sht = na > nb ? b : a;
	if (sht[0] == '#' || sht[0] == '?') { /* "#/settings" names the fragment of the page it is on */
		const char *part = strchr(lng, sht[0]);
		return part && strcmp(part, sht) == 0;
	}
	size_t nl = na > nb ? na : nb, ns = na > nb ? nb : na;
	return ns && sht[0] != '/' && sht[0] != '#' && sht[0] != '?' && strcmp(lng + nl - ns, sht) == 0 &&
	       lng[nl - ns - 1] == '/';
}

static int known(const char *s) { return s && *s; }

/* 1 when the words of a and b (folded; counters of up to three digits left out) are the same in the
 * same order, stop words included: "Gear & equipment" and "Gear and equipment" agree as names, but
 * the label was edited. */
static int same_words(const char *a, const char *b)
{
	char *fa = kn_heal_fold(a, 1024), *fb = kn_heal_fold(b, 1024);
	int same = 1;
	if (fa && fb) {
		const char *ta[MAXT], *tb[MAXT];
		size_t la[MAXT], lb[MAXT];
		size_t na = kn_heal_tokens(fa, ta, la, MAXT), nb = kn_heal_tokens(fb, tb, lb, MAXT), i = 0, j = 0;
		for (;;) {
			while (i < na && numeric(ta[i], la[i]) && la[i] <= 3)
				i++;
			while (j < nb && numeric(tb[j], lb[j]) && lb[j] <= 3)
				j++;
			if (i == na || j == nb)
				break;
			if (la[i] != lb[j] || memcmp(ta[i], tb[j], la[i]) != 0)
				break;
			i++, j++;
		}
		same = i == na && j == nb;
	}
	free(fa);
	free(fb);
	return same;
}

kn_heal_agreement kn_heal_agree(const kn_step *st, const kn_heal_sig *c, char *why, size_t n)
{
	if (why && n)
		why[0] = '\0';
	/* The recorded name: a click's text. Recorded by `keynode record` (a fingerprint: the tag is
	 * known) it is the element's whole visible text and must agree; written by hand it may be a
	 * label within it ("Q3 report review" in "Grace Hopper Q3 report review — Hi Sam"). */
	int within = !known(st->tag);
	if (known(st->text) && (known(c->text) || known(c->aria)) &&
	    !(known(c->text) && compare_names(st->text, c->text, within)) &&
	    !(known(c->aria) && compare_names(st->text, c->aria, within))) {
		if (why)
			snprintf(why, n, "recorded text '%.80s', the element's is '%.80s'", st->text,
			         known(c->text) ? c->text : c->aria);
		return KN_AGREE_NO;
	}
	if (known(st->hint_aria_label) && known(c->aria) && !kn_heal_names_agree(st->hint_aria_label, c->aria)) {
		if (why)
			snprintf(why, n, "recorded aria-label '%.80s', the element's is '%.80s'",
			         st->hint_aria_label, c->aria);
		return KN_AGREE_NO;
	}
	if (known(st->hint_href) && known(c->href) && !kn_heal_hrefs_agree(st->hint_href, c->href)) {
		if (why)
			snprintf(why, n, "recorded href '%.100s', the element's is '%.100s'", st->hint_href, c->href);
		return KN_AGREE_DRIFT;
	}
	/* a recorded text that agrees as a name but whose words changed: the same control, relabelled */
	if (known(st->tag) && known(st->text) && known(c->text) && !same_words(st->text, c->text)) {
		if (why)
			snprintf(why, n, "recorded text '%.80s', the element's is '%.80s'", st->text, c->text);
		return KN_AGREE_DRIFT;
	}
	return KN_AGREE_YES;
}
