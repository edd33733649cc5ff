#!/usr/bin/env bash
# A program killed with SIGKILL after psc_flush still leaves a readable experiment, and the
# report says the process did not end cleanly.
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
expect_eq 137 "$RC" "record of a program killed by SIGKILL: exit status 128 + 9"
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

finish
