/*
 * phases.c - two phases of known length: about 0.6 s spinning in phase_a, then about 0.6 s in
 * phase_b (-a MS and -b MS change them). Prints the CLOCK_MONOTONIC time of the switch in ns,
 * so a timeline can be checked against it.
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

/* not traced: the phases call it every few microseconds */
__attribute__((no_instrument_function)) static unsigned long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec;
}

/* Spin for MS milliseconds doing floating-point work; returns it so it is not optimised out. */
__attribute__((noinline)) double phase_a(long ms)
{
	unsigned long long end = now_ns() + (unsigned long long)ms * 1000000ull;
	double x = 0;

	while (now_ns() < end)
		for (int i = 0; i < 2000; i++)
			x += i * 0.5;
	return x;
}

__attribute__((noinline)) double phase_b(long ms)
{
	unsigned long long end = now_ns() + (unsigned long long)ms * 1000000ull;
	double x = 1;

	while (now_ns() < end)
		for (int i = 0; i < 2000; i++)
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
