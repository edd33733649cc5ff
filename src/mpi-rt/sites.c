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
 * libraries. It runs only when the return address lies in an MPI library's code, which one
 * range check per call tells (C callers never pay more), and its result is cached (below).
 * Resolving at analysis time instead would need the stack's contents, which nobody records.
 */
#include "mpi-rt/mpi-int.h"

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
	uintptr_t slot; /* where SITE is stored on the stack */
	int found;	/* the frame returning to RA was seen */
	int frames;
};

/* Frames walked at most: the wrapper's, a few in the MPI library, and the caller's. */
#define SITE_MAX_FRAMES 16

static _Unwind_Reason_Code site_step(struct _Unwind_Context *ctx, void *arg)
{
	struct site_walk *w = arg;
	int before = 0;
	uintptr_t ip = (uintptr_t)_Unwind_GetIPInfo(ctx, &before), cfa = _Unwind_GetCFA(ctx);

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
	/* CTX's CFA is its callee's (libgcc: the stack pointer of CTX's frame at the call), and a
	 * call pushes the return address just below it (x86-64) */
	w->slot = cfa - sizeof(uintptr_t);
	return _URC_END_OF_STACK;
}

/*
 * The unwinder takes about a microsecond per call (five frames' FDEs found and run). The
 * bindings are small functions whose frames have a fixed size, so where the caller's return
 * address lies relative to the wrapper's CFA is, for one binding return address, the same on
 * every call: the cache keeps that offset per return address (x86-64, where a call pushes the
 * return address just below the callee's CFA). An offset is used only once two unwinds agreed
 * on it, and every 256th use unwinds again; a disagreement (a frame of variable size) stops
 * caching that return address for good.
 */
#if defined(__x86_64__)
#define SITE_CACHE     64
#define SITE_OFF_NONE  0	  /* not learned yet */
#define SITE_OFF_NEVER UINT32_MAX /* frames of variable size: always unwind */

static struct {
	uintptr_t ra;	 /* 0: free; set once, last */
	uint32_t off;	 /* the caller's return address is at CFA + off */
	uint32_t agreed; /* unwinds that found OFF */
	uint32_t uses;
} site_cache[SITE_CACHE];

static unsigned site_slot(uintptr_t ra)
{
	unsigned h = (unsigned)((ra * 0x9e3779b97f4a7c15ull) >> 58);

	for (unsigned i = 0; i < SITE_CACHE; i++, h = (h + 1) % SITE_CACHE) {
		uintptr_t k = __atomic_load_n(&site_cache[h].ra, __ATOMIC_ACQUIRE);

		if (k == ra)
			return h;
		if (k == 0) {
			if (__atomic_compare_exchange_n(&site_cache[h].ra, &k, ra, 0,
							__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) ||
			    k == ra)
				return h;
		}
	}
	return SITE_CACHE;
}

/* A walk's result, unless it disagrees with what the cache learned: then never again. */
static void site_learn(unsigned h, const struct site_walk *w, uintptr_t cfa)
{
	uint32_t off = __atomic_load_n(&site_cache[h].off, __ATOMIC_ACQUIRE), now;

	if (off == SITE_OFF_NEVER)
		return;
	now = w->site && w->slot > cfa && w->slot - cfa < 65536 &&
		      *(const uintptr_t *)w->slot == w->site
		  ? (uint32_t)(w->slot - cfa)
		  : SITE_OFF_NEVER;
	if (off == SITE_OFF_NONE) {
		if (__atomic_compare_exchange_n(&site_cache[h].off, &off, now, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE) ||
		    off == now)
			__atomic_add_fetch(&site_cache[h].agreed, 1, __ATOMIC_RELEASE);
	} else if (off == now) {
		__atomic_add_fetch(&site_cache[h].agreed, 1, __ATOMIC_RELEASE);
	} else {
		__atomic_store_n(&site_cache[h].off, SITE_OFF_NEVER, __ATOMIC_RELEASE);
	}
}
#endif

void *mpi_site_above(void *ra, void *cfa)
{
	struct site_walk w = {.ra = (uintptr_t)ra};

#if !defined(__x86_64__)
	(void)cfa;
#else
	unsigned h = SITE_CACHE;

	/* the wrapper's return address is just below its CFA, or CFA is not what it seems */
	if (cfa && *((void **)cfa - 1) == ra) {
		h = site_slot((uintptr_t)ra);
		if (h < SITE_CACHE) {
			uint32_t off = __atomic_load_n(&site_cache[h].off, __ATOMIC_ACQUIRE);

			if (off != SITE_OFF_NONE && off != SITE_OFF_NEVER &&
			    __atomic_load_n(&site_cache[h].agreed, __ATOMIC_ACQUIRE) >= 2 &&
			    __atomic_add_fetch(&site_cache[h].uses, 1, __ATOMIC_RELAXED) % 256) {
				uintptr_t site = *(uintptr_t *)((uintptr_t)cfa + off);

				if (site && !mpi_in_library(site - 1))
					return (void *)site;
			}
		}
	}
#endif
	_Unwind_Backtrace(site_step, &w);
#if defined(__x86_64__)
	if (h < SITE_CACHE)
		site_learn(h, &w, (uintptr_t)cfa);
#endif
	return w.site ? (void *)w.site : ra;
}
