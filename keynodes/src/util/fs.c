/* fs.c — folder creation for the commands that write files (keynode/fs.h). */
#include <errno.h>
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
