/* stream_relay.h — the wire form of a stream message one serve relays to the others
 * (services/runs/README.md "Several serves"): the serve that runs a run sends each of the
 * run's stream messages as a PostgreSQL NOTIFY payload, and every serve publishes the ones of
 * other serves to its own /api/stream subscribers. Pure: formatting and parsing only.
 *
 *   FROM SP N SP RUN LF MESSAGE
 *
 * FROM the sending serve's owner id (request.h kn_http_hop_ok's alphabet), N its message counter
 * (decimal, so equal messages stay distinct: PostgreSQL folds equal notifications of one
 * transaction), RUN the run id ([A-Za-z0-9._-], < 64 bytes), MESSAGE the message's JSON object
 * text (its "run" member is RUN). The whole is at most KN_RELAY_MAX bytes. */
#ifndef KEYNODE_HTTP_STREAM_RELAY_H
#define KEYNODE_HTTP_STREAM_RELAY_H

#include <stddef.h>

#include "keynode/error.h"

#define KN_RELAY_MAX 7999 /* PostgreSQL's NOTIFY payload limit */
#define KN_RELAY_RUN_MAX 63

typedef struct kn_relay_msg {
	char from[160];
	char run[KN_RELAY_RUN_MAX + 1];
	unsigned long long n;
	const char *msg; /* points into the parsed payload */
} kn_relay_msg;

/* The payload of msg (JSON text) into *out (the caller's). KN_ELIMIT when it would pass
 * KN_RELAY_MAX, KN_EINVAL for a from or run outside their alphabets. */
int kn_relay_format(char **out, const char *from, unsigned long long n, const char *run,
                    const char *msg, kn_err *err);
/* Parse payload; out->msg points into it. KN_EINVAL (err says what) for anything but the form
 * above: a bad from, counter or run, no LF, a message that is not a JSON object whose "run" is
 * RUN and whose "type" is a string, or more than KN_RELAY_MAX bytes. */
int kn_relay_parse(kn_relay_msg *out, const char *payload, kn_err *err);

#endif
