#!/usr/bin/env bash
# test_html_inject_otf2.sh - function names that look like HTML are shown as text by
# `perfscope html`. An OTF2 archive written here with Python's otf2 (one location) has the
# functions `<img src=x onerror=alert(1)>` (3 calls, the first the longest slice of the run,
# so the Timeline's own test hovers it) and a C++-like `f<std::less<int>></script><b>x</b>`
# (2 calls, inside the first). In Chromium: status ok, no <img> or <b> element anywhere, the
# Profile's function cells hold both names with their calls, and the Timeline's tooltip
# (#timeline-tip) is the <img> name as text.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
psc_init
. "$(dirname "$0")/html-lib.sh"
PYOTF2=$(python_otf2)
[ -n "$PYOTF2" ] || skip "no python3 with the otf2 module (python3-otf2)"

img='<img src=x onerror=alert(1)>'
tpl='f<std::less<int>></script><b>x</b>'
"$PYOTF2" - "$T/arch" "$img" "$tpl" <<'PY' || die "could not write the archive with Python's otf2"
import sys
import otf2
with otf2.writer.open(sys.argv[1], timer_resolution=1000000000) as trace:
    root = trace.definitions.system_tree_node("machine")
    img = trace.definitions.region(sys.argv[2])
    tpl = trace.definitions.region(sys.argv[3])
    lg = trace.definitions.location_group("rank 0", system_tree_parent=root)
    w = trace.event_writer("main 0", group=lg)
    w.program_begin(1000, "prog", [])
    # img: 50 us (holding tpl twice, 5 us each), then 2 calls of 1 us
    w.enter(2000, img)
    w.enter(10000, tpl)
    w.leave(15000, tpl)
    w.enter(20000, tpl)
    w.leave(25000, tpl)
    w.leave(52000, img)
    for t in (60000, 70000):
        w.enter(t, img)
        w.leave(t + 1000, img)
    w.program_end(80000, 0)
PY
anchor=$T/arch/traces.otf2
[ -f "$anchor" ] || die "no $anchor"
run csv "$PERFSCOPE" report "$anchor" --csv
expect_eq 0 "$RC" "report --csv of the archive ($(cat "$T/csv.err"))"
expect_eq 3 "$(csv_get "$T/csv.out" calls name="$img")" "report: calls of the <img> function"
expect_eq 2 "$(csv_get "$T/csv.out" calls name="$tpl")" "report: calls of the template function"

run html "$PERFSCOPE" html "$anchor" -o "$T/r.html"
expect_eq 0 "$RC" "html of the archive ($(cat "$T/html.err"))"
[ -s "$T/r.html" ] || die "no report written"
expect_eq 0 "$(grep -c '<img\|<b>' "$T/r.html" || true)" "no <img or <b> tag in the written file"

for v in profile timeline; do
	html_render "$T/r.html" $v $v
	html_expect_ok $v
	expect_eq 0 "$(html_dom $v --count img)" "$v: no <img> element"
	expect_eq 0 "$(html_dom $v --count b)" "$v: no <b> element"
	if grep -q 'alert' "$T/$v.log"; then fail "$v: an alert ran: $(grep alert "$T/$v.log" | head -n 1)"; fi
done
html_dom profile --table profile-functions >"$T/functions.csv"
expect_eq 3 "$(csv_get "$T/functions.csv" calls function="$img")" "Profile: the <img> name is a text cell with its calls"
expect_eq 2 "$(csv_get "$T/functions.csv" calls function="$tpl")" "Profile: the template name is a text cell with its calls"
expect_eq 2 "$(($(wc -l <"$T/functions.csv") - 1))" "Profile: one row per function"
expect_eq "rank 0: $img: 50.0 µs" "$(html_dom timeline --text timeline-tip)" \
	"Timeline: the tooltip of the longest slice names the <img> function as text"
finish
