/* mpi-print.c - the MPI analyses as text, CSV and JSON (mpi-print.h). */
#include "view/mpi-print.h"
#include "lib/textesc.h"
#include "view/caveats.h"
#include "view/mpi-print-int.h"
#include "view/table.h"
#include "lib/strbuf.h"

#include "view/mpi-view.h"

#include "format/format.h"
#include "format/mpi-routines.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define TOP_ROUTINES 5

/* The ranks without data. */
static void caveats_missing(const struct mpi_model *m, void (*fn)(void *, const char *), void *ctx)
{
	struct strbuf missing = STRBUF_INIT;
	size_t nmissing = 0;

	for (int i = 0; i < m->world_size; i++) {
		if (m->ranks[i].present)
			continue;
		strbuf_addf(&missing, "%s%d", nmissing ? ", " : "", i);
		nmissing++;
	}
	if (nmissing)
		caveat_say(fn, ctx,
			   "%zu of %d ranks have no data (%s): their calls, messages and waits "
			   "are missing",
			   nmissing, m->world_size, missing.err ? "out of memory" : missing.buf);
	strbuf_release(&missing);
}

/* The clocks: not aligned, or a rank's drift not corrected. */
static void caveats_clock(const struct mpi_report *r, void (*fn)(void *, const char *), void *ctx)
{
	const struct mpi_model *m = r->m;

	if (!r->e)
		caveat_say(fn, ctx, "times as the trace gives them (not aligned by perfscope)");
	else if (!m->clock_aligned && m->world_size > 1)
		caveat_say(fn, ctx,
			   "clocks not aligned (the ranks measured no offsets): every rank's times "
			   "are its own clock's, and waits between hosts may be wrong");
	for (int i = 0; r->e && m->clock_aligned && i < m->world_size; i++)
		if (m->ranks[i].present && i > 0 &&
		    m->ranks[i].has_clock[0] + m->ranks[i].has_clock[1] == 1)
			caveat_say(fn, ctx,
				   "rank %d: one clock offset only (%s): its drift is not "
				   "corrected",
				   i,
				   m->ranks[i].has_clock[0]
				       ? "none at MPI_Finalize, or it was ignored"
				       : "none at MPI_Init");
}

/* Messages and collectives against causality, and what the correction did. */
static void caveats_causality(const struct mpi_report *r, void (*fn)(void *, const char *),
			      void *ctx)
{
	const struct mpi_model *m = r->m;
	char a[32];

	fmt_duration(a, sizeof(a), (double)m->max_correction_ns);
	if (m->clock_aligned && m->violations_unaligned > m->violations_before)
		caveat_say(fn, ctx,
			   "%" PRIu64 " messages received before they were sent on the ranks' own "
			   "clocks: the clock alignment fixed %" PRIu64,
			   m->violations_unaligned, m->violations_unaligned - m->violations_before);
	if (m->violations_before && r->no_correction)
		caveat_say(fn, ctx,
			   "%" PRIu64 " messages received before they were sent (clock "
			   "error), not corrected (--no-correction): their waits are wrong",
			   m->violations_before);
	else if (m->violations_before)
		caveat_say(fn, ctx,
			   "%" PRIu64 " messages received before they were sent (clock "
			   "error): corrected, %" PRIu64 " left, largest shift %s",
			   m->violations_before, m->violations_after, a);
	if (m->coll_violations_before && r->no_correction)
		caveat_say(fn, ctx,
			   "%" PRIu64 " collective calls left before a rank they depend on "
			   "entered (clock error), not corrected (--no-correction): their "
			   "waits are wrong",
			   m->coll_violations_before);
	else if (m->coll_violations_before)
		caveat_say(fn, ctx,
			   "%" PRIu64 " collective calls left before a rank they depend on "
			   "entered (clock error): corrected, %" PRIu64 " left, largest shift %s",
			   m->coll_violations_before, m->coll_violations_after, a);
}

/* Unmatched messages and collectives short of participants. */
static void caveats_unmatched(const struct mpi_report *r, void (*fn)(void *, const char *),
			      void *ctx)
{
	const struct mpi_model *m = r->m;
	uint64_t sends = 0, recvs = 0;
	size_t short_colls = 0;

	if (r->traffic)
		for (size_t i = 0; i < r->traffic->nunmatched; i++)
			*(r->traffic->unmatched[i].kind == MPI_UNMATCHED_SEND ? &sends : &recvs) +=
			    1;
	else {
		sends = m->unmatched_sends;
		recvs = m->unmatched_recvs;
	}
	if (sends || recvs)
		caveat_say(fn, ctx,
			   "%" PRIu64 " sends and %" PRIu64 " receives not matched (listed by "
			   "perfscope mpi --traffic): not in the rates nor the waits",
			   sends, recvs);
	for (size_t i = 0; i < m->ncolls; i++)
		short_colls += m->colls[i].nmissing > 0;
	if (short_colls)
		caveat_say(fn, ctx,
			   "%zu collective operations lack participants: their waits count those "
			   "present",
			   short_colls);
}

void mpi_caveats(const struct mpi_report *r, void (*fn)(void *ctx, const char *line), void *ctx)
{
	if (r->e)
		experiment_caveats(r->e, 1, fn, ctx);
	for (size_t i = 0; i < r->m->nwarnings; i++)
		caveat_say(fn, ctx, "%s", r->m->warnings[i]);
	caveats_missing(r->m, fn, ctx);
	caveats_clock(r, fn, ctx);
	caveats_causality(r, fn, ctx);
	caveats_unmatched(r, fn, ctx);
}

/* Table T of R in FMT (text, CSV or long CSV), into F. 0, -ENOMEM or -EIO. */
static int print_table(const struct mpi_report *r, enum mpi_table t, enum out_format fmt, FILE *f)
{
	struct view v;
	int ret = mpi_view_make(&v, r, t, fmt, 0);

	if (ret)
		return ret;
	ret = fmt == OUT_TEXT	? view_print_text(&v, f, NULL)
	      : fmt == OUT_LONG ? view_print_long(&v, f)
				: view_print_csv(&v, f);
	mpi_view_release(&v);
	return ret;
}

static int waits_table(const struct mpi_report *r, FILE *f)
{
	int ret;

	fprintf(f, "Wait matrix: row waits for column (Late Sender), in collectives, in all%s\n\n",
		r->rel == MPI_REL_EXEC	 ? " (% of the rank's execution time)"
		: r->rel == MPI_REL_WAIT ? " (% of the rank's total wait)"
					 : "");
	ret = print_table(r, MPI_TABLE_MATRIX, OUT_TEXT, f);
	if (!r->all)
		fprintf(f, "(cells under %.1f %% of the rank's %s are blank: --all shows them)\n",
			MPI_WAITS_HIDE_PCT,
			r->rel == MPI_REL_WAIT ? "total wait" : "execution time");
	return ret;
}

static void summary_text(const struct mpi_report *r, FILE *f)
{
	const struct mpi_model *m = r->m;
	const struct mpi_routines *rs = r->routines;
	unsigned order[MPI_ROUTINE_COUNT];
	size_t n = (size_t)mpi_view_routines_by_time(rs, order), present = 0;
	int64_t waits = wait_sum(r->waits);
	char a[32], b[32];

	for (int i = 0; i < m->world_size; i++)
		present += m->ranks[i].present != 0;
	fmt_duration(a, sizeof(a), (double)run_ns(m));
	fprintf(f, "MPI run of %s: %d ranks (%zu with data), run %s\n",
		m->source ? text_safe(m->source) : "?", m->world_size, present, a);
	fmt_duration(a, sizeof(a), (double)rs->mpi_total_ns);
	fprintf(f, "time in MPI: %.1f %% of the ranks' time (%s summed over ranks)\n",
		pct((double)rs->mpi_total_ns, (double)rs->run_total_ns), a);
	fmt_duration(a, sizeof(a), (double)waits);
	fmt_duration(b, sizeof(b), (double)r->waits->pattern_total[MPI_PAT_LATE_RECEIVER]);
	fprintf(f,
		"waiting: %s, %.1f %% of the ranks' time; Late Receiver (not in the matrix) %s\n",
		a, pct((double)waits, (double)exec_sum(r->waits)), b);
	fmt_duration(a, sizeof(a), (double)m->max_correction_ns);
	fprintf(f, "causality violations: ");
	if (m->clock_aligned && m->violations_unaligned != m->violations_before)
		fprintf(f, "%" PRIu64 " on the ranks' own clocks, ", m->violations_unaligned);
	fprintf(f, "%" PRIu64 " as recorded%s, %" PRIu64 " %s", m->violations_before,
		m->clock_aligned && m->violations_unaligned != m->violations_before
		    ? " with clocks aligned"
		    : "",
		m->violations_after, r->no_correction ? "(not corrected)" : "after correction");
	fprintf(f, "; in collectives %" PRIu64 " as recorded, %" PRIu64 " %s",
		m->coll_violations_before, m->coll_violations_after,
		r->no_correction ? "(not corrected)" : "after correction");
	if (!r->no_correction && (m->violations_before || m->coll_violations_before))
		fprintf(f, " (largest shift %s)", a);
	fputs("\ntop routines:", f);
	for (size_t i = 0; i < n && i < TOP_ROUTINES; i++)
		fprintf(f, "%s %s %.1f %%", i ? "," : "", routine_name(order[i]),
			pct((double)rs->all[order[i]].total_ns, (double)rs->run_total_ns));
	fputs(n ? " of the ranks' time\n\n" : " none\n\n", f);
}

static int routines_table(const struct mpi_report *r, FILE *f)
{
	fprintf(f, "MPI routines: all ranks, then each rank (run %% and MPI %%: of the rank's run "
		   "time and of its time in MPI)\n\n");
	return print_table(r, MPI_TABLE_ROUTINES, OUT_TEXT, f);
}

/* The message pairs, then the unmatched ends, in FMT: text, CSV or long CSV. */
static int traffic_table(const struct mpi_report *r, enum out_format fmt, FILE *f)
{
	const struct mpi_traffic *tr = r->traffic;
	char a[64], b[64];
	int ret;

	if (fmt == OUT_TEXT) {
		fmt_count(a, sizeof(a), tr->messages);
		fmt_count(b, sizeof(b), tr->matched);
		fprintf(f,
			"Messages: %s, %s matched, %zu ends unmatched; rate = bits / (receive "
			"completed - send started)\n\n",
			a, b, tr->nunmatched);
	}
	ret = print_table(r, MPI_TABLE_PAIRS, fmt, f);
	if (ret || (fmt == OUT_TEXT && !tr->nunmatched))
		return ret;
	fputs(fmt == OUT_TEXT ? "\nUnmatched message ends\n\n" : "\n", f);
	return print_table(r, MPI_TABLE_UNMATCHED, fmt, f);
}

/* The wait-state patterns, then in text each one's worst call sites, in FMT. */
static int patterns_table(const struct mpi_report *r, enum out_format fmt, FILE *f)
{
	const struct mpi_waits *w = r->waits;
	struct view v;
	int ret;

	if (fmt == OUT_TEXT)
		fprintf(f, "Wait states (%% of the ranks' summed execution time)\n\n");
	ret = print_table(r, MPI_TABLE_PATTERNS, fmt, f);
	if (!ret && fmt != OUT_TEXT) {
		fputc('\n', f);
		ret = print_table(r, MPI_TABLE_SITES, fmt, f);
	}
	for (int k = 0; !ret && fmt == OUT_TEXT && k < MPI_PAT_COUNT; k++) {
		if (!w->pattern_total[k])
			continue;
		if ((ret = mpi_pattern_view_make(&v, r, MPI_TABLE_SITES, fmt, k)))
			break;
		fprintf(f, "\n%s: worst call sites\n\n", mpi_pattern_name((enum mpi_pattern)k));
		ret = view_print_text(&v, f, NULL);
		mpi_view_release(&v);
	}
	return ret;
}

int mpi_print_text(const struct mpi_report *r, enum mpi_view view, FILE *f)
{
	int ret;

	switch (view) {
	case MPI_VIEW_SUMMARY:
		summary_text(r, f);
		ret = waits_table(r, f);
		break;
	case MPI_VIEW_WAITS:
		ret = waits_table(r, f);
		break;
	case MPI_VIEW_TRAFFIC:
		ret = traffic_table(r, OUT_TEXT, f);
		break;
	case MPI_VIEW_ROUTINES:
		ret = routines_table(r, f);
		break;
	default:
		ret = patterns_table(r, OUT_TEXT, f);
		break;
	}
	fputc('\n', f);
	mpi_caveats(r, caveat_text, f);
	return ret ? ret : ferror(f) ? -EIO : 0;
}

/* VIEW as CSV or long CSV (FMT). */
static int print_csv(const struct mpi_report *r, enum mpi_view view, enum out_format fmt, FILE *f,
		     FILE *notes)
{
	int ret = 0;

	switch (view) {
	case MPI_VIEW_TRAFFIC:
		ret = traffic_table(r, fmt, f);
		break;
	case MPI_VIEW_ROUTINES:
		ret = print_table(r, MPI_TABLE_ROUTINES, fmt, f);
		break;
	case MPI_VIEW_PATTERNS:
		ret = patterns_table(r, fmt, f);
		break;
	default:
		ret = print_table(r, MPI_TABLE_WAITS, fmt, f);
		break;
	}
	mpi_caveats(r, caveat_warning, notes);
	return ret ? ret : ferror(f) ? -EIO : 0;
}

int mpi_print_csv(const struct mpi_report *r, enum mpi_view view, FILE *f, FILE *notes)
{
	return print_csv(r, view, OUT_CSV, f, notes);
}

int mpi_print(const struct mpi_report *r, enum mpi_view view, enum out_format fmt, FILE *f,
	      FILE *notes)
{
	return fmt == OUT_TEXT	 ? mpi_print_text(r, view, f)
	       : fmt == OUT_JSON ? mpi_print_json(r, view, f)
				 : print_csv(r, view, fmt, f, notes);
}
