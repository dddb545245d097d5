/* evidence.c — the words of a key-node check (evidence.h): eval.c says which node, what input
 * and what score; this file says what that means, so the evaluator stays about scoring. */
#include <string.h>

#include "keynode/evidence.h"

static int in_matched(const kn_event *e, const char *id)
{
	for (size_t i = 0; e->matched && i < e->n_matched; i++)
		if (e->matched[i] && id && strcmp(e->matched[i], id) == 0)
			return 1;
	return 0;
}

/* Why the check came out as it did, as one static sentence. */
static const char *why_of(const kn_keynode *kn, const kn_event *e, int checked, const char *input,
                          double score)
{
	if (score < 0)
		return "the semantic judge failed";
	switch (kn->target) {
	case KN_TARGET_URL:
		if (!checked)
			return "the URL did not change";
		if (!input)
			return kn->key ? "the URL has no such query parameter" : "the URL could not be read";
		return score >= 1 ? "the URL matched" : "the URL did not match";
	case KN_TARGET_ELEMENT_PATH:
		if (!kn_event_is_action(e))
			return "not an action on an element";
		if (!checked)
			return "outside the node's site";
		if (e->matched)
			return in_matched(e, kn->id) ? "the acted-on element is the node's element (live)"
			                             : "the acted-on element is not the node's element (live)";
		return score >= 1 ? "the selector matched (as text)" : "the selector differs (as text)";
	case KN_TARGET_ELEMENT_VALUE:
		if (!kn_event_is_action(e))
			return "not an action on an element";
		if (!checked)
			return kn->path ? "the acted-on element is not the node's element"
			                : "outside the node's site";
		if (!input)
			return "the action carried no value";
		return score >= 1 ? "the value matched" : "the value did not match";
	case KN_TARGET_ANSWER:
	case KN_TARGET_CACHE_DATA:
		if (!checked)
			return "not an answer";
		return score >= 1 ? "the answer matched" : "the answer did not match";
	case KN_TARGET_PAGE:
		return "read from the page when the run ends";
	case KN_TARGET_REQUEST:
		if (!checked)
			return "not a request";
		return score >= 1 ? "the request matched" : "the request did not match";
	case KN_TARGET_WEBSOCKET:
		if (!checked)
			return "not a WebSocket message";
		return score >= 1 ? "the WebSocket message matched" : "the WebSocket message did not match";
	}
	return "";
}

void kn_evidence_report(const kn_eval *ev, kn_evidence_fn fn, void *ud, size_t i,
                        const kn_event *e, int checked, const char *input, double score)
{
	const kn_keynode *kn = &kn_eval_task(ev)->keynodes[i];
	const kn_node_state *st = kn_eval_node(ev, i);
	double latched = st ? st->score : 0;
	kn_evidence x = {.node = i, .kn = kn, .e = e, .step = kn_eval_steps(ev), .checked = checked,
	                 .input = input, .page_url = kn_eval_url(ev), .score = score,
	                 .latched = score > latched ? score : latched};
	x.why = why_of(kn, e, checked, input, score);
	fn(ud, &x);
}
