/*
 * gomp-task.c - libgomp's explicit tasks, interposed: GOMP_task gets a trampoline and a data
 * block of our own, [header | the task's data], which libgomp copies as it copies any task's
 * data. The header carries the real function, the real copy function and the task's id; the
 * trampoline writes TASK_BEGIN and TASK_END around the real function. Without a copy function
 * the task's data is copied into the block here (libgomp then copies the block); with one,
 * libgomp calls our copy function, which copies the header and calls the real one on the
 * original data (still the encountering thread's, GOMP_task copies before it returns).
 */
#include "omp-rt/gomp-calls.h"
#include "omp-rt/omp-rt.h"

#include "lib/compiler.h"

#include <alloca.h>
#include <string.h>

/* Tasks whose data is larger than this are not recorded: the block is on the encountering
 * thread's stack, which OMP_STACKSIZE may have made small. */
#define TASK_DATA_MAX (4 * 1024)

/* GOMP_task's flags (gcc's gomp-constants.h) under which libgomp itself writes into the
 * task's data block (the event handle of `detach`), or reads it by its own layout (task
 * reductions): such tasks are passed through, not recorded. */
#define GOMP_TASK_FLAG_REDUCTION (1u << 12)
#define GOMP_TASK_FLAG_DETACH	 (1u << 13)

struct gomp_task_head {
	gomp_fn fn;
	void (*cpyfn)(void *, void *);
	void *src; /* the original data, while GOMP_task runs */
	uint64_t id;
	size_t off; /* where the task's data begins in the block */
};

static void gomp_task_trampoline(void *block)
{
	struct gomp_task_head *h = block;
	uint64_t id = h->id;

	omp_rec(PSC_REC_OMP_TASK_BEGIN, 0, 1, id, 0, 0, 0);
	h->fn((char *)block + h->off);
	omp_rec(PSC_REC_OMP_TASK_END, 0, 1, id, 0, 0, 0);
}

static void gomp_task_copy(void *dst, void *src)
{
	struct gomp_task_head *h = src;

	memcpy(dst, h, sizeof(*h));
	h->cpyfn((char *)dst + h->off, h->src);
}

PSC_EXPORT void GOMP_task(gomp_fn fn, void *data, void (*cpyfn)(void *, void *), long arg_size,
			  long arg_align, bool if_clause, unsigned flags, void **depend,
			  int priority, void *detach)
{
	void (*real)(gomp_fn, void *, void (*)(void *, void *), long, long, bool, unsigned, void **,
		     int, void *) = GOMP_REAL(task);
	long align = arg_align > 16 ? arg_align : 16;
	size_t off = (sizeof(struct gomp_task_head) + (size_t)align - 1) & ~((size_t)align - 1);
	struct gomp_task_head *h;
	char *block;

	if (!GOMP_RECORDS() || arg_size < 0 || arg_size > TASK_DATA_MAX || align > 4096 ||
	    (align & (align - 1)) || (flags & (GOMP_TASK_FLAG_DETACH | GOMP_TASK_FLAG_REDUCTION))) {
		real(fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend, priority,
		     detach);
		return;
	}
	block = alloca(off + (size_t)arg_size + (size_t)align);
	block = (char *)(((uintptr_t)block + (uintptr_t)align - 1) & ~((uintptr_t)align - 1));
	h = (struct gomp_task_head *)block;
	*h = (struct gomp_task_head){
	    .fn = fn, .cpyfn = cpyfn, .src = data, .id = omp_new_id(), .off = off};
	if (!cpyfn && arg_size)
		memcpy(block + off, data, (size_t)arg_size);
	omp_rec(PSC_REC_OMP_TASK_CREATE, 0, 2, h->id, GOMP_SITE(), 0, 0);
	real(gomp_task_trampoline, block, cpyfn ? gomp_task_copy : NULL, (long)off + arg_size,
	     align, if_clause, flags, depend, priority, detach);
}
