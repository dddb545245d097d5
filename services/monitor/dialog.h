/* dialog.h — JavaScript dialogs (alert, confirm, prompt, beforeunload) as trajectory events: the
 * monitor sees Page.javascriptDialogOpening and ...Closed on a tab's session and records, when the
 * dialog closes, one `dialog` event (information, not a step). */
#ifndef KEYNODE_MONITOR_DIALOG_H
#define KEYNODE_MONITOR_DIALOG_H

#include <jansson.h>

#include "keynode/event.h"

typedef struct kn_dialog {
	char *kind;    /* alert, confirm, prompt, beforeunload; NULL when none is open */
	char *message;
} kn_dialog;

/* Feed a Page.javascriptDialog* event of one tab. Returns 1 when *ev was filled (a dialog closed:
 * type dialog, key = its kind, text = its message, value "accepted" or "dismissed"; strings
 * borrowed from d until the next call), else 0. */
int kn_dialog_feed(kn_dialog *d, const char *method, json_t *params, kn_event *ev);
void kn_dialog_clear(kn_dialog *d);

#endif
