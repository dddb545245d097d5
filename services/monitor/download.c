/* download.c — Page.downloadWillBegin as a `download` event (download.h). The monitor only
 * watches: whether and where the file is saved is the agent's browser's business
 * (Browser.setDownloadBehavior, which Playwright sets for its contexts). */
#include <string.h>

#include "download.h"

int kn_download_event(kn_event *ev, json_t *params, const char *tab, const char *url)
{
	const char *file = json_string_value(json_object_get(params, "url"));
	if (!file || !*file)
		return 0;
	const char *name = json_string_value(json_object_get(params, "suggestedFilename"));
	memset(ev, 0, sizeof *ev);
	ev->type = KN_EV_DOWNLOAD;
	ev->tab = tab;
	ev->url = url;
	ev->value = file;
	ev->text = name ? name : "";
	ev->trusted = -1;
	return 1;
}
