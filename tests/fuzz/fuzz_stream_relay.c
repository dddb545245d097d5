/* fuzz_stream_relay.c — the relayed live feed's NOTIFY payload (services/http/stream_relay.h) on
 * arbitrary bytes, and the X-Kn-Forwarded check (request.h kn_http_hop_ok) on the same text: a
 * payload comes from the database, where any client may NOTIFY. Every call must return cleanly;
 * whatever is accepted must hold the contract (a sender id X-Kn-Forwarded takes, a run id of the
 * alphabet, a message that is a JSON object of that run), and formatting the parsed parts again
 * must parse back to the same parts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "request.h"
#include "stream_relay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (kn_http_hop_ok(s) && (strlen(s) > KN_HTTP_MAX_HOP || strpbrk(s, " ,:\r\n")))
		abort();
	kn_relay_msg m;
	kn_err err;
	if (kn_relay_parse(&m, s, &err) == 0) {
		if (!kn_http_hop_ok(m.from) || !*m.run || strpbrk(m.run, " \n/") ||
		    m.msg < s || m.msg > s + strlen(s))
			abort();
		json_t *j = json_loads(m.msg, 0, NULL);
		if (!json_is_object(j) || strcmp(json_string_value(json_object_get(j, "run")), m.run) != 0)
			abort();
		json_decref(j);
		char *again = NULL;
		kn_relay_msg m2;
		if (kn_relay_format(&again, m.from, m.n, m.run, m.msg, &err) == 0) {
			if (kn_relay_parse(&m2, again, &err) != 0 || strcmp(m2.from, m.from) != 0 ||
			    strcmp(m2.run, m.run) != 0 || m2.n != m.n || strcmp(m2.msg, m.msg) != 0)
				abort();
			free(again);
		}
	}
	free(s);
	return 0;
}
