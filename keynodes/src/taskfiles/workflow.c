/* workflow.c — workflow files beside a task file (workflow.h): loading one (through the task-file
 * YAML loader in workflow mode), checking its selectors, attaching a folder of them to a task set,
 * and writing one (for `keynode record`). The selector check is the selector grammar's
 * (selector.c: syntax only, what a browser's querySelector or document.evaluate would refuse), so
 * `keynode validate` needs no browser. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "keynode/fs.h"
#include "keynode/grow.h"
#include "keynode/request.h"
#include "keynode/workflow.h"

#define MAX_WORKFLOW_BYTES (4u * 1024u * 1024u)

/* ---- loading ---- */

static int check_selectors(const kn_taskset *set, const char *name, kn_err *err)
{
	for (size_t t = 0; t < set->n_tasks; t++)
		for (size_t i = 0; i < set->tasks[t].n_steps; i++) {
			const kn_step *st = &set->tasks[t].steps[i];
			kn_err e = {0};
			if (st->selector && kn_selector_check(st->selector, &e) != 0)
				return kn_err_set(err, KN_EINVAL, "%s:%d:%d: step %zu: %s: '%.80s'", name, st->line,
				                  st->column, i + 1, e.msg, st->selector);
		}
	return 0;
}

int kn_workflow_load_buffer(kn_taskset **out, const char *buf, size_t len, const char *name,
                            kn_err *err)
{
	kn_load_opts o = {.workflow = 1, .max_bytes = MAX_WORKFLOW_BYTES};
	int rc = kn_task_load_yaml(out, buf, len, name, &o, err);
	if (rc)
		return rc;
	if ((rc = check_selectors(*out, name ? name : "<workflow>", err)) != 0) {
		kn_taskset_free(*out);
		*out = NULL;
	}
	return rc;
}

int kn_workflow_load_file(kn_taskset **out, const char *path, kn_err *err)
{
	char *buf = NULL;
	size_t len = 0;
	*out = NULL;
	int rc = kn_read_file(&buf, &len, path, MAX_WORKFLOW_BYTES, err);
	if (rc)
		return rc;
	rc = kn_workflow_load_buffer(out, buf, len, path, err);
	free(buf);
	return rc;
}

/* Move wf's steps into task t (replacing t's). */
static int attach_one(kn_task *t, kn_task *wf, const char *path)
{
	char *file = strdup(path);
	if (!file)
		return KN_ENOMEM;
	if (!t->start_url && wf->start_url) {
		t->start_url = wf->start_url;
		wf->start_url = NULL;
	}
	for (size_t i = 0; i < t->n_steps; i++)
		kn_step_clear(&t->steps[i]);
	free(t->steps);
	t->steps = wf->steps;
	t->n_steps = wf->n_steps;
	wf->steps = NULL;
	wf->n_steps = 0;
	t->viewport_w = wf->viewport_w;
	t->viewport_h = wf->viewport_h;
	free(t->workflow_file);
	t->workflow_file = file;
	if (!t->reference_length)
		t->reference_length = t->n_steps > 1000000 ? 1000000 : (int)t->n_steps;
	return 0;
}

int kn_workflow_apply(kn_task *t, kn_task *wf, const char *source, kn_err *err)
{
	if (!t || !wf || !source)
		return kn_err_set(err, KN_EINVAL, "no task or workflow");
	if (strcmp(t->id, wf->id) != 0)
		return kn_err_set(err, KN_EINVAL, "%s: the workflow is for task '%.80s', not '%.80s'", source, wf->id,
		                  t->id);
	return attach_one(t, wf, source) ? kn_err_set(err, KN_ENOMEM, "out of memory") : 0;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && !strcmp(s + a - b, suffix);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Attach the workflow file dir/name to set. */
static int attach_file(kn_taskset *set, const char *dir, const char *name, kn_err *err)
{
	char path[4096];
	if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path)
		return kn_err_set(err, KN_EINVAL, "%s/%s: path too long", dir, name);
	kn_taskset *wf = NULL;
	int rc = kn_workflow_load_file(&wf, path, err);
	if (rc)
		return rc;
	kn_task *w = &wf->tasks[0];
	kn_task *t = NULL;
	for (size_t i = 0; i < set->n_tasks && !t; i++)
		if (!strcmp(set->tasks[i].id, w->id))
			t = &set->tasks[i];
	size_t stem = strlen(name) - (ends_with(name, ".yml") ? 4 : 5);
	if (!t)
		rc = kn_err_set(err, KN_EINVAL, "%s:%d: unknown task id '%.80s' (not in %s)", path, w->line,
		                w->id, set->source ? set->source : "the task file");
	else if (strlen(w->id) != stem || strncmp(w->id, name, stem) != 0)
		rc = kn_err_set(err, KN_EINVAL, "%s:%d: workflow of task '%.80s' must be named '%.80s.yaml'",
		                path, w->line, w->id, w->id);
	else if ((rc = attach_one(t, w, path)) != 0)
		kn_err_set(err, rc, "%s: out of memory", path);
	kn_taskset_free(wf);
	return rc;
}

int kn_workflows_attach(kn_taskset *set, const char *dir, kn_workflow_error_fn on_error, void *ud,
                        size_t *n, kn_err *err)
{
	if (n)
		*n = 0;
	DIR *d = opendir(dir);
	if (!d)
		return kn_err_set(err, errno == ENOENT ? KN_ENOTFOUND : KN_EIO, "%s: %s", dir, strerror(errno));
	char **names = NULL;
	size_t nn = 0, cap = 0;
	int rc = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.' || !(ends_with(e->d_name, ".yaml") || ends_with(e->d_name, ".yml")))
			continue;
		if (kn_grow(&names, nn, &cap, sizeof *names, 16)) {
			rc = KN_ENOMEM;
			break;
		}
		if (!(names[nn] = strdup(e->d_name))) {
			rc = KN_ENOMEM;
			break;
		}
		nn++;
	}
	closedir(d);
	if (rc) {
		for (size_t i = 0; i < nn; i++)
			free(names[i]);
		free(names);
		return kn_err_set(err, rc, "%s: out of memory", dir);
	}
	qsort(names, nn, sizeof *names, cmp_names); /* deterministic order of errors */
	int failed = 0;
	for (size_t i = 0; i < nn; i++) {
		kn_err fe = {0};
		int r = attach_file(set, dir, names[i], &fe);
		if (r == 0) {
			if (n)
				(*n)++;
			continue;
		}
		if (!failed)
			kn_err_set(err, r, "%s", fe.msg);
		failed = failed ? failed : r;
		if (!on_error)
			break;
		on_error(ud, names[i], &fe);
	}
	for (size_t i = 0; i < nn; i++)
		free(names[i]);
	free(names);
	return failed;
}

int kn_workflow_attach_task(kn_task *t, const char *dir, int *attached, kn_err *err)
{
	*attached = 0;
	char name[1024];
	if (!t->id || !*t->id || strchr(t->id, '/') || t->id[0] == '.' ||
	    (size_t)snprintf(name, sizeof name, "%s.yaml", t->id) >= sizeof name)
		return 0;
	char path[4096];
	struct stat sb;
	if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path ||
	    stat(path, &sb) != 0)
		return 0;
	kn_taskset one = {.source = NULL, .tasks = t, .n_tasks = 1};
	int rc = attach_file(&one, dir, name, err);
	*attached = rc == 0;
	return rc;
}

int kn_workflows_default_dir(char *buf, size_t cap, const char *tasks_path)
{
	const char *slash = strrchr(tasks_path, '/');
	int len = slash ? (int)(slash - tasks_path) : 0;
	if ((size_t)snprintf(buf, cap, "%.*s%sworkflows", len, tasks_path, slash ? "/" : "") >= cap)
		return 0;
	struct stat sb;
	return stat(buf, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* ---- writing ---- */

/* s as a YAML double-quoted scalar. */
void kn_workflow_put_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (*p == '\t')
			fputs("\\t", f);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\x%02x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

static void put_field(FILE *f, int *first, const char *key, const char *val)
{
	if (!val)
		return;
	fprintf(f, "%s%s: ", *first ? " " : ", ", key);
	kn_workflow_put_str(f, val);
	*first = 0;
}

/* {MATCHER: "expect"} */
static void put_matcher(FILE *f, const kn_keynode *kn)
{
	fprintf(f, "{ %s: ", kn_matcher_name(kn->matcher));
	kn_workflow_put_str(f, kn->expect);
	fputs(" }", f);
}

/* A request spec in the form a `request` (or `websocket`) key node is written (task files,
 * request.h). */
static void put_spec(FILE *f, const kn_request_spec *s)
{
	fputs("{", f);
	int first = 1;
	put_field(f, &first, "method", s->method);
	if (s->url) {
		fprintf(f, "%surl: ", first ? " " : ", ");
		put_matcher(f, s->url);
		first = 0;
	}
	if (s->n_fields) {
		fprintf(f, "%s%s: {", first ? " " : ",\n        ", s->websocket ? "message" : "body");
		for (size_t i = 0; i < s->n_fields; i++) {
			fputs(i ? ",\n          " : " ", f);
			kn_workflow_put_str(f, s->fields[i].key);
			fputs(": ", f);
			put_matcher(f, &s->fields[i]);
		}
		fputs(" }", f);
	}
	fputs(" }", f);
}

void kn_workflow_write_step(FILE *f, const kn_step *st)
{
	const char *verb = kn_step_verb_name(st->verb);
	switch (st->verb) {
	case KN_STEP_BACK:
	case KN_STEP_FORWARD:
		fprintf(f, "  - %s:\n", verb);
		break;
	case KN_STEP_DIALOG:
		fprintf(f, "  - dialog: {answer: ");
		kn_workflow_put_str(f, st->value ? st->value : "dismiss");
		if (st->text) {
			fputs(", text: ", f);
			kn_workflow_put_str(f, st->text);
		}
		fputs("}\n", f);
		break;
	case KN_STEP_SCROLL:
		if (st->scroll_px > 0) {
			fprintf(f, "  - scroll: { direction: ");
			kn_workflow_put_str(f, st->value ? st->value : "down");
			fprintf(f, ", pixels: %ld }\n", st->scroll_px);
			break;
		}
		/* fall through */
	case KN_STEP_GOTO:
	case KN_STEP_PRESS:
	case KN_STEP_ANSWER:
		fprintf(f, "  - %s: ", verb);
		kn_workflow_put_str(f, st->value ? st->value : "");
		fputc('\n', f);
		break;
	case KN_STEP_WAIT:
		if (!st->selector) {
			fprintf(f, "  - wait: %ld\n", st->wait_ms);
			break;
		}
		/* fall through */
	default: {
		int first = 1;
		fprintf(f, "  - %s: {", verb);
		put_field(f, &first, "selector", st->selector);
		if (st->verb == KN_STEP_TYPE && st->secret)
			put_field(f, &first, "secret", st->secret);
		else if (st->verb == KN_STEP_TYPE || st->verb == KN_STEP_SELECT)
			put_field(f, &first, "value", st->value ? st->value : "");
		if (st->verb == KN_STEP_TYPE && st->enter)
			fputs(", enter: true", f);
		if (st->verb == KN_STEP_CLICK)
			put_field(f, &first, "text", st->text);
		put_field(f, &first, "id", st->hint_id);
		put_field(f, &first, "name", st->hint_name);
		put_field(f, &first, "test_id", st->hint_test_id);
		put_field(f, &first, "aria_label", st->hint_aria_label);
		put_field(f, &first, "role", st->hint_role);
		put_field(f, &first, "href", st->hint_href);
		put_field(f, &first, "tag", st->tag);
		put_field(f, &first, "classes", st->classes);
		put_field(f, &first, "dom_path", st->dom_path);
		put_field(f, &first, "frame", st->frame);
		fputs(" }\n", f);
	}
	}
	if (st->expect_url || st->navigated || st->expect_value || st->held || st->error_page) {
		int first = 1;
		fputs("    after: {", f);
		put_field(f, &first, "url", st->expect_url);
		if (st->navigated) {
			fprintf(f, "%snavigated: %s", first ? " " : ", ", st->navigated == 1 ? "true" : "false");
			first = 0;
		}
		put_field(f, &first, "value", st->expect_value);
		if (st->error_page) {
			fprintf(f, "%serror_page: %s", first ? " " : ", ", st->error_page == 1 ? "true" : "false");
			first = 0;
		}
		put_field(f, &first, "failed_requests", st->failed_requests);
		if (st->held) {
			fprintf(f, "%sheld: ", first ? " " : ",\n      ");
			put_spec(f, st->held);
		}
		fputs(" }\n", f);
	}
}

int kn_workflow_write(FILE *f, const kn_task *task, const char *recorded_at)
{
	fputs("# keynode reference workflow (schemas/workflow.schema.json), written by keynode record\n",
	      f);
	fputs("workflow: 1\ntask: ", f);
	kn_workflow_put_str(f, task->id);
	fputc('\n', f);
	if (recorded_at) {
		fputs("recorded_at: ", f);
		kn_workflow_put_str(f, recorded_at);
		fputc('\n', f);
	}
	fprintf(f, "viewport: \"%dx%d\"\n", task->viewport_w ? task->viewport_w : KN_VIEWPORT_DEFAULT_W,
	        task->viewport_h ? task->viewport_h : KN_VIEWPORT_DEFAULT_H);
	if (task->start_url) {
		fputs("start_url: ", f);
		kn_workflow_put_str(f, task->start_url);
		fputc('\n', f);
	}
	fputs("steps:\n", f);
	for (size_t i = 0; i < task->n_steps; i++)
		kn_workflow_write_step(f, &task->steps[i]);
	return fflush(f) == 0 && !ferror(f) ? 0 : KN_EIO;
}
