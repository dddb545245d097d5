/* cron.h — standard 5-field cron expressions (minute hour day-of-month month day-of-week), parsed
 * into bit sets and evaluated in UTC: the next fire time after a given time, and the latest one at or
 * before it (the scheduler's catch-up). Lists (1,5), ranges (1-5), steps (star/15, 1-30/5, 5/15 =
 * 5-max/15), names for months (jan-dec) and days (sun-sat, case-insensitive), day-of-week 7 = Sunday,
 * and the macros @yearly @annually @monthly @weekly @daily @midnight @hourly. Day matching follows
 * Vixie cron: when either day field starts with '*', both must match; when both are restricted, a day
 * matching either fires. Pure: no clock, no time zone, no allocation. */
#ifndef KEYNODE_CRON_H
#define KEYNODE_CRON_H

#include <stdint.h>

#include "keynode/error.h"

#define KN_CRON_MAX_LEN 256 /* a longer expression fails with KN_ELIMIT */

typedef struct kn_cron {
	uint64_t minute; /* bit m: minute m, 0-59 */
	uint32_t hour;   /* bit h: 0-23 */
	uint32_t dom;    /* bit d: day of month 1-31 */
	uint16_t month;  /* bit m: 1-12 */
	uint8_t dow;     /* bit d: 0-6, Sunday 0 (7 folded into 0) */
	uint8_t dom_star, dow_star; /* the field started with '*' (Vixie rule) */
} kn_cron;

/* Parse expr into *out. KN_EINVAL with a message naming the field, e.g.
 * "cron: field 2 (hour): 25 out of range 0-23"; KN_ELIMIT past KN_CRON_MAX_LEN; KN_EUNSUPPORTED
 * for @reboot. *out is untouched on failure. */
int kn_cron_parse(kn_cron *out, const char *expr, kn_err *err);

/* Whether expr is a cron expression kn_cron_parse accepts, compiling nothing: 0, or its code with
 * err->msg the problem alone, without the "cron: " prefix ("field 2 (hour): 25 out of range
 * 0-23"), for a caller that names the value itself. This is what a reader of stored cron text (the
 * config loader, so that a bad schedule fails at load with its file:line) needs from this module;
 * the scheduler compiles the text with kn_cron_parse when it starts. */
int kn_cron_check(const char *expr, kn_err *err);

/* The first fire time strictly after `after` (Unix seconds, UTC; fires are on whole minutes) into
 * *out. KN_ENOTFOUND when the expression never fires (e.g. "0 0 30 2 *") within 400 years. */
int kn_cron_next(const kn_cron *c, int64_t after, int64_t *out, kn_err *err);

/* The latest fire time at or before `at` into *out; KN_ENOTFOUND as for kn_cron_next. */
int kn_cron_prev(const kn_cron *c, int64_t at, int64_t *out, kn_err *err);

#endif
