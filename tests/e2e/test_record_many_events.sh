#!/usr/bin/env bash
# record -e with 999 events: every one reaches the runtime (which may still fail to open some,
# each with its status), or record refuses with one line and exit 2 before it runs anything.
#
# - 999 raw events r1..r3e7: 4.9 KB of names, past the 4 KiB buffer record once joined them
#   in (the runtime then got 4,095 characters ending in a comma and counted nothing).
# - 999 spellings of software events (libpfm4 takes any case and the :u/:k modifiers): 12 KB,
#   past the 8 KiB the options were once joined in; software events count everywhere.
# - 5,000 spellings of 30 characters: more than the environment passes in one variable
#   (128 KiB): one line, exit 2, no directory.
# The runtime's count is the one in every stream header (perfscope dump).
. "$(dirname "$0")/lib.sh"
psc_init
require_cmd python3

cat >"$T/prog.c" <<'C'
#include <perfscope.h>
int main(void)
{
	psc_region_begin("work");
	psc_region_end("work");
	return 0;
}
C
build_c prog "$T/prog.c"

# events N STYLE: N distinct event names, comma-separated
events() {
	python3 - "$1" "$2" <<'PY'
import itertools, sys
n, style = int(sys.argv[1]), sys.argv[2]
def spellings(word):
    for bits in itertools.product((0, 1), repeat=sum(c.isalpha() for c in word)):
        it = iter(bits)
        yield "".join((c.upper() if next(it) else c.lower()) if c.isalpha() else c
                      for c in word)
if style == "raw":
    names = ["r%x" % i for i in range(1, n + 1)]
elif style == "soft":
    names = itertools.chain.from_iterable(
        (s + m for s in spellings(w)) for m in ("", ":u", ":k")
        for w in ("cs", "faults", "migrations", "task-clock", "page-faults"))
else:
    names = spellings("perf::PERF_COUNT_SW_PAGE_FAULTS")
print(",".join(itertools.islice(names, n)))
PY
}

# check NAME STYLE: record 999 events of STYLE; every stream header says 999
check() {
	local list
	list=$(events 999 "$2")
	expect_eq 999 "$(tr ',' '\n' <<<"$list" | sort -u | wc -l)" "$1: distinct names"
	record_or_die "rec-$1" "$T/$1" -e "$list" -- "$T/prog"
	run "dump-$1" "$PERFSCOPE" dump "$T/$1"
	expect_eq 0 "$RC" "$1: dump exit status"
	local headers got
	headers=$(grep -c ' events, ' "$T/dump-$1.out" || true)
	got=$(grep -c ', 999 events, ' "$T/dump-$1.out" || true)
	[ "$headers" -gt 0 ] || { show "dump-$1"; fail "$1: no stream header in dump"; }
	expect_eq "$headers" "$got" "$1: stream headers with 999 events"
	expect_no_grep PERFSCOPE_EVENTS "$T/rec-$1.err"
	local f
	for f in "$T/$1"/*.json; do
		expect_no_grep PERFSCOPE_EVENTS "$f" "$1: $(basename "$f")"
	done
}

check raw raw
check soft soft
# the software events were counted: the region's page faults are a column of the report
run report-soft "$PERFSCOPE" report "$T/soft" --csv
expect_eq 0 "$RC" "report of 999 software events"
expect_grep 'faults' "$T/report-soft.out"

# in two -e options of 2,500 (32 bytes each with the comma): one argument cannot be that long
# either
list=$(events 5000 long)
run long "$PERFSCOPE" record -o "$T/long" -e "${list:0:79999}" -e "${list:80000}" -- "$T/prog"
expect_eq 2 "$RC" "record with a 156 KB event list"
expect_eq 1 "$(wc -l <"$T/long.err")" "lines on stderr"
expect_grep 'perfscope record: -e: 5000 events take 159999 bytes, the environment passes ' "$T/long.err"
expect_no_file "$T/long"
finish
