/* agree.c — does the element a locator found match what the step recorded of it (heal.h
 * kn_heal_agree)? Healing and fallbacks score similarity, which is how they find an element whose
 * selector changed; but similarity alone accepts "another item of the same kind" — the sibling
 * article in the same list, the product whose name shares two of three words, the "View source"
 * link with the same href as "Edit". So the recorded accessible name is compared first: words that
 * contradict it (another word in its place, a year, a "not"/"out") make another element; words
 * only dropped or added ("View history" → "history") make a relabel, believed only when the strong
 * signals — href, id or name, role, tag, place in the page — weigh for it (kn_heal_weigh,
 * README.md "Precise verdicts"). The recorded href is a soft constraint (same control, new target:
 * a drift worth reporting), except when the name's number is in it ("Item 42" → /items/42: "Item 2"
 * → /items/2 is another item). Pure functions, unit-tested in tests/unit/test_heal.c. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heal.h"

enum { MAXT = 64 };

static int listed(const char *const *list, size_t n_list, const char *w, size_t n)
{
	for (size_t i = 0; i < n_list; i++)
		if (strlen(list[i]) == n && memcmp(list[i], w, n) == 0)
			return 1;
	return 0;
}

/* w (n bytes) is one of the n_t tokens t/tl */
static int listed_token(const char *const *t, const size_t *tl, size_t n_t, const char *w, size_t n)
{
	for (size_t i = 0; i < n_t; i++)
		if (tl[i] == n && memcmp(t[i], w, n) == 0)
			return 1;
	return 0;
}

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

/* Each word of a matched to a distinct equal word of b (used[j] set for the words of b taken): 0
 * when a word of a has none. */
static int match_words(const char **a, const size_t *la, size_t na, const char **b, const size_t *lb,
                       size_t nb, char *used)
{
	for (size_t i = 0; i < na; i++) {
		size_t j = 0;
		while (j < nb && (used[j] || la[i] != lb[j] || memcmp(a[i], b[j], la[i]) != 0))
			j++;
		if (j == nb)
			return 0;
		used[j] = 1;
	}
	return 1;
}

/* Every word of a is in b, and (unless any_extra) b's other words are numbers (a counter). */
static int covered(const char **a, const size_t *la, size_t na, const char **b, const size_t *lb,
                   size_t nb, int any_extra)
{
	char used[MAXT] = {0};
	if (!match_words(a, la, na, b, lb, nb, used))
		return 0;
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

/* Words that frame a label without naming its thing: a skin drops or adds them ("View history",
 * "history"; "Edit this page", "Edit"). */
static int filler(const char *w, size_t n)
{
	static const char *const words[] = {"view", "show", "see", "open", "go", "page", "this", "all",
	                                    "more", "your", "my", "our", "here", "click", "link", "tab", "now"};
	return listed(words, sizeof words / sizeof words[0], w, n);
}

/* Words that turn a label into its opposite when added ("Log in" / "Log out", "Comments" / "Hide
 * comments", "Add to cart" / "Add to cart: sold out", "Save" / "Don't save"). */
static int polarity(const char *w, size_t n)
{
	static const char *const words[] = {"not", "no", "non", "un", "dis", "t", "don", "cannot", "out",
	                                    "off", "hide", "close", "closed", "cancel", "undo", "remove",
	                                    "delete", "disable", "disabled", "stop", "without", "never",
	                                    "sold", "unavailable", "none"};
	return listed(words, sizeof words / sizeof words[0], w, n);
}

/* a's meaningful words (content words, fillers aside) into w/len; how many */
static size_t meaningful(const char *f, const char **w, size_t *len)
{
	const char *t[MAXT];
	size_t tl[MAXT], n = words(f, t, tl), k = 0;
	for (size_t i = 0; i < n; i++)
		if (!filler(t[i], tl[i])) {
			w[k] = t[i];
			len[k++] = tl[i];
		}
	return k;
}

/* Every word of a (na) is in b (nb); the words of b left over are neither a polarity word nor a
 * number of four digits or more (a year, an id: it names another thing). */
static int contained(const char **a, const size_t *la, size_t na, const char **b, const size_t *lb, size_t nb)
{
	char used[MAXT] = {0};
	if (!match_words(a, la, na, b, lb, nb, used))
		return 0;
	for (size_t j = 0; j < nb; j++)
		if (!used[j] && (polarity(b[j], lb[j]) || (numeric(b[j], lb[j]) && lb[j] > 3)))
			return 0;
	return 1;
}

kn_heal_name_rel kn_heal_name_relation(const char *recorded, const char *now, int within)
{
	if (!recorded || !now)
		return KN_NAME_OTHER;
	if (compare_names(recorded, now, within))
		return same_words(recorded, now) ? KN_NAME_SAME : KN_NAME_AGREE;
	char *fa = kn_heal_fold(recorded, 1024), *fb = kn_heal_fold(now, 1024);
	kn_heal_name_rel rel = KN_NAME_OTHER;
	if (fa && fb) {
		const char *wa[MAXT], *wb[MAXT];
		size_t la[MAXT], lb[MAXT];
		size_t na = meaningful(fa, wa, la), nb = meaningful(fb, wb, lb);
		if (na && nb && (na <= nb ? contained(wa, la, na, wb, lb, nb) : contained(wb, lb, nb, wa, la, na)))
			rel = KN_NAME_RELABEL;
	}
	free(fa);
	free(fb);
	return rel;
}

/* ---- evidence: is a relabelled element the recorded one? ---- */

#define EV_HREF 3 /* the target: what a link does */
#define EV_ID 2
#define EV_NAME 2
#define EV_PLACE 2 /* the same ancestors (ids, tags) */
#define EV_ROLE 1
#define EV_TAG 1

static int ieq(const char *a, const char *b)
{
	for (; *a && tolower((unsigned char)*a) == tolower((unsigned char)*b); a++, b++)
		;
	return tolower((unsigned char)*a) == tolower((unsigned char)*b);
}

/* add signal `name` of weight w: agree > 0, disagree < 0, unknown 0 */
static void weigh(kn_heal_evidence *ev, const char *name, int w, int said, int identity)
{
	if (!said)
		return;
	ev->score += said > 0 ? w : -w;
	if (identity)
		said > 0 ? ev->identity_agree++ : ev->identity_disagree++;
	size_t have = strlen(ev->said);
	snprintf(ev->said + have, sizeof ev->said - have, "%s%s %s%+d", have ? ", " : "", name,
	         said > 0 ? "agrees" : "differs", said > 0 ? w : -w);
}

static int both(const char *a, const char *b) { return known(a) && known(b); }

void kn_heal_weigh(kn_heal_evidence *ev, const kn_step *st, const kn_heal_sig *e, const kn_heal_sig *c)
{
	memset(ev, 0, sizeof *ev);
	const char *href = e && known(e->href) ? e->href : st->hint_href;
	if (both(href, c->href))
		weigh(ev, "href", EV_HREF, kn_heal_hrefs_agree(href, c->href) ? 1 : -1, 1);
	if (e && both(e->id, c->id))
		weigh(ev, "id", EV_ID, strcmp(e->id, c->id) == 0 ? 1 : -1, 1);
	if (e && both(e->name, c->name))
		weigh(ev, "name", EV_NAME, strcmp(e->name, c->name) == 0 ? 1 : -1, 1);
	if (e && both(e->role, c->role))
		weigh(ev, "role", EV_ROLE, ieq(e->role, c->role) ? 1 : -1, 0);
	if (e && both(e->tag, c->tag))
		weigh(ev, "tag", EV_TAG, ieq(e->tag, c->tag) ? 1 : -1, 0);
	/* the recorded ancestry is the fuller one; a selector's ancestors otherwise */
	const char *path = known(st->dom_path) ? st->dom_path : e ? e->path : NULL;
	if (both(path, c->path))
		weigh(ev, "place", EV_PLACE, kn_heal_place(path, c->path), 0);
	ev->relabel = ev->identity_agree > 0 && ev->identity_disagree == 0 && ev->score >= KN_HEAL_RELABEL_MIN;
}

/* 1 when a number of the recorded name (a counter, above) that the element's name does not show is
 * also in the recorded href: the number named the target ("Item 42" → /items/42), so "Item 2" →
 * /items/2 is another item of the list, not the same link with another count. */
static int counter_is_target(const char *recorded, const char *now, const char *href)
{
	char *fr = kn_heal_fold(recorded, 1024), *fn = kn_heal_fold(now, 1024);
	int target = 0;
	if (fr && fn) {
		const char *tr[MAXT], *tn[MAXT], *th[MAXT];
		size_t lr[MAXT], ln[MAXT], lh[MAXT];
		size_t nr = kn_heal_tokens(fr, tr, lr, MAXT), nn = kn_heal_tokens(fn, tn, ln, MAXT);
		size_t nh = kn_heal_tokens(kn_heal_href_tail(href), th, lh, MAXT);
		for (size_t i = 0; i < nr && !target; i++)
			if (numeric(tr[i], lr[i]) && !listed_token(tn, ln, nn, tr[i], lr[i]))
				target = listed_token(th, lh, nh, tr[i], lr[i]);
	}
	free(fr);
	free(fn);
	return target;
}

kn_heal_agreement kn_heal_agree(const kn_step *st, const kn_heal_sig *e, const kn_heal_sig *c, char *why, size_t n)
{
	if (why && n)
		why[0] = '\0';
	/* The recorded name: a click's text. Recorded by `keynode record` (a fingerprint: the tag is
	 * known) it is the element's whole visible text and must agree; written by hand it may be a
	 * label within it ("Q3 report review" in "Grace Hopper Q3 report review — Hi Sam"). */
	int within = !known(st->tag);
	const char *was = NULL, *now = NULL;
	kn_heal_name_rel rel = KN_NAME_SAME;
	if (known(st->text) && (known(c->text) || known(c->aria))) {
		kn_heal_name_rel rt = known(c->text) ? kn_heal_name_relation(st->text, c->text, within) : KN_NAME_OTHER;
		kn_heal_name_rel ra = known(c->aria) ? kn_heal_name_relation(st->text, c->aria, within) : KN_NAME_OTHER;
		rel = rt <= ra ? rt : ra;
		was = st->text;
		now = rt <= ra ? c->text : c->aria;
	}
	if (rel != KN_NAME_OTHER && known(st->hint_aria_label) && known(c->aria)) {
		kn_heal_name_rel ra = kn_heal_name_relation(st->hint_aria_label, c->aria, 0);
		if (ra == KN_NAME_OTHER || (ra == KN_NAME_RELABEL && rel != KN_NAME_RELABEL)) {
			rel = ra;
			was = st->hint_aria_label;
			now = c->aria;
		}
	}
	if (rel == KN_NAME_OTHER) {
		if (why)
			snprintf(why, n, "recorded %s '%.80s', the element's is '%.80s'", was == st->text ? "text" : "aria-label",
			         was, now);
		return KN_AGREE_NO;
	}
	if (rel == KN_NAME_RELABEL) { /* words dropped or added: the strong signals decide */
		kn_heal_evidence ev;
		kn_heal_weigh(&ev, st, e, c);
		if (why)
			snprintf(why, n, "recorded %s '%.60s', the element's is '%.60s'%s (evidence %d: %.100s)",
			         was == st->text ? "text" : "aria-label", was, now, ev.relabel ? ", relabelled" : "",
			         ev.score, ev.said[0] ? ev.said : "none");
		return ev.relabel ? KN_AGREE_RELABEL : KN_AGREE_NO;
	}
	if (known(st->hint_href) && known(c->href) && !kn_heal_hrefs_agree(st->hint_href, c->href)) {
		if (was && now && counter_is_target(was, now, st->hint_href)) {
			if (why)
				snprintf(why, n, "recorded '%.60s' (href '%.80s'), the element's is '%.60s' (href '%.80s'): another item",
				         was, st->hint_href, now, c->href);
			return KN_AGREE_NO;
		}
		if (why)
			snprintf(why, n, "recorded href '%.100s', the element's is '%.100s'", st->hint_href, c->href);
		return KN_AGREE_DRIFT;
	}
	/* a recorded text that agrees as a name but whose words changed: the same control, relabelled */
	if (rel == KN_NAME_AGREE && known(st->tag) && known(c->text) && now == c->text) {
		if (why)
			snprintf(why, n, "recorded text '%.80s', the element's is '%.80s'", st->text, c->text);
		return KN_AGREE_REWORDED;
	}
	return KN_AGREE_YES;
}
