/* html-mpi.c - the report's "mpi" data (stub until its view lands). */
#include "html-int.h"

int html_data_mpi(struct jsonw *w, struct html_input *in)
{
	(void)w;
	(void)in;
	return 0;
}
