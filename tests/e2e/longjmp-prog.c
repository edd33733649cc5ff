/*
 * longjmp-prog.c - 1000 rounds of main calling mid (which calls leaf) and then after; in every
 * even round leaf longjmps back to main, leaving mid and leaf without their exits. Built with
 * -finstrument-functions: the call tree must stay main -> {mid -> leaf, after}.
 */
#include <setjmp.h>
#include <stdio.h>
static jmp_buf env;
static volatile int sink;
__attribute__((noinline)) void leaf(int i)
{
	sink += i;
	if (i % 2 == 0)
		longjmp(env, 1);
}
__attribute__((noinline)) void mid(int i)
{
	leaf(i);
	sink++;
}
__attribute__((noinline)) void after(int i)
{
	sink -= i;
}
int main(void)
{
	for (volatile int i = 0; i < 1000; i++) {
		if (!setjmp(env))
			mid(i);
		after(i);
	}
	printf("1000 rounds, 500 jumps\n");
	return 0;
}
