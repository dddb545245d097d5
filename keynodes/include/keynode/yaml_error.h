/* yaml_error.h — the words for a libyaml parse that failed, shared by the YAML loaders (task and
 * workflow files in keynodes/, keynode.yaml in services/config) so that both point at the same
 * place with the same message. */
#ifndef KEYNODE_YAML_ERROR_H
#define KEYNODE_YAML_ERROR_H

#include <stddef.h>

#include <yaml.h>

/* Describe why parser p (reading the len bytes at buf) failed: the 1-based *line and *col of the
 * problem — a reader error carries only a byte offset, counted here in lines and UTF-8
 * characters — and a one-line message into msg (cut at cap): "invalid YAML: <problem> <context>
 * [started at L:C]", plus "(tabs cannot indent YAML; use spaces)" when a tab is at fault, or
 * "invalid text: <problem> (0xNN); <what> is UTF-8" (what: "a task file", "a config file").
 * Returns KN_ENOMEM when libyaml ran out of memory, else KN_EINVAL. */
int kn_yaml_parse_error(const yaml_parser_t *p, const unsigned char *buf, size_t len,
                        const char *what, int *line, int *col, char *msg, size_t cap);

#endif
