/* cmd_trace.c — `keynode trace show DIR`: a run trace (services/trace) in the terminal — the steps
 * with their page, screenshot, element, console and network trouble, every key-node check, and
 * one paragraph per key node saying why it was or was not reached. `keynode trace pack DIR` writes
 * the trace as one tar archive (what the dashboard's download gives). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char help[] =
	"usage: keynode trace show DIR|DIR/index.json [--json]\n"
	"       keynode trace pack DIR [--out FILE.tar]\n"
	"\n"
	"Read a run trace written by `watch`, `run` or `replay` with --trace (layout:\n"
	"services/trace/README.md; index schema: schemas/trace.schema.json).\n"
	"\n"
	"  show   print the steps (page, HTTP status, title, screenshot, acted-on element, console\n"
	"         errors, failed requests), each key-node check (input, matcher, score) and, per key\n"
	"         node, why it was or was not reached\n"
	"  pack   write the trace folder as one tar archive (default: stdout)\n"
	"\n"
	"options:\n"
	"  --json     show: print the checked index as JSON instead of text\n"
	"  --out F    pack: write the archive to F\n"
	"\n"
	"exit: 0 shown, 1 the index is malformed (the error names the member), 2 usage error or no such\n"
	"trace\n";

int kn_cmd_trace(int argc, char **argv)
{
	static const struct option opts[] = {{"json", no_argument, NULL, 'j'},
	                                     {"out", required_argument, NULL, 'o'},
	                                     {"help", no_argument, NULL, 'h'},
	                                     {NULL, 0, NULL, 0}};
	int json = 0, c;
	const char *out = NULL;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json = 1; break;
		case 'o': out = optarg; break;
		case 'h': fputs(help, stdout); return KN_EXIT_OK;
		default: return kn_cli_usage_error("trace", "bad option");
		}
	}
	if (argc - optind != 2 || (strcmp(argv[optind], "show") != 0 && strcmp(argv[optind], "pack") != 0))
		return kn_cli_usage_error("trace", "usage: keynode trace show|pack DIR (--help)");
	const char *what = argv[optind], *dir = argv[optind + 1];
	kn_err err = {0};
	json_t *idx = NULL;
	int rc = kn_trace_load(&idx, dir, &err);
	if (rc) {
		fprintf(stderr, "keynode trace: %s\n", err.msg);
		return rc == KN_ENOTFOUND ? KN_EXIT_USAGE : KN_EXIT_FAIL;
	}
	if (strcmp(what, "pack") == 0) {
		json_decref(idx);
		FILE *f = out ? fopen(out, "wb") : stdout;
		char prefix[64];
		snprintf(prefix, sizeof prefix, "trace");
		rc = f ? kn_trace_tar(f, dir, prefix, &err) : kn_err_set(&err, KN_EIO, "cannot write %s", out);
		if (f && f != stdout && fclose(f) != 0 && !rc)
			rc = kn_err_set(&err, KN_EIO, "cannot write %s", out);
		if (rc)
			fprintf(stderr, "keynode trace: %s\n", err.msg);
		return rc ? KN_EXIT_USAGE : KN_EXIT_OK;
	}
	kn_trace_summarise(idx); /* the words of this keynode, whatever wrote the file */
	if (json)
		rc = json_dumpf(idx, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER) == 0 && putchar('\n') != EOF
		         ? 0 : KN_EIO;
	else
		rc = kn_trace_print(stdout, idx);
	json_decref(idx);
	return rc ? KN_EXIT_USAGE : KN_EXIT_OK;
}
