#!/usr/bin/env bash
# Region names as programs give them: a NUL inside a counted name ends the name and nothing
# past the caller's bytes is read (under ASan in sanitizer builds); names past the runtime's
# 1,048,575 ids are all recorded, under one overflow region, and counted; names longer than
# 1024 bytes are cut and counted.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

build_c rnp "$PSC_SOURCE/tests/e2e/region-names-prog.c"

# a counted name with a NUL inside its length, in a heap block of exactly that length
run nul env PERFSCOPE_OUT="$T/nul" "$T/rnp" nul
expect_eq 0 "$RC" "NUL in a counted name: exit status"
expect_no_grep "ERROR: AddressSanitizer" "$T/nul.err" "NUL in a counted name: no read past the name"
report_csv_or_die nulrep "$T/nul" --by region
expect_eq 10 "$(csv_get "$T/nulrep.out" calls name=ab)" "NUL in a counted name: region ab"

# names past the last id: every boundary is in the stream, the ones past the limit under the
# overflow region, and proc.json counts them
n=1100000
over=$((n - 1048575))
run many env PERFSCOPE_OUT="$T/many" "$T/rnp" many $n
expect_eq 0 "$RC" "$n names: exit status"
proc=$(ls "$T"/many/proc.*.json)
expect_eq $((2 * over)) "$(json_eval "$proc" 'd["regions_folded"]')" "$n names: boundaries folded"
run info "$PERFSCOPE" info "$T/many" --json
expect_eq 0 "$RC" "$n names: info exit status"
expect_eq "$n $n 1048576" "$(json_eval "$T/info.out" \
	'" ".join(str(d["streams"][0]["by_kind"][k]) for k in ("region-enter", "region-leave", "region-def"))')" \
	"$n names: every enter and leave recorded, every id defined"
expect_eq $((2 * over)) "$(json_eval "$T/info.out" 'd["processes"][0]["regions_folded"]')" \
	"$n names: info --json"
expect_eq 1 "$(json_eval "$T/info.out" \
	'sum("%d region boundaries of names past the 1,048,575th are counted together" % '"$((2 * over))"' in c for c in d["caveats"])')" \
	"$n names: the caveats say so (every command states them)"

# names longer than 1024 bytes: cut to 1024, the two that agree that far are one region
run long env PERFSCOPE_OUT="$T/long" "$T/rnp" long
expect_eq 0 "$RC" "long names: exit status"
proc=$(ls "$T"/long/proc.*.json)
expect_eq 1 "$(json_eval "$proc" 'd["region_names_cut"]')" "long names: names cut"
run longtext "$PERFSCOPE" report "$T/long" --by region
expect_grep "1 region name longer than 1024 bytes cut to its first 1024" "$T/longtext.out" \
	"long names: the report says so"
report_csv_or_die longrep "$T/long" --by region
expect_eq "1024 2" "$(awk -F, 'NR == 2 { print length($1), $3 }' "$T/longrep.out")" \
	"long names: one region of 1024 bytes, entered twice"

finish
