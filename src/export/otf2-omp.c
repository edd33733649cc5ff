/* otf2-omp.c - OpenMP in the OTF2 export (otf2-omp.h). */
#include "export/otf2-omp.h"

#include "analysis/openmp/omp-profile.h"
#include "format/format.h"
#include "lib/array.h"
#include "lib/hash.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A team communicator: the threads of a process's teams of one size. */
struct ox_team {
	uint32_t group; /* the process's location group */
	uint32_t size;
	uint64_t *members; /* indexes in ox_omp.locs */
	size_t nmembers, members_cap;
};

/* An open parallel region (encountering thread) or implicit task: its id and region. */
struct ox_open {
	uint64_t parallel;
	uint32_t region;
	uint32_t team; /* an implicit task's team communicator */
};

struct ox_omp {
	uint32_t name, team_name; /* strings "OpenMP", "OpenMP team" */
	struct ox_team *teams;
	size_t nteams, teams_cap;
	struct u64map team_ix; /* group << 32 | size -> teams */
	uint64_t *locs;	       /* the locations with implicit tasks */
	size_t nlocs, locs_cap;
	struct u64map par_ix; /* hash of (process, parallel id) -> implicit task region + 1 */
	/* the location's */
	struct ox_open *pars, *tasks; /* innermost last */
	size_t npars, pars_cap, ntasks, tasks_cap;
	int fork;	    /* a ThreadFork kept for its team's size */
	uint64_t fork_ts;   /* its time */
	uint64_t fork_par;  /* its region's id */
	uint32_t fork_team; /* the size asked for (0: the default) */
	uint32_t fork_region;
};

uint64_t ox_omp_kinds(void)
{
	return EV_BIT(EV_OMP_PARALLEL_BEGIN) | EV_BIT(EV_OMP_PARALLEL_END) |
	       EV_BIT(EV_OMP_ITASK_BEGIN) | EV_BIT(EV_OMP_ITASK_END) | EV_BIT(EV_OMP_SYNC_ENTER) |
	       EV_BIT(EV_OMP_SYNC_LEAVE);
}

/* X's OpenMP state, made at the first use; NULL when out of memory. */
static struct ox_omp *omp_of(struct xp *x)
{
	if (x->omp)
		return x->omp;
	x->omp = calloc(1, sizeof(*x->omp));
	if (!x->omp)
		return NULL;
	x->omp->name = ox_string_id(x, "OpenMP");
	x->omp->team_name = ox_string_id(x, "OpenMP team");
	if (x->omp->name == UINT32_MAX || x->omp->team_name == UINT32_MAX)
		return NULL;
	return x->omp;
}

void ox_omp_location(struct xp *x)
{
	if (x->omp)
		x->omp->npars = x->omp->ntasks = x->omp->fork = 0;
}

static uint64_t par_key(const struct ev_location *loc, uint64_t parallel)
{
	return hash_bytes(hash_bytes(HASH_INIT, &loc->proc, sizeof(loc->proc)), &parallel,
			  sizeof(parallel));
}

/* The OpenMP region "[omp WHAT SITE]" of EV's site with ROLE. UINT32_MAX out of memory. */
static uint32_t site_region(struct xp *x, const struct event *ev, const char *what, int role)
{
	char *site = omp_site_name(x->st, ev->loc->pid, ev->loc->image, ev->omp.site);
	char *name;
	uint32_t id = UINT32_MAX;

	if (site && asprintf(&name, "[omp %s %s]", what, site) >= 0) {
		id = ox_region_id(x, name, RK_OMP, (unsigned)role);
		free(name);
	}
	free(site);
	return id;
}

/* The OTF2 role of a wait of KIND (enum psc_omp_sync): OTF2 has no role for locks (a
 * wrapper) nor reductions (an implicit barrier). */
static int wait_role(unsigned kind)
{
	static const int roles[] = {
	    [PSC_OMP_SYNC_BARRIER_IMPLICIT] = OTF2_REGION_ROLE_IMPLICIT_BARRIER,
	    [PSC_OMP_SYNC_BARRIER_EXPLICIT] = OTF2_REGION_ROLE_BARRIER,
	    [PSC_OMP_SYNC_BARRIER_WORK] = OTF2_REGION_ROLE_IMPLICIT_BARRIER,
	    [PSC_OMP_SYNC_CRITICAL] = OTF2_REGION_ROLE_CRITICAL,
	    [PSC_OMP_SYNC_LOCK] = OTF2_REGION_ROLE_WRAPPER,
	    [PSC_OMP_SYNC_ORDERED] = OTF2_REGION_ROLE_ORDERED,
	    [PSC_OMP_SYNC_ATOMIC] = OTF2_REGION_ROLE_ATOMIC,
	    [PSC_OMP_SYNC_TASKWAIT] = OTF2_REGION_ROLE_TASK_WAIT,
	    [PSC_OMP_SYNC_TASKGROUP] = OTF2_REGION_ROLE_TASK_WAIT,
	    [PSC_OMP_SYNC_REDUCTION] = OTF2_REGION_ROLE_IMPLICIT_BARRIER,
	};

	return kind < sizeof(roles) / sizeof(roles[0]) && roles[kind] ? roles[kind]
								      : OTF2_REGION_ROLE_CODE;
}

/* The team communicator of GROUP's teams of SIZE, with location T a member. UINT32_MAX when
 * out of memory. The locations come one after the other: T, when listed, is the last one of
 * the OpenMP threads and of the team. */
static uint32_t team_of(struct ox_omp *o, struct track *t, uint32_t group, uint32_t size)
{
	uint64_t key = (uint64_t)group << 32 | size, v, li;
	struct ox_team *tm;

	li = o->nlocs ? o->nlocs - 1 : 0;
	if (!o->nlocs || o->locs[li] != t->loc) {
		if (ARRAY_GROW(o->locs, o->nlocs + 1, o->locs_cap))
			return UINT32_MAX;
		li = o->nlocs;
		o->locs[o->nlocs++] = t->loc;
	}
	if (!u64map_get(&o->team_ix, key, &v)) {
		if (ARRAY_GROW(o->teams, o->nteams + 1, o->teams_cap) ||
		    u64map_put(&o->team_ix, key, o->nteams))
			return UINT32_MAX;
		o->teams[o->nteams] = (struct ox_team){.group = group, .size = size};
		v = o->nteams++;
	}
	tm = &o->teams[v];
	if (!tm->nmembers || tm->members[tm->nmembers - 1] != li) {
		if (ARRAY_GROW(tm->members, tm->nmembers + 1, tm->members_cap))
			return UINT32_MAX;
		tm->members[tm->nmembers++] = li;
	}
	return (uint32_t)v;
}

/* The communicator id of team V: after the MPI communicators. */
static OTF2_CommRef team_comm(const struct xp *x, uint32_t v)
{
	return (OTF2_CommRef)((x->m ? x->m->ncomms : 0) + v);
}

static int push(struct ox_open **list, size_t *n, size_t *cap, struct ox_open v)
{
	if (ARRAY_GROW(*list, *n + 1, *cap))
		return -1;
	(*list)[(*n)++] = v;
	return 0;
}

/* The innermost open entry of LIST for region instance PARALLEL, N none. */
static size_t find(const struct ox_open *list, size_t n, uint64_t parallel)
{
	for (size_t i = n; i > 0; i--)
		if (list[i - 1].parallel == parallel)
			return i - 1;
	return n;
}

static void drop(struct ox_open *list, size_t *n, size_t k)
{
	memmove(&list[k], &list[k + 1], (*n - k - 1) * sizeof(*list));
	(*n)--;
}

int ox_omp_flush(struct xp *x, struct track *t)
{
	struct ox_omp *o = x->omp;
	uint64_t ts;

	if (!o || !o->fork)
		return 0;
	o->fork = 0;
	ts = ox_stamp(x, t, (int64_t)o->fork_ts); /* MPI calls may have been written since */
	if (ox_check(x,
		     OTF2_EvtWriter_ThreadFork(t->w, NULL, ts, OTF2_PARADIGM_OPENMP, o->fork_team),
		     "writing a thread fork") ||
	    push(&o->pars, &o->npars, &o->pars_cap,
		 (struct ox_open){.parallel = o->fork_par, .region = o->fork_region}))
		return x->failed ? -1 : ox_fail(x, -ENOMEM, "out of memory");
	return ox_region_enter(x, t, o->fork_region, ts);
}

/* PARALLEL_BEGIN: the fork waits for the team's size (the first implicit task's). */
static int parallel_begin(struct xp *x, struct ox_omp *o, const struct event *ev, uint64_t ts)
{
	uint32_t region = site_region(x, ev, "parallel", OTF2_REGION_ROLE_PARALLEL);
	uint32_t task = site_region(x, ev, "implicit task", OTF2_REGION_ROLE_TASK);

	if (region == UINT32_MAX || task == UINT32_MAX ||
	    u64map_put(&o->par_ix, par_key(ev->loc, ev->omp.parallel), (uint64_t)task + 1))
		return ox_fail(x, -ENOMEM, "out of memory");
	o->fork = 1;
	o->fork_ts = ts;
	o->fork_par = ev->omp.parallel;
	o->fork_team = ev->omp.team;
	o->fork_region = region;
	return 0;
}

static int parallel_end(struct xp *x, struct ox_omp *o, struct track *t, const struct event *ev,
			uint64_t ts)
{
	size_t k = find(o->pars, o->npars, ev->omp.parallel);
	uint32_t region;

	if (k == o->npars) /* an end without its begin closes nothing */
		return 0;
	region = o->pars[k].region;
	drop(o->pars, &o->npars, k);
	if (ox_region_leave(x, t, region, ts))
		return -1;
	return ox_check(x, OTF2_EvtWriter_ThreadJoin(t->w, NULL, ts, OTF2_PARADIGM_OPENMP),
			"writing a thread join");
}

/* ITASK_BEGIN at NS: the fork kept for its team's size is written first, at its own time
 * (stamped before it, it would move to this task's: a parallel region beginning when its
 * encountering thread's task does, late by the team's start-up). */
static int itask_begin(struct xp *x, struct ox_omp *o, struct track *t, uint32_t group,
		       const struct event *ev, int64_t ns)
{
	uint64_t v, ts;
	uint32_t team, region;

	if (o->fork && o->fork_par == ev->omp.parallel && ev->omp.team)
		o->fork_team = ev->omp.team;
	if (ox_omp_flush(x, t))
		return -1;
	ts = ox_stamp(x, t, ns);
	region = u64map_get(&o->par_ix, par_key(ev->loc, ev->omp.parallel), &v)
		     ? (uint32_t)(v - 1)
		     : ox_region_id(x, "[omp implicit task]", RK_OMP, OTF2_REGION_ROLE_TASK);
	team = team_of(o, t, group, ev->omp.team);
	if (region == UINT32_MAX || team == UINT32_MAX ||
	    push(&o->tasks, &o->ntasks, &o->tasks_cap,
		 (struct ox_open){.parallel = ev->omp.parallel, .region = region, .team = team}))
		return ox_fail(x, -ENOMEM, "out of memory");
	if (ox_check(x, OTF2_EvtWriter_ThreadTeamBegin(t->w, NULL, ts, team_comm(x, team)),
		     "writing a thread team"))
		return -1;
	return ox_region_enter(x, t, region, ts);
}

static int itask_end(struct xp *x, struct ox_omp *o, struct track *t, const struct event *ev,
		     uint64_t ts)
{
	size_t k = find(o->tasks, o->ntasks, ev->omp.parallel);
	struct ox_open task;

	if (k == o->ntasks)
		return 0;
	task = o->tasks[k];
	drop(o->tasks, &o->ntasks, k);
	if (ox_region_leave(x, t, task.region, ts))
		return -1;
	return ox_check(x, OTF2_EvtWriter_ThreadTeamEnd(t->w, NULL, ts, team_comm(x, task.team)),
			"writing a thread team");
}

int ox_omp_event(struct xp *x, struct track *t, uint32_t group, const struct event *ev, int64_t ns)
{
	struct ox_omp *o = omp_of(x);
	uint64_t ts;
	uint32_t id;

	if (!o)
		return ox_fail(x, -ENOMEM, "out of memory");
	if (ev->kind == EV_OMP_ITASK_BEGIN)
		return itask_begin(x, o, t, group, ev, ns);
	if (ox_omp_flush(x, t))
		return -1;
	ts = ox_stamp(x, t, ns);
	switch (ev->kind) {
	case EV_OMP_PARALLEL_BEGIN:
		return parallel_begin(x, o, ev, ts);
	case EV_OMP_PARALLEL_END:
		return parallel_end(x, o, t, ev, ts);
	case EV_OMP_ITASK_END:
		return itask_end(x, o, t, ev, ts);
	case EV_OMP_SYNC_ENTER:
	case EV_OMP_SYNC_LEAVE:
		id = ox_region_id(x, omp_wait_name(ev->omp.kind), RK_OMP,
				  (unsigned)wait_role(ev->omp.kind));
		if (id == UINT32_MAX)
			return ox_fail(x, -ENOMEM, "out of memory");
		return ev->kind == EV_OMP_SYNC_ENTER ? ox_region_enter(x, t, id, ts)
						     : ox_region_leave(x, t, id, ts);
	default:
		return 0;
	}
}

int ox_omp_location_end(struct xp *x, struct track *t)
{
	struct ox_omp *o = x->omp;

	if (!o || ox_omp_flush(x, t))
		return x->failed ? -1 : 0;
	while (o->ntasks && !x->failed)
		ox_check(x,
			 OTF2_EvtWriter_ThreadTeamEnd(t->w, NULL, t->last,
						      team_comm(x, o->tasks[--o->ntasks].team)),
			 "writing a thread team");
	while (o->npars && !x->failed) {
		o->npars--;
		ox_check(x, OTF2_EvtWriter_ThreadJoin(t->w, NULL, t->last, OTF2_PARADIGM_OPENMP),
			 "writing a thread join");
	}
	return x->failed ? -1 : 0;
}

int ox_omp_write_definitions(struct xp *x, OTF2_GlobalDefWriter *gw)
{
	struct ox_omp *o = x->omp;
	OTF2_GroupRef base = x->m ? (OTF2_GroupRef)(1 + x->m->ncomms) : 0;
	OTF2_ErrorCode code;

	if (!o)
		return 0;
	code = OTF2_GlobalDefWriter_WriteParadigm(gw, OTF2_PARADIGM_OPENMP, o->name,
						  OTF2_PARADIGM_CLASS_THREAD_FORK_JOIN);
	/* group BASE: the threads with implicit tasks; BASE + 1 + i: team i's, indexes in it */
	if (code == OTF2_SUCCESS && o->nlocs)
		code = OTF2_GlobalDefWriter_WriteGroup(
		    gw, base, ox_string_id(x, ""), OTF2_GROUP_TYPE_COMM_LOCATIONS,
		    OTF2_PARADIGM_OPENMP, OTF2_GROUP_FLAG_NONE, (uint32_t)o->nlocs, o->locs);
	for (size_t i = 0; i < o->nteams && code == OTF2_SUCCESS; i++)
		code = OTF2_GlobalDefWriter_WriteGroup(
		    gw, base + 1 + (OTF2_GroupRef)i, ox_string_id(x, ""),
		    OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_OPENMP, OTF2_GROUP_FLAG_NONE,
		    (uint32_t)o->teams[i].nmembers, o->teams[i].members);
	for (size_t i = 0; i < o->nteams && code == OTF2_SUCCESS; i++)
		code = OTF2_GlobalDefWriter_WriteComm(gw, team_comm(x, (uint32_t)i), o->team_name,
						      base + 1 + (OTF2_GroupRef)i,
						      OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
	return ox_check(x, code, "writing the OpenMP definitions");
}

void ox_omp_release(struct xp *x)
{
	struct ox_omp *o = x->omp;

	if (!o)
		return;
	for (size_t i = 0; i < o->nteams; i++)
		free(o->teams[i].members);
	free(o->teams);
	free(o->locs);
	free(o->pars);
	free(o->tasks);
	u64map_release(&o->team_ix);
	u64map_release(&o->par_ix);
	free(o);
	x->omp = NULL;
}
