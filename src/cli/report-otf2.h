/* report-otf2.h - `perfscope report` on an OTF2 archive (its anchor file, *.otf2): what an
 * archive cannot serve. Its profiles come from the session (model/session.h). */
#ifndef PSC_REPORT_OTF2_H
#define PSC_REPORT_OTF2_H

#include "cli/cli.h"

/* The one line for an option the archive cannot serve (OPTION: "--lines", "--by region"...):
 * data only a perfscope experiment has. */
void report_otf2_refuse(const char *anchor, const char *option);

#endif /* PSC_REPORT_OTF2_H */
