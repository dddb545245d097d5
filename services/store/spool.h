/* spool.h — kn_ingest's on-disk spool: while the database is unreachable every record (run
 * start, event, run finish) is appended here in order, and flushed in order when it is back.
 *
 * One self-delimiting record per line: `KN1 <len> <crc32> <payload>\n`, len the payload's byte
 * count in decimal, crc32 its CRC-32 (IEEE) in 8 lowercase hex digits, the payload one JSON object
 * ({"k":"s"|"e"|"f", …}, no raw newline, JSON escapes them; a run start may carry "o", its owner). A torn last write (a crash mid-append)
 * fails the length or checksum test and is dropped with a warning, never mis-parsed; since the file
 * is terminated with a newline at open, later appends start on a fresh line. The parser is a trust
 * boundary (tests/unit/test_spool.c, tests/fuzz/fuzz_spool.c). */
#ifndef KEYNODE_SPOOL_H
#define KEYNODE_SPOOL_H

#include <stddef.h>
#include <stdint.h>

#include "keynode/error.h"

#define KN_SPOOL_PAYLOAD_MAX (16u * 1024u * 1024u) /* one record's payload */
#define KN_SPOOL_ID_MAX 256                          /* run ids, kinds, timestamps */

typedef enum kn_spool_kind {
	KN_SPOOL_RUN_START = 's',
	KN_SPOOL_EVENT = 'e',
	KN_SPOOL_RUN_FINISH = 'f'
} kn_spool_kind;

/* A record; the strings are owned by it (kn_spool_rec_clear). Unused fields are NULL / 0. */
typedef struct kn_spool_rec {
	kn_spool_kind kind;
	char *run_id;
	int64_t seq;          /* event: ≥ 1 */
	char *text;           /* event: the trajectory line; finish: the result JSON */
	char *ended;          /* finish */
	int64_t task_version; /* start */
	char *run_kind, *browser, *started; /* start (browser may be NULL) */
	char *owner;          /* start: the serve process running it (may be NULL) */
} kn_spool_rec;

void kn_spool_rec_clear(kn_spool_rec *rec);

/* The CRC-32 (IEEE 802.3, as zlib's crc32) of len bytes. */
uint32_t kn_spool_crc32(const void *data, size_t len);

/* The spool line of rec, newline included; *out the caller's (free), *len its length. KN_EINVAL
 * when a required field is missing or a string is not UTF-8, KN_ELIMIT past the caps. */
int kn_spool_format(char **out, size_t *len, const kn_spool_rec *rec);

/* Parse one line (len bytes, without its newline, need not be NUL-terminated). On success *out
 * holds the record (the caller clears it); otherwise KN_EINVAL (or KN_ELIMIT) with the reason in
 * err and *out left empty. Strict: header, length, checksum, JSON shape and field types. */
int kn_spool_parse(kn_spool_rec *out, const char *line, size_t len, kn_err *err);

/* ---- the spool file (dir/spool.log) --------------------------------------------------------- */

typedef struct kn_spool kn_spool;
typedef void (*kn_spool_warn_fn)(void *ud, const char *msg);

/* Open (creating dir, its parents and the file) for appending and reading, holding an exclusive
 * lock (dir/spool.lock, flock) for as long as it is open: a second process on the same directory
 * gets KN_EBUSY "… is in use by another process"; a file not ending in a newline (a
 * torn write) gets one, so the fragment is one bad line. max_bytes caps the file (0: no cap).
 * *out the caller's (kn_spool_close). KN_EIO with the reason. */
int kn_spool_open(kn_spool **out, const char *dir, uint64_t max_bytes, kn_err *err);
void kn_spool_close(kn_spool *sp);

/* Append one record with one write(2). KN_ELIMIT when the file would pass max_bytes, KN_EIO on a
 * write error (nothing half-counted: the size only grows by whole records). Not thread-safe:
 * the caller serialises appends and truncation. */
int kn_spool_append(kn_spool *sp, const kn_spool_rec *rec, kn_err *err);

/* Make the first upto bytes durable (fdatasync, only when some of them are not yet): the spool's
 * fsync policy is "on acknowledgement" — kn_ingest calls this before it tells a caller its record
 * is safe, so one fdatasync covers every record appended before it (group commit). Same caller
 * rule as kn_spool_append. */
int kn_spool_sync(kn_spool *sp, uint64_t upto, kn_err *err);

/* Bytes in the file (whole records appended so far, plus what was there at open). */
uint64_t kn_spool_size(const kn_spool *sp);

/* Read the next valid record starting at *offset, not past limit: 1 with *rec filled and *offset
 * moved past it; 0 when limit is reached. Bad lines are skipped, each reported to warn (may be
 * NULL) and counted in *skipped (may be NULL). KN_EIO on a read error. Only one reader at a time;
 * reading may run alongside appends as long as limit is a size seen after them. */
int kn_spool_next(kn_spool *sp, uint64_t *offset, uint64_t limit, kn_spool_rec *rec,
                  kn_spool_warn_fn warn, void *ud, uint64_t *skipped);

/* Empty the file (everything in it is in the database). */
int kn_spool_truncate(kn_spool *sp, kn_err *err);

#endif
