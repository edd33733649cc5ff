/* launch.c - fork, hold, exec and wait for the measured command. */
#include "record/launch.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int launch_prepare(struct launch *l, char *const argv[])
{
	int go[2], err[2];
	pid_t pid;

	if (pipe2(go, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(err, O_CLOEXEC) < 0) {
		close(go[0]);
		close(go[1]);
		return -errno;
	}
	pid = fork();
	if (pid < 0) {
		int e = errno;

		close(go[0]);
		close(go[1]);
		close(err[0]);
		close(err[1]);
		return -e;
	}
	if (pid == 0) {
		char c;
		int e;

		close(go[1]);
		close(err[0]);
		signal(SIGINT, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		/* no byte: the launcher gave up before releasing us */
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		e = errno;
		if (write(err[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(launch_exec_status(e));
	}
	close(go[0]);
	close(err[1]);
	l->pid = pid;
	l->go_fd = go[1];
	l->err_fd = err[0];
	return 0;
}

void launch_release(struct launch *l)
{
	char c = 1;
	/* a failed write means the child is gone: launch_exec_result() then reads 0, and the
	 * wait reports how it ended */
	ssize_t n = write(l->go_fd, &c, 1);

	(void)n;
	close(l->go_fd);
	l->go_fd = -1;
}

int launch_exec_result(struct launch *l)
{
	int e = 0;
	ssize_t n;

	do
		n = read(l->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(l->err_fd);
	l->err_fd = -1;
	return n == (ssize_t)sizeof(e) ? -e : 0;
}

int launch_go(struct launch *l)
{
	launch_release(l);
	return launch_exec_result(l);
}

void launch_abort(struct launch *l)
{
	int st;

	close(l->go_fd);
	close(l->err_fd);
	l->go_fd = l->err_fd = -1;
	while (waitpid(l->pid, &st, 0) < 0 && errno == EINTR)
		;
}

int launch_wait(struct launch *l, int *status, struct rusage *ru)
{
	struct sigaction ign, old_int, old_quit;
	int st, ret = 0;
	pid_t got;

	/* Ctrl-C goes to the command; the launcher stays to report what it measured */
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	do
		got = wait4(l->pid, &st, 0, ru);
	while (got < 0 && errno == EINTR);
	l->signal = 0;
	if (got < 0) {
		ret = -errno;
	} else if (WIFEXITED(st)) {
		*status = WEXITSTATUS(st);
	} else if (WIFSIGNALED(st)) {
		l->signal = WTERMSIG(st);
		*status = 128 + l->signal;
	} else {
		*status = 1;
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	return ret;
}

int launch_exec_status(int err)
{
	return err == ENOENT || err == ENOTDIR ? 127 : 126;
}
