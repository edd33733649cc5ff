/* sample-tree-view.c - the columns of the call trees of samples: top-down and callers. */
#include "view/sample-view.h"

#include "lib/array.h"
#include "view/sample-print.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define TROW(row)      ((const struct sample_tree_row *)(row))
#define TCTX(ctx)      ((const struct sample_tree_ctx *)(ctx))
#define NODE(ctx, row) (&TCTX(ctx)->t->nodes[TROW(row)->node])
#define FUNC(ctx, row) (&TCTX(ctx)->t->funcs[NODE(ctx, row)->func])

/* PART's share of every sample (the root of the call tree: a callers tree's shares are of all
 * samples too). */
static void set_share(const void *ctx, struct view_value *v, uint64_t part)
{
	v->kind = VIEW_F64;
	v->d = sample_share(part, TCTX(ctx)->r->p->calls.nodes[0].samples);
}

/* The names from the tree's root down to the node, joined by ';' (the folded stacks' form). */
static void get_path(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	struct sample_tree_path *p = TCTX(ctx)->path;
	const struct scall_tree *t = TCTX(ctx)->t;
	size_t n = 0;

	(void)arg;
	/* the nodes up to the root, then their names from the outermost down */
	for (uint32_t k = TROW(row)->node; k != 0; k = t->nodes[k].parent) {
		if (ARRAY_GROW(p->up, n + 1, p->upcap))
			return; /* out of memory: the path is not given */
		p->up[n++] = k;
	}
	strbuf_reset(&p->sb);
	while (n--) {
		strbuf_adds(&p->sb, t->funcs[t->nodes[p->up[n]].func].name);
		if (n)
			strbuf_addch(&p->sb, ';');
	}
	if (!p->sb.err)
		view_set_str(v, strbuf_str(&p->sb));
}

static void get_name(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)arg;
	view_set_str(v, FUNC(ctx, row)->name);
}

static void get_module(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)arg;
	view_set_str(v, FUNC(ctx, row)->module);
}

static void get_depth(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)ctx, (void)arg;
	view_set_u64(v, TROW(row)->depth);
}

static void get_samples(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)arg;
	view_set_u64(v, NODE(ctx, row)->samples);
}

static void get_share(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)arg;
	set_share(ctx, v, NODE(ctx, row)->samples);
}

static void get_time(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)arg;
	view_set_u64(v, NODE(ctx, row)->time_ns);
}

static void get_self(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)arg;
	view_set_u64(v, NODE(ctx, row)->self);
}

static void get_self_share(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)arg;
	set_share(ctx, v, NODE(ctx, row)->self);
}

static void get_self_ns(const void *ctx, const void *row, size_t arg, struct view_value *v)
{
	(void)arg;
	view_set_u64(v, NODE(ctx, row)->self_ns);
}

#define TEXT VIEW_IN_TEXT
#define CSV  VIEW_IN_CSV
#define JSON VIEW_IN_JSON
#define ALL  VIEW_IN_ALL
#define ENT  VIEW_ENTITY
#define OPT  VIEW_OPTION

/* The text shows the function last, indented by its depth (sample-tree.c). */
static const struct view_col tree_cols[] = {
    {"path", "path", VIEW_STR, TABLE_LEFT, CSV | JSON | ENT, get_path, 0, NULL, NULL, NULL, NULL,
     NULL},
    {"name", "function", VIEW_STR, TABLE_LEFT, CSV | JSON | ENT, get_name, 0, NULL, NULL, NULL,
     NULL, NULL},
    {"module", "module", VIEW_STR, TABLE_LEFT, CSV | JSON | ENT, get_module, 0, NULL, NULL, NULL,
     NULL, NULL},
    {"depth", "depth", VIEW_INT, TABLE_RIGHT, CSV | JSON | ENT, get_depth, 0, NULL, NULL, NULL,
     NULL, NULL},
    {"samples", "samples", VIEW_COUNT, TABLE_RIGHT, ALL, get_samples, 0, NULL, NULL, NULL, NULL,
     NULL},
    {"share", "incl.", VIEW_SHARE, TABLE_RIGHT, ALL, get_share, 0, NULL, NULL, NULL, NULL, NULL},
    {"self_samples", "self samples", VIEW_COUNT, TABLE_RIGHT, CSV | JSON, get_self, 0, NULL, NULL,
     NULL, NULL, NULL},
    {"self_share", "self", VIEW_SHARE, TABLE_RIGHT, ALL, get_self_share, 0, NULL, NULL, NULL, NULL,
     NULL},
    {"time_ns", "est. time", VIEW_NS, TABLE_RIGHT, ALL, get_time, 0, NULL, NULL, NULL, NULL, NULL},
    {"self_ns", "self time", VIEW_NS, TABLE_RIGHT, CSV | JSON, get_self_ns, 0, NULL, NULL, NULL,
     NULL, NULL},
};

/* The CSV names the function "function", the JSON "name"; the path is the long CSV's only
 * (view.option), as the CSV and the nested JSON place a node by its depth and its parent. */
static const struct view_col callers_cols[] = {
    {"path", "path", VIEW_STR, TABLE_LEFT, CSV | ENT | OPT, get_path, 0, NULL, NULL, NULL, NULL,
     NULL},
    {"depth", "depth", VIEW_INT, TABLE_RIGHT, CSV | ENT, get_depth, 0, NULL, NULL, NULL, NULL,
     NULL},
    {"function", "function", VIEW_STR, TABLE_LEFT, CSV | ENT, get_name, 0, NULL, NULL, NULL, NULL,
     NULL},
    {"name", "function", VIEW_STR, TABLE_LEFT, JSON, get_name, 0, NULL, NULL, NULL, NULL, NULL},
    {"module", "module", VIEW_STR, TABLE_LEFT, CSV | JSON | ENT, get_module, 0, NULL, NULL, NULL,
     NULL, NULL},
    {"samples", "samples", VIEW_COUNT, TABLE_RIGHT, ALL, get_samples, 0, NULL, NULL, NULL, NULL,
     NULL},
    {"share", "incl.", VIEW_SHARE, TABLE_RIGHT, ALL, get_share, 0, NULL, NULL, NULL, NULL, NULL},
    {"time_ns", "est. time", VIEW_NS, TABLE_RIGHT, ALL, get_time, 0, NULL, NULL, NULL, NULL, NULL},
};

const struct view_col *sample_tree_view_cols(int callers, size_t *n)
{
	if (callers) {
		*n = sizeof(callers_cols) / sizeof(callers_cols[0]);
		return callers_cols;
	}
	*n = sizeof(tree_cols) / sizeof(tree_cols[0]);
	return tree_cols;
}

void sample_tree_path_release(struct sample_tree_path *p)
{
	strbuf_release(&p->sb);
	free(p->up);
	p->up = NULL;
	p->upcap = 0;
}
