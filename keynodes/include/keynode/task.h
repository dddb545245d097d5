/* task.h — the task model shared by every part of keynode.
 *
 * A task set is loaded from a native YAML file (docs/formats.md §1) or a Mind2Web-Live JSON file,
 * detected by content. Loading maps every key node to a target + matcher + options and compiles
 * what can be compiled (regexes) once, so evaluation never parses again. Everything in a
 * kn_taskset is owned by it and released by kn_taskset_free(). */
#ifndef KEYNODE_TASK_H
#define KEYNODE_TASK_H

#include <stddef.h>

#include "keynode/error.h"

typedef enum kn_target {
	KN_TARGET_URL,
	KN_TARGET_ELEMENT_PATH,
	KN_TARGET_ELEMENT_VALUE,
	KN_TARGET_ANSWER,     /* final_answer_* : the agent's reported answer */
	KN_TARGET_CACHE_DATA, /* cache_data_*   : checked against answer events too */
	KN_TARGET_PAGE,       /* page: text read from the live page when the run ends (functional.h) */
	KN_TARGET_REQUEST,    /* request: an HTTP request the browser sent (request.h) */
	KN_TARGET_WEBSOCKET   /* websocket: a WebSocket message a page sent (request.h; its spec in
	                       * `request`, marked websocket) */
} kn_target;

struct kn_request_spec;

typedef enum kn_matcher {
	KN_MATCH_EXACT,
	KN_MATCH_INCLUDE,
	KN_MATCH_SEMANTIC,
	KN_MATCH_REGEX,
	/* WebArena-style functional matchers (functional.h, keynodes/README.md "Functional checks") */
	KN_MATCH_MUST_INCLUDE, /* answer/cache_data/page: every item found (" |OR| " alternatives) */
	KN_MATCH_FUZZY,        /* answer/cache_data: each item judged by the semantic backend */
	KN_MATCH_GOLD_IN_PRED  /* url: WebArena url_match "GOLD in PRED", " |OR| " references */
} kn_matcher;

typedef struct kn_keynode {
	char *id;        /* "k1"… or the YAML id */
	kn_target target;
	kn_matcher matcher;
	char *expect;    /* reference_answer / the matcher's value; never NULL */
	char *key;       /* url: query parameter name; NULL when none (Mind2Web "" is NULL) */
	char *netloc;    /* site gate token; NULL when none */
	char *path;      /* element_value: selector that must match first; NULL when none */
	char *ref_url;   /* page where it was annotated (Mind2Web-Live content.url), NULL when none:
	                  * never scored; its host is one of the task's own sites (site.h) */
	char *function;  /* the Mind2Web-Live function name, e.g. "url_included_match" */
	char *norm_selector;  /* element_path expect / element_value path, normalised (match.h) */
	char *semantic_phrase;/* semantic: the target phrase extracted from the rule */
	void *regex;     /* compiled regex (opaque, match.h) for KN_MATCH_REGEX, else NULL */
	int xpath;       /* the selector (expect or path) is an XPath (Mind2Web-Live "method": "xpath") */
	int line, column;/* where it was defined (YAML: 1-based line/col; JSON: 0) */
	/* functional checks (functional.h); all NULL / 0 for WebCanvas key nodes */
	char **items;    /* must_include / fuzzy: the entries (expect holds them joined by " |AND| ") */
	size_t n_items;
	int clean;       /* exact/include compare after WebArena cleaning (trim, quotes, lower-case) */
	int functional;  /* an end-state check: counts toward the task's functional result */
	char *page_url;  /* page: the URL to read in a separate tab; NULL = "last" (the agent's page) */
	char *locator;   /* page: a CSS selector, or "js:EXPRESSION" */
	int page_from_last; /* page: KN_PAGE_REDDIT_POST = the URL is WebArena's
	                     * reddit_get_post_url of the agent's last URL (page_url is NULL) */
	struct kn_request_spec *request; /* request: method, URL and body matchers (request.h);
	                                  * expect holds its description */
} kn_keynode;

/* kn_keynode.page_from_last */
#define KN_PAGE_REDDIT_POST 1

typedef enum kn_step_verb {
	KN_STEP_GOTO, KN_STEP_CLICK, KN_STEP_TYPE, KN_STEP_SELECT, KN_STEP_PRESS,
	KN_STEP_SCROLL, KN_STEP_WAIT, KN_STEP_BACK, KN_STEP_FORWARD, KN_STEP_ANSWER,
	KN_STEP_DIALOG /* the answer to the JavaScript dialog the previous step opens:
	                * value "accept" or "dismiss", text a prompt's answer (NULL: its default) */
} kn_step_verb;
#define KN_STEP_LAST KN_STEP_DIALOG

/* One reference workflow step (docs/formats.md §1). Unused fields are NULL / 0. */
typedef struct kn_step {
	kn_step_verb verb;
	char *selector;  /* click/type/select/wait */
	char *value;     /* goto URL, type/select value, press key, scroll direction, answer text */
	char *text;      /* click: visible text hint */
	int enter;       /* type: press Enter after */
	long wait_ms;    /* wait: milliseconds when no selector */
	long scroll_px;  /* scroll: how far, in CSS pixels (0: the default, 500) */
	char *hint_id, *hint_name, *hint_aria_label, *hint_role, *hint_href; /* locator hints */
	int line;
	/* The record-time fingerprint and postcondition of a recorded workflow (workflow.h); NULL /
	 * -1 when not recorded. Inline task-file steps may carry them too. */
	int column;
	char *hint_test_id;   /* data-testid / data-test / data-qa value */
	char *tag;            /* the element's tag, lower case */
	char *classes;        /* its class attribute */
	char *dom_path;       /* "html > body > … > a" */
	char *frame;          /* frame path ("iframe#pay > iframe"), NULL: top document */
	char *expect_url;     /* postcondition: the URL after the step */
	int navigated;        /* postcondition: 1 a navigation happened, 2 none, 0 not recorded */
	char *expect_value;   /* postcondition (type/select): the field's value after the step */
	/* what the page showed after the step when recorded (services/replay/softpage.h): 1 a
	 * not-found or error state, 2 none, 0 not recorded; and the paths of its own-site data requests
	 * that failed then, space-separated (NULL: none) */
	int error_page;
	char *failed_requests;
	/* a recorded request the step sent that a guard rule held (`after: {held: …}`): replay
	 * validation checks the request held now against it; NULL when none */
	struct kn_request_spec *held;
	/* type: the value is a secret read from the environment variable KN_SECRET_<secret> when the
	 * step is replayed (`secret: NAME`; a recorded password or card number is never written) */
	char *secret;
} kn_step;

typedef struct kn_task {
	char *id;
	char *intent;
	char *start_url;      /* NULL when none */
	int reference_length; /* 0 when unknown */
	char *answer;         /* reference answer, NULL when none */
	kn_keynode *keynodes;
	size_t n_keynodes;
	kn_step *steps;
	size_t n_steps;
	int line;
	char **unmapped;      /* imported checks that could not be mapped, one message each */
	size_t n_unmapped;
	int func_sem;         /* kn_func_sem (functional.h): KN_FUNC_SEM_WEBARENA for WebArena imports */
	char **more_start_urls; /* start pages after the first (WebArena " |AND| "): one tab each */
	size_t n_more_start_urls;
	struct kn_purchase *purchase; /* `purchase:` (purchase.h): graded reward; NULL when none */
	int viewport_w, viewport_h; /* the recorded workflow's viewport; 0: not recorded */
	char *workflow_file;  /* the workflow file the steps came from (workflow.h); NULL: inline */
	char *recorded_at;    /* a workflow file's recorded_at, as written; NULL: not said */
	struct kn_guard *guard;           /* `guard:` / `end_on_guard:` (guard.h); NULL: none */
	const struct kn_guard *set_guard; /* its task set's, borrowed from the kn_taskset; NULL: none */
} kn_task;

typedef enum kn_format { KN_FORMAT_YAML, KN_FORMAT_MIND2WEB, KN_FORMAT_WEBARENA } kn_format;

typedef struct kn_taskset {
	char *source;   /* file name as given, or the buffer's name */
	kn_format format;
	kn_task *tasks;
	size_t n_tasks;
	struct kn_guard *guard; /* the set's `guard:` (guard.h), each task's set_guard; NULL: none */
} kn_taskset;

/* A WebArena site placeholder: __NAME__ in an imported URL becomes url (config `sites:`). */
typedef struct kn_site {
	const char *name; /* "SHOPPING" */
	const char *url;  /* "http://127.0.0.1:7770" */
} kn_site;

/* Limits applied while loading; zero fields take the defaults below. */
typedef struct kn_load_opts {
	size_t max_bytes;      /* whole document; default KN_LOAD_MAX_BYTES */
	int max_depth;         /* nesting; default KN_LOAD_MAX_DEPTH */
	size_t max_alias_nodes;/* YAML nodes produced through aliases; default KN_LOAD_MAX_ALIAS_NODES */
	const kn_site *sites;  /* WebArena placeholders (borrowed); NULL: none */
	size_t n_sites;
	int workflow;          /* YAML: the document is a workflow file (workflow.h), not a task file */
} kn_load_opts;

#define KN_LOAD_MAX_BYTES (64u * 1024u * 1024u)
#define KN_LOAD_MAX_DEPTH 64
#define KN_LOAD_MAX_ALIAS_NODES 10000u

/* Load a task file, detecting the format from its content. On success *out is the caller's
 * (kn_taskset_free). On failure *out is NULL and err says file:line:col (YAML) or the JSON path. */
int kn_taskset_load_file(kn_taskset **out, const char *path, const kn_load_opts *opts, kn_err *err);

/* Same from memory; name is used in messages. buf need not be NUL-terminated. */
int kn_taskset_load_buffer(kn_taskset **out, const char *buf, size_t len, const char *name,
                           const kn_load_opts *opts, kn_err *err);

/* Format-specific loaders (used by the two above; exposed for tests and fuzzers). */
int kn_task_load_yaml(kn_taskset **out, const char *buf, size_t len, const char *name,
                      const kn_load_opts *opts, kn_err *err);
int kn_task_load_mind2web(kn_taskset **out, const char *buf, size_t len, const char *name,
                          const kn_load_opts *opts, kn_err *err);
/* WebArena task configs (a JSON array of configs, or one config object): see keynodes/README.md
 * "WebArena import". What cannot be mapped is listed in each task's `unmapped`. */
int kn_task_load_webarena(kn_taskset **out, const char *buf, size_t len, const char *name,
                          const kn_load_opts *opts, kn_err *err);

/* Release a task set and all it owns. NULL is a no-op. */
void kn_taskset_free(kn_taskset *set);

/* Borrowed pointer to the task with this id, or NULL. */
const kn_task *kn_taskset_find(const kn_taskset *set, const char *id);

/* Sum of key nodes over all tasks. */
size_t kn_taskset_count_keynodes(const kn_taskset *set);

/* --- building blocks shared by the loaders (task.c) --- */

/* Set target/matcher from a Mind2Web-Live function name; KN_EINVAL if unknown. */
int kn_keynode_parse_function(kn_keynode *kn, const char *name);

/* The Mind2Web-Live function name of target+matcher ("url_regex_match" for the regex extension).
 * Static storage. */
const char *kn_keynode_function_name(kn_target target, kn_matcher matcher);

/* Finish a key node after its fields are set: function name, normalised selector, semantic phrase,
 * compiled regex. err names what is wrong (the caller prefixes the position). */
int kn_keynode_prepare(kn_keynode *kn, kn_err *err);

/* 1 when two tasks share an id (*a < *b their indexes), else 0. O(n log n). */
int kn_taskset_find_duplicate(const kn_taskset *set, size_t *a, size_t *b);
/* A loader's first step: *out = an empty taskset whose source is name, in format. 0, or KN_ENOMEM
 * ("out of memory" in err) with *out NULL. */
int kn_taskset_start(kn_taskset **out, const char *name, kn_format format, kn_err *err);
/* A loader's last step. With rc 0, two tasks sharing an id is an error naming both
 * ("NAME: [B].ID_KEY: duplicate task id 'X' (also [A])"); then either *out = set and 0, or set is
 * freed and the error code returned (rc itself when it was not 0). */
int kn_taskset_finish(kn_taskset **out, kn_taskset *set, int rc, const char *name, const char *id_key,
                      kn_err *err);

/* Append a copy of item to kn->items (must_include / fuzzy entries); KN_ELIMIT past 1,000. */
int kn_keynode_add_item(kn_keynode *kn, const char *item);
/* Set kn->expect to the items joined by " |AND| " (replacing it). */
int kn_keynode_join_items(kn_keynode *kn);
/* Append a copy of msg to t->unmapped (what an import could not map); at most 1,000 kept. */
int kn_task_add_unmapped(kn_task *t, const char *msg);

/* Release what a key node owns (not the struct). */
void kn_keynode_clear(kn_keynode *kn);
void kn_step_clear(kn_step *st);
void kn_task_clear(kn_task *t);

/* Names: "url", "element_path", …; "exact", "include", …. Static storage. */
const char *kn_target_name(kn_target t);
const char *kn_matcher_name(kn_matcher m);
const char *kn_step_verb_name(kn_step_verb v);

/* The target / matcher / step verb a task file names with the len bytes at name; -1 if none. */
int kn_target_from_name(const char *name, size_t len);
int kn_matcher_from_name(const char *name, size_t len);
int kn_step_verb_from_name(const char *name, size_t len);

/* 1 when a task file may give a key node of target t the matcher m: the four base matchers
 * always, a functional one only where the target has it (kn_keynode_function_name). */
int kn_matcher_allowed(kn_target t, kn_matcher m);

/* The matchers allowed for target t, for messages: "exact, include, semantic, regex or
 * must_include". Written into buf (cut at cap); returns buf. */
const char *kn_matcher_list(kn_target t, char *buf, size_t cap);

#endif
