#!/usr/bin/env bash
# report --tree on recursion whose calls are known in advance: examples/fib 20 makes exactly
# 2 * F(21) - 1 = 21,891 calls of fib, its recursion 20 levels deep (fib(20) down to fib(1)).
#  - by default a chain of direct recursion deeper than 16 levels is one line with every level's
#    calls, "[recursion: 20 levels]", and a line under the heading says what was folded;
#  - --no-fold-recursion: one line per level, 20 lines whose calls add up to 21,891, indented a
#    level deeper each; --fold-recursion=N folds past N levels only, alone it folds every one;
#  - inclusive = exclusive + children's inclusive on the folded line as on the others;
#  - the options without --tree, together, or N = 0 are usage errors of one line.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

prog=$EX/fib
[ -x "$prog" ] || die "$prog was not built"
d=$T/fib.exp
record_or_die rec "$d" --functions -- "$prog" 20
expect_grep "fib(20) = 6765" "$T/rec.out" "fib 20 ran"

# fib_lines FILE: "DEPTH CALLS REST" for each line of fib in a report --tree
fib_lines() {
	awk '/^ +[0-9.]+ [^ ]+ +[0-9.]+% +[0-9,]+ +[0-9.]+ [^ ]+ +fib/ {
		calls = $4; gsub(",", "", calls)
		match($0, / +fib/); depth = (RLENGTH - 3) / 2 - 1
		rest = substr($0, RSTART + RLENGTH); sub(/^ +/, "", rest)
		print depth, calls, rest }' "$1"
}

run tree "$PERFSCOPE" report "$d" --tree
expect_eq 0 "$RC" "report --tree: exit status"
expect_eq "1 21891 [recursion: 20 levels]" "$(fib_lines "$T/tree.out")" "report --tree: fib folded into one line under main"
expect_grep "(direct recursion deeper than 16 levels is folded into one line, marked [recursion: N levels]: 1 chain, the deepest 20 levels; --no-fold-recursion shows every level)" \
	"$T/tree.out" "report --tree: the line that says what was folded"

run flat "$PERFSCOPE" report "$d" --tree --no-fold-recursion
expect_eq 0 "$RC" "report --tree --no-fold-recursion: exit status"
fib_lines "$T/flat.out" >"$T/flat.fib"
expect_eq 20 "$(wc -l <"$T/flat.fib")" "--no-fold-recursion: a line per level"
expect_eq 21891 "$(awk '{ s += $2 } END { print s }' "$T/flat.fib")" "--no-fold-recursion: the levels' calls add up to every call"
expect_eq "$(seq 1 20 | tr '\n' ' ')" "$(awk '{ printf "%s ", $1 }' "$T/flat.fib")" "--no-fold-recursion: each level a level deeper"
expect_eq "1 1" "$(head -n 1 "$T/flat.fib" | awk '{ print $1, $2 }')" "--no-fold-recursion: fib(20) called once from main"
expect_no_grep "direct recursion" "$T/flat.out" "--no-fold-recursion: no line about folding"

run n20 "$PERFSCOPE" report "$d" --tree --fold-recursion=20
expect_eq 20 "$(fib_lines "$T/n20.out" | wc -l)" "--fold-recursion=20: 20 levels are not more than 20"
run n19 "$PERFSCOPE" report "$d" --tree --fold-recursion=19
expect_eq "1 21891 [recursion: 20 levels]" "$(fib_lines "$T/n19.out")" "--fold-recursion=19: folded"
expect_grep "deeper than 19 levels" "$T/n19.out" "--fold-recursion=19: said"
run all "$PERFSCOPE" report "$d" --tree --fold-recursion
expect_eq "1 21891 [recursion: 20 levels]" "$(fib_lines "$T/all.out")" "--fold-recursion alone: folded"
expect_grep "deeper than 1 level is folded" "$T/all.out" "--fold-recursion alone: every direct recursion"
run thr "$PERFSCOPE" report "$d" --tree --by thread
expect_eq "1 21891 [recursion: 20 levels]" "$(fib_lines "$T/thr.out")" "--by thread: folded in the thread's tree"

# the folded line's times: inclusive = exclusive (fib calls nothing else) and it is main's only
# child: main's inclusive = its exclusive + fib's
unit='{ v = $1; u = $2; m = u == "ns" ? 1 : u == "ms" ? 1e6 : u == "s" ? 1e9 : 1e3; printf "%.0f ", v * m;
	v = $5; u = $6; m = u == "ns" ? 1 : u == "ms" ? 1e6 : u == "s" ? 1e9 : 1e3; printf "%.0f\n", v * m }'
read -r fi fe <<<"$(grep ' fib ' "$T/tree.out" | awk "$unit")"
read -r mi me <<<"$(grep ' main$' "$T/tree.out" | awk "$unit")"
expect_within 1 "$fi" "$fe" "the folded fib: inclusive = exclusive"
expect_within 1 "$mi" "$((me + fi))" "main: inclusive = exclusive + the folded fib's inclusive"

for args in "--fold-recursion" "--no-fold-recursion" "--tree --fold-recursion=0" \
	"--tree --fold-recursion=3 --no-fold-recursion"; do
	# shellcheck disable=SC2086 # the options, split
	run bad "$PERFSCOPE" report "$d" $args
	expect_eq 2 "$RC" "report $args: usage error"
	expect_eq 1 "$(wc -l <"$T/bad.err")" "report $args: one line"
	expect_eq 0 "$(wc -c <"$T/bad.out")" "report $args: nothing on standard output"
done

finish
