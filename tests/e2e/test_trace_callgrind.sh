#!/usr/bin/env bash
# callgrind is the independent oracle of call counts: examples/gauss_jordan run under
# `valgrind --tool=callgrind` and under `perfscope record --functions` gives the same number of
# calls for every function of the example (and the counts documented in gauss_jordan.c).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

require_cmd valgrind python3
n=300 # callgrind takes a few seconds; row_axpy is called n (n - 1) = 89700 times
prog=$EX/gauss_jordan
[ -x "$prog" ] || die "$prog was not built"
functions="main init_matrix find_pivot swap_rows scale_row row_axpy checksum residual"

# the program callgrind runs: the example itself, except in sanitizer builds, where the examples
# carry the ASan runtime (which valgrind cannot run): then the same source, built without it
cg_prog=$prog
if [ "${PSC_SANITIZE:-OFF}" = ON ]; then
	cc=${CC:-cc}
	command -v "$cc" >/dev/null 2>&1 || skip "no C compiler ($cc) to build gauss_jordan without the sanitizers"
	cg_prog=$T/gauss_jordan
	"$cc" -O2 -g -finstrument-functions "$PSC_SOURCE/examples/gauss_jordan.c" -o "$cg_prog" -lm \
		>"$T/cc.log" 2>&1 || die "cannot build gauss_jordan: $(cat "$T/cc.log")"
	note "sanitizer build: callgrind runs gauss_jordan built without the sanitizers ($cg_prog)"
fi

run cg valgrind --tool=callgrind --dump-instr=no --compress-strings=no \
	--callgrind-out-file="$T/callgrind.out" "$cg_prog" "$n"
if [ "$RC" -ne 0 ]; then
	show cg
	die "valgrind --tool=callgrind $cg_prog $n exited $RC"
fi
[ -s "$T/callgrind.out" ] || die "callgrind wrote no $T/callgrind.out"

# calls of every function defined in gauss_jordan.c, summed over all call sites: a calls= line
# counts calls of the last cfn=, in object cob= and source file cfi= (or, without them, the
# caller's ob= and current file fl=, fi= or fe=); recursion levels (fn'2) are one function
python3 - "$T/callgrind.out" "$(basename "$cg_prog")" gauss_jordan.c >"$T/cg.counts" <<'EOF2'
import collections, os, re, sys
out, exe, src = sys.argv[1:4]
calls = collections.Counter()
ob = fl = cob = cfi = cfn = None
for line in open(out, errors="replace"):
    line = line.rstrip("\n")
    key, _, val = line.partition("=")
    if key == "ob":
        ob = val
    elif key in ("fl", "fi", "fe"):
        fl = val  # the current source file
    elif key == "fn":
        cob = cfi = None
    elif key == "cob":
        cob = val
    elif key in ("cfi", "cfl"):
        cfi = val
    elif key == "cfn":
        cfn = re.sub(r"'\d+$", "", val)
    elif key == "calls":
        obj = cob if cob is not None else ob
        file = cfi if cfi is not None else fl
        if obj and file and os.path.basename(obj) == exe and os.path.basename(file) == src:
            calls[cfn] += int(val.split()[0])
        cob = cfi = None
for name, c in sorted(calls.items()):
    print(f"{name} {c}")
EOF2
[ -s "$T/cg.counts" ] || die "no calls of $(basename "$cg_prog")'s functions in callgrind's output"
cg_calls() {
	awk -v f="$1" '$1 == f { print $2; found = 1 } END { if (!found) print 0 }' "$T/cg.counts"
}

d=$T/gj.exp
record_or_die rec "$d" --functions -- "$prog" "$n"
expect_eq "$(sed -n 2p "$T/cg.out")" "$(sed -n 2p "$T/rec.out")" "gauss_jordan computes the same under perfscope and callgrind"
report_csv_or_die csv "$d"
csv=$T/csv.out
psc_calls() {
	local c
	c=$(csv_get "$csv" calls name="$1" 2>/dev/null)
	echo "${c:-0}"
}

# the counts known in advance (gauss_jordan.c), from both tools
for fc in main:1 init_matrix:1 find_pivot:$n swap_rows:0 scale_row:$n row_axpy:$((n * (n - 1))) \
	checksum:1 residual:1; do
	f=${fc%:*}
	expect_eq "${fc#*:}" "$(cg_calls "$f")" "callgrind: calls of $f"
	expect_eq "${fc#*:}" "$(psc_calls "$f")" "perfscope: calls of $f"
done

# every function either tool saw in the example: the same count in both
seen=$( (awk 'NR > 1 { print $1 }' FS=, "$csv"; awk '{ print $1 }' "$T/cg.counts"; echo "$functions" | tr ' ' '\n') | sort -u)
for f in $seen; do
	expect_eq "$(cg_calls "$f")" "$(psc_calls "$f")" "calls of $f: callgrind (expected) against perfscope"
done
# and perfscope saw nothing else than the example's functions
extra=$(awk -F, -v list=" $functions " 'NR > 1 && index(list, " " $1 " ") == 0 { print $1 }' "$csv" | tr '\n' ' ')
expect_eq "" "$extra" "perfscope: functions that are not gauss_jordan's"

finish
