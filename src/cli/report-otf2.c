/* report-otf2.c - `perfscope report` on an OTF2 archive (report-otf2.h). */
#include "cli/report-otf2.h"

#include <string.h>

void report_otf2_refuse(const char *anchor, const char *option)
{
	if (!strcmp(option, "--by region"))
		cli_error("report",
			  "%s: an OTF2 archive has no perfscope regions (its regions are rows of "
			  "the function profile): drop --by region",
			  anchor);
	else
		cli_error("report",
			  "%s: an OTF2 archive has no samples (%s needs perfscope record --sample)",
			  anchor, option);
}
