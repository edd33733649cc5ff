/*
 * chrome-model.h - the Chrome export's MPI calls, messages and samples (chrome-model.c), for
 * chrome.c's consumer.
 */
#ifndef PSC_CHROME_MODEL_H
#define PSC_CHROME_MODEL_H

#include "export/chrome-int.h"

struct chrome_model;

/* A new, empty state in *M. 0 or -ENOMEM. */
int chrome_model_new(struct chrome_model **m);
void chrome_model_free(struct chrome_model *m);

/* A new stream location begins: no MPI call is open on it. */
void chrome_model_location(struct chrome_model *m);

/* An MPI call LOC left open (a killed run) ends at REL_NS, its E event with
 * "exit_recorded":false: at the exit of a function around it, or at the end of the stream. */
void chrome_model_close(struct chrome_model *m, struct out *o, const struct ev_location *loc,
			int64_t rel_ns);

/* EV (EV_MPI_COMM, EV_MPI_ENTER, EV_MPI_LEAVE) of a stream, times from ORIGIN: the call's B and
 * E events, and a flow event per message it sent or received. 1 when an MPI call is open after
 * EV (chrome_model_close() has one to end), 0 when none is, or -ENOMEM. */
int chrome_model_mpi(struct chrome_model *m, struct out *o, const struct event *ev, int64_t origin,
		     struct chrome_stats *stats);

/* EV (EV_SAMPLE, EV_TASK) of a samples file: a sample as an instant event on its thread, named
 * by the function of its address through ST. 0 or -ENOMEM. */
int chrome_model_sample(struct chrome_model *m, struct out *o, struct symtab *st,
			const struct event *ev, int64_t origin, struct chrome_stats *stats);

#endif /* PSC_CHROME_MODEL_H */
