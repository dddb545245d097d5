/* site.h — a task's own sites, and which network errors mean a site could not be reached.
 *
 * "Unreachable is not failed" (keynodes/README.md): when the main document of a page on the task's
 * own site cannot be loaded because the site does not answer (DNS, refused or reset connection,
 * timeout, TLS), the run is an infrastructure error, not the agent's failure. These two pure
 * questions decide it; the services (monitor, runner, replay) ask them of what the browser said. */
#ifndef KEYNODE_SITE_H
#define KEYNODE_SITE_H

#include "keynode/task.h"

/* 1 when url (absolute) is on one of task's own sites, else 0. The sites are the hosts of its start
 * URLs and of its URL key nodes' values: an absolute URL gives host and port (the scheme's default
 * when none is written); a value without a scheme that begins with a host name ("www.shop.com/cart",
 * "127.0.0.1:8100/x") gives that host, and its port only when written. A URL key node's `netloc`
 * (the Mind2Web-Live site token) makes every host with that token one of the sites. Hosts compare
 * without case and without a leading "www.". */
int kn_task_own_site(const kn_task *task, const char *url);

/* The site a task is reported under (per-site results): the host of its start URL, else the host
 * its first URL key node names (an absolute URL, or a value beginning "host[:port]/"; a key node
 * naming none is passed over), else that key node's `netloc` token; lower case, without "www.",
 * without port. out gets "" when none. out has cap bytes (longer hosts are cut). */
void kn_task_site(char *out, size_t cap, const kn_task *task);

/* 1 when a navigation's network error (Chromium's "net::ERR_…" text) means the site could not be
 * reached: name resolution, a refused, reset, closed, failed or timed-out connection, an address
 * unreachable, an empty response, or a TLS / certificate error. 0 for anything else (a cancelled
 * navigation, an HTTP status, a blocked request, NULL). */
int kn_net_error_unreachable(const char *error_text);

#endif
