/* url.h — URL handling with the WebCanvas rules (normalisation rules: keynodes/README.md).
 *
 * Parsing goes through libcurl's URL API (curl_url). Every function returns a fresh string the
 * caller frees with free(), or a negative KN_E* code. */
#ifndef KEYNODE_URL_H
#define KEYNODE_URL_H

#include <stddef.h>

#include "keynode/error.h"

/* Percent-decode %XX sequences (Python's urllib.parse.unquote); '+' stays '+' unless plus != 0.
 * Malformed sequences are kept as they are. *out is the caller's. */
int kn_url_unquote(char **out, const char *s, size_t len, int plus);

/* The first value of query parameter `key` in url, decoded ('+' and %XX), as Python's parse_qs
 * does. KN_ENOTFOUND when the URL has no such parameter (it then scores 0). */
int kn_url_query_param(char **out, const char *url, const char *key);

/* The WebCanvas include form: host[:port] + path + ("#" fragment), query dropped, then
 * percent-decoded. A URL curl refuses is split the way Python's urlsplit does instead (for garbage:
 * its raw text without scheme and query). */
int kn_url_include_form(char **out, const char *url);

/* The include form as WebCanvas builds it with urlparse: the same, except that ";params" after the
 * last '/' of the path are dropped for the schemes Python's urllib.parse.uses_params lists (http,
 * https, ftp, no scheme, …): "h.com/a;x=1/b;jsessionid=9" → "h.com/a;x=1/b". */
int kn_url_include_form_urlparse(char **out, const char *url);

/* The whole URL percent-decoded (the url_exactly_match input when no key is named). */
int kn_url_exact_form(char **out, const char *url);

/* The Mind2Web-Live site token of url's host[:port]: the second dot-separated label when it
 * starts with "www", else the first; "" when it has no dot. */
int kn_url_site_token(char **out, const char *url);

#endif
