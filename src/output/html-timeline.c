/* html-timeline.c - the report's "timeline" data (stub until its view lands). */
#include "html-int.h"

int html_data_timeline(struct jsonw *w, struct html_input *in)
{
	(void)w;
	(void)in;
	return 0;
}
