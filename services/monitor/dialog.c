/* dialog.c — JavaScript dialogs as trajectory events (dialog.h). The monitor never answers a dialog:
 * the agent does (Playwright dismisses one nobody handles); we record what it decided. */
#include <stdlib.h>
#include <string.h>

#include "dialog.h"

void kn_dialog_clear(kn_dialog *d)
{
	free(d->kind);
	free(d->message);
	d->kind = d->message = NULL;
}

static char *dup_or_null(json_t *v)
{
	return json_is_string(v) ? strdup(json_string_value(v)) : NULL;
}

int kn_dialog_feed(kn_dialog *d, const char *method, json_t *params, kn_event *ev)
{
	if (strcmp(method, "Page.javascriptDialogOpening") == 0) {
		kn_dialog_clear(d);
		d->kind = dup_or_null(json_object_get(params, "type"));
		d->message = dup_or_null(json_object_get(params, "message"));
		return 0;
	}
	if (strcmp(method, "Page.javascriptDialogClosed") != 0 || !d->kind)
		return 0;
	memset(ev, 0, sizeof *ev);
	ev->type = KN_EV_DIALOG;
	ev->key = d->kind;
	ev->text = d->message ? d->message : "";
	ev->value = json_is_true(json_object_get(params, "result")) ? "accepted" : "dismissed";
	ev->trusted = -1;
	return 1;
}
