/* sites_rules.c — `_redirects` and `_cacheable` for `keynode sites` (contract in sites_rules.h).
 * The parser is strict because the file is input: every field is checked for what it will become
 * (a Location header must never carry a control character, a space or a second line), and each
 * refusal names its line. It is a pure function of the text, fuzzed by fuzz_sites_rules. */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sites.h"
#include "sites_rules.h"

void kn_sites_rules_free(kn_sites_rules *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++) {
		free(r->redirects[i].from);
		free(r->redirects[i].to);
	}
	free(r->redirects);
	free(r);
}

/* 1 when every byte of s[0..n) is printable ASCII other than space. */
static int printable(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] <= 0x20 || (unsigned char)s[i] >= 0x7f)
			return 0;
	return 1;
}

/* Split the next field of [*p, end) (spaces and tabs separate); its length, 0 at the end. */
static size_t field(const char **p, const char *end, const char **start)
{
	while (*p < end && (**p == ' ' || **p == '\t'))
		(*p)++;
	*start = *p;
	while (*p < end && **p != ' ' && **p != '\t')
		(*p)++;
	return (size_t)(*p - *start);
}

static int parse_line(kn_sites_rules *r, const char *s, const char *end, const char *name, int line,
                      kn_err *err)
{
	const char *f[4];
	size_t n[4], k = 0;
	const char *p = s;
	for (; k < 4 && (n[k] = field(&p, end, &f[k])) > 0; k++)
		;
	if (k == 0 || f[0][0] == '#')
		return 0;
	if (k == 4)
		return kn_err_set(err, KN_EINVAL, "%s:%d: more than three fields (FROM TO [STATUS])", name, line);
	if (k < 2)
		return kn_err_set(err, KN_EINVAL, "%s:%d: a rule needs FROM and TO", name, line);
	if (f[0][0] != '/' || n[0] > KN_SITES_MAX_PATH || !printable(f[0], n[0]))
		return kn_err_set(err, KN_EINVAL, "%s:%d: FROM must be a path starting with '/' in printable ASCII",
		                  name, line);
	int abs_url = (n[1] > 7 && strncmp(f[1], "http://", 7) == 0) || (n[1] > 8 && strncmp(f[1], "https://", 8) == 0);
	if (!(f[1][0] == '/' || abs_url) || n[1] > KN_SITES_RULE_MAX_TO || !printable(f[1], n[1]))
		return kn_err_set(err, KN_EINVAL,
		                  "%s:%d: TO must be a path starting with '/' or an http(s):// URL in printable ASCII",
		                  name, line);
	if (f[1][0] == '/' && n[1] > 1 && f[1][1] == '/')
		return kn_err_set(err, KN_EINVAL, "%s:%d: TO '//…' would name another host; write http://…", name, line);
	int status = 301;
	if (k == 3) {
		status = n[2] == 3 ? (f[2][0] - '0') * 100 + (f[2][1] - '0') * 10 + (f[2][2] - '0') : 0;
		if (status != 301 && status != 302 && status != 303 && status != 307 && status != 308)
			return kn_err_set(err, KN_EINVAL, "%s:%d: status '%.*s' is not 301, 302, 303, 307 or 308", name,
			                  line, (int)(n[2] > 16 ? 16 : n[2]), f[2]);
	}
	for (size_t i = 0; i < r->n; i++)
		if (strlen(r->redirects[i].from) == n[0] && memcmp(r->redirects[i].from, f[0], n[0]) == 0)
			return kn_err_set(err, KN_EINVAL, "%s:%d: %.*s already has a rule (line %d)", name, line,
			                  (int)n[0], f[0], r->redirects[i].line);
	if (r->n == KN_SITES_RULES_MAX)
		return kn_err_set(err, KN_ELIMIT, "%s:%d: more than %d rules", name, line, KN_SITES_RULES_MAX);
	kn_sites_redirect *grown = realloc(r->redirects, (r->n + 1) * sizeof *grown);
	if (!grown)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	r->redirects = grown;
	kn_sites_redirect *d = &r->redirects[r->n];
	d->from = strndup(f[0], n[0]);
	d->to = strndup(f[1], n[1]);
	d->status = status;
	d->line = line;
	if (!d->from || !d->to) {
		free(d->from);
		free(d->to);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	r->n++;
	return 0;
}

int kn_sites_rules_parse(kn_sites_rules **out, const char *text, size_t len, const char *name,
                         kn_err *err)
{
	if (!out || (!text && len))
		return kn_err_set(err, KN_EINVAL, "no rules text");
	*out = NULL;
	if (!name)
		name = "_redirects";
	if (len > KN_SITES_RULES_MAX_BYTES)
		return kn_err_set(err, KN_ELIMIT, "%s: larger than %u bytes", name, KN_SITES_RULES_MAX_BYTES);
	kn_sites_rules *r = calloc(1, sizeof *r);
	if (!r)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	int line = 1, rc = 0;
	for (size_t at = 0; at < len && !rc; line++) {
		const char *s = text + at, *nl = memchr(s, '\n', len - at);
		const char *end = nl ? nl : text + len;
		at = (size_t)(end - text) + (nl ? 1 : 0);
		if (memchr(s, '\0', (size_t)(end - s)))
			rc = kn_err_set(err, KN_EINVAL, "%s:%d: a NUL byte", name, line);
		else
			rc = parse_line(r, s, end > s && end[-1] == '\r' ? end - 1 : end, name, line, err);
	}
	if (rc) {
		kn_sites_rules_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

int kn_sites_rules_load(kn_sites_rules **out, const char *dir, kn_err *err)
{
	if (!out || !dir)
		return kn_err_set(err, KN_EINVAL, "no directory");
	*out = NULL;
	size_t pl = strlen(dir) + sizeof "/_redirects";
	char *path = malloc(pl);
	if (!path)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	snprintf(path, pl, "%s/_redirects", dir);
	FILE *f = fopen(path, "rb");
	if (!f) {
		int missing = errno == ENOENT;
		int rc = missing ? kn_sites_rules_parse(out, "", 0, path, err)
		                 : kn_err_set(err, KN_EIO, "%s: %s", path, strerror(errno));
		free(path);
		return rc;
	}
	char *buf = malloc(KN_SITES_RULES_MAX_BYTES + 1);
	size_t n = buf ? fread(buf, 1, KN_SITES_RULES_MAX_BYTES + 1, f) : 0;
	int bad = ferror(f);
	fclose(f);
	int rc = !buf ? kn_err_set(err, KN_ENOMEM, "out of memory")
	         : bad ? kn_err_set(err, KN_EIO, "%s: cannot read", path)
	               : kn_sites_rules_parse(out, buf, n, path, err);
	free(buf);
	free(path);
	return rc;
}

const kn_sites_redirect *kn_sites_rules_find(const kn_sites_rules *r, const char *path)
{
	for (size_t i = 0; r && path && i < r->n; i++)
		if (strcmp(r->redirects[i].from, path) == 0)
			return &r->redirects[i];
	return NULL;
}

int kn_sites_rules_is_rule_file(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	const char *last = slash ? slash + 1 : path;
	return last && (strcmp(last, "_redirects") == 0 || strcmp(last, "_cacheable") == 0);
}

int kn_sites_rules_cacheable(const char *fs_path)
{
	const char *slash = fs_path ? strrchr(fs_path, '/') : NULL;
	if (!slash)
		return 0;
	size_t dl = (size_t)(slash - fs_path);
	char *marker = malloc(dl + sizeof "/_cacheable");
	if (!marker)
		return 0;
	memcpy(marker, fs_path, dl);
	memcpy(marker + dl, "/_cacheable", sizeof "/_cacheable");
	struct stat st;
	int yes = stat(marker, &st) == 0 && S_ISREG(st.st_mode);
	free(marker);
	return yes;
}

int kn_sites_delay_ms(const char *value)
{
	long ms = 0;
	size_t i = 0;
	for (; value && value[i] >= '0' && value[i] <= '9' && i < 6; i++)
		ms = ms * 10 + (value[i] - '0');
	if (!value || i == 0 || value[i] || ms < 1 || ms > KN_SITES_DELAY_MAX_MS)
		return -1;
	return (int)ms;
}
