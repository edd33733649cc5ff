#!/usr/bin/env bash
# The HTML report's frame: one self-contained file (no address outside it), the Summary and
# Profile views checked in Chromium by the report's own tests, names from the trace shown as
# text (a region named like an HTML tag injects nothing), and html's bad input.
. "$(dirname "$0")/lib.sh"
psc_init
. "$(dirname "$0")/html-lib.sh"

evil='<img src=x onerror=alert(1)>'
cat >"$T/inject.c" <<'C'
#include <perfscope.h>
int main(void)
{
	for (int i = 0; i < 3; i++) {
		psc_region_begin("<img src=x onerror=alert(1)>");
		psc_region_end("<img src=x onerror=alert(1)>");
	}
	psc_region_begin("</script><script>alert(2)</script>");
	psc_region_end("</script><script>alert(2)</script>");
	return 0;
}
C
build_c inject "$T/inject.c"
run rec "$PERFSCOPE" record -o "$T/exp" -- "$T/inject"
expect_eq 0 "$RC" "record"
run html "$PERFSCOPE" html "$T/exp"
expect_eq 0 "$RC" "html"
[ -s "$T/exp/report.html" ] || die "no report written"

# self-contained: no URL the browser could fetch, no external script or style
if grep -Eq '(src|href)=["'"'"']?(https?:)?//' "$T/exp/report.html"; then
	fail "the report references an external address: $(grep -Eo '(src|href)=.{0,40}//[^ ]*' "$T/exp/report.html" | head -n 2)"
fi
expect_eq 1 "$(grep -c 'Chart.js v3' "$T/exp/report.html")" "Chart.js is inlined once"

html_render "$T/exp/report.html" summary summary
html_expect_ok summary
views=$(html_dom summary --views | tr '\n' ' ')
case " $views" in " summary profile "*) ;; *) fail "views: Summary then Profile first, got: $views" ;; esac
for v in waits traffic animation load detail energy counters; do
	case " $views " in *" $v "*) fail "view $v shown for a run without its data: $views" ;; esac
done
expect_eq 0 "$(html_dom summary --count img)" "no <img> element was injected"
html_dom summary --table profile-table >"$T/profile.csv"
n=$(python3 -c 'import csv,sys; print(sum(1 for r in csv.reader(open(sys.argv[1])) if r and r[0]==sys.argv[2] and r[2]=="3"))' "$T/profile.csv" "$evil")
expect_eq 1 "$n" "the region named like an <img> tag is a text cell with its 3 calls"
n=$(python3 -c 'import csv,sys; print(sum(1 for r in csv.reader(open(sys.argv[1])) if r and r[0]==sys.argv[2]))' "$T/profile.csv" '</script><script>alert(2)</script>')
expect_eq 1 "$n" "the region named like a closing script tag is a text cell"
if grep -q 'alert' "$T/summary.log"; then fail "an alert ran: $(grep alert "$T/summary.log" | head -n 1)"; fi

# bad input: an existing report is not overwritten without --force; a missing directory
echo keep >"$T/mine.html"
run again "$PERFSCOPE" html "$T/exp" -o "$T/mine.html"
expect_eq 2 "$RC" "html onto an existing file"
expect_eq keep "$(cat "$T/mine.html")" "the existing file is kept"
run forced "$PERFSCOPE" html "$T/exp" -o "$T/mine.html" --force
expect_eq 0 "$RC" "html --force"
run missing "$PERFSCOPE" html "$T/nothing-here"
expect_eq 2 "$RC" "html on a missing directory"
[ "$(wc -l <"$T/missing.err")" -eq 1 ] || fail "one line for a missing directory: $(cat "$T/missing.err")"
run grid "$PERFSCOPE" html "$T/exp" --grid 3by4 -o "$T/g.html"
expect_eq 2 "$RC" "html --grid 3by4"
finish
