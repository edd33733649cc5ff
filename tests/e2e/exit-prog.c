/*
 * exit-prog.c - exits with the status its argument gives (130 by default), or, with "signal
 * N", raises signal N: an exit code above 128 is not a signal.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "signal"))
		raise(atoi(argv[2]));
	return argc > 1 ? atoi(argv[1]) : 130;
}
