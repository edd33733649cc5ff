#!/usr/bin/env bash
# test_report_otf2_noenter.sh - `perfscope report` on an OTF2 archive without Enter/Leave events
# (written here with Python's otf2: two ranks' locations with ProgramBegin and ProgramEnd only)
# names the archive as what lacks them, in text, CSV (its warnings) and JSON: the caveat of an
# experiment ("build the program with -finstrument-functions") would send the user to rebuild
# a program the archive's tracer ran.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init
PYOTF2=$(python_otf2)
[ -n "$PYOTF2" ] || skip "no python3 with the otf2 module (python3-otf2)"

"$PYOTF2" - "$T/arch" <<'PY' || die "could not write the archive with Python's otf2"
import sys
import otf2
with otf2.writer.open(sys.argv[1], timer_resolution=1000000000) as trace:
    root = trace.definitions.system_tree_node("machine")
    for r in range(2):
        lg = trace.definitions.location_group("rank %d" % r, system_tree_parent=root)
        w = trace.event_writer("main %d" % r, group=lg)
        w.program_begin(1000 + r, "prog", [])
        w.program_end(5000 + r, 0)
PY
anchor=$T/arch/traces.otf2
[ -f "$anchor" ] || die "no $anchor"
want="the archive has no Enter/Leave events"

run text "$PERFSCOPE" report "$anchor"
expect_eq 0 "$RC" "report: exit status ($(cat "$T/text.err"))"
expect_grep "$want" "$T/text.out" "report: the caveat"
expect_eq 0 "$(grep -c finstrument-functions "$T/text.out" "$T/text.err" | awk -F: '{ n += $2 } END { print n + 0 }')" \
	"report: mentions of -finstrument-functions"

run csv "$PERFSCOPE" report "$anchor" --csv
expect_eq 0 "$RC" "report --csv: exit status ($(cat "$T/csv.err"))"
expect_grep "warning: $want" "$T/csv.err" "report --csv: the caveat"

run json "$PERFSCOPE" report "$anchor" --json
expect_eq 0 "$RC" "report --json: exit status ($(cat "$T/json.err"))"
expect_eq 1 "$(json_eval "$T/json.out" "sum(1 for c in d['caveats'] if c.startswith('$want'))")" \
	"report --json: the caveat"
expect_eq 0 "$(json_eval "$T/json.out" "len(d['functions'])")" "report --json: function rows"
finish
