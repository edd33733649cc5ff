/*
 * chrome-omp.h - OpenMP in the Chrome export (chrome-omp.c), for chrome.c's consumer: each
 * thread's implicit tasks as slices on its track named as their parallel region (the
 * construct's site, "function@file:line" as `report --openmp` names it), and the waits the
 * runtime recorded (barriers, locks, critical sections, taskwaits...) as slices nested in them.
 *
 * The slices are complete events ("X": a start and a duration), written when they end. A
 * worker's implicit task may be read before the thread that began its region (the pass walks
 * the streams one after the other): until that region's PARALLEL_BEGIN is read the task is
 * kept, and written at the end of the pass. Every region's id and site are kept to name its
 * tasks (memory grows with the number of parallel region instances).
 */
#ifndef PSC_CHROME_OMP_H
#define PSC_CHROME_OMP_H

#include "export/chrome-int.h"

struct chrome_omp;

/* A new, empty state in *M, naming sites through ST (kept by the caller). 0 or -ENOMEM. */
int chrome_omp_new(struct chrome_omp **m, struct symtab *st);
void chrome_omp_free(struct chrome_omp *m);

/* The OpenMP kinds (EV_BIT) chrome_omp_event() takes. */
uint64_t chrome_omp_kinds(void);

/* A new stream location begins: nothing of it is open. */
void chrome_omp_location(struct chrome_omp *m);

/* EV (an EV_OMP_* event of a stream), times from ORIGIN: the slice of an implicit task or a
 * wait that it ends. 0 or -ENOMEM. */
int chrome_omp_event(struct chrome_omp *m, struct out *o, const struct event *ev, int64_t origin);

/* The implicit tasks and waits the current location left open (a killed run) end at REL_NS,
 * flagged "end_recorded":false. 0 or -ENOMEM. */
int chrome_omp_close(struct chrome_omp *m, struct out *o, int64_t rel_ns);

/* At the pass's end: the implicit tasks kept until their region was known, named (an id no
 * PARALLEL_BEGIN named: "omp parallel"). */
void chrome_omp_finish(struct chrome_omp *m, struct out *o);

#endif /* PSC_CHROME_OMP_H */
