/* generated.c — generated ids and classes (generated.h): rule for rule the same tests as
 * services/recorder/generated.js, in the same order, written out by hand (no regex engine: the rules
 * are short scans). tests/unit/test_generated.c checks the two agree on the shared table. */
#include <string.h>

#include "keynode/generated.h"

static int is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static int is_alpha(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int is_alnum(unsigned char c)
{
	return is_digit(c) || is_alpha(c);
}

static int is_hex(unsigned char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static unsigned char lower(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c - 'A' + 'a') : c;
}

static int prefix_fold(const char *s, const char *p)
{
	for (; *p; s++, p++)
		if (lower((unsigned char)*s) != (unsigned char)*p)
			return 0;
	return 1;
}

static size_t count_digits(const char *s, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += is_digit((unsigned char)s[i]);
	return k;
}

/* a run of 3 or more digits */
static int digit_run3(const char *s)
{
	for (size_t run = 0; *s; s++) {
		run = is_digit((unsigned char)*s) ? run + 1 : 0;
		if (run >= 3)
			return 1;
	}
	return 0;
}

/* s[0..n) holds only ASCII letters and digits */
static int all_alnum(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!is_alnum((unsigned char)s[i]))
			return 0;
	return 1;
}

static int has_alpha(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (is_alpha((unsigned char)s[i]))
			return 1;
	return 0;
}

/* 8 hex digits, '-', 4 hex digits, '-' somewhere in s: a UUID */
static int has_uuid(const char *s)
{
	size_t n = strlen(s);
	for (size_t i = 0; i + 14 <= n; i++) {
		size_t k = 0;
		while (k < 8 && is_hex((unsigned char)s[i + k]))
			k++;
		if (k < 8 || s[i + 8] != '-')
			continue;
		for (k = 9; k < 13 && is_hex((unsigned char)s[i + k]); k++)
			;
		if (k == 13 && s[i + 13] == '-')
			return 1;
	}
	return 0;
}

/* a hash-like token: 5+ letters and digits, a letter, 2+ digits (x1y2z) */
static int hashish(const char *s, size_t n)
{
	return n >= 5 && all_alnum(s, n) && has_alpha(s, n) && count_digits(s, n) >= 2;
}

static const char *const id_prefixes[] = {"ember", "ext-gen", "ext-comp", "ext-", "yui", "mui-", "react-",
                                          "radix-", "headlessui-", "ng-", "cdk-", "mat-", "j_id", "gwt-",
                                          "rc-", "el-id-", "uid-", "v-", "__"};

int kn_generated_id(const char *s)
{
	if (!s || !*s)
		return 0;
	size_t n = strlen(s);
	if (n > 64)
		return 1;
	for (const char *p = s; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (c == ' ' || (c >= '\t' && c <= '\r') || c == ':')
			return 1; /* useId ":r1:" */
		if (c == 0xC2 && ((unsigned char)p[1] == 0xAB || (unsigned char)p[1] == 0xBB))
			return 1; /* useId in guillemets (React 19.0) */
	}
	if (prefix_fold(s, "_r_")) { /* useId "_r_12_", and ids built on it */
		size_t i = 3;
		while (is_digit((unsigned char)s[i]) || (lower((unsigned char)s[i]) >= 'a' && lower((unsigned char)s[i]) <= 'z'))
			i++;
		if (i > 3 && s[i] == '_')
			return 1;
	}
	if (digit_run3(s) || has_uuid(s))
		return 1;
	if (n >= 10 && all_alnum(s, n) && count_digits(s, n) && has_alpha(s, n))
		return 1; /* a1b2c3d4e5 */
	for (size_t i = 0; i < sizeof id_prefixes / sizeof id_prefixes[0]; i++)
		if (prefix_fold(s, id_prefixes[i]) && count_digits(s, n))
			return 1;
	return 0;
}

/* /^(css|sc|svelte|jsx|tw)-[0-9a-z]+(-[a-z0-9]+)*$/i with a digit somewhere */
static int css_in_js(const char *s, size_t n)
{
	static const char *const pre[] = {"css-", "sc-", "svelte-", "jsx-", "tw-"};
	for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++) {
		size_t k = strlen(pre[i]);
		if (n <= k || !prefix_fold(s, pre[i]))
			continue;
		int ok = s[n - 1] != '-' && s[k] != '-';
		for (size_t j = k; ok && j < n; j++)
			ok = is_alnum((unsigned char)s[j]) || (s[j] == '-' && s[j + 1] != '-');
		return ok && count_digits(s, n) > 0;
	}
	return 0;
}

int kn_generated_class(const char *s)
{
	if (!s || !*s)
		return 0;
	size_t n = strlen(s);
	if (css_in_js(s, n))
		return 1; /* css-1x2y3z */
	if (n > 3 && prefix_fold(s, "sc-")) { /* styled-components' component class: sc-bdVaJa */
		size_t i = 3;
		while (i < n && is_alpha((unsigned char)s[i]))
			i++;
		if (i == n)
			return 1;
	}
	if (n >= 5 && n <= 8 && s[0] >= 'a' && s[0] <= 'z') { /* its hash: bZkfAO */
		size_t up = 0, i = 1;
		for (; i < n && is_alpha((unsigned char)s[i]); i++)
			up += s[i] >= 'A' && s[i] <= 'Z';
		if (i == n && up >= 3)
			return 1;
	}
	if (s[0] == '_' && n >= 6 && all_alnum(s + 1, n - 1) && count_digits(s, n))
		return 1; /* CSS modules: _a1b2c3 */
	/* the last of two or more parts split at runs of - and _: Button_root__x1y2z */
	size_t last = n;
	while (last > 0 && s[last - 1] != '-' && s[last - 1] != '_')
		last--;
	if (last > 0 && hashish(s + last, n - last))
		return 1;
	if ((strncmp(s, "jss", 3) == 0 || strncmp(s, "ng-tns-", 7) == 0) && count_digits(s, n))
		return 1; /* jss12, ng-tns-c12-3 */
	if (digit_run3(s) && !strchr(s, ':')) { /* makeStyles-root-123; not bg-blue-500 */
		size_t t = n;
		while (t > 0 && is_digit((unsigned char)s[t - 1]))
			t--;
		const char *d = s + t;
		size_t dn = n - t;
		int scale = t > 0 && s[t - 1] == '-' && dn >= 2 && dn <= 3 && d[0] != '0' &&
		            (strspn(d + 1, "0") == dn - 1 || strcmp(d, "950") == 0);
		if (!scale)
			return 1;
	}
	return 0;
}
