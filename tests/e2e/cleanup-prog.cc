/*
 * cleanup-prog.cc - 1000 rounds of main calling middle in a try block, then other; middle holds
 * a Guard, whose destructor runs when middle returns and, in every odd round, when the
 * exception thrower throws unwinds through middle (its cleanup), before main catches. clang's
 * code runs no exit hook while unwinding: thrower is left when the cleanup begins. Built with
 * -finstrument-functions: the call tree must stay main -> {middle -> {thrower, ~Guard}, other}.
 */
#include <cstdio>
static volatile int sink;
struct Guard {
	~Guard();
};
__attribute__((noinline)) Guard::~Guard()
{
	sink++;
}
__attribute__((noinline)) void thrower(int i)
{
	sink += i;
	if (i % 2)
		throw i;
}
__attribute__((noinline)) void middle(int i)
{
	Guard g;
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
			middle(i);
		} catch (int) {
		}
		other(i);
	}
	std::printf("1000 rounds, 500 throws through a cleanup\n");
	return 0;
}
