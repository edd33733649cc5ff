#!/usr/bin/env bash
# Functions of a library opened with dlopen get their names and source lines, also when the
# library is closed again at once (dlclose records the maps before it goes) and when it stays
# open (the writer thread notices it, or the exit does).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

cat >"$T/plug.c" <<'C'
int plug_work(int x) { return x * 3 + 1; }
C
cat >"$T/dl.c" <<'C'
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	void *h = dlopen(argv[1], RTLD_NOW);
	int (*f)(int);
	int s = 0;

	if (!h)
		return 2;
	f = (int (*)(int))dlsym(h, "plug_work");
	for (int i = 0; i < 5; i++)
		s += f(i);
	printf("%d\n", s);
	if (argc > 2 && !strcmp(argv[2], "close"))
		dlclose(h);
	return 0;
}
C
san=()
[ "${PSC_SANITIZE:-OFF}" = ON ] && san=(-fsanitize=address,undefined)
${CC:-cc} -shared -fPIC -g -finstrument-functions "$T/plug.c" -o "$T/libplug.so" "${san[@]}" ||
	die "cannot build libplug.so"
${CC:-cc} -g -finstrument-functions "$T/dl.c" -o "$T/dl" -ldl "${san[@]}" || die "cannot build dl"

for mode in close keep; do
	d=$T/$mode.exp
	record_or_die "rec-$mode" "$d" --functions -- "$T/dl" "$T/libplug.so" "$mode"
	expect_eq 35 "$(cat "$T/rec-$mode.out")" "dl $mode: its output"
	report_csv_or_die "rep-$mode" "$d"
	expect_eq 5 "$(csv_get "$T/rep-$mode.out" calls name=plug_work)" "dl $mode: calls of plug_work by name"
	expect_eq plug.c "$(basename "$(csv_get "$T/rep-$mode.out" file name=plug_work)")" "dl $mode: source of plug_work"
	expect_eq 1 "$(csv_get "$T/rep-$mode.out" line name=plug_work)" "dl $mode: line of plug_work"
done
finish
