/*
 * html.h - the self-contained HTML report: one file with its CSS, JavaScript and data
 * inlined (assets in src/output/assets, embedded at build time), no network access.
 */
#ifndef PSC_HTML_H
#define PSC_HTML_H

#include <stdio.h>

#include "region-print.h"

/* Write the report of R's experiment to F. 0, -ENOMEM or -EIO. */
int html_write(FILE *f, const struct region_report *r);

#endif /* PSC_HTML_H */
