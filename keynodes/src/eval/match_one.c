/* match_one.c — kn_match_one: a one-node task fed one event, so a single comparison goes through
 * every rule a run goes through (URL forms, query decoding, case folding, the semantic judge and
 * its threshold, webcanvas fractions). */
#include <stdlib.h>
#include <string.h>

#include "keynode/match_one.h"

static char *dup_or_null(const char *s)
{
	return s && *s ? strdup(s) : NULL;
}

int kn_match_one(kn_match_result *out, const kn_match_input *in, const kn_eval_opts *opts,
                 kn_err *err)
{
	memset(out, 0, sizeof *out);
	kn_event ev = {0};
	ev.trusted = -1;
	switch (in->target) {
	case KN_TARGET_URL:
		/* an event on the page (not a navigation to it), so webcanvas mode sees it too */
		ev.type = KN_EV_SCROLL;
		ev.url = in->value;
		break;
	case KN_TARGET_ELEMENT_VALUE:
		ev.type = KN_EV_TYPE;
		ev.value = in->value;
		break;
	case KN_TARGET_ANSWER:
		ev.type = KN_EV_ANSWER;
		ev.text = in->value;
		break;
	default:
		return kn_err_set(err, KN_EINVAL, "target must be url, element_value or answer");
	}
	if (in->key && *in->key && in->target != KN_TARGET_URL)
		return kn_err_set(err, KN_EINVAL, "a key applies to the url target only");
	if ((int)in->matcher < 0 || in->matcher >= KN_MATCH_MUST_INCLUDE) /* functional ones take lists */
		return kn_err_set(err, KN_EINVAL, "matcher must be exact, include, semantic or regex");
	if (opts->defer)
		return kn_err_set(err, KN_EINVAL, "kn_match_one judges synchronously: no defer");

	kn_keynode kn = {0};
	kn_eval *eval = NULL;
	int rc;
	kn.target = in->target;
	kn.matcher = in->matcher;
	kn.id = strdup("k1");
	kn.expect = strdup(in->expect ? in->expect : "");
	kn.key = dup_or_null(in->key);
	if (!kn.id || !kn.expect || (in->key && *in->key && !kn.key)) {
		rc = kn_err_set(err, KN_ENOMEM, "out of memory");
		goto out;
	}
	kn_err perr = {0};
	if ((rc = kn_keynode_prepare(&kn, &perr)) != 0) {
		kn_err_set(err, rc, "expect: %s", perr.msg);
		goto out;
	}
	char task_id[] = "match";
	kn_task task = {.id = task_id, .keynodes = &kn, .n_keynodes = 1};
	if (kn_eval_new(&eval, &task, opts) != 0) {
		rc = kn_err_set(err, KN_ENOMEM, "out of memory");
		goto out;
	}
	rc = kn_eval_feed(eval, &ev, err);
	if (rc < 0) {
		out->judge_failed = rc != KN_ENOMEM;
		goto out;
	}
	rc = 0;
	out->score = kn_eval_node(eval, 0)->score;
	out->match = out->score >= 1.0 || (opts->mode == KN_MODE_WEBCANVAS && out->score > 0);
out:
	kn_eval_free(eval);
	kn_keynode_clear(&kn);
	return rc;
}
