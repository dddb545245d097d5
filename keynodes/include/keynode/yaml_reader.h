/* yaml_reader.h — the one libyaml front-end: a document in memory read as events that carry
 * 1-based positions, and libyaml's failures turned into a position and one-line words. The YAML
 * loaders (task and workflow files in keynodes/src/taskfiles, keynode.yaml in services/config)
 * all read through it and report through kn_yaml_err_set, so that they point at the same place
 * with the same "file:line:col: message"; each builds its own schema on top. */
#ifndef KEYNODE_YAML_READER_H
#define KEYNODE_YAML_READER_H

#include <stddef.h>

#include <yaml.h>

#include "keynode/error.h"

/* A parser over a borrowed buffer and its current event. After kn_yaml_reader_next succeeds, ev
 * is the event (valid until the next call) and line/col where it starts; after it fails,
 * line/col are where the problem is and msg says what it is. */
typedef struct kn_yaml_reader {
	yaml_parser_t parser;
	yaml_event_t ev;
	int live; /* ev holds an event to delete */
	const unsigned char *buf;
	size_t len;
	const char *what; /* the document's kind in messages: "a task file", "a config file" */
	int line, col;
	char msg[KN_ERR_MAX];
} kn_yaml_reader;

/* Start reading the len bytes at buf (borrowed until kn_yaml_reader_done). utf8_only: refuse
 * other encodings instead of following a byte-order mark. KN_ENOMEM when libyaml cannot start;
 * kn_yaml_reader_done is safe to call either way. */
int kn_yaml_reader_init(kn_yaml_reader *r, const void *buf, size_t len, const char *what,
                        int utf8_only);

/* The next event into r->ev. On failure KN_EINVAL (or KN_ENOMEM when libyaml ran out of memory),
 * with r->line/r->col/r->msg as kn_yaml_parse_error words them. */
int kn_yaml_reader_next(kn_yaml_reader *r);

/* Release the parser and the current event. */
void kn_yaml_reader_done(kn_yaml_reader *r);

/* The error every YAML loader reports: "name:line:col: msg" into err (when not NULL), control
 * characters (from escaped document text) made '?' so that it stays one line. Returns code. */
int kn_yaml_err_set(kn_err *err, int code, const char *name, int line, int col, const char *msg);

/* The 1-based line or column of a libyaml mark (0-based), INT_MAX past int. */
int kn_yaml_line(yaml_mark_t m);
int kn_yaml_col(yaml_mark_t m);

/* Describe why parser p (reading the len bytes at buf) failed: the 1-based *line and *col of the
 * problem — a reader error carries only a byte offset, counted here in lines and UTF-8
 * characters — and a one-line message into msg (cut at cap): "invalid YAML: <problem> <context>
 * [started at L:C]", plus "(tabs cannot indent YAML; use spaces)" when a tab is at fault, or
 * "invalid text: <problem> (0xNN); <what> is UTF-8" (what: "a task file", "a config file").
 * Returns KN_ENOMEM when libyaml ran out of memory, else KN_EINVAL. */
int kn_yaml_parse_error(const yaml_parser_t *p, const unsigned char *buf, size_t len,
                        const char *what, int *line, int *col, char *msg, size_t cap);

#endif
