/* cmd_match.c — `keynode match`: apply one matcher to one value, through the same evaluator that
 * scores runs (a one-node task fed one event), so the answer is exactly what a run would get. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "keynode/match_one.h"

static const char help[] =
	"usage: keynode match --target url|element_value|answer --matcher exact|include|semantic|regex\n"
	"                     --expect TEXT [--key PARAM] --value TEXT [--mode default|webcanvas]\n"
	"                     [--threshold X] [--semantic offline|llm --llm-url URL --llm-model NAME …]\n"
	"\n"
	"Prints {\"score\": x, \"match\": bool} for one comparison, with the rules of a real run:\n"
	"  url            --value is a URL; with --key, that query parameter's first value (decoded);\n"
	"                 else include/semantic see host+path+#fragment, exact the whole URL (decoded)\n"
	"  element_value  --value is the typed value or clicked text (case-sensitive)\n"
	"  answer         --value is the agent's answer (exact/include compare lower-cased)\n"
	"Semantic uses the offline judge unless --semantic llm; in default mode it matches at\n"
	"--threshold (0.7), in webcanvas mode any score above 0 counts.\n"
	"\n"
	KN_CLI_SEMANTIC_HELP
	"\n"
	"exit: 0 match, 1 no match, 2 usage error or the judge failed (LLM unreachable, timed out,\n"
	"malformed answer)\n";

int kn_cmd_match(int argc, char **argv)
{
	static const struct option opts[] = {
		{"target", required_argument, NULL, 't'}, {"matcher", required_argument, NULL, 'm'},
		{"expect", required_argument, NULL, 'e'}, {"key", required_argument, NULL, 'k'},
		{"value", required_argument, NULL, 'v'},  {"mode", required_argument, NULL, 'M'},
		{"threshold", required_argument, NULL, 'T'}, {"help", no_argument, NULL, 'h'},
		KN_CLI_SEMANTIC_LONGOPTS, {NULL, 0, NULL, 0}};
	const char *target = NULL, *matcher = NULL, *expect = NULL, *key = NULL, *value = NULL;
	kn_eval_opts eo = {0};
	eo.step_limit = -1;
	kn_cli_semantic so = {0};
	int c, r;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 't': target = optarg; break;
		case 'm': matcher = optarg; break;
		case 'e': expect = optarg; break;
		case 'k': key = optarg; break;
		case 'v': value = optarg; break;
		case 'M':
			if (kn_cli_parse_mode(&eo, optarg))
				return kn_cli_usage_error("match", "--mode must be default or webcanvas");
			break;
		case 'T':
			if (kn_cli_parse_threshold(&eo, optarg))
				return kn_cli_usage_error("match", "--threshold must be in (0, 1]");
			break;
		case 'h': fputs(help, stdout); return KN_EXIT_OK;
		default:
			if ((r = kn_cli_semantic_option(&so, "match", c, optarg)) > 0)
				break;
			return r < 0 ? KN_EXIT_USAGE : kn_cli_usage_error("match", "bad option");
		}
	}
	if (!target || !matcher || !expect || !value)
		return kn_cli_usage_error("match", "--target, --matcher, --expect and --value are required");
	if (optind < argc)
		return kn_cli_usage_error("match", "unexpected argument '%s'", argv[optind]);

	kn_match_input in = {.expect = expect, .key = key, .value = value};
	if (strcmp(target, "url") == 0)
		in.target = KN_TARGET_URL;
	else if (strcmp(target, "element_value") == 0)
		in.target = KN_TARGET_ELEMENT_VALUE;
	else if (strcmp(target, "answer") == 0)
		in.target = KN_TARGET_ANSWER;
	else
		return kn_cli_usage_error("match", "--target must be url, element_value or answer");
	if (key && in.target != KN_TARGET_URL)
		return kn_cli_usage_error("match", "--key applies to --target url only");
	int m = kn_matcher_from_name(matcher, strlen(matcher));
	if (m < 0 || m >= KN_MATCH_MUST_INCLUDE) /* the functional matchers take lists: not here */
		return kn_cli_usage_error("match", "--matcher must be exact, include, semantic or regex");
	in.matcher = (kn_matcher)m;
	if (kn_cli_semantic_open(&so, "match", &eo) != KN_EXIT_OK)
		return KN_EXIT_USAGE;

	int rc = KN_EXIT_USAGE;
	kn_err err = {0};
	kn_match_result res;
	if (kn_match_one(&res, &in, &eo, &err) != 0) {
		/* a bad --expect is the reference's fault, a failed judgement the judge's: both exit 2 */
		fprintf(stderr, "keynode match: %s%s\n", res.judge_failed || err.code == KN_ENOMEM ? "" : "--",
		        err.msg[0] ? err.msg : "out of memory");
	} else {
		printf("{\"score\": %.2f, \"match\": %s}\n", res.score, res.match ? "true" : "false");
		rc = res.match ? KN_EXIT_OK : KN_EXIT_FAIL;
	}
	kn_cli_semantic_close(&so);
	return rc;
}
