#!/usr/bin/env bash
# One pass over an experiment (src/model/pass.h) sees every record `perfscope dump` shows:
# per record kind, the counts of a pass with a counting consumer (test_pass DIR: the calls by
# their matched events, the other records by their record) equal those of the records dump
# prints (each event's record as read), on the threads example (regions, counters), the calls
# example traced (function calls on three threads) and, where sampling works, a sampled run.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

counter=$PSC_BUILD/tests/test_pass
[ -x "$counter" ] || die "$counter was not built"

# compare NAME DIR: dump's counts per record name against the pass's
compare() {
	run "$1-dump" "$PERFSCOPE" dump "$2"
	expect_eq 0 "$RC" "$1: dump exit status"
	awk '$1 !~ /^#/ && $4 != "chunk" && $4 != "record" && NF >= 4 { n[$4]++ }
	     END { for (k in n) print k, n[k] }' "$T/$1-dump.out" | sort >"$T/$1.want"
	"$counter" "$2" | sort >"$T/$1.got" || fail "$1: the pass failed: $(cat "$T/$1.got")"
	[ -s "$T/$1.want" ] || fail "$1: dump shows no records"
	diff "$T/$1.want" "$T/$1.got" >"$T/$1.diff" || true
	expect_eq "" "$(cat "$T/$1.diff")" "$1: the pass counts each record kind as dump does"
}

[ -x "$EX/threads" ] || die "$EX/threads was not built"
record_or_die rec-thr "$T/thr.exp" -e page-faults -- "$EX/threads"
compare threads "$T/thr.exp"

if [ -x "$EX/calls" ] && "$PERFSCOPE" record --help | grep -q -- --functions; then
	record_or_die rec-calls "$T/calls.exp" --functions -- "$EX/calls"
	compare calls "$T/calls.exp"
else
	note "function tracing not built: the calls example skipped"
fi

run rec-smp "$PERFSCOPE" record -o "$T/smp.exp" --sample=1000 --callgraph -- "$EX/callchain"
if [ "$RC" -eq 0 ] && ls "$T/smp.exp"/samples.* >/dev/null 2>&1; then
	compare samples "$T/smp.exp"
else
	note "sampling does not work here: the sampled run skipped"
fi
finish
