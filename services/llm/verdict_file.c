/* verdict_file.c — the local verdict cache: one JSON Lines file, append-only, loaded into a hash
 * table when opened (verdict.h).
 *
 * Several keynode processes may share the file: each verdict is appended with one write() on an
 * O_APPEND descriptor, which the kernel does not interleave with other appends. A line torn by a
 * crash (no newline at the end of the file) is ended with a newline before our first append, and
 * is skipped with a warning at the next load, like any other corrupt line. Verdicts appended by
 * other processes after we loaded are not seen until the next open: the worst case is asking
 * the model again. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "keynode/clock.h"
#include "log.h"
#include "verdict.h"

/* Lines longer than this are skipped at load and never written. */
#define KN_VERDICT_MAX_LINE (1024 * 1024)

struct entry {
	uint64_t hash;
	char *key;      /* model \0 rule \0 input \0, one allocation; NULL = empty slot */
	size_t key_len; /* bytes including the three NULs */
	int prompt;
	double score;
};

struct kn_verdict_file {
	kn_verdict_store store;
	char *path;
	int fd;
	pthread_mutex_t mu;
	struct entry *tab;
	size_t cap, n; /* cap is a power of two, n ≤ cap / 2 */
	size_t loaded, skipped;
	int write_failed; /* warn once */
};

/* --- lines --- */

static int get_string(char **out, json_t *o, const char *key, kn_err *err)
{
	json_t *v = json_object_get(o, key);
	if (!json_is_string(v))
		return kn_err_set(err, KN_EINVAL, "\"%s\" is %s", key, v ? "not a string" : "missing");
	if (!(*out = strdup(json_string_value(v))))
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	return 0;
}

int kn_verdict_parse_line(kn_verdict_line *out, const char *line, size_t len, kn_err *err)
{
	memset(out, 0, sizeof *out);
	if (!line)
		return kn_err_set(err, KN_EINVAL, "no line");
	if (len > KN_VERDICT_MAX_LINE)
		return kn_err_set(err, KN_EINVAL, "line of %zu bytes (max %d)", len, KN_VERDICT_MAX_LINE);
	json_error_t je;
	/* no JSON_ALLOW_NUL: keys stay C strings */
	json_t *j = json_loadb(line, len, JSON_REJECT_DUPLICATES, &je);
	if (!j)
		return kn_err_set(err, KN_EINVAL, "not JSON: %s (column %d)", je.text, je.column);
	int rc;
	json_t *v = json_object_get(j, "v"), *p = json_object_get(j, "prompt"),
	       *s = json_object_get(j, "score"), *r = json_object_get(j, "reason");
	if (!json_is_object(j)) {
		rc = kn_err_set(err, KN_EINVAL, "not a JSON object");
	} else if (!json_is_integer(v) || json_integer_value(v) != 1) {
		rc = kn_err_set(err, KN_EINVAL, "\"v\" is not 1");
	} else if (!json_is_integer(p) || json_integer_value(p) < 1 || json_integer_value(p) > 1000000) {
		rc = kn_err_set(err, KN_EINVAL, "\"prompt\" is not a positive integer");
	} else if (!json_is_number(s) || !(json_number_value(s) >= 0 && json_number_value(s) <= 1)) {
		rc = kn_err_set(err, KN_EINVAL, "\"score\" is not a number in [0, 1]");
	} else if (r && !json_is_string(r) && !json_is_null(r)) {
		rc = kn_err_set(err, KN_EINVAL, "\"reason\" is not a string");
	} else if ((rc = get_string(&out->model, j, "model", err)) == 0 &&
	           (rc = get_string(&out->rule, j, "rule", err)) == 0 &&
	           (rc = get_string(&out->input, j, "input", err)) == 0) {
		out->prompt = (int)json_integer_value(p);
		out->score = json_number_value(s);
		if (json_is_string(r) && !(out->reason = strdup(json_string_value(r))))
			rc = kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	json_decref(j);
	if (rc)
		kn_verdict_line_clear(out);
	return rc;
}

void kn_verdict_line_clear(kn_verdict_line *v)
{
	if (!v)
		return;
	free(v->model);
	free(v->rule);
	free(v->input);
	free(v->reason);
	memset(v, 0, sizeof *v);
}

int kn_verdict_format_line(char **out, size_t *len, const char *model, int prompt,
                           const char *rule, const char *input, double score, const char *reason)
{
	*out = NULL;
	*len = 0;
	char at[KN_TIME_MAX];
	kn_time_rfc3339(at, time(NULL));
	json_t *j = json_pack("{s:i, s:s, s:i, s:s, s:s, s:f, s:s*, s:s}", "v", 1, "model", model,
	                      "prompt", prompt, "rule", rule, "input", input, "score", score,
	                      "reason", reason, "at", at);
	/* json_pack fails on invalid UTF-8 too: such a verdict is simply not cached. 15 digits
	 * print 0.93 as 0.93 and give back the double any decimal of ≤ 15 digits parsed to. */
	char *s = j ? json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15))
	            : NULL;
	json_decref(j);
	if (!s)
		return j ? KN_ENOMEM : KN_EINVAL;
	size_t n = strlen(s);
	char *line = realloc(s, n + 2);
	if (!line) {
		free(s);
		return KN_ENOMEM;
	}
	line[n] = '\n';
	line[n + 1] = '\0';
	*out = line;
	*len = n + 1;
	return 0;
}

/* --- the table --- */

static uint64_t fnv1a(uint64_t h, const void *data, size_t n)
{
	const unsigned char *p = data;
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

/* The key bytes (model\0rule\0input\0) in a new allocation, its length and hash. */
static char *make_key(const char *model, const char *rule, const char *input, int prompt,
                      size_t *len, uint64_t *hash)
{
	size_t a = strlen(model) + 1, b = strlen(rule) + 1, c = strlen(input) + 1;
	char *k = malloc(a + b + c);
	if (!k)
		return NULL;
	memcpy(k, model, a);
	memcpy(k + a, rule, b);
	memcpy(k + a + b, input, c);
	*len = a + b + c;
	unsigned char pb[4] = {(unsigned char)prompt, (unsigned char)(prompt >> 8),
	                       (unsigned char)(prompt >> 16), (unsigned char)(prompt >> 24)};
	*hash = fnv1a(fnv1a(0xcbf29ce484222325ULL, pb, 4), k, *len);
	return k;
}

static struct entry *find_slot(struct entry *tab, size_t cap, uint64_t h, const char *key,
                               size_t len, int prompt)
{
	for (size_t i = (size_t)h & (cap - 1);; i = (i + 1) & (cap - 1)) {
		struct entry *e = &tab[i];
		if (!e->key || (e->hash == h && e->prompt == prompt && e->key_len == len &&
		                memcmp(e->key, key, len) == 0))
			return e;
	}
}

/* Insert or update; takes ownership of key. Called with mu held (or before sharing). */
static int table_put(kn_verdict_file *vf, char *key, size_t len, uint64_t h, int prompt,
                     double score)
{
	if ((vf->n + 1) * 2 > vf->cap) {
		size_t ncap = vf->cap ? vf->cap * 2 : 64;
		struct entry *nt = calloc(ncap, sizeof *nt);
		if (!nt) {
			free(key);
			return KN_ENOMEM;
		}
		for (size_t i = 0; i < vf->cap; i++)
			if (vf->tab[i].key)
				*find_slot(nt, ncap, vf->tab[i].hash, vf->tab[i].key, vf->tab[i].key_len,
				           vf->tab[i].prompt) = vf->tab[i];
		free(vf->tab);
		vf->tab = nt;
		vf->cap = ncap;
	}
	struct entry *e = find_slot(vf->tab, vf->cap, h, key, len, prompt);
	if (e->key) {
		free(key);
	} else {
		e->key = key;
		e->key_len = len;
		e->hash = h;
		e->prompt = prompt;
		vf->n++;
	}
	e->score = score;
	return 0;
}

/* --- the store --- */

static int store_get(void *ud, const char *model, int prompt, const char *rule, const char *input,
                     double *score)
{
	kn_verdict_file *vf = ud;
	size_t len;
	uint64_t h;
	char *key = make_key(model, rule, input, prompt, &len, &h);
	if (!key)
		return KN_ENOMEM;
	int found = 0;
	pthread_mutex_lock(&vf->mu);
	if (vf->cap) {
		struct entry *e = find_slot(vf->tab, vf->cap, h, key, len, prompt);
		if (e->key) {
			*score = e->score;
			found = 1;
		}
	}
	pthread_mutex_unlock(&vf->mu);
	free(key);
	return found;
}

/* write() all of buf (a short write to a regular file is rare: disk full, a signal). */
static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t w = write(fd, buf, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		buf += w;
		len -= (size_t)w;
	}
	return 0;
}

static int store_put(void *ud, const char *model, int prompt, const char *rule, const char *input,
                     double score, const char *reason, kn_err *err)
{
	kn_verdict_file *vf = ud;
	char *line;
	size_t n, len;
	uint64_t h;
	int rc = kn_verdict_format_line(&line, &n, model, prompt, rule, input, score, reason);
	if (rc)
		return kn_err_set(err, rc, "verdict cache: cannot format the verdict");
	if (n > KN_VERDICT_MAX_LINE) {
		free(line);
		return kn_err_set(err, KN_ELIMIT, "verdict cache: verdict of %zu bytes not cached", n);
	}
	char *key = make_key(model, rule, input, prompt, &len, &h);
	if (!key) {
		free(line);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	pthread_mutex_lock(&vf->mu);
	rc = table_put(vf, key, len, h, prompt, score);
	/* one write per line on an O_APPEND descriptor: appends of other processes never interleave */
	if (rc == 0 && write_all(vf->fd, line, n) != 0)
		rc = kn_err_set(err, KN_EIO, "verdict cache: cannot append to %s: %s", vf->path,
		                strerror(errno));
	pthread_mutex_unlock(&vf->mu);
	free(line);
	return rc;
}

/* mkdir -p of path's directory. */
static void make_parent_dirs(const char *path)
{
	char *d = strdup(path);
	if (!d)
		return;
	for (char *p = d + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(d, 0700); /* EEXIST or a real failure: open() says which */
		*p = '/';
	}
	free(d);
}

static void load(kn_verdict_file *vf, FILE *f)
{
	char *buf = NULL;
	size_t cap = 0;
	ssize_t n;
	unsigned long lineno = 0;
	while ((n = getline(&buf, &cap, f)) >= 0) {
		lineno++;
		size_t len = (size_t)n;
		while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
			len--;
		if (!len)
			continue;
		kn_verdict_line v;
		kn_err err = {0};
		if (kn_verdict_parse_line(&v, buf, len, &err) != 0) {
			vf->skipped++;
			kn_log_msgf("warn", "llm", "verdict cache %s:%lu: %s; line skipped", vf->path, lineno, err.msg);
			continue;
		}
		size_t klen;
		uint64_t h;
		char *key = make_key(v.model, v.rule, v.input, v.prompt, &klen, &h);
		if (key && table_put(vf, key, klen, h, v.prompt, v.score) == 0)
			vf->loaded++;
		kn_verdict_line_clear(&v);
	}
	free(buf);
}

int kn_verdict_file_open(kn_verdict_file **out, const char *path, kn_err *err)
{
	*out = NULL;
	if (!path || !*path)
		return kn_err_set(err, KN_EINVAL, "verdict cache: no path");
	kn_verdict_file *vf = calloc(1, sizeof *vf);
	if (!vf || !(vf->path = strdup(path))) {
		free(vf);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	vf->fd = -1;
	pthread_mutex_init(&vf->mu, NULL);
	make_parent_dirs(path);
	vf->fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	FILE *f = vf->fd >= 0 ? fopen(path, "r") : NULL;
	if (!f) {
		int e = errno;
		kn_verdict_file_free(vf);
		return kn_err_set(err, KN_EIO, "verdict cache: cannot open %s: %s", path, strerror(e));
	}
	load(vf, f);
	int rd_err = ferror(f);
	fclose(f);
	if (rd_err) {
		kn_verdict_file_free(vf);
		return kn_err_set(err, KN_EIO, "verdict cache: cannot read %s", path);
	}
	/* a torn last line (a writer died mid-line) must not swallow our first append */
	struct stat st;
	char last;
	if (fstat(vf->fd, &st) == 0 && st.st_size > 0 &&
	    pread(vf->fd, &last, 1, st.st_size - 1) == 1 && last != '\n')
		(void)write_all(vf->fd, "\n", 1);
	vf->store.get = store_get;
	vf->store.put = store_put;
	vf->store.ud = vf;
	*out = vf;
	return 0;
}

void kn_verdict_file_free(kn_verdict_file *vf)
{
	if (!vf)
		return;
	for (size_t i = 0; i < vf->cap; i++)
		free(vf->tab[i].key);
	free(vf->tab);
	if (vf->fd >= 0)
		close(vf->fd);
	pthread_mutex_destroy(&vf->mu);
	free(vf->path);
	free(vf);
}

const kn_verdict_store *kn_verdict_file_store(kn_verdict_file *vf)
{
	return vf ? &vf->store : NULL;
}

size_t kn_verdict_file_loaded(const kn_verdict_file *vf)
{
	return vf ? vf->loaded : 0;
}

size_t kn_verdict_file_skipped(const kn_verdict_file *vf)
{
	return vf ? vf->skipped : 0;
}

int kn_verdict_default_path(char **out)
{
	*out = NULL;
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	const char *base = xdg && *xdg == '/' ? xdg : home && *home ? home : NULL;
	if (!base)
		return KN_ENOTFOUND;
	const char *rest = base == xdg ? "/keynode/verdicts.jsonl" : "/.cache/keynode/verdicts.jsonl";
	size_t n = strlen(base) + strlen(rest) + 1;
	if (!(*out = malloc(n)))
		return KN_ENOMEM;
	snprintf(*out, n, "%s%s", base, rest);
	return 0;
}
