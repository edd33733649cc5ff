/*
 * callchain.c - a call structure of known shape and work split, for call trees from samples:
 * main calls a(), which spins in spin() for about 0.3 s of CPU time, then b(), which spins
 * twice as long in the same spin() (-a MS and -b MS change them). The spins are fixed amounts
 * of work, not of wall time, so the split is 1 : 2 in CPU time however the scheduler shares
 * the CPUs. a and b do nothing but call spin, so nearly all samples fall in spin: inclusive
 * shares a ~ 1/3, b ~ 2/3, main and spin ~ 1; self shares of main, a and b ~ 0.
 *
 * Build: cc -O0 -g -fno-omit-frame-pointer -fno-inline examples/callchain.c -o callchain
 * Run:   perfscope record --sample --callgraph -o out -- ./callchain && perfscope report --tree out
 */
#include <stdio.h>
#include <stdlib.h>

/* Blocks of BLOCK additions per nominal millisecond: one block took 0.54 ms of CPU time
 * built at -O0 on the 2-CPU development VM (a faster machine just finishes sooner). */
#define BLOCK	      200000
#define BLOCKS_PER_MS 2

/* Do MS nominal milliseconds of floating-point work; returns it so it is not optimised out. */
__attribute__((noinline)) double spin(long ms)
{
	double x = 0;

	for (long k = 0; k < ms * BLOCKS_PER_MS; k++)
		for (int i = 0; i < BLOCK; i++)
			x += i * 0.5;
	return x;
}

__attribute__((noinline)) double a(long ms)
{
	return spin(ms);
}

__attribute__((noinline)) double b(long ms)
{
	return spin(ms);
}

int main(int argc, char **argv)
{
	long ta = 300, tb = 600;
	double x;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (argv[i][0] == '-' && argv[i][1] == 'a')
			ta = atol(argv[i + 1]);
		else if (argv[i][0] == '-' && argv[i][1] == 'b')
			tb = atol(argv[i + 1]);
	}
	x = a(ta);
	x += b(tb);
	printf("x=%g\n", x);
	return 0;
}
