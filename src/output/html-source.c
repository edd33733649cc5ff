/* html-source.c - the report's "source" data (stub until its view lands). */
#include "html-int.h"

int html_data_source(struct jsonw *w, struct html_input *in)
{
	(void)w;
	(void)in;
	return 0;
}
