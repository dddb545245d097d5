/* cli.h — the `keynode` command line: one function per subcommand, sharing option helpers.
 * Exit codes (INTERFACES.md §4): 0 success, 1 the checked thing failed, 2 usage/environment. */
#ifndef KEYNODE_CLI_H
#define KEYNODE_CLI_H

#include "keynode/eval.h"

enum { KN_EXIT_OK = 0, KN_EXIT_FAIL = 1, KN_EXIT_USAGE = 2 };

int kn_cmd_validate(int argc, char **argv);
int kn_cmd_match(int argc, char **argv);
int kn_cmd_score(int argc, char **argv);
int kn_cmd_sites(int argc, char **argv);
int kn_cmd_watch(int argc, char **argv);
int kn_cmd_replay(int argc, char **argv);

/* Print "keynode CMD: message" to stderr and return KN_EXIT_USAGE. */
int kn_cli_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

/* Parse --mode / --threshold / --step-limit values into opts; 0 or -1 on a bad value. */
int kn_cli_parse_mode(kn_eval_opts *opts, const char *mode);
int kn_cli_parse_threshold(kn_eval_opts *opts, const char *text);
int kn_cli_parse_int(int *out, const char *text);

#endif
