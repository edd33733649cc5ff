/* html-counters.c - the report's "counters" data (stub until its view lands). */
#include "html-int.h"

int html_data_counters(struct jsonw *w, struct html_input *in)
{
	(void)w;
	(void)in;
	return 0;
}
