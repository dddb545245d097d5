/* query_js.h — generated.js and query.js (page.parts), the rule set of generated names and the in-page
 * selector engine, as a C string (generated at build time by cmake/embed.cmake). It is a list of
 * JavaScript function declarations — knQuery(sel, doc, pred), knQueryAll(sel, doc),
 * knSelectorError(sel), knGeneratedId(id), knGeneratedClass(c), knGeneratedAttr(name) — to be put in
 * front of a script's own code, inside the function or block that uses them
 * (services/recorder/README.md "Selectors", "Generated names"). */
#ifndef KEYNODE_QUERY_JS_H
#define KEYNODE_QUERY_JS_H

extern const char kn_query_js[];
extern const unsigned long kn_query_js_len;

#endif
