/* dialog_answer.h — replay answering JavaScript dialogs. A workflow writes the answer to
 * the dialog a step opens as the step after it: `- click: {selector: "#delete"}` then
 * `- dialog: accept` (or dismiss, or `{answer: accept, text: "trip"}` for a prompt), the way the
 * trajectory records a click followed by its `dialog` event. While a dialog is open the page's
 * script is stopped and the input command that opened it gets no reply, so the replayer sends
 * that command without waiting and answers the dialog (Page.handleJavaScriptDialog) meanwhile. */
#ifndef KEYNODE_REPLAY_DIALOG_ANSWER_H
#define KEYNODE_REPLAY_DIALOG_ANSWER_H

#include <jansson.h>

#include "cdp.h"
#include "keynode/task.h"

/* How long, after the command's reply, a dialog the action opens later (a timer) is waited for. */
#define KN_REPLAY_DIALOG_LATE_MS 1000

/* Send method(params) (stolen) on session and, until its reply and KN_REPLAY_DIALOG_LATE_MS after,
 * answer the first JavaScript dialog that opens as `answer` (a KN_STEP_DIALOG step) says. Sets
 * *answered to 1 when a dialog was answered. 0, or the command's error (err says it). Not from a
 * loop callback. */
int kn_replay_dialog_answer(kn_cdp_loop *loop, kn_cdp *c, const char *session, const char *method,
                            json_t *params, const kn_step *answer, int *answered, kn_err *err);

#endif
