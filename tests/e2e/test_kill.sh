#!/usr/bin/env bash
# A program killed with SIGKILL after psc_flush still leaves a readable experiment, and the
# report says the process did not end cleanly. A stream whose last chunk is cut short (killed
# while writing, disk full) is read up to the cut, and the report says where it was cut
# (docs/format.md, "Finding the valid end").
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

cat >"$T/killed.c" <<'C'
#include <perfscope.h>
#include <signal.h>
#include <stdio.h>

int main(void)
{
	psc_region_begin("done");
	psc_region_end("done");
	psc_region_begin("r");
	if (psc_flush() != 0)
		fprintf(stderr, "psc_flush failed\n");
	raise(SIGKILL);
	return 0;
}
C
build_c killed "$T/killed.c"

d=$T/killed.exp
run rec "$PERFSCOPE" record -o "$d" -e page-faults -- "$T/killed"
expect_ne 0 "$RC" "record of a program killed by SIGKILL: exit status"
expect_eq "" "$(grep -v '^perfscope record:' "$T/rec.err" || true)" "psc_flush succeeded"
[ -f "$d/meta.json" ] || die "no experiment was left by the killed program"

run rep "$PERFSCOPE" report "$d"
expect_eq 0 "$RC" "report of a killed run: exit status"
expect_grep "did not end cleanly" "$T/rep.out" "report of a killed run: says the process did not end cleanly"
expect_grep "done" "$T/rep.out" "report of a killed run: the region flushed before the kill is there"

run json "$PERFSCOPE" report "$d" --json
expect_eq 0 "$RC" "report --json of a killed run: exit status"
expect_eq true "$(json_eval "$T/json.out" 'any("did not end cleanly" in c for c in d["caveats"])')" \
	"report --json of a killed run: caveat"
expect_eq 1 "$(json_eval "$T/json.out" '[r["calls"] for r in d["regions"] if r["name"] == "done"][0]')" \
	"report --json of a killed run: calls of the completed region"

run csv "$PERFSCOPE" report "$d" --csv
expect_eq 0 "$RC" "report --csv of a killed run: exit status"
expect_eq 1 "$(csv_get "$T/csv.out" calls name=done)" "report --csv of a killed run: calls of done"

# --- a stream cut inside its last chunk: the chunks before it are read, the cut is reported
cat >"$T/twochunks.c" <<'C'
#include <perfscope.h>

int main(void)
{
	psc_region_begin("first");
	psc_region_end("first");
	psc_flush(); /* "first" is in a chunk of its own */
	psc_region_begin("second");
	psc_region_end("second");
	return 0;
}
C
build_c twochunks "$T/twochunks.c"
d=$T/cut.exp
record_or_die rec-cut "$d" -- "$T/twochunks"
report_csv_or_die full "$d"
expect_eq 1 "$(csv_get "$T/full.out" calls name=second)" "uncut stream: calls of second"
streams=("$d"/stream.*)
[ "${#streams[@]}" -eq 1 ] && [ -f "${streams[0]}" ] || die "expected one stream file in $d: ${streams[*]}"
size=$(wc -c <"${streams[0]}")
head -c $((size - 8)) "${streams[0]}" >"$T/cut.tmp" && mv "$T/cut.tmp" "${streams[0]}"
for by in region thread; do
	run cut-$by "$PERFSCOPE" report "$d" --by $by
	expect_eq 0 "$RC" "report --by $by of a cut stream: exit status"
	expect_grep "$(basename "${streams[0]}"): cut at byte" "$T/cut-$by.out" "report --by $by of a cut stream: says where it was cut"
	report_csv_or_die cutcsv-$by "$d" --by $by
	expect_eq 1 "$(csv_get "$T/cutcsv-$by.out" calls name=first)" "report --by $by of a cut stream: the complete chunk is read"
	expect_no_grep "second" "$T/cutcsv-$by.out" "report --by $by of a cut stream: nothing from the cut chunk"
done
run cut-json "$PERFSCOPE" report "$d" --json
expect_eq true "$(json_eval "$T/cut-json.out" 'any(": cut at byte" in c for c in d["caveats"])')" \
	"report --json of a cut stream: caveat"

# --- cut inside the only chunk: no region survives, but the report still says why
d=$T/cut1.exp
record_or_die rec-cut1 "$d" -- "$EX/pagewalk" -n 10
streams=("$d"/stream.*)
size=$(wc -c <"${streams[0]}")
head -c $((size - 8)) "${streams[0]}" >"$T/cut1.tmp" && mv "$T/cut1.tmp" "${streams[0]}"
run cut1 "$PERFSCOPE" report "$d"
expect_eq 0 "$RC" "report of a stream cut in its only chunk: exit status"
cat "$T/cut1.out" "$T/cut1.err" >"$T/cut1.all"
expect_grep "$(basename "${streams[0]}"): cut at byte" "$T/cut1.all" "report of a stream cut in its only chunk: says where it was cut"

finish
