#!/usr/bin/env bash
# perfscope select, two-pass instrumentation end to end. A program with functions of known,
# very different durations (slow_spin spins 2 ms per call, 20 calls; fast_* do almost nothing,
# 10000 calls; never_called is never called; util.c holds only fast functions) is built with
# -finstrument-functions and recorded; select keeps the long ones and then
#  (1) the rebuild with the printed gcc options calls the hooks in EXACTLY the selected
#      functions (objdump), and a recorded run of it reports only them with their exact counts;
#  (2) the first build recorded with `record --filter FILE` reports only them, exact counts;
#  (3) the filter file names each function by its module and ELF address (nm is the oracle).
# Also --top N, a substring conflict gcc cannot express (step / step_slow), C++ and Fortran
# names, and bad input (exit 2 with one line).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init
require_cmd objdump nm

CC=${CC:-cc}
command -v "$CC" >/dev/null 2>&1 || skip "no C compiler ($CC) to build the test programs"
san=()
[ "${PSC_SANITIZE:-OFF}" = ON ] && san=(-fsanitize=address,undefined)

# build OUT EXTRA_FLAGS SOURCES..: compile with -O1 -g and the given (word-split) flags
build() {
	local out=$1 flags=$2
	shift 2
	# shellcheck disable=SC2086 # the flags are shell words, as select prints them
	eval "\"\$CC\" -O1 -g $flags \"\$@\" -o \"\$T/$out\" -pthread \"\${san[@]}\"" \
		>"$T/$out.cc.log" 2>&1 || die "cannot build $out: $(cat "$T/$out.cc.log")"
}

# hooked BINARY [-C]: the functions that call __cyg_profile_func_enter, sorted, comma-joined
hooked() {
	objdump -d --no-show-raw-insn ${2:-} "$1" | awk '
		/^[0-9a-f]+ <.*>:$/ { fn = substr($0, index($0, "<") + 1); sub(/>:$/, "", fn) }
		/call.*<__cyg_profile_func_enter(@plt)?>/ { print fn }' | sort -u | paste -sd, -
}

# profile NAME DIR: "name:calls" of every function in DIR's report, sorted, comma-joined
profile() {
	report_csv_or_die "$1" "$2"
	awk -F, 'NR > 1 { print $1 ":" $3 }' "$T/$1.out" | sort | paste -sd, -
}

# elf_addr BINARY FUNCTION: the function's ELF address as 0x<hex>
elf_addr() {
	printf '0x%x\n' "$((16#$(nm "$1" | awk -v f="$2" '$3 == f { print $1; exit }')))"
}

cat >"$T/p.c" <<'EOF'
#include <stdio.h>
#include <time.h>

int fast_util(int x);

/* about 2 ms of spinning: the clock is read inline, no traced helper */
__attribute__((noinline)) void slow_spin(void)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 2000000);
}

__attribute__((noinline)) int fast_add(int a, int b)
{
	__asm__ volatile("" ::: "memory");
	return a + b;
}

__attribute__((noinline)) int fast_mul(int a, int b)
{
	__asm__ volatile("" ::: "memory");
	return a * b;
}

__attribute__((noinline)) void never_called(void)
{
	puts("never");
}

int main(int argc, char **argv)
{
	int acc = 0;

	for (int i = 0; i < 20; i++)
		slow_spin();
	for (int i = 0; i < 10000; i++)
		acc = fast_add(acc, i) ^ fast_mul(i, 3) ^ fast_util(i);
	if (argc > 5)
		never_called();
	printf("%d %s\n", acc & 1, argv[0] ? "done" : "");
	return 0;
}
EOF
cat >"$T/util.c" <<'EOF'
#include <stdio.h>

__attribute__((noinline)) int fast_util(int x)
{
	__asm__ volatile("" ::: "memory");
	return x ^ 5;
}

__attribute__((noinline)) void util_never(void)
{
	puts("never");
}
EOF

# ---------------------------------------------------------------- first pass: everything
build p1 "-finstrument-functions" "$T/p.c" "$T/util.c"
expect_eq "fast_add,fast_mul,fast_util,main,never_called,slow_spin,util_never" "$(hooked "$T/p1")" \
	"the first build calls the hooks in every function"
d1=$T/full
record_or_die rec1 "$d1" --functions -- "$T/p1"
expect_eq "fast_add:10000,fast_mul:10000,fast_util:10000,main:1,slow_spin:20" "$(profile full "$d1")" \
	"first run: every function with its exact calls"

# ---------------------------------------------------------------- select --min-time 1ms
cd "$T"
run sel "$PERFSCOPE" select "$d1" --min-time 1ms
expect_eq 0 "$RC" "select --min-time 1ms exit status"
[ "$RC" -eq 0 ] || show sel
opts="-finstrument-functions -finstrument-functions-exclude-function-list=fast_add,fast_mul,never_called -finstrument-functions-exclude-file-list=util.c"
expect_eq "$opts" "$(cat "$T/perfscope.filter.cflags")" "perfscope.filter.cflags"
expect_eq "$opts" "$(tail -n 1 "$T/sel.out")" "the gcc options, last line of stdout"
expect_grep "2 of 5 functions selected from $d1 (mean time per call >= 1.00 ms):" "$T/sel.out" "table heading"
expect_eq "main,slow_spin" "$(awk '$2 ~ /^[0-9,]+$/ && $1 != "function" { print $1 }' "$T/sel.out" | sort | paste -sd, -)" \
	"table rows: the selected functions"
expect_eq "20" "$(awk '$1 == "slow_spin" { print $2 }' "$T/sel.out")" "table: calls of slow_spin"
expect_eq "" "$(cat "$T/sel.err" | grep -v '^perfscope select: wrote ' || true)" "no warnings"

# the filter file: header, comments, then module <tab> ELF address <tab> name
f=$T/perfscope.filter
expect_eq "# perfscope filter 1" "$(head -n 1 "$f")" "filter file: first line"
expect_grep "# criterion: mean time per call >= 1.00 ms; 2 of 5 functions selected" "$f" "filter file: criterion"
expect_grep "# written by perfscope select" "$f" "filter file: origin"
mod=$(realpath "$T/p1")
expect_eq "$(printf '%s\t%s\tmain\n%s\t%s\tslow_spin' "$mod" "$(elf_addr "$T/p1" main)" "$mod" "$(elf_addr "$T/p1" slow_spin)")" \
	"$(grep -v '^#' "$f" | sort -t "$(printf '\t')" -k3)" "filter file: functions at their ELF addresses (nm)"

# (1) the rebuild instruments exactly the selected functions
build p2 "$(cat "$T/perfscope.filter.cflags")" "$T/p.c" "$T/util.c"
expect_eq "main,slow_spin" "$(hooked "$T/p2")" "rebuild with the printed options: hooks only in the selected functions"
record_or_die rec2 "$T/second" --functions -- "$T/p2"
expect_eq "main:1,slow_spin:20" "$(profile second "$T/second")" "rebuild recorded: only the selected functions, exact calls"

# (2) the first build under the filter records exactly the selected functions
record_or_die rec3 "$T/filtered" --filter "$f" -- "$T/p1"
expect_eq "main:1,slow_spin:20" "$(profile filtered "$T/filtered")" "record --filter: only the selected functions, exact calls"

# ---------------------------------------------------------------- select --top 1
run top "$PERFSCOPE" select "$d1" --top 1 -o "$T/top.filter"
expect_eq 0 "$RC" "select --top 1 exit status"
expect_eq "-finstrument-functions -finstrument-functions-exclude-function-list=fast_add,fast_mul,main,never_called -finstrument-functions-exclude-file-list=util.c" \
	"$(cat "$T/top.filter.cflags")" "--top 1: the options"
expect_eq "slow_spin" "$(grep -v '^#' "$T/top.filter" | cut -f3)" "--top 1: the filter file's function"
build p3 "$(cat "$T/top.filter.cflags")" "$T/p.c" "$T/util.c"
expect_eq "slow_spin" "$(hooked "$T/p3")" "--top 1 rebuild: hooks only in slow_spin"
record_or_die rec4 "$T/top-filtered" --filter "$T/top.filter" -- "$T/p1"
expect_eq "slow_spin:20" "$(profile topf "$T/top-filtered")" "--top 1 filter: only slow_spin, 20 calls"

# an existing filter file is not replaced without --force
run again "$PERFSCOPE" select "$d1" --top 1 -o "$T/top.filter"
expect_eq 2 "$RC" "select onto an existing filter file"
expect_grep "exists; not overwriting it (use --force)" "$T/again.err" "existing filter file message"
run force "$PERFSCOPE" select "$d1" --min-time 1ms -o "$T/top.filter" --force
expect_eq 0 "$RC" "select --force"
expect_eq "$opts" "$(cat "$T/top.filter.cflags")" "--force rewrote FILE.cflags"

# ---------------------------------------------------------------- a conflict gcc cannot express
cat >"$T/c.c" <<'EOF'
#include <time.h>

__attribute__((noinline)) int step(int x)
{
	__asm__ volatile("" ::: "memory");
	return x + 1;
}

__attribute__((noinline)) void step_slow(void)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 2000000);
}

int main(void)
{
	int x = 0;

	for (int i = 0; i < 5; i++)
		step_slow();
	for (int i = 0; i < 1000; i++)
		x = step(x);
	return x == 1000 ? 0 : 1;
}
EOF
build c1 "-finstrument-functions" "$T/c.c"
record_or_die recc "$T/conflict" --functions -- "$T/c1"
run selc "$PERFSCOPE" select "$T/conflict" --min-time 1ms -o "$T/c.filter"
expect_eq 0 "$RC" "select with a conflict: exit status 0"
expect_eq "-finstrument-functions" "$(cat "$T/c.filter.cflags")" "conflict: step cannot be excluded"
expect_eq "perfscope select: warning: 'step' stays instrumented in the rebuild: gcc matches names as substrings, and excluding 'step' would also lose the selected 'step_slow'; the filter file leaves it out of the record" \
	"$(grep warning "$T/selc.err")" "conflict: the warning names both functions"
build c2 "$(cat "$T/c.filter.cflags")" "$T/c.c"
expect_eq "main,step,step_slow" "$(hooked "$T/c2")" "conflict: the rebuild keeps step instrumented"
record_or_die recc2 "$T/conflict-f" --filter "$T/c.filter" -- "$T/c1"
expect_eq "main:1,step_slow:5" "$(profile cf "$T/conflict-f")" "conflict: the filter still records only the selected"

# ---------------------------------------------------------------- C++ names
CXX=${CXX:-c++}
if command -v "$CXX" >/dev/null 2>&1; then
	cat >"$T/x.cc" <<'EOF'
#include <time.h>

namespace calc {
template <typename T> struct Acc {
	T v;
	__attribute__((noinline)) void add(T x) { v += x; }
	__attribute__((noinline)) T get() const { return v; }
};

__attribute__((noinline)) void spin(long ns)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < ns);
}

__attribute__((noinline)) long work(long n)
{
	Acc<long> a{0};

	for (long i = 0; i < n; i++)
		a.add(i);
	return a.get();
}
} // namespace calc

namespace {
__attribute__((noinline)) int helper(int x) { return x * 2; }
} // namespace

int main()
{
	calc::Acc<int> b{0};

	for (int i = 0; i < 10; i++)
		calc::spin(2000000);
	b.add(helper(3));
	return calc::work(100) == 4950 && b.get() == 6 ? 0 : 1;
}
EOF
	CC=$CXX build x1 "-finstrument-functions" "$T/x.cc"
	record_or_die recx "$T/cxx" --functions -- "$T/x1"
	run selx "$PERFSCOPE" select "$T/cxx" --min-time 1ms -o "$T/x.filter"
	expect_eq 0 "$RC" "C++: select exit status"
	expect_eq "-finstrument-functions '-finstrument-functions-exclude-function-list=>::add,>::get,calc::work,{anonymous}::helper'" \
		"$(cat "$T/x.filter.cflags")" "C++: keys free of template spellings, shell-quoted"
	CC=$CXX build x2 "$(cat "$T/x.filter.cflags")" "$T/x.cc"
	expect_eq "calc::spin(long),main" "$(hooked "$T/x2" -C)" "C++ rebuild: hooks only in the selected functions"
	record_or_die recx2 "$T/cxx-f" --filter "$T/x.filter" -- "$T/x1"
	expect_eq "calc::spin(long):10,main:1" "$(profile xf "$T/cxx-f")" "C++ filter: only the selected functions"
else
	note "no C++ compiler ($CXX): C++ names not tested"
fi

# ---------------------------------------------------------------- Fortran names
FC=${FC:-gfortran}
if [ "${PSC_FORTRAN:-OFF}" = ON ] && command -v "$FC" >/dev/null 2>&1; then
	cat >"$T/f.f90" <<'EOF'
module mm
contains
  subroutine work(n)
    integer :: n
    n = n + 1
  end subroutine
  subroutine spin()
    integer(8) :: c0, c1, rate
    call system_clock(c0, rate)
    do
      call system_clock(c1)
      if ((c1 - c0) * 1000 / rate >= 2) exit
    end do
  end subroutine
end module
subroutine ext(n)
  integer :: n
  n = n * 2
end subroutine
program prog
  use mm
  integer :: k, i
  k = 1
  do i = 1, 10
    call spin()
  end do
  do i = 1, 1000
    call work(k)
    call ext(k)
  end do
  if (k == 0) print *, k
end program
EOF
	CC=$FC build f1 "-finstrument-functions" "$T/f.f90"
	record_or_die recf "$T/fortran" --functions -- "$T/f1"
	run self "$PERFSCOPE" select "$T/fortran" --min-time 1ms -o "$T/f.filter"
	expect_eq 0 "$RC" "Fortran: select exit status"
	# gcc knows __mm_MOD_work as work and ext_ as ext
	expect_eq "-finstrument-functions -finstrument-functions-exclude-function-list=ext,work" \
		"$(cat "$T/f.filter.cflags")" "Fortran: procedure names as gcc matches them"
	CC=$FC build f2 "$(cat "$T/f.filter.cflags")" "$T/f.f90"
	expect_eq "MAIN__,__mm_MOD_spin,main" "$(hooked "$T/f2")" "Fortran rebuild: hooks only in the selected procedures"
	record_or_die recf2 "$T/fortran-f" --filter "$T/f.filter" -- "$T/f1"
	expect_eq "MAIN__:1,__mm_MOD_spin:10,main:1" "$(profile ff "$T/fortran-f")" "Fortran filter: only the selected procedures"
else
	note "no Fortran compiler: Fortran names not tested"
fi

# ---------------------------------------------------------------- bad input: exit 2, one line
# bad NAME WHAT PATTERN ARGS..: select ARGS exits 2 with one stderr line holding PATTERN
bad() {
	local name=$1 what=$2 pat=$3
	shift 3
	run "$name" "$PERFSCOPE" select "$@"
	expect_eq 2 "$RC" "$what: exit status"
	expect_eq 1 "$(wc -l <"$T/$name.err" | tr -d ' ')" "$what: one line on stderr"
	expect_grep "$pat" "$T/$name.err" "$what: message"
}
bad b-missing "missing DIR" "$T/nope" "$T/nope" --min-time 1ms
record_or_die recr "$T/regions" -- "$EX/spin"
bad b-nofunc "no function events" "no function events were recorded in $T/regions: build with -finstrument-functions" \
	"$T/regions" --min-time 1ms
bad b-unit "bad T" "--min-time 10xs: expected a time with a unit" "$d1" --min-time 10xs -o "$T/b1"
bad b-bare "T without unit" "--min-time 5: expected a time with a unit" "$d1" --min-time 5 -o "$T/b2"
bad b-top0 "--top 0" "--top 0: N must be 1 or more" "$d1" --top 0 -o "$T/b3"
bad b-neg "--top -3" "--top -3: N must be 1 or more" "$d1" --top -3 -o "$T/b7"
bad b-both "both criteria" "--min-time and --top exclude each other" "$d1" --top 2 --min-time 1ms -o "$T/b4"
bad b-none "no criterion" "give --min-time T or --top N" "$d1" -o "$T/b5"
bad b-high "nothing selected" "no function has a mean time per call of at least 10.000 s" "$d1" --min-time 10s -o "$T/b6"
for b in b1 b2 b3 b4 b5 b6 b7; do
	expect_no_file "$T/$b" "no filter file after a usage error ($b)"
done

finish
