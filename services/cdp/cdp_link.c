/* cdp_link.c — handlers for a connection whose owner only needs to know whether it is open or
 * gone (cdp.h kn_cdp_link). */
#include <stdio.h>

#include "cdp.h"

static void link_open(void *ud, kn_cdp *c)
{
	(void)c;
	((kn_cdp_link *)ud)->open = 1;
}

static void link_close(void *ud, kn_cdp *c, const char *reason)
{
	(void)c;
	kn_cdp_link *k = ud;
	k->closed = 1;
	snprintf(k->reason, sizeof k->reason, "%s", reason);
}

kn_cdp_handlers kn_cdp_link_handlers(kn_cdp_link *link)
{
	return (kn_cdp_handlers){.on_open = link_open, .on_close = link_close, .ud = link};
}
