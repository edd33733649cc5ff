/* html-energy.c - the report's "energy" data (stub until its view lands). */
#include "html-int.h"

int html_data_energy(struct jsonw *w, struct html_input *in)
{
	(void)w;
	(void)in;
	return 0;
}
