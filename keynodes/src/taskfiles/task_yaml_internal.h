/* task_yaml_internal.h — what the files of the YAML task-file loader share (task_yaml.c and its
 * task_yaml_*.c parts): the loader state, the event as the schema parser sees it, and the helpers
 * each part provides. Not a public header: only keynodes/src/taskfiles/task_yaml*.c include it; the public
 * entry point is kn_task_load_yaml in keynode/task.h. The parts are task_yaml_events.c (libyaml
 * events with positions, pass 1, anchors replayed, typed value readers), task_yaml_errors.c (error
 * messages), task_yaml.c (task files: tasks and key nodes), task_yaml_steps.c (steps, locators,
 * `after:` postconditions and workflow files) and task_yaml_purchase.c (`purchase:`). */
#ifndef KEYNODE_TASK_YAML_INTERNAL_H
#define KEYNODE_TASK_YAML_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <yaml.h>

#include "keynode/error.h"
#include "keynode/purchase.h"
#include "keynode/task.h"
#include "keynode/yaml_reader.h"

#define NO_DEF SIZE_MAX
#define CORE_TAG "tag:yaml.org,2002:"

/* What a scalar resolves to under the YAML 1.2 core schema (or its explicit core tag). */
enum { SK_NULL, SK_BOOL, SK_INT, SK_FLOAT, SK_STR };

typedef struct pos {
	int line, col; /* 1-based */
} pos;

/* One event as the schema parser sees it. val (scalars only) is NUL-terminated and valid until the
 * next kn_ty_next_event() call; positions are copied by value. */
typedef struct yev {
	yaml_event_type_t type;
	pos at;
	const char *val;
	size_t len;
	int kind;
} yev;

/* A recorded event; own is the text it owns (NULL when it shares an earlier entry's text). */
typedef struct logent {
	yev ev;
	char *own;
} logent;

/* A small open-addressing map from borrowed C strings to indexes. */
typedef struct strmap {
	const char **keys;
	size_t *vals;
	size_t cap, n;
} strmap;

typedef struct openanchor {
	size_t def;   /* index of the anchored node in document order */
	int depth;    /* depth just inside it */
	size_t total; /* pass 1: nodes counted before it */
	char *name;   /* pass 1: the anchor's name, owned until registered */
} openanchor;

typedef struct loader {
	const char *name;
	const unsigned char *buf;
	size_t len;
	kn_err *err;
	int max_depth;
	size_t max_alias;

	/* Pass 1 results: anchored nodes in order, and for each alias event the node it names. */
	size_t ndefs;
	size_t *alias_def;
	size_t nalias, cap_alias;

	/* Pass 2 event source: rd's current event backs the scalar text handed out. */
	kn_yaml_reader rd;
	int parser_live;
	size_t *def_start, *def_end;
	size_t defs_seen, aliases_seen;
	logent *log;
	size_t nlog, cap_log;
	openanchor *open;
	size_t nopen, cap_open;
	int replaying;
	size_t rpos, rend;
	int depth;
	pos last;

	int workflow; /* kn_load_opts.workflow: a workflow file (workflow.h) */

	/* Output. */
	kn_taskset *set;
	size_t cap_tasks;
	strmap task_ids, node_ids;
	char ctx_task[96];
	char ctx_sub[32];
	char found[128];
} loader;

/* ---- task_yaml_errors.c: error messages ---- */

const char *kn_ty_clip(char *dst, size_t cap, const char *s);
int kn_ty_fail(loader *l, int code, pos at, const char *fmt, ...) KN_PRINTF(4, 5);
int kn_ty_oom(loader *l);
int kn_ty_yaml_fail(loader *l, const kn_yaml_reader *r, int code);
const char *kn_ty_found(loader *l, const yev *e);

/* ---- task_yaml_events.c: the event source, small helpers, typed values ---- */

pos kn_ty_pos_of(yaml_mark_t m);
pos kn_ty_pos_at(int line, int col);
char *kn_ty_dupn(const char *s, size_t n);
int kn_ty_lookup(const char *const *names, int n, const char *s, size_t len);
int kn_ty_sm_find(const strmap *m, const char *k, size_t *val);
int kn_ty_sm_put(strmap *m, const char *k, size_t val, int *existed);
void kn_ty_sm_free(strmap *m, int free_keys);
void kn_ty_sm_reset(strmap *m);
int kn_ty_is_true(const char *s);
int kn_ty_pass1(loader *l);
int kn_ty_next_event(loader *l, yev *e);
int kn_ty_take_text(loader *l, const yev *e, const char *what, int allow_empty, char **out);
int kn_ty_read_text(loader *l, const char *what, int allow_empty, char **out, pos *at);
int kn_ty_read_url(loader *l, const char *what, char **out);
int kn_ty_read_key(loader *l, yev *k, int *end);
int kn_ty_take_count(loader *l, const yev *e, const char *what, long long max, long long *out);
int kn_ty_read_bool(loader *l, const char *what, int *out);
/* The start of a mapping; anything else is the error MUST followed by "found …" (must: "'read' must
 * be a mapping of …; "). *at, when not NULL, gets where the value is. */
int kn_ty_open_mapping(loader *l, const char *must, pos *at);
/* The next key of a mapping whose keys are names[0..n) (n <= 32), as its index in *field, or -1 at
 * the mapping's end. A key not in names, or one already in *seen, is an error ("unknown key 'x' in
 * 'after' (expected url, navigated or value)", the list in names' order; in: the mapping's name,
 * or NULL); *seen gets the key's bit. first, when not NULL and *first is not NULL, is a key already
 * read, taken (and *first cleared) before reading on. */
int kn_ty_read_field(loader *l, const char *const *names, int n, const char *in, unsigned *seen,
                     const yev **first, int *field);
/* A list under key what holding noun ("'steps' must be a list of steps, found …"): item(l, ud,
 * start) for each element, start being its first event. *at, when not NULL, gets where the list
 * starts. */
int kn_ty_parse_list(loader *l, const char *what, const char *noun,
                     int (*item)(loader *l, void *ud, const yev *start), void *ud, pos *at);

/* ---- task_yaml_steps.c: steps and workflow files ---- */

int kn_ty_parse_steps(loader *l, size_t ti);
int kn_ty_parse_workflow(loader *l, pos at, const yev *first);

/* ---- task_yaml_purchase.c ---- */

int kn_ty_parse_purchase(loader *l, kn_task *t);

/* ---- task_yaml_request.c ---- */

/* The value of a `request` key node, or with rule a guard rule (its `respond` into rule): *out is
 * set at once and is the caller's even on failure (kn_request_spec_free). *at gets where the
 * mapping starts; start, when not NULL, is its start event, already read. */
struct kn_request_spec;
struct kn_guard_rule;
struct kn_guard;
int kn_ty_parse_request(loader *l, struct kn_request_spec **out, pos *at, struct kn_guard_rule *rule,
                        const yev *start);
/* The value of a `websocket` key node or guard rule, { url: {…}, message: { NAME: {…} } }: a spec
 * marked websocket. *out as kn_ty_parse_request's. */
int kn_ty_parse_websocket(loader *l, struct kn_request_spec **out, pos *at);
/* `guard:` — a list of guard rules appended to g. */
int kn_ty_parse_guard(loader *l, struct kn_guard *g);
/* kn_rule_check on s (what: "guard rule", "request key node"); its refusal fails at at. */
int kn_ty_check_rule(loader *l, const struct kn_request_spec *s, const char *what, pos at);

#endif
