/*
 * process.c - what the runtime does around the program's own process events: exec (the
 * image's streams are written before the image goes, and go on when exec fails) and fatal
 * signals (every thread's records reach the files before the default action runs). dlopen is
 * not wrapped (a wrapper would become the caller whose RUNPATH glibc searches): the writer
 * thread notices new objects instead (writer.c), and dlclose, wrapped, records the maps while
 * an object that came and goes between two looks is still mapped.
 */
#include "runtime/session.h"

#include "format/env.h"
#include "format/format.h"

#include <dlfcn.h>
#include <spawn.h>
#include <stdio.h>
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

void exec_env_save(void)
{
	size_t n = 0, bytes = 0, len;
	Dl_info self;
	char *p;

	/* the library's own path: an LD_PRELOAD that names it preloads this runtime */
	if (dladdr((void *)exec_env_save, &self) && self.dli_fname)
		snprintf(psc_session.self_path, sizeof(psc_session.self_path), "%s",
			 self.dli_fname);
	for (char **e = environ; e && *e; e++) {
		if (!strncmp(*e, "PERFSCOPE_", 10) ||
		    (!strncmp(*e, "LD_PRELOAD=", 11) && psc_session.self_path[0] &&
		     strstr(*e, psc_session.self_path))) {
			n++;
			bytes += strlen(*e) + 1;
		}
	}
	/* PERFSCOPE_OUT as this process resolved it, so that a child started elsewhere agrees */
	bytes += strlen(PSC_ENV_OUT) + 1 + strlen(psc_session.dir) + 1;
	psc_session.carry = rt_alloc((n + 2) * sizeof(char *) + bytes);
	if (!psc_session.carry)
		return;
	p = (char *)(psc_session.carry + n + 2);
	n = 0;
	for (char **e = environ; e && *e; e++) {
		if (!strncmp(*e, PSC_ENV_OUT "=", strlen(PSC_ENV_OUT) + 1))
			continue;
		if (!strncmp(*e, "PERFSCOPE_", 10) ||
		    (!strncmp(*e, "LD_PRELOAD=", 11) && psc_session.self_path[0] &&
		     strstr(*e, psc_session.self_path))) {
			len = strlen(*e) + 1;
			memcpy(p, *e, len);
			psc_session.carry[n++] = p;
			p += len;
		}
	}
	sprintf(p, "%s=%s", PSC_ENV_OUT, psc_session.dir);
	psc_session.carry[n++] = p;
	psc_session.ncarry = n;
}

/* Room in pointers for env_carry()'s copy of ENVP, and in bytes for its LD_PRELOAD. */
static size_t env_room(char *const *envp)
{
	size_t n = 0;

	for (char *const *e = envp; e && *e; e++)
		n++;
	return n + psc_session.ncarry + 1;
}

static size_t preload_room(char *const *envp)
{
	size_t n = 2 * sizeof(psc_session.self_path) + 16;

	for (char *const *e = envp; e && *e; e++)
		if (!strncmp(*e, "LD_PRELOAD=", 11))
			n += strlen(*e);
	return n;
}

/* The name part of "NAME=VALUE", with the '=', is the same in A and B. */
static int same_name(const char *a, const char *b)
{
	size_t n = strcspn(a, "=");

	return a[n] == '=' && !strncmp(a, b, n + 1);
}

/*
 * ENVP, with what recording needs added where ENVP lacks it (a program that starts a child
 * with an environment of its own, with execve or posix_spawn, gets it traced too): the
 * PERFSCOPE_* variables of this process's start, and, when this runtime was preloaded, itself
 * in front of ENVP's LD_PRELOAD. A variable ENVP sets is kept as it is (PERFSCOPE_OUT= with
 * nothing keeps a child out). OUT has env_room() pointers, PRELOAD preload_room() bytes.
 */
static char *const *env_carry(char *const *envp, char **out, char *preload, size_t len)
{
	size_t n = 0, k;
	int have_preload = 0;

	if (!psc_session.ncarry)
		return envp;
	for (char *const *e = envp; e && *e; e++) {
		if (!strncmp(*e, "LD_PRELOAD=", 11)) {
			have_preload = 1;
			if (psc_session.self_path[0] && !strstr(*e, psc_session.self_path)) {
				snprintf(preload, len, "LD_PRELOAD=%s%s%s", psc_session.self_path,
					 (*e)[11] ? ":" : "", *e + 11);
				out[n++] = preload;
				continue;
			}
		}
		out[n++] = *e;
	}
	for (k = 0; k < psc_session.ncarry; k++) {
		const char *v = psc_session.carry[k];
		char *const *e = envp;

		if (!strncmp(v, "LD_PRELOAD=", 11) && have_preload)
			continue;
		while (e && *e && !same_name(v, *e))
			e++;
		if (!e || !*e)
			out[n++] = (char *)v;
	}
	out[n] = NULL;
	return out;
}

/* NEWENV: ENVP with what recording needs, in the caller's frame (exec keeps no memory). */
#define CARRIED_ENV(envp, newenv)                                                                  \
	char *newenv##_v[env_room(envp)];                                                          \
	char newenv##_p[preload_room(envp)];                                                       \
	char *const *newenv = env_carry(envp, newenv##_v, newenv##_p, sizeof(newenv##_p))

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
typedef int (*fexecve_fn)(int, char *const[], char *const[]);
typedef int (*spawn_fn)(pid_t *, const char *, const posix_spawn_file_actions_t *,
			const posix_spawnattr_t *, char *const[], char *const[]);

PSC_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	CARRIED_ENV(envp, env);

	EXEC_CALL("execve", execve_fn, path, argv, env);
}

PSC_EXPORT int execv(const char *path, char *const argv[])
{
	CARRIED_ENV(environ, env);

	EXEC_CALL("execve", execve_fn, path, argv, env);
}

PSC_EXPORT int execvp(const char *file, char *const argv[])
{
	CARRIED_ENV(environ, env);

	EXEC_CALL("execvpe", execve_fn, file, argv, env);
}

PSC_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	CARRIED_ENV(envp, env);

	EXEC_CALL("execvpe", execve_fn, file, argv, env);
}

PSC_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	CARRIED_ENV(envp, env);

	EXEC_CALL("fexecve", fexecve_fn, fd, argv, env);
}

/* posix_spawn starts a new process: nothing of this one's streams changes, only the child's
 * environment. */
static int spawn_call(const char *name, pid_t *pid, const char *path,
		      const posix_spawn_file_actions_t *actions, const posix_spawnattr_t *attr,
		      char *const argv[], char *const envp[])
{
	spawn_fn real = (spawn_fn)next_symbol(name);
	CARRIED_ENV(envp, env);

	return real ? real(pid, path, actions, attr, argv, env) : ENOSYS;
}

PSC_EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *actions,
			   const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return spawn_call("posix_spawn", pid, path, actions, attr, argv, envp);
}

PSC_EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *actions,
			    const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return spawn_call("posix_spawnp", pid, file, actions, attr, argv, envp);
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
