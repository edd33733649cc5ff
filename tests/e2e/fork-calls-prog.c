/*
 * fork-calls-prog.c - main calls outer, which forks: the child calls leaf twice and returns
 * through outer and main, as the parent does after it waited (one call of leaf). Built with
 * -finstrument-functions: the child's stream must hold the calls it returns from.
 */
#include <sys/wait.h>
#include <unistd.h>

static volatile int sink;

__attribute__((noinline)) void leaf(void)
{
	sink++;
}

__attribute__((noinline)) int outer(void)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		leaf();
		leaf();
		return 0;
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return 1;
	leaf();
	return 0;
}

int main(void)
{
	return outer();
}
