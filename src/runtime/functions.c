/*
 * functions.c - the -finstrument-functions hooks: a 16-byte record per function entry and
 * exit (timestamp with the kind bits, function address) in the calling thread's chunk. The
 * fast path is a few loads, the counter read and a few stores: no lock, no system call, no
 * string work, no stack frame; everything else (first event of a thread, full chunk, a filter,
 * a clock other than the cycle counter, a re-entered hook, calls left by a jump) takes the
 * slow path.
 *
 * Calls left by a jump. A longjmp, or an exception unwinding through code that calls no exit
 * hook (clang's C++), leaves calls without their exit records, and what runs next would nest
 * under them. The hooks keep the open calls with the stack pointer each had at its entry (the
 * entry hook's canonical frame address: the function's stack pointer at that call); a real
 * callee's is below its caller's, an inlined callee's the same. The place a jump lands shows
 * which calls it left, those whose stack pointer is below it: longjmp (its jmp_buf holds the
 * landing stack pointer, mangled by glibc) and __cxa_begin_catch (the catching function's)
 * close them at once, and so does the C++ personality routine when it lands in a cleanup or a
 * handler (the calls above the landing function's innermost open call). Without that, an entry
 * above the innermost open call shows it, and so does an exit of an outer call (found by its
 * function: an exit hook may be tail-called, at any stack pointer up to the function's caller's).
 * The left calls get their exit records there, after an unwind record that says how many. A stack
 * pointer above the outermost open call is on another stack (a signal handler's sigaltstack, a
 * coroutine): nothing is closed.
 */
#include "runtime/session.h"

#include "format/filter.h"
#include "format/format.h"

#include <dlfcn.h>
#include <unwind.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>

/* The clock the fast path reads inline: the cycle counter of the architecture. */
#if defined(__aarch64__)
#define FAST_CLOCK CLOCK_SOURCE_CNTVCT
#else
#define FAST_CLOCK CLOCK_SOURCE_TSC
#endif

/* The caller's stack pointer at the call of the hook that uses it. */
#if defined(__clang__)
#define CALLER_SP() ((uintptr_t)__builtin_frame_address(0) + 2 * sizeof(void *))
#else
#define CALLER_SP() ((uintptr_t)__builtin_dwarf_cfa())
#endif

/* Places for open calls; deeper ones are counted, not kept. */
#define FRAMES_MAX (1u << 20)

void frames_init(struct psc_thread *t)
{
	if (!t->frames) {
		void *p =
		    mmap(NULL, (FRAMES_MAX + 1) * sizeof(struct psc_frame), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

		if (p != MAP_FAILED) {
			t->frames = p;
			t->fend = t->frames + 1 + FRAMES_MAX;
		} else {
			/* no place: every event takes the slow path, which keeps nothing */
			t->frames = t->no_frames;
			t->fend = t->frames + 1;
		}
	}
	/* below the outermost call: above every stack pointer, no function's */
	t->frames[0] = (struct psc_frame){UINTPTR_MAX, 0};
	t->ftop = t->frames + 1;
	t->fover = 0;
}

void frames_after_fork(void)
{
	struct psc_frame *open = psc_session.fork_frames;
	uint32_t n = psc_session.fork_open;
	struct psc_thread *t;

	if (!open)
		return;
	psc_session.fork_frames = NULL;
	psc_session.fork_open = 0;
	t = thread_get_slow();
	if (t && !t->guard) {
		thread_guard_enter(t);
		if (!t->functions) {
			t->functions = 1;
			t->live->stream.features |= PSC_FEAT_FUNCTIONS;
		}
		for (uint32_t i = 1; i <= n && t->ftop < t->fend; i++) {
			uint64_t *r = thread_reserve(t, 2);

			if (!r)
				break;
			r[0] = psc_word0(clock_ticks(psc_session.clock), PSC_KIND_FUNC_ENTER);
			r[1] = open[i].fn;
			thread_commit(t, 2);
			*t->ftop++ = open[i];
		}
		thread_guard_leave(t);
	}
	munmap(open, psc_session.fork_bytes);
}

/* Close the N innermost open calls of T, left without their exits: an unwind record, then
 * their exits, innermost first. Under T's guard. */
static void frames_close(struct psc_thread *t, uint32_t n)
{
	struct psc_frame *f = t->ftop;
	uint64_t *r;

	/* each record's time read after its room: a new chunk's clock record comes first */
	r = thread_reserve(t, 2);
	if (r) {
		r[0] = psc_word0(clock_ticks(psc_session.clock), PSC_KIND_EXT);
		r[1] = psc_ext_word1(PSC_REC_UNWIND, 2, n);
		thread_commit(t, 2);
	}
	for (uint32_t i = 0; i < n; i++) {
		r = thread_reserve(t, 2);
		if (!r)
			break;
		r[0] = psc_word0(clock_ticks(psc_session.clock), PSC_KIND_FUNC_EXIT);
		r[1] = f[-1 - (long)i].fn;
		thread_commit(t, 2);
	}
	t->ftop = f - n;
}

/* A jump lands at SP, or an entry is made there: close the open calls of T below it, unless
 * past the last place, without places, or on another stack. */
static void frames_land(struct psc_thread *t, uintptr_t sp)
{
	const struct psc_frame *f = t->ftop, *outer = t->frames + 1;
	uint32_t n = 0;

	if (t->fover || f == outer || sp > outer->sp)
		return;
	while (f - n > outer && f[-1 - (long)n].sp < sp)
		n++;
	if (n)
		frames_close(t, n);
}

/* An exit of FN that is not the innermost open call's: close the calls above FN's innermost
 * open call, if it has one (else FN was entered before recording began: nothing is closed). */
static void frames_exit(struct psc_thread *t, void *fn)
{
	const struct psc_frame *f = t->ftop, *outer = t->frames + 1;
	uint32_t n = 0;

	if (t->fover)
		return;
	while (f - n > outer && f[-1 - (long)n].fn != (uintptr_t)fn)
		n++;
	if (f - n > outer && n)
		frames_close(t, n);
}

/* The open calls after an event of KIND for FN at SP that took the slow path. */
static void frames_update(struct psc_thread *t, void *fn, uintptr_t sp, enum psc_kind kind)
{
	struct psc_frame *f = t->ftop;

	if (t->fend == t->frames + 1)
		return;
	if (kind == PSC_KIND_FUNC_ENTER) {
		if (f == t->fend) {
			/* past the last place: counted; the last place's stack pointer and
			 * function of 0 send every event to the slow path until the count is 0 */
			if (!t->fover++) {
				t->fdeep = f[-1];
				f[-1] = (struct psc_frame){0, 0};
			}
			return;
		}
		*f = (struct psc_frame){sp, (uintptr_t)fn};
		t->ftop = f + 1;
	} else if (t->fover) {
		if (!--t->fover)
			f[-1] = t->fdeep;
	} else if (f > t->frames + 1 && f[-1].fn == (uintptr_t)fn) {
		t->ftop = f - 1;
	}
}

/* Everything the fast path does not handle. Keeps errno. */
__attribute__((noinline, cold)) static void func_record_slow(void *fn, enum psc_kind kind,
							     uintptr_t sp)
{
	int saved_errno = errno;
	const struct psc_filter *f = __atomic_load_n(&psc_session.filter, __ATOMIC_ACQUIRE);
	struct psc_thread *t = psc_tls_thread;
	uint64_t *r;

	if (f && !filter_match(f, (uintptr_t)fn))
		goto out;
	if (!t) {
		t = thread_get_slow();
		if (!t)
			goto out;
	}
	if (t->guard) {
		/* a signal handler interrupted the runtime on this thread */
		t->lost_records++;
		goto out;
	}
	thread_guard_enter(t);
	if (unlikely(!t->functions)) {
		t->functions = 1;
		t->live->stream.features |= PSC_FEAT_FUNCTIONS;
	}
	if (t->closed) {
		__atomic_add_fetch(&t->lost_records, 1, __ATOMIC_RELAXED);
	} else {
		if (kind == PSC_KIND_FUNC_ENTER)
			frames_land(t, sp);
		else
			frames_exit(t, fn);
		r = thread_reserve(t, 2);
		if (r) {
			r[0] = psc_word0(clock_ticks(psc_session.clock), kind);
			r[1] = (uintptr_t)fn;
			thread_commit(t, 2);
		}
		frames_update(t, fn, sp, kind);
	}
	thread_guard_leave(t);
out:
	errno = saved_errno;
}

static inline void func_record(void *fn, enum psc_kind kind, uintptr_t sp)
{
	struct psc_thread *t = psc_tls_thread;
	struct psc_frame *f;
	uint64_t *r;

	if (unlikely(psc_session.filter != NULL) || unlikely(psc_session.clock != FAST_CLOCK) ||
	    unlikely(!t) || unlikely(t->guard)) {
		func_record_slow(fn, kind, sp);
		return;
	}
	thread_guard_enter(t);
	/* the room is checked under the guard: a handler may have filled it just before */
	r = t->pos;
	f = t->ftop;
	/* an entry above the innermost open call or with no place left, an exit of another
	 * function than the innermost open call's: the slow path */
	if (unlikely(r + 2 > t->end) ||
	    (kind == PSC_KIND_FUNC_ENTER ? unlikely(sp > f[-1].sp) || unlikely(f == t->fend)
					 : unlikely(f[-1].fn != (uintptr_t)fn))) {
		thread_guard_leave(t);
		func_record_slow(fn, kind, sp);
		return;
	}
	r[0] = psc_word0(clock_ticks(FAST_CLOCK), kind);
	r[1] = (uintptr_t)fn;
	thread_commit(t, 2);
	if (kind == PSC_KIND_FUNC_ENTER) {
		*f = (struct psc_frame){sp, (uintptr_t)fn};
		t->ftop = f + 1;
	} else {
		t->ftop = f - 1;
	}
	thread_guard_leave(t);
}

PSC_EXPORT void __cyg_profile_func_enter(void *fn, void *call_site)
{
	(void)call_site;
	func_record(fn, PSC_KIND_FUNC_ENTER, CALLER_SP());
}

PSC_EXPORT void __cyg_profile_func_exit(void *fn, void *call_site)
{
	(void)call_site;
	func_record(fn, PSC_KIND_FUNC_EXIT, CALLER_SP());
}

/* Close the calling thread's calls that a jump landing at SP leaves. Keeps errno. */
static void jump_to(uintptr_t sp)
{
	struct psc_thread *t = psc_tls_thread;

	if (t && !t->guard && !t->closed) {
		int saved_errno = errno;

		thread_guard_enter(t);
		frames_land(t, sp);
		thread_guard_leave(t);
		errno = saved_errno;
	}
}

typedef void *(*begin_catch_fn)(void *);

/*
 * A catch begins in the function that catches, at its own stack pointer: every call below it
 * was left by the exception (code built by clang runs no exit hook while unwinding; gcc's
 * does, and then none is open).
 */
PSC_EXPORT void *__cxa_begin_catch(void *exception)
{
	begin_catch_fn real = (begin_catch_fn)dlsym(RTLD_NEXT, "__cxa_begin_catch");

	jump_to(CALLER_SP());
	return real ? real(exception) : NULL;
}

typedef _Unwind_Reason_Code (*personality_fn)(int, _Unwind_Action, _Unwind_Exception_Class,
					      struct _Unwind_Exception *, struct _Unwind_Context *);
typedef _Unwind_Ptr (*region_start_fn)(struct _Unwind_Context *);

/* The unwinder lands in FN's frame: close the calling thread's calls above FN's innermost open
 * call (none when FN has none: code without hooks). Keeps errno. */
static void land_in(uintptr_t fn)
{
	struct psc_thread *t = psc_tls_thread;

	if (fn && t && !t->guard && !t->closed) {
		int saved_errno = errno;

		thread_guard_enter(t);
		frames_exit(t, (void *)fn);
		thread_guard_leave(t);
		errno = saved_errno;
	}
}

/*
 * The C++ personality routine, which the unwinder calls for each frame of C++ code an
 * exception passes: when it has the unwinder land in the frame (a cleanup that runs
 * destructors, or a handler), the calls that frame's function made were left (clang's code
 * runs no exit hook while unwinding), and what the cleanup calls must not nest under them.
 * The frame's function is its unwind region's start, the address its entry hook was given.
 * The real routine (libstdc++'s or libc++abi's) and the unwinder's _Unwind_GetRegionStart are
 * looked up at the first exception: the runtime itself does not link the unwinder.
 */
PSC_EXPORT _Unwind_Reason_Code __gxx_personality_v0(int version, _Unwind_Action actions,
						    _Unwind_Exception_Class cls,
						    struct _Unwind_Exception *ue,
						    struct _Unwind_Context *ctx)
{
	personality_fn real = __atomic_load_n(&psc_session.personality_real, __ATOMIC_ACQUIRE);
	region_start_fn start;
	_Unwind_Reason_Code rc;

	if (!real) {
		real = (personality_fn)dlsym(RTLD_NEXT, "__gxx_personality_v0");
		if (!real)
			return _URC_FATAL_PHASE1_ERROR;
		__atomic_store_n(&psc_session.unwind_region_start,
				 dlsym(RTLD_DEFAULT, "_Unwind_GetRegionStart"), __ATOMIC_RELEASE);
		__atomic_store_n(&psc_session.personality_real, (void *)real, __ATOMIC_RELEASE);
	}
	rc = real(version, actions, cls, ue, ctx);
	start = __atomic_load_n(&psc_session.unwind_region_start, __ATOMIC_ACQUIRE);
	if (rc == _URC_INSTALL_CONTEXT && (actions & _UA_CLEANUP_PHASE) && start)
		land_in((uintptr_t)start(ctx));
	return rc;
}

#if defined(__x86_64__) && defined(__GLIBC__)
/* The stack pointer a jmp_buf lands at: glibc keeps it mangled with the thread's pointer
 * guard (PTR_MANGLE: xor, then rotate left by 17); 0 when the mangling is not the one
 * checked at start (jmpbuf_check). */
static uintptr_t jmpbuf_sp(const struct __jmp_buf_tag *env)
{
	uintptr_t v = (uintptr_t)env->__jmpbuf[6], guard;

	if (!psc_session.jmpbuf_ok)
		return 0;
	__asm__("mov %%fs:0x30, %0" : "=r"(guard));
	return ((v >> 17) | (v << 47)) ^ guard;
}

__attribute__((noinline)) static void jmpbuf_check(void)
{
	jmp_buf env;
	uintptr_t sp;

	psc_session.jmpbuf_ok = 1;
	if (setjmp(env))
		return;
	sp = jmpbuf_sp(env);
	/* the stack pointer of this frame, where env is */
	psc_session.jmpbuf_ok =
	    sp > (uintptr_t)env - 4096 && sp < (uintptr_t)env + 4096 && sp % sizeof(void *) == 0;
}
#else
static uintptr_t jmpbuf_sp(const struct __jmp_buf_tag *env)
{
	(void)env;
	return 0;
}

static void jmpbuf_check(void)
{
}
#endif

/* The C library's longjmp functions, in the order of session.h's longjmp_real. */
static const char *const longjmp_names[] = {"longjmp", "_longjmp", "siglongjmp", "__longjmp_chk"};

void jumps_init(void)
{
	/* looked up now: a longjmp out of a signal handler must not call dlsym */
	for (size_t i = 0; i < ARRAY_SIZE(longjmp_names); i++)
		psc_session.longjmp_real[i] = dlsym(RTLD_NEXT, longjmp_names[i]);
	jmpbuf_check();
}

/* A longjmp leaves every call below the jmp_buf's stack pointer: closed before the jump. A
 * longjmp before this library's constructor ran (in another library's) looks the function up
 * itself. The C library always has it; were it missing, no jump could be made at all. */
#define LONGJMP_WRAPPER(name, i)                                                                   \
	PSC_EXPORT __attribute__((noreturn)) void name(struct __jmp_buf_tag env[1], int val)       \
	{                                                                                          \
		uintptr_t sp = jmpbuf_sp(env);                                                     \
		if (sp)                                                                            \
			jump_to(sp);                                                               \
		if (!psc_session.longjmp_real[i])                                                  \
			psc_session.longjmp_real[i] = dlsym(RTLD_NEXT, longjmp_names[i]);          \
		if (psc_session.longjmp_real[i])                                                   \
			psc_session.longjmp_real[i](env, val);                                     \
		__builtin_trap();                                                                  \
	}

LONGJMP_WRAPPER(longjmp, 0)
LONGJMP_WRAPPER(_longjmp, 1)
LONGJMP_WRAPPER(siglongjmp, 2)
LONGJMP_WRAPPER(__longjmp_chk, 3)
