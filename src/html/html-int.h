/*
 * html-int.h - what html.c asks of each view's data builder (html-VIEW.c) and what it offers
 * them. The report's data is one JSON object; each builder writes its own keys into it and
 * nothing when the experiment lacks the view's data, so the view is absent, not broken.
 * docs/html.md describes every key.
 */
#ifndef PSC_HTML_INT_H
#define PSC_HTML_INT_H

#include "analysis/energy/energy.h"
#include "format/power.h"
#include "lib/jsonw.h"
#include "html/html.h"

/* A data builder: writes "key": value pairs into W's open object. 0, or a negative errno
 * only for out of memory; missing or unreadable data is a caveat (html_caveat). */
typedef int (*html_data_fn)(struct jsonw *w, struct html_input *in);

int html_data_profile(struct jsonw *w, struct html_input *in);	/* "profile" (html-profile.c) */
int html_data_timeline(struct jsonw *w, struct html_input *in); /* "timeline" (html-timeline.c) */
int html_data_mpi(struct jsonw *w, struct html_input *in);	/* "mpi" (html-mpi.c) */
int html_data_states(struct jsonw *w, struct html_input *in);	/* "states", "load" (html-anim.c) */
int html_data_energy(struct jsonw *w, struct html_input *in);	/* "energy" (html-energy.c) */
int html_data_counters(struct jsonw *w, struct html_input *in); /* "counters" (html-counters.c) */
int html_data_source(struct jsonw *w, struct html_input *in);	/* "source" (html-source.c) */
int html_data_openmp(struct jsonw *w, struct html_input *in);	/* "openmp" (html-omp.c) */

/* An OTF2 archive's report (IN->otf2, html-otf2.c). */
struct tl_lod;

/* "meta": the archive's facts (creator, clock, locations) for the Summary, and the caveat
 * naming what an archive lacks. 0, or -ENOMEM; an unreadable archive is a caveat. */
int html_otf2_meta(struct jsonw *w, struct html_input *in);

/* The archive's calls of functions and regions (every Enter/Leave but the MPI routines', which
 * the MPI model gives) into T: a row per location of a rank (rank and thread index as tid,
 * as the model's locations), ORIGIN_NS its time 0 on the archive's clock. 0, or -ENOMEM; an
 * unreadable archive is a caveat and keeps the rows read. */
int html_otf2_timeline(struct tl_lod *t, struct html_input *in, int64_t origin_ns);

/* The MPI model of IN's experiment (or archive), asked of the session on first use, when its
 * warnings become caveats; NULL when it has no MPI records, or when loading failed (then a
 * caveat says why). */
const struct mpi_model *html_mpi(struct html_input *in);

/* The wait states of html_mpi()'s model, asked of the session (which computes them once);
 * NULL without a model or out of memory. */
const struct mpi_waits *html_waits(struct html_input *in);

/* The energy profile of IN's experiment (html-energy.c): the power samples, the channel
 * charged and the profile per thread and merged, with the merged rows' order by exclusive
 * energy (largest first). */
struct html_energy {
	struct power_series ps;
	size_t channel;
	struct energy_profile ep;
	size_t *order; /* ep.merged.nrows indexes */
};

/* The energy profile, built once for the Energy, Profile and Source views on first use; NULL
 * without power samples or function calls, or when it could not be built (then a caveat
 * says why: "Energy view left out: ..."). */
const struct html_energy *html_energy(struct html_input *in);

/* Release what html_energy() built (html_input_release calls it). */
void html_energy_release(struct html_input *in);

/* Add a caveat line (printf format) for the Summary view. */
void html_caveat(struct html_input *in, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* html_caveat as a caveat callback (caveats.h): CTX is the struct html_input. A line the
 * Summary has already is not added again. */
void html_caveat_line(void *ctx, const char *line);

#endif /* PSC_HTML_INT_H */
