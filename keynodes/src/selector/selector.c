/* selector.c — the selector grammar (selector.h): one walker over CSS compounds, XPath steps and
 * `>>` chains that both checks syntax and reports what it finds, so `keynode validate`
 * (workflow.c), healing (services/replay/heal.c) and the offline comparison of selectors read a
 * selector the same way. The CSS grammar is the part of selectors level 4 that querySelector
 * accepts without namespaces; the XPath check is lexical (balanced brackets and strings, no empty
 * step or predicate), not a full XPath parser. Normalisation shares the lexical rules (strings,
 * escapes, identifier characters). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "keynode/selector.h"

/* ---- lexical rules shared by every reader ---- */

static int is_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

static int is_ident_start(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80 || c == '\\';
}

/* Characters that make up identifiers (names, classes, ids, attribute flags), escapes aside. */
static int is_word(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '_' || c >= 0x80;
}

static int is_ident_char(unsigned char c)
{
	return is_word(c) || c == '\\';
}

/* Past a CSS string at s[i] (a quote): past its closing quote, or at the terminating NUL when it
 * does not close (*closed 0; closed may be NULL); a backslash escapes the next character. */
static size_t css_string_end(const char *s, size_t i, int *closed)
{
	char q = s[i++];
	while (s[i] && s[i] != q) {
		if (s[i] == '\\' && s[i + 1])
			i++;
		i++;
	}
	if (closed)
		*closed = s[i] != '\0';
	return s[i] ? i + 1 : i;
}

long kn_selector_chain_sep(const char *s, size_t from)
{
	int nest = 0; /* inside [...] or (...) */
	for (size_t i = from; s && s[i]; i++) {
		if (s[i] == '\\') {
			if (s[i + 1])
				i++;
		} else if (s[i] == '"' || s[i] == '\'') {
			int closed;
			i = css_string_end(s, i, &closed) - 1;
			if (!closed)
				return -1;
		} else if (s[i] == '[' || s[i] == '(') {
			nest++;
		} else if ((s[i] == ']' || s[i] == ')') && nest) {
			nest--;
		} else if (!nest && s[i] == '>' && s[i + 1] == '>') {
			return (long)i;
		}
	}
	return -1;
}

static size_t put_utf8(unsigned char *o, unsigned long cp)
{
	if (cp == 0 || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
		cp = 0xFFFD;
	if (cp < 0x80) {
		o[0] = (unsigned char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (unsigned char)(0xC0 | (cp >> 6));
		o[1] = (unsigned char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (unsigned char)(0xE0 | (cp >> 12));
		o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
		o[2] = (unsigned char)(0x80 | (cp & 0x3F));
		return 3;
	}
	o[0] = (unsigned char)(0xF0 | (cp >> 18));
	o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
	o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
	o[3] = (unsigned char)(0x80 | (cp & 0x3F));
	return 4;
}

size_t kn_selector_unescape(char *dst, size_t cap, const char *s, size_t n)
{
	size_t w = 0;
	for (size_t i = 0; i < n;) {
		unsigned char piece[4];
		size_t len = 1;
		if (s[i] == '\\' && i + 1 < n && isxdigit((unsigned char)s[i + 1])) {
			unsigned long cp = 0;
			size_t k = i + 1;
			for (; k < n && k < i + 7 && isxdigit((unsigned char)s[k]); k++)
				cp = cp * 16 + (unsigned long)(isdigit((unsigned char)s[k]) ? s[k] - '0' : (s[k] | 0x20) - 'a' + 10);
			if (k < n && is_space((unsigned char)s[k]))
				k++;
			len = put_utf8(piece, cp);
			i = k;
		} else {
			if (s[i] == '\\' && i + 1 < n)
				i++;
			piece[0] = (unsigned char)s[i++];
		}
		for (size_t k = 0; k < len; k++, w++)
			if (w + 1 < cap)
				dst[w] = (char)piece[k];
	}
	dst[w + 1 < cap ? w : cap - 1] = '\0';
	return w;
}

/* ---- the walker ---- */

typedef struct walk {
	kn_selector_fn fn;
	void *ud;
	kn_selector_lang lang;
	kn_err *err;
	int stop; /* fn's non-zero return */
} walk;

static int emit(walk *w, kn_selector_token *t)
{
	t->lang = w->lang;
	if (!w->fn)
		return 0;
	return (w->stop = w->fn(w->ud, t));
}

static int emit_name(walk *w, kn_selector_tok kind, const char *s, size_t from, size_t to)
{
	kn_selector_token t = {.kind = kind, .name = s + from, .name_len = to - from};
	return emit(w, &t);
}

static int sel_fail(walk *w, const char *what, size_t at)
{
	return kn_err_set(w->err, KN_EINVAL, "invalid %s selector: %s at character %zu",
	                  w->lang == KN_SELECTOR_XPATH ? "XPath" : "CSS", what, at + 1);
}

/* ---- CSS ---- */

/* An identifier at s[*i] (CSS: an optional '-' or "--", then a name start; escapes take the next
 * character). 0 and *i past it, or -1. */
static int css_ident(const char *s, size_t *i)
{
	size_t j = *i;
	if (s[j] == '-')
		j++;
	if (s[j] == '-')
		j++;
	else if (!is_ident_start((unsigned char)s[j]))
		return -1;
	while (s[j] && is_ident_char((unsigned char)s[j])) {
		if (s[j] == '\\') {
			if (!s[j + 1])
				return -1;
			j++;
			if (isxdigit((unsigned char)s[j])) { /* \31 : up to six hex digits, one space ends it */
				for (int k = 0; k < 6 && isxdigit((unsigned char)s[j]); k++)
					j++;
				if (s[j] == ' ')
					j++;
				continue;
			}
		}
		j++;
	}
	*i = j;
	return 0;
}

/* A quoted string at s[*i]; -1 when it does not close. */
static int quoted(const char *s, size_t *i)
{
	int closed;
	size_t j = css_string_end(s, *i, &closed);
	if (!closed)
		return -1;
	*i = j;
	return 0;
}

/* Balanced (…) from s[*i] == '(' with strings skipped; *i past the ')'. */
static int balanced(walk *w, const char *s, size_t *i)
{
	int depth = 0;
	size_t start = *i;
	while (s[*i]) {
		char c = s[*i];
		if (c == '"' || c == '\'') {
			if (quoted(s, i))
				return sel_fail(w, "unclosed string", start);
			continue;
		}
		if (c == '(' || c == '[')
			depth++;
		else if (c == ')' || c == ']') {
			if (--depth == 0) {
				(*i)++;
				return 0;
			}
		}
		(*i)++;
	}
	return sel_fail(w, "unclosed '('", start);
}

static void skip_ws(const char *s, size_t *i)
{
	while (is_space((unsigned char)s[*i]))
		(*i)++;
}

/* [attr], [attr=v], [attr op v i] at s[*i] == '['. */
static int css_attr(walk *w, const char *s, size_t *i)
{
	size_t at = *i;
	kn_selector_token t = {.kind = KN_SELTOK_ATTR, .op = "", .value = ""};
	(*i)++;
	skip_ws(s, i);
	if (s[*i] == '*' && s[*i + 1] == '|')
		*i += 2;
	size_t name = *i;
	if (css_ident(s, i))
		return sel_fail(w, "attribute name expected", *i);
	if (s[*i] == '|' && s[*i + 1] != '=') {
		(*i)++;
		name = *i;
		if (css_ident(s, i))
			return sel_fail(w, "attribute name expected", *i);
	}
	t.name = s + name;
	t.name_len = *i - name;
	skip_ws(s, i);
	if (s[*i] == ']') {
		(*i)++;
		t.text = s + at + 1;
		t.text_len = *i - at - 2;
		return emit(w, &t);
	}
	size_t op = *i;
	if (strchr("~|^$*", s[*i]) && s[*i] && s[*i + 1] == '=')
		*i += 2;
	else if (s[*i] == '=')
		(*i)++;
	else
		return sel_fail(w, s[*i] ? "unexpected character in '[...]'" : "unclosed '['", s[*i] ? *i : at);
	t.op = s + op;
	t.op_len = *i - op;
	skip_ws(s, i);
	size_t value = *i;
	if (s[*i] == '"' || s[*i] == '\'') {
		if (quoted(s, i))
			return sel_fail(w, "unclosed string", *i);
	} else if (css_ident(s, i)) {
		/* an unquoted value may also be a number-like token such as 2 or -1 */
		size_t j = *i;
		while (s[j] && (is_ident_char((unsigned char)s[j])))
			j++;
		if (j == *i)
			return sel_fail(w, "attribute value expected", *i);
		*i = j;
	}
	t.value = s + value;
	t.value_len = *i - value;
	skip_ws(s, i);
	if ((s[*i] == 'i' || s[*i] == 's' || s[*i] == 'I' || s[*i] == 'S')) {
		(*i)++;
		skip_ws(s, i);
	}
	if (s[*i] != ']')
		return sel_fail(w, s[*i] ? "expected ']'" : "unclosed '['", s[*i] ? *i : at);
	(*i)++;
	t.text = s + at + 1;
	t.text_len = *i - at - 2;
	return emit(w, &t);
}

/* One compound selector; 0 and *i past it, or an error. */
static int css_compound(walk *w, const char *s, size_t *i, char comb)
{
	size_t start = *i;
	kn_selector_token c = {.kind = KN_SELTOK_COMPOUND, .comb = comb};
	if (emit(w, &c))
		return w->stop;
	if (s[*i] == '*') {
		(*i)++;
		if (emit_name(w, KN_SELTOK_TAG, s, start, *i))
			return w->stop;
	} else if (is_ident_start((unsigned char)s[*i]) || (s[*i] == '-' && s[*i + 1])) {
		if (css_ident(s, i))
			return sel_fail(w, "bad tag name", *i);
		if (emit_name(w, KN_SELTOK_TAG, s, start, *i))
			return w->stop;
	}
	for (;;) {
		char c0 = s[*i];
		if (c0 == '#' || c0 == '.') {
			size_t b = ++*i;
			if (css_ident(s, i))
				return sel_fail(w, c0 == '#' ? "id expected after '#'" : "class expected after '.'", *i);
			if (emit_name(w, c0 == '#' ? KN_SELTOK_ID : KN_SELTOK_CLASS, s, b, *i))
				return w->stop;
		} else if (c0 == '[') {
			int rc = css_attr(w, s, i);
			if (rc)
				return rc;
		} else if (c0 == ':') {
			(*i)++;
			if (s[*i] == ':')
				(*i)++;
			size_t b = *i;
			if (css_ident(s, i))
				return sel_fail(w, "pseudo-class name expected after ':'", *i);
			kn_selector_token t = {.kind = KN_SELTOK_PSEUDO, .name = s + b, .name_len = *i - b};
			size_t arg = *i;
			if (s[*i] == '(' && balanced(w, s, i))
				return KN_EINVAL;
			t.value = s + arg;
			t.value_len = *i - arg;
			if (emit(w, &t))
				return w->stop;
		} else {
			break;
		}
	}
	if (*i == start)
		return sel_fail(w, s[*i] ? "unexpected character" : "selector expected", *i);
	return 0;
}

/* A selector list: complex selectors of compounds and combinators, separated by ','. */
static int css_walk(walk *w, const char *s)
{
	size_t i = 0;
	char comb = 0;
	for (;;) { /* one complex selector of the list */
		skip_ws(s, &i);
		for (;;) {
			int rc = css_compound(w, s, &i, comb);
			if (rc)
				return rc;
			size_t before = i;
			skip_ws(s, &i);
			if (s[i] == '>' || s[i] == '+' || s[i] == '~') {
				comb = s[i++];
				skip_ws(s, &i);
				continue;
			}
			if (!s[i] || s[i] == ',')
				break;
			if (i == before)
				return sel_fail(w, "unexpected character", i);
			comb = ' ';
		}
		if (!s[i])
			return 0;
		i++; /* ',' */
		comb = ',';
	}
}

/* ---- XPath ---- */

/* A location step begins at s[b]: report it and its node test (nothing for an empty step). */
static int xpath_step(walk *w, const char *s, size_t b)
{
	if (!s[b] || s[b] == '/')
		return 0;
	size_t t = b;
	while (isalnum((unsigned char)s[t]) || s[t] == '-' || s[t] == '_' || s[t] == '*' || s[t] == ':')
		t++;
	return emit_name(w, KN_SELTOK_STEP, s, b, t);
}

/* Lexical XPath: strings (no escapes in XPath: a quote ends at the next same quote), balanced
 * ( ) and [ ], no empty predicate, no "///", no trailing '/'. Steps split at '/' outside brackets;
 * a predicate is a '[' … ']' not inside another predicate (parentheses around a path keep their
 * predicates: "(//a[@id='x'])[2]" reports both). */
static int xpath_walk(walk *w, const char *s)
{
	char stack[64];
	int depth = 0, preds = 0; /* open brackets; open '[' among them */
	size_t i = 0, pred = 0;
	if (!s[0])
		return sel_fail(w, "empty expression", 0);
	if (xpath_step(w, s, 0))
		return w->stop;
	while (s[i]) {
		char c = s[i];
		if (c == '"' || c == '\'') {
			size_t at = i;
			const char *e = strchr(s + i + 1, c);
			if (!e)
				return sel_fail(w, "unclosed string", at);
			i = (size_t)(e - s) + 1;
			continue;
		}
		if (c == '(' || c == '[') {
			if (depth == (int)sizeof stack)
				return sel_fail(w, "nested too deep", i);
			stack[depth++] = c == '(' ? ')' : ']';
			if (c == '[' && !preds++)
				pred = i + 1;
		} else if (c == ')' || c == ']') {
			if (!depth || stack[depth - 1] != c)
				return sel_fail(w, c == ')' ? "unbalanced ')'" : "unbalanced ']'", i);
			depth--;
			if (c == ']' && !--preds) {
				kn_selector_token t = {.kind = KN_SELTOK_PRED, .text = s + pred, .text_len = i - pred};
				if (emit(w, &t))
					return w->stop;
			}
		} else if (c == '/' && s[i + 1] == '/' && s[i + 2] == '/') {
			return sel_fail(w, "'///' is not a step", i);
		} else if (c == '/' && !depth) {
			if (xpath_step(w, s, i + 1))
				return w->stop;
		}
		if (c == '[' && s[i + 1] == ']')
			return sel_fail(w, "empty predicate", i);
		i++;
	}
	if (depth)
		return sel_fail(w, stack[depth - 1] == ')' ? "unclosed '('" : "unclosed '['", i);
	if (i > 1 && s[i - 1] == '/')
		return sel_fail(w, "ends with '/'", i - 1);
	return 0;
}

/* ---- parts and chains ---- */

static int is_xpath(const char *s)
{
	return !strncmp(s, "xpath=", 6) || s[0] == '/' || s[0] == '(';
}

/* One part of a chain (NUL-terminated, trimmed). */
static int walk_part(walk *w, const char *part)
{
	if (!*part)
		return kn_err_set(w->err, KN_EINVAL, "empty selector");
	w->lang = is_xpath(part) ? KN_SELECTOR_XPATH : KN_SELECTOR_CSS;
	kn_selector_token t = {.kind = KN_SELTOK_PART, .text = part, .text_len = strlen(part)};
	if (emit(w, &t))
		return w->stop;
	if (w->lang == KN_SELECTOR_CSS)
		return css_walk(w, part);
	return xpath_walk(w, strncmp(part, "xpath=", 6) ? part : part + 6);
}

int kn_selector_parse(const char *sel, kn_selector_fn fn, void *ud, kn_err *err)
{
	walk w = {.fn = fn, .ud = ud, .err = err};
	if (!sel || !*sel)
		return kn_err_set(err, KN_EINVAL, "empty selector");
	if (is_xpath(sel) || kn_selector_chain_sep(sel, 0) < 0)
		return walk_part(&w, sel);
	/* a frame / shadow-root chain "a >> b >> c" (services/replay frames.c): each part on its own */
	char part[KN_SELECTOR_MAX_PART];
	for (size_t p = 0;;) {
		long sep = kn_selector_chain_sep(sel, p);
		size_t end = sep < 0 ? strlen(sel) : (size_t)sep, b = p;
		while (b < end && (sel[b] == ' ' || sel[b] == '\t'))
			b++;
		while (end > b && (sel[end - 1] == ' ' || sel[end - 1] == '\t'))
			end--;
		size_t n = end - b;
		if (n == 0)
			return kn_err_set(err, KN_EINVAL, "invalid selector: empty part in a '>>' chain");
		if (n >= sizeof part)
			return kn_err_set(err, KN_EINVAL, "invalid selector: a part over %zu bytes", sizeof part);
		memcpy(part, sel + b, n);
		part[n] = '\0';
		int rc = walk_part(&w, part);
		if (rc)
			return rc;
		if (sep < 0)
			return 0;
		p = (size_t)sep + 2;
	}
}

int kn_selector_check(const char *sel, kn_err *err)
{
	return kn_selector_parse(sel, NULL, NULL, err);
}

/* ---- normalisation ---- */

int kn_selector_normalise(char **out, const char *sel)
{
	if (!out)
		return KN_EINVAL;
	*out = NULL;
	if (!sel)
		return KN_EINVAL;
	size_t n = strlen(sel), w = 0;
	char *buf = malloc(n + 1);
	if (!buf)
		return KN_ENOMEM;

	int space = 0;   /* whitespace seen since the last emitted character */
	int bracket = 0; /* inside [...] */
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)sel[i];
		if (is_space(c)) {
			space = 1;
			continue;
		}
		unsigned char last = w ? (unsigned char)buf[w - 1] : 0;
		int tight = c == '>' || c == '+' || c == '~' || c == ',' || c == ')' || c == ']';
		/* a space between two name characters inside brackets is significant ([type=a i]) */
		if (space && w && !tight && !strchr(">+~,([", last) &&
		    (!bracket || (is_word(last) && (is_word(c) || c == '\\'))))
			buf[w++] = ' ';
		space = 0;

		if (c == '"' || c == '\'') {
			/* A quoted string is copied as written, escapes included. */
			size_t e = css_string_end(sel, i, NULL);
			memcpy(buf + w, sel + i, e - i);
			w += e - i;
			i = e - 1;
			continue;
		}
		buf[w++] = (char)c;
		if (c == '\\' && i + 1 < n) /* an escaped character is part of a name, even a space */
			buf[w++] = sel[++i];
		else if (c == '[')
			bracket++;
		else if (c == ']' && bracket)
			bracket--;
	}
	buf[w] = '\0';
	*out = buf;
	return 0;
}

const char *kn_selector_last_part(const char *norm)
{
	const char *last = NULL;
	for (long at = kn_selector_chain_sep(norm, 0); at >= 0; at = kn_selector_chain_sep(norm, (size_t)at + 2))
		last = norm + at + 2;
	return last;
}
