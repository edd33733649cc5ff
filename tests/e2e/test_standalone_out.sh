#!/usr/bin/env bash
# Without the launcher: a program linked with libperfscope records by itself when
# PERFSCOPE_OUT (and PERFSCOPE_EVENTS) are set, and perfscope report reads the result.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init

prog=$EX/pagewalk
[ -x "$prog" ] || die "$prog was not built"

d=$T/standalone
run prog env PERFSCOPE_OUT="$d" PERFSCOPE_EVENTS=page-faults "$prog" -n 5000
expect_eq 0 "$RC" "standalone pagewalk exit status"
expect_eq "" "$(cat "$T/prog.err")" "standalone pagewalk stderr"
[ -d "$d" ] || die "PERFSCOPE_OUT=$d: no experiment directory was created"

expect_file "$d/meta.json" "meta.json of a standalone run"
expect_eq true "$(json_eval "$d/meta.json" 'True')" "meta.json parses as JSON"
expect_eq runtime "$(json_eval "$d/meta.json" 'd["created_by"]')" "meta.json created_by"
expect_eq page-faults "$(json_eval "$d/meta.json" '",".join(d["events"])')" "meta.json events"

report_csv_or_die rep "$d"
expect_eq 1 "$(csv_get "$T/rep.out" calls name=walk)" "standalone: calls of walk"
expect_near 5000 "$(csv_get "$T/rep.out" page-faults name=walk)" 2 "standalone: page-faults of walk"

# PERFSCOPE_OUT unset: nothing is written, the program runs the same
mkdir "$T/quiet" && cd "$T/quiet"
run plain "$prog" -n 100
expect_eq 0 "$RC" "pagewalk without PERFSCOPE_OUT exit status"
expect_eq "" "$(ls -A "$T/quiet")" "pagewalk without PERFSCOPE_OUT writes nothing in the cwd"
cd "$T"

finish
