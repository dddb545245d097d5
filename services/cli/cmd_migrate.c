/* cmd_migrate.c — `keynode migrate --config keynode.yaml [--database URL] [--dir DIR]`: bring
 * the database schema up to date with the migrations embedded in the binary (or those of DIR),
 * each in its own transaction, safely alongside another migrator. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "store.h"

static const char help[] =
	"usage: keynode migrate [--config keynode.yaml] [--database URL] [--dir DIR]\n"
	"\n"
	"Apply the schema migrations not yet applied to the service database, in version order,\n"
	"each in one transaction (schemas/sql/README.md). Running it again is a no-op.\n"
	"\n"
	"options:\n"
	"  --config FILE    keynode.yaml: database.url (env KEYNODE_DATABASE_URL overrides it)\n"
	"  --database URL   libpq connection string or URL; overrides the config and the environment\n"
	"  --dir DIR        read NNN_name.sql migrations from DIR instead of those built in\n"
	"  --help           this text\n"
	"\n"
	"prints: \"migrate: applied N migration(s), schema version V\" or \"migrate: up to date, schema\n"
	"version V\"\n"
	"exit: 0 done, 1 a migration failed (rolled back), 2 usage error or database unreachable\n";

int kn_cmd_migrate(int argc, char **argv)
{
	static const struct option opts[] = {
		{"config", required_argument, NULL, 'c'}, {"database", required_argument, NULL, 'd'},
		{"dir", required_argument, NULL, 'D'},    {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0}};
	const char *config = NULL, *database = NULL, *dir = NULL;
	int c;
	while ((c = getopt_long(argc, argv, "c:d:D:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c': config = optarg; break;
		case 'd': database = optarg; break;
		case 'D': dir = optarg; break;
		case 'h': fputs(help, stdout); return KN_EXIT_OK;
		default: return kn_cli_usage_error("migrate", "bad option");
		}
	}
	if (optind < argc)
		return kn_cli_usage_error("migrate", "unexpected argument '%s'", argv[optind]);
	kn_err err = {0};
	kn_config *cfg = NULL;
	int rc = config ? kn_config_load(&cfg, config, &err) : kn_config_new(&cfg, &err);
	if (rc != 0) {
		fprintf(stderr, "keynode migrate: %s\n", err.msg);
		return KN_EXIT_USAGE;
	}
	const char *url = database ? database : cfg->database_url;
	if (!url || !*url) {
		kn_config_free(cfg);
		return kn_cli_usage_error("migrate", "no database: give --database, database.url in --config, "
		                          "or KEYNODE_DATABASE_URL");
	}
	kn_store *st;
	rc = kn_store_open(&st, url, &err);
	kn_config_free(cfg);
	if (rc != 0) {
		fprintf(stderr, "keynode migrate: %s\n", err.msg);
		return KN_EXIT_USAGE;
	}
	int applied = 0, version = 0;
	rc = kn_store_migrate(st, dir, &applied, &err);
	if (rc == 0)
		rc = kn_store_schema_version(st, &version, &err);
	kn_store_free(st);
	if (rc != 0) {
		fprintf(stderr, "keynode migrate: %s\n", err.msg);
		return rc == KN_EDB ? KN_EXIT_FAIL : KN_EXIT_USAGE;
	}
	if (applied)
		printf("migrate: applied %d migration(s), schema version %d\n", applied, version);
	else
		printf("migrate: up to date, schema version %d\n", version);
	return KN_EXIT_OK;
}
