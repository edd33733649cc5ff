/*
 * mpi-causal.c - causality of the MPI model: messages received before they were sent, and
 * collectives left before a rank they depend on entered, counted and then corrected by
 * replaying every location's events with forward shifts amortised over the interval before
 * (mpi-match.h).
 */
#include "mpi-match.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../core/format.h"

/* ---- causality ------------------------------------------------------------------------------ */

/*
 * The correction replays every location's events (enter and leave of each call) in order.
 * A receive's leave waits until the enter of each matched send is final; locations run as
 * far as they can, and one that moved on wakes the ones waiting for it. If all wait on each
 * other (impossible in a real run, possible in damaged input), the first one goes on without
 * the sends it waits for, which then stay violations.
 */
struct replay_loc {
	int64_t shift;	     /* added to every later event */
	int64_t amort_t;     /* corrected time of the previous message event (or first enter) */
	uint32_t pos, npos;  /* events done, of 2 per call */
	uint32_t amort_from; /* first call after the previous message event */
	uint32_t blocked_on; /* location waited for, MPI_NONE */
	uint32_t waiters;    /* first location waiting for this one, MPI_NONE */
	uint32_t next;	     /* next in the list this one waits in */
	int have_t, force;
};

struct replay {
	struct mpi_model *m;
	struct replay_loc *rl;
	uint32_t *stack;
	size_t nstack;
	int64_t lat;
};

static uint64_t count_violations(const struct mpi_model *m, int64_t *min_lat)
{
	uint64_t n = 0;

	for (size_t i = 0; i < m->nmsgs; i++) {
		const struct mpi_message *g = &m->msgs[i];
		int64_t d;

		if (g->recv_call == MPI_NONE)
			continue;
		d = m->calls[g->recv_call].leave_ns - m->calls[g->send_call].enter_ns;
		if (d < 0)
			n++;
		else if (min_lat && d > 0 && d < *min_lat)
			*min_lat = d;
	}
	return n;
}

static int has_send(const struct mpi_model *m, const struct mpi_call *c)
{
	for (uint32_t i = c->first_item; i < c->first_item + c->nitems; i++)
		if (m->items[i].kind == PSC_MPI_ITEM_SEND || m->items[i].kind == PSC_MPI_ITEM_ISEND)
			return 1;
	return 0;
}

/* T moved by the share of DELTA its place between T0 and T1 gives it. */
static int64_t amortised(int64_t t, int64_t t0, int64_t t1, int64_t delta)
{
	if (t <= t0)
		return t;
	if (t >= t1)
		return t + delta;
	return t + (int64_t)((__int128)delta * (t - t0) / (t1 - t0));
}

/* The receive ending call C of location L (at T1 before the fix) moves by DELTA: the events
 * since the previous message event take their share of it. */
static void amortise(struct replay *rp, uint32_t l, uint32_t c, int64_t t1, int64_t delta)
{
	struct mpi_model *m = rp->m;
	struct replay_loc *s = &rp->rl[l];
	int64_t t0 = s->amort_t;

	if (t1 <= t0)
		return;
	for (uint32_t j = s->amort_from; j < c; j++) {
		m->calls[j].enter_ns = amortised(m->calls[j].enter_ns, t0, t1, delta);
		m->calls[j].leave_ns = amortised(m->calls[j].leave_ns, t0, t1, delta);
	}
	/* a call that also sends keeps its enter: the peer's receive was fixed against it */
	if (!has_send(m, &m->calls[c]))
		m->calls[c].enter_ns = amortised(m->calls[c].enter_ns, t0, t1, delta);
}

/* Run location L as far as it goes: 1 when it advanced, 0 when not. */
static int replay_run(struct replay *rp, uint32_t l)
{
	struct mpi_model *m = rp->m;
	struct replay_loc *s = &rp->rl[l];
	uint32_t first = m->locs[l].first_call, start = s->pos;

	while (s->pos < s->npos) {
		uint32_t c = first + s->pos / 2;
		struct mpi_call *call = &m->calls[c];
		int64_t need = INT64_MIN, leave;
		uint32_t wait = MPI_NONE;

		if (!(s->pos & 1)) {
			call->enter_ns += s->shift;
			if (!s->have_t) {
				s->amort_t = call->enter_ns;
				s->amort_from = c;
				s->have_t = 1;
			}
			s->pos++;
			continue;
		}
		for (uint32_t i = call->first_item; i < call->first_item + call->nitems; i++) {
			const struct mpi_item *it = &m->items[i];
			uint32_t sc, sl;

			if (it->kind != PSC_MPI_ITEM_RECV || it->msg == MPI_NONE)
				continue;
			sc = m->msgs[it->msg].send_call;
			sl = m->calls[sc].loc;
			if (rp->rl[sl].pos <= 2 * (sc - m->locs[sl].first_call)) {
				if (!s->force) {
					wait = sl;
					break;
				}
				continue;
			}
			if (m->calls[sc].enter_ns > need)
				need = m->calls[sc].enter_ns;
		}
		if (wait != MPI_NONE) {
			s->blocked_on = wait;
			s->next = rp->rl[wait].waiters;
			rp->rl[wait].waiters = l;
			break;
		}
		s->force = 0;
		leave = call->leave_ns + s->shift;
		if (leave < need) {
			int64_t delta = need + rp->lat - leave;

			amortise(rp, l, c, leave, delta);
			s->shift += delta;
			leave += delta;
			if (s->shift > m->max_correction_ns)
				m->max_correction_ns = s->shift;
		}
		call->leave_ns = leave;
		if (call->nitems) {
			s->amort_from = c + 1;
			s->amort_t = leave;
		}
		s->pos++;
	}
	return s->pos != start;
}

/* Wake the locations waiting for L. */
static void replay_wake(struct replay *rp, uint32_t l)
{
	uint32_t w = rp->rl[l].waiters;

	rp->rl[l].waiters = MPI_NONE;
	while (w != MPI_NONE) {
		uint32_t next = rp->rl[w].next;

		rp->rl[w].blocked_on = MPI_NONE;
		rp->stack[rp->nstack++] = w;
		w = next;
	}
}

/* Take L out of the list of the location it waits for. */
static void replay_unwait(struct replay *rp, uint32_t l)
{
	uint32_t *p = &rp->rl[rp->rl[l].blocked_on].waiters;

	while (*p != MPI_NONE && *p != l)
		p = &rp->rl[*p].next;
	if (*p == l)
		*p = rp->rl[l].next;
	rp->rl[l].blocked_on = MPI_NONE;
}

static int replay(struct mpi_model *m, int64_t lat)
{
	struct replay rp = {m, NULL, NULL, 0, lat};
	size_t ndone = 0, scan = 0;

	rp.rl = calloc(m->nlocs + 1, sizeof(*rp.rl));
	rp.stack = malloc((m->nlocs + 1) * sizeof(*rp.stack));
	if (!rp.rl || !rp.stack) {
		free(rp.rl);
		free(rp.stack);
		return -ENOMEM;
	}
	for (size_t l = 0; l < m->nlocs; l++) {
		rp.rl[l].npos = 2 * m->locs[l].ncalls;
		rp.rl[l].blocked_on = rp.rl[l].waiters = rp.rl[l].next = MPI_NONE;
		rp.stack[rp.nstack++] = (uint32_t)(m->nlocs - 1 - l);
	}
	while (ndone < m->nlocs) {
		while (rp.nstack) {
			uint32_t l = rp.stack[--rp.nstack];

			if (replay_run(&rp, l))
				replay_wake(&rp, l);
			if (rp.rl[l].pos == rp.rl[l].npos)
				ndone++;
		}
		/* all that remain wait for each other: the first goes on regardless */
		while (ndone < m->nlocs && rp.rl[scan].pos == rp.rl[scan].npos)
			scan++;
		if (ndone < m->nlocs) {
			replay_unwait(&rp, (uint32_t)scan);
			rp.rl[scan].force = 1;
			rp.stack[rp.nstack++] = (uint32_t)scan;
		}
	}
	free(rp.rl);
	free(rp.stack);
	return 0;
}

int mpi_correct_causality(struct mpi_model *m, int correct)
{
	int64_t lat = 1000;
	int ret = 0;

	m->violations_before = count_violations(m, &lat);
	m->violations_after = m->violations_before;
	m->max_correction_ns = 0;
	if (!correct || m->violations_before == 0)
		return 0;
	ret = replay(m, lat);
	if (ret == 0)
		m->violations_after = count_violations(m, NULL);
	return ret;
}
