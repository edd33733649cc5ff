#!/usr/bin/env bash
# Sampling a library closed and another opened at its addresses: the samples in each keep
# their own library's names. The program runs without the runtime; the kernel's MMAP2 records
# give each mapping its time (pmaps "# mmap NS"), and a sample is looked up as the address was
# mapped at its time. Each library spins 0.3 s of CPU time; the second is put where the first
# was (checked: skipped where the loader does not).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

cc=${CC:-cc}
command -v "$cc" >/dev/null 2>&1 || skip "no C compiler ($cc)"
cat >"$T/spin.c" <<'C'
#include <time.h>
static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}
double NAME(double s)
{
	double x = 0, end = now() + s;
	while (now() < end)
		for (int i = 0; i < 2000; i++)
			x += i * 0.25;
	return x;
}
C
cat >"$T/main.c" <<'C'
#include <dlfcn.h>
#include <stdio.h>
static void use(const char *path, const char *name)
{
	void *h = dlopen(path, RTLD_NOW);
	double (*f)(double);

	if (!h)
		return;
	f = (double (*)(double))dlsym(h, name);
	printf("%s %p %d\n", name, (void *)f, f(0.3) > 0);
	fflush(stdout);
	dlclose(h);
}
int main(int argc, char **argv)
{
	(void)argc;
	use(argv[1], "alpha_spin");
	use(argv[2], "beta_spin");
	return 0;
}
C
"$cc" -O1 -g -shared -fPIC -DNAME=alpha_spin "$T/spin.c" -o "$T/liba.so" || die "cannot build liba.so"
"$cc" -O1 -g -shared -fPIC -DNAME=beta_spin "$T/spin.c" -o "$T/libb.so" || die "cannot build libb.so"
"$cc" -O1 -g "$T/main.c" -o "$T/main" -ldl || die "cannot build main"

d=$T/s.exp
record_or_die rec "$d" --sample=1000 -- "$T/main" "$T/liba.so" "$T/libb.so"
expect_eq 2 "$(grep -c ' 1$' "$T/rec.out" || true)" "both libraries ran"
a=$(awk '$1 == "alpha_spin" {print $2}' "$T/rec.out")
b=$(awk '$1 == "beta_spin" {print $2}' "$T/rec.out")
expect_cmp "$(grep -c '^# mmap [0-9]' "$d"/pmaps.* || true)" ">=" 3 "pmaps: each mapping with its time"
report_csv_or_die rep "$d"
for f in alpha_spin beta_spin; do
	samples=$(csv_get "$T/rep.out" samples name=$f)
	expect_cmp "${samples:-0}" ">=" 150 "samples in $f (about 300 at 1 kHz)"
done
expect_eq spin.c "$(basename "$(csv_get "$T/rep.out" file name=alpha_spin)")" "alpha_spin's source"
if [ "$a" != "$b" ]; then
	skip "the loader put libb.so's beta_spin at $b, not at liba.so's alpha_spin $a: nothing reused the addresses"
fi
finish
