/*
 * mpi-load.c - an experiment's MPI records into the MPI model (mpi-model.h): each process's
 * streams are read in one pass; its communicator indices, rank and call sites are settled
 * once all of its streams are read, since a thread other than the one that made a call may
 * have written the records they come from. A rank's start and end are its first and last
 * record of any kind that marks the program's progress (function calls, regions, MPI), so
 * time a rank computes before MPI_Init or after MPI_Finalize is part of its run.
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
#include "model/symbols.h"
#include "lib/hashmap.h"

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

struct loader {
	struct mpi_model *m;
	const struct experiment *e;
	struct symtab syms;
	int have_syms;
	struct u64map site_of;	/* return address -> site, per process */
	struct u64map rank_pid; /* rank -> pid that took it */
	int any_mpi;
	struct rank_span *spans; /* one per process kept */
	size_t nspans, spans_cap;
};

static int note(struct proc_load *pl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int note(struct proc_load *pl, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	if (ARRAY_GROW(pl->notes, pl->nnotes + 1, pl->notes_cap))
		return -ENOMEM;
	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	pl->notes[pl->nnotes++] = s;
	return 0;
}

static int add_comm_record(struct loader *ld, struct proc_load *pl, const struct stream_record *r)
{
	uint64_t size = r->payload[1];
	int32_t *members = malloc(size * sizeof(*members));
	long idx;

	if (!members)
		return -ENOMEM;
	for (uint64_t k = 0; k < size; k++)
		members[k] = (int32_t)(uint32_t)(r->payload[2 + k / 2] >> (32 * (k % 2)));
	idx = mpi_model_add_comm(ld->m, r->payload[0], members, (uint32_t)size);
	free(members);
	if (idx < 0)
		return (int)idx;
	if (ld->m->comms[idx].size != size &&
	    note(pl, "communicator 0x%" PRIx64 " has %" PRIu64 " members here, %u elsewhere",
		 r->payload[0], size, ld->m->comms[idx].size))
		return -ENOMEM;
	return u64map_put(&pl->comm_local, r->arg, (uint64_t)idx);
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

static int add_items(struct mpi_model *m, const struct stream_record *r)
{
	for (size_t i = 1; i + PSC_MPI_ITEM_WORDS <= r->npayload; i += PSC_MPI_ITEM_WORDS) {
		const uint64_t *w = r->payload + i;
		struct mpi_item it;
		int ret;

		memset(&it, 0, sizeof(it));
		it.kind = (uint8_t)(w[0] & 0xffu);
		it.flags = (uint8_t)((w[0] >> 8) & 0xffu);
		it.comm = (uint32_t)(w[0] >> 32); /* the process's index: settled at its end */
		it.peer = (int32_t)(uint32_t)w[1];
		it.tag = (int32_t)(uint32_t)(w[1] >> 32);
		it.bytes = w[2];
		if (it.kind == PSC_MPI_ITEM_COLL)
			it.bytes2 = w[3];
		else
			it.request = w[3];
		if (it.kind == PSC_MPI_ITEM_ISEND_DONE || it.kind == PSC_MPI_ITEM_CANCEL) {
			it.peer = -1;
			it.tag = 0;
			it.comm = MPI_NONE;
		}
		if ((ret = mpi_model_add_item(m, &it)))
			return ret;
	}
	return 0;
}

/* The facts of the stream RD has read to its end, INERT when it held only MPI, clock-sync and
 * end records, with FIRST and LAST its span, into F. */
static void keep_facts(struct stream_facts *f, const struct stream_reader *rd, int inert,
		       int64_t first, int64_t last)
{
	f->inert = inert;
	f->ended = rd->ended;
	f->end_reason = rd->end_reason;
	f->nrecords = rd->nrecords;
	f->first_ticks = rd->first_ticks;
	f->last_ticks = rd->last_ticks;
	f->truncated_at = rd->truncated_at;
	f->first_ns = first;
	f->last_ns = last;
}

/* The MPI records of stream S into the model (its location added at its first call), and
 * what the read found into F (may be NULL). */
static int load_stream(struct loader *ld, struct proc_load *pl, const struct exp_stream *s,
		       struct stream_facts *f)
{
	const struct clock_fit *fit = &s->proc->fit;
	struct open_call open[OPEN_MAX];
	struct stream_reader rd;
	struct stream_record r;
	char err[512] = "";
	uint64_t last_ticks = 0;
	int64_t first = INT64_MAX, last = INT64_MIN;
	size_t nopen = 0, unpaired = 0;
	long loc = -1;
	int ret, stop = 0, inert = 1;

	if (f)
		memset(f, 0, sizeof(*f));
	if ((ret = stream_open(&rd, s->path, err, sizeof(err))))
		return ret == -ENOMEM ? ret : note(pl, "%s", err);
	while ((ret = stream_next(&rd, &r, err, sizeof(err))) > 0) {
		int64_t t = clock_fit_ns(fit, r.ticks);

		/* the span as the call walker takes it: over every record */
		if (t < first)
			first = t;
		if (t > last)
			last = t;

		/* times never decrease in a stream: from an implausible one on it is damaged */
		if (t != mpi_time_clamp(t)) {
			ret = note(pl,
				   "%s: byte %" PRIu64 ": a record at %" PRId64 " ns, outside the "
				   "plausible range of +-2^60 ns: the records from there on are "
				   "left out",
				   s->path, r.offset, t);
			stop = 1; /* not also "no end record" */
			break;
		}
		last_ticks = r.ticks;
		if (r.kind != PSC_KIND_EXT || r.type >= PSC_REC_MPI_INIT ||
		    r.type == PSC_REC_REGION_ENTER || r.type == PSC_REC_REGION_LEAVE) {
			if (!pl->have_span || t < pl->first_ns)
				pl->first_ns = t;
			if (!pl->have_span || t > pl->last_ns)
				pl->last_ns = t;
			pl->have_span = 1;
		}
		if (r.kind != PSC_KIND_EXT || r.type < PSC_REC_MPI_INIT) {
			if (r.kind == PSC_KIND_EXT && r.type == PSC_REC_LOST)
				pl->lost += r.payload[0];
			if (r.kind != PSC_KIND_EXT ||
			    (r.type != PSC_REC_CLOCK_SYNC && r.type != PSC_REC_STREAM_END))
				inert = 0;
			continue;
		}
		if (r.type > PSC_REC_MPI_CLOCK)
			inert = 0;
		pl->any = 1;
		switch (r.type) {
		case PSC_REC_MPI_INIT:
			pl->init_rank = (int)r.arg;
			pl->world = (int)r.payload[0];
			pl->version = (unsigned)(r.payload[1] >> 32);
			if (pl->version == 0)
				pl->version = 1;
			if (pl->version > PSC_MPI_RECORD_VERSION) {
				ret = note(pl,
					   "%s: byte %" PRIu64 ": MPI records of version %u, this "
					   "reader knows versions up to %d: the records from there "
					   "on are left out",
					   s->path, r.offset, pl->version, PSC_MPI_RECORD_VERSION);
				stop = 1;
				break;
			}
			continue;
		case PSC_REC_MPI_CLOCK:
			if ((int64_t)r.payload[0] != mpi_time_clamp((int64_t)r.payload[0]) ||
			    (int64_t)r.payload[1] != mpi_time_clamp((int64_t)r.payload[1])) {
				ret = note(pl,
					   "%s: byte %" PRIu64 ": clock offset %" PRId64
					   " ns at %" PRId64 " ns is outside the plausible range "
					   "of +-2^60 ns: ignored",
					   s->path, r.offset, (int64_t)r.payload[1],
					   (int64_t)r.payload[0]);
				break;
			}
			pl->has_clock[r.arg] = 1;
			pl->clock[r.arg] = (struct mpi_clock_point){
			    (int64_t)r.payload[0], (int64_t)r.payload[1], r.payload[2]};
			continue;
		case PSC_REC_MPI_COMM:
			ret = add_comm_record(ld, pl, &r);
			break;
		default: /* ENTER, LEAVE */
			if (loc < 0 && (loc = mpi_model_add_loc(ld->m, -1, s->tid)) < 0) {
				ret = (int)loc;
				if (ret == -E2BIG)
					snprintf(err, sizeof(err),
						 "%s: byte %" PRIu64 ": more than %" PRIu32
						 " threads call MPI, the most a model holds",
						 s->path, r.offset, MPI_LOCS_MAX);
				break;
			}
			if (r.type == PSC_REC_MPI_ENTER) {
				if (nopen < OPEN_MAX)
					open[nopen++] = (struct open_call){r.arg, t};
				else
					unpaired++;
				continue;
			}
			if (nopen && open[nopen - 1].routine == r.arg) {
				nopen--;
				ret = add_call_record(ld, pl, loc, r.arg, open[nopen].enter_ns, t,
						      r.payload[0]);
			} else {
				unpaired++;
				ret = add_call_record(ld, pl, loc, r.arg, t, t, r.payload[0]);
			}
			if (ret == 0)
				ret = add_items(ld->m, &r);
			break;
		}
		if (ret < 0 || stop)
			break;
	}
	if (f)
		keep_facts(f, &rd, inert && ret == 0 && !stop, first, last);
	if (ret == -ENOMEM)
		goto out;
	if (ret < 0)
		ret = note(pl, "%s: the records from there on are left out", err);
	/* a stream cut short inside a call: it ends at the stream's last record */
	for (size_t k = 0; k < nopen && ret == 0; k++)
		ret = add_call_record(ld, pl, loc, open[k].routine, open[k].enter_ns,
				      clock_fit_ns(fit, last_ticks), 0);
	if (ret == 0 && nopen)
		ret = note(pl, "thread %d ends inside %s (closed at its last record)", (int)s->tid,
			   mpi_routine_name(open[nopen - 1].routine));
	if (ret == 0 && unpaired)
		ret = note(pl, "thread %d: %zu MPI enter/leave records without their pair",
			   (int)s->tid, unpaired);
	if (ret == 0 && loc >= 0 && rd.truncated_at)
		ret = note(pl,
			   "thread %d: stream cut short at byte %" PRIu64 " (its later MPI calls "
			   "are missing)",
			   (int)s->tid, rd.truncated_at);
	else if (ret == 0 && loc >= 0 && !rd.ended && !stop)
		ret = note(pl, "thread %d: stream has no end record (the process was killed?)",
			   (int)s->tid);
out:
	stream_close(&rd);
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

/* Settle a process once its streams are read: rank, communicators, sites, warnings. */
static int finish_process(struct loader *ld, struct proc_load *pl)
{
	struct mpi_model *m = ld->m;
	const struct exp_process *p = pl->proc;
	int rank = pl->init_rank >= 0 ? pl->init_rank : p->rank;
	uint64_t v, unknown = 0;
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
	if (pl->world && pl->world != m->world_size)
		ret = mpi_model_warn(m, "rank %d: a world of %d ranks, others say %d", rank,
				     pl->world, m->world_size);
	m->ranks[rank].pid = p->pid;
	if (p->host && p->host[0]) {
		char *host = strdup(p->host);

		if (!host)
			return -ENOMEM;
		free(m->ranks[rank].host);
		m->ranks[rank].host = host;
	}
	m->ranks[rank].lost_records += pl->lost + p->lost_records;
	for (int k = 0; k < 2; k++) {
		m->ranks[rank].has_clock[k] = pl->has_clock[k];
		m->ranks[rank].clock[k] = pl->clock[k];
	}
	for (size_t l = pl->first_loc; l < m->nlocs; l++)
		m->locs[l].rank = rank;
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
	u64map_clear(&ld->site_of);
	for (size_t c = pl->first_call; c < m->ncalls && ret == 0; c++) {
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
	v = version1_cancels(m, pl);
	if (ret == 0 && v)
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
	if (ret == 0 && pl->have_span)
		ret = add_span(ld, pl, rank);
	return ret;
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

int mpi_model_load(struct mpi_model *m, const struct experiment *e, unsigned flags, char *err,
		   size_t errlen)
{
	return mpi_model_load_facts(m, e, flags, NULL, err, errlen);
}

int mpi_model_load_facts(struct mpi_model *m, const struct experiment *e, unsigned flags,
			 struct stream_facts *facts, char *err, size_t errlen)
{
	struct loader ld;
	int ret = 0;

	memset(&ld, 0, sizeof(ld));
	ld.m = m;
	ld.e = e;
	ld.have_syms = symtab_init(&ld.syms, e->dir) == 0;
	/* the streams are sorted by process: one process at a time */
	for (size_t i = 0; i < e->nstreams && ret == 0;) {
		struct proc_load pl;
		size_t j = i;

		memset(&pl, 0, sizeof(pl));
		pl.proc = e->streams[i].proc;
		pl.init_rank = -1;
		pl.version = 1;
		pl.first_loc = m->nlocs;
		pl.first_call = m->ncalls;
		pl.first_item = m->nitems;
		for (; j < e->nstreams && e->streams[j].proc == pl.proc && ret == 0; j++)
			ret = load_stream(&ld, &pl, &e->streams[j], facts ? &facts[j] : NULL);
		if (ret == 0)
			ret = finish_process(&ld, &pl);
		ld.any_mpi |= pl.any;
		proc_load_release(&pl);
		i = j;
	}
	if (ld.have_syms)
		symtab_release(&ld.syms);
	u64map_release(&ld.site_of);
	u64map_release(&ld.rank_pid);
	if (ret) {
		free(ld.spans);
		snprintf(err, errlen, "%s: out of memory reading MPI records", e->dir);
		return ret;
	}
	if (!ld.any_mpi) {
		free(ld.spans);
		no_mpi_text(e, err, errlen);
		return -ENODATA;
	}
	free(m->source);
	m->source = strdup(e->dir);
	if (!m->source) {
		free(ld.spans);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	ret = mpi_model_build(m, flags, err, errlen);
	if (ret == 0)
		widen_ranges(&ld, flags);
	free(ld.spans);
	return ret;
}
