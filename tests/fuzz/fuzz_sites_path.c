/* fuzz_sites_path.c — the `keynode sites` mapping of an untrusted request path to a file
 * (kn_sites_resolve_path, kn_sites_resolve in services/http/sites.h) on arbitrary bytes, as sent
 * and percent-decoded the way lws decodes them. Besides not crashing it holds the mapping to its
 * promise: whatever it resolves lies inside the root. Lexically, the joined name starts with
 * root + "/" and walking its segments ("." stays, ".." goes up) never climbs above the root.
 * On the file system (a scratch tree built once, with symlinks leading out to "/", "..", a file
 * beside the root and a sibling whose name starts with the root's), a served file's name is its
 * own real path, lies below the root's real path, is a regular file and is none of the files
 * outside; a redirect is the request path plus "/", with one leading slash and nothing that could
 * break a header. Return codes stay in the documented set. */
#define _XOPEN_SOURCE 700 /* realpath, mkdtemp, nftw, symlink */
#include <ftw.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sites.h"

static char base[512];  /* scratch dir: base/www is the root, the rest lies outside it */
static char root[1024]; /* realpath of base/www (small, so joined names fit PATH_MAX buffers) */
static struct stat outside[3]; /* files a resolved path must never be */
static size_t n_outside;

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static void cleanup(void)
{
	if (base[0])
		nftw(base, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* A broken promise (or a failed setup): remove the scratch tree, then crash for the fuzzer. */
static void violated(void)
{
	cleanup();
	abort();
}

static void put(const char *rel, const char *text)
{
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s/%s", base, rel);
	FILE *f = fopen(p, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0)
		violated();
}

static void dir(const char *rel)
{
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s/%s", base, rel);
	if (mkdir(p, 0755) != 0)
		violated();
}

static void link_to(const char *target, const char *rel)
{
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s/%s", base, rel);
	if (symlink(target, p) != 0)
		violated();
}

static void remember_outside(const char *rel)
{
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s/%s", base, rel);
	if (stat(p, &outside[n_outside++]) != 0)
		violated();
}

/* The scratch tree, built on the first input (libFuzzer and replay_main alike), removed at exit. */
static void setup(void)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(base, sizeof base, "%s/kn-fuzz-sites-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(base))
		violated();
	atexit(cleanup);
	dir("www");
	put("www/index.html", "home");
	put("www/.hidden", "hidden");
	dir("www/a");
	put("www/a/index.html", "a");
	put("www/a/b.txt", "b");
	dir("www/a/c");
	dir("www/noindex");
	dir("www/evil.com");
	put("www/evil.com/index.html", "e");
	put("www/%2e%2e", "literal percent name");
	link_to("/", "www/out");                    /* leads out: to the file system root */
	link_to("..", "www/up");                    /* leads out: to base */
	link_to("../secret.txt", "www/secret");     /* leads out: a file beside the root */
	link_to("../www2", "www/sib");              /* leads out: base/www2 starts with "www" */
	link_to("../a", "www/a/c/back");            /* stays inside */
	link_to("b.txt", "www/a/alias.txt");        /* stays inside */
	link_to("loop", "www/loop");                /* ELOOP */
	put("secret.txt", "root:x:0:0");
	dir("www2");
	put("www2/index.html", "sibling");
	put("www2/secret.html", "sibling secret");
	remember_outside("secret.txt");
	remember_outside("www2/index.html");
	remember_outside("www2/secret.html");
	char wwwp[PATH_MAX];
	snprintf(wwwp, sizeof wwwp, "%s/www", base);
	char *real = realpath(wwwp, NULL);
	if (!real || strlen(real) >= sizeof root)
		violated();
	memcpy(root, real, strlen(real) + 1);
	free(real);
}

/* 1 when name lies inside r lexically: it starts with r (no trailing slash) + "/" and its
 * segments, "." staying and ".." going up one level, never climb above r. Independent of the
 * implementation's own segment check. */
static int lexically_inside(const char *name, const char *r)
{
	size_t rl = strlen(r);
	while (rl && r[rl - 1] == '/')
		rl--;
	if (strncmp(name, r, rl) != 0 || name[rl] != '/')
		return 0;
	long depth = 0;
	for (const char *seg = name + rl + 1; *seg;) {
		size_t n = strcspn(seg, "/");
		if (n == 2 && seg[0] == '.' && seg[1] == '.') {
			if (--depth < 0)
				return 0;
		} else if (n > 0 && !(n == 1 && seg[0] == '.')) {
			depth++;
		}
		seg += n;
		if (*seg == '/')
			seg++;
	}
	return 1;
}

static int known_error(int rc)
{
	return rc == KN_EINVAL || rc == KN_ENOTFOUND || rc == KN_ELIMIT || rc == KN_ENOMEM;
}

static void check_lexical(const char *r, const char *path)
{
	char out[KN_SITES_MAX_PATH + 64];
	int rc = kn_sites_resolve_path(out, sizeof out, r, path);
	if (rc == 0) {
		if (!lexically_inside(out, r) || strstr(out, "\\"))
			violated();
		/* the name is exactly root + path: nothing was silently rewritten */
		size_t rl = strlen(r) == 1 ? 0 : strlen(r); /* the roots used here have no trailing slash */
		if (strncmp(out, r, rl) != 0 || strcmp(out + rl, path) != 0)
			violated();
	} else if (!known_error(rc) || rc == KN_ENOMEM) {
		violated();
	}
	/* a buffer one byte too small is refused, never overrun (ASan watches the exact size) */
	size_t need = strlen(r) + strlen(path) + 1 - (strlen(r) == 1);
	char *tight = malloc(need - 1);
	if (!tight)
		return;
	if (kn_sites_resolve_path(tight, need - 1, r, path) == 0)
		violated();
	free(tight);
}

static void check_fs(const char *path)
{
	static char unset[] = "unset";
	char *out = unset; /* must come back NULL on failure */
	int redirect = -1;
	int rc = kn_sites_resolve(&out, &redirect, root, path);
	if (rc != 0) {
		if (!known_error(rc) || out != NULL || redirect != 0)
			violated();
		return;
	}
	if (!out || (redirect != 0 && redirect != 1))
		violated();
	if (redirect) {
		/* Location: the path plus "/", one leading slash, nothing that breaks a header */
		size_t n = strlen(out);
		if (out[0] != '/' || out[1] == '/' || out[n - 1] != '/' || n > strlen(path) + 2)
			violated();
		for (const unsigned char *c = (const unsigned char *)out; *c; c++)
			if (*c < 0x20 || *c == 0x7f || *c == '\\')
				violated();
		char want[KN_SITES_MAX_PATH + 8];
		snprintf(want, sizeof want, "/%s/", path + strspn(path, "/"));
		if (strcmp(out, want) != 0)
			violated();
	} else {
		char real[PATH_MAX];
		struct stat st;
		if (!lexically_inside(out, root) || !realpath(out, real) || strcmp(real, out) != 0 ||
		    stat(out, &st) != 0 || !S_ISREG(st.st_mode))
			violated();
		for (size_t i = 0; i < n_outside; i++)
			if (st.st_dev == outside[i].st_dev && st.st_ino == outside[i].st_ino)
				violated();
	}
	free(out);
}

static int hex(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Percent-decode in place the way the server sees paths: %XX becomes the byte, anything else
 * stays; a decoded NUL ends the string (lws hands the callback a C string). */
static void percent_decode(char *s)
{
	char *w = s;
	for (const char *r = s; *r; r++) {
		int hi, lo;
		if (r[0] == '%' && (hi = hex(r[1])) >= 0 && (lo = hex(r[2])) >= 0) {
			*w++ = (char)(hi * 16 + lo);
			r += 2;
			if (w[-1] == '\0')
				return;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}

static void check_all(const char *path)
{
	check_lexical("/srv/www", path);
	check_lexical("/", path);
	check_lexical(root, path);
	check_fs(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!root[0])
		setup();
	if (size > 2 * KN_SITES_MAX_PATH + 16) /* past the cap it is all KN_ELIMIT; keep inputs useful */
		size = 2 * KN_SITES_MAX_PATH + 16;
	char *path = malloc(size + 1);
	if (!path)
		return 0;
	if (size)
		memcpy(path, data, size);
	path[size] = '\0'; /* up to the first NUL, as lws hands it over */
	check_all(path);
	percent_decode(path);
	check_all(path);
	free(path);
	return 0;
}
