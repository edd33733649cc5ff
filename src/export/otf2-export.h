/*
 * otf2-export.h - an experiment as an OTF2 archive (docs/cmd-export.md describes what is
 * written), the trace format of Score-P, Vampir, Scalasca and Python's otf2.
 *
 * Definitions: the host as a system tree node, a location group per process (per rank under
 * MPI), a location per thread (and a second one for its regions, which nest independently of
 * its functions), a region for every function, every region of the regions API and every MPI
 * routine called, the MPI communicators as groups of world ranks, a metric member per counted
 * event, clock properties in ns.
 * Events: Enter/Leave of function calls, regions and MPI calls; the MPI calls' messages
 * (MpiSend, MpiIsend, MpiIsendComplete, MpiIrecvRequest, MpiIrecv, MpiRecv,
 * MpiRequestCancelled), blocking collectives (MpiCollectiveBegin/End) and non-blocking ones
 * (NonBlockingCollectiveRequest in the I-call, NonBlockingCollectiveComplete in the call that
 * completed it), with the request ids that tie a completion to its message or collective; the
 * counters read at region boundaries as Metric events (otf2-metrics.c); OpenMP's parallel
 * regions, implicit tasks and waits as ThreadFork/Join, ThreadTeamBegin/End and the Enter/Leave
 * of OpenMP regions (otf2-omp.c). Times are ns on rank 0's
 * clock: MPI calls as the model aligned and corrected them, functions and regions of a rank moved
 * by its measured clock offset (interpolated as the model does). The archive is written as the
 * streams are read.
 */
#ifndef PSC_OTF2_EXPORT_H
#define PSC_OTF2_EXPORT_H

#include <stddef.h>
#include <stdint.h>

#include "format/experiment.h"
#include "analysis/mpi/mpi-model.h"
#include "model/symbols.h"

/* The name of the archive inside its directory: DIR/traces.otf2, DIR/traces.def, DIR/traces/ */
#define OTF2_EXPORT_NAME "traces"

/* What was written, for the caller's summary and caveats. */
struct otf2_export_stats {
	uint64_t events;	  /* OTF2 events of every kind */
	uint64_t calls;		  /* function calls (Enter events of functions) */
	uint64_t regions;	  /* regions entered */
	uint64_t mpi_calls;	  /* MPI calls */
	uint64_t messages;	  /* MpiSend and MpiIsend events */
	uint64_t collectives;	  /* MpiCollectiveEnd and NonBlockingCollectiveComplete events */
	uint64_t locations;	  /* locations (threads, and the region tracks of threads) */
	uint64_t processes;	  /* location groups */
	uint64_t synthetic_exits; /* call ends made up: killed run, or frames skipped */
	uint64_t unmatched_exits; /* exits without a recorded enter (dropped) */
	uint64_t lost_records;	  /* records the runtime could not store */
	uint64_t moved_events;	  /* events moved later so a location's times never go back */
	uint64_t moved_max_ns;	  /* the most one of them moved */
	uint64_t mpi_unplaced;	  /* MPI calls of a thread without a stream: own location */
	uint64_t metric_values;	  /* counter values written (members of Metric events) */
	uint64_t metrics_skipped; /* boundaries without a Metric event (a counter never ran) */
};

/*
 * Write experiment E as the OTF2 archive in directory ARCHIVE (ARCHIVE/traces.otf2 the anchor),
 * naming functions through ST. M is E's MPI model (NULL for an experiment without MPI), built
 * with MPI_BUILD_KEEP_UNCORRECTED: where it corrected causality violations, the recorded times
 * order the MPI calls between the functions. STATS (may be NULL) receives the totals.
 * The archive is written aside, in a hidden directory inside ARCHIVE (made when missing), and
 * replaces the archive ARCHIVE holds (the caller checked it may) only once it is complete
 * (outfile.h): on failure ARCHIVE is as it was. 0; 1 when the replaced archive held files
 * export does not write, kept in the directory ERR names; -EIO or -ENOMEM when writing failed,
 * with a one-line message in ERR (the OTF2 error text, or "file: byte N: ..."); another
 * negative errno when ARCHIVE cannot be made or its archive replaced ("cannot write ARCHIVE:
 * REASON").
 */
int otf2_export(const char *archive, struct experiment *e, struct symtab *st,
		const struct mpi_model *m, struct otf2_export_stats *stats, char *err,
		size_t errlen);

/* Remove an archive otf2_export wrote into directory ARCHIVE (the anchor, the global
 * definitions, the per-location files and their directory; ARCHIVE itself when it is left
 * empty). Files it would not have written are left alone. 0 or -errno. */
int otf2_export_remove(const char *archive);

#endif /* PSC_OTF2_EXPORT_H */
