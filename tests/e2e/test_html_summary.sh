#!/usr/bin/env bash
# The HTML report's frame: one self-contained file (no address outside it), the Summary and
# Profile views checked in Chromium by the report's own tests, names from the trace shown as
# text (a region named like an HTML tag injects nothing), and html's bad input: --grid far
# larger than the ranks, a stream the profile pass rejects (the other views are still written);
# the Summary's caveats for lost records and for the skewed ring's clock (as report and mpi).
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
# --grid far larger than the ranks, or a side above 4096: refused with one line naming a grid
# that fits (4 cells per rank + 16 at most); sensible grids are kept
python3 "$PSC_SOURCE/bench/gen_mpi_exp.py" -p 64 -e 20000 "$T/m64" >/dev/null ||
	die "gen_mpi_exp.py -p 64"
run g100 "$PERFSCOPE" html "$T/m64" --grid 100x100 -o "$T/g.html"
expect_eq 2 "$RC" "html --grid 100x100 for 64 ranks"
expect_eq 1 "$(wc -l <"$T/g100.err")" "one line for a grid too large"
expect_grep "10000 cells for 64 ranks; at most 272" "$T/g100.err" "the message gives the limit"
expect_grep "e.g. --grid 8x8" "$T/g100.err" "the message names a grid that fits"
expect_no_file "$T/g.html"
run gside "$PERFSCOPE" html "$T/m64" --grid 5000x1 -o "$T/g.html"
expect_eq 2 "$RC" "html --grid 5000x1 (a side above 4096)"
run gnompi "$PERFSCOPE" html "$T/exp" --grid 10x10 -o "$T/g.html"
expect_eq 2 "$RC" "html --grid 10x10 without MPI ranks"
run g830 "$PERFSCOPE" html "$T/m64" --grid 8x34 -o "$T/g.html"
expect_eq 0 "$RC" "html --grid 8x34 (272 cells) for 64 ranks"

# the generator's 64 ranks are valid streams (the collective used to run into the next
# iteration: "time goes backwards"), so html has no caveat about them
expect_eq true "$(python3 -c 'import re,sys,json; t=open(sys.argv[1]).read(); d=json.loads(re.search(r"id=\"psc-data\">(.*?)</script>", t, re.S).group(1)); print(str(not any("backwards" in c for c in d["caveats"]) and "mpi" in d).lower())' "$T/g.html")" \
	"64 generated ranks: MPI data and no stream defect"
run rep64 "$PERFSCOPE" report "$T/m64" --csv
expect_eq 0 "$RC" "report of 64 generated ranks"

# MPI records are looked for only when some rank is named (proc.<pid>.json, else a stream
# header), and then in the profiles' pass: html reads each stream as often whether a rank is
# named or not (before, the MPI model read every stream in a pass of its own). Passes counted
# as reads of the first chunk header (plain "PSCK" or compressed "PSCZ").
command -v strace >/dev/null 2>&1 || die "strace not found: run scripts/install-deps.sh"
passes() {
	strace -f -y -e trace=pread64,read -o "$T/strace.$1" "$PERFSCOPE" html "$2" -o "$T/p.html" --force >/dev/null 2>&1
	grep -c 'stream\.[0-9.]*>, "PSC[KZ].*, 16, 64) = 16' "$T/strace.$1" || true
}
cp -r "$T/exp" "$T/ranked"
sed -i 's/"rank": *-1/"rank": 0/' "$T/ranked"/proc.*.json
grep -q '"rank": 0' "$T/ranked"/proc.*.json || die "cannot name a rank in proc.*.json"
n0=$(passes plain "$T/exp")
n1=$(passes ranked "$T/ranked")
expect_cmp "$n0" ">" 0 "html reads the streams"
expect_eq "$n0" "$n1" "no pass more when a rank is named: the MPI model reads in the profiles' pass"
# a rank whose proc.<pid>.json lost its rank still has it in its stream header: MPI views kept
python3 "$PSC_SOURCE/bench/gen_mpi_exp.py" -p 4 -e 2000 "$T/norank" >/dev/null || die "gen_mpi_exp.py"
for f in "$T/norank"/proc.*.json; do sed -i 's/"rank": *[0-9]*/"rank": -1/' "$f"; done
run norank "$PERFSCOPE" html "$T/norank"
expect_eq 0 "$RC" "html with ranks only in the stream headers"
expect_eq 4 "$(python3 -c 'import re,sys,json; t=open(sys.argv[1]).read(); d=json.loads(re.search(r"id=\"psc-data\">(.*?)</script>", t, re.S).group(1)); print(sum(d["mpi"]["present"]))' "$T/norank/report.html")" \
	"4 ranks present from their stream headers"
# streams with only MPI records are read once in full, by the MPI model, which html loads
# before the profile pass so that the pass can skip them: each stream's first chunk header is
# read twice, by experiment_open's clock scan and by the model (three times when the profile
# pass read them too)
n2=$(passes mpionly "$T/norank")
expect_eq "$((2 * $(ls "$T/norank"/stream.* | wc -l)))" "$n2" "MPI-only streams: no profile pass over them"

# a stream the profile pass rejects (a record's time before the previous one's): html still
# writes the other views and the Summary names the reason for leaving the Profile out
python3 "$PSC_SOURCE/bench/gen_mpi_exp.py" -p 4 -e 2000 "$T/bad" >/dev/null || die "gen_mpi_exp.py -p 4"
python3 - "$T/bad/stream.1001.1001" <<'PY' || die "cannot corrupt the stream"
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
# the records of the last chunk (each chunk: 16-byte header, then extended records with
# their length in words in word 1): the last one (the end record) 1 ms before the one before
off, last = 64, None
while off < len(b):
    size = struct.unpack_from("<I", b, off + 4)[0]
    last, off = (off + 16, off + 16 + size), off + 16 + size
offs, off = [], last[0]
while off < last[1]:
    offs.append(off)
    off += 8 * ((struct.unpack_from("<Q", b, off + 8)[0] >> 16) & 0xFFFF)
t = struct.unpack_from("<Q", b, offs[-2])[0] >> 2
struct.pack_into("<Q", b, offs[-1], ((t - 1_000_000) << 2) | 2)
open(sys.argv[1], "wb").write(b)
PY
run bad "$PERFSCOPE" html "$T/bad"
expect_eq 0 "$RC" "html of an experiment with a defective stream"
expect_grep "time goes backwards" "$T/bad.err" "the defect is on stderr"
expect_grep "Profile view is left out" "$T/bad.err" "stderr says the Profile is left out"
html_render "$T/bad/report.html" bad summary
# (not html_expect_ok: this experiment is defective on purpose; the views checked are the ones
# this case is about)
for v in summary timeline waits; do
	expect_grep "$v: ok" <(html_dom bad --tests) "the $v view renders and passes its test"
done
html_dom bad --text summary-caveats >"$T/bad.caveats"
expect_grep "Profile view left out: $T/bad/stream.1001.1001: byte" "$T/bad.caveats" \
	"the Summary names the stream"
expect_grep "time goes backwards" "$T/bad.caveats" "the Summary names the defect"
views=$(html_dom bad --views | tr '\n' ' ')
case " $views " in *" profile "*) fail "a Profile view without a profile: $views" ;; esac
case " $views " in *" waits "*) ;; *) fail "the MPI views are still shown: $views" ;; esac
# every caveat in the Summary (#summary-caveats), as report and mpi give it:
# - records and chunks lost (as on a full disk: the counts proc.<pid>.json keeps)
cp -r "$T/exp" "$T/lost"
rm -f "$T/lost/report.html"
sed -i 's/"lost_records": *0/"lost_records": 7/; s/"lost_bytes": *0/"lost_bytes": 12345/' "$T/lost"/proc.*.json
pid=$(basename "$T/lost"/proc.*.json .json)
pid=${pid#proc.}
run replost "$PERFSCOPE" report "$T/lost"
expect_grep "process $pid: 7 records and 12345 bytes of chunks lost" "$T/replost.out" "report: the lost records"
run htmllost "$PERFSCOPE" html "$T/lost"
expect_eq 0 "$RC" "html of an experiment with lost records"
html_render "$T/lost/report.html" lost summary
html_expect_ok lost
html_dom lost --text summary-caveats >"$T/lost.caveats"
expect_grep "process $pid: 7 records and 12345 bytes of chunks lost" "$T/lost.caveats" \
	"the Summary lists the lost records and bytes"
# - a stream cut short (the run killed while writing): the file's caveat, as report says it
cp -r "$T/exp" "$T/cut"
rm -f "$T/cut/report.html"
cutstream=$(ls -S "$T/cut"/stream.* | head -n 1)
truncate -s -8 "$cutstream"
run repcut "$PERFSCOPE" report "$T/cut"
cat "$T/repcut.out" "$T/repcut.err" | sed -n 's/^[ !]*\(stream\.[0-9.]*: cut at byte [0-9]*.*\)$/\1/p' >"$T/cut.want"
expect_eq 1 "$(wc -l <"$T/cut.want")" "report: one stream cut ($(cat "$T/cut.want"))"
run htmlcut "$PERFSCOPE" html "$T/cut"
expect_eq 0 "$RC" "html of an experiment with a cut stream"
html_render "$T/cut/report.html" cut summary
html_expect_ok cut
html_dom cut --text summary-caveats >"$T/cut.caveats"
expect_grep "$(cat "$T/cut.want")" "$T/cut.caveats" "the Summary says the stream was cut, as report does"
# - the ring with rank 2's clock 2 s ahead (as in test_mpi_skew): the messages it sent arrive
#   before they were sent on the ranks' own clocks; the Summary has mpi's lines about them
if command -v mpirun >/dev/null 2>&1 && [ -x "$EX/mpi/ring" ]; then
	. "$(dirname "$0")/mpi-lib.sh"
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
	ringargs=(-b 10 -n 3)
	PERFSCOPE_CLOCK=monotonic mpi_record skewrec "$T/skew" 2 "$EX/mpi/ring" "${ringargs[@]}" : \
		-np 1 -x PERFSCOPE_TEST_CLOCK_SKEW=2000000000:500 "$EX/mpi/ring" "${ringargs[@]}" : \
		-np 1 "$EX/mpi/ring" "${ringargs[@]}"
	run skewmpi "$PERFSCOPE" mpi "$T/skew"
	expect_eq 0 "$RC" "perfscope mpi of the skewed ring"
	sed -n 's/^ *! //p' "$T/skewmpi.out" | grep 'received before they were sent' | sort >"$T/skew.want" || true
	expect_cmp "$(wc -l <"$T/skew.want")" ">=" 1 "mpi: caveats about messages received before they were sent"
	# the alignment fixes the skewed rank's messages, or, when a loaded machine's round trips
	# leave its offsets less exact than the messages' latency (ASan in CI), the correction does
	expect_cmp "$(grep -cE "on the ranks' own clocks: the clock alignment fixed|corrected, 0 left" "$T/skew.want" || true)" \
		">=" 1 "mpi: the skewed rank's messages are fixed by the alignment or the correction ($(tr '\n' ';' <"$T/skew.want"))"
	run skewhtml "$PERFSCOPE" html "$T/skew"
	expect_eq 0 "$RC" "html of the skewed ring"
	html_render "$T/skew/report.html" skew summary
	html_expect_ok skew
	python3 - "$T/skew.dom" >"$T/skew.got" <<'PY' || die "cannot read the Summary's caveats"
import sys
from html.parser import HTMLParser
class P(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.depth, self.li, self.items = 0, None, []
    def handle_starttag(self, tag, a):
        if tag == "ul" and dict(a).get("id") == "summary-caveats":
            self.depth = 1
        elif self.depth and tag == "li":
            self.li = []
    def handle_endtag(self, tag):
        if self.depth and tag == "li" and self.li is not None:
            self.items.append("".join(self.li).strip())
            self.li = None
        elif self.depth and tag == "ul":
            self.depth = 0
    def handle_data(self, data):
        if self.li is not None:
            self.li.append(data)
p = P()
p.feed(open(sys.argv[1]).read())
print("\n".join(sorted(i for i in p.items if "received before they were sent" in i)))
PY
	expect_eq "$(cat "$T/skew.want")" "$(cat "$T/skew.got")" "the Summary's clock caveats are mpi's"
else
	note "no mpirun or examples/mpi/ring: the skewed ring's caveats are not checked"
fi
finish
