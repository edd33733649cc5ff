/*
 * mpi-read.c - an experiment's MPI records into the MPI model (mpi-model.h), as a consumer of
 * the pass (model/pass.h): the streams come process by process; a process's communicator
 * indices, rank and call sites are settled once all of its streams are read, since a thread
 * other than the one that made a call may have written the records they come from. A rank's
 * start and end are its first and last record of any kind that marks the program's progress
 * (function calls, regions, MPI), so time a rank computes before MPI_Init or after
 * MPI_Finalize is part of its run. A damaged or cut stream is a warning of its rank, not an
 * error: the pass keeps going past it (EV_PASS_KEEP_GOING).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"
#include "format/mpi-routines.h"
#include "format/experiment.h"
#include "analysis/mpi/mpi-match.h"
#include "analysis/mpi/mpi-model.h"
#include "format/stream.h"
#include "model/pass.h"
#include "model/symbols.h"
#include "lib/hashmap.h"
#include "lib/strv.h"

#define OPEN_MAX 16 /* MPI calls open at once in one thread (the runtime nests none) */

struct open_call {
	uint32_t routine;
	int64_t enter_ns;
};

/* One process while its streams are read. */
struct proc_load {
	const struct exp_process *proc;
	int init_rank, world; /* from PSC_REC_MPI_INIT, -1 and 0 without one */
	unsigned version;     /* its MPI record version (PSC_MPI_RECORD_VERSION), 1 without */
	int has_clock[2];
	struct mpi_clock_point clock[2];
	uint64_t lost;
	size_t first_loc, first_call, first_item;
	struct u64map comm_local; /* the process's communicator index -> index in comms */
	uint64_t *site_addr;	  /* per call since first_call: its return address */
	size_t site_addr_cap;
	char **notes; /* what went wrong, said with the rank once it is known */
	size_t nnotes, notes_cap;
	int any; /* MPI records seen */
	int have_span;
	int64_t first_ns, last_ns; /* first and last function, region or MPI record, own clock */
};

/*
 * A rank's first and last record on its own clock, and the calls they are placed from once
 * the model is built: the record before the first call moves with that call (clock offset and
 * causality correction), the record after the last call with that call, plus the drift of
 * the clock offset between them.
 */
struct rank_span {
	int rank;
	int64_t first_ns, last_ns;
	uint32_t first_call, last_call;	 /* MPI_NONE: the process made no call */
	int64_t first_enter, last_leave; /* those calls' times on the rank's own clock */
};

/* One stream while it is read. */
struct stream_load {
	const struct ev_location *loc;
	struct open_call open[OPEN_MAX];
	size_t nopen, unpaired;
	long mloc; /* its location in the model, -1 until its first MPI call */
	int stop;  /* a record the reader cannot take: the stream's later records are left out */
	int64_t last_ns; /* its last record taken */
};

/* The consumer's state. */
struct loader {
	struct mpi_model *m;
	const struct experiment *e;
	unsigned flags; /* MPI_BUILD_* */
	struct symtab syms;
	int have_syms;
	struct u64map site_of;	/* return address -> site, per process */
	struct u64map rank_pid; /* rank -> pid that took it */
	int any_mpi;
	struct rank_span *spans; /* one per process kept */
	size_t nspans, spans_cap;
	struct proc_load pl; /* the process being read; pl.proc NULL before the first */
	struct stream_load st;
};

static int note(struct proc_load *pl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int note(struct proc_load *pl, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = strv_vpushf(&pl->notes, &pl->nnotes, &pl->notes_cap, fmt, ap);
	va_end(ap);
	return ret;
}

static int add_comm_record(struct loader *ld, struct proc_load *pl, const struct ev_mpi_comm *c)
{
	long idx = mpi_model_add_comm(ld->m, c->key, c->members, c->size);

	if (idx < 0)
		return (int)idx;
	if (ld->m->comms[idx].size != c->size &&
	    note(pl, "communicator 0x%" PRIx64 " has %" PRIu32 " members here, %u elsewhere",
		 c->key, c->size, ld->m->comms[idx].size))
		return -ENOMEM;
	return u64map_put(&pl->comm_local, c->index, (uint64_t)idx);
}

static int add_call_record(struct loader *ld, struct proc_load *pl, long loc, uint32_t routine,
			   int64_t enter, int64_t leave, uint64_t site_addr)
{
	struct mpi_model *m = ld->m;
	size_t k = m->ncalls - pl->first_call;
	long ret = mpi_model_add_call(m, (uint32_t)loc, routine, enter, leave, MPI_NONE);

	if (ret < 0)
		return (int)ret;
	if (k >= pl->site_addr_cap && ARRAY_GROW(pl->site_addr, k + 1, pl->site_addr_cap))
		return -ENOMEM;
	/* the call's place (symbols.h): the return address names the call before it */
	pl->site_addr[k] =
	    site_addr && ld->have_syms
		? symtab_place(&ld->syms, pl->proc->pid, pl->proc->image, site_addr - 1, enter) + 1
		: site_addr;
	return 0;
}

static int add_items(struct mpi_model *m, const struct ev_mpi *ev)
{
	for (size_t i = 0; i < ev->nitems; i++) {
		struct ev_mpi_item w = ev_mpi_item(ev, i);
		int cancel = w.kind == PSC_MPI_ITEM_ISEND_DONE || w.kind == PSC_MPI_ITEM_CANCEL;
		struct mpi_item it = {
		    .kind = w.kind,
		    .flags = w.flags,
		    .comm =
			cancel ? MPI_NONE : w.comm, /* the process's index: settled at its end */
		    .peer = cancel ? -1 : w.peer,
		    .tag = cancel ? 0 : w.tag,
		    .bytes = w.bytes,
		};
		int ret;

		if (it.kind == PSC_MPI_ITEM_COLL)
			it.bytes2 = w.word3;
		else
			it.request = w.word3;
		if ((ret = mpi_model_add_item(m, &it)))
			return ret;
	}
	return 0;
}

/* T into process PL's span of progress records. */
static void span_add(struct proc_load *pl, int64_t t)
{
	if (!pl->have_span || t < pl->first_ns)
		pl->first_ns = t;
	if (!pl->have_span || t > pl->last_ns)
		pl->last_ns = t;
	pl->have_span = 1;
}

/* MPI_Init's record: the rank, world and record version of the process. */
static int read_init(struct loader *ld, const struct event *ev)
{
	struct proc_load *pl = &ld->pl;

	pl->init_rank = ev->mpi_init.rank;
	pl->world = ev->mpi_init.size;
	pl->version = ev->mpi_init.version;
	if (pl->version <= PSC_MPI_RECORD_VERSION)
		return 0;
	ld->st.stop = 1;
	return note(pl,
		    "%s: byte %" PRIu64 ": MPI records of version %u, this reader knows versions "
		    "up to %d: the records from there on are left out",
		    ld->st.loc->name, ev->offset, pl->version, PSC_MPI_RECORD_VERSION);
}

static int read_clock(struct loader *ld, const struct event *ev)
{
	const struct ev_mpi_clock *c = &ev->mpi_clock;
	struct proc_load *pl = &ld->pl;

	if (c->at_ns != mpi_time_clamp(c->at_ns) || c->offset_ns != mpi_time_clamp(c->offset_ns) ||
	    c->phase > 1)
		return note(pl,
			    "%s: byte %" PRIu64 ": clock offset %" PRId64 " ns at %" PRId64
			    " ns is outside the plausible range of +-2^60 ns: ignored",
			    ld->st.loc->name, ev->offset, c->offset_ns, c->at_ns);
	pl->has_clock[c->phase] = 1;
	pl->clock[c->phase] = (struct mpi_clock_point){c->at_ns, c->offset_ns, (uint64_t)c->rtt_ns};
	return 0;
}

/* An MPI routine's enter or leave: a call of the model at its leave. */
static int read_call(struct loader *ld, const struct event *ev)
{
	struct stream_load *st = &ld->st;
	const struct ev_location *loc = st->loc;
	uint32_t routine = (uint32_t)ev->mpi.routine;
	int ret;

	if (st->mloc < 0 && (st->mloc = mpi_model_add_loc(ld->m, -1, loc->tid)) < 0) {
		ret = (int)st->mloc;
		if (ret == -E2BIG)
			ret = note(&ld->pl,
				   "%s: byte %" PRIu64 ": more than %" PRIu32 " threads call MPI, "
				   "the most a model holds: the records from there on are left out",
				   loc->name, ev->offset, MPI_LOCS_MAX);
		st->stop = 1;
		return ret;
	}
	if (ev->kind == EV_MPI_ENTER) {
		if (st->nopen < OPEN_MAX)
			st->open[st->nopen++] = (struct open_call){routine, ev->ns};
		else
			st->unpaired++;
		return 0;
	}
	if (st->nopen && st->open[st->nopen - 1].routine == routine) {
		st->nopen--;
		ret = add_call_record(ld, &ld->pl, st->mloc, routine, st->open[st->nopen].enter_ns,
				      ev->ns, ev->mpi.site);
	} else {
		st->unpaired++;
		ret = add_call_record(ld, &ld->pl, st->mloc, routine, ev->ns, ev->ns, ev->mpi.site);
	}
	return ret ? ret : add_items(ld->m, &ev->mpi);
}

/* Is EV a record of the program's progress (a rank's span), beside calls, regions and MPI? */
static int progress_marker(const struct event *ev)
{
	return ev->raw && (ev->raw->kind == PSC_KIND_RESERVED ||
			   (ev->raw->kind == PSC_KIND_EXT && ev->raw->type >= PSC_REC_MPI_INIT));
}

static int mr_event(void *ctx, const struct event *ev, char *err, size_t errlen)
{
	struct loader *ld = ctx;
	struct proc_load *pl = &ld->pl;
	int ret = 0;

	(void)err, (void)errlen;
	if (ld->st.stop)
		return 0;
	/* times never decrease in a stream: from an implausible one on it is damaged */
	if (ev->ns != mpi_time_clamp(ev->ns)) {
		ld->st.stop = 1;
		return note(pl,
			    "%s: byte %" PRIu64 ": a record at %" PRId64 " ns, outside the "
			    "plausible range of +-2^60 ns: the records from there on are left out",
			    ld->st.loc->name, ev->offset, ev->ns);
	}
	ld->st.last_ns = ev->ns;
	if (ev->kind == EV_MPI_ENTER || ev->kind == EV_MPI_LEAVE) { /* most events: first */
		span_add(pl, ev->ns);
		pl->any = 1;
		return read_call(ld, ev);
	}
	if (ev->kind == EV_LOST) {
		pl->lost += ev->lost.records;
		return 0;
	}
	if (ev->kind == EV_MARKER && !progress_marker(ev))
		return 0;
	span_add(pl, ev->ns);
	if (ev->kind == EV_REGION_ENTER || ev->kind == EV_REGION_EXIT || ev->kind == EV_MARKER)
		return 0;
	pl->any = 1;
	switch (ev->kind) {
	case EV_MPI_INIT:
		ret = read_init(ld, ev);
		break;
	case EV_MPI_CLOCK:
		ret = read_clock(ld, ev);
		break;
	default: /* EV_MPI_COMM */
		ret = add_comm_record(ld, pl, &ev->mpi_comm);
		break;
	}
	return ret;
}

/* What the end of stream ST tells its process: its calls' span, its calls still open closed
 * at its last record, and what went wrong. */
static int end_stream(struct loader *ld, const struct ev_location_facts *f)
{
	struct stream_load *st = &ld->st;
	struct proc_load *pl = &ld->pl;
	int tid = (int)st->loc->tid, ret = 0;
	int64_t end = st->stop ? st->last_ns : f->last_ns;

	if (f->unopened)
		return note(pl, "%s", f->errmsg);
	if (!st->stop && f->first_call_ns <= f->last_call_ns &&
	    f->first_call_ns == mpi_time_clamp(f->first_call_ns) &&
	    f->last_call_ns == mpi_time_clamp(f->last_call_ns)) {
		span_add(pl, f->first_call_ns);
		span_add(pl, f->last_call_ns);
	}
	if (f->error)
		ret = note(pl, "%s: the records from there on are left out", f->errmsg);
	/* a stream cut short inside a call: it ends at the stream's last record */
	for (size_t k = 0; k < st->nopen && ret == 0; k++)
		ret = add_call_record(ld, pl, st->mloc, st->open[k].routine, st->open[k].enter_ns,
				      end, 0);
	if (ret == 0 && st->nopen)
		ret = note(pl, "thread %d ends inside %s (closed at its last record)", tid,
			   mpi_routine_name(st->open[st->nopen - 1].routine));
	if (ret == 0 && st->unpaired)
		ret = note(pl, "thread %d: %zu MPI enter/leave records without their pair", tid,
			   st->unpaired);
	if (ret == 0 && st->mloc >= 0 && f->truncated_at)
		ret = note(pl,
			   "thread %d: stream cut short at byte %" PRIu64 " (its later MPI calls "
			   "are missing)",
			   tid, f->truncated_at);
	else if (ret == 0 && st->mloc >= 0 && !f->ended && !st->stop)
		ret =
		    note(pl, "thread %d: stream has no end record (the process was killed?)", tid);
	return ret;
}

/*
 * Items of a process whose records are of version 1 (docs/format.md "MPI records"): there
 * MPI_Cancel itself gave a cancel item, whether or not the cancellation succeeded. It is read
 * as it was meant then, unconfirmed: like a freed request, whose message is still matched.
 * Cancel items elsewhere (a completion's) already had today's meaning. Returns how many.
 */
static uint64_t version1_cancels(struct mpi_model *m, const struct proc_load *pl)
{
	uint64_t n = 0;

	if (pl->version >= 2)
		return 0;
	for (size_t i = pl->first_item; i < m->nitems; i++) {
		struct mpi_item *it = &m->items[i];

		if (it->kind == PSC_MPI_ITEM_CANCEL && !(it->flags & PSC_MPI_F_FREED) &&
		    m->calls[it->call].routine == MPI_ROUTINE_Cancel) {
			it->flags |= PSC_MPI_F_FREED;
			n++;
		}
	}
	return n;
}

/* Leave out what process PL added: it has no rank, or another process has it. */
static void roll_back(struct mpi_model *m, struct proc_load *pl)
{
	m->nlocs = pl->first_loc;
	m->ncalls = pl->first_call;
	m->nitems = pl->first_item;
}

/* Remember process PL's span (its calls are still on its own clock). 0 or -ENOMEM. */
static int add_span(struct loader *ld, struct proc_load *pl, int rank)
{
	const struct mpi_model *m = ld->m;
	struct rank_span sp = {rank, pl->first_ns, pl->last_ns, MPI_NONE, MPI_NONE, 0, 0};

	for (size_t c = pl->first_call; c < m->ncalls; c++) {
		if (sp.first_call == MPI_NONE || m->calls[c].enter_ns < sp.first_enter) {
			sp.first_call = (uint32_t)c;
			sp.first_enter = m->calls[c].enter_ns;
		}
		if (sp.last_call == MPI_NONE || m->calls[c].leave_ns > sp.last_leave) {
			sp.last_call = (uint32_t)c;
			sp.last_leave = m->calls[c].leave_ns;
		}
	}
	if (ARRAY_GROW(ld->spans, ld->nspans + 1, ld->spans_cap))
		return -ENOMEM;
	ld->spans[ld->nspans++] = sp;
	return 0;
}

/* Time T of rank RI's own clock on the model's: placed from the call at own time ANCHOR
 * (ALIGNED once built), or with the clock offset alone when there is no such call. */
static int64_t place(const struct mpi_rank_info *ri, int aligned, int64_t t, int64_t anchor,
		     const struct mpi_call *c, int at_leave)
{
	int64_t off = aligned ? mpi_rank_clock_offset(ri, t) : 0;

	if (!c)
		return t + off;
	return (at_leave ? c->leave_ns : c->enter_ns) + (t - anchor) +
	       (aligned ? off - mpi_rank_clock_offset(ri, anchor) : 0);
}

/* After the build: widen each rank's range to its first and last record, and the run's. */
static void widen_ranges(struct loader *ld, unsigned flags)
{
	struct mpi_model *m = ld->m;
	int aligned = !(flags & MPI_BUILD_ALIGNED), any = 0;

	for (size_t i = 0; i < ld->nspans; i++) {
		const struct rank_span *sp = &ld->spans[i];
		struct mpi_rank_info *ri;
		int64_t a, b;

		if (sp->rank < 0 || sp->rank >= m->world_size)
			continue;
		ri = &m->ranks[sp->rank];
		a = place(ri, aligned, sp->first_ns, sp->first_enter,
			  sp->first_call != MPI_NONE ? &m->calls[sp->first_call] : NULL, 0);
		b = place(ri, aligned, sp->last_ns, sp->last_leave,
			  sp->last_call != MPI_NONE ? &m->calls[sp->last_call] : NULL, 1);
		/* a rank without calls has no range yet */
		if (sp->first_call == MPI_NONE || a < ri->start_ns)
			ri->start_ns = a;
		if (sp->last_call == MPI_NONE || b > ri->end_ns)
			ri->end_ns = b;
	}
	for (int r = 0; r < m->world_size; r++) {
		const struct mpi_rank_info *ri = &m->ranks[r];
		int have = 0;

		for (size_t i = 0; i < ld->nspans && !have; i++)
			have = ld->spans[i].rank == r;
		for (uint32_t l = ri->first_loc; !have && l < ri->first_loc + ri->nlocs; l++)
			have = m->locs[l].ncalls > 0;
		if (!have)
			continue;
		if (!any || ri->start_ns < m->start_ns)
			m->start_ns = ri->start_ns;
		if (!any || ri->end_ns > m->end_ns)
			m->end_ns = ri->end_ns;
		any = 1;
	}
}

/* Rank RANK's facts from process PL: pid, host, lost records, clock offsets, locations.
 * 0 or -ENOMEM. */
static int settle_rank(struct mpi_model *m, const struct proc_load *pl, int rank)
{
	const struct exp_process *p = pl->proc;
	struct mpi_rank_info *ri = &m->ranks[rank];

	ri->pid = p->pid;
	if (p->host && p->host[0]) {
		char *host = strdup(p->host);

		if (!host)
			return -ENOMEM;
		free(ri->host);
		ri->host = host;
	}
	ri->lost_records += pl->lost + p->lost_records;
	for (int k = 0; k < 2; k++) {
		ri->has_clock[k] = pl->has_clock[k];
		ri->clock[k] = pl->clock[k];
	}
	for (size_t l = pl->first_loc; l < m->nlocs; l++)
		m->locs[l].rank = rank;
	return 0;
}

/* The communicators PL's items name by the process's own index, named by the model's
 * instead. How many name one the process never defined. */
static uint64_t settle_comms(struct mpi_model *m, const struct proc_load *pl)
{
	uint64_t v, unknown = 0;

	for (size_t i = pl->first_item, last = MPI_NONE, last_v = MPI_NONE; i < m->nitems; i++) {
		struct mpi_item *it = &m->items[i];

		if (it->comm == MPI_NONE)
			continue;
		/* runs of items name the same communicator: one lookup each run */
		if (it->comm == last) {
			unknown += last_v == MPI_NONE;
			it->comm = (uint32_t)last_v;
			continue;
		}
		last = it->comm;
		if (!u64map_get(&pl->comm_local, it->comm, &v)) {
			v = MPI_NONE;
			unknown++;
		}
		last_v = v;
		it->comm = (uint32_t)v;
	}
	return unknown;
}

/* The sites of PL's calls (rank RANK), each return address looked up once. 0, or a
 * negative errno. */
static int settle_sites(struct loader *ld, const struct proc_load *pl, int rank)
{
	struct mpi_model *m = ld->m;
	const struct exp_process *p = pl->proc;
	uint64_t v;
	int ret;

	u64map_clear(&ld->site_of);
	for (size_t c = pl->first_call; c < m->ncalls; c++) {
		uint64_t addr = pl->site_addr[c - pl->first_call];
		struct sym_info si;
		long idx;

		if (!addr)
			continue;
		if (!u64map_get(&ld->site_of, addr, &v)) {
			memset(&si, 0, sizeof(si));
			if (ld->have_syms &&
			    symtab_lookup(&ld->syms, p->pid, p->image, addr - 1, &si))
				return -ENOMEM;
			idx = mpi_model_add_site(m, rank, addr, si.known ? si.name : "", si.file,
						 si.line);
			if (idx < 0 || (ret = u64map_put(&ld->site_of, addr, (uint64_t)idx)))
				return idx < 0 ? (int)idx : ret;
			v = (uint64_t)idx;
		}
		m->calls[c].site = (uint32_t)v;
	}
	return 0;
}

/* The warnings of rank RANK (process PL), UNKNOWN of whose items name a communicator never
 * defined. 0 or -ENOMEM. */
static int warn_rank(struct mpi_model *m, const struct proc_load *pl, int rank, uint64_t unknown)
{
	uint64_t v = version1_cancels(m, pl);
	int ret = 0;

	if (v)
		ret = mpi_model_warn(m,
				     "rank %d: %" PRIu64 " MPI_Cancel calls recorded before MPI "
				     "record version 2: whether they cancelled is unknown, their "
				     "messages are matched as sent",
				     rank, v);
	if (ret == 0 && unknown)
		ret = mpi_model_warn(m,
				     "rank %d: %" PRIu64 " records name a communicator never "
				     "defined",
				     rank, unknown);
	if (ret == 0 && m->ranks[rank].lost_records)
		ret = mpi_model_warn(m, "rank %d: %" PRIu64 " records lost while recording", rank,
				     m->ranks[rank].lost_records);
	for (size_t i = 0; i < pl->nnotes && ret == 0; i++)
		ret = mpi_model_warn(m, "rank %d: %s", rank, pl->notes[i]);
	return ret;
}

/* Settle a process once its streams are read: rank, communicators, sites, warnings. */
static int finish_process(struct loader *ld, struct proc_load *pl)
{
	struct mpi_model *m = ld->m;
	const struct exp_process *p = pl->proc;
	int rank = pl->init_rank >= 0 ? pl->init_rank : p->rank;
	uint64_t v, unknown;
	int ret = 0;

	if (!pl->any)
		return 0;
	if (rank < 0 || (u64map_get(&ld->rank_pid, (uint64_t)rank, &v) && v != (uint64_t)p->pid)) {
		if (rank < 0)
			ret = mpi_model_warn(m, "pid %d: MPI records without a rank: left out",
					     (int)p->pid);
		else
			ret = mpi_model_warn(m, "pid %d: rank %d was already pid %d's: left out",
					     (int)p->pid, rank, (int)v);
		roll_back(m, pl);
		return ret;
	}
	if ((ret = u64map_put(&ld->rank_pid, (uint64_t)rank, (uint64_t)p->pid)) ||
	    (ret = mpi_model_set_world(m, pl->world > rank ? pl->world : rank + 1)))
		return ret;
	if (pl->world && pl->world != m->world_size &&
	    (ret = mpi_model_warn(m, "rank %d: a world of %d ranks, others say %d", rank, pl->world,
				  m->world_size)))
		return ret;
	if ((ret = settle_rank(m, pl, rank)))
		return ret;
	unknown = settle_comms(m, pl);
	if ((ret = settle_sites(ld, pl, rank)) || (ret = warn_rank(m, pl, rank, unknown)))
		return ret;
	return pl->have_span ? add_span(ld, pl, rank) : 0;
}

static void proc_load_release(struct proc_load *pl)
{
	u64map_release(&pl->comm_local);
	free(pl->site_addr);
	for (size_t i = 0; i < pl->nnotes; i++)
		free(pl->notes[i]);
	free(pl->notes);
}

/*
 * Why E has no MPI records, in ERR. Recorded without --mpi: that. With it, a rank writes its
 * first MPI records after MPI_Init returns, and they reach its stream with a chunk: processes
 * that did not end cleanly (proc file still "running": killed or crashed) lost them, or died
 * before; when every process ended cleanly, none called MPI_Init through the wrappers.
 */
static void no_mpi_text(const struct experiment *e, char *err, size_t errlen)
{
	const struct exp_process *dead = NULL;
	size_t ndead = 0;

	if (!e->mpi) {
		snprintf(err, errlen, "%s: no MPI records (record with perfscope record --mpi)",
			 e->dir);
		return;
	}
	for (size_t i = 0; i < e->nprocs; i++) {
		if (strcmp(e->procs[i].state, "exited") && strcmp(e->procs[i].state, "exec")) {
			dead = dead ? dead : &e->procs[i];
			ndead++;
		}
	}
	if (ndead)
		snprintf(err, errlen,
			 "%s: no MPI records, although recorded with --mpi: %zu of %zu processes "
			 "were killed or crashed (pid %d, %s, did not end cleanly) before their "
			 "ranks' MPI_Init records reached the files",
			 e->dir, ndead, e->nprocs, (int)dead->pid, dead->exe);
	else
		snprintf(err, errlen,
			 "%s: no MPI records, although recorded with --mpi: none of the %zu "
			 "processes called MPI_Init through perfscope's MPI wrappers (is the "
			 "command an MPI program, linked with the MPI that mpirun belongs to?)",
			 e->dir, e->nprocs);
}

/* Begin process PROC: what it adds to the model starts at the model's present ends. */
static void begin_process(struct loader *ld, const struct exp_process *proc)
{
	struct proc_load *pl = &ld->pl;

	memset(pl, 0, sizeof(*pl));
	pl->proc = proc;
	pl->init_rank = -1;
	pl->version = 1;
	pl->first_loc = ld->m->nlocs;
	pl->first_call = ld->m->ncalls;
	pl->first_item = ld->m->nitems;
}

/* Settle the process being read, if any. */
static int end_process(struct loader *ld)
{
	int ret = 0;

	if (!ld->pl.proc)
		return 0;
	ret = finish_process(ld, &ld->pl);
	ld->any_mpi |= ld->pl.any;
	proc_load_release(&ld->pl);
	memset(&ld->pl, 0, sizeof(ld->pl));
	return ret;
}

static int mr_begin(void *ctx, const struct ev_location *loc, char *err, size_t errlen)
{
	struct loader *ld = ctx;
	int ret = 0;

	/* the streams come sorted by process: one process at a time */
	if (ld->pl.proc != loc->proc) {
		ret = end_process(ld);
		begin_process(ld, loc->proc);
	}
	memset(&ld->st, 0, sizeof(ld->st));
	ld->st.loc = loc;
	ld->st.mloc = -1;
	if (ret < 0)
		snprintf(err, errlen, "%s: out of memory reading MPI records", ld->e->dir);
	return ret;
}

static int mr_end(void *ctx, const struct ev_location *loc, const struct ev_location_facts *f,
		  char *err, size_t errlen)
{
	struct loader *ld = ctx;
	int ret = end_stream(ld, f);

	(void)loc;
	if (ret < 0)
		snprintf(err, errlen, "%s: out of memory reading MPI records", ld->e->dir);
	return ret;
}

/* The last process settled, then the model built from what was read. */
static int mr_finish(void *ctx, char *err, size_t errlen)
{
	struct loader *ld = ctx;
	struct mpi_model *m = ld->m;
	int ret = end_process(ld);

	if (ret) {
		snprintf(err, errlen, "%s: out of memory reading MPI records", ld->e->dir);
		return ret;
	}
	if (!ld->any_mpi) {
		no_mpi_text(ld->e, err, errlen);
		return -ENODATA;
	}
	free(m->source);
	m->source = strdup(ld->e->dir);
	if (!m->source) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	ret = mpi_model_build(m, ld->flags, err, errlen);
	if (ret == 0)
		widen_ranges(ld, ld->flags);
	return ret;
}

static void mr_release(void *ctx)
{
	struct loader *ld = ctx;

	if (ld->have_syms)
		symtab_release(&ld->syms);
	u64map_release(&ld->site_of);
	u64map_release(&ld->rank_pid);
	proc_load_release(&ld->pl);
	free(ld->spans);
	free(ld);
}

int mpi_model_consumer(struct ev_consumer *c, struct mpi_model *m, const struct experiment *e,
		       unsigned flags)
{
	struct loader *ld = calloc(1, sizeof(*ld));

	*c = (struct ev_consumer){
	    .name = "mpi",
	    .kinds = EV_BIT(EV_MPI_INIT) | EV_BIT(EV_MPI_COMM) | EV_BIT(EV_MPI_ENTER) |
		     EV_BIT(EV_MPI_LEAVE) | EV_BIT(EV_MPI_CLOCK) | EV_BIT(EV_LOST) |
		     EV_BIT(EV_REGION_ENTER) | EV_BIT(EV_REGION_EXIT) | EV_BIT(EV_MARKER),
	    .locations = EV_LOC_STREAMS,
	    .ctx = ld,
	    .location_begin = mr_begin,
	    .event = mr_event,
	    .location_end = mr_end,
	    .finish = mr_finish,
	    .release = mr_release};
	if (!ld)
		return -ENOMEM;
	ld->m = m;
	ld->e = e;
	ld->flags = flags;
	ld->have_syms = symtab_init(&ld->syms, e->dir) == 0;
	return 0;
}

int mpi_model_load(struct mpi_model *m, const struct experiment *e, unsigned flags, char *err,
		   size_t errlen)
{
	struct ev_consumer c, *list[1] = {&c};
	int ret = mpi_model_consumer(&c, m, e, flags);

	if (ret == 0)
		ret = ev_pass_experiment(e, list, 1, EV_PASS_KEEP_GOING, err, errlen);
	else
		snprintf(err, errlen, "out of memory");
	ev_consumer_release(&c);
	return ret;
}
