/* redact.h — secrets never written in clear: passwords, card numbers, CVCs, tokens and
 * the Authorization / Cookie headers of a request are replaced by "[redacted]" in everything
 * keynode writes (trajectories, traces, the database, logs). Key nodes and guard rules see the
 * request before redaction. Rules: the built-in defaults plus keynode.yaml's `redact:` lists. */
#ifndef KEYNODE_REDACT_H
#define KEYNODE_REDACT_H

#include <stddef.h>

#include "keynode/error.h"

#define KN_REDACTED "[redacted]"

typedef struct kn_redact {
	const char *const *fields;  /* extra field-name words (lower case), beside the defaults */
	size_t n_fields;
	const char *const *headers; /* extra header names (lower case), beside the defaults */
	size_t n_headers;
	/* exact field names that are secrets here (a page's password inputs, which the monitor learns as
	 * they are typed into: a login form's `p` is no secret by its name) */
	const char *const *names;
	size_t n_names;
	int off;                    /* 1: redact nothing (keynode.yaml redact: { enabled: false }) */
} kn_redact;

/* 1 when a body field or query parameter called name, with this value, is a secret: its name holds
 * one of the words (password, passwd, pwd, secret, token, cvc, cvv, csc, cardnumber,
 * card_number, card-number, cc-number, cc_number, ccnumber, cc-num, cardno, apikey, api_key,
 * api-key, cc-csc, security_code, auth_key, and the anti-forgery nonce, csrf, xsrf, sectok;
 * case-insensitive), is one of pin, otp, ssn, csc, cc,
 * pan, pass, pass1, pass2, user_pass, or the value holds a card number
 * (13 to 19 digits, spaces or dashes between, passing the Luhn check). r NULL: the defaults. */
int kn_redact_field(const kn_redact *r, const char *name, const char *value);
/* 1 when header name (any case) is written only as [redacted]: authorization, cookie,
 * proxy-authorization, set-cookie, x-api-key, x-auth-token, x-csrf-token, x-xsrf-token, and r's. */
int kn_redact_header(const kn_redact *r, const char *name);
/* url with the values of secret query parameters (kn_redact_field) and any userinfo password
 * replaced by [redacted]; *out the caller's. Text that is no URL is returned as it is. */
int kn_redact_url(const kn_redact *r, char **out, const char *url);

#endif
