/*
 * otf2-omp.h - OpenMP in the OTF2 export (docs/cmd-export.md "OpenMP"): the EV_OMP_* events
 * of a thread as OTF2's OpenMP events on its location, nested with its function calls.
 *
 * On the encountering thread a parallel region is ThreadFork (with the team's size), Enter of
 * its region (role PARALLEL, named "[omp parallel SITE]" as the call tree names it), ...,
 * Leave, ThreadJoin. On each thread of the team its implicit task is ThreadTeamBegin, Enter
 * ("[omp implicit task SITE]", role TASK: the OTF2 of this system has no IMPLICIT_TASK role), ...,
 * Leave, ThreadTeamEnd; the team is an OpenMP communicator of its process's threads. A wait
 * (SYNC_ENTER/LEAVE) is Enter/Leave of a region named as the Chrome export names it, with the role
 * of what is waited for. Only for otf2-export.c.
 */
#ifndef PSC_OTF2_OMP_H
#define PSC_OTF2_OMP_H

#include "export/otf2-int.h"
#include "model/event.h"

/* The EV_OMP_* kinds the export takes. */
uint64_t ox_omp_kinds(void);

/* OpenMP event EV at NS (aligned) on the thread's location T of group GROUP. 0 or -1 (x->err
 * says why). */
int ox_omp_event(struct xp *x, struct track *t, uint32_t group, const struct event *ev, int64_t ns);

/* Before any other event of the location: a ThreadFork kept for its team size is written.
 * 0 or -1. */
int ox_omp_flush(struct xp *x, struct track *t);

/* The location ends, its regions left (at its last time): the teams and forks a killed
 * run left open end there too (ThreadTeamEnd, ThreadJoin). 0 or -1. */
int ox_omp_location_end(struct xp *x, struct track *t);

/* A new location begins: nothing of the previous one is open. */
void ox_omp_location(struct xp *x);

/* The OpenMP paradigm, the threads' group and the teams' communicators, when the events had
 * OpenMP. 0 or -1. */
int ox_omp_write_definitions(struct xp *x, OTF2_GlobalDefWriter *gw);

void ox_omp_release(struct xp *x);

#endif /* PSC_OTF2_OMP_H */
