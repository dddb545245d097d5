/* test_sites_path.c — how `keynode sites` maps a request path to a file (services/http/sites.h):
 * the lexical check and join (kn_sites_resolve_path) on every traversal spelling that reaches it
 * after lws's percent-decoding, and the file-system half (kn_sites_resolve) on a scratch tree with
 * index pages, directory redirects, hidden files and symlinks that stay inside or lead out —
 * including to a sibling directory whose name starts with the root's. */
#define _XOPEN_SOURCE 700 /* mkdtemp, nftw, realpath, symlink, mkfifo */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sites.h"

/* --- the lexical half ------------------------------------------------------------------------ */

static void lexical(const char *root, const char *path, int want_rc, const char *want_out)
{
	char out[KN_SITES_MAX_PATH + 64];
	int rc = kn_sites_resolve_path(out, sizeof out, root, path);
	if (rc != want_rc || (rc == 0 && strcmp(out, want_out) != 0)) {
		print_error("root <%s> path <%s>: want %d <%s>, got %d <%s>\n", root, path, want_rc,
		            want_out ? want_out : "", rc, rc == 0 ? out : "");
		fail();
	}
}

static void test_join(void **state)
{
	(void)state;
	lexical("/srv/www", "/", 0, "/srv/www/");
	lexical("/srv/www", "/shop/index.html", 0, "/srv/www/shop/index.html");
	lexical("/srv/www/", "/a", 0, "/srv/www/a"); /* trailing slashes of the root are ignored */
	lexical("/", "/etc", 0, "/etc");              /* serving "/" itself */
	lexical("/srv/www", "/a/b..", 0, "/srv/www/a/b..");
	lexical("/srv/www", "/a/...x/", KN_ENOTFOUND, NULL); /* hidden: starts with '.' */
	lexical("/srv/www", "//a//b", 0, "/srv/www//a//b"); /* empty segments are harmless */
	lexical("/srv/www", "/%2e%2e/x", 0, "/srv/www/%2e%2e/x"); /* already decoded: a literal name */
	lexical("/srv/www", "/caf\xc3\xa9.html", 0, "/srv/www/caf\xc3\xa9.html");
}

static void test_traversal_refused(void **state)
{
	(void)state;
	static const char *const forbidden[] = {
		"/..", "/../etc/passwd", "/a/../../etc/passwd", "/a/..", "/.", "/./index.html",
		"/a/./b", "/a/.", "/..\\..\\etc\\passwd", "/a\\b", "/\\", "/shop/../../../../etc/passwd",
	};
	for (size_t i = 0; i < sizeof forbidden / sizeof forbidden[0]; i++)
		lexical("/srv/www", forbidden[i], KN_EINVAL, NULL);
}

static void test_not_found(void **state)
{
	(void)state;
	lexical("/srv/www", "", KN_ENOTFOUND, NULL);
	lexical("/srv/www", "etc/passwd", KN_ENOTFOUND, NULL);
	lexical("/srv/www", "/.git/config", KN_ENOTFOUND, NULL);
	lexical("/srv/www", "/a/.hidden", KN_ENOTFOUND, NULL);
	lexical("/srv/www", "/a/..b", KN_ENOTFOUND, NULL); /* hidden, not a parent */
	lexical("/srv/www", "/.git/../x", KN_ENOTFOUND, NULL); /* the first bad segment decides */
	lexical("/srv/www", "/a\r\nSet-Cookie: x=1", KN_ENOTFOUND, NULL);
	lexical("/srv/www", "/a\x7f", KN_ENOTFOUND, NULL);
	lexical("/srv/www", "/a\\b\n", KN_EINVAL, NULL); /* a backslash is checked first */
}

static void test_limits(void **state)
{
	(void)state;
	char path[KN_SITES_MAX_PATH + 2];
	memset(path, 'x', sizeof path - 1);
	path[0] = '/';
	path[KN_SITES_MAX_PATH] = '\0';
	char out[KN_SITES_MAX_PATH + 64];
	assert_int_equal(kn_sites_resolve_path(out, sizeof out, "/r", path), 0);
	path[KN_SITES_MAX_PATH] = 'x';
	path[KN_SITES_MAX_PATH + 1] = '\0';
	assert_int_equal(kn_sites_resolve_path(out, sizeof out, "/r", path), KN_ELIMIT);
	/* out exactly big enough, and one byte short */
	char small[sizeof "/srv/www/ab"];
	assert_int_equal(kn_sites_resolve_path(small, sizeof small, "/srv/www", "/ab"), 0);
	assert_string_equal(small, "/srv/www/ab");
	assert_int_equal(kn_sites_resolve_path(small, sizeof small - 1, "/srv/www", "/ab"), KN_ELIMIT);
	assert_int_equal(kn_sites_resolve_path(NULL, 10, "/srv", "/a"), KN_EINVAL);
	assert_int_equal(kn_sites_resolve_path(out, sizeof out, NULL, "/a"), KN_EINVAL);
	assert_int_equal(kn_sites_resolve_path(out, sizeof out, "/srv", NULL), KN_EINVAL);
}

/* --- the file system ------------------------------------------------------------------------- */

static char base[512], root[1024]; /* small, so joined names fit PATH_MAX buffers */

static void at(char *p, const char *rel)
{
	snprintf(p, PATH_MAX, "%s/%s", base, rel);
}

static void put(const char *rel)
{
	char p[PATH_MAX];
	at(p, rel);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(rel, f);
	assert_int_equal(fclose(f), 0);
}

static void dir(const char *rel)
{
	char p[PATH_MAX];
	at(p, rel);
	assert_int_equal(mkdir(p, 0755), 0);
}

static void link_to(const char *target, const char *rel)
{
	char p[PATH_MAX];
	at(p, rel);
	assert_int_equal(symlink(target, p), 0);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static int tree_up(void **state)
{
	(void)state;
	const char *tmp = getenv("TMPDIR");
	snprintf(base, sizeof base, "%s/kn-test-sites-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(base))
		return -1;
	dir("www");
	put("www/index.html");
	put("www/.hidden");
	dir("www/a");
	put("www/a/index.html");
	put("www/a/b.txt");
	dir("www/noindex");
	dir("www/evil.com");
	link_to("/etc", "www/etc-link");
	link_to("..", "www/up");
	link_to("../secret.txt", "www/secret");
	link_to("../www2", "www/sib");
	link_to("a/b.txt", "www/alias.txt");
	link_to("../a", "www/a/back");
	link_to("loop", "www/loop");
	char fifo[PATH_MAX];
	at(fifo, "www/fifo");
	assert_int_equal(mkfifo(fifo, 0644), 0);
	put("secret.txt");
	dir("www2");
	put("www2/secret.html");
	put("www2/index.html");
	char www[PATH_MAX];
	at(www, "www");
	char *real = realpath(www, NULL);
	if (!real || strlen(real) >= sizeof root) {
		free(real);
		return -1;
	}
	memcpy(root, real, strlen(real) + 1);
	free(real);
	return 0;
}

static int tree_down(void **state)
{
	(void)state;
	return nftw(base, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* want_rel: the file (relative to root) or, with want_redirect, the Location. */
static void resolves(const char *path, int want_rc, int want_redirect, const char *want)
{
	char *out = NULL;
	int redirect = -1;
	int rc = kn_sites_resolve(&out, &redirect, root, path);
	char expect[PATH_MAX];
	if (want && !want_redirect)
		snprintf(expect, sizeof expect, "%s/%s", root, want);
	else if (want)
		snprintf(expect, sizeof expect, "%s", want);
	int good = rc == want_rc && (rc != 0 ? out == NULL && redirect == 0
	                                     : redirect == want_redirect && strcmp(out, expect) == 0);
	if (!good) {
		print_error("path <%s>: want %d redirect %d <%s>, got %d redirect %d <%s>\n", path, want_rc,
		            want_redirect, want ? expect : "", rc, redirect, out ? out : "(null)");
		fail();
	}
	free(out);
}

static void test_files(void **state)
{
	(void)state;
	resolves("/", 0, 0, "index.html");
	resolves("/index.html", 0, 0, "index.html");
	resolves("/a/", 0, 0, "a/index.html");
	resolves("/a/b.txt", 0, 0, "a/b.txt");
	resolves("//a//b.txt", 0, 0, "a/b.txt");
	resolves("/alias.txt", 0, 0, "a/b.txt");       /* a symlink inside: its real path */
	resolves("/a/back/b.txt", 0, 0, "a/b.txt");
	resolves("/missing.html", KN_ENOTFOUND, 0, NULL);
	resolves("/noindex/", KN_ENOTFOUND, 0, NULL);  /* no listings */
	resolves("/a/b.txt/", KN_ENOTFOUND, 0, NULL);
	resolves("/fifo", KN_ENOTFOUND, 0, NULL);      /* not a regular file */
	resolves("/loop", KN_ENOTFOUND, 0, NULL);
	resolves("/.hidden", KN_ENOTFOUND, 0, NULL);
	resolves("/../secret.txt", KN_EINVAL, 0, NULL);
}

static void test_redirects(void **state)
{
	(void)state;
	resolves("/a", 0, 1, "/a/");
	resolves("/noindex", 0, 1, "/noindex/");
	resolves("//evil.com", 0, 1, "/evil.com/"); /* never "//evil.com/": another host */
	resolves("///a", 0, 1, "/a/");
}

static void test_symlinks_out(void **state)
{
	(void)state;
	resolves("/etc-link/passwd", KN_EINVAL, 0, NULL);
	resolves("/up/secret.txt", KN_EINVAL, 0, NULL);
	resolves("/secret", KN_EINVAL, 0, NULL);
	resolves("/sib/secret.html", KN_EINVAL, 0, NULL); /* base/www2 starts with base/www */
	/* a directory symlink leading out: the redirect only names a path on this server, and
	 * what it leads to is refused */
	resolves("/sib", 0, 1, "/sib/");
	resolves("/sib/", KN_EINVAL, 0, NULL);
	resolves("/etc-link", 0, 1, "/etc-link/");
}

static void test_root_forms(void **state)
{
	(void)state;
	char with_slash[PATH_MAX];
	snprintf(with_slash, sizeof with_slash, "%s/", root);
	char *out = NULL;
	int redirect = 0;
	assert_int_equal(kn_sites_resolve(&out, &redirect, with_slash, "/a/b.txt"), 0);
	char want[PATH_MAX];
	snprintf(want, sizeof want, "%s/a/b.txt", root);
	assert_string_equal(out, want);
	free(out);
	assert_int_equal(kn_sites_resolve(&out, NULL, root, "/"), KN_EINVAL);
	assert_int_equal(kn_sites_resolve(NULL, &redirect, root, "/"), KN_EINVAL);
	/* root "/": the real path of the file, anywhere; a directory redirects as usual */
	assert_int_equal(kn_sites_resolve(&out, &redirect, "/", base), 0);
	assert_int_equal(redirect, 1);
	snprintf(want, sizeof want, "%s/", base);
	assert_string_equal(out, want);
	free(out);
	snprintf(want, sizeof want, "%s/secret.txt", base);
	assert_int_equal(kn_sites_resolve(&out, &redirect, "/", want), 0);
	assert_int_equal(redirect, 0);
	char real[PATH_MAX];
	assert_non_null(realpath(want, real));
	assert_string_equal(out, real);
	free(out);
}

int main(void)
{
	const struct CMUnitTest lexical_tests[] = {
		cmocka_unit_test(test_join),
		cmocka_unit_test(test_traversal_refused),
		cmocka_unit_test(test_not_found),
		cmocka_unit_test(test_limits),
	};
	const struct CMUnitTest fs_tests[] = {
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_redirects),
		cmocka_unit_test(test_symlinks_out),
		cmocka_unit_test(test_root_forms),
	};
	return cmocka_run_group_tests_name("lexical", lexical_tests, NULL, NULL) |
	       cmocka_run_group_tests_name("file system", fs_tests, tree_up, tree_down);
}
