/* fs.c — folder creation for the commands that write files, and the one capped whole-file reader
 * with the one wording of its errors (keynode/fs.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "keynode/fs.h"

#define KN_PATH_MAX 4096

int kn_mkdirs(const char *dir, unsigned mode, kn_err *err)
{
	size_t n = dir ? strlen(dir) : 0;
	if (n == 0 || n >= KN_PATH_MAX)
		return kn_err_set(err, KN_EINVAL, "bad directory name");
	char path[KN_PATH_MAX];
	memcpy(path, dir, n + 1);
	/* every prefix ending before a '/', then the whole path */
	for (size_t i = 1; i <= n; i++) {
		if (i < n && path[i] != '/')
			continue;
		char c = path[i];
		path[i] = '\0';
		struct stat sb;
		if (mkdir(path, (mode_t)mode) != 0 && errno != EEXIST)
			return kn_err_set(err, KN_EIO, "cannot create %s: %s", path, strerror(errno));
		if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode))
			return kn_err_set(err, KN_EIO, "%s is not a directory", path);
		path[i] = c;
	}
	return 0;
}

int kn_mkdirs_for(const char *file, unsigned mode, kn_err *err)
{
	const char *slash = file ? strrchr(file, '/') : NULL;
	if (!slash || slash == file)
		return 0;
	char dir[KN_PATH_MAX];
	size_t n = (size_t)(slash - file);
	if (n >= sizeof dir)
		return kn_err_set(err, KN_EINVAL, "path too long");
	memcpy(dir, file, n);
	dir[n] = '\0';
	return kn_mkdirs(dir, mode, err);
}

/* The first buffer of kn_read_stream: most files read whole are task files and trajectories of a few
 * kilobytes to a few hundred. */
#define KN_READ_FIRST 65536

int kn_read_stream(char **out, size_t *len, FILE *f, size_t max)
{
	*out = NULL;
	*len = 0;
	/* the buffer never needs more than max bytes, one more to see that f is longer, and none past
	 * that (a 64 MiB cap never costs a 128 MiB buffer); a file of exactly max bytes leaves the one
	 * byte more for the NUL */
	size_t top = max < SIZE_MAX ? max + 1 : SIZE_MAX;
	char *buf = NULL;
	size_t n = 0, cap = 0;
	for (;;) {
		if (n == cap) {
			if (cap == top) {
				free(buf);
				return max < SIZE_MAX ? KN_ELIMIT : KN_ENOMEM;
			}
			size_t nc = !cap ? KN_READ_FIRST : cap <= top / 2 ? cap * 2 : top;
			if (nc > top)
				nc = top;
			char *nb = realloc(buf, nc);
			if (!nb) {
				free(buf);
				return KN_ENOMEM;
			}
			buf = nb;
			cap = nc;
		}
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		free(buf);
		return KN_EIO;
	}
	buf[n] = '\0'; /* n < cap: the loop ends on a read that took nothing */
	*out = buf;
	*len = n;
	return 0;
}

int kn_read_file(char **out, size_t *len, const char *path, size_t max, kn_err *err)
{
	*out = NULL;
	*len = 0;
	FILE *f = fopen(path, "rb");
	if (!f)
		return kn_err_set(err, errno == ENOENT ? KN_ENOTFOUND : KN_EIO, "%s: %s", path, strerror(errno));
	int rc = kn_read_stream(out, len, f, max);
	fclose(f);
	if (rc == KN_ELIMIT)
		return kn_err_set(err, rc, "%s: over the %zu byte limit", path, max);
	if (rc == KN_EIO)
		return kn_err_set(err, rc, "%s: read error", path);
	if (rc)
		return kn_err_set(err, KN_ENOMEM, "%s: out of memory", path);
	return 0;
}
