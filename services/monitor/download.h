/* download.h — downloads as trajectory events. A click on a link whose answer Chromium
 * downloads (an attachment, a type it does not render, <a download>) starts no navigation that
 * commits: the page stays. The monitor sees Page.downloadWillBegin on the tab's session and records
 * one `download` event (information, not a step: the click is the step), and forgets the link's
 * pending navigation cause so that the agent's next goto is not taken for that link's consequence. */
#ifndef KEYNODE_MONITOR_DOWNLOAD_H
#define KEYNODE_MONITOR_DOWNLOAD_H

#include <jansson.h>

#include "keynode/event.h"

/* From the params of Page.downloadWillBegin in tab (its id) showing url, fill *ev: type download,
 * value the file URL, text the suggested file name (strings borrowed from params, tab and url). 1
 * when filled, 0 when params lack a URL. */
int kn_download_event(kn_event *ev, json_t *params, const char *tab, const char *url);

#endif
