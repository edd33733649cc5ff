#!/usr/bin/env bash
# Near misses of an experiment's file names (docs/format.md, "File names": numbers are decimal
# without sign or leading zero, and nothing follows them) are not the experiment's: empty files
# named maps.+7, maps.07, pmaps.+7 and pmaps.007.1 next to a recording are no memory maps of a
# process 7, so no command says they are damaged, and the reports are those of the recording
# alone. The readers once took such names apart with sscanf, which reads "+7" and "07" as 7.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

prog=$EX/fib
[ -x "$prog" ] || die "$prog was not built"
good=$T/good
record_or_die rec "$good" -- "$prog" 20
cp -r "$good" "$T/near"
misses="maps.+7 maps.07 pmaps.+7 pmaps.007.1"
for name in $misses; do
	: >"$T/near/$name"
done

for cmd in report info; do
	run "$cmd-good" "$PERFSCOPE" "$cmd" "$good"
	expect_eq 0 "$RC" "$cmd of the recording: exit status"
	run "$cmd-near" "$PERFSCOPE" "$cmd" "$T/near"
	expect_eq 0 "$RC" "$cmd with near-miss names beside it: exit status"
	for name in $misses; do
		expect_no_grep "$name" "$T/$cmd-near.out" "$cmd's output"
		expect_no_grep "$name" "$T/$cmd-near.err" "$cmd's caveats"
	done
	expect_no_grep "process 7" "$T/$cmd-near.err" "$cmd's caveats"
done
# the same report, byte for byte, but for the directory's name
for f in out err; do
	sed "s|$T/near|$good|g" "$T/report-near.$f" >"$T/report-near-renamed.$f"
	expect_eq "" "$({ diff "$T/report-good.$f" "$T/report-near-renamed.$f" || true; } | head -n 20)" \
		"report.$f beside near-miss names"
done
finish
