/* hostile-prog.c - for test_hostile_names.sh: every name it can give carries what a terminal
 * obeys or what is not UTF-8: ESC sequences (window title, colour, screen clear), BEL, CR, LF,
 * DEL, a C1 CSI (U+009B), a bidirectional override (U+202E) and invalid bytes. A function with
 * such a symbol name (an assembler label) is called 3 times, inside regions with such names;
 * a second thread gets such a name. Built with -finstrument-functions and -DPERFSCOPE. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>

#include "perfscope.h"

#define EVIL "\033]0;PWNED\007\033[31m\033[2J\r\n\177\302\233\342\200\256\377\303"

__attribute__((noinline)) int
evil_function(int x) __asm__("\"evil\033]0;PWNED\007\033[2J\r\177\302\233\342\200\256\377\303fn\"");

__attribute__((noinline)) int evil_function(int x)
{
	volatile int s = 0;

	for (int i = 0; i < 20000000; i++)
		s += i ^ x;
	return s;
}

static void *thread_main(void *arg)
{
	psc_region_begin("thread " EVIL);
	evil_function(2);
	psc_region_end("thread " EVIL);
	return arg;
}

int main(void)
{
	pthread_t t;
	int s = 0;

	psc_region_begin("outer " EVIL);
	for (int i = 0; i < 2; i++) {
		psc_region_begin("inner\n\033[1mline2");
		s += evil_function(i);
		psc_region_end("inner\n\033[1mline2");
	}
	psc_region_end("outer " EVIL);
	/* the thread takes the name its creator has (15 bytes at most) when it starts */
	pthread_setname_np(pthread_self(), "\033]0;T\007\r\n\377x");
	if (pthread_create(&t, NULL, thread_main, NULL) || pthread_join(t, NULL))
		return 1;
	printf("%d\n", s & 1);
	return 0;
}
