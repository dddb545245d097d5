/* generated.h — is an id or a class name made up by a framework or a build? The C mirror of
 * services/recorder/generated.js (the rule set the recorder and keynode's page scripts use), for the
 * C code that reads names from task and workflow files: healing's expected signature
 * (services/replay/heal.c). tests/unit/test_generated.c runs both over one table
 * (tests/data/generated_names.json, also read by tests/integration/generated.test.mjs), which is
 * what keeps them in agreement: a rule changed in one file and not the other fails it. */
#ifndef KEYNODE_GENERATED_H
#define KEYNODE_GENERATED_H

/* 1 when the element id s (UTF-8, NUL-terminated) was generated (React useId, framework counters,
 * UUIDs, long mixed tokens), else 0; NULL or "" gives 0. */
int kn_generated_id(const char *s);

/* 1 when the class name s was generated (hashed CSS-in-JS or CSS-module classes, scoped classes),
 * else 0; NULL or "" gives 0. */
int kn_generated_class(const char *s);

#endif
