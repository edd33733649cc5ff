/* html-source-text.c - source files as lines with costs, where functions and regions lie in
 * them, and how scopes nest (html-source.h). */
#include "html/html-source.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char *src_metric_name(enum src_metric m)
{
	static const char *const names[SRC_NMETRICS] = {"time", "samples", "energy"};

	return m < SRC_NMETRICS ? names[m] : "";
}

int src_file_init(struct src_file *f, const char *path, char *text, size_t size)
{
	unsigned n = 0;

	memset(f, 0, sizeof(*f));
	text[size] = '\0';
	for (size_t i = 0; i < size; i++)
		if (text[i] == '\n')
			n++;
	if (size && text[size - 1] != '\n')
		n++;
	f->path = strdup(path);
	f->lines = calloc(n ? n : 1, sizeof(*f->lines));
	if (!f->path || !f->lines) {
		free(f->path);
		free(f->lines);
		free(text);
		memset(f, 0, sizeof(*f));
		return -ENOMEM;
	}
	f->text = text;
	for (char *p = text, *end = text + size; p < end;) {
		char *nl = memchr(p, '\n', (size_t)(end - p));

		f->lines[f->nlines++] = p;
		if (!nl)
			break;
		*nl = '\0';
		if (nl > p && nl[-1] == '\r')
			nl[-1] = '\0';
		p = nl + 1;
	}
	return 0;
}

int src_file_add(struct src_file *f, enum src_metric m, unsigned line, double v)
{
	if (m >= SRC_NMETRICS || line < 1 || line > f->nlines)
		return -ERANGE;
	if (!f->cost[m]) {
		f->cost[m] = calloc(f->nlines, sizeof(double));
		if (!f->cost[m])
			return -ENOMEM;
	}
	f->cost[m][line - 1] += v;
	f->total[m] += v;
	return 0;
}

double src_file_sum(const struct src_file *f, enum src_metric m, unsigned first, unsigned last)
{
	double s = 0;

	if (m >= SRC_NMETRICS || !f->cost[m])
		return 0;
	if (first < 1)
		first = 1;
	if (last > f->nlines)
		last = f->nlines;
	for (unsigned l = first; l <= last; l++)
		s += f->cost[m][l - 1];
	return s;
}

void src_file_release(struct src_file *f)
{
	free(f->path);
	free(f->text);
	free(f->lines);
	for (int m = 0; m < SRC_NMETRICS; m++)
		free(f->cost[m]);
	memset(f, 0, sizeof(*f));
}

unsigned src_brace_end(const struct src_file *f, unsigned first, unsigned limit)
{
	enum { CODE, BLOCK_COMMENT } st = CODE;
	unsigned depth = 0;

	if (!limit || limit > f->nlines + 1)
		limit = f->nlines + 1;
	for (unsigned l = first ? first : 1; l < limit; l++) {
		const char *p = f->lines[l - 1];

		while (*p) {
			if (st == BLOCK_COMMENT) {
				if (p[0] == '*' && p[1] == '/') {
					st = CODE;
					p++;
				}
				p++;
				continue;
			}
			if (p[0] == '/' && p[1] == '/')
				break;
			if (p[0] == '/' && p[1] == '*') {
				st = BLOCK_COMMENT;
				p += 2;
				continue;
			}
			if (*p == '"' || *p == '\'') {
				char q = *p++;

				while (*p && *p != q)
					p += p[0] == '\\' && p[1] ? 2 : 1;
				if (*p)
					p++;
				continue;
			}
			if (*p == '{') {
				depth++;
			} else if (*p == '}' && depth) {
				if (--depth == 0)
					return l;
			}
			p++;
		}
	}
	return 0;
}

/* LINE calls FN("NAME") (or 'NAME'), spaces allowed around the parenthesis. */
static int line_calls(const char *line, const char *fn, const char *name)
{
	size_t fl = strlen(fn), nl = strlen(name);

	for (const char *p = strstr(line, fn); p; p = strstr(p + 1, fn)) {
		const char *q = p + fl;

		while (*q == ' ' || *q == '\t')
			q++;
		if (*q++ != '(')
			continue;
		while (*q == ' ' || *q == '\t')
			q++;
		if ((*q != '"' && *q != '\'') || strncmp(q + 1, name, nl) || q[1 + nl] != *q)
			continue;
		return 1;
	}
	return 0;
}

int src_region_lines(const struct src_file *f, const char *name, unsigned *first, unsigned *last)
{
	for (unsigned b = 1; b <= f->nlines; b++) {
		if (!line_calls(f->lines[b - 1], "psc_region_begin", name) &&
		    !line_calls(f->lines[b - 1], "PSC_REGION_BEGIN", name))
			continue;
		for (unsigned e = b; e <= f->nlines; e++) {
			if (line_calls(f->lines[e - 1], "psc_region_end", name) ||
			    line_calls(f->lines[e - 1], "PSC_REGION_END", name)) {
				*first = b;
				*last = e;
				return 0;
			}
		}
		return -ENOENT;
	}
	return -ENOENT;
}

static int scope_cmp(const void *a, const void *b)
{
	const struct src_scope *x = a, *y = b;

	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	if (x->last != y->last)
		return x->last > y->last ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

int src_scopes_nest(struct src_scope *s, size_t n)
{
	size_t *stack, top = 0;

	if (!n)
		return 0;
	stack = malloc(n * sizeof(*stack));
	if (!stack)
		return -ENOMEM;
	qsort(s, n, sizeof(*s), scope_cmp);
	for (size_t i = 0; i < n; i++) {
		/* sorted by first line: an open scope holds S[i] when it ends at or after it */
		while (top && s[stack[top - 1]].last < s[i].last)
			top--;
		s[i].parent = top ? stack[top - 1] : SRC_NO_PARENT;
		s[i].depth = top ? s[stack[top - 1]].depth + 1 : 0;
		stack[top++] = i;
	}
	free(stack);
	return 0;
}
