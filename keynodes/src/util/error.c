/* error.c — words for keynode's error codes and the kn_err detail buffer. */
#include <stdarg.h>
#include <stdio.h>

#include "keynode/error.h"

const char *kn_strerror(int code)
{
	switch (code) {
	case KN_OK: return "success";
	case KN_ENOMEM: return "out of memory";
	case KN_EINVAL: return "invalid input";
	case KN_ENOTFOUND: return "not found";
	case KN_EIO: return "input/output error";
	case KN_EPROTO: return "protocol error";
	case KN_EDB: return "database error";
	case KN_ETIMEOUT: return "timed out";
	case KN_ELIMIT: return "limit exceeded";
	case KN_EUNSUPPORTED: return "not supported";
	case KN_EBUSY: return "in use by another process";
	default: return "unknown error";
	}
}

int kn_err_set(kn_err *err, int code, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		err->code = code;
		vsnprintf(err->msg, sizeof err->msg, fmt, ap);
		va_end(ap);
	}
	return code;
}
