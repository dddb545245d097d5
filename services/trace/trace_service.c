/* trace_service.c — traces kept by `keynode serve` (trace.h): one folder per run under the
 * service's traces root, a size cap per run (screenshots stop, the steps say why), and retention
 * by age, swept from the server's housekeeping tick. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "trace_internal.h"

/* A run id that is a plain file name (no '/', no leading '.'). */
static int plain_name(const char *s)
{
	if (!s || !*s || s[0] == '.' || strlen(s) > 200)
		return 0;
	for (; *s; s++)
		if (*s == '/' || *s == '\\' || (unsigned char)*s < 0x20)
			return 0;
	return 1;
}

kn_trace *kn_trace_open_in(const char *root, const char *run_id, kn_trace_mode mode,
                           const kn_task *task, long long max_bytes, kn_err *err)
{
	return kn_trace_open_kind(root, run_id, "run", mode, task, max_bytes, err);
}

kn_trace *kn_trace_open_kind(const char *root, const char *run_id, const char *kind, kn_trace_mode mode,
                             const kn_task *task, long long max_bytes, kn_err *err)
{
	if (mode == KN_TRACE_OFF || !root || !*root)
		return NULL;
	if (!plain_name(run_id)) {
		kn_err_set(err, KN_EINVAL, "trace: run id '%s' is not a file name", run_id ? run_id : "");
		return NULL;
	}
	char dir[4096];
	snprintf(dir, sizeof dir, "%s/%s", root, run_id);
	kn_trace_opts o = {.mode = mode, .kind = kind, .run_id = run_id, .task = task, .max_bytes = max_bytes};
	kn_trace *t = NULL;
	return kn_trace_new(&t, dir, &o, err) == 0 ? t : NULL;
}

/* Call fn(ud, name, dir) for each entry of root whose name does not start with '.', dir being
 * root/name; fn returns 1 to count the entry. How many were counted (0 when root cannot be read). */
static int each_entry(const char *root, int (*fn)(void *ud, const char *name, const char *dir), void *ud)
{
	DIR *d = root ? opendir(root) : NULL;
	if (!d)
		return 0;
	int n = 0;
	struct dirent *de;
	char p[4096];
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof p, "%s/%s", root, de->d_name);
		n += fn(ud, de->d_name, p);
	}
	closedir(d);
	return n;
}

struct sweep {
	time_t cut;
	void (*removed)(void *ud, const char *run_id);
	void *ud;
};

/* A trace folder (one with shots/) whose index (or, without one, the folder) is older than the cut
 * is removed. */
static int sweep_one(void *ud, const char *name, const char *p)
{
	struct sweep *sw = ud;
	char q[4200];
	struct stat st, sh;
	snprintf(q, sizeof q, "%s/shots", p);
	if (stat(q, &sh) != 0 || !S_ISDIR(sh.st_mode)) /* not a trace folder: left alone */
		return 0;
	snprintf(q, sizeof q, "%s/index.json", p);
	if (stat(q, &st) != 0 && stat(p, &st) != 0)
		return 0;
	if (st.st_mtime >= sw->cut)
		return 0;
	kn_trace_remove(p);
	if (sw->removed)
		sw->removed(sw->ud, name);
	return 1;
}

int kn_trace_sweep(const char *root, int keep_days, void (*removed)(void *ud, const char *run_id),
                   void *ud)
{
	if (!root || keep_days <= 0)
		return 0;
	struct sweep sw = {time(NULL) - (time_t)keep_days * 86400, removed, ud};
	return each_entry(root, sweep_one, &sw);
}

/* Bytes of dir/index.json and dir/shots/ *.jpg. */
static long long trace_bytes(const char *dir)
{
	char p[4600];
	struct stat st;
	long long n = 0;
	snprintf(p, sizeof p, "%s/index.json", dir);
	if (stat(p, &st) == 0)
		n += (long long)st.st_size;
	snprintf(p, sizeof p, "%s/shots", dir);
	DIR *d = opendir(p);
	struct dirent *de;
	while (d && (de = readdir(d)) != NULL) {
		snprintf(p, sizeof p, "%s/shots/%s", dir, de->d_name);
		if (de->d_name[0] != '.' && stat(p, &st) == 0 && S_ISREG(st.st_mode))
			n += (long long)st.st_size;
	}
	if (d)
		closedir(d);
	return n;
}

struct scan {
	long long since;
	void (*fn)(void *ud, const char *run_id, const char *dir, json_t *idx, long long bytes);
	void *ud;
};

/* A folder whose index.json loads and is not older than since goes to the scan's fn. */
static int scan_one(void *ud, const char *name, const char *p)
{
	struct scan *sc = ud;
	char q[4200];
	struct stat st;
	snprintf(q, sizeof q, "%s/index.json", p);
	if (stat(q, &st) != 0 || (long long)st.st_mtime < sc->since)
		return 0;
	json_t *idx = NULL;
	kn_err err;
	if (kn_trace_load(&idx, p, &err) != 0)
		return 0;
	sc->fn(sc->ud, name, p, idx, trace_bytes(p));
	json_decref(idx);
	return 1;
}

int kn_trace_scan_one(const char *root, const char *run_id,
                      void (*fn)(void *ud, const char *run_id, const char *dir, json_t *idx, long long bytes),
                      void *ud)
{
	if (!root || !plain_name(run_id))
		return 0;
	char p[4096];
	snprintf(p, sizeof p, "%s/%s", root, run_id);
	struct scan sc = {0, fn, ud};
	return scan_one(&sc, run_id, p);
}

void kn_trace_discard(const char *root, const char *run_id)
{
	char dir[4096];
	if (!root || !plain_name(run_id))
		return;
	snprintf(dir, sizeof dir, "%s/%s", root, run_id);
	kn_trace_remove(dir);
}

int kn_trace_scan(const char *root, long long since,
                  void (*fn)(void *ud, const char *run_id, const char *dir, json_t *idx, long long bytes),
                  void *ud)
{
	struct scan sc = {since, fn, ud};
	return each_entry(root, scan_one, &sc);
}

void kn_trace_row_of(const json_t *idx, const char **kind, const char **status, int *steps, int *shots,
                     int *skipped)
{
	json_t *cap = json_object_get(idx, "capture");
	size_t n = json_array_size(json_object_get(idx, "steps"));
	*kind = json_string_value(json_object_get(idx, "kind"));
	*status = json_string_value(json_object_get(idx, "status"));
	*steps = n ? (int)n - 1 : 0; /* step 0 is what came before the first step */
	*shots = (int)json_integer_value(json_object_get(cap, "shots"));
	*skipped = (int)json_integer_value(json_object_get(cap, "skipped"));
}

int kn_trace_load_run(json_t **out, const char *root, const char *run_id, kn_err *err)
{
	*out = NULL;
	if (!root || !*root)
		return kn_err_set(err, KN_ENOTFOUND, "no traces are kept");
	if (!plain_name(run_id))
		return kn_err_set(err, KN_ENOTFOUND, "trace: run id is not a file name");
	char dir[4096];
	snprintf(dir, sizeof dir, "%s/%s", root, run_id);
	return kn_trace_load(out, dir, err);
}
