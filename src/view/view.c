/* view.c - the renderers of a view (text, CSV, JSON, long CSV) and its sorting. */
#include "view/view.h"

#include "lib/jsonw.h"
#include "model/thread-label.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

static int col_shown(const struct view *v, const struct view_col *c, unsigned in)
{
	return (c->flags & in) && (v->per_thread || !(c->flags & VIEW_PER_THREAD)) &&
	       (v->option || !(c->flags & VIEW_OPTION)) && (v->openmp || !(c->flags & VIEW_OPENMP));
}

void view_get(const struct view *v, const struct view_col *c, const void *row,
	      struct view_value *out)
{
	out->kind = VIEW_NULL;
	out->s = NULL;
	out->suffix = NULL;
	out->buf[0] = '\0';
	c->get(v->ctx, row, c->arg, out);
}

static double as_double(const struct view_value *val)
{
	switch (val->kind) {
	case VIEW_I64:
		return (double)val->i;
	case VIEW_U64:
		return (double)val->u;
	case VIEW_F64:
		return val->d;
	default:
		return 0;
	}
}

/* "8 Mbit/s", "1.23 Gbit/s" */
static void fmt_rate(char *buf, size_t len, double bps)
{
	static const char *const units[] = {"bit/s", "kbit/s", "Mbit/s", "Gbit/s", "Tbit/s"};
	size_t u = 0;
	char num[32];

	while (bps >= 1000 && u + 1 < sizeof(units) / sizeof(units[0])) {
		bps /= 1000;
		u++;
	}
	fmt_double(num, sizeof(num), bps);
	snprintf(buf, len, "%s %s", num, units[u]);
}

/* A number as a table shows it, by type. */
static void format_text(const struct view_col *c, const struct view_value *val, char *buf,
			size_t len)
{
	switch (c->type) {
	case VIEW_COUNT:
		fmt_count(buf, len, val->kind == VIEW_U64 ? val->u : (uint64_t)as_double(val));
		break;
	case VIEW_NS:
	case VIEW_NS_1:
		fmt_duration(buf, len, as_double(val));
		break;
	case VIEW_DOUBLE:
	case VIEW_DOUBLE_15:
	case VIEW_DOUBLE_9:
	case VIEW_DOUBLE_3:
		fmt_double(buf, len, as_double(val));
		break;
	case VIEW_PCT:
	case VIEW_PCT_6:
		snprintf(buf, len, "%.1f", as_double(val));
		break;
	case VIEW_SHARE:
		snprintf(buf, len, "%.1f %%", as_double(val));
		break;
	case VIEW_FRAC:
		snprintf(buf, len, "%.1f %%", 100 * as_double(val));
		break;
	case VIEW_RATE:
		fmt_rate(buf, len, as_double(val));
		break;
	default:
		if (val->kind == VIEW_I64)
			snprintf(buf, len, "%" PRId64, val->i);
		else if (val->kind == VIEW_U64)
			snprintf(buf, len, "%" PRIu64, val->u);
		else
			snprintf(buf, len, "%.6g", val->d);
	}
}

/* A number as a CSV cell: integers as they are, durations to the ns, others "%.6g". */
static void format_csv(const struct view_col *c, const struct view_value *val, char *buf,
		       size_t len)
{
	if (val->kind == VIEW_I64)
		snprintf(buf, len, "%" PRId64, val->i);
	else if (val->kind == VIEW_U64)
		snprintf(buf, len, "%" PRIu64, val->u);
	else if (c->type == VIEW_RATE || c->type == VIEW_DOUBLE_9)
		snprintf(buf, len, "%.9g", val->d);
	else if (c->type == VIEW_DOUBLE_15)
		snprintf(buf, len, "%.15g", val->d);
	else if (c->type == VIEW_DOUBLE_3)
		snprintf(buf, len, "%.3f", val->d);
	else if (c->type == VIEW_NS_1)
		snprintf(buf, len, "%.1f", val->d);
	else if (c->type == VIEW_PCT_6 || c->type == VIEW_FRAC)
		snprintf(buf, len, "%.6f", val->d);
	else if (c->type == VIEW_NS || c->type == VIEW_COUNT || c->type == VIEW_INT)
		snprintf(buf, len, "%.0f", val->d);
	else if (c->type == VIEW_SHARE)
		snprintf(buf, len, "%.4f", val->d);
	else
		snprintf(buf, len, "%.6g", val->d);
}

void view_format(const struct view_col *c, const struct view_value *val, enum out_format fmt,
		 char *buf, size_t len)
{
	if (val->kind == VIEW_NULL) {
		snprintf(buf, len, "%s", fmt == OUT_TEXT && c->null_text ? c->null_text : "");
		return;
	}
	if (val->kind == VIEW_S) {
		snprintf(buf, len, "%s", val->s ? val->s : "");
		return;
	}
	if (fmt == OUT_TEXT)
		format_text(c, val, buf, len);
	else
		format_csv(c, val, buf, len);
	if (fmt == OUT_TEXT && val->suffix)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s", val->suffix);
}

int view_print_text(const struct view *v, FILE *f, const char *indent)
{
	struct table *t = table_new();
	size_t c, r, col;
	char buf[512];
	int ret = 0;

	if (!t)
		return -ENOMEM;
	for (c = 0; c < v->ncols && !ret; c++)
		if (col_shown(v, &v->cols[c], VIEW_IN_TEXT))
			ret = table_add_column(t, v->cols[c].header, v->cols[c].align);
	for (r = 0; r < v->nrows && !ret; r++) {
		if (v->separator && v->rows[r] == v->separator) {
			ret = table_add_separator(t);
			continue;
		}
		ret = table_add_row(t);
		for (c = 0, col = 0; c < v->ncols && !ret; c++) {
			struct view_value val;

			if (!col_shown(v, &v->cols[c], VIEW_IN_TEXT))
				continue;
			view_get(v, &v->cols[c], v->rows[r], &val);
			/* strings longer than BUF (a C++ name) go to the table whole */
			if (val.kind == VIEW_S && !val.suffix) {
				if (val.s && *val.s)
					ret = table_set(t, col, "%s", val.s);
			} else {
				view_format(&v->cols[c], &val, OUT_TEXT, buf, sizeof(buf));
				if (*buf)
					ret = table_set(t, col, "%s", buf);
			}
			col++;
		}
	}
	if (!ret)
		ret = table_print(t, f, indent);
	table_free(t);
	return ret;
}

/* One CSV cell of column C for ROW (no separator). */
static void csv_cell(const struct view *v, const struct view_col *c, const void *row, FILE *f)
{
	struct view_value val;
	char buf[64];

	view_get(v, c, row, &val);
	if (val.kind == VIEW_S) {
		csv_field(f, val.s);
		return;
	}
	view_format(c, &val, OUT_CSV, buf, sizeof(buf));
	fputs(buf, f);
}

int view_print_csv(const struct view *v, FILE *f)
{
	size_t c, r;
	int first = 1;

	for (c = 0; c < v->ncols; c++) {
		if (!col_shown(v, &v->cols[c], VIEW_IN_CSV))
			continue;
		if (!first)
			fputc(',', f);
		first = 0;
		csv_field(f, v->cols[c].key);
	}
	fputc('\n', f);
	for (r = 0; r < v->nrows; r++) {
		if (v->separator && v->rows[r] == v->separator)
			continue;
		first = 1;
		for (c = 0; c < v->ncols; c++) {
			if (!col_shown(v, &v->cols[c], VIEW_IN_CSV))
				continue;
			if (!first)
				fputc(',', f);
			first = 0;
			csv_cell(v, &v->cols[c], v->rows[r], f);
		}
		fputc('\n', f);
	}
	return ferror(f) ? -EIO : 0;
}

static int col_entity(const struct view *v, const struct view_col *c)
{
	return col_shown(v, c, VIEW_IN_CSV) && (c->flags & VIEW_ENTITY);
}

static int col_metric(const struct view *v, const struct view_col *c)
{
	return col_shown(v, c, VIEW_IN_CSV) && !(c->flags & VIEW_ENTITY) && c->type != VIEW_STR;
}

int view_print_long(const struct view *v, FILE *f)
{
	size_t c, m, r;

	for (c = 0; c < v->ncols; c++) {
		if (!col_entity(v, &v->cols[c]))
			continue;
		csv_field(f, v->cols[c].key);
		fputc(',', f);
	}
	fputs("metric,value\n", f);
	for (r = 0; r < v->nrows; r++) {
		if (v->separator && v->rows[r] == v->separator)
			continue;
		for (m = 0; m < v->ncols; m++) {
			if (!col_metric(v, &v->cols[m]))
				continue;
			for (c = 0; c < v->ncols; c++) {
				if (!col_entity(v, &v->cols[c]))
					continue;
				csv_cell(v, &v->cols[c], v->rows[r], f);
				fputc(',', f);
			}
			csv_field(f, v->cols[m].key);
			fputc(',', f);
			csv_cell(v, &v->cols[m], v->rows[r], f);
			fputc('\n', f);
		}
	}
	return ferror(f) ? -EIO : 0;
}

static void json_value(struct jsonw *w, const struct view_value *val)
{
	switch (val->kind) {
	case VIEW_S:
		jsonw_string(w, val->s ? val->s : "");
		break;
	case VIEW_I64:
		jsonw_i64(w, val->i);
		break;
	case VIEW_U64:
		jsonw_u64(w, val->u);
		break;
	case VIEW_F64:
		jsonw_double(w, val->d);
		break;
	default:
		jsonw_null(w);
	}
}

void view_json_row(struct jsonw *w, const struct view *v, const void *row)
{
	jsonw_object_begin(w);
	for (size_t c = 0; c < v->ncols; c++) {
		const struct view_col *col = &v->cols[c];
		struct view_value val;

		if (!col_shown(v, col, VIEW_IN_JSON))
			continue;
		if (col->json) {
			jsonw_key(w, col->key);
			col->json(w, v->ctx, row, col->arg);
			continue;
		}
		view_get(v, col, row, &val);
		if (val.kind == VIEW_NULL && (col->flags & VIEW_JSON_OMIT_NULL))
			continue;
		jsonw_key(w, col->key);
		json_value(w, &val);
	}
	jsonw_object_end(w);
}

void view_json_rows(struct jsonw *w, const struct view *v)
{
	jsonw_array_begin(w);
	for (size_t r = 0; r < v->nrows; r++)
		if (!v->separator || v->rows[r] != v->separator)
			view_json_row(w, v, v->rows[r]);
	jsonw_array_end(w);
}

const struct view_col *view_sort_col(const struct view_col *cols, size_t n, const char *word)
{
	for (size_t c = 0; c < n; c++)
		if (cols[c].sort && !strcmp(cols[c].sort, word))
			return &cols[c];
	for (size_t c = 0; c < n; c++)
		if (cols[c].sort && !strcmp(cols[c].key, word))
			return &cols[c];
	return NULL;
}

void view_sort_words(const struct view_col *cols, size_t n, char *buf, size_t len)
{
	size_t total = 0, k = 0, off = 0;

	for (size_t c = 0; c < n; c++)
		total += cols[c].sort != NULL;
	if (len)
		buf[0] = '\0';
	for (size_t c = 0; c < n && off < len; c++) {
		if (!cols[c].sort)
			continue;
		k++;
		off += (size_t)snprintf(buf + off, len - off, "%s%s",
					k == 1	     ? ""
					: k == total ? " or "
						     : ", ",
					cols[c].sort);
	}
}

static const struct view_col *find_key(const struct view_order *o, const char *key)
{
	for (size_t c = 0; key && c < o->ncols; c++)
		if (!strcmp(o->cols[c].key, key))
			return &o->cols[c];
	return NULL;
}

/* A before B (negative) in column C's direction; values not counted last. */
static int cmp_col(const struct view_order *o, const struct view_col *c, const void *a,
		   const void *b)
{
	struct view v = {.ctx = o->ctx, .per_thread = o->per_thread};
	struct view_value x, y;
	int r;

	view_get(&v, c, a, &x);
	view_get(&v, c, b, &y);
	if (x.kind == VIEW_NULL || y.kind == VIEW_NULL)
		return (x.kind == VIEW_NULL) - (y.kind == VIEW_NULL);
	if (x.kind == VIEW_S || y.kind == VIEW_S) {
		r = strcmp(x.kind == VIEW_S && x.s ? x.s : "", y.kind == VIEW_S && y.s ? y.s : "");
		r = (r > 0) - (r < 0);
	} else {
		double dx = as_double(&x), dy = as_double(&y);

		r = (dx > dy) - (dx < dy);
	}
	return c->flags & VIEW_ASCENDING ? r : -r;
}

int view_order_cmp(const void *a, const void *b, void *order)
{
	const struct view_order *o = order;
	const struct view_col *tie = find_key(o, o->by->tie);
	int r = cmp_col(o, o->by, a, b);

	return r || !tie ? r : cmp_col(o, tie, a, b);
}

void view_set_omp_thread(struct view_value *v, uint64_t tasks, uint32_t min, uint32_t max)
{
	if (!tasks)
		return;
	if (min == max) {
		view_set_i64(v, min);
		return;
	}
	snprintf(v->buf, sizeof(v->buf), "%u-%u", min, max);
	view_set_str(v, v->buf);
}

void view_set_thread_label(struct view_value *v, int64_t tid, uint64_t tasks, uint32_t min,
			   uint32_t max, int rank)
{
	char omp[48];

	if (!thread_label_of(omp, sizeof(omp), tasks, min, max, rank)) {
		view_set_i64(v, tid);
		return;
	}
	snprintf(v->buf, sizeof(v->buf), "%s · %" PRId64, omp, tid);
	view_set_str(v, v->buf);
}
