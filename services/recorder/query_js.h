/* query_js.h — query.js, the in-page selector engine, as a C string (generated at build time by
 * cmake/embed.cmake). It is a list of JavaScript function declarations — knQuery(sel, doc, pred),
 * knQueryAll(sel, doc), knSelectorError(sel) — to be put in front of a script's own code, inside the
 * function or block that uses them (services/recorder/README.md "Selectors"). */
#ifndef KEYNODE_QUERY_JS_H
#define KEYNODE_QUERY_JS_H

extern const char kn_query_js[];
extern const unsigned long kn_query_js_len;

#endif
