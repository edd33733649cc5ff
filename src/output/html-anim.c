/* html-anim.c - the report's "states" data (stub until its view lands). */
#include "html-int.h"

int html_data_states(struct jsonw *w, struct html_input *in)
{
	(void)w;
	(void)in;
	return 0;
}
