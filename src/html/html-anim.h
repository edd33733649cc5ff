/*
 * html-anim.h - the exact logic behind the report's Process animation and Load views
 * (html-anim.c): each rank's state over time as a change list, aggregated to frames when a
 * run has too many changes, and the rank grid. html_data_states() (html-int.h) writes them.
 */
#ifndef PSC_HTML_ANIM_H
#define PSC_HTML_ANIM_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/mpi/mpi-model.h"

/* The fixed states; state ANIM_ROUTINE + k is the k-th routine of anim_states.routines. */
enum anim_state {
	ANIM_IDLE = 0,	  /* before the rank's first event or after its last (or rank missing) */
	ANIM_COMPUTE = 1, /* outside MPI */
	ANIM_WAIT = 2,	  /* the waiting part of an MPI call (mpi_waits' per-call wait) */
	ANIM_ROUTINE = 3, /* inside an MPI routine, not waiting */
};

/* At most this many states listed per frame in a track's mix (the largest shares). */
#define ANIM_MIX_STATES 4

/* One rank's states: s[i] from t[i] to t[i + 1] (the last to the run's end); t[0] = 0,
 * times increasing strictly, ns relative to the run's start; no two equal neighbours.
 * Aggregated to frames, MIX lists the frames where more than one state occurred as entries
 * {frame, n, state_1, permille_1, ..., state_n, permille_n}: frames increasing, the n (at
 * most ANIM_MIX_STATES) states with the largest shares of the frame, largest first (ties:
 * the lower state; so state_1 is the frame's state in s), each share in thousandths of the
 * frame's length, rounded, at least 1. */
struct anim_track {
	size_t n, cap;
	int64_t *t;
	uint32_t *s;
	uint32_t *mix;
	size_t nmix, mixcap;
};

struct anim_states {
	int nranks;		  /* the model's world size */
	struct anim_track *ranks; /* nranks */
	uint32_t *routines;	  /* enum mpi_routine of each routine state, in first-seen order */
	uint32_t nroutines;	  /* states are ANIM_ROUTINE + 0 .. nroutines - 1 */
	int64_t duration_ns;	  /* the run: model end - start */
	int64_t frame_ns;	  /* 0: exact; else each change is at a frame start f x frame_ns
				   * and holds the frame's dominant state */
	size_t mix_entries;	  /* the mixes' entries before anim_mix_cap() */
	size_t mix_dropped;	  /* the entries anim_mix_cap() dropped */
	uint32_t mix_min_pm;	  /* the kept entries have at least this many thousandths
				   * outside their first state (0: none dropped) */
};

/* At most this many changes over all ranks are written exactly; a run with more is
 * aggregated to anim_frames(nranks) frames. */
#define ANIM_MAX_CHANGES 500000
/* Frames of an aggregated run: 2000, fewer for more than 250 ranks (ANIM_MAX_CHANGES / ranks,
 * at least 100), so the data stays bounded. */
unsigned anim_frames(int nranks);

/*
 * Each rank's states in M: computing between its MPI calls, inside MPI routine X during a
 * call, waiting during the first CALL_WAIT[c] ns of call c (NULL: no waits; wait states start
 * when the call does: a late sender or a barrier holds the call from its entry). Calls of a
 * rank's threads that overlap are cut where the earlier one ended. With more than MAX_CHANGES
 * changes in all, every rank is aggregated to NFRAMES frames of equal length (the last may
 * be shorter), each holding the state that covers most of it (ties: the lower state number),
 * and the shares of the frames with several states in the track's mix. 0 or -ENOMEM.
 */
int anim_states_build(struct anim_states *st, const struct mpi_model *m, const int64_t *call_wait,
		      size_t max_changes, unsigned nframes);
void anim_states_release(struct anim_states *st);

/* At most this many numbers of mix over all ranks (about 3 MB of JSON): ten times fewer
 * than the frames' limit allows (ANIM_MAX_CHANGES frames of up to 2 + 2 ANIM_MIX_STATES
 * numbers). */
#define ANIM_MIX_MAX 1000000

/*
 * Bound the mixes of ST's tracks to MAX_NUMBERS numbers in all: when they hold more, drop
 * the entries with the fewest thousandths outside their first state (1000 - permille_1)
 * up to the smallest level L that leaves at most MAX_NUMBERS, so every entry with at least
 * L thousandths outside its first state is kept and every other one dropped (a tie at a
 * level is kept or dropped whole). Sets mix_entries, mix_dropped and mix_min_pm (L, 0
 * when nothing was dropped).
 */
void anim_mix_cap(struct anim_states *st, size_t max_numbers);

/* TR's mix (an array of its entries) as JSON into W: the entries flat, each frame written as
 * the difference to the previous entry's frame (the first as is), e.g. [3,2,1,600,2,400] for
 * frame 3 computing 60 % and waiting 40 %. */
struct jsonw;
void anim_mix_json(struct jsonw *w, const struct anim_track *tr);

/* The state of TR at time T (relative ns): the last change at or before T. */
uint32_t anim_track_at(const struct anim_track *tr, int64_t t);

/*
 * The grid for N ranks: ROWS x COLS as asked when both are > 0 and hold N, else near-square
 * (cols = ceil(sqrt(N)), rows = ceil(N / cols)). Returns 0, or -1 when the asked grid was
 * too small for N (the near-square grid is given instead).
 */
int anim_grid(int n, int want_rows, int want_cols, int *rows, int *cols);

#endif /* PSC_HTML_ANIM_H */
