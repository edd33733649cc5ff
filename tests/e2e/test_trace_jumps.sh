#!/usr/bin/env bash
# Calls left by a longjmp, or by an exception unwinding through code that runs no exit hook
# (clang's C++), are closed where the runtime sees the jump (a longjmp, the landing in a
# cleanup or a catch): the call tree stays three levels deep and the report counts the calls
# it closed (gcc's C++ runs the exit hooks itself). And
# nothing is closed without a jump: gcc -O2 inlines fib into itself, whose inlined calls
# enter their hooks at the stack pointer of the call they are inlined in, and tail-calls the
# exit hook of short-threads-prog's work(), from above the stack pointer of its entry.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

# tree DIR: "depth name calls" of every row of report --tree, sorted
tree() {
	"$PERFSCOPE" report "$1" --tree | python3 -c '
import re, sys
col = None
rows = []
for line in sys.stdin.buffer.read().decode().splitlines():
    if line.endswith(" function"):
        col = line.index("function")
    elif col is not None and not line.lstrip().startswith("!") and len(line) > col:
        name = line[col:]
        depth = (len(name) - len(name.lstrip())) // 2
        calls = re.search(r"%\s+([0-9,]+)\s", line).group(1)
        rows.append("%d %s %s" % (depth, name.strip(), calls))
print(" ".join(sorted(rows)))'
}

check() {
	local what=$1 exp=$2 unwound=$3 want=$4
	expect_eq "$want" "$(tree "$exp")" "$what: the call tree"
	run "$what-json" "$PERFSCOPE" report "$exp" --json
	expect_eq "$unwound" "$(json_eval "$T/$what-json.out" 'sum(t["unwound"] for t in d["threads"])')" \
		"$what: calls closed at a jump"
	expect_eq 0 "$(json_eval "$T/$what-json.out" 'sum(t["synthetic_exits"] for t in d["threads"])')" \
		"$what: exits made up by the reader"
}

c_tree="0 main 1 1 after 1,000 1 mid 1,000 2 leaf 1,000"
for cc in cc clang; do
	command -v "$cc" >/dev/null || { note "no $cc"; continue; }
	build_traced "lj-$cc" "$PSC_SOURCE/tests/e2e/longjmp-prog.c" "$cc"
	record_or_die "rec-lj-$cc" "$T/lj-$cc.exp" --functions -- "$T/lj-$cc"
	# 500 jumps, each leaving mid and leaf
	check "longjmp-$cc" "$T/lj-$cc.exp" 1000 "$c_tree"
done

cxx_tree="0 main 1 1 other(int) 1,000 1 wrapper(int) 1,000 2 thrower(int) 1,000"
for cxx in clang++ g++; do
	command -v "$cxx" >/dev/null || { note "no $cxx"; continue; }
	build_traced "ex-$cxx" "$PSC_SOURCE/tests/e2e/throw-prog.cc" "$cxx"
	record_or_die "rec-ex-$cxx" "$T/ex-$cxx.exp" --functions -- "$T/ex-$cxx"
	# clang: 500 throws, each leaving wrapper and thrower; g++ runs their exit hooks
	check "throw-$cxx" "$T/ex-$cxx.exp" "$([ "$cxx" = clang++ ] && echo 1000 || echo 0)" "$cxx_tree"
done

cleanup_tree="0 main 1 1 middle(int) 1,000 1 other(int) 1,000 2 Guard::~Guard() 1,000 2 thrower(int) 1,000"
for cxx in clang++ g++; do
	command -v "$cxx" >/dev/null || { note "no $cxx"; continue; }
	build_traced "cl-$cxx" "$PSC_SOURCE/tests/e2e/cleanup-prog.cc" "$cxx"
	record_or_die "rec-cl-$cxx" "$T/cl-$cxx.exp" --functions -- "$T/cl-$cxx"
	# clang: 500 throws, each leaving thrower when middle's cleanup begins, then middle
	check "cleanup-$cxx" "$T/cl-$cxx.exp" "$([ "$cxx" = clang++ ] && echo 1000 || echo 0)" \
		"$cleanup_tree"
done

cat >"$T/fib.c" <<'C'
#include <stdio.h>
static int fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}
int main(void)
{
	printf("%d\n", fib(25));
	return 0;
}
C
cc -O2 -g -finstrument-functions "$T/fib.c" -o "$T/fib" || die "cannot build fib.c"
record_or_die rec-fib "$T/fib.exp" --functions -- "$T/fib"
run fib-json "$PERFSCOPE" report "$T/fib.exp" --json
expect_eq 0 "$(json_eval "$T/fib-json.out" 'sum(t["unwound"] for t in d["threads"])')" \
	"fib -O2: no call closed without a jump"
report_csv_or_die fib-csv "$T/fib.exp"
expect_eq 242785 "$(csv_get "$T/fib-csv.out" calls name=fib)" "fib -O2: calls of fib(25)"

cc -O2 -g -finstrument-functions "$PSC_SOURCE/tests/e2e/short-threads-prog.c" -o "$T/st" -pthread ||
	die "cannot build short-threads-prog.c"
record_or_die rec-st "$T/st.exp" --functions -- "$T/st" 40 4
run st-json "$PERFSCOPE" report "$T/st.exp" --json
expect_eq "0 0" "$(json_eval "$T/st-json.out" \
	'"%d %d" % (sum(t["unwound"] for t in d["threads"]), sum(t["unmatched_exits"] for t in d["threads"]))')" \
	"short threads -O2: no call closed without a jump, no exit unmatched"
report_csv_or_die st-csv "$T/st.exp"
expect_eq 40 "$(csv_get "$T/st-csv.out" calls name=work)" "short threads -O2: calls of work"

finish
