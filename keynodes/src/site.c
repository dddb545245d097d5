/* site.c — a task's own sites and the network errors that mean "unreachable" (site.h).
 *
 * An absolute URL is split by libcurl's URL API (as url.c does); a key node value without a
 * scheme (the WebCanvas include form, "host[:port]/path") is read by hand, and only when its first
 * segment is shaped like a host name, so a relative value such as "item.html?id=7" or "/cart" names
 * no site. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>

#include "keynode/site.h"
#include "keynode/url.h"

#define HOST_MAX 256

/* A site: host (lower case, without "www.") and port (0: any). */
typedef struct site {
	char host[HOST_MAX];
	long port;
} site;

static void set_host(site *s, const char *h, size_t n)
{
	if (n >= 4 && strncasecmp(h, "www.", 4) == 0)
		h += 4, n -= 4;
	if (n >= sizeof s->host)
		n = sizeof s->host - 1;
	for (size_t i = 0; i < n; i++)
		s->host[i] = (char)tolower((unsigned char)h[i]);
	s->host[n] = '\0';
}

/* The site of an absolute URL. Its port: with CURLU_DEFAULT_PORT in port_flags the scheme's default
 * when none is written, with 0 only a written one (else 0, any). */
static int site_of_url(site *s, const char *url, unsigned port_flags)
{
	CURLU *h = curl_url();
	char *host = NULL, *port = NULL;
	int ok = h && curl_url_set(h, CURLUPART_URL, url, CURLU_NON_SUPPORT_SCHEME) == CURLUE_OK &&
	         curl_url_get(h, CURLUPART_HOST, &host, 0) == CURLUE_OK && host && *host;
	if (ok) {
		set_host(s, host, strlen(host));
		s->port = curl_url_get(h, CURLUPART_PORT, &port, port_flags) == CURLUE_OK && port
		          ? strtol(port, NULL, 10) : 0;
	}
	curl_free(host);
	curl_free(port);
	curl_url_cleanup(h);
	return ok;
}

/* A page name ("item.html") is not a host name. */
static int page_suffix(const char *seg, size_t n)
{
	static const char *const ext[] = {".html", ".htm", ".php", ".asp", ".aspx", ".jsp", ".cgi"};
	for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++) {
		size_t k = strlen(ext[i]);
		if (n > k && strncasecmp(seg + n - k, ext[i], k) == 0)
			return 1;
	}
	return 0;
}

/* The site a key node value names: an absolute URL's, or a leading "host[:port]" of a value
 * without a scheme (a dot in the host, a letter in its last label, not a page name). */
static int site_of_value(site *s, const char *v)
{
	if (strstr(v, "://"))
		return site_of_url(s, v, CURLU_DEFAULT_PORT);
	size_t n = strcspn(v, "/?#"), hn = strcspn(v, ":/?#");
	if (hn == 0 || hn >= HOST_MAX || page_suffix(v, hn))
		return 0;
	const char *dot = NULL;
	for (size_t i = 0; i < hn; i++) {
		if (!isalnum((unsigned char)v[i]) && v[i] != '-' && v[i] != '.')
			return 0;
		if (v[i] == '.')
			dot = v + i;
	}
	if (!dot || dot == v || dot == v + hn - 1)
		return 0;
	int ip = 1; /* a dotted IPv4 address, or a last label with a letter */
	for (size_t i = 0; i < hn; i++)
		ip &= isdigit((unsigned char)v[i]) || v[i] == '.';
	int letter = 0;
	for (const char *p = dot + 1; p < v + hn; p++)
		letter |= isalpha((unsigned char)*p) != 0;
	if (!ip && !letter)
		return 0;
	s->port = 0;
	if (hn < n) { /* ":port" */
		char *end = NULL;
		long port = strtol(v + hn + 1, &end, 10);
		if (end != v + n || port <= 0 || port > 65535)
			return 0;
		s->port = port;
	}
	set_host(s, v, hn);
	return 1;
}

/* The site of a key node's page (Mind2Web-Live content.url): its host, and its port only when
 * written — the page says where the node was seen, not which scheme or port an agent will use. */
static int site_of_page(site *s, const char *url)
{
	return strstr(url, "://") ? site_of_url(s, url, 0) : site_of_value(s, url);
}

/* A URL key node whose reference is a place: exact or include (and WebArena's GOLD in PRED) of a
 * whole URL, not a query parameter's value (`key`), a phrase (semantic) or a pattern (regex). */
static int reference_is_place(const kn_keynode *k)
{
	return k->target == KN_TARGET_URL && !k->key && k->expect &&
	       (k->matcher == KN_MATCH_EXACT || k->matcher == KN_MATCH_INCLUDE ||
	        k->matcher == KN_MATCH_GOLD_IN_PRED);
}

/* Each reference of a value that may list several joined by " |OR| " or " |AND| " naming a site
 * is given to cb; stops at cb's first non-zero answer and returns it. */
static int each_reference(const char *value, kn_site_cb cb, void *ud)
{
	char buf[2048];
	for (const char *p = value; p && *p;) {
		const char *or = strstr(p, " |OR| "), *and = strstr(p, " |AND| ");
		const char *end = or && (!and || or < and) ? or : and;
		size_t n = end ? (size_t)(end - p) : strlen(p);
		site s;
		if (n < sizeof buf) {
			memcpy(buf, p, n);
			buf[n] = '\0';
			int rc = site_of_value(&s, buf) ? cb(ud, s.host, s.port, KN_SITE_FROM_KEYNODE) : 0;
			if (rc)
				return rc;
		}
		p = end ? end + (end == or ? 6 : 7) : NULL;
	}
	return 0;
}

int kn_task_sites_each(const kn_task *task, kn_site_cb cb, void *ud)
{
	site s;
	int rc = 0;
	if (!task)
		return 0;
	for (size_t i = 0; i <= task->n_more_start_urls; i++) {
		const char *start = i ? task->more_start_urls[i - 1] : task->start_url;
		if (start && site_of_url(&s, start, CURLU_DEFAULT_PORT) &&
		    (rc = cb(ud, s.host, s.port, KN_SITE_FROM_START)))
			return rc;
	}
	for (size_t i = 0; i < task->n_keynodes; i++)
		if (reference_is_place(&task->keynodes[i]) &&
		    (rc = each_reference(task->keynodes[i].expect, cb, ud)))
			return rc;
	for (size_t i = 0; i < task->n_keynodes; i++) {
		const char *page = task->keynodes[i].ref_url;
		if (page && *page && site_of_page(&s, page) &&
		    (rc = cb(ud, s.host, s.port, KN_SITE_FROM_PAGE)))
			return rc;
	}
	for (size_t i = 0; i < task->n_keynodes; i++) {
		const kn_keynode *k = &task->keynodes[i];
		if (k->target == KN_TARGET_URL && k->netloc && *k->netloc &&
		    (rc = cb(ud, k->netloc, 0, KN_SITE_FROM_NETLOC)))
			return rc;
	}
	return 0;
}

/* kn_task_own_site's question to each site: is it the page's? */
struct own_q {
	site page;
	const char *url;
	char *token; /* the page's site token, read when a netloc asks first */
	int token_read;
};

static int own_site_cb(void *ud, const char *host, long port, kn_site_from from)
{
	struct own_q *q = ud;
	if (from != KN_SITE_FROM_NETLOC)
		return strcmp(host, q->page.host) == 0 && (!port || port == q->page.port);
	if (!q->token_read) {
		q->token_read = 1;
		if (kn_url_site_token(&q->token, q->url) != 0)
			q->token = NULL;
	}
	return q->token && *q->token && strcasecmp(q->token, host) == 0;
}

int kn_task_own_site(const kn_task *task, const char *url)
{
	struct own_q q = {.url = url};
	if (!task || !url || !site_of_url(&q.page, url, CURLU_DEFAULT_PORT))
		return 0;
	int own = kn_task_sites_each(task, own_site_cb, &q);
	free(q.token);
	return own;
}

/* kn_task_site's buffer: the first site given is the one (hosts come before netloc tokens). */
struct first_q {
	char *out;
	size_t cap;
};

static int first_site_cb(void *ud, const char *host, long port, kn_site_from from)
{
	(void)port, (void)from;
	struct first_q *q = ud;
	snprintf(q->out, q->cap, "%s", host);
	return 1;
}

void kn_task_site(char *out, size_t cap, const kn_task *task)
{
	if (!cap)
		return;
	out[0] = '\0';
	struct first_q q = {out, cap};
	kn_task_sites_each(task, first_site_cb, &q);
}

int kn_net_error_unreachable(const char *error_text)
{
	static const char *const codes[] = {
		"ERR_NAME_NOT_RESOLVED",  "ERR_NAME_RESOLUTION_FAILED", "ERR_CONNECTION_REFUSED",
		"ERR_CONNECTION_RESET",   "ERR_CONNECTION_CLOSED",      "ERR_CONNECTION_FAILED",
		"ERR_CONNECTION_TIMED_OUT", "ERR_TIMED_OUT",            "ERR_ADDRESS_UNREACHABLE",
		"ERR_ADDRESS_INVALID",    "ERR_INTERNET_DISCONNECTED",  "ERR_EMPTY_RESPONSE",
		"ERR_SSL_",               "ERR_CERT_",                  "ERR_BAD_SSL_CLIENT_AUTH_CERT"};
	for (size_t i = 0; error_text && i < sizeof codes / sizeof codes[0]; i++)
		if (strstr(error_text, codes[i]))
			return 1;
	return 0;
}
