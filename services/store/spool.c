/* spool.c — the on-disk spool of kn_ingest (format and guarantees in spool.h): formatting and
 * strictly parsing one record line, and the spool file itself (append with one write per record,
 * buffered in-order reading, truncation once flushed). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "keynode/fs.h"
#include "spool.h"

/* "KN1 " + up to 8 digits + " " + 8 hex + " " */
#define HEADER_MAX 32

static uint32_t crc_table[256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
}

uint32_t kn_spool_crc32(const void *data, size_t len)
{
	pthread_once(&crc_once, crc_init);
	const unsigned char *p = data;
	uint32_t c = 0xFFFFFFFFu;
	for (size_t i = 0; i < len; i++)
		c = crc_table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
	return c ^ 0xFFFFFFFFu;
}

void kn_spool_rec_clear(kn_spool_rec *rec)
{
	if (!rec)
		return;
	free(rec->run_id);
	free(rec->text);
	free(rec->ended);
	free(rec->run_kind);
	free(rec->browser);
	free(rec->started);
	free(rec->owner);
	memset(rec, 0, sizeof *rec);
}

static int short_ok(const char *s)
{
	return s && *s && strlen(s) <= KN_SPOOL_ID_MAX;
}

int kn_spool_format(char **out, size_t *len, const kn_spool_rec *rec)
{
	*out = NULL;
	*len = 0;
	if (!short_ok(rec->run_id))
		return KN_EINVAL;
	json_t *o = json_object();
	if (!o)
		return KN_ENOMEM;
	char k[2] = {(char)rec->kind, 0};
	int bad = json_object_set_new(o, "k", json_string(k)) ||
	          json_object_set_new(o, "r", json_string(rec->run_id));
	switch (rec->kind) {
	case KN_SPOOL_RUN_START:
		bad = bad || !short_ok(rec->run_kind) || !short_ok(rec->started) ||
		      (rec->browser && strlen(rec->browser) > 4096) ||
		      json_object_set_new(o, "v", json_integer(rec->task_version)) ||
		      json_object_set_new(o, "kind", json_string(rec->run_kind)) ||
		      json_object_set_new(o, "b", rec->browser ? json_string(rec->browser) : json_null()) ||
		      json_object_set_new(o, "t", json_string(rec->started)) ||
		      (rec->owner && (!short_ok(rec->owner) ||
		                      json_object_set_new(o, "o", json_string(rec->owner))));
		break;
	case KN_SPOOL_EVENT:
		bad = bad || rec->seq < 1 || !rec->text ||
		      json_object_set_new(o, "s", json_integer(rec->seq)) ||
		      json_object_set_new(o, "l", json_string(rec->text));
		break;
	case KN_SPOOL_RUN_FINISH:
		bad = bad || !short_ok(rec->ended) || !rec->text ||
		      json_object_set_new(o, "t", json_string(rec->ended)) ||
		      json_object_set_new(o, "j", json_string(rec->text));
		break;
	default:
		bad = 1;
	}
	char *payload = bad ? NULL : json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	if (!payload)
		return KN_EINVAL;
	size_t n = strlen(payload);
	if (n > KN_SPOOL_PAYLOAD_MAX) {
		free(payload);
		return KN_ELIMIT;
	}
	char *buf = malloc(n + HEADER_MAX + 2);
	if (!buf) {
		free(payload);
		return KN_ENOMEM;
	}
	int h = snprintf(buf, HEADER_MAX, "KN1 %zu %08" PRIx32 " ", n, kn_spool_crc32(payload, n));
	memcpy(buf + h, payload, n);
	buf[h + (int)n] = '\n';
	buf[h + (int)n + 1] = '\0';
	free(payload);
	*out = buf;
	*len = (size_t)h + n + 1;
	return 0;
}

/* A copy of the string member k; *bad when it is missing (unless optional), not a string, too
 * long (cap, 0: any) or empty where a value is required. */
static char *member_str(const json_t *o, const char *k, size_t cap, int optional, int *bad)
{
	const json_t *v = json_object_get(o, k);
	if (optional && (!v || json_is_null(v)))
		return NULL;
	if (!json_is_string(v) || (cap && (json_string_length(v) > cap || json_string_length(v) == 0))) {
		*bad = 1;
		return NULL;
	}
	/* A NUL inside (\u0000) cannot cross into C strings or PostgreSQL text. */
	if (strlen(json_string_value(v)) != json_string_length(v)) {
		*bad = 1;
		return NULL;
	}
	char *s = strdup(json_string_value(v));
	if (!s)
		*bad = 1;
	return s;
}

int kn_spool_parse(kn_spool_rec *out, const char *line, size_t len, kn_err *err)
{
	memset(out, 0, sizeof *out);
	if (len < 4 || memcmp(line, "KN1 ", 4) != 0)
		return kn_err_set(err, KN_EINVAL, "spool record: bad header");
	size_t i = 4, n = 0, digits = 0;
	while (i < len && line[i] >= '0' && line[i] <= '9' && digits < 9) {
		n = n * 10 + (size_t)(line[i] - '0');
		i++;
		digits++;
	}
	if (digits == 0 || digits > 8 || i >= len || line[i] != ' ')
		return kn_err_set(err, KN_EINVAL, "spool record: bad length");
	if (n > KN_SPOOL_PAYLOAD_MAX)
		return kn_err_set(err, KN_ELIMIT, "spool record: payload of %zu bytes is over the cap", n);
	i++;
	if (len - i < 9)
		return kn_err_set(err, KN_EINVAL, "spool record: truncated checksum");
	uint32_t crc = 0;
	for (size_t k = 0; k < 8; k++) {
		char c = line[i + k];
		uint32_t d;
		if (c >= '0' && c <= '9')
			d = (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (uint32_t)(c - 'a' + 10);
		else
			return kn_err_set(err, KN_EINVAL, "spool record: bad checksum digits");
		crc = crc << 4 | d;
	}
	i += 8;
	if (line[i] != ' ')
		return kn_err_set(err, KN_EINVAL, "spool record: bad header");
	i++;
	if (len - i != n)
		return kn_err_set(err, KN_EINVAL, "spool record: %zu payload bytes, header says %zu (torn write?)",
		                  len - i, n);
	const char *payload = line + i;
	if (kn_spool_crc32(payload, n) != crc)
		return kn_err_set(err, KN_EINVAL, "spool record: checksum mismatch");
	json_error_t je;
	json_t *o = json_loadb(payload, n, JSON_REJECT_DUPLICATES, &je);
	if (!json_is_object(o)) {
		json_decref(o);
		return kn_err_set(err, KN_EINVAL, "spool record: payload is not a JSON object");
	}
	int bad = 0;
	const char *k = json_string_value(json_object_get(o, "k"));
	out->run_id = member_str(o, "r", KN_SPOOL_ID_MAX, 0, &bad);
	if (!k || strlen(k) != 1)
		bad = 1;
	else if (k[0] == KN_SPOOL_RUN_START) {
		out->kind = KN_SPOOL_RUN_START;
		const json_t *v = json_object_get(o, "v");
		if (!json_is_integer(v))
			bad = 1;
		out->task_version = json_integer_value(v);
		out->run_kind = member_str(o, "kind", KN_SPOOL_ID_MAX, 0, &bad);
		out->browser = member_str(o, "b", 4096, 1, &bad);
		out->started = member_str(o, "t", KN_SPOOL_ID_MAX, 0, &bad);
		out->owner = member_str(o, "o", KN_SPOOL_ID_MAX, 1, &bad);
	} else if (k[0] == KN_SPOOL_EVENT) {
		out->kind = KN_SPOOL_EVENT;
		const json_t *s = json_object_get(o, "s");
		if (!json_is_integer(s) || json_integer_value(s) < 1)
			bad = 1;
		out->seq = json_integer_value(s);
		out->text = member_str(o, "l", 0, 0, &bad);
	} else if (k[0] == KN_SPOOL_RUN_FINISH) {
		out->kind = KN_SPOOL_RUN_FINISH;
		out->ended = member_str(o, "t", KN_SPOOL_ID_MAX, 0, &bad);
		out->text = member_str(o, "j", 0, 0, &bad);
	} else
		bad = 1;
	json_decref(o);
	if (bad) {
		kn_spool_rec_clear(out);
		return kn_err_set(err, KN_EINVAL, "spool record: missing or mistyped fields");
	}
	return 0;
}

/* ---- the file ---------------------------------------------------------------------------- */

struct kn_spool {
	int fd, lock_fd;
	uint64_t size, max_bytes, synced; /* synced: bytes known to be on stable storage */
	char *rbuf;        /* read buffer: file bytes [roff, roff + rlen) */
	size_t rcap, rlen;
	uint64_t roff;
};

int kn_spool_open(kn_spool **out, const char *dir, uint64_t max_bytes, kn_err *err)
{
	*out = NULL;
	int rc = kn_mkdirs(dir, 0700, err);
	if (rc)
		return rc;
	size_t plen = strlen(dir) + 16;
	char *path = malloc(plen);
	kn_spool *sp = calloc(1, sizeof *sp);
	if (!path || !sp) {
		free(path);
		free(sp);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	/* One process per spool: two would flush and truncate each other's records. */
	snprintf(path, plen, "%s/spool.lock", dir);
	sp->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (sp->lock_fd < 0 || flock(sp->lock_fd, LOCK_EX | LOCK_NB) != 0) {
		int e = errno;
		if (sp->lock_fd >= 0)
			close(sp->lock_fd);
		rc = e == EWOULDBLOCK ? kn_err_set(err, KN_EBUSY, "%s is in use by another process (give each "
		                                                  "its own spool directory)", dir)
		                      : kn_err_set(err, KN_EIO, "%s: %s", path, strerror(e));
		free(path);
		free(sp);
		return rc;
	}
	snprintf(path, plen, "%s/spool.log", dir);
	sp->fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (sp->fd < 0) {
		kn_err_set(err, KN_EIO, "%s: %s", path, strerror(errno));
		close(sp->lock_fd);
		free(path);
		free(sp);
		return KN_EIO;
	}
	struct stat sb;
	if (fstat(sp->fd, &sb) != 0) {
		kn_err_set(err, KN_EIO, "%s: %s", path, strerror(errno));
		goto fail;
	}
	sp->size = (uint64_t)sb.st_size;
	if (sp->size > 0) {
		char last;
		if (pread(sp->fd, &last, 1, (off_t)(sp->size - 1)) != 1) {
			kn_err_set(err, KN_EIO, "%s: cannot read: %s", path, strerror(errno));
			goto fail;
		}
		if (last != '\n') {
			if (write(sp->fd, "\n", 1) != 1) {
				kn_err_set(err, KN_EIO, "%s: cannot write: %s", path, strerror(errno));
				goto fail;
			}
			sp->size++;
		}
	}
	sp->max_bytes = max_bytes;
	sp->synced = sp->size;
	free(path);
	*out = sp;
	return 0;
fail:
	close(sp->fd);
	close(sp->lock_fd);
	free(path);
	free(sp);
	return KN_EIO;
}

void kn_spool_close(kn_spool *sp)
{
	if (!sp)
		return;
	close(sp->fd);
	close(sp->lock_fd); /* releases the lock */
	free(sp->rbuf);
	free(sp);
}

int kn_spool_sync(kn_spool *sp, uint64_t upto, kn_err *err)
{
	if (upto <= sp->synced)
		return 0;
	uint64_t size = sp->size;
	if (fdatasync(sp->fd) != 0)
		return kn_err_set(err, KN_EIO, "spool fdatasync failed: %s", strerror(errno));
	sp->synced = size;
	return 0;
}

uint64_t kn_spool_size(const kn_spool *sp)
{
	return sp->size;
}

int kn_spool_append(kn_spool *sp, const kn_spool_rec *rec, kn_err *err)
{
	char *line;
	size_t len;
	int rc = kn_spool_format(&line, &len, rec);
	if (rc != 0)
		return kn_err_set(err, rc, "cannot spool the record: %s", kn_strerror(rc));
	if (sp->max_bytes && sp->size + len > sp->max_bytes) {
		free(line);
		return kn_err_set(err, KN_ELIMIT, "spool full (%" PRIu64 " bytes)", sp->max_bytes);
	}
	size_t done = 0;
	while (done < len) {
		ssize_t w = write(sp->fd, line + done, len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int e = errno;
			free(line);
			/* A partial record is a torn line: terminate it so the next record parses. */
			if (done > 0 && write(sp->fd, "\n", 1) == 1)
				sp->size += done + 1;
			return kn_err_set(err, KN_EIO, "spool write failed: %s", strerror(e));
		}
		done += (size_t)w;
	}
	free(line);
	sp->size += len;
	return 0;
}

int kn_spool_truncate(kn_spool *sp, kn_err *err)
{
	if (ftruncate(sp->fd, 0) != 0)
		return kn_err_set(err, KN_EIO, "spool truncate failed: %s", strerror(errno));
	sp->size = 0;
	sp->synced = 0;
	sp->rlen = 0;
	sp->roff = 0;
	return 0;
}

/* Make file bytes [off, off + need) (capped at limit) available in rbuf; returns how many are. */
static int fill(kn_spool *sp, uint64_t off, size_t need, uint64_t limit, size_t *avail)
{
	if (off + need > limit)
		need = (size_t)(limit - off);
	if (off >= sp->roff && off + need <= sp->roff + sp->rlen) {
		*avail = (size_t)(sp->roff + sp->rlen - off);
		if (off + *avail > limit)
			*avail = (size_t)(limit - off);
		return 0;
	}
	size_t want = need < 65536 ? 65536 : need;
	if (off + want > limit)
		want = (size_t)(limit - off);
	if (want > sp->rcap) {
		char *nb = realloc(sp->rbuf, want);
		if (!nb)
			return KN_ENOMEM;
		sp->rbuf = nb;
		sp->rcap = want;
	}
	size_t got = 0;
	while (got < want) {
		ssize_t r = pread(sp->fd, sp->rbuf + got, want - got, (off_t)(off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return KN_EIO;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	sp->roff = off;
	sp->rlen = got;
	*avail = got;
	return 0;
}

int kn_spool_next(kn_spool *sp, uint64_t *offset, uint64_t limit, kn_spool_rec *rec,
                  kn_spool_warn_fn warn, void *ud, uint64_t *skipped)
{
	memset(rec, 0, sizeof *rec);
	const size_t line_max = KN_SPOOL_PAYLOAD_MAX + HEADER_MAX;
	while (*offset < limit) {
		size_t need = 4096, avail = 0;
		const char *nl = NULL;
		for (;;) {
			int rc = fill(sp, *offset, need, limit, &avail);
			if (rc != 0)
				return rc;
			const char *start = sp->rbuf + (*offset - sp->roff);
			nl = memchr(start, '\n', avail);
			if (nl || avail < need || need > line_max)
				break;
			need *= 4;
		}
		const char *start = sp->rbuf + (*offset - sp->roff);
		if (!nl) {
			/* No newline before the limit (or past the cap): skip what is there. */
			if (warn)
				warn(ud, "spool: dropped an unterminated or oversized record");
			if (skipped)
				++*skipped;
			*offset += avail ? avail : 1;
			continue;
		}
		size_t len = (size_t)(nl - start);
		kn_err e;
		int rc = len ? kn_spool_parse(rec, start, len, &e) : KN_EINVAL;
		*offset += len + 1;
		if (rc == 0)
			return 1;
		if (len) {
			if (warn)
				warn(ud, e.msg);
			if (skipped)
				++*skipped;
		}
	}
	return 0;
}
