/*
 * callchain.c - a call structure of known shape and time split, for call trees from samples:
 * main calls a(), which spins about 0.3 s in spin(), then b(), which spins about 0.6 s in the
 * same spin() (-a MS and -b MS change them). a and b do nothing but call spin, so nearly all
 * samples fall in spin: inclusive shares a ~ 1/3, b ~ 2/3, main and spin ~ 1; self shares of
 * main, a and b ~ 0.
 *
 * Build: cc -O0 -g -fno-omit-frame-pointer -fno-inline examples/callchain.c -o callchain
 * Run:   perfscope record --sample --callgraph -o out -- ./callchain && perfscope report --tree out
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static unsigned long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec;
}

/* Spin for MS milliseconds doing floating-point work (the clock is read rarely, so that
 * nearly every sample is in spin itself); returns it so it is not optimised out. */
__attribute__((noinline)) double spin(long ms)
{
	unsigned long long end = now_ns() + (unsigned long long)ms * 1000000ull;
	double x = 0;

	while (now_ns() < end)
		for (int i = 0; i < 200000; i++)
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
