/* fuzz_selector.c — the selector grammar (keynodes/src/selector/selector.c) on arbitrary bytes (up to the
 * first NUL). Beyond crashes and sanitizer reports it aborts on broken contracts: a walk with a
 * callback returns what the check alone returns; every token's slices lie inside the selector or
 * inside one chain part (no longer than KN_SELECTOR_MAX_PART); a callback's non-zero return stops
 * the walk with that code; a syntax error is KN_EINVAL with a message; chain separators found are
 * ">>" and in order (the replayer's with a blank on each side); normalisation is idempotent and its
 * last chain part lies inside it; decoding escapes never writes past the buffer. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "keynode/selector.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct seen {
	const char *sel;
	size_t len, n, stop_at;
};

/* A slice is inside the selector, or short enough to lie inside a chain part's copy. */
static void inside(const struct seen *s, const char *p, size_t n)
{
	if (!p) {
		if (n)
			abort();
		return;
	}
	if (p >= s->sel && p + n <= s->sel + s->len)
		return;
	if (n >= KN_SELECTOR_MAX_PART || memchr(p, '\0', n))
		abort();
}

static int check_token(void *ud, const kn_selector_token *t)
{
	struct seen *s = ud;
	if (t->kind > KN_SELTOK_PRED || (t->lang != KN_SELECTOR_CSS && t->lang != KN_SELECTOR_XPATH))
		abort();
	inside(s, t->text, t->text_len);
	inside(s, t->name, t->name_len);
	inside(s, t->op, t->op_len);
	inside(s, t->value, t->value_len);
	if (t->kind == KN_SELTOK_COMPOUND && t->comb && !strchr(" >+~,", t->comb))
		abort();
	if (t->kind == KN_SELTOK_ATTR || t->kind == KN_SELTOK_TAG || t->kind == KN_SELTOK_ID ||
	    t->kind == KN_SELTOK_CLASS) {
		char buf[16];
		size_t n = kn_selector_unescape(buf, sizeof buf, t->name, t->name_len);
		if (strlen(buf) != (n < sizeof buf ? n : sizeof buf - 1))
			abort();
	}
	return ++s->n == s->stop_at ? 7 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *sel = malloc(size + 1);
	if (!sel)
		return 0;
	memcpy(sel, data, size);
	sel[size] = '\0';
	struct seen s = {.sel = sel, .len = strlen(sel)};

	kn_err e1 = {0}, e2 = {0};
	int rc = kn_selector_check(sel, &e1);
	if (rc && (rc != KN_EINVAL || e1.code != KN_EINVAL || !e1.msg[0]))
		abort();
	if (kn_selector_parse(sel, check_token, &s, &e2) != rc || strcmp(e1.msg, e2.msg) != 0)
		abort();
	if (s.n > 1) { /* stopped half-way, the walk reports the callback's code */
		struct seen again = {.sel = sel, .len = s.len, .stop_at = s.n / 2 + 1};
		if (kn_selector_parse(sel, check_token, &again, NULL) != 7 || again.n != again.stop_at)
			abort();
	}

	long prev = -1;
	for (long at = kn_selector_chain_sep(sel, 0); at >= 0; at = kn_selector_chain_sep(sel, (size_t)at + 2)) {
		if (at <= prev || (size_t)at + 2 > s.len || sel[at] != '>' || sel[at + 1] != '>')
			abort();
		prev = at;
	}

	char *norm = NULL, *again = NULL;
	if (kn_selector_normalise(&norm, sel) == 0) {
		if (kn_selector_normalise(&again, norm) != 0 || strcmp(norm, again) != 0)
			abort();
		const char *last = kn_selector_last_part(norm);
		if (last && (last < norm + 2 || last > norm + strlen(norm)))
			abort();
	}
	free(again);
	free(norm);
	free(sel);
	return 0;
}
