/* html-profile.c - the report's "profile" data: regions (functions, samples and energy to come). */
#include "html-int.h"

int html_data_profile(struct jsonw *w, struct html_input *in)
{
	jsonw_key(w, "profile");
	region_json(w, in->rr);
	return 0;
}
