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
#define TOP_SITES    5

static void site_text(const struct mpi_model *m, uint32_t site, char *buf, size_t len,
		      const char **function)
{
	const struct mpi_site *s = site != MPI_NONE && site < m->nsites ? &m->sites[site] : NULL;

	*function = s && s->function[0] ? s->function : "?";
	if (s && s->file[0])
		snprintf(buf, len, "%s:%u", s->file, s->line);
	else if (s && s->addr)
		snprintf(buf, len, "0x%" PRIx64, s->addr);
	else
		snprintf(buf, len, "?");
}

void mpi_caveats(const struct mpi_report *r, void (*fn)(void *ctx, const char *line), void *ctx)
{
	const struct mpi_model *m = r->m;
	char a[32];
	struct strbuf missing = STRBUF_INIT;
	size_t nmissing = 0, short_colls = 0;
	uint64_t sends = 0, recvs = 0;

	if (r->e)
		experiment_caveats(r->e, 1, fn, ctx);
	for (size_t i = 0; i < m->nwarnings; i++)
		caveat_say(fn, ctx, "%s", m->warnings[i]);
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
	if (m->clock_aligned && m->violations_unaligned > m->violations_before)
		caveat_say(fn, ctx,
			   "%" PRIu64 " messages received before they were sent on the ranks' own "
			   "clocks: the clock alignment fixed %" PRIu64,
			   m->violations_unaligned, m->violations_unaligned - m->violations_before);
	if (m->violations_before) {
		fmt_duration(a, sizeof(a), (double)m->max_correction_ns);
		if (r->no_correction)
			caveat_say(fn, ctx,
				   "%" PRIu64 " messages received before they were sent (clock "
				   "error), not corrected (--no-correction): their waits are wrong",
				   m->violations_before);
		else
			caveat_say(fn, ctx,
				   "%" PRIu64 " messages received before they were sent (clock "
				   "error): corrected, %" PRIu64 " left, largest shift %s",
				   m->violations_before, m->violations_after, a);
	}
	if (m->coll_violations_before) {
		fmt_duration(a, sizeof(a), (double)m->max_correction_ns);
		if (r->no_correction)
			caveat_say(fn, ctx,
				   "%" PRIu64 " collective calls left before a rank they depend on "
				   "entered (clock error), not corrected (--no-correction): their "
				   "waits are wrong",
				   m->coll_violations_before);
		else
			caveat_say(fn, ctx,
				   "%" PRIu64 " collective calls left before a rank they depend on "
				   "entered (clock error): corrected, %" PRIu64
				   " left, largest shift %s",
				   m->coll_violations_before, m->coll_violations_after, a);
	}
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

static int patterns_table(const struct mpi_report *r, FILE *f)
{
	const struct mpi_waits *w = r->waits;
	size_t top = r->top_sites ? r->top_sites : TOP_SITES;
	int64_t exec = exec_sum(w);
	struct table *t = table_new();
	char buf[64], where[600];
	const char *fn;
	int ret;

	if (!t)
		return -ENOMEM;
	fprintf(f, "Wait states (%% of the ranks' summed execution time)\n\n");
	table_add_column(t, "pattern", TABLE_LEFT);
	table_add_column(t, "wait", TABLE_RIGHT);
	table_add_column(t, "%", TABLE_RIGHT);
	table_add_column(t, "calls", TABLE_RIGHT);
	table_add_column(t, "worst rank", TABLE_RIGHT);
	for (int k = 0; k < MPI_PAT_COUNT; k++) {
		int worst = -1;

		for (int i = 0; i < w->p; i++)
			if (w->pattern[(size_t)i * MPI_PAT_COUNT + (size_t)k] > 0 &&
			    (worst < 0 ||
			     w->pattern[(size_t)i * MPI_PAT_COUNT + (size_t)k] >
				 w->pattern[(size_t)worst * MPI_PAT_COUNT + (size_t)k]))
				worst = i;
		table_add_row(t);
		table_set(t, 0, "%s", mpi_pattern_name((enum mpi_pattern)k));
		fmt_duration(buf, sizeof(buf), (double)w->pattern_total[k]);
		table_set(t, 1, "%s", buf);
		table_set(t, 2, "%.1f", pct((double)w->pattern_total[k], (double)exec));
		fmt_count(buf, sizeof(buf), w->pattern_calls[k]);
		table_set(t, 3, "%s", buf);
		if (worst >= 0)
			table_set(t, 4, "%d", worst);
	}
	ret = table_print(t, f, NULL);
	table_free(t);
	for (int k = 0; !ret && k < MPI_PAT_COUNT; k++) {
		size_t shown = 0;

		if (!w->pattern_total[k])
			continue;
		if (!(t = table_new()))
			return -ENOMEM;
		fprintf(f, "\n%s: worst call sites\n\n", mpi_pattern_name((enum mpi_pattern)k));
		table_add_column(t, "rank", TABLE_RIGHT);
		table_add_column(t, "function", TABLE_LEFT);
		table_add_column(t, "where", TABLE_LEFT);
		table_add_column(t, "routine", TABLE_LEFT);
		table_add_column(t, "wait", TABLE_RIGHT);
		table_add_column(t, "calls", TABLE_RIGHT);
		for (size_t i = 0; i < w->nsites && shown < top; i++) {
			const struct mpi_wait_site *s = &w->sites[i];

			if ((int)s->pattern != k)
				continue;
			shown++;
			site_text(r->m, s->site, where, sizeof(where), &fn);
			table_add_row(t);
			table_set(t, 0, "%d", s->rank);
			table_set(t, 1, "%s", fn);
			table_set(t, 2, "%s", where);
			table_set(t, 3, "%s", routine_name(s->routine));
			fmt_duration(buf, sizeof(buf), (double)s->wait_ns);
			table_set(t, 4, "%s", buf);
			fmt_count(buf, sizeof(buf), s->calls);
			table_set(t, 5, "%s", buf);
		}
		ret = table_print(t, f, NULL);
		table_free(t);
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
		ret = patterns_table(r, f);
		break;
	}
	fputc('\n', f);
	mpi_caveats(r, caveat_text, f);
	return ret ? ret : ferror(f) ? -EIO : 0;
}

static void patterns_csv(const struct mpi_report *r, FILE *f)
{
	const struct mpi_waits *w = r->waits;
	char where[600];
	const char *fn;

	fputs("pattern,rank,wait_ns,pct_exec,calls\n", f);
	for (int k = 0; k < MPI_PAT_COUNT; k++)
		fprintf(f, "%s,all,%" PRId64 ",%.6f,%" PRIu64 "\n",
			mpi_pattern_key((enum mpi_pattern)k), w->pattern_total[k],
			pct((double)w->pattern_total[k], (double)exec_sum(w)), w->pattern_calls[k]);
	for (int i = 0; i < w->p; i++)
		for (int k = 0; k < MPI_PAT_COUNT; k++) {
			int64_t ns = w->pattern[(size_t)i * MPI_PAT_COUNT + (size_t)k];

			if (ns)
				fprintf(f, "%s,%d,%" PRId64 ",%.6f,\n",
					mpi_pattern_key((enum mpi_pattern)k), i, ns,
					mpi_waits_pct(w, i, ns, MPI_REL_EXEC));
		}
	fputs("\npattern,rank,function,file,line,routine,wait_ns,calls\n", f);
	for (size_t i = 0; i < w->nsites; i++) {
		const struct mpi_wait_site *s = &w->sites[i];
		const struct mpi_site *site = s->site != MPI_NONE ? &r->m->sites[s->site] : NULL;

		site_text(r->m, s->site, where, sizeof(where), &fn);
		fprintf(f, "%s,%d,", mpi_pattern_key(s->pattern), s->rank);
		csv_field(f, site && site->function[0] ? site->function : "");
		fputc(',', f);
		csv_field(f, site ? site->file : "");
		fprintf(f, ",%u,%s,%" PRId64 ",%" PRIu64 "\n", site ? site->line : 0,
			routine_name(s->routine), s->wait_ns, s->calls);
	}
}

/* VIEW as CSV or long CSV (FMT). */
static int print_csv(const struct mpi_report *r, enum mpi_view view, enum out_format fmt, FILE *f)
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
		patterns_csv(r, f);
		break;
	default:
		ret = print_table(r, MPI_TABLE_WAITS, fmt, f);
		break;
	}
	mpi_caveats(r, caveat_warning, stderr);
	return ret ? ret : ferror(f) ? -EIO : 0;
}

int mpi_print_csv(const struct mpi_report *r, enum mpi_view view, FILE *f)
{
	return print_csv(r, view, OUT_CSV, f);
}

int mpi_print(const struct mpi_report *r, enum mpi_view view, enum out_format fmt, FILE *f)
{
	return fmt == OUT_TEXT	 ? mpi_print_text(r, view, f)
	       : fmt == OUT_JSON ? mpi_print_json(r, view, f)
				 : print_csv(r, view, fmt, f);
}
