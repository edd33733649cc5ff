/*
 * fib.c - naive recursive Fibonacci: the worst case for a function tracer.
 *
 * fib(n) calls itself twice for every n >= 2 and does almost nothing else, so the run is
 * nothing but call pairs of a few nanoseconds each. fib(n) makes exactly 2 * F(n + 1) - 1
 * calls of fib (F(1) = F(2) = 1): fib(34) makes 18454929 calls, fib(30) 2692537, fib(20)
 * 21891. With main, a traced run has 2 * F(n + 1) function entries in all.
 *
 * Build it with -finstrument-functions to trace it (functions fib and main); it needs no
 * perfscope header or library: glibc provides do-nothing __cyg_profile_func_enter/_exit,
 * and `perfscope record --functions` preloads libperfscope.so, whose hooks record the calls.
 *
 * Build: cc -O2 -g -finstrument-functions examples/fib.c -o fib
 * Run:   perfscope record --functions -o fib.out -- ./fib 30 && perfscope report fib.out
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#define DEFAULT_N 34
#define MAX_N	  60

/*
 * noipa: never inlined, cloned or specialised, so that every call is a real call with its
 * own hook pair. The empty asm makes the sum opaque to the compiler, so that an
 * uninstrumented build does not turn the second call into a loop (tail recursion with an
 * accumulator) and makes the same calls as an instrumented one.
 */
__attribute__((noipa)) static unsigned long fib(unsigned n)
{
	unsigned long r;

	if (n < 2)
		return n;
	r = fib(n - 1) + fib(n - 2);
	__asm__ volatile("" : "+r"(r));
	return r;
}

int main(int argc, char **argv)
{
	unsigned long n = DEFAULT_N;

	if (argc > 2) {
		fprintf(stderr, "usage: %s [N]   (0 to %d, default %d)\n", argv[0], MAX_N,
			DEFAULT_N);
		return 2;
	}
	if (argc == 2) {
		char *end;

		errno = 0;
		n = strtoul(argv[1], &end, 10);
		if (errno || end == argv[1] || *end || argv[1][0] == '-' || n > MAX_N) {
			fprintf(stderr, "usage: %s [N]   (0 to %d, default %d)\n", argv[0], MAX_N,
				DEFAULT_N);
			return 2;
		}
	}
	printf("fib(%lu) = %lu\n", n, fib((unsigned)n));
	return 0;
}
