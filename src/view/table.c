/* table.c - aligned text tables, CSV, and human number formatting. */
#include "view/table.h"
#include "lib/textesc.h"
#include "lib/array.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct table_col {
	char *header;
	enum table_align align;
};

struct table_row {
	char **cells; /* ncells entries, NULL for an empty cell */
	size_t ncells;
	bool separator;
};

struct table {
	struct table_col *cols;
	size_t ncols, cap_cols;
	struct table_row *rows;
	size_t nrows, cap_rows;
};

struct table *table_new(void)
{
	return calloc(1, sizeof(struct table));
}

int table_add_column(struct table *t, const char *header, enum table_align align)
{
	char *copy;

	if (!t)
		return -EINVAL;
	if (array_reserve((void **)&t->cols, &t->cap_cols, t->ncols + 1, sizeof(*t->cols)))
		return -ENOMEM;
	copy = strdup(header ? header : "");
	if (!copy)
		return -ENOMEM;
	t->cols[t->ncols].header = copy;
	t->cols[t->ncols].align = align;
	t->ncols++;
	return 0;
}

static int add_row(struct table *t, bool separator)
{
	if (!t)
		return -EINVAL;
	if (array_reserve((void **)&t->rows, &t->cap_rows, t->nrows + 1, sizeof(*t->rows)))
		return -ENOMEM;
	t->rows[t->nrows].cells = NULL;
	t->rows[t->nrows].ncells = 0;
	t->rows[t->nrows].separator = separator;
	t->nrows++;
	return 0;
}

int table_add_row(struct table *t)
{
	return add_row(t, false);
}

int table_add_separator(struct table *t)
{
	return add_row(t, true);
}

int table_set(struct table *t, size_t col, const char *fmt, ...)
{
	struct table_row *row;
	va_list ap, ap2;
	char *text;
	int n;

	if (!t || !fmt || t->nrows == 0 || col >= t->ncols)
		return -EINVAL;
	row = &t->rows[t->nrows - 1];
	if (row->separator)
		return -EINVAL;
	if (col >= row->ncells) {
		char **cells = realloc(row->cells, t->ncols * sizeof(*cells));

		if (!cells)
			return -ENOMEM;
		memset(cells + row->ncells, 0, (t->ncols - row->ncells) * sizeof(*cells));
		row->cells = cells;
		row->ncells = t->ncols;
	}

	va_start(ap, fmt);
	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		va_end(ap2);
		return -EINVAL;
	}
	text = malloc((size_t)n + 1);
	if (!text) {
		va_end(ap2);
		return -ENOMEM;
	}
	vsnprintf(text, (size_t)n + 1, fmt, ap2);
	va_end(ap2);

	free(row->cells[col]);
	row->cells[col] = text;
	return 0;
}

void table_free(struct table *t)
{
	size_t i, j;

	if (!t)
		return;
	for (i = 0; i < t->ncols; i++)
		free(t->cols[i].header);
	for (i = 0; i < t->nrows; i++) {
		for (j = 0; j < t->rows[i].ncells; j++)
			free(t->rows[i].cells[j]);
		free(t->rows[i].cells);
	}
	free(t->cols);
	free(t->rows);
	free(t);
}

size_t utf8_width(const char *s)
{
	size_t n = 0;

	for (; s && *s; s++) {
		if (((unsigned char)*s & 0xC0) != 0x80)
			n++;
	}
	return n;
}

/* Text of column C in ROW, or the header when ROW is NULL, escaped (textesc.h); never NULL. */
static const char *cell_text(const struct table *t, const struct table_row *row, size_t c)
{
	if (!row)
		return text_safe(t->cols[c].header);
	if (c < row->ncells && row->cells[c])
		return text_safe(row->cells[c]);
	return "";
}

static void put_spaces(FILE *f, size_t n)
{
	while (n--)
		fputc(' ', f);
}

/* One line of cells (ROW NULL: the headers), padding deferred so no line ends in blanks. */
static void print_cells(const struct table *t, const struct table_row *row, const size_t *widths,
			FILE *f, const char *indent)
{
	size_t c, pending = 0;

	fputs(indent, f);
	for (c = 0; c < t->ncols; c++) {
		const char *text = cell_text(t, row, c);
		size_t w = utf8_width(text);

		if (c > 0)
			pending += 2;
		if (t->cols[c].align == TABLE_RIGHT)
			pending += widths[c] - w;
		if (*text) {
			put_spaces(f, pending);
			pending = 0;
			fputs(text, f);
		}
		if (t->cols[c].align == TABLE_LEFT)
			pending += widths[c] - w;
	}
	fputc('\n', f);
}

static void print_rule(const struct table *t, const size_t *widths, FILE *f, const char *indent)
{
	size_t c, i, pending = 0;

	fputs(indent, f);
	for (c = 0; c < t->ncols; c++) {
		if (c > 0)
			pending += 2;
		if (widths[c] == 0)
			continue;
		put_spaces(f, pending);
		pending = 0;
		for (i = 0; i < widths[c]; i++)
			fputc('-', f);
	}
	fputc('\n', f);
}

int table_print(const struct table *t, FILE *f, const char *indent)
{
	size_t *widths, r, c;

	if (!t || !f)
		return -EINVAL;
	if (t->ncols == 0)
		return 0;
	if (!indent)
		indent = "";
	widths = calloc(t->ncols, sizeof(*widths));
	if (!widths)
		return -ENOMEM;
	for (c = 0; c < t->ncols; c++)
		widths[c] = utf8_width(cell_text(t, NULL, c));
	for (r = 0; r < t->nrows; r++) {
		const struct table_row *row = &t->rows[r];

		for (c = 0; c < row->ncells; c++) {
			size_t w = utf8_width(cell_text(t, row, c));

			if (w > widths[c])
				widths[c] = w;
		}
	}

	print_cells(t, NULL, widths, f, indent);
	print_rule(t, widths, f, indent);
	for (r = 0; r < t->nrows; r++) {
		if (t->rows[r].separator)
			print_rule(t, widths, f, indent);
		else
			print_cells(t, &t->rows[r], widths, f, indent);
	}
	free(widths);
	return ferror(f) ? -EIO : 0;
}

void csv_field(FILE *f, const char *s)
{
	if (!s)
		return;
	s = text_safe(s);
	if (!strpbrk(s, ",\"")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

int table_print_csv(const struct table *t, FILE *f)
{
	size_t r, c;

	if (!t || !f)
		return -EINVAL;
	if (t->ncols == 0)
		return 0;
	for (c = 0; c < t->ncols; c++) {
		if (c > 0)
			fputc(',', f);
		csv_field(f, t->cols[c].header);
	}
	fputc('\n', f);
	for (r = 0; r < t->nrows; r++) {
		if (t->rows[r].separator)
			continue;
		for (c = 0; c < t->ncols; c++) {
			if (c > 0)
				fputc(',', f);
			csv_field(f, c < t->rows[r].ncells ? t->rows[r].cells[c] : NULL);
		}
		fputc('\n', f);
	}
	return ferror(f) ? -EIO : 0;
}

/* Copy IN ("-1234567.5") to BUF with ',' between groups of three integer digits. */
static void group_thousands(char *buf, size_t len, const char *in)
{
	char out[96];
	size_t o = 0, i, nd;

	if (*in == '-')
		out[o++] = *in++;
	nd = strspn(in, "0123456789");
	for (i = 0; i < nd && o + 2 < sizeof(out); i++) {
		if (i > 0 && (nd - i) % 3 == 0)
			out[o++] = ',';
		out[o++] = in[i];
	}
	out[o] = '\0';
	snprintf(buf, len, "%s%s", out, in + nd);
}

void fmt_count(char *buf, size_t len, uint64_t v)
{
	char tmp[32];

	if (!buf || len == 0)
		return;
	snprintf(tmp, sizeof(tmp), "%" PRIu64, v);
	group_thousands(buf, len, tmp);
}

/*
 * V (>= 0) with 3 significant digits into TMP; false when it rounds to 1000 or more, so the
 * caller moves to the next unit.
 */
static bool sig3(char *tmp, size_t len, double v)
{
	int d = v < 10 ? 2 : v < 100 ? 1 : 0;

	for (;;) {
		double r;

		snprintf(tmp, len, "%.*f", d, v);
		r = strtod(tmp, NULL);
		if ((d == 2 && r >= 10) || (d == 1 && r >= 100)) {
			d--;
			continue;
		}
		return !(d == 0 && r >= 1000);
	}
}

void fmt_duration(char *buf, size_t len, double ns)
{
	static const char *const units[] = {"ns", "\xc2\xb5s", "ms"};
	const char *sign = "";
	char tmp[64];
	double v;
	size_t u;

	if (!buf || len == 0)
		return;
	if (!isfinite(ns)) {
		snprintf(buf, len, "n/a");
		return;
	}
	if (ns == 0) {
		snprintf(buf, len, "0 ns");
		return;
	}
	if (ns < 0) {
		sign = "-";
		ns = -ns;
	}
	for (u = 0, v = ns; u < 3; u++, v /= 1000) {
		if (v < 1000 && sig3(tmp, sizeof(tmp), v)) {
			snprintf(buf, len, "%s%s %s", sign, tmp, units[u]);
			return;
		}
	}
	snprintf(buf, len, "%s%.3f s", sign, ns / 1e9);
}

void fmt_double(char *buf, size_t len, double v)
{
	char tmp[64];
	double a = fabs(v);
	int d;

	if (!buf || len == 0)
		return;
	if (isnan(v)) {
		snprintf(buf, len, "n/a");
		return;
	}
	if (isinf(v)) {
		snprintf(buf, len, "%s", v > 0 ? "inf" : "-inf");
		return;
	}
	if (v == 0) {
		snprintf(buf, len, "0");
		return;
	}
	if (a < 1e-3 || a >= 1e15) {
		snprintf(buf, len, "%.4g", v);
		return;
	}
	if (a >= 1000) {
		snprintf(tmp, sizeof(tmp), "%.0f", v);
		if (strspn(tmp + (tmp[0] == '-'), "0123456789") > 4)
			group_thousands(buf, len, tmp);
		else
			snprintf(buf, len, "%s", tmp);
		return;
	}
	d = a >= 100 ? 1 : a >= 10 ? 2 : a >= 1 ? 3 : a >= 0.1 ? 4 : a >= 0.01 ? 5 : 6;
	snprintf(tmp, sizeof(tmp), "%.*f", d, v);
	if (strchr(tmp, '.')) {
		char *end = tmp + strlen(tmp) - 1;

		while (*end == '0')
			*end-- = '\0';
		if (*end == '.')
			*end = '\0';
	}
	snprintf(buf, len, "%s", tmp);
}
