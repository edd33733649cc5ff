/*
 * sites.c - the call site of a wrapped MPI call when the wrapper's caller is the MPI library
 * itself. MPICH's Fortran bindings (libmpichfort: mpi_send_, the f08 procedures) call the C
 * MPI_Send, so the wrapper's return address lies in libmpichfort, not in the user's code.
 *
 * Going up a frame needs the frame's size: libmpichfort is built without frame pointers
 * (%rbp is a general register in pmpi_recv_), so __builtin_return_address(1) and a walk of
 * saved frame pointers would read garbage. Its .eh_frame (every object built with the
 * default -fasynchronous-unwind-tables has one) describes every frame exactly, so the
 * unwinder of libgcc (_Unwind_Backtrace, which finds an address's FDE through glibc's
 * _dl_find_object) walks up from the wrapper to the first return address outside the MPI
 * libraries. It costs about a microsecond, so it runs only when the return address lies in an
 * MPI library's code, which one range check per call tells (C callers never pay more).
 * Resolving at analysis time instead would need the stack's contents, which nobody records.
 */
#include "mpi-int.h"

#include <link.h>
#include <string.h>
#include <unwind.h>

struct mpi_lib_ranges mpi_lib_ranges;

/* Whether NAME (a path) is an MPI library: libmpi.so*, libmpich*.so*, libmpi_mpifh.so*,
 * libmpi_usempif08.so*, libmpifort.so*, libpmpi*.so* (MPICH, Open MPI, Intel MPI). */
static int is_mpi_library(const char *name)
{
	const char *base = strrchr(name, '/');

	base = base ? base + 1 : name;
	return !strncmp(base, "libmpi", 6) || !strncmp(base, "libpmpi", 7) ||
	       !strncmp(base, "libfmpich", 9);
}

static int scan_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct mpi_lib_ranges *r = arg;

	(void)size;
	if (!info->dlpi_name || !is_mpi_library(info->dlpi_name))
		return 0;
	for (int i = 0; i < info->dlpi_phnum && r->n < MPI_LIB_RANGES; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		r->lo[r->n] = info->dlpi_addr + ph->p_vaddr;
		r->hi[r->n] = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
		r->n++;
	}
	return 0;
}

void mpi_sites_scan(void)
{
	struct mpi_lib_ranges r = {0};

	dl_iterate_phdr(scan_object, &r);
	/* published whole: a wrapper may read the table meanwhile (an MPI_Init on one thread) */
	for (int i = 0; i < r.n; i++) {
		__atomic_store_n(&mpi_lib_ranges.lo[i], r.lo[i], __ATOMIC_RELAXED);
		__atomic_store_n(&mpi_lib_ranges.hi[i], r.hi[i], __ATOMIC_RELAXED);
	}
	__atomic_store_n(&mpi_lib_ranges.n, r.n, __ATOMIC_RELEASE);
}

/* The MPI libraries a program links are mapped before any constructor runs. */
__attribute__((constructor)) static void sites_constructor(void)
{
	mpi_sites_scan();
}

struct site_walk {
	uintptr_t ra;	/* the wrapper's return address */
	uintptr_t site; /* the first return address above it outside the MPI libraries */
	int found;	/* the frame returning to RA was seen */
	int frames;
};

/* Frames walked at most: the wrapper's, a few in the MPI library, and the caller's. */
#define SITE_MAX_FRAMES 16

static _Unwind_Reason_Code site_step(struct _Unwind_Context *ctx, void *arg)
{
	struct site_walk *w = arg;
	int before = 0;
	uintptr_t ip = (uintptr_t)_Unwind_GetIPInfo(ctx, &before);

	if (++w->frames > SITE_MAX_FRAMES || ip == 0)
		return _URC_END_OF_STACK;
	if (!w->found) {
		w->found = ip == w->ra;
		return _URC_NO_REASON;
	}
	/* a return address may be the first byte after its function: look at the call */
	if (mpi_in_library(before ? ip : ip - 1))
		return _URC_NO_REASON;
	w->site = ip;
	return _URC_END_OF_STACK;
}

void *mpi_site_above(void *ra)
{
	struct site_walk w = {.ra = (uintptr_t)ra};

	_Unwind_Backtrace(site_step, &w);
	return w.site ? (void *)w.site : ra;
}
