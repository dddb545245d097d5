/* error.h — keynode's single error vocabulary.
 *
 * Every fallible function returns int: 0 on success, a negative KN_E* code otherwise.
 * kn_strerror() turns a code into words; an optional kn_err out-parameter carries the detail
 * ("tasks.yaml:14:7: key node 'k2': unknown matcher 'fuzzy"). The core never prints. */
#ifndef KEYNODE_ERROR_H
#define KEYNODE_ERROR_H

#include <stddef.h>

enum {
	KN_OK = 0,
	KN_ENOMEM = -1,    /* allocation failed */
	KN_EINVAL = -2,    /* malformed input or bad argument */
	KN_ENOTFOUND = -3, /* no such task, key, file */
	KN_EIO = -4,       /* read/write failed */
	KN_EPROTO = -5,    /* a peer spoke the protocol wrongly */
	KN_EDB = -6,       /* database error */
	KN_ETIMEOUT = -7,  /* an operation ran out of time */
	KN_ELIMIT = -8,    /* input exceeds a configured cap */
	KN_EUNSUPPORTED = -9, /* a construct keynode knows but cannot do */
	KN_EBUSY = -10       /* held by another process (a lock) */
};

#define KN_ERR_MAX 512

/* Detail of the last error: code and a one-line message, file:line:col first where known. */
typedef struct kn_err {
	int code;
	char msg[KN_ERR_MAX];
} kn_err;

/* Marks a printf-like function for the compiler's format checks: KN_PRINTF(format's argument
 * number, first variadic argument's number). The one spelling of the attribute in keynode. */
#if defined(__GNUC__)
#define KN_PRINTF(fmt, first) __attribute__((format(printf, fmt, first)))
#else
#define KN_PRINTF(fmt, first)
#endif

/* Words for a KN_E* code; never NULL, static storage. */
const char *kn_strerror(int code);

/* Fill err (may be NULL) with code and a printf-style message; returns code, so callers can
 * `return kn_err_set(err, KN_EINVAL, "...")`. */
int kn_err_set(kn_err *err, int code, const char *fmt, ...) KN_PRINTF(3, 4);

#endif
