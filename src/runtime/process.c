/*
 * process.c - what the runtime does around the program's own process events: exec (the
 * image's streams are written before the image goes, and go on when exec fails) and fatal
 * signals (every thread's records reach the files before the default action runs). dlopen is
 * not wrapped (a wrapper would become the caller whose RUNPATH glibc searches): the writer
 * thread notices new objects instead (writer.c), and dlclose, wrapped, records the maps while
 * an object that came and goes between two looks is still mapped.
 */
#include "session.h"

#include "../core/format.h"

#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

/* The fatal signals whose default action ends the process. */
static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGFPE,  SIGILL, SIGABRT,
				    SIGTERM, SIGINT, SIGQUIT, SIGHUP};

/* Close every stream with REASON. Async-signal-safe: no lock, no allocation. */
static void close_all(unsigned reason)
{
	struct psc_thread *t = __atomic_load_n(&psc_session.threads, __ATOMIC_ACQUIRE);

	for (; t; t = t->next) {
		thread_guard_enter(t);
		thread_close_wait(t, reason);
	}
}

static void fatal_handler(int sig)
{
	int saved_errno = errno;

	if (psc_session.state == SESSION_RECORDING && getpid() == psc_session.pid) {
		psc_session.state = SESSION_STOPPED;
		close_all(PSC_END_SIGNAL | ((unsigned)sig << 8));
	}
	/* the default action runs when the handler returns: a fault repeats, a sent signal is
	 * delivered again */
	signal(sig, SIG_DFL);
	raise(sig);
	errno = saved_errno;
}

void process_signals_init(void)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fatal_handler;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART | SA_ONSTACK;
	for (size_t i = 0; i < ARRAY_SIZE(fatal_signals); i++) {
		/* the program's own handlers (or an inherited SIG_IGN) stay as they are */
		if (sigaction(fatal_signals[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL &&
		    !(old.sa_flags & SA_SIGINFO))
			sigaction(fatal_signals[i], &sa, NULL);
	}
}

/*
 * Before exec: end every stream, since the image and its buffers are about to go. Each end
 * can be taken back (thread_resume): launchers try exec along PATH and go on when it fails
 * (MPICH's Hydra, execvp in a loop), and their records must go on too. A vfork child shares
 * the parent's memory and must leave it alone.
 */
static void before_exec(void)
{
	struct psc_thread *t;

	if (psc_session.state != SESSION_RECORDING || getpid() != psc_session.pid)
		return;
	psc_session.state = SESSION_STOPPED;
	t = psc_tls_thread;
	/* the other threads run on: they find their streams closed and record nothing until a
	 * failed exec reopens them; their guards are theirs */
	if (t)
		thread_guard_enter(t);
	for (t = __atomic_load_n(&psc_session.threads, __ATOMIC_ACQUIRE); t; t = t->next)
		thread_close_wait(t, PSC_END_EXEC);
	session_write_proc("exec");
}

/* exec failed: the image goes on, and so does recording, in the same streams. */
static void after_failed_exec(void)
{
	struct psc_thread *t;
	int ret, failed = 0;

	if (psc_session.state != SESSION_STOPPED || getpid() != psc_session.pid)
		return;
	for (t = __atomic_load_n(&psc_session.threads, __ATOMIC_ACQUIRE); t; t = t->next) {
		ret = thread_resume(t);
		if (ret < 0)
			failed = -ret;
	}
	if (psc_tls_thread)
		thread_guard_leave(psc_tls_thread);
	if (failed)
		session_fail("exec failed and a stream could not be reopened", failed);
	psc_session.state = SESSION_RECORDING;
	session_write_proc("running");
}

static void *next_symbol(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

#define EXEC_CALL(name, type, ...)                                                                 \
	do {                                                                                       \
		type real = (type)next_symbol(name);                                               \
		int ret, err;                                                                      \
		if (!real) {                                                                       \
			errno = ENOSYS;                                                            \
			return -1;                                                                 \
		}                                                                                  \
		before_exec();                                                                     \
		ret = real(__VA_ARGS__);                                                           \
		err = errno;                                                                       \
		after_failed_exec();                                                               \
		errno = err; /* the caller's reason for the failure */                             \
		return ret;                                                                        \
	} while (0)

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execv_fn)(const char *, char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);

PSC_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	EXEC_CALL("execve", execve_fn, path, argv, envp);
}

PSC_EXPORT int execv(const char *path, char *const argv[])
{
	EXEC_CALL("execv", execv_fn, path, argv);
}

PSC_EXPORT int execvp(const char *file, char *const argv[])
{
	EXEC_CALL("execvp", execv_fn, file, argv);
}

PSC_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	EXEC_CALL("execvpe", execve_fn, file, argv, envp);
}

PSC_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	EXEC_CALL("fexecve", fexecve_fn, fd, argv, envp);
}

/* The argument list of execl and friends as an array (on the stack: exec keeps no memory). */
#define EXECL_ARGV(arg0, ap, argv, with_envp, envp_out)                                            \
	size_t n = 1;                                                                              \
	va_start(ap, arg0);                                                                        \
	while (va_arg(ap, char *))                                                                 \
		n++;                                                                               \
	va_end(ap);                                                                                \
	char *argv[n + 1];                                                                         \
	va_start(ap, arg0);                                                                        \
	argv[0] = (char *)arg0;                                                                    \
	for (size_t i = 1; i <= n; i++)                                                            \
		argv[i] = va_arg(ap, char *);                                                      \
	envp_out = (with_envp) ? va_arg(ap, char **) : NULL;                                       \
	va_end(ap)

PSC_EXPORT int execl(const char *path, const char *arg0, ...)
{
	va_list ap;
	char **envp;

	EXECL_ARGV(arg0, ap, argv, 0, envp);
	(void)envp;
	return execve(path, argv, environ);
}

PSC_EXPORT int execlp(const char *file, const char *arg0, ...)
{
	va_list ap;
	char **envp;

	EXECL_ARGV(arg0, ap, argv, 0, envp);
	(void)envp;
	return execvp(file, argv);
}

PSC_EXPORT int execle(const char *path, const char *arg0, ...)
{
	va_list ap;
	char **envp;

	EXECL_ARGV(arg0, ap, argv, 1, envp);
	return execve(path, argv, envp);
}

typedef int (*dlclose_fn)(void *);

PSC_EXPORT int dlclose(void *handle)
{
	dlclose_fn real = (dlclose_fn)next_symbol("dlclose");

	int ret, saved_errno;

	if (!real)
		return -1;
	if (psc_session.state != SESSION_RECORDING)
		return real(handle);
	/* the map with the object, and the map without it from the moment it is gone: an
	 * object loaded later at its addresses is not taken for it */
	saved_errno = errno;
	session_check_objects();
	errno = saved_errno;
	ret = real(handle);
	saved_errno = errno;
	if (psc_session.state == SESSION_RECORDING)
		session_after_dlclose();
	errno = saved_errno;
	return ret;
}
