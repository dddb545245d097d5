/* site.h — a task's own sites, and which network errors mean a site could not be reached.
 *
 * "Unreachable is not failed" (keynodes/README.md): when the main document of a page on the task's
 * own site cannot be loaded because the site does not answer (DNS, refused or reset connection,
 * timeout, TLS), the run is an infrastructure error, not the agent's failure. These two pure
 * questions decide it; the services (monitor, runner, replay) ask them of what the browser said. */
#ifndef KEYNODE_SITE_H
#define KEYNODE_SITE_H

#include "keynode/task.h"

/* Where a site a task names comes from; kn_task_sites_each gives them in this order. */
typedef enum kn_site_from {
	KN_SITE_FROM_START,   /* a start URL: host and port (the scheme's default when none is written) */
	KN_SITE_FROM_KEYNODE, /* a URL key node's reference naming a host (see kn_task_sites_each) */
	KN_SITE_FROM_PAGE,    /* a key node's page (Mind2Web-Live content.url, kn_keynode.ref_url):
	                       * its host, and its port only when written */
	KN_SITE_FROM_NETLOC   /* a URL key node's netloc: every host with that site token (url.h) */
} kn_site_from;

/* One site: host lower case without a leading "www." (for KN_SITE_FROM_NETLOC the token as
 * written), port 0 for any. A non-zero answer stops kn_task_sites_each. */
typedef int (*kn_site_cb)(void *ud, const char *host, long port, kn_site_from from);

/* The one rule of which sites a task names, for kn_task_own_site, kn_task_site and what reports
 * them (keynode validate). cb gets, in this order: the hosts of its start URLs; of its URL key
 * nodes whose reference is a place (exact, include or GOLD-in-PRED of the whole URL: not a query
 * parameter's value, a phrase or a pattern), each " |OR| " / " |AND| " reference that names a
 * host — an absolute URL, or a value without a scheme beginning with a host name
 * ("www.shop.com/cart", "127.0.0.1:8100/x": a dot in the host, a letter in its last label or a
 * dotted IPv4 address, not a page name such as "item.html"), its port only when written; the
 * host of every key node's page (any target); the netloc tokens of its URL key nodes. A site may
 * be given more than once. Returns cb's first non-zero answer, else 0 (also for a NULL task). */
int kn_task_sites_each(const kn_task *task, kn_site_cb cb, void *ud);

/* 1 when url (absolute) is on one of the sites task names (kn_task_sites_each), else 0: the same
 * host (without case and a leading "www.") and, when the site has one, the same port; a netloc
 * token matches every host whose site token it is. */
int kn_task_own_site(const kn_task *task, const char *url);

/* The site a task is reported under (per-site results, the dashboard, /api/tasks): the first
 * kn_task_sites_each gives — the host of its start URL, else of its first URL key node naming
 * one, else of its first key node's page (Mind2Web-Live's content.url), else a netloc token; lower
 * case, without "www.", without port. out gets "" when none. out has cap bytes (longer hosts are
 * cut). */
void kn_task_site(char *out, size_t cap, const kn_task *task);

/* 1 when a navigation's network error (Chromium's "net::ERR_…" text) means the site could not be
 * reached: name resolution, a refused, reset, closed, failed or timed-out connection, an address
 * unreachable, an empty response, or a TLS / certificate error. 0 for anything else (a cancelled
 * navigation, an HTTP status, a blocked request, NULL). */
int kn_net_error_unreachable(const char *error_text);

#endif
