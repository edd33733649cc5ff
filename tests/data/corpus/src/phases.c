/*
 * phases.c - two phases of known length: about 0.6 s spinning in phase_a, then about 0.6 s in
 * phase_b (-a MS and -b MS change them). Prints the CLOCK_MONOTONIC time of the switch in ns,
 * so a timeline can be checked against it. The phases are fixed amounts of work, not of wall
 * time, so their split of the CPU time is 1 : 1 (or a : b) however the scheduler shares the
 * CPUs; on a loaded machine they just take longer. Built with -DPHASES_WALL_TIME they spin for
 * MS milliseconds of wall time instead, as the traced build does for the energy and timeline
 * tests, which charge power over wall time.
 *
 * Build: cc -O1 -g -fno-omit-frame-pointer examples/phases.c -o phases
 * Run:   perfscope record --sample -o out -- ./phases && perfscope timeline out
 *
 * Built with -finstrument-functions it is also the traced program of the energy example:
 * perfscope record --functions --power rapl -o out -- ./phases && perfscope energy out
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* not traced: the wall-time phases call it every few microseconds */
__attribute__((no_instrument_function)) static unsigned long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec;
}

/* Blocks of BLOCK iterations per nominal millisecond: one block took 5.4 us of CPU time on
 * the 2-CPU development VM (a faster machine just finishes sooner). x is volatile so that every
 * iteration loads and stores it at any optimisation level: the block costs the same built at
 * -O0 or -O2, and is never folded or vectorised away. */
#define BLOCK	      2000
#define BLOCKS_PER_MS 185

/* Whether a phase of MS nominal ms has more to do after K blocks (wall time: until END). */
__attribute__((no_instrument_function)) static int more(long k, long ms, unsigned long long end)
{
#ifdef PHASES_WALL_TIME
	(void)k;
	(void)ms;
	return now_ns() < end;
#else
	(void)end;
	return k < ms * BLOCKS_PER_MS;
#endif
}

/* Do MS nominal milliseconds of floating-point work; returns it so it is not optimised out. */
__attribute__((noinline)) double phase_a(long ms)
{
	unsigned long long end = now_ns() + (unsigned long long)ms * 1000000ull;
	volatile double x = 0;

	for (long k = 0; more(k, ms, end); k++)
		for (int i = 0; i < BLOCK; i++)
			x += i * 0.5;
	return x;
}

__attribute__((noinline)) double phase_b(long ms)
{
	unsigned long long end = now_ns() + (unsigned long long)ms * 1000000ull;
	volatile double x = 1;

	for (long k = 0; more(k, ms, end); k++)
		for (int i = 0; i < BLOCK; i++)
			x *= 1.0000001;
	return x;
}

int main(int argc, char **argv)
{
	long a = 600, b = 600;
	unsigned long long sw;
	double r;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (argv[i][0] == '-' && argv[i][1] == 'a')
			a = atol(argv[i + 1]);
		else if (argv[i][0] == '-' && argv[i][1] == 'b')
			b = atol(argv[i + 1]);
	}
	if (a <= 0 || b <= 0) {
		fprintf(stderr, "usage: %s [-a MS] [-b MS]\n", argv[0]);
		return 2;
	}
	r = phase_a(a);
	sw = now_ns();
	r += phase_b(b);
	printf("switch_ns=%llu\n", sw);
	return r == 42.0; /* never: keeps r alive */
}
