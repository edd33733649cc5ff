/*
 * throw-prog.cc - 1000 rounds of main calling wrapper (which calls thrower) in a try block and
 * then other; in every odd round thrower throws and main catches, which clang's code does
 * without running the exit hooks of wrapper and thrower. Built with -finstrument-functions:
 * the call tree must stay main -> {wrapper -> thrower, other}.
 */
#include <cstdio>
static volatile int sink;
__attribute__((noinline)) void thrower(int i)
{
	sink += i;
	if (i % 2)
		throw i;
}
__attribute__((noinline)) void wrapper(int i)
{
	thrower(i);
	sink++;
}
__attribute__((noinline)) void other(int i)
{
	sink -= i;
}
int main()
{
	for (int i = 0; i < 1000; i++) {
		try {
			wrapper(i);
		} catch (int) {
		}
		other(i);
	}
	std::printf("1000 rounds, 500 throws\n");
	return 0;
}
