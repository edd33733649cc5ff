/*
 * prog.c - a tiny program for tests/unit/test_symbols.c, built once as a PIE and once not.
 * `prog DIR` copies its own /proc/self/maps to DIR/maps.<pid> and prints one line:
 * pid, address of psc_prog_func, its declaration line, a return address inside
 * psc_prog_caller, the line of that call, and the load base dladdr() reports.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

static unsigned call_line;

__attribute__((noinline)) void *psc_prog_where(unsigned line)
{
	call_line = line;
	return __builtin_return_address(0);
}

static const unsigned func_line = __LINE__ + 1;
__attribute__((noinline)) int psc_prog_func(int x)
{
	return x * 7 + 3;
}

__attribute__((noinline)) void *psc_prog_caller(void)
{
	void *ra = psc_prog_where(__LINE__);

	__asm__ volatile("" ::: "memory");
	return ra;
}

int main(int argc, char **argv)
{
	char path[4096], buf[65536];
	FILE *in, *out;
	size_t n;
	void *ra;
	Dl_info info;

	if (argc != 2)
		return 2;
	snprintf(path, sizeof(path), "%s/maps.%d", argv[1], (int)getpid());
	in = fopen("/proc/self/maps", "r");
	out = fopen(path, "w");
	if (!in || !out)
		return 1;
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		fwrite(buf, 1, n, out);
	fclose(in);
	if (fclose(out))
		return 1;
	ra = psc_prog_caller();
	if (!dladdr((void *)psc_prog_func, &info))
		return 1;
	printf("%d %#jx %u %#jx %u %#jx %d\n", (int)getpid(), (uintmax_t)(uintptr_t)psc_prog_func,
	       func_line, (uintmax_t)(uintptr_t)ra, call_line, (uintmax_t)(uintptr_t)info.dli_fbase,
	       psc_prog_func(argc));
	return 0;
}
