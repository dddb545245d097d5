/* stream_relay.c — the NOTIFY payload of a relayed stream message (stream_relay.h). */
#define _GNU_SOURCE /* asprintf */
#include "stream_relay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "request.h"

static const char id_chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-";

static int run_ok(const char *s, size_t n)
{
	return n > 0 && n <= KN_RELAY_RUN_MAX && strspn(s, id_chars) >= n;
}

int kn_relay_format(char **out, const char *from, unsigned long long n, const char *run,
                    const char *msg, kn_err *err)
{
	*out = NULL;
	if (!kn_http_hop_ok(from) || !run || !run_ok(run, strlen(run)) || !msg)
		return kn_err_set(err, KN_EINVAL, "relay: bad sender or run id");
	size_t len = strlen(from) + strlen(run) + strlen(msg) + 24;
	if (len > KN_RELAY_MAX + 24 || strlen(msg) > KN_RELAY_MAX)
		return kn_err_set(err, KN_ELIMIT, "relay: message too large");
	char *p = NULL;
	int k = asprintf(&p, "%s %llu %s\n%s", from, n, run, msg);
	if (k < 0)
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	if ((size_t)k > KN_RELAY_MAX) {
		free(p);
		return kn_err_set(err, KN_ELIMIT, "relay: message too large");
	}
	*out = p;
	return 0;
}

int kn_relay_parse(kn_relay_msg *out, const char *payload, kn_err *err)
{
	memset(out, 0, sizeof *out);
	if (!payload || strlen(payload) > KN_RELAY_MAX)
		return kn_err_set(err, KN_EINVAL, "relay: no payload, or too long");
	const char *p = payload;
	size_t n = strspn(p, id_chars);
	if (n == 0 || n > KN_HTTP_MAX_HOP || p[n] != ' ')
		return kn_err_set(err, KN_EINVAL, "relay: bad sender");
	memcpy(out->from, p, n);
	p += n + 1;
	n = strspn(p, "0123456789");
	if (n == 0 || n > 20 || p[n] != ' ')
		return kn_err_set(err, KN_EINVAL, "relay: bad counter");
	out->n = strtoull(p, NULL, 10);
	p += n + 1;
	n = strspn(p, id_chars);
	if (!run_ok(p, n) || p[n] != '\n')
		return kn_err_set(err, KN_EINVAL, "relay: bad run id");
	memcpy(out->run, p, n);
	p += n + 1;
	json_error_t je;
	json_t *j = json_loads(p, JSON_REJECT_DUPLICATES, &je);
	const char *run = json_string_value(json_object_get(j, "run"));
	int ok = json_is_object(j) && run && strcmp(run, out->run) == 0 &&
	         json_is_string(json_object_get(j, "type"));
	json_decref(j);
	if (!ok)
		return kn_err_set(err, KN_EINVAL, "relay: the message is not a stream message of run %s",
		                  out->run);
	out->msg = p;
	return 0;
}
