/* dialog_answer.c — answering the JavaScript dialog a replayed action opens (dialog_answer.h).
 * Chromium has no "is a dialog open?" command; Page.handleJavaScriptDialog fails with "No dialog
 * is showing" when none is, so it is itself the probe, sent every DIALOG_POLL_MS (it only reaches
 * a dialog on a session with the Page domain enabled). The action's own command is in flight
 * meanwhile: its reply state lives on the heap, and the reply callback frees it when we have
 * stopped waiting (the loop stopped), so a late reply never writes into a dead frame. */
#include <stdlib.h>
#include <string.h>

#include "dialog_answer.h"
#include "keynode/clock.h"

#define DIALOG_POLL_MS 50

struct pending {
	int done, abandoned;
	char error[256];
};

static void on_reply(void *ud, kn_cdp *c, json_t *result, const char *error)
{
	(void)c, (void)result;
	struct pending *p = ud;
	if (p->abandoned) {
		free(p);
		return;
	}
	p->done = 1;
	if (error)
		snprintf(p->error, sizeof p->error, "%s", error);
}

int kn_replay_dialog_answer(kn_cdp_loop *loop, kn_cdp *c, const char *session, const char *method,
                            json_t *params, const kn_step *answer, int *answered, kn_err *err)
{
	*answered = 0;
	kn_err e;
	if (kn_cdp_call(c, session, "Page.enable", NULL, NULL, &e) != 0) {
		json_decref(params);
		return kn_err_set(err, e.code, "%s", e.msg);
	}
	struct pending *p = calloc(1, sizeof *p);
	if (!p) {
		json_decref(params);
		return kn_err_set(err, KN_ENOMEM, "out of memory");
	}
	long long id = kn_cdp_send(c, session, method, params, on_reply, p);
	if (id < 0) {
		free(p);
		return kn_err_set(err, (int)id, "%s: cannot send", method);
	}
	int accept = answer->value && strcmp(answer->value, "accept") == 0;
	double late_end = 0;
	while (!kn_cdp_loop_stopped(loop)) {
		if (p->done && !late_end)
			late_end = kn_time_mono_ms() + KN_REPLAY_DIALOG_LATE_MS;
		if (*answered ? p->done : late_end && kn_time_mono_ms() > late_end)
			break;
		if (!*answered) {
			json_t *hp = json_pack("{s:b}", "accept", accept);
			if (hp && accept && answer->text)
				json_object_set_new(hp, "promptText", json_string(answer->text));
			if (kn_cdp_call(c, session, "Page.handleJavaScriptDialog", hp, NULL, &e) == 0) {
				*answered = 1;
				continue;
			}
		}
		kn_cdp_loop_run_for(loop, DIALOG_POLL_MS);
	}
	if (!p->done) { /* the loop stopped under us: the reply callback frees p */
		p->abandoned = 1;
		return kn_err_set(err, KN_EIO, "%s: the browser connection ended", method);
	}
	int rc = p->error[0] ? kn_err_set(err, KN_EPROTO, "%s: %s", method, p->error) : 0;
	free(p);
	return rc;
}
