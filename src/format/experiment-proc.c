/*
 * experiment-proc.c - an experiment's proc.<pid>[.<image>].json files read (one process image
 * each: its identity, what it lost, its events and its clock pairs), and each process's clock
 * fitted from its pairs.
 */
#include "format/experiment-int.h"

#include "format/meta.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The proc file NAME whose text stops short (at AT) or is blank: a full disk or a kill left no
 * whole description, so the process is left out and the file listed as damaged. 0 or -ENOMEM
 * (said in ERR, naming PATH). */
static int proc_cut(struct experiment *e, const char *name, const char *path, uint64_t at,
		    char *err, size_t errlen)
{
	struct layout_file lf;
	int exists;
	uint64_t size = exp_file_size(e->dir, name, &exists);
	struct exp_damage *d =
	    exp_damage_add(e, name, size ? EXP_DAMAGE_JSON_CUT : EXP_DAMAGE_EMPTY, size, at);

	if (!d) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	if (layout_parse(name, &lf) == LAYOUT_PROC) {
		d->pid = lf.pid;
		d->image = lf.image;
	}
	return 0;
}

/* The members of the proc file J but its calibration pairs into P. */
static void proc_fields(struct exp_process *p, struct jfile *f, const cJSON *j)
{
	char *clock;

	p->pid = (pid_t)exp_get_num(f, j, PROC_PID, R_INT, 0);
	p->image = (unsigned)exp_get_num(f, j, PROC_IMAGE, R_U32, 0);
	p->ppid = (pid_t)exp_get_num(f, j, PROC_PPID, R_INT, 0);
	p->rank = (int)exp_get_num(f, j, PROC_RANK, R_INT, -1);
	p->exe = exp_dup_str(f, j, PROC_EXE);
	p->host = exp_dup_str(f, j, PROC_HOST);
	p->state = exp_dup_str(f, j, PROC_STATE);
	p->error = exp_dup_str(f, j, PROC_ERROR);
	p->paranoid = (int)exp_get_num(f, j, PROC_PARANOID, R_INT, 2);
	p->have_core_pmu = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, PROC_HAVE_CORE_PMU));
	p->lost_records = (uint64_t)exp_get_num(f, j, PROC_LOST_RECORDS, R_U64, 0);
	p->lost_bytes = (uint64_t)exp_get_num(f, j, PROC_LOST_BYTES, R_U64, 0);
	p->lost_threads = (uint64_t)exp_get_num(f, j, PROC_LOST_THREADS, R_U64, 0);
	p->regions_folded = (uint64_t)exp_get_num(f, j, PROC_REGIONS_FOLDED, R_U64, 0);
	p->region_names_cut = (uint64_t)exp_get_num(f, j, PROC_REGION_NAMES_CUT, R_U64, 0);
	clock = exp_dup_str(f, j, PROC_CLOCK);
	p->clock = clock ? clock_source_parse(clock) : 0;
	free(clock);
	p->events =
	    exp_dup_str_array(f, cJSON_GetObjectItemCaseSensitive(j, PROC_EVENTS), &p->nevents);
}

/* The proc file's "calibration" pairs CAL into P; one past what a stream header can hold is a
 * defect, said in F. */
static void proc_pairs(struct exp_process *p, struct jfile *f, const cJSON *cal)
{
	const cJSON *pair;

	p->pairs = calloc((size_t)cJSON_GetArraySize(cal) + 1, sizeof(*p->pairs));
	if (!p->pairs)
		exp_jfile_oom(f);
	cJSON_ArrayForEach(pair, cal)
	{
		struct clock_pair *cp;

		if (cJSON_GetArraySize(pair) != 2 || !p->pairs)
			continue;
		cp = &p->pairs[p->npairs];
		cp->ticks = exp_json_u64(f, cJSON_GetArrayItem(pair, 0), "calibration");
		cp->ns = exp_json_u64(f, cJSON_GetArrayItem(pair, 1), "calibration");
		/* as in a stream header: ticks of a record's 62 bits, a signed time */
		if (!f->ret && (cp->ticks >> 62 || cp->ns >> 63)) {
			snprintf(f->err, f->errlen,
				 "%s: \"calibration\": pair %zu (%" PRIu64 ", %" PRIu64
				 ") is past 2^62 ticks or 2^63 ns: the file is damaged",
				 f->path, p->npairs + 1, cp->ticks, cp->ns);
			f->ret = -EINVAL;
		}
		p->npairs++;
	}
}

int exp_proc_load(struct experiment *e, const char *name, char *err, size_t errlen)
{
	char path[4096];
	struct jfile f = {path, err, errlen, 0};
	struct exp_process *p;
	cJSON *j;
	int ret = 0, cut = 0;
	uint64_t at = 0;

	snprintf(path, sizeof(path), "%s/%s", e->dir, name);
	j = exp_read_json_cut(path, err, errlen, &ret, &cut, &at);
	if (!j && cut)
		return proc_cut(e, name, path, at, err, errlen);
	if (!j)
		return ret;
	p = &e->procs[e->nprocs++];
	proc_fields(p, &f, j);
	proc_pairs(p, &f, cJSON_GetObjectItemCaseSensitive(j, PROC_CALIBRATION));
	cJSON_Delete(j);
	if (f.ret)
		return f.ret;
	if (!p->clock || p->pid <= 0) {
		snprintf(err, errlen, "%s: missing pid or clock", path);
		return -EINVAL;
	}
	return 0;
}

void exp_fit_clocks(struct experiment *e)
{
	for (size_t i = 0; i < e->nprocs; i++) {
		struct exp_process *p = &e->procs[i];

		if (p->npairs == 0 || clock_fit_checked(p->pairs, p->npairs, p->clock, &p->fit,
							p->clock_note, sizeof(p->clock_note))) {
			/* without two distinct pairs, trust the only one with a unit slope */
			p->fit.ref_ticks = p->npairs ? p->pairs[0].ticks : 0;
			p->fit.ref_ns = p->npairs ? p->pairs[0].ns : 0;
			p->fit.ns_per_tick = 1.0;
			clock_fit_prepare(&p->fit);
		}
	}
}
