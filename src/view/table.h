/*
 * table.h - aligned text tables and CSV for every human and machine output, plus the number
 * formatting helpers the outputs share.
 */
#ifndef PSC_TABLE_H
#define PSC_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum table_align { TABLE_LEFT, TABLE_RIGHT };

/* Columns with headers; rows of cells (strings, copied); optional separator rows. */
struct table;

/* New empty table, or NULL when out of memory. */
struct table *table_new(void);

/* Append a column (columns may be added at any time). Returns 0 or -ENOMEM/-EINVAL. */
int table_add_column(struct table *t, const char *header, enum table_align align);

/* Start a new row; its cells are empty until set. Returns 0 or -ENOMEM/-EINVAL. */
int table_add_row(struct table *t);

/* Set cell COL of the current row (a single line of text) from a printf format.
 * Returns 0, -EINVAL (no current row, a separator, or no such column) or -ENOMEM. */
int table_set(struct table *t, size_t col, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Append a separator row, printed as a line of dashes. Returns 0 or -ENOMEM/-EINVAL. */
int table_add_separator(struct table *t);

/*
 * Print aligned, each line prefixed with INDENT (may be NULL): every header and cell escaped
 * (textesc.h: a cell's control characters are shown, never sent), column widths computed from
 * that text in UTF-8 code points, two spaces between columns, header underlined with '-' to the
 * column width, no trailing blanks. Returns 0 or -EIO when writing failed.
 */
int table_print(const struct table *t, FILE *f, const char *indent);

/* Print as CSV (csv_field: RFC 4180 quoting, "\n" line ends), header row first, separators
 * skipped. Returns 0 or -EIO when writing failed. */
int table_print_csv(const struct table *t, FILE *f);

/* Free T and every cell (NULL is fine). */
void table_free(struct table *t);

/* Write S (NULL: empty) as one CSV field to F: escaped (textesc.h, so no control character and
 * no line break is ever written raw), then quoted when it has a comma or a quote. */
void csv_field(FILE *f, const char *s);

/* Number of UTF-8 code points in S (its display width for tables). */
size_t utf8_width(const char *s);

/* 1234567 -> "1,234,567". */
void fmt_count(char *buf, size_t len, uint64_t v);

/* "812 ns", "12.3 µs", "4.56 ms" (3 significant digits below 1 s), "1.234 s"; negative values
 * get a '-', NaN and infinities give "n/a". */
void fmt_duration(char *buf, size_t len, double ns);

/* Up to 4 significant digits without exponent for 1e-3 <= |v| < 1e15 ("0.998", "1.23",
 * "1234"); integer digits are never dropped and get separators above 9999 ("12,346");
 * "%.4g" outside that range; "n/a" for NaN, "inf"/"-inf". */
void fmt_double(char *buf, size_t len, double v);

#endif /* PSC_TABLE_H */
