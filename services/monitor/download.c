/* download.c — Page.downloadWillBegin as a `download` event (download.h). The monitor only
 * watches: whether and where the file is saved is the agent's browser's business
 * (Browser.setDownloadBehavior, which Playwright sets for its contexts). */
#include <string.h>

#include "download.h"

int kn_download_event(json_t *params, kn_event *ev)
{
	const char *url = json_string_value(json_object_get(params, "url"));
	if (!url || !*url)
		return 0;
	const char *name = json_string_value(json_object_get(params, "suggestedFilename"));
	memset(ev, 0, sizeof *ev);
	ev->type = KN_EV_DOWNLOAD;
	ev->value = url;
	ev->text = name ? name : "";
	ev->trusted = -1;
	return 1;
}
