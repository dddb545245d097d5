/* trace_tar.c — a trace folder as one POSIX ustar archive (trace.h), for the dashboard's
 * download: index.json first, then the shots in name order. No library: a ustar header is 512
 * bytes of fixed fields with an octal checksum; data is padded to 512, two zero blocks end it. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "keynode/grow.h"
#include "trace.h"

/* v as width-1 octal digits and a NUL (ustar numeric fields); values past the field are capped. */
static void octal(unsigned char *dst, size_t width, unsigned long long v)
{
	unsigned long long max = (1ull << (3 * (width - 1))) - 1;
	if (v > max)
		v = max;
	dst[width - 1] = '\0';
	for (size_t i = width - 1; i-- > 0; v >>= 3)
		dst[i] = (unsigned char)('0' + (v & 7));
}

static int write_header(FILE *f, const char *name, size_t size, time_t mtime, char type)
{
	unsigned char h[512];
	memset(h, 0, sizeof h);
	size_t nl = strlen(name);
	if (nl > 99)
		return KN_EINVAL;
	memcpy(h, name, nl);
	octal(h + 100, 8, type == '5' ? 0755u : 0644u);
	octal(h + 108, 8, 0);
	octal(h + 116, 8, 0);
	octal(h + 124, 12, size);
	octal(h + 136, 12, (unsigned long long)(mtime > 0 ? mtime : 0));
	memset(h + 148, ' ', 8);
	h[156] = (unsigned char)type;
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	unsigned sum = 0;
	for (size_t i = 0; i < sizeof h; i++)
		sum += h[i];
	octal(h + 148, 7, sum);
	h[155] = ' ';
	return fwrite(h, 1, sizeof h, f) == sizeof h ? 0 : KN_EIO;
}

static int add_file(FILE *f, const char *path, const char *name, kn_err *err)
{
	FILE *in = fopen(path, "rb");
	struct stat st;
	if (!in || fstat(fileno(in), &st) != 0 || !S_ISREG(st.st_mode)) {
		if (in)
			fclose(in);
		return kn_err_set(err, KN_EIO, "cannot read %s", path);
	}
	int rc = write_header(f, name, (size_t)st.st_size, st.st_mtime, '0');
	if (rc) {
		fclose(in);
		return kn_err_set(err, rc, rc == KN_EINVAL ? "%s: name too long for the archive"
		                                           : "cannot write the archive (%s)", name);
	}
	char buf[65536];
	size_t n, total = 0;
	while ((n = fread(buf, 1, sizeof buf, in)) > 0 && total < (size_t)st.st_size) {
		if (total + n > (size_t)st.st_size)
			n = (size_t)st.st_size - total; /* the file grew: the header said st_size */
		if (fwrite(buf, 1, n, f) != n)
			break;
		total += n;
	}
	fclose(in);
	static const char zero[512];
	for (; total < (size_t)st.st_size; total += n) { /* it shrank: pad to the promised size */
		n = (size_t)st.st_size - total < sizeof zero ? (size_t)st.st_size - total : sizeof zero;
		if (fwrite(zero, 1, n, f) != n)
			return kn_err_set(err, KN_EIO, "cannot write the archive");
	}
	size_t pad = (512 - (total % 512)) % 512;
	if (fwrite(zero, 1, pad, f) != pad)
		return kn_err_set(err, KN_EIO, "cannot write the archive");
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int kn_trace_tar(FILE *f, const char *dir, const char *prefix, kn_err *err)
{
	char path[4200], name[256];
	if (strlen(prefix) > 60)
		return kn_err_set(err, KN_EINVAL, "archive prefix too long");
	snprintf(path, sizeof path, "%s/index.json", dir);
	snprintf(name, sizeof name, "%s/index.json", prefix);
	int rc = write_header(f, prefix, 0, time(NULL), '5');
	if (rc)
		return kn_err_set(err, rc, "cannot write the archive");
	snprintf(name, sizeof name, "%s/", prefix);
	if ((rc = add_file(f, path, strcat(name, "index.json"), err)) != 0)
		return rc;
	snprintf(path, sizeof path, "%s/shots", dir);
	DIR *d = opendir(path);
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	while (d && (de = readdir(d)) != NULL) {
		size_t l = strlen(de->d_name);
		if (l < 5 || l > 30 || strcmp(de->d_name + l - 4, ".jpg") != 0)
			continue;
		if (kn_grow(&names, n, &cap, sizeof *names, 64))
			break;
		if ((names[n] = strdup(de->d_name)) != NULL)
			n++;
	}
	if (d)
		closedir(d);
	if (n)
		qsort(names, n, sizeof *names, by_name);
	for (size_t i = 0; i < n; i++) {
		if (!rc) {
			snprintf(path, sizeof path, "%s/shots/%s", dir, names[i]);
			snprintf(name, sizeof name, "%s/shots/%s", prefix, names[i]);
			rc = add_file(f, path, name, err);
		}
		free(names[i]);
	}
	free(names);
	if (rc)
		return rc;
	static const char end[1024];
	if (fwrite(end, 1, sizeof end, f) != sizeof end || fflush(f) != 0)
		return kn_err_set(err, KN_EIO, "cannot write the archive");
	return 0;
}
