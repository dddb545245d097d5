/* api_fail.c — store failures as HTTP answers (api_fail.h). */
#include "api_fail.h"

void kn_api_store_failed(kn_http_resp *resp, int rc, const kn_err *err, const char *what)
{
	const char *msg = err && err->msg[0] ? err->msg : NULL;
	switch (rc) {
	case KN_ENOTFOUND:
		kn_http_resp_error(resp, 404, "not found", what ? what : msg);
		break;
	case KN_EINVAL:
		kn_http_resp_error(resp, 400, "bad request", msg);
		break;
	case KN_EIO:
		kn_http_resp_error(resp, 503, "database unreachable", msg);
		break;
	case KN_ENOMEM:
		kn_http_resp_error(resp, 500, "out of memory", NULL);
		break;
	default:
		kn_http_resp_error(resp, 500, "database error", msg);
		break;
	}
}
