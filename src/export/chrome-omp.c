/* chrome-omp.c - OpenMP implicit tasks and waits as slices of the Chrome export (chrome-omp.h). */
#include "export/chrome-omp.h"
#include "analysis/openmp/omp-profile.h"

#include "format/format.h"
#include "lib/array.h"
#include "lib/hash.h"
#include "lib/hashmap.h"

#include <stdlib.h>

/* A parallel region instance seen begun: its process and id, and its site's name. */
struct par {
	const struct exp_process *proc;
	uint64_t id;
	size_t name; /* index in names */
};

/* A site's name in a process. */
struct site_name {
	const struct exp_process *proc;
	uint64_t site;
	char *name;
};

/* An open implicit task or wait of the current location; a task kept for the pass's end. */
struct slice {
	const struct exp_process *proc;
	pid_t pid, tid;
	uint64_t parallel;	  /* a task's region id */
	uint32_t thread, kind;	  /* a task's thread number; a wait's enum psc_omp_sync */
	int64_t begin_ns, end_ns; /* from the origin */
	int recorded;		  /* its end was recorded */
};

struct chrome_omp {
	struct symtab *st;
	struct par *pars;
	size_t npars, pars_cap;
	struct hchain by_par; /* (proc, id) -> pars */
	struct site_name *names;
	size_t nnames, names_cap;
	struct hchain by_site;	     /* (proc, site) -> names */
	struct slice *tasks, *waits; /* the current location's open ones, innermost last */
	size_t ntasks, tasks_cap, nwaits, waits_cap;
	struct slice *kept; /* tasks whose region was not begun yet when they ended */
	size_t nkept, kept_cap;
};

static uint64_t key_hash(const struct exp_process *proc, uint64_t k)
{
	return hash_bytes(hash_bytes(HASH_INIT, &proc, sizeof(proc)), &k, sizeof(k));
}

int chrome_omp_new(struct chrome_omp **m, struct symtab *st)
{
	*m = calloc(1, sizeof(**m));
	if (!*m)
		return -ENOMEM;
	(*m)->st = st;
	return 0;
}

void chrome_omp_free(struct chrome_omp *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nnames; i++)
		free(m->names[i].name);
	free(m->names);
	free(m->pars);
	hchain_release(&m->by_par);
	hchain_release(&m->by_site);
	free(m->tasks);
	free(m->waits);
	free(m->kept);
	free(m);
}

uint64_t chrome_omp_kinds(void)
{
	return EV_BIT(EV_OMP_PARALLEL_BEGIN) | EV_BIT(EV_OMP_ITASK_BEGIN) |
	       EV_BIT(EV_OMP_ITASK_END) | EV_BIT(EV_OMP_SYNC_ENTER) | EV_BIT(EV_OMP_SYNC_LEAVE);
}

void chrome_omp_location(struct chrome_omp *m)
{
	m->ntasks = m->nwaits = 0;
}

/* The index in M->names of SITE's name in LOC's process, added when new. 0 or -ENOMEM. */
static int name_of(struct chrome_omp *m, const struct ev_location *loc, uint64_t site, size_t *at)
{
	uint64_t h = key_hash(loc->proc, site);

	for (size_t i = hchain_first(&m->by_site, h); i; i = hchain_next(&m->by_site, i))
		if (m->names[i - 1].proc == loc->proc && m->names[i - 1].site == site) {
			*at = i - 1;
			return 0;
		}
	if (ARRAY_GROW(m->names, m->nnames + 1, m->names_cap))
		return -ENOMEM;
	m->names[m->nnames] = (struct site_name){.proc = loc->proc, .site = site};
	if (!(m->names[m->nnames].name = omp_site_name(m->st, loc->pid, loc->image, site)) ||
	    hchain_add(&m->by_site, h, m->nnames))
		return -ENOMEM;
	*at = m->nnames++;
	return 0;
}

/* The name of region instance ID of PROC, NULL when none was begun (so far). */
static const char *par_name(const struct chrome_omp *m, const struct exp_process *proc, uint64_t id)
{
	uint64_t h = key_hash(proc, id);

	for (size_t i = hchain_first(&m->by_par, h); i; i = hchain_next(&m->by_par, i))
		if (m->pars[i - 1].proc == proc && m->pars[i - 1].id == id)
			return m->names[m->pars[i - 1].name].name;
	return NULL;
}

static int par_begin(struct chrome_omp *m, const struct event *ev)
{
	size_t name;

	if (name_of(m, ev->loc, ev->omp.site, &name) ||
	    ARRAY_GROW(m->pars, m->npars + 1, m->pars_cap) ||
	    hchain_add(&m->by_par, key_hash(ev->loc->proc, ev->omp.parallel), m->npars))
		return -ENOMEM;
	m->pars[m->npars++] =
	    (struct par){.proc = ev->loc->proc, .id = ev->omp.parallel, .name = name};
	return 0;
}

/* S as an "X" event named NAME; a task's args say its region id and thread number. */
static void slice_write(struct out *o, const struct slice *s, const char *name, int task)
{
	char *p = event_start(o, out_room(o, ROOM_MAX));

	o->len = (size_t)(p - o->buf);
	out_lit(o, "{\"ph\":\"X\",\"pid\":");
	out_u64(o, (uint64_t)s->pid);
	out_lit(o, ",\"tid\":");
	out_u64(o, (uint64_t)s->tid);
	out_lit(o, ",\"ts\":");
	o->len += chrome_format_us(out_room(o, 32), s->begin_ns);
	out_lit(o, ",\"dur\":");
	o->len += chrome_format_us(out_room(o, 32), s->end_ns - s->begin_ns);
	out_lit(o, ",\"cat\":\"openmp\",\"name\":");
	out_string(o, name);
	out_lit(o, ",\"args\":{");
	if (task) {
		out_lit(o, "\"parallel_id\":");
		out_u64(o, s->parallel);
		out_lit(o, ",\"thread\":");
		out_u64(o, s->thread);
		if (!s->recorded)
			out_lit(o, ",");
	}
	if (!s->recorded)
		out_lit(o, "\"end_recorded\":false");
	out_lit(o, "}}");
}

/* Implicit task S ended: written when its region is known, else kept. 0 or -ENOMEM. */
static int task_end(struct chrome_omp *m, struct out *o, const struct slice *s)
{
	const char *name = par_name(m, s->proc, s->parallel);

	if (name) {
		slice_write(o, s, name, 1);
		return 0;
	}
	if (ARRAY_GROW(m->kept, m->nkept + 1, m->kept_cap))
		return -ENOMEM;
	m->kept[m->nkept++] = *s;
	return 0;
}

/* The innermost open slice of LIST whose KEY (a task's region id, a wait's kind) is K, N
 * open; N when none. */
static size_t find_open(const struct slice *list, size_t n, int task, uint64_t k)
{
	for (size_t i = n; i > 0; i--)
		if ((task ? list[i - 1].parallel : list[i - 1].kind) == k)
			return i - 1;
	return n;
}

/* A new open slice of EV's thread at the end of *LIST. 0 or -ENOMEM. */
static int open_slice(struct slice **list, size_t *n, size_t *cap, const struct event *ev,
		      int64_t origin)
{
	if (ARRAY_GROW(*list, *n + 1, *cap))
		return -ENOMEM;
	(*list)[(*n)++] = (struct slice){.proc = ev->loc->proc,
					 .pid = ev->loc->pid,
					 .tid = ev->loc->tid,
					 .parallel = ev->omp.parallel,
					 .thread = ev->omp.thread,
					 .kind = ev->omp.kind,
					 .begin_ns = ev->ns - origin,
					 .recorded = 1};
	return 0;
}

int chrome_omp_event(struct chrome_omp *m, struct out *o, const struct event *ev, int64_t origin)
{
	size_t k;

	switch (ev->kind) {
	case EV_OMP_PARALLEL_BEGIN:
		return par_begin(m, ev);
	case EV_OMP_ITASK_BEGIN:
		return open_slice(&m->tasks, &m->ntasks, &m->tasks_cap, ev, origin);
	case EV_OMP_SYNC_ENTER:
		return open_slice(&m->waits, &m->nwaits, &m->waits_cap, ev, origin);
	case EV_OMP_ITASK_END:
		k = find_open(m->tasks, m->ntasks, 1, ev->omp.parallel);
		if (k == m->ntasks)
			return 0; /* an end without its begin: nothing to close */
		m->tasks[k].end_ns = ev->ns - origin;
		if (task_end(m, o, &m->tasks[k]))
			return -ENOMEM;
		memmove(&m->tasks[k], &m->tasks[k + 1], (m->ntasks - k - 1) * sizeof(*m->tasks));
		m->ntasks--;
		return 0;
	case EV_OMP_SYNC_LEAVE:
		k = find_open(m->waits, m->nwaits, 0, ev->omp.kind);
		if (k == m->nwaits)
			return 0;
		m->waits[k].end_ns = ev->ns - origin;
		slice_write(o, &m->waits[k], omp_wait_name(m->waits[k].kind), 0);
		memmove(&m->waits[k], &m->waits[k + 1], (m->nwaits - k - 1) * sizeof(*m->waits));
		m->nwaits--;
		return 0;
	default:
		return 0;
	}
}

int chrome_omp_close(struct chrome_omp *m, struct out *o, int64_t rel_ns)
{
	while (m->nwaits) {
		struct slice *s = &m->waits[--m->nwaits];

		s->end_ns = rel_ns;
		s->recorded = 0;
		slice_write(o, s, omp_wait_name(s->kind), 0);
	}
	while (m->ntasks) {
		struct slice *s = &m->tasks[--m->ntasks];

		s->end_ns = rel_ns;
		s->recorded = 0;
		if (task_end(m, o, s))
			return -ENOMEM;
	}
	return 0;
}

void chrome_omp_finish(struct chrome_omp *m, struct out *o)
{
	for (size_t i = 0; i < m->nkept; i++) {
		const char *name = par_name(m, m->kept[i].proc, m->kept[i].parallel);

		slice_write(o, &m->kept[i], name ? name : "omp parallel", 1);
	}
	m->nkept = 0;
}
