#!/usr/bin/env bash
# Samples in a shared library the program links and in one it opens with dlopen get their
# functions' names, modules and source lines, from the mappings the kernel reported (the
# program runs without the runtime: it is not recompiled, nor preloaded). The programs spin
# on CPU time, so that a busy machine does not take samples away.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

cat >"$T/spinlib.c" <<'C'
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
double linked_spin(double s);
int main(int argc, char **argv)
{
	void *h = dlopen(argv[1], RTLD_NOW);
	double (*f)(double);
	if (!h)
		return 2;
	f = (double (*)(double))dlsym(h, "plugin_spin");
	printf("%d\n", linked_spin(0.3) + f(0.3) > 0);
	dlclose(h);
	return 0;
}
C
cc=${CC:-cc}
command -v "$cc" >/dev/null || skip "no C compiler"
"$cc" -O1 -g -shared -fPIC -DNAME=linked_spin "$T/spinlib.c" -o "$T/liblinked.so" || die "cannot build liblinked.so"
"$cc" -O1 -g -shared -fPIC -DNAME=plugin_spin "$T/spinlib.c" -o "$T/libplugin.so" || die "cannot build libplugin.so"
"$cc" -O1 -g "$T/main.c" -o "$T/main" -L"$T" -llinked -Wl,-rpath,"$T" -ldl || die "cannot build main"

d=$T/sym.exp
record_or_die rec "$d" --sample=1000 -- "$T/main" "$T/libplugin.so"
expect_eq 1 "$(cat "$T/rec.out")" "the program ran"
report_csv_or_die rep "$d"
for f in linked_spin plugin_spin; do
	lib=lib${f%_spin}.so
	samples=$(csv_get "$T/rep.out" samples name=$f)
	expect_cmp "${samples:-0}" ">=" 150 "samples in $f ($lib, about 300 at 1 kHz)"
	expect_eq spinlib.c "$(basename "$(csv_get "$T/rep.out" file name=$f)")" "$f: source file"
	expect_eq 8 "$(csv_get "$T/rep.out" line name=$f)" "$f: declaration line"
done
run js "$PERFSCOPE" report "$d" --json
expect_eq "$T/libplugin.so" "$(json_eval "$T/js.out" '[f["module"] for f in d["functions"] if f["name"] == "plugin_spin"][0]')" "plugin_spin's module is the dlopen'ed library"
expect_eq "$T/liblinked.so" "$(json_eval "$T/js.out" '[f["module"] for f in d["functions"] if f["name"] == "linked_spin"][0]')" "linked_spin's module is the linked library"
run lines "$PERFSCOPE" report "$d" --lines --csv
expect_eq "file,line,function,samples,share,time_ns" "$(csv_header "$T/lines.out")" "--lines CSV header"
expect_grep "spinlib.c" "$T/lines.out" "the hottest lines are in spinlib.c"

# a child forked without exec runs its parent's code: its samples are named from a copy of the
# parent's mappings (the kernel reports no mapping for it)
cat >"$T/fork.c" <<'C'
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
__attribute__((noinline)) double child_spin(double s)
{
	struct timespec t0, t;
	double x = 0;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	do {
		for (int i = 0; i < 2000; i++)
			x += i * 0.25;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) * 1e-9 < s);
	return x;
}
int main(void)
{
	pid_t pid = fork();
	if (pid == 0)
		_exit(child_spin(0.3) < 0);
	waitpid(pid, NULL, 0);
	return 0;
}
C
"$cc" -O1 -g "$T/fork.c" -o "$T/fork" || die "cannot build fork"
record_or_die frec "$T/fork.exp" --sample=1000 -- "$T/fork"
report_csv_or_die frep "$T/fork.exp" --by thread
expect_cmp "$(csv_get "$T/frep.out" samples name=child_spin || echo 0)" ">=" 150 "samples of the forked child in child_spin"
expect_eq "" "$(csv_get "$T/frep.out" samples name=[unknown] 2>/dev/null)" "no unknown samples"
finish
